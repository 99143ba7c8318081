//! [`RemoteEmbedder`]: an [`Embedder`] over an OpenAI-compatible
//! `POST {base}/embeddings` or Ollama's `POST {base}/api/embed`.
//!
//! The dimension is probed when it is made (one text embedded) unless
//! given; the model is named `openai:MODEL` or `ollama:MODEL`, which the
//! store records like any embedder's, so a store embedded with another
//! model is refused until `cairn reindex`. Vectors are L2-normalised here,
//! as the trait promises, whatever the endpoint returns.

use cairn_core::{Embedder, Error, ModelInfo, Result};
use serde_json::{json, Value};

use crate::http::{Endpoint, Http};

/// Which protocol an embedding endpoint speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EmbedApi {
    /// `POST /embeddings` with `{"model", "input": [..]}`, answering
    /// `{"data": [{"index", "embedding"}]}`.
    OpenAi,
    /// Ollama's `POST /api/embed` with `{"model", "input": [..]}`,
    /// answering `{"embeddings": [[..]]}`.
    Ollama,
}

impl EmbedApi {
    /// `openai` or `ollama`.
    pub fn as_str(self) -> &'static str {
        match self {
            EmbedApi::OpenAi => "openai",
            EmbedApi::Ollama => "ollama",
        }
    }
}

impl std::str::FromStr for EmbedApi {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "openai" => Ok(EmbedApi::OpenAi),
            "ollama" => Ok(EmbedApi::Ollama),
            other => Err(Error::invalid(format!(
                "unknown embedding API {other:?}: use openai or ollama"
            ))),
        }
    }
}

/// Reads an answer's vectors for so many texts, or says why it cannot.
type ReadVectors = fn(&str, usize) -> std::result::Result<Vec<Vec<f32>>, String>;

/// Texts sent per request.
const BATCH: usize = 64;

/// Embeddings from an HTTP endpoint.
pub struct RemoteEmbedder {
    http: Http,
    api: EmbedApi,
    model: String,
    dim: usize,
}

impl RemoteEmbedder {
    /// The model `model` at `endpoint`. With `dim` `None` one text is
    /// embedded to learn the dimension (an unreachable endpoint is then an
    /// error here, not at the first write).
    pub fn connect(
        endpoint: Endpoint,
        api: EmbedApi,
        model: impl Into<String>,
        dim: Option<usize>,
    ) -> Result<Self> {
        let mut e = RemoteEmbedder {
            http: Http::new(endpoint),
            api,
            model: model.into(),
            dim: dim.unwrap_or(0),
        };
        if dim.is_none() {
            let probe = e.request(&["dimension probe"])?;
            e.dim = probe.first().map_or(0, Vec::len);
            if e.dim == 0 {
                return Err(Error::provider(
                    "the embedding endpoint returned an empty vector",
                ));
            }
        }
        Ok(e)
    }

    /// The protocol.
    pub fn api(&self) -> EmbedApi {
        self.api
    }

    /// The base URL.
    pub fn url(&self) -> &str {
        &self.http.endpoint().url
    }

    fn request(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let body = json!({"model": self.model, "input": texts});
        let (path, read): (&str, ReadVectors) = match self.api {
            EmbedApi::OpenAi => ("/embeddings", read_openai),
            EmbedApi::Ollama => ("/api/embed", read_ollama),
        };
        let dim = self.dim;
        self.http.post(path, &body, |text| {
            let vectors = read(text, texts.len())?;
            if dim > 0 {
                if let Some(v) = vectors.iter().find(|v| v.len() != dim) {
                    return Err(format!(
                        "a vector of {} dimensions, expected {dim}",
                        v.len()
                    ));
                }
            }
            Ok(vectors)
        })
    }
}

fn floats(v: &Value) -> std::result::Result<Vec<f32>, String> {
    v.as_array()
        .ok_or("an embedding is not a list")?
        .iter()
        .map(|x| {
            x.as_f64()
                .map(|f| f as f32)
                .ok_or_else(|| "an embedding holds a non-number".to_string())
        })
        .collect()
}

fn parse(text: &str) -> std::result::Result<Value, String> {
    serde_json::from_str(text).map_err(|e| format!("malformed JSON answer: {e}"))
}

fn read_openai(text: &str, n: usize) -> std::result::Result<Vec<Vec<f32>>, String> {
    let v = parse(text)?;
    let data = v
        .get("data")
        .and_then(Value::as_array)
        .ok_or("the answer has no data list")?;
    let mut out = vec![None; n];
    for (i, item) in data.iter().enumerate() {
        let index = item
            .get("index")
            .and_then(Value::as_u64)
            .map_or(i, |x| x as usize);
        let slot = out
            .get_mut(index)
            .ok_or("an embedding's index is out of range")?;
        *slot = Some(floats(
            item.get("embedding").ok_or("an item has no embedding")?,
        )?);
    }
    out.into_iter()
        .map(|v| v.ok_or_else(|| format!("{n} texts sent, fewer embeddings returned")))
        .collect()
}

fn read_ollama(text: &str, n: usize) -> std::result::Result<Vec<Vec<f32>>, String> {
    let v = parse(text)?;
    let list = v
        .get("embeddings")
        .and_then(Value::as_array)
        .ok_or("the answer has no embeddings list")?;
    if list.len() != n {
        return Err(format!(
            "{n} texts sent, {} embeddings returned",
            list.len()
        ));
    }
    list.iter().map(floats).collect()
}

fn normalised(mut v: Vec<f32>) -> Vec<f32> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
    v
}

impl Embedder for RemoteEmbedder {
    fn model(&self) -> ModelInfo {
        ModelInfo {
            name: format!("{}:{}", self.api.as_str(), self.model),
            dim: self.dim,
        }
    }

    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let mut out = Vec::with_capacity(texts.len());
        for batch in texts.chunks(BATCH) {
            out.extend(self.request(batch)?.into_iter().map(normalised));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_answer_shapes_are_read_in_order() {
        let openai = r#"{"data":[{"index":1,"embedding":[0,2]},{"index":0,"embedding":[1,0]}]}"#;
        assert_eq!(
            read_openai(openai, 2).unwrap(),
            vec![vec![1.0, 0.0], vec![0.0, 2.0]]
        );
        assert!(read_openai(openai, 3).is_err());
        assert!(read_openai(r#"{"data":[{"index":0,"embedding":["x"]}]}"#, 1).is_err());
        assert_eq!(
            read_ollama(r#"{"embeddings":[[3,4]]}"#, 1).unwrap(),
            vec![vec![3.0, 4.0]]
        );
        assert!(read_ollama(r#"{"embeddings":[]}"#, 1).is_err());
        assert!(read_ollama("<html>", 1).is_err());
        assert_eq!(normalised(vec![3.0, 4.0]), vec![0.6, 0.8]);
    }
}
