//! The one JSON shape of a memory in every answer.

use schemars::JsonSchema;
use serde::Serialize;

use crate::engine::Cairn;
use crate::memory::{Memory, MemoryId, MemoryType};
use crate::wire::MemoryRecord;
use crate::{Result, SHORT_ID_MIN};

/// A memory as every front end returns it: the export record's fields
/// (`project: null` = global; times RFC 3339) and the short id to pass back.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct MemoryView {
    /// Every stored field.
    #[serde(flatten)]
    pub record: MemoryRecord,
    /// The shortest unique prefix of the id, at least 13 characters (the
    /// creation millisecond), so that it stays unique as memories are
    /// added: what to pass back.
    pub short_id: String,
}

impl MemoryView {
    /// The full id.
    pub fn id(&self) -> &str {
        self.record.id.as_deref().unwrap_or_default()
    }

    /// The views of `memories`, with their short ids (one store call).
    pub fn of_all(cairn: &Cairn, tenant: &str, memories: &[Memory]) -> Result<Vec<MemoryView>> {
        let ids: Vec<MemoryId> = memories.iter().map(|m| m.id).collect();
        let shorts = cairn.short_ids(tenant, &ids, SHORT_ID_MIN)?;
        Ok(memories
            .iter()
            .zip(shorts)
            .map(|(m, short_id)| MemoryView {
                record: MemoryRecord::from_memory(m),
                short_id,
            })
            .collect())
    }

    /// The view of one memory.
    pub fn of(cairn: &Cairn, tenant: &str, memory: &Memory) -> Result<MemoryView> {
        Ok(Self::of_all(cairn, tenant, std::slice::from_ref(memory))?.remove(0))
    }
}

/// A stored memory similar to one just written.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct SimilarView {
    /// Full id.
    pub id: String,
    /// Short id (see [`MemoryView::short_id`]).
    pub short_id: String,
    /// Its type.
    #[serde(rename = "type")]
    pub kind: MemoryType,
    /// Its text.
    pub content: String,
    /// Cosine similarity with the memory written.
    pub similarity: f32,
}
