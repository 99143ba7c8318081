//! The [`ChatProvider`] trait — a chat model Cairn may ask for summaries,
//! titles and facts — and those three tasks, each with the offline answer
//! it falls back to.
//!
//! A chat model is optional and never required: every task has an
//! extractive answer ([`crate::analysis::summary`]) that needs no network.
//! Implementations live in other crates (`cairn-providers` speaks the
//! OpenAI-compatible chat API of OpenAI, Ollama, vLLM…), retry transient
//! failures themselves and return [`crate::Error::Provider`] when they give
//! up; the engine then takes the offline path and says so in a
//! [`Generated`] record, so a memory is never lost to a provider's failure.
//!
//! This module knows nothing of HTTP: it writes the prompts and reads the
//! answers.

use serde::Serialize;

use crate::{Error, Result};

/// Who speaks a chat message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ChatRole {
    /// The instructions.
    System,
    /// The request.
    User,
}

/// One message of a chat request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChatMessage {
    /// Who speaks.
    pub role: ChatRole,
    /// What is said.
    pub content: String,
}

/// A chat completion request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatRequest {
    /// The conversation so far: instructions, then the request.
    pub messages: Vec<ChatMessage>,
    /// Whether the answer must be a JSON object. A provider asks for JSON
    /// output and treats an answer that is not a JSON object as a failure
    /// (retried like any other).
    pub json: bool,
    /// Most tokens of the answer.
    pub max_tokens: u32,
}

/// What a provider is, for status pages and receipts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ProviderInfo {
    /// The protocol: `openai` (OpenAI-compatible) or `ollama`.
    pub api: String,
    /// The endpoint's base URL.
    pub url: String,
    /// The model asked for.
    pub model: String,
}

/// A chat model. Object safe, `Send + Sync`, held as `Arc<dyn
/// ChatProvider>`; calls are synchronous and slow (network), so async front
/// ends call off their workers, like the [`crate::Embedder`].
pub trait ChatProvider: Send + Sync {
    /// The endpoint and model.
    fn info(&self) -> ProviderInfo;

    /// The model's answer to `request`, after the provider's own retries;
    /// [`crate::Error::Provider`] when it gave up.
    fn complete(&self, request: &ChatRequest) -> Result<String>;
}

/// How a generated text was made: by the chat model, or offline (with the
/// reason the model was not used, when one was configured).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Generated {
    /// `llm` or `extractive`.
    pub by: String,
    /// The chat model, when `by` is `llm`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Why the configured chat model was not used (its last failure), when
    /// `by` is `extractive` although one is configured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
}

impl Generated {
    /// Made by `model`.
    pub fn llm(model: &str) -> Self {
        Generated {
            by: "llm".into(),
            model: Some(model.into()),
            fallback: None,
        }
    }

    /// Made offline; `fallback` is the provider's failure, if one was tried.
    pub fn extractive(fallback: Option<String>) -> Self {
        Generated {
            by: "extractive".into(),
            model: None,
            fallback,
        }
    }
}

/// Longest text sent to a chat model for one task, in characters: a
/// summary of more is made of its beginning (the model's context window is
/// not known; 24,000 characters are about 6,000 tokens).
pub const MAX_PROMPT_CHARS: usize = 24_000;

fn clip(text: &str) -> &str {
    match text.char_indices().nth(MAX_PROMPT_CHARS) {
        Some((at, _)) => &text[..at],
        None => text,
    }
}

fn request(system: &str, user: &str, json: bool, max_tokens: u32) -> ChatRequest {
    ChatRequest {
        messages: vec![
            ChatMessage {
                role: ChatRole::System,
                content: system.into(),
            },
            ChatMessage {
                role: ChatRole::User,
                content: clip(user).into(),
            },
        ],
        json,
        max_tokens,
    }
}

/// A non-empty answer with surrounding white space and quotes trimmed.
fn answer(text: String, what: &str) -> Result<String> {
    let t = text.trim().trim_matches(['"', '\'', '`']).trim();
    if t.is_empty() {
        return Err(Error::provider(format!("the model's {what} was empty")));
    }
    Ok(t.to_string())
}

/// A summary of `text` in at most about `max_words` words, by the model.
pub fn summarise(chat: &dyn ChatProvider, text: &str, max_words: usize) -> Result<String> {
    let system = format!(
        "You summarise notes and conversations for a memory store. Write at most \
         {max_words} words of plain prose in the third person. Keep every name, date, \
         number, decision and preference that a later question could ask about. \
         Answer with the summary only."
    );
    let tokens = (max_words * 2).clamp(64, 2048) as u32;
    answer(
        chat.complete(&request(&system, text, false, tokens))?,
        "summary",
    )
}

