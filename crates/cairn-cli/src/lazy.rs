//! An embedder that loads the local model on first use, so that commands
//! which never embed (get, list, export, stats, keyword recall) start fast
//! and work even before the model is fetched.

use std::path::PathBuf;
use std::sync::OnceLock;

use cairn_core::{Embedder, Error, ModelInfo, Result};
use cairn_embed::MiniLm;

/// Loads all-MiniLM-L6-v2 from `dir` on the first call that embeds,
/// fetching it first if it is missing (with a message on stderr).
pub struct LazyMiniLm {
    dir: PathBuf,
    model: OnceLock<std::result::Result<MiniLm, String>>,
}

impl LazyMiniLm {
    pub fn new(dir: PathBuf) -> Self {
        LazyMiniLm {
            dir,
            model: OnceLock::new(),
        }
    }

    fn get(&self) -> Result<&MiniLm> {
        self.model
            .get_or_init(|| {
                cairn_embed::load_or_fetch(&self.dir, &mut |msg| eprintln!("cairn: {msg}"))
                    .map_err(|e| e.to_string())
            })
            .as_ref()
            .map_err(|e| Error::embedding(e.clone()))
    }
}

impl Embedder for LazyMiniLm {
    fn model(&self) -> ModelInfo {
        cairn_embed::model_info()
    }

    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        self.get()?.embed_batch(texts)
    }
}
