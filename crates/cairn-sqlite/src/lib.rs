//! # cairn-sqlite
//!
//! Cairn's default backend: every memory in one SQLite file.
//!
//! - **Durability**: WAL journal, versioned migrations, every write batch in
//!   one `BEGIN IMMEDIATE` transaction (all or nothing).
//! - **Reads in parallel**: a pool of read-only connections (one per core)
//!   beside the one writing connection.
//! - **Several processes** may share the file: writers wait on a busy
//!   timeout (30 s) instead of failing with `database is locked`; each call
//!   reads the latest committed state.
//! - **Keyword search**: FTS5 with BM25 over content, tags and metadata
//!   values. User text is reduced to terms and each term is quoted, so it is
//!   never parsed as FTS5 syntax.
//!   A long-running process that calls [`StoreCaches::preload`](cairn_core::StoreCaches::preload) answers keyword
//!   queries from [`keyword_index`] instead: FTS5's own postings held in memory
//!   and scored with FTS5's BM25 formula (same tokens, same scores).
//! - **Vector search**: see [`vector_index`]: an in-process quantised index loaded
//!   from its snapshot (table `vsnap`) or from the compact `vindex` table,
//!   and kept in step by a revision counter.
//!   It also holds each memory's ranking factors, which every search hit
//!   carries; they follow other processes' accesses by an access revision
//!   (the `accessed` table, which alone holds each memory's access count
//!   and last access: recording accesses rewrites only its narrow rows).
//!
//! This crate must never hold ranking logic (that is `cairn_core::rank`) nor
//! decide what a filter means (that is `cairn_core::store::Filter`).

#![warn(unreachable_pub)]

mod access;
mod backup;
mod checkpoint;
mod collections;
mod compress;
mod durability;
mod keys;
pub mod keyword_index;
mod oauth;
mod packing;
mod readers;
pub mod schema;
mod shared;
mod sql;
mod store;
mod sync;
pub mod vector_index;
mod write;

pub use backup::SqliteBackupFile;
pub use durability::Durability;
pub use sql::fts_query;
pub use store::{
    SqliteStore, BULK_WRITE, BUSY_TIMEOUT, CACHE_KIB, MAX_KEYWORD_POSTINGS, MAX_QUERY_TERMS,
    PRUNE_ABOVE_DOCS, SNAPSHOT_MIN_ENTRIES,
};
