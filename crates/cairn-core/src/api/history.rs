//! History, revert and the supersede chain.

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
    let version = cairn
        .store()
        .histories(&caller.tenant, &[m.id])?
        .into_iter()
        .flatten()
        .count() as u32;
    Ok(RevertOutput {
        memory: MemoryView::of(cairn, &caller.tenant, &m)?,
        restored: input.version,
        version,
    })
}

/// Most memories a supersede chain shows on each side of the one asked
/// for.
pub const MAX_CHAIN: usize = 50;

/// A memory's supersede chain: what it replaced, and what replaced it,
/// as far as each goes.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct ChainOutput {
    /// Oldest first: each memory is superseded by the next.
    pub chain: Vec<MemoryView>,
    /// The place of the memory asked for in `chain`.
    pub position: usize,
    /// Older memories exist past the first shown ([`MAX_CHAIN`] reached).
    pub more_before: bool,
    /// Newer memories exist past the last shown.
    pub more_after: bool,
}

/// The whole supersede chain of a memory (by id or unique prefix), walked
/// both ways through `supersedes` and `superseded_by` within the caller's
/// tenant, at most [`MAX_CHAIN`] memories each way. A link to a forgotten
/// memory ends the chain there; no memory is shown twice. Not an access.
pub fn chain(cairn: &Cairn, caller: &Caller, id: &str) -> Result<ChainOutput> {
    let tenant = caller.tenant.as_str();
    let start = cairn.peek(tenant, id)?;
    let mut seen = std::collections::HashSet::from([start.id]);
    let mut walk = |first: Option<crate::MemoryId>, older: bool| -> Result<(Vec<_>, bool)> {
        let (mut out, mut next) = (Vec::new(), first);
        while let Some(id) = next.filter(|id| !seen.contains(id)) {
            if out.len() == MAX_CHAIN {
                return Ok((out, true));
            }
            let Some(m) = cairn.store().get(tenant, &[id])?.pop() else {
                break;
            };
            seen.insert(id);
            next = if older { m.supersedes } else { m.superseded_by };
            out.push(m);
        }
        Ok((out, false))
    };
    let (mut before, more_before) = walk(start.supersedes, true)?;
    let (after, more_after) = walk(start.superseded_by, false)?;
    before.reverse();
    let position = before.len();
    let memories: Vec<_> = before
        .into_iter()
        .chain(std::iter::once(start))
        .chain(after)
        .collect();
    Ok(ChainOutput {
        chain: MemoryView::of_all(cairn, tenant, &memories)?,
        position,
        more_before,
        more_after,
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::api::{forget, remember, ForgetInput, RememberInput};
    use crate::conformance::LexicalEmbedder;
    use crate::MemoryStore;

    #[test]
    fn the_chain_is_walked_both_ways_within_the_tenant() {
        let c = Cairn::new(Arc::new(MemoryStore::new()), Arc::new(LexicalEmbedder));
        let caller = Caller::new("t");
        let mut ids = vec![
            remember(&c, &caller, RememberInput::new("v1 of the plan"))
                .unwrap()
                .id,
        ];
        for i in 2..=5 {
            let input = RememberInput {
                supersedes: ids.last().cloned(),
                ..RememberInput::new(format!("v{i} of the plan"))
            };
            ids.push(remember(&c, &caller, input).unwrap().id);
        }
        let of = |id: &str| chain(&c, &caller, id).unwrap();
        let middle = of(&ids[2]);
        let shown: Vec<String> = middle.chain.iter().map(|m| m.id().to_string()).collect();
        assert_eq!(shown, ids, "oldest first, from the middle both ways");
        assert_eq!(middle.position, 2);
        assert!(!middle.more_before && !middle.more_after);
        assert_eq!(of(&ids[0]).position, 0);
        assert_eq!(of(&ids[4]).position, 4);
        // Another tenant sees none of it.
        let e = chain(&c, &Caller::new("u"), &ids[2]).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::NotFound);
        // A forgotten link ends the chain there.
        let input = ForgetInput {
            ids: vec![ids[1].clone()],
            ..Default::default()
        };
        forget(&c, &caller, input).unwrap();
        let cut = of(&ids[3]);
        assert_eq!(cut.chain.len(), 3);
        assert_eq!(cut.chain[0].id().to_string(), ids[2]);
        assert_eq!(cut.position, 1);
        // Bounded: at most MAX_CHAIN on each side, and it says so.
        for i in 0..=MAX_CHAIN {
            let input = RememberInput {
                supersedes: ids.last().cloned(),
                ..RememberInput::new(format!("later version {i}"))
            };
            ids.push(remember(&c, &caller, input).unwrap().id);
        }
        let long = of(&ids[4]);
        assert_eq!(long.chain.len(), 2 + 1 + MAX_CHAIN);
        assert!(long.more_after && !long.more_before);
    }
}
