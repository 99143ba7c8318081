//! The [`Embedder`] trait: turns text into vectors.
//!
//! Implementations live in other crates (`cairn-embed` runs all-MiniLM-L6-v2
//! locally; an OpenAI-compatible endpoint can plug in the same way). The core
//! only ever sees this trait.

use crate::Result;

/// Which model made a vector: stored beside every embedding so that a store
/// opened with another model is refused instead of silently mixing spaces.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ModelInfo {
    /// The model's name, e.g. `all-MiniLM-L6-v2`.
    pub name: String,
    /// The vector dimension, e.g. 384.
    pub dim: usize,
}

impl std::fmt::Display for ModelInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({} dimensions)", self.name, self.dim)
    }
}

/// Turns text into L2-normalised vectors.
///
/// Object safe and `Send + Sync`, held as `Arc<dyn Embedder>`. Calls are
/// synchronous and may be slow (model inference): async front ends call them
/// off their workers (`block_in_place` or `spawn_blocking`).
pub trait Embedder: Send + Sync {
    /// The model's name and dimension.
    fn model(&self) -> ModelInfo;

    /// Embed a batch of texts; returns one vector of `model().dim` floats per
    /// text, in order, each with unit L2 norm.
    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>>;

    /// Embed one text.
    fn embed(&self, text: &str) -> Result<Vec<f32>> {
        let mut v = self.embed_batch(&[text])?;
        v.pop()
            .ok_or_else(|| crate::Error::embedding("embedder returned no vector"))
    }
}