/// A title of at most [`crate::analysis::summary::TITLE_MAX_CHARS`]
/// characters for `text`, by the model.
pub fn title(chat: &dyn ChatProvider, text: &str) -> Result<String> {
    let system = "Give the text a short title of at most eight words. Answer with the title only.";
    let t = answer(chat.complete(&request(system, text, false, 32))?, "title")?;
    let max = crate::analysis::summary::TITLE_MAX_CHARS;
    Ok(match t.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", t[..at].trim_end()),
        None => t,
    })
}

/// The standalone facts stated in `text`, by the model, asked for as a JSON
/// object `{"facts": ["…", …]}`; an answer of another shape is a
/// [`crate::Error::Provider`].
pub fn extract_facts(chat: &dyn ChatProvider, text: &str) -> Result<Vec<String>> {
    let system = "Extract the facts worth remembering from the text: each a short \
                  standalone sentence naming who or what it is about. Answer with a JSON \
                  object {\"facts\": [\"...\"]} and nothing else; an empty list if there \
                  are none.";
    let raw = chat.complete(&request(system, text, true, 1024))?;
    parse_facts(&raw)
}

/// Read `{"facts": [strings]}` (see [`extract_facts`]).
pub fn parse_facts(raw: &str) -> Result<Vec<String>> {
    let bad = |why: &str| Error::provider(format!("the model's facts are not usable: {why}"));
    let value: serde_json::Value =
        serde_json::from_str(raw.trim()).map_err(|e| bad(&format!("not JSON ({e})")))?;
    let list = value
        .get("facts")
        .and_then(serde_json::Value::as_array)
        .ok_or_else(|| bad("no \"facts\" list"))?;
    list.iter()
        .map(|f| {
            f.as_str()
                .map(|s| s.trim().to_string())
                .ok_or_else(|| bad("a fact is not a string"))
        })
        .filter(|f| f.as_ref().map_or(true, |s| !s.is_empty()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// Answers from a list, recording the requests.
    struct Scripted {
        answers: Mutex<Vec<Result<String>>>,
        seen: Mutex<Vec<ChatRequest>>,
    }

    impl Scripted {
        fn new(answers: Vec<Result<String>>) -> Self {
            Scripted {
                answers: Mutex::new(answers),
                seen: Mutex::new(Vec::new()),
            }
        }
    }

    impl ChatProvider for Scripted {
        fn info(&self) -> ProviderInfo {
            ProviderInfo {
                api: "openai".into(),
                url: "http://test".into(),
                model: "scripted".into(),
            }
        }
        fn complete(&self, request: &ChatRequest) -> Result<String> {
            self.seen.lock().unwrap().push(request.clone());
            self.answers.lock().unwrap().remove(0)
        }
    }

    #[test]
    fn summaries_and_titles_are_trimmed_and_never_empty() {
        let chat = Scripted::new(vec![
            Ok("  \"Alice moved to Lisbon.\" \n".into()),
            Ok("   ".into()),
        ]);
        assert_eq!(
            summarise(&chat, "long text", 50).unwrap(),
            "Alice moved to Lisbon."
        );
        assert!(matches!(
            summarise(&chat, "long text", 50),
            Err(Error::Provider { .. })
        ));
        let seen = chat.seen.lock().unwrap();
        assert!(!seen[0].json);
        assert_eq!(seen[0].messages[1].content, "long text");
        assert!(seen[0].messages[0].content.contains("50 words"));
    }

    #[test]
    fn long_titles_are_cut_and_long_texts_clipped() {
        let chat = Scripted::new(vec![Ok("word ".repeat(40))]);
        let long = "x".repeat(MAX_PROMPT_CHARS + 10);
        let t = title(&chat, &long).unwrap();
        assert!(t.chars().count() <= crate::analysis::summary::TITLE_MAX_CHARS + 1);
        assert!(t.ends_with('…'));
        let seen = chat.seen.lock().unwrap();
        assert_eq!(seen[0].messages[1].content.len(), MAX_PROMPT_CHARS);
    }

    #[test]
    fn facts_are_read_from_a_json_object_only() {
        assert_eq!(
            parse_facts(r#"{"facts": ["Alice lives in Lisbon.", " ", "Bob is 31."]}"#).unwrap(),
            vec!["Alice lives in Lisbon.", "Bob is 31."]
        );
        assert!(parse_facts(r#"{"facts": []}"#).unwrap().is_empty());
        for bad in [
            "Sure! Here are the facts: Alice lives in Lisbon.",
            r#"{"facts": "Alice"}"#,
            r#"{"items": []}"#,
            r#"{"facts": [1, 2]}"#,
        ] {
            assert!(
                matches!(parse_facts(bad), Err(Error::Provider { .. })),
                "{bad}"
            );
        }
        let chat = Scripted::new(vec![Ok(r#"{"facts": ["A."]}"#.into())]);
        assert_eq!(extract_facts(&chat, "A.").unwrap(), vec!["A."]);
        assert!(chat.seen.lock().unwrap()[0].json);
    }
}
