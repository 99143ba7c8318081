//! # cairn-core
//!
//! The heart of Cairn, a persistent memory for AI agents: the memory record
//! ([`Memory`]), the [`Store`] and [`Embedder`] traits, the ranking math
//! ([`rank`]), the engine ([`Cairn`]: recall and writing), context assembly
//! ([`context`]), the text stages of ingestion ([`ingest`], with the rest
//! of the text work from `cairn-text`, re-exported here), the
//! application layer every front end calls ([`api`]), project detection
//! ([`project`]), the wire format ([`wire`]) and the formats of other memory
//! systems' exports ([`foreign`]; the `cairn-importers` crate reads them).
//!
//! ## Invariants
//! - This crate knows nothing of SQL, HTTP, MCP or terminals: it depends on
//!   no database driver, web framework, protocol SDK or CLI parser.
//! - It is synchronous; async front ends leave their workers to call it
//!   (`block_in_place`, or `spawn_blocking` on a single-threaded runtime).
//! - Every ranking formula is a pure function in [`rank`] with its tests.

#![warn(unreachable_pub)]

pub mod api;
pub mod chat;
pub mod collections;
pub mod context;
pub mod embed;
pub mod embed_queue;
pub mod engine;
pub mod error;
pub mod foreign;
pub mod highlight;
pub mod history;
pub mod keys;
pub mod memory;
pub mod memstore;
pub mod migrate;
pub mod oauth;
pub mod packing;
pub mod project;
pub mod rank;
pub mod rerank;
pub mod shared;
pub mod store;
pub mod time;
pub mod wire;

// The text work that needs neither store nor model lives in `cairn-text`;
// its modules keep their paths here (`cairn_core::redact`, `crate::window`).
pub use cairn_text::{analysis, ingest, redact, template, tokens, window};

#[cfg(any(test, feature = "conformance"))]
pub mod conformance;

pub use chat::{ChatProvider, Generated, ProviderInfo};
pub use embed::{Embedder, ModelInfo};

/// Shortest id prefix in answers (`xxxxxxxx-xxxx`: the creation
/// millisecond of a UUIDv7), so that an id shown now stays unique as
/// memories are added. Humans' tables show shorter ones (8 characters).
pub const SHORT_ID_MIN: usize = 13;
pub use engine::{
    Cairn, ConflictPolicy, RecallRequest, Recalled, RememberOutcome, RememberRequest, SearchMode,
    UpdateRequest, WriteStatus,
};
pub use error::{Error, ErrorKind, Result};
pub use memory::{
    EmbedRecipe, Memory, MemoryId, MemoryType, Thread, Tier, Timestamp, DEFAULT_TENANT,
    MAX_CONTENT_BYTES,
};
pub use memstore::MemoryStore;
pub use store::{
    Access, Filter, Hit, Inserted, ListOrder, RankFactors, Restore, ScopeFilter, Store,
    StoreCaches, StoreStats, TenantsWith, TermRarity, ThreadScope, WriteBatch,
};

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    crate::store_conformance_tests!(Arc::new(crate::MemoryStore::new()) as Arc<dyn crate::Store>);
}
