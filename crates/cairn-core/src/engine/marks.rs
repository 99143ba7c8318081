//! Which side of a known conflict is current, for the views an agent
//! reads (`context`, `prompt`, the conversation window).
//!
//! A conflict between an older memory and the newer one that changes its
//! value is recorded on both sides, whatever the policy: the older names
//! the newer ([`Memory::superseded_by`] under `supersede`,
//! [`CONTESTED_BY`] under `prefer-newer`, [`FLAGGED_BY`] under `flag`),
//! the newer lists the older ([`CONTESTS`]; `supersedes` too under
//! `supersede`). A pair is marked only while the older still names the
//! newer and both exist: reverting the older or forgetting either side
//! ends the mark.

use std::collections::{BTreeSet, HashMap};

use super::conflicts::{CONTESTED_BY, CONTESTS, FLAGGED_BY};
use super::Cairn;
use crate::memory::{Memory, MemoryId};
use crate::Result;

/// How many newer memories a chain of conflicts is followed through to
/// find the current one.
const MAX_CHAIN: usize = 8;

/// A memory's side of a known conflict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConflictMark {
    /// A newer memory changes its value; `current` is the newest of the
    /// chain.
    Outdated {
        /// The current memory.
        current: MemoryId,
    },
    /// It is current and changes the value of these older memories.
    Current {
        /// The older memories it replaces.
        replaces: Vec<MemoryId>,
    },
}

impl ConflictMark {
    /// The note a view shows beside the memory, ids written by `name`:
    /// "outdated: contested by X, which is current" or "current:
    /// replaces X, Y".
    pub fn note(&self, name: impl Fn(MemoryId) -> String) -> String {
        match self {
            ConflictMark::Outdated { current } => {
                format!(
                    "outdated: contested by {}, which is current",
                    name(*current)
                )
            }
            ConflictMark::Current { replaces } => {
                let ids: Vec<String> = replaces.iter().map(|id| name(*id)).collect();
                format!("current: replaces {}", ids.join(", "))
            }
        }
    }
}

/// The newer memory `m` names as changing its value, if any (a
/// consolidation summary is not one: it restates its sources).
pub fn newer_of(m: &Memory) -> Option<MemoryId> {
    let linked = |key: &str| m.metadata.get(key)?.as_str()?.parse().ok();
    let superseded = m
        .superseded_by
        .filter(|_| !m.metadata.contains_key("consolidated_into"));
    superseded
        .or_else(|| linked(CONTESTED_BY))
        .or_else(|| linked(FLAGGED_BY))
}

/// The older memories `m` names as replaced by it.
fn older_of(m: &Memory) -> BTreeSet<MemoryId> {
    let mut ids: BTreeSet<MemoryId> = m
        .metadata
        .get(CONTESTS)
        .and_then(|v| v.as_array())
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str()?.parse().ok())
        .collect();
    ids.extend(m.supersedes);
    ids
}

impl Cairn {
    /// The conflict marks of `shown` (the memories a view hands out),
    /// checked against the other sides as stored now.
    pub(crate) fn conflict_marks(
        &self,
        tenant: &str,
        shown: &[&Memory],
    ) -> Result<HashMap<MemoryId, ConflictMark>> {
        let mut known: HashMap<MemoryId, Memory> =
            shown.iter().map(|m| (m.id, (*m).clone())).collect();
        let wanted: BTreeSet<MemoryId> = shown
            .iter()
            .flat_map(|m| older_of(m).into_iter().chain(newer_of(m)))
            .filter(|id| !known.contains_key(id))
            .collect();
        self.fetch_into(tenant, wanted, &mut known)?;
        // The chains of newer memories, followed to their newest.
        for _ in 0..MAX_CHAIN {
            let next: BTreeSet<MemoryId> = known
                .values()
                .filter_map(newer_of)
                .filter(|id| !known.contains_key(id))
                .collect();
            if next.is_empty() {
                break;
            }
            self.fetch_into(tenant, next, &mut known)?;
        }
        let mut marks = HashMap::new();
        for m in shown {
            if let Some(current) = current_of(m, &known) {
                marks.insert(m.id, ConflictMark::Outdated { current });
                continue;
            }
            let replaces: Vec<MemoryId> = older_of(m)
                .into_iter()
                .filter(|o| known.get(o).and_then(newer_of) == Some(m.id))
                .collect();
            if !replaces.is_empty() {
                marks.insert(m.id, ConflictMark::Current { replaces });
            }
        }
        Ok(marks)
    }

    fn fetch_into(
        &self,
        tenant: &str,
        ids: BTreeSet<MemoryId>,
        known: &mut HashMap<MemoryId, Memory>,
    ) -> Result<()> {
        if ids.is_empty() {
            return Ok(());
        }
        let ids: Vec<MemoryId> = ids.into_iter().collect();
        known.extend(self.store.get(tenant, &ids)?.into_iter().map(|m| (m.id, m)));
        Ok(())
    }
}

/// The newest stored memory of the chain of newer ones from `m`, if the
/// first one still exists.
fn current_of(m: &Memory, known: &HashMap<MemoryId, Memory>) -> Option<MemoryId> {
    let mut current = known.get(&newer_of(m)?)?;
    for _ in 0..MAX_CHAIN {
        match newer_of(current).and_then(|id| known.get(&id)) {
            Some(next) if next.id != m.id => current = next,
            _ => break,
        }
    }
    Some(current.id)
}
