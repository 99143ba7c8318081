//! Cairn's error type.
//!
//! Each variant belongs to one [`ErrorKind`]: the caller's mistakes (invalid
//! input, unknown or ambiguous ids, conflicts, oversized content), a store
//! that is busy or unreachable for now, and internal faults. Each front end
//! maps the kinds once, at its edge, in one exhaustive `match`: to an exit
//! code, an MCP error or an HTTP status. Faults keep the error that caused
//! them as their [`std::error::Error::source`], so that a busy database, a
//! broken pipe and a corrupt file stay distinguishable.

use std::fmt;

/// The result type used throughout Cairn's libraries.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The cause of a fault, kept for logs and for callers that look for a
/// specific one (an I/O error's kind, say).
pub type Cause = Box<dyn std::error::Error + Send + Sync + 'static>;

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
    /// No API key has this id.
    #[error("no API key with id {0}")]
    KeyNotFound(String),
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
    /// A memory with this id is already stored.
    #[error("a memory with id {0} already exists")]
    DuplicateId(String),
    /// The caller did not prove who it is (no key, or a key that is
    /// unknown, malformed, revoked or expired); the message says which.
    #[error("{0}")]
    Unauthenticated(String),
    /// The caller's key does not allow this; the message says what it
    /// needs.
    #[error("{0}")]
    Forbidden(String),
    /// The store cannot answer now (busy, locked, restarting, unreachable);
    /// the same call may succeed later.
    #[error("the store is unavailable: {message}")]
    Unavailable {
        /// What happened, for humans.
        message: String,
        /// The underlying error.
        #[source]
        source: Option<Cause>,
    },
    /// A storage backend failed (I/O, SQL, corruption, ...).
    #[error("storage error: {message}")]
    Storage {
        /// What happened, for humans.
        message: String,
        /// The underlying error.
        #[source]
        source: Option<Cause>,
    },
    /// A model provider over HTTP (chat or embeddings) failed after its
    /// retries: unreachable, timing out, rate limited, answering errors or
    /// malformed answers. The same call may succeed later.
    #[error("model provider failed: {message}")]
    Provider {
        /// What happened, for humans: the endpoint and the last failure.
        message: String,
        /// The underlying error.
        #[source]
        source: Option<Cause>,
    },
    /// The embedder failed (model missing, inference error, ...).
    #[error("embedding error: {message}")]
    Embedding {
        /// What happened, for humans.
        message: String,
        /// The underlying error.
        #[source]
        source: Option<Cause>,
    },
}

/// What kind of error this is, for front ends to map to exit codes, HTTP
/// statuses or MCP errors in one exhaustive `match`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The request is malformed or a value is out of range: fix it.
    InvalidInput,
    /// The thing asked for does not exist (for this tenant).
    NotFound,
    /// An id prefix names several memories: give more of it.
    Ambiguous,
    /// The request contradicts the store's state (an id already stored, a
    /// store made with another model).
    Conflict,
    /// The content is larger than allowed.
    TooLarge,
    /// The caller did not authenticate: give a valid API key.
    Unauthenticated,
    /// The caller's key may not do this.
    Forbidden,
    /// The store is busy or unreachable for now: retry later.
    Unavailable,
    /// A fault inside Cairn or its environment.
    Internal,
}

impl ErrorKind {
    /// Whether the caller caused it (as opposed to the store or Cairn).
    pub fn is_callers(self) -> bool {
        match self {
            ErrorKind::InvalidInput
            | ErrorKind::NotFound
            | ErrorKind::Ambiguous
            | ErrorKind::Conflict
            | ErrorKind::TooLarge
            | ErrorKind::Unauthenticated
            | ErrorKind::Forbidden => true,
            ErrorKind::Unavailable | ErrorKind::Internal => false,
        }
    }
}

