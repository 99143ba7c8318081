//! Content kept compressed at rest: the long entries of archived slots.
//!
//! Packing changes how a backend keeps a memory's text, never the text:
//! every read answers the same bytes, the keyword and vector indexes are
//! untouched (a packed entry is still found), and no version is recorded.
//! How a backend compresses is its own (`cairn-sqlite` uses zstd, and
//! keeps a packed value apart from text by type: a blob against text).

use serde::Serialize;

use crate::memory::MemoryId;

/// Texts shorter than this (in bytes) are kept as they are.
pub const PACK_MIN_BYTES: usize = 1024;

/// What packing did to one memory's stored form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Packed {
    /// The memory.
    pub id: MemoryId,
    /// Its text's length in bytes.
    pub original_bytes: usize,
    /// What it takes at rest compressed.
    pub stored_bytes: usize,
    /// What compressed it.
    pub algorithm: &'static str,
}
