//! Which model providers an engine uses, and whether they answer: `cairn
//! providers`, `GET /v1/providers`.

use std::time::Instant;

use serde::Serialize;

use crate::chat::{self, ProviderInfo};
use crate::engine::Cairn;
use crate::ModelInfo;

/// The outcome of a small request to a provider.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ProviderCheck {
    /// Whether it answered usably.
    pub ok: bool,
    /// How long it took, retries included, in milliseconds.
    pub ms: u64,
    /// Its failure, when not ok.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The chat model, if one is configured.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ChatStatus {
    /// Endpoint and model.
    #[serde(flatten)]
    pub info: ProviderInfo,
    /// A title asked for, when checked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub check: Option<ProviderCheck>,
}

/// The embedder in use.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct EmbedderStatus {
    /// Its model (`all-MiniLM-L6-v2` is the local one; `openai:…` or
    /// `ollama:…` an endpoint's).
    pub model: String,
    /// Its dimension.
    pub dim: usize,
    /// One text embedded, when checked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub check: Option<ProviderCheck>,
}

/// The providers of an engine.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ProvidersOutput {
    /// The chat model (none: summaries and titles are extractive).
    pub chat: Option<ChatStatus>,
    /// The embedder.
    pub embedder: EmbedderStatus,
    /// The reranker of recall's best candidates (none: recall's own order).
    pub reranker: Option<String>,
}

fn timed(f: impl FnOnce() -> crate::Result<()>) -> ProviderCheck {
    let started = Instant::now();
    let result = f();
    ProviderCheck {
        ok: result.is_ok(),
        ms: started.elapsed().as_millis() as u64,
        error: result.err().map(|e| e.to_string()),
    }
}

/// The engine's providers; with `check`, each is sent a small request.
pub fn providers(cairn: &Cairn, check: bool) -> ProvidersOutput {
    let chat = cairn.chat().map(|c| ChatStatus {
        info: c.info(),
        check: check
            .then(|| timed(|| chat::title(c.as_ref(), "Checking the connection.").map(drop))),
    });
    let ModelInfo { name, dim } = cairn.embedder().model();
    let embedder = EmbedderStatus {
        model: name,
        dim,
        check: check
            .then(|| timed(|| cairn.embedder().embed("Checking the connection.").map(drop))),
    };
    ProvidersOutput {
        chat,
        embedder,
        reranker: cairn.reranker().map(|r| r.name()),
    }
}
