//! [`HttpReranker`]: a [`Reranker`] over a `POST {base}/rerank` endpoint
//! (the shape Cohere, Jina, vLLM and Hugging Face's text-embeddings-
//! inference serve): `{"model", "query", "documents": [..], "top_n"}`
//! answered by `{"results": [{"index", "relevance_score"}]}`.

use cairn_core::rerank::{Candidate, Reranker};
use cairn_core::Result;
use serde_json::{json, Value};

use crate::http::{Endpoint, Http};

/// A reranking model behind an HTTP endpoint.
pub struct HttpReranker {
    http: Http,
    model: String,
}

impl HttpReranker {
    /// The model `model` at `endpoint`.
    pub fn new(endpoint: Endpoint, model: impl Into<String>) -> Self {
        HttpReranker {
            http: Http::new(endpoint),
            model: model.into(),
        }
    }
}

/// The indices of `n` documents by their relevance, best first.
fn read_results(text: &str, n: usize) -> std::result::Result<Vec<usize>, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("malformed JSON answer: {e}"))?;
    let results = v
        .get("results")
        .and_then(Value::as_array)
        .ok_or("the answer has no results list")?;
    let mut scored = Vec::with_capacity(results.len());
    for r in results {
        let index = r
            .get("index")
            .and_then(Value::as_u64)
            .ok_or("a result has no index")? as usize;
        if index >= n {
            return Err(format!("a result's index {index} is out of range"));
        }
        let score = r
            .get("relevance_score")
            .or_else(|| r.get("score"))
            .and_then(Value::as_f64)
            .ok_or("a result has no relevance_score")?;
        scored.push((index, score));
    }
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    Ok(scored.into_iter().map(|(i, _)| i).collect())
}

impl Reranker for HttpReranker {
    fn name(&self) -> String {
        format!("http:{} at {}", self.model, self.http.endpoint().url)
    }

    fn rerank(&self, query: &str, candidates: &[Candidate<'_>]) -> Result<Vec<usize>> {
        let documents: Vec<&str> = candidates.iter().map(|c| c.text).collect();
        let body = json!({
            "model": self.model,
            "query": query,
            "documents": documents,
            "top_n": documents.len(),
        });
        self.http
            .post("/rerank", &body, |text| read_results(text, documents.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_are_ordered_by_relevance() {
        let text = r#"{"results":[{"index":1,"relevance_score":0.2},{"index":0,"relevance_score":0.9},{"index":2,"score":0.5}]}"#;
        assert_eq!(read_results(text, 3).unwrap(), [0, 2, 1]);
        assert!(read_results(text, 2).is_err());
        assert!(read_results(r#"{"data":[]}"#, 1).is_err());
        assert!(read_results(r#"{"results":[{"index":0}]}"#, 1).is_err());
    }
}