impl Error {
    /// Classify this error.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::InvalidInput(_) => ErrorKind::InvalidInput,
            Error::ContentTooLarge { .. } => ErrorKind::TooLarge,
            Error::NotFound(_) | Error::KeyNotFound(_) => ErrorKind::NotFound,
            Error::AmbiguousId { .. } => ErrorKind::Ambiguous,
            Error::ModelMismatch { .. } | Error::DuplicateId(_) => ErrorKind::Conflict,
            Error::Unauthenticated(_) => ErrorKind::Unauthenticated,
            Error::Forbidden(_) => ErrorKind::Forbidden,
            Error::Unavailable { .. } | Error::Provider { .. } => ErrorKind::Unavailable,
            Error::Storage { .. } | Error::Embedding { .. } => ErrorKind::Internal,
        }
    }

    /// A short, stable, machine-readable code for this error.
    pub fn code(&self) -> &'static str {
        match self {
            Error::InvalidInput(_) => "invalid_input",
            Error::ContentTooLarge { .. } => "content_too_large",
            Error::NotFound(_) | Error::KeyNotFound(_) => "not_found",
            Error::AmbiguousId { .. } => "ambiguous_id",
            Error::ModelMismatch { .. } => "model_mismatch",
            Error::DuplicateId(_) => "duplicate_id",
            Error::Unauthenticated(_) => "unauthenticated",
            Error::Forbidden(_) => "forbidden",
            Error::Unavailable { .. } => "unavailable",
            Error::Provider { .. } => "provider",
            Error::Storage { .. } => "storage",
            Error::Embedding { .. } => "embedding",
        }
    }

    /// Build an [`Error::InvalidInput`] from anything printable.
    pub fn invalid(msg: impl fmt::Display) -> Self {
        Error::InvalidInput(msg.to_string())
    }

    /// An [`Error::Storage`] with a message only.
    pub fn storage(msg: impl fmt::Display) -> Self {
        Error::Storage {
            message: msg.to_string(),
            source: None,
        }
    }

    /// An [`Error::Storage`] caused by `source`; the message is `context`
    /// followed by the source's own message.
    pub fn storage_from(
        context: impl fmt::Display,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        Error::Storage {
            message: join(context, &source),
            source: Some(Box::new(source)),
        }
    }

    /// An [`Error::Unavailable`] caused by `source`.
    pub fn unavailable_from(
        context: impl fmt::Display,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        Error::Unavailable {
            message: join(context, &source),
            source: Some(Box::new(source)),
        }
    }

    /// An [`Error::Provider`] with a message only.
    pub fn provider(msg: impl fmt::Display) -> Self {
        Error::Provider {
            message: msg.to_string(),
            source: None,
        }
    }

    /// An [`Error::Embedding`] with a message only.
    pub fn embedding(msg: impl fmt::Display) -> Self {
        Error::Embedding {
            message: msg.to_string(),
            source: None,
        }
    }

    /// An [`Error::Embedding`] caused by `source`.
    pub fn embedding_from(
        context: impl fmt::Display,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        Error::Embedding {
            message: join(context, &source),
            source: Some(Box::new(source)),
        }
    }

    /// Whether an I/O error of this kind is somewhere in the chain of
    /// causes (a reader that went away: [`std::io::ErrorKind::BrokenPipe`]).
    pub fn has_io_cause(&self, kind: std::io::ErrorKind) -> bool {
        let mut cause: Option<&(dyn std::error::Error + 'static)> = std::error::Error::source(self);
        while let Some(e) = cause {
            if e.downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == kind)
            {
                return true;
            }
            cause = e.source();
        }
        false
    }
}

/// `context: source`, or only the source's message when there is no context.
fn join(context: impl fmt::Display, source: &dyn fmt::Display) -> String {
    let context = context.to_string();
    if context.is_empty() {
        source.to_string()
    } else {
        format!("{context}: {source}")
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::storage_from("", e)
    }
}

/// The text work's one error, an input refused, is the user's mistake.
impl From<cairn_text::Error> for Error {
    fn from(e: cairn_text::Error) -> Self {
        Error::invalid(e.message())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_keep_their_cause() {
        let io = std::io::Error::new(std::io::ErrorKind::BrokenPipe, "pipe closed");
        let e = Error::storage_from("writing the export", io);
        assert_eq!(
            e.to_string(),
            "storage error: writing the export: pipe closed"
        );
        assert!(e.has_io_cause(std::io::ErrorKind::BrokenPipe));
        assert!(!e.has_io_cause(std::io::ErrorKind::NotFound));
        assert!(!Error::storage("no cause").has_io_cause(std::io::ErrorKind::BrokenPipe));
    }

    #[test]
    fn kinds_separate_the_callers_mistakes_from_faults() {
        let conflict = Error::DuplicateId("x".into());
        assert_eq!(conflict.kind(), ErrorKind::Conflict);
        assert!(conflict.kind().is_callers());
        let busy = Error::unavailable_from("database is locked", std::io::Error::other("busy"));
        assert_eq!(busy.kind(), ErrorKind::Unavailable);
        assert!(!busy.kind().is_callers());
        assert_eq!(Error::storage("x").kind(), ErrorKind::Internal);
    }
}
