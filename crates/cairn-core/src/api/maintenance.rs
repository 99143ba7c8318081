//! Store-wide upkeep, over every tenant: expiry, re-embedding, pending
//! writes, and the shared state of many servers. Front ends offer these
//! only to the store's owner (the CLI on its file, a server's own jobs).

use serde::Serialize;

use crate::embed::ModelInfo;
use crate::engine::{Cairn, PendingReport};
use crate::Result;

/// What [`gc`] did.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct GcOutput {
    /// Expired memories deleted (each leaves a receipt).
    pub deleted: usize,
}

/// What [`reindex`] did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReindexOutput {
    /// Memories re-embedded.
    pub reindexed: usize,
    /// The model that embedded them.
    pub model: ModelInfo,
}

/// Delete every tenant's expired memories.
pub fn gc(cairn: &Cairn) -> Result<GcOutput> {
    Ok(GcOutput {
        deleted: cairn.gc()?,
    })
}

/// Re-embed every memory of every tenant with the engine's model;
/// `progress(done, total)` after each batch.
pub fn reindex(cairn: &Cairn, progress: &mut dyn FnMut(usize, usize)) -> Result<ReindexOutput> {
    let reindexed = cairn.reindex(progress)?;
    Ok(ReindexOutput {
        reindexed,
        model: cairn.embedder().model(),
    })
}

/// Embed and write the writes kept while the embedding endpoint failed.
pub fn embed_pending(cairn: &Cairn) -> Result<PendingReport> {
    cairn.embed_pending()
}

/// Drop expired web UI sessions and idle rate-limit buckets; how many.
pub fn sweep_shared(cairn: &Cairn) -> Result<usize> {
    cairn.store().shared().sweep_shared(cairn.now())
}
