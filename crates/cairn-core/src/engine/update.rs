//! Update: change a memory in place.

use serde_json::{Map, Value};

use super::Cairn;
use crate::memory::{
    normalize_project, normalize_tags, validate_content, validate_unit, Memory, MemoryType,
};
use crate::store::WriteBatch;
use crate::{Error, Result};

/// Changes to a memory; `None` leaves a field as it is.
#[derive(Debug, Clone, Default)]
pub struct UpdateRequest {
    /// New text.
    pub content: Option<String>,
    /// New type.
    pub kind: Option<MemoryType>,
    /// New scope (`Some(None)` = make global).
    pub project: Option<Option<String>>,
    /// Replace all tags.
    pub tags: Option<Vec<String>>,
    /// Add these tags.
    pub add_tags: Vec<String>,
    /// Remove these tags.
    pub remove_tags: Vec<String>,
    /// Merge into metadata; a `null` value removes the key.
    pub metadata: Option<Map<String, Value>>,
    /// New importance.
    pub importance: Option<f64>,
    /// New weight.
    pub weight: Option<f64>,
    /// New TTL from now (ms).
    pub ttl_ms: Option<i64>,
    /// Remove the TTL.
    pub clear_ttl: bool,
}

impl Cairn {
    /// Change a memory. A content change re-embeds it; every change
    /// re-indexes it for keyword search (tags and metadata are searchable).
    pub fn update(&self, tenant: &str, id_or_prefix: &str, req: UpdateRequest) -> Result<Memory> {
        let id = self.resolve(tenant, id_or_prefix)?;
        let mut m = self.load(tenant, id)?;
        let now = self.now();
        let mut reembed = false;
        if let Some(c) = req.content {
            validate_content(&c)?;
            reembed |= c != m.content;
            m.content = c;
        }
        if let Some(k) = req.kind {
            m.kind = k;
        }
        if let Some(p) = req.project {
            m.project = p.as_deref().map(normalize_project).transpose()?;
        }
        let mut tags = match req.tags {
            Some(t) => normalize_tags(&t)?,
            None => m.tags.clone(),
        };
        tags.extend(normalize_tags(&req.add_tags)?);
        let remove = normalize_tags(&req.remove_tags)?;
        tags.retain(|t| !remove.contains(t));
        let tags = normalize_tags(&tags)?;
        m.tags = tags;
        if let Some(meta) = req.metadata {
            for (k, v) in meta {
                if v.is_null() {
                    m.metadata.remove(&k);
                } else {
                    m.metadata.insert(k, v);
                }
            }
        }
        if let Some(i) = req.importance {
            validate_unit("importance", i)?;
            m.importance = i;
        }
        if let Some(w) = req.weight {
            if !(0.0..=100.0).contains(&w) {
                return Err(Error::invalid(format!(
                    "weight must be between 0 and 100, got {w}"
                )));
            }
            m.weight = w;
        }
        if req.clear_ttl {
            m.expires_at = None;
        }
        if let Some(ttl) = req.ttl_ms {
            m.expires_at = Some(now + ttl);
        }
        m.updated_at = now;
        let vector = if reembed {
            self.ensure_model()?;
            Some(self.embed_one(m.embedding_text())?)
        } else {
            None
        };
        self.store.write(WriteBatch {
            inserts: vec![],
            updates: vec![(m.clone(), vector)],
        })?;
        Ok(m)
    }
}
