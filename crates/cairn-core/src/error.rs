//! Cairn's error type.
//!
//! User mistakes (bad input, unknown ids, ambiguous prefixes, oversized content)
//! and internal faults (storage, embedding) are different variants, so that each
//! front end can map them once, at its edge, to an exit code, an HTTP status or
//! an MCP error.

use std::fmt;

/// The result type used throughout Cairn's libraries.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in Cairn.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The caller passed something invalid; the message names the problem.
    #[error("{0}")]
    InvalidInput(String),
    /// Content larger than [`crate::MAX_CONTENT_BYTES`].
    #[error(
        "content is {size} bytes; the limit is {max} bytes (1 MiB): split it into smaller memories"
    )]
    ContentTooLarge {
        /// Size of the rejected content in bytes.
        size: usize,
        /// The limit in bytes.
        max: usize,
    },
    /// No memory has this id (or id prefix).
    #[error("no memory with id {0}")]
    NotFound(String),
    /// An id prefix matches several memories.
    #[error("id prefix {prefix} is ambiguous; it matches: {}", .candidates.join(", "))]
    AmbiguousId {
        /// The prefix the caller gave.
        prefix: String,
        /// The full ids it matches (at most a handful).
        candidates: Vec<String>,
    },
    /// The store was embedded with another model than the one in use.
    #[error("this store's embeddings were made by {stored}, but the embedder in use is {current}: run `cairn reindex` to re-embed every memory with {current}")]
    ModelMismatch {
        /// Model (name/dimension) recorded in the store.
        stored: String,
        /// Model (name/dimension) of the embedder in use.
        current: String,
    },
    /// A storage backend failed (I/O, SQL, corruption, ...).
    #[error("storage error: {0}")]
    Storage(String),
    /// The embedder failed (model missing, inference error, ...).
    #[error("embedding error: {0}")]
    Embedding(String),
}

/// What kind of error this is, for front ends to map to exit codes, HTTP
/// statuses or MCP errors in one exhaustive `match`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The caller's mistake: fix the request.
    BadInput,
    /// The thing asked for does not exist.
    NotFound,
    /// A fault inside Cairn or its environment.
    Internal,
}

impl Error {
    /// Classify this error.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::InvalidInput(_)
            | Error::ContentTooLarge { .. }
            | Error::AmbiguousId { .. }
            | Error::ModelMismatch { .. } => ErrorKind::BadInput,
            Error::NotFound(_) => ErrorKind::NotFound,
            Error::Storage(_) | Error::Embedding(_) => ErrorKind::Internal,
        }
    }

    /// A short, stable, machine-readable code for this error.
    pub fn code(&self) -> &'static str {
        match self {
            Error::InvalidInput(_) => "invalid_input",
            Error::ContentTooLarge { .. } => "content_too_large",
            Error::NotFound(_) => "not_found",
            Error::AmbiguousId { .. } => "ambiguous_id",
            Error::ModelMismatch { .. } => "model_mismatch",
            Error::Storage(_) => "storage",
            Error::Embedding(_) => "embedding",
        }
    }

    /// Build an [`Error::InvalidInput`] from anything printable.
    pub fn invalid(msg: impl fmt::Display) -> Self {
        Error::InvalidInput(msg.to_string())
    }

    /// Build an [`Error::Storage`] from anything printable.
    pub fn storage(msg: impl fmt::Display) -> Self {
        Error::Storage(msg.to_string())
    }

    /// Build an [`Error::Embedding`] from anything printable.
    pub fn embedding(msg: impl fmt::Display) -> Self {
        Error::Embedding(msg.to_string())
    }
}
