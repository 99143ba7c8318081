//! The one error of this crate: an input it refuses.

use std::fmt;

/// A text input this crate refuses (an unknown name, a malformed template,
/// a ratio out of range), with a message naming the problem. `cairn-core`
/// turns it into its own invalid-input error, message unchanged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Error(String);

/// This crate's `Result`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An input refused, with its message.
    pub fn invalid(msg: impl fmt::Display) -> Self {
        Error(msg.to_string())
    }

    /// The message naming the problem.
    pub fn message(&self) -> &str {
        &self.0
    }
}
