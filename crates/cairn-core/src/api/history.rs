//! History and revert.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Caller, MemoryView};
use crate::engine::Cairn;
use crate::history::{ChangeKind, Version};
use crate::time::format_timestamp;
use crate::wire::{MemoryRecord, ReceiptRecord};
use crate::Result;

/// One version of a memory.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct VersionView {
    /// 1 for the first, counting up.
    pub version: u32,
    /// `created`, `imported`, `updated`, `deduplicated`, `superseded` or
    /// `reverted`.
    #[schemars(with = "String")]
    pub change: ChangeKind,
    /// When (RFC 3339).
    pub at: String,
    /// Who: an API key's id, `local` (the CLI, MCP on stdio) or `system`.
    pub actor: String,
    /// Why, or which fields changed.
    pub reason: Option<String>,
    /// The memory as this change left it.
    pub memory: MemoryRecord,
}

impl VersionView {
    /// The view of a version.
    pub fn of(v: &Version) -> Self {
        VersionView {
            version: v.number,
            change: v.kind,
            at: format_timestamp(v.at),
            actor: v.actor.clone(),
            reason: v.reason.clone(),
            memory: MemoryRecord::from_memory(&v.memory),
        }
    }
}

/// A memory's history.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct HistoryOutput {
    /// The memory's full id.
    pub id: String,
    /// Oldest first; empty once the memory is deleted.
    pub versions: Vec<VersionView>,
    /// Once the memory is deleted: its receipt.
    pub deleted: Option<ReceiptRecord>,
}

/// The history of one of the caller's memories (by id or unique prefix;
/// a forgotten memory is found by its receipt).
pub fn history(cairn: &Cairn, caller: &Caller, id: &str) -> Result<HistoryOutput> {
    let h = cairn.history(&caller.tenant, id)?;
    Ok(HistoryOutput {
        id: h.id.to_string(),
        versions: h.versions.iter().map(VersionView::of).collect(),
        deleted: h.deleted.as_ref().map(ReceiptRecord::of),
    })
}

/// A memory, with its versions when asked for.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct GetOutput {
    /// The memory.
    #[serde(flatten)]
    pub memory: MemoryView,
    /// Every version, oldest first, when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history: Option<Vec<VersionView>>,
}

/// Read one of the caller's memories (counts as an access), with its
/// versions when `with_history`.
pub fn get_with_history(
    cairn: &Cairn,
    caller: &Caller,
    id: &str,
    with_history: bool,
) -> Result<GetOutput> {
    let memory = super::get(cairn, caller, id)?;
    let history = match with_history {
        true => Some(history(cairn, caller, memory.id())?.versions),
        false => None,
    };
    Ok(GetOutput { memory, history })
}

/// Which version to restore.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct RevertInput {
    /// The version's number (see the memory's history).
    pub version: u32,
}

/// A memory after a revert.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct RevertOutput {
    /// The memory as it is now.
    pub memory: MemoryView,
    /// The version restored.
    pub restored: u32,
    /// The number of the new version the revert recorded.
    pub version: u32,
}

/// Restore an earlier version of one of the caller's memories as a new
/// version (see [`Cairn::revert`]).
pub fn revert(
    cairn: &Cairn,
    caller: &Caller,
    id: &str,
    input: RevertInput,
) -> Result<RevertOutput> {
    let m = cairn.revert(&caller.tenant, id, input.version, &caller.actor)?;
    let version = cairn.store().history(&caller.tenant, m.id)?.len() as u32;
    Ok(RevertOutput {
        memory: MemoryView::of(cairn, &caller.tenant, &m)?,
        restored: input.version,
        version,
    })
}
