//! An embedder that loads the local model on first use, so that commands
//! which never embed (get, list, export, stats, keyword recall) start fast
//! and work even before the model is fetched.

use std::path::PathBuf;
use std::sync::OnceLock;

use cairn_core::{Embedder, Error, ModelInfo, Result};
use cairn_embed::{BertEmbedder, SentenceTransformerDir};

/// Which local model.
pub enum LocalModel {
    /// all-MiniLM-L6-v2 in this directory, fetched first if missing (with a
    /// message on stderr).
    Default(PathBuf),
    /// A sentence-transformers directory, read and checked already.
    Dir(Box<SentenceTransformerDir>),
}

/// Loads a [`LocalModel`] on the first call that embeds; its name and
/// dimension are known without loading it.
pub struct LazyEmbedder {
    source: LocalModel,
    model: OnceLock<std::result::Result<BertEmbedder, String>>,
}

impl LazyEmbedder {
    pub fn new(source: LocalModel) -> Self {
        LazyEmbedder {
            source,
            model: OnceLock::new(),
        }
    }

    fn get(&self) -> Result<&BertEmbedder> {
        self.model
            .get_or_init(|| {
                match &self.source {
                    LocalModel::Default(dir) => {
                        cairn_embed::load_or_fetch(dir, &mut |msg| eprintln!("cairn: {msg}"))
                    }
                    LocalModel::Dir(dir) => dir.load(),
                }
                .map_err(|e| e.to_string())
            })
            .as_ref()
            .map_err(|e| Error::embedding(e.clone()))
    }
}

impl Embedder for LazyEmbedder {
    fn model(&self) -> ModelInfo {
        match &self.source {
            LocalModel::Default(_) => cairn_embed::model_info(),
            LocalModel::Dir(dir) => dir.info().clone(),
        }
    }

    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        self.get()?.embed_batch(texts)
    }
}
