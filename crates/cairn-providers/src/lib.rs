//! Optional model providers over HTTP. Cairn never needs one: without
//! them it embeds with its local model and summarises extractively.
//!
//! - [`OpenAiChat`]: a [`cairn_core::ChatProvider`] over any
//!   OpenAI-compatible chat endpoint (OpenAI, Ollama, vLLM…), for
//!   summaries, titles and fact extraction.
//! - [`RemoteEmbedder`]: a [`cairn_core::Embedder`] over an
//!   OpenAI-compatible or Ollama embedding endpoint.
//! - [`HttpReranker`]: a [`cairn_core::rerank::Reranker`] over a
//!   `/rerank` endpoint.
//! - [`Endpoint`] and the retry policy every call shares (`http.rs`):
//!   timeouts, 429 with `Retry-After`, 5xx and unusable answers are retried
//!   with backoff, then reported as [`cairn_core::Error::Provider`] — the
//!   engine then takes its offline path.
//! - [`ProviderSettings`]: which providers the environment and `cairn.toml`
//!   configure, and where each setting came from (and which local model
//!   directory, if not the default model).
//!
//! Blocking (`ureq`), like the core's traits; async front ends call them off
//! their workers (`block_in_place` or `spawn_blocking`). API keys come from the environment and are never
//! stored or printed.

#![warn(unreachable_pub)]

mod chat;
mod embed;
mod http;
mod rerank;
mod settings;

pub use chat::OpenAiChat;
pub use embed::{EmbedApi, RemoteEmbedder};
pub use http::{Endpoint, DEFAULT_BACKOFF, DEFAULT_RETRIES, DEFAULT_TIMEOUT, MAX_WAIT};
pub use rerank::HttpReranker;
pub use settings::{
    ChatSettings, EmbedDirSettings, EmbedSettings, ProviderFile, ProviderSettings, ProvidersFile,
    RerankSettings, Setting,
};

#[cfg(feature = "test-server")]
pub mod testing;
