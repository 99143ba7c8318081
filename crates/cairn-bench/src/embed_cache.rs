//! An [`Embedder`] that remembers its vectors in a file, so that repeated
//! benchmark runs over the same texts (ranking ablations) skip the model.
//! Timings taken with a warm cache exclude embedding and say so.

use std::collections::HashMap;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result};
use cairn_core::{Embedder, ModelInfo};

/// A file-backed cache in front of another embedder.
pub struct CachedEmbedder {
    inner: Arc<dyn Embedder>,
    path: PathBuf,
    vectors: Mutex<HashMap<String, Vec<f32>>>,
}

impl CachedEmbedder {
    /// Loads the cache at `path` (if it exists) for `inner`'s model.
    pub fn open(inner: Arc<dyn Embedder>, path: PathBuf) -> Result<Self> {
        let dim = inner.model().dim;
        let mut vectors = HashMap::new();
        if path.exists() {
            let mut r = BufReader::new(std::fs::File::open(&path)?);
            let mut len = [0u8; 4];
            while r.read_exact(&mut len).is_ok() {
                let mut text = vec![0u8; u32::from_le_bytes(len) as usize];
                r.read_exact(&mut text)?;
                let mut raw = vec![0u8; dim * 4];
                r.read_exact(&mut raw)
                    .with_context(|| format!("{} is truncated", path.display()))?;
                let v = raw
                    .chunks_exact(4)
                    .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                    .collect();
                vectors.insert(String::from_utf8(text)?, v);
            }
        }
        Ok(CachedEmbedder {
            inner,
            path,
            vectors: Mutex::new(vectors),
        })
    }

    /// How many of `texts` the cache does not hold.
    pub fn missing(&self, texts: &[&str]) -> usize {
        let vectors = self.vectors.lock().expect("cache lock");
        texts.iter().filter(|t| !vectors.contains_key(**t)).count()
    }

    /// Writes the cache back.
    pub fn save(&self) -> Result<()> {
        let vectors = self.vectors.lock().expect("cache lock");
        let tmp = self.path.with_extension("tmp");
        let mut w = BufWriter::new(std::fs::File::create(&tmp)?);
        for (text, v) in vectors.iter() {
            w.write_all(&(text.len() as u32).to_le_bytes())?;
            w.write_all(text.as_bytes())?;
            for x in v {
                w.write_all(&x.to_le_bytes())?;
            }
        }
        w.into_inner()?.sync_all()?;
        std::fs::rename(&tmp, &self.path)?;
        Ok(())
    }
}

impl Embedder for CachedEmbedder {
    fn model(&self) -> ModelInfo {
        self.inner.model()
    }

    fn embed_batch(&self, texts: &[&str]) -> cairn_core::Result<Vec<Vec<f32>>> {
        let missing: Vec<&str> = {
            let vectors = self.vectors.lock().expect("cache lock");
            texts
                .iter()
                .copied()
                .filter(|t| !vectors.contains_key(*t))
                .collect()
        };
        let fresh = if missing.is_empty() {
            Vec::new()
        } else {
            self.inner.embed_batch(&missing)?
        };
        let mut vectors = self.vectors.lock().expect("cache lock");
        for (t, v) in missing.into_iter().zip(fresh) {
            vectors.insert(t.to_string(), v);
        }
        Ok(texts.iter().map(|t| vectors[*t].clone()).collect())
    }
}
