//! # cairn-text
//!
//! Cairn's text work that needs neither a store nor a model: offline
//! analysis of messages ([`analysis`]), the text stages of ingestion
//! ([`ingest`]), redaction of secrets ([`redact`]), exact token counting
//! ([`tokens`]), the context-window optimiser ([`window`]) and prompt
//! templates ([`template`]), with the vocabulary they share with the core's
//! memory record ([`kind`]).
//!
//! ## Invariants
//! - Every function here is pure: text (and, where asked, vectors) in,
//!   values out. This crate knows nothing of storage, embedding models,
//!   HTTP, MCP or terminals; `cairn-core` depends on it, never the reverse.
//! - The one clock read is [`time::now`], for relative dates parsed
//!   without a reference time.

#![warn(unreachable_pub)]

pub mod analysis;
pub mod error;
pub mod ingest;
pub mod kind;
pub mod redact;
pub mod similarity;
pub mod template;
pub mod time;
pub mod tokens;
pub mod window;

#[cfg(any(test, feature = "secrets"))]
pub mod secrets;

pub use error::{Error, Result};
pub use kind::{MemoryType, Tier, Timestamp};
