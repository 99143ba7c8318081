//! Summaries and titles the engine writes: by the configured chat model
//! ([`crate::chat`]), else — or when the model fails after its retries —
//! extractive ([`crate::analysis::summary`]). Each answer says which way it
//! was made ([`Generated`]), so receipts can report a fallback.

use super::Cairn;
use crate::analysis::summary::{self, Target};
use crate::chat::{self, Generated};
use crate::tokens::Tokenizer;
use crate::Result;

impl Cairn {
    /// A summary of `lines` (whole texts or sentences, in order) of at
    /// most about `budget` tokens. `vectors[i]` is the unit-norm embedding
    /// of `lines[i]`, which the extractive path reads.
    pub fn summary_of<V: AsRef<[f32]>>(
        &self,
        lines: &[&str],
        vectors: &[V],
        budget: usize,
    ) -> Result<(String, Generated)> {
        let mut fallback = None;
        if let Some(chat) = &self.chat {
            // Words are about three quarters of a token.
            match chat::summarise(chat.as_ref(), &lines.join("\n"), budget * 3 / 4) {
                Ok(text) => return Ok((text, Generated::llm(&chat.info().model))),
                Err(e) => fallback = Some(e.to_string()),
            }
        }
        let picked = summary::summarise(
            lines,
            vectors,
            Target::Tokens {
                budget,
                tokenizer: Tokenizer::default(),
            },
        )?;
        Ok((picked.text, Generated::extractive(fallback)))
    }

    /// A summary of `text` of about `ratio` of its length: by the chat
    /// model, else its most central sentences (embedded here).
    pub fn summary_by_ratio(&self, text: &str, ratio: f64) -> Result<(String, Generated)> {
        let mut fallback = None;
        if let Some(chat) = &self.chat {
            let words = text.split_whitespace().count();
            let max_words = ((words as f64 * ratio).ceil() as usize).max(12);
            match chat::summarise(chat.as_ref(), text, max_words) {
                Ok(summary) => return Ok((summary, Generated::llm(&chat.info().model))),
                Err(e) => fallback = Some(e.to_string()),
            }
        }
        let sentences = crate::analysis::sentences::split_sentences(text);
        let vectors = self.embedder.embed_batch(&sentences)?;
        let picked = summary::summarise(&sentences, &vectors, Target::ratio(ratio)?)?;
        Ok((picked.text, Generated::extractive(fallback)))
    }

    /// A title for `text` (an ingested text, a conversation's topic), when
    /// a chat model is configured: the model's, else (it failed) the most
    /// central of `sentences` (whose unit vectors are `vectors`, possibly
    /// none), with the failure. `None` without a chat model: the caller
    /// takes its offline path.
    pub(crate) fn model_title(
        &self,
        text: &str,
        sentences: &[&str],
        vectors: &[Vec<f32>],
    ) -> Result<Option<(String, Generated)>> {
        let Some(model) = &self.chat else {
            return Ok(None);
        };
        let failure = match chat::title(model.as_ref(), text) {
            Ok(t) => return Ok(Some((t, Generated::llm(&model.info().model)))),
            Err(e) => e.to_string(),
        };
        let title = if vectors.len() == sentences.len() {
            summary::title(sentences, vectors)?
        } else {
            sentences
                .first()
                .map_or_else(String::new, |s| summary::title_of(s))
        };
        Ok(Some((title, Generated::extractive(Some(failure)))))
    }

    /// A title for `text`: by the chat model, else its most central
    /// sentence, shortened (embedded here).
    pub fn title_for(&self, text: &str) -> Result<(String, Generated)> {
        let mut fallback = None;
        if let Some(chat) = &self.chat {
            match chat::title(chat.as_ref(), text) {
                Ok(t) => return Ok((t, Generated::llm(&chat.info().model))),
                Err(e) => fallback = Some(e.to_string()),
            }
        }
        let sentences = crate::analysis::sentences::split_sentences(text);
        if sentences.is_empty() {
            return Ok((String::new(), Generated::extractive(fallback)));
        }
        let vectors = self.embedder.embed_batch(&sentences)?;
        Ok((
            summary::title(&sentences, &vectors)?,
            Generated::extractive(fallback),
        ))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::chat::{ChatProvider, ChatRequest, ProviderInfo};
    use crate::conformance::LexicalEmbedder;
    use crate::{Error, MemoryStore};

    struct Fixed(Result<String>);

    impl ChatProvider for Fixed {
        fn info(&self) -> ProviderInfo {
            ProviderInfo {
                api: "openai".into(),
                url: "http://test".into(),
                model: "m1".into(),
            }
        }
        fn complete(&self, _: &ChatRequest) -> Result<String> {
            match &self.0 {
                Ok(s) => Ok(s.clone()),
                Err(e) => Err(Error::provider(e.to_string())),
            }
        }
    }

    fn engine(chat: Option<Fixed>) -> Cairn {
        Cairn::new(Arc::new(MemoryStore::new()), Arc::new(LexicalEmbedder))
            .with_chat(chat.map(|c| Arc::new(c) as Arc<dyn ChatProvider>))
    }

    const TEXT: &str = "Alice moved to Lisbon in May. She works on the billing service. \
                        The weather was nice. Bob visited her in June.";

    #[test]
    fn the_chat_model_writes_when_it_answers() {
        let cairn = engine(Some(Fixed(Ok("Alice lives in Lisbon.".into()))));
        let (text, by) = cairn.summary_by_ratio(TEXT, 0.3).unwrap();
        assert_eq!(text, "Alice lives in Lisbon.");
        assert_eq!(by, Generated::llm("m1"));
        let (title, by) = cairn.title_for(TEXT).unwrap();
        assert_eq!(title, "Alice lives in Lisbon.");
        assert_eq!(by.by, "llm");
    }

    #[test]
    fn a_failing_model_falls_back_to_extractive_and_says_why() {
        let cairn = engine(Some(Fixed(Err(Error::provider("HTTP 500 after 3 tries")))));
        let (text, by) = cairn.summary_by_ratio(TEXT, 0.5).unwrap();
        let sentences = crate::analysis::sentences::split_sentences(TEXT);
        assert!(
            text.split_inclusive('.')
                .all(|s| sentences.contains(&s.trim())),
            "whole sentences of the text: {text}"
        );
        assert_eq!(by.by, "extractive");
        assert!(by.fallback.unwrap().contains("HTTP 500"));
        let lines = ["Alice: I moved to Lisbon.", "Bob: Nice!"];
        let vectors = cairn.embedder().embed_batch(&lines).unwrap();
        let (text, by) = cairn.summary_of(&lines, &vectors, 100).unwrap();
        assert!(text.contains("Lisbon"));
        assert!(by.fallback.is_some());
    }

    #[test]
    fn without_a_model_it_is_extractive_with_no_fallback() {
        let cairn = engine(None);
        let (title, by) = cairn.title_for(TEXT).unwrap();
        assert!(!title.is_empty());
        assert_eq!(by, Generated::extractive(None));
    }
}
