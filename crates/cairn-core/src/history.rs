//! Versions and deletion receipts: what a memory was, who changed it and
//! why, and what is left of a forgotten one.
//!
//! Every change to a memory's content or fields is a [`Version`], written
//! by the store in the same transaction as the change itself (a
//! [`Change`] in the [`crate::WriteBatch`]). Accesses and re-embeddings
//! are not changes. Forgetting a memory erases it and every version of it,
//! and leaves a [`DeletionReceipt`]: its id, when, by whom, why and how
//! many versions went with it — never its content.

use serde::{Deserialize, Serialize};

use crate::memory::{Memory, MemoryId, Timestamp};
use crate::{Error, Result};

/// The actor of a change made on this machine without a key: the CLI and
/// `cairn mcp` on stdio.
pub const LOCAL_ACTOR: &str = "local";

/// The actor of what Cairn does by itself (deleting expired memories).
pub const SYSTEM_ACTOR: &str = "system";

/// What a version records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    /// The memory was written.
    Created,
    /// The memory arrived in an import.
    Imported,
    /// Its content or fields were changed.
    Updated,
    /// A near-identical memory was merged into it.
    Deduplicated,
    /// Another memory replaced it.
    Superseded,
    /// An earlier version was restored.
    Reverted,
}

impl ChangeKind {
    /// Every kind, in declaration order.
    pub const ALL: [ChangeKind; 6] = [
        ChangeKind::Created,
        ChangeKind::Imported,
        ChangeKind::Updated,
        ChangeKind::Deduplicated,
        ChangeKind::Superseded,
        ChangeKind::Reverted,
    ];

    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Created => "created",
            ChangeKind::Imported => "imported",
            ChangeKind::Updated => "updated",
            ChangeKind::Deduplicated => "deduplicated",
            ChangeKind::Superseded => "superseded",
            ChangeKind::Reverted => "reverted",
        }
    }
}

impl std::str::FromStr for ChangeKind {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        ChangeKind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| Error::invalid(format!("unknown change kind {s:?}")))
    }
}

/// A change to record as a version of memory `id`. The version's snapshot
/// is the memory as the same batch writes it.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// The memory changed.
    pub id: MemoryId,
    /// What happened.
    pub kind: ChangeKind,
    /// Who: an API key's id, [`LOCAL_ACTOR`] or [`SYSTEM_ACTOR`].
    pub actor: String,
    /// Why, in words, when there is more to say than the kind.
    pub reason: Option<String>,
    /// When.
    pub at: Timestamp,
}

impl Change {
    /// A change of `kind` to `id` by `actor` at `at`, with no reason.
    pub fn new(id: MemoryId, kind: ChangeKind, actor: &str, at: Timestamp) -> Self {
        Change {
            id,
            kind,
            actor: actor.to_string(),
            reason: None,
            at,
        }
    }

    /// Builder: the reason.
    pub fn because(mut self, reason: impl Into<String>) -> Self {
        self.reason = Some(reason.into());
        self
    }
}

/// One version of a memory: its state right after a change.
#[derive(Debug, Clone, PartialEq)]
pub struct Version {
    /// 1 for the first, counting up.
    pub number: u32,
    /// What happened.
    pub kind: ChangeKind,
    /// Who.
    pub actor: String,
    /// Why.
    pub reason: Option<String>,
    /// When.
    pub at: Timestamp,
    /// The memory as it was after the change.
    pub memory: Memory,
}

/// Why and how a memory was deleted.
#[derive(Debug, Clone, PartialEq)]
pub struct Deletion {
    /// Who.
    pub actor: String,
    /// Why: `forgotten`, `expired`, or the caller's words.
    pub reason: String,
    /// When.
    pub at: Timestamp,
}

impl Deletion {
    /// A deletion by `actor` at `at`, for `reason`.
    pub fn new(actor: &str, reason: impl Into<String>, at: Timestamp) -> Self {
        Deletion {
            actor: actor.to_string(),
            reason: reason.into(),
            at,
        }
    }

    /// What [`crate::store::Maintenance::delete_expired`] records.
    pub fn expired(at: Timestamp) -> Self {
        Deletion::new(SYSTEM_ACTOR, "expired", at)
    }
}

/// What is left of a deleted memory.
#[derive(Debug, Clone, PartialEq)]
pub struct DeletionReceipt {
    /// The memory deleted.
    pub id: MemoryId,
    /// Its tenant.
    pub tenant: String,
    /// Who, why, when.
    pub deletion: Deletion,
    /// How many versions were erased with it.
    pub versions: usize,
}
