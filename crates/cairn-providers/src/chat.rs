//! [`OpenAiChat`]: a [`ChatProvider`] over the OpenAI-compatible
//! `POST {base}/chat/completions` (OpenAI, Ollama's `/v1`, vLLM, llama.cpp's
//! server, LiteLLM…).

use cairn_core::chat::{ChatProvider, ChatRequest, ProviderInfo};
use cairn_core::Result;
use serde_json::{json, Value};

use crate::http::{Endpoint, Http};

/// A chat model behind an OpenAI-compatible endpoint.
pub struct OpenAiChat {
    http: Http,
    model: String,
}

impl OpenAiChat {
    /// The model `model` at `endpoint` (nothing is sent until a call).
    pub fn new(endpoint: Endpoint, model: impl Into<String>) -> Self {
        OpenAiChat {
            http: Http::new(endpoint),
            model: model.into(),
        }
    }
}

/// The answer's text, from `choices[0].message.content`; when `json`, it
/// must itself be a JSON object (a model that ignores the requested format
/// fails the attempt).
pub(crate) fn read_completion(text: &str, json: bool) -> std::result::Result<String, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("malformed JSON answer: {e}"))?;
    let content = v
        .pointer("/choices/0/message/content")
        .and_then(Value::as_str)
        .ok_or("the answer has no choices[0].message.content")?;
    if json {
        let inner = strip_fence(content);
        match serde_json::from_str::<Value>(inner) {
            Ok(Value::Object(_)) => return Ok(inner.to_string()),
            _ => return Err("the model did not answer with the JSON object asked for".into()),
        }
    }
    Ok(content.to_string())
}

/// A JSON answer some models wrap in a Markdown code fence.
fn strip_fence(s: &str) -> &str {
    let t = s.trim();
    t.strip_prefix("```json")
        .or_else(|| t.strip_prefix("```"))
        .and_then(|rest| rest.strip_suffix("```"))
        .map_or(t, str::trim)
}

impl ChatProvider for OpenAiChat {
    fn info(&self) -> ProviderInfo {
        ProviderInfo {
            api: "openai".into(),
            url: self.http.endpoint().url.clone(),
            model: self.model.clone(),
        }
    }

    fn complete(&self, request: &ChatRequest) -> Result<String> {
        let mut body = json!({
            "model": self.model,
            "messages": request.messages,
            "max_tokens": request.max_tokens,
            "temperature": 0,
            "stream": false,
        });
        if request.json {
            body["response_format"] = json!({"type": "json_object"});
        }
        self.http.post("/chat/completions", &body, |text| {
            read_completion(text, request.json)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completions_are_read_and_json_checked() {
        let ok = r#"{"choices":[{"message":{"role":"assistant","content":"Hi."}}]}"#;
        assert_eq!(read_completion(ok, false).unwrap(), "Hi.");
        assert!(read_completion(ok, true).is_err());
        let fenced = r#"{"choices":[{"message":{"content":"```json\n{\"facts\":[]}\n```"}}]}"#;
        assert_eq!(read_completion(fenced, true).unwrap(), r#"{"facts":[]}"#);
        assert!(read_completion("{\"choices\": [", false).is_err());
        assert!(read_completion(r#"{"choices": []}"#, false).is_err());
    }
}
