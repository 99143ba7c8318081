//! What a write does with the memories it conflicts with: the conflict
//! policy, and the changes it makes to the older memories.
//!
//! Detection is [`crate::analysis::conflict::detect_conflict`] over the
//! write's nearest memories; the policy decides what follows. Every change
//! to an older memory is a recorded version ([`ChangeKind::Updated`] or
//! [`ChangeKind::Superseded`], with the reason), so `cairn history` shows
//! it and `cairn revert` undoes it.

use schemars::JsonSchema;

use super::{superseded, Cairn};
use crate::analysis::conflict::{attribute_words, detect_conflict, subject_terms};
use crate::history::{Change, ChangeKind};
use crate::memory::{Memory, MemoryId, MemoryType, Timestamp};
use crate::store::{Filter, WriteBatch};
use crate::{Error, Result};

/// Memories the keyword index adds to a write's nearest vectors as
/// candidates for a conflict (see [`Cairn::add_conflict_candidates`]).
pub(crate) const KEYWORD_CANDIDATES: usize = 8;

/// The weight an older memory keeps when a newer one contests it under
/// [`ConflictPolicy::PreferNewer`]: half, so that for the same question
/// the newer (weight 1) ranks first, while the older still comes back,
/// below it, for a reader to judge (a superseded memory keeps
/// [`super::SUPERSEDED_WEIGHT`] and leaves default recall).
pub const CONTESTED_WEIGHT: f64 = 0.5;

/// The metadata key naming the memory that contests this one.
pub const CONTESTED_BY: &str = "contested_by";

/// The metadata key giving why it was contested.
pub const CONTESTED_REASON: &str = "contested_reason";

/// The metadata key naming the newer memory a write found in conflict
/// with this one under [`ConflictPolicy::Flag`]: a link for the views that
/// mark the current side (`context`, `prompt`, the window), which changes
/// no ranking.
pub const FLAGGED_BY: &str = "flagged_by";

/// The metadata key listing the older memories a memory conflicts with
/// when it was written (whatever the policy): the newer side of the links
/// above.
pub const CONTESTS: &str = "contests";

/// The metadata keys of conflict links: ids and reasons, left out of the
/// keyword index (a reason names the newer value, which the older memory
/// does not say).
pub const LINK_KEYS: [&str; 4] = [CONTESTED_BY, CONTESTED_REASON, FLAGGED_BY, CONTESTS];

/// What a write does with an older memory it conflicts with.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize, JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum ConflictPolicy {
    /// Report the conflict in the write's answer and link the two sides
    /// ([`FLAGGED_BY`] on the older, [`CONTESTS`] on the newer) so that
    /// the agent's views mark which is current, and recall puts the newer
    /// immediately before the older when both come back
    /// ([`crate::rank::current::newer_first`]); change nothing of the
    /// older's validity or weight. The default: the offline
    /// detection also fires on memories that only share a subject (on the
    /// evaluation set, demoting them lowered hybrid hit@5 from 0.815 to
    /// 0.765), so a write demotes another memory only when asked to
    /// (`prefer-newer`, `supersede`).
    #[default]
    Flag,
    /// Report it, and mark the older memory as contested by the newer:
    /// its validity closes at the newer one's time (`valid_to`), its
    /// weight drops to [`CONTESTED_WEIGHT`] and its metadata names the
    /// newer (`contested_by`, `contested_reason`); it stays in recall,
    /// below the newer: nothing disappears on a false alarm.
    PreferNewer,
    /// Report it, and supersede the older memory as an explicit
    /// `supersedes` would: it leaves default recall (kept for history
    /// and `--as-of`), its validity closed at the newer one's time.
    Supersede,
}

impl ConflictPolicy {
    /// The policy's name, as parsed by `from_str`.
    pub fn as_str(self) -> &'static str {
        match self {
            ConflictPolicy::Flag => "flag",
            ConflictPolicy::PreferNewer => "prefer-newer",
            ConflictPolicy::Supersede => "supersede",
        }
    }
}

impl std::str::FromStr for ConflictPolicy {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().replace('_', "-").as_str() {
            "flag" => Ok(ConflictPolicy::Flag),
            "prefer-newer" | "newer" => Ok(ConflictPolicy::PreferNewer),
            "supersede" => Ok(ConflictPolicy::Supersede),
            _ => Err(Error::invalid(format!(
                "unknown conflict policy `{s}`; use flag, prefer-newer or supersede"
            ))),
        }
    }
}

/// What was done to a conflicting memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ConflictAction {
    /// Reported, and linked to the new memory ([`FLAGGED_BY`]).
    Flagged,
    /// Marked as contested by the new memory (see
    /// [`ConflictPolicy::PreferNewer`]).
    Contested,
    /// Superseded by the new memory.
    Superseded,
}

impl ConflictAction {
    /// The action's name, as serialised.
    pub fn as_str(self) -> &'static str {
        match self {
            ConflictAction::Flagged => "flagged",
            ConflictAction::Contested => "contested",
            ConflictAction::Superseded => "superseded",
        }
    }
}

/// An existing memory a write conflicts with, and why.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ConflictingMemory {
    /// Its id.
    pub id: MemoryId,
    /// Its type.
    #[serde(rename = "type")]
    pub kind: MemoryType,
    /// Its text.
    pub content: String,
    /// Cosine similarity with the new memory.
    pub similarity: f32,
    /// Why they conflict (see [`crate::analysis::conflict::Conflict::reason`]).
    pub reason: String,
    /// What was done to it.
    pub action: ConflictAction,
}

/// The memories among `neighbours` (with their cosines to the new text)
/// that `content` conflicts with, with what `policy` does to each. Left
/// out: `except` (the memory explicitly superseded) and memories already
/// superseded.
pub(crate) fn find_conflicts(
    content: &str,
    neighbours: &[(Memory, f32)],
    except: Option<MemoryId>,
    policy: ConflictPolicy,
) -> Vec<(Memory, ConflictingMemory)> {
    let action = match policy {
        ConflictPolicy::Flag => ConflictAction::Flagged,
        ConflictPolicy::PreferNewer => ConflictAction::Contested,
        ConflictPolicy::Supersede => ConflictAction::Superseded,
    };
    neighbours
        .iter()
        .filter(|(m, _)| Some(m.id) != except && m.superseded_by.is_none())
        .filter_map(|(m, sim)| {
            let conflict = detect_conflict(&m.content, content, *sim)?;
            Some((
                m.clone(),
                ConflictingMemory {
                    id: m.id,
                    kind: m.kind,
                    content: m.content.clone(),
                    similarity: *sim,
                    reason: conflict.reason(),
                    action,
                },
            ))
        })
        .collect()
}

/// Add to `batch` what the conflicts' actions change in the older
/// memories, the new memory `new` written at `now` by `actor`.
pub(crate) fn apply_conflicts(
    batch: &mut WriteBatch,
    conflicts: &[(Memory, ConflictingMemory)],
    new: MemoryId,
    now: Timestamp,
    actor: &str,
) {
    for (old, c) in conflicts {
        // A memory is written once per batch: a second conflict with it
        // (two messages of one import correcting it) changes the version
        // the batch already holds, and its reason joins the first.
        let held = batch.updates.iter().position(|(m, _)| m.id == old.id);
        let base = held.map_or_else(|| old.clone(), |i| batch.updates[i].0.clone());
        let (changed, kind, why) = match c.action {
            ConflictAction::Flagged => (
                flagged(base, new, now),
                ChangeKind::Updated,
                format!("conflict flagged by {new}: {}", c.reason),
            ),
            ConflictAction::Contested => (
                contested(base, new, &c.reason, now),
                ChangeKind::Updated,
                format!("contested by {new}: {}", c.reason),
            ),
            ConflictAction::Superseded => (
                superseded(base, new, now),
                ChangeKind::Superseded,
                format!("superseded by {new}: {}", c.reason),
            ),
        };
        match held {
            Some(i) => batch.updates[i].0 = changed,
            None => batch.updates.push((changed, None)),
        }
        match batch.changes.iter_mut().find(|ch| ch.id == old.id) {
            Some(change) => {
                let reason = change.reason.get_or_insert_with(String::new);
                if !reason.is_empty() {
                    reason.push_str("; ");
                }
                reason.push_str(&why);
            }
            None => batch
                .changes
                .push(Change::new(old.id, kind, actor, now).because(why)),
        }
    }
}

/// The newer memory recall places immediately before `m`: the one that
/// supersedes or contests it, or that a write flagged in conflict with it
/// — unless `m` is a conversation message only flagged. Small talk links
/// messages that are no correction of each other (on LoCoMo, placing
/// flagged messages' newer side first lowered hybrid R@1 0.372 → 0.358);
/// a message a policy contested or superseded still gives way.
fn reordering_newer(m: &Memory) -> Option<MemoryId> {
    let flagged_only = m.superseded_by.is_none() && !m.metadata.contains_key(CONTESTED_BY);
    match m.thread.is_some() && flagged_only {
        true => None,
        false => super::newer_of(m),
    }
}

impl Cairn {
    /// Add to `neighbours` (memories with their cosines to `vector`, best
    /// first) the memories the keyword index finds for `content`'s subject
    /// terms and the words of the attributes it names: a correction in
    /// other words ("I moved. My new address is …" of "I live at …") is
    /// often too far as a vector to be among the nearest, yet shares its
    /// subject or its attribute's words. Nothing is searched when `content`
    /// names no attribute.
    pub(crate) fn add_conflict_candidates(
        &self,
        content: &str,
        filter: &Filter,
        vector: &[f32],
        neighbours: &mut Vec<(Memory, f32)>,
    ) -> Result<()> {
        let words = attribute_words(content);
        if words.is_empty() {
            return Ok(());
        }
        let mut query: Vec<String> = subject_terms(content).into_iter().collect();
        query.extend(words.iter().map(|w| w.to_string()));
        let hits: Vec<_> = self
            .store
            .keyword_search(&query.join(" "), filter, KEYWORD_CANDIDATES)?
            .into_iter()
            .filter(|h| neighbours.iter().all(|(m, _)| m.id != h.id))
            .collect();
        if hits.is_empty() {
            return Ok(());
        }
        neighbours.extend(self.exact_similarities(&filter.tenant, vector, &hits)?);
        neighbours.sort_by(|a, b| b.1.total_cmp(&a.1));
        Ok(())
    }
}

impl Cairn {
    /// Put before each result the memory that contests it
    /// ([`CONTESTED_BY`]): moved up when it is further down, brought in
    /// when the search did not reach it (a correction in other words may
    /// not match the question as well as what it corrects: "where do I
    /// live?" and "I moved. My new address is …"), if `filter` lets it
    /// through. What was believed at a past time (`--as-of`, which
    /// includes superseded memories) brings nothing in. Then, whatever
    /// the policy, each result that a newer result changes the value of
    /// (a link of [`reordering_newer`]: flagged too) has that newer
    /// immediately before it ([`crate::rank::current::newer_first`]).
    pub(crate) fn current_first(
        &self,
        filter: &Filter,
        results: &mut Vec<super::Recalled>,
    ) -> Result<()> {
        if !filter.include_superseded {
            self.bring_in_contesting(filter, results)?;
        }
        let ids: Vec<MemoryId> = results.iter().map(|r| r.memory.id).collect();
        let newer: Vec<Option<usize>> = results
            .iter()
            .map(|r| reordering_newer(&r.memory).and_then(|n| ids.iter().position(|&id| id == n)))
            .collect();
        let order = crate::rank::current::newer_first(&newer);
        let mut taken: Vec<Option<super::Recalled>> = results.drain(..).map(Some).collect();
        results.extend(order.into_iter().filter_map(|i| taken[i].take()));
        Ok(())
    }

    /// The [`CONTESTED_BY`] side of [`Self::current_first`]: the memory
    /// that contests a result, moved up before it or brought in.
    fn bring_in_contesting(
        &self,
        filter: &Filter,
        results: &mut Vec<super::Recalled>,
    ) -> Result<()> {
        if results.is_empty() {
            return Ok(());
        }
        let limit = results.len();
        let mut i = 0;
        // Each pass places one newer memory; a chain of contests is
        // followed to its newest, never more than `limit` times.
        let mut moves = 0;
        while i < results.len() && moves <= limit {
            let Some(newer) = results[i]
                .memory
                .metadata
                .get(CONTESTED_BY)
                .and_then(|v| v.as_str())
                .and_then(|s| s.parse::<MemoryId>().ok())
            else {
                i += 1;
                continue;
            };
            if let Some(j) = results.iter().position(|r| r.memory.id == newer) {
                if j > i {
                    let r = results.remove(j);
                    results.insert(i, r);
                    moves += 1;
                    continue;
                }
                i += 1;
                continue;
            }
            let found = self.store.get(&filter.tenant, &[newer])?;
            match found.into_iter().next().filter(|m| filter.matches(m)) {
                Some(memory) => {
                    let explain = results[i].explain.clone();
                    let matched = results[i].matched;
                    results.insert(
                        i,
                        super::Recalled {
                            memory,
                            explain,
                            matched,
                        },
                    );
                    moves += 1;
                }
                None => i += 1,
            }
        }
        results.truncate(limit);
        Ok(())
    }
}

/// `old` marked as contested by `new` at `now` (see
/// [`ConflictPolicy::PreferNewer`]).
fn contested(mut old: Memory, new: MemoryId, reason: &str, now: Timestamp) -> Memory {
    old.weight = old.weight.min(CONTESTED_WEIGHT);
    old.valid_to = Some(old.valid_to.map_or(now, |t| t.min(now)));
    old.metadata
        .insert(CONTESTED_BY.into(), new.to_string().into());
    old.metadata
        .insert(CONTESTED_REASON.into(), reason.to_string().into());
    old.updated_at = now;
    old
}

/// `old` linked to the newer `new` that a write found in conflict with it
/// at `now` (see [`ConflictPolicy::Flag`]): nothing else changes.
fn flagged(mut old: Memory, new: MemoryId, now: Timestamp) -> Memory {
    old.metadata
        .insert(FLAGGED_BY.into(), new.to_string().into());
    old.updated_at = now;
    old
}

/// Record on the newer memory `new` the older memories it conflicts with
/// ([`CONTESTS`]), whatever the policy.
pub(crate) fn link_newer(new: &mut Memory, conflicts: &[(Memory, ConflictingMemory)]) {
    if conflicts.is_empty() {
        return;
    }
    let ids: Vec<serde_json::Value> = conflicts
        .iter()
        .map(|(m, _)| m.id.to_string().into())
        .collect();
    new.metadata.insert(CONTESTS.into(), ids.into());
}

impl Cairn {
    /// The memories a logged message `new` conflicts with, as a write
    /// finds them (its nearest stored vectors in `filter`, the keyword
    /// candidates, and the messages before it in `batch`), with what the
    /// tenant's policy ([`Cairn::conflict_policy_of`]) did to each: the changes to stored memories are
    /// added to `batch`, those to messages of `batch` made in place.
    pub(crate) fn message_conflicts(
        &self,
        filter: &Filter,
        new: &mut Memory,
        vector: &[f32],
        batch: &mut WriteBatch,
        actor: &str,
    ) -> Result<Vec<ConflictingMemory>> {
        let hits = self
            .store
            .vector_search(vector, filter, KEYWORD_CANDIDATES)?;
        let mut neighbours = self.exact_similarities(&filter.tenant, vector, &hits)?;
        self.add_conflict_candidates(&new.content, filter, vector, &mut neighbours)?;
        neighbours.retain(|(m, _)| batch.inserts.iter().all(|(b, _)| b.id != m.id));
        // The batch's earlier messages, the nearest first and as many as
        // the store gives: comparing each with all of a long import's
        // messages made importing quadratic.
        let mut earlier: Vec<(usize, f32)> = batch
            .inserts
            .iter()
            .enumerate()
            .filter(|(_, (m, _))| m.project == new.project)
            .map(|(i, (_, v))| (i, crate::rank::cosine(v, vector)))
            .filter(|&(_, sim)| sim >= crate::analysis::conflict::SLOT_COSINE)
            .collect();
        earlier.sort_by(|a, b| b.1.total_cmp(&a.1));
        earlier.truncate(KEYWORD_CANDIDATES);
        neighbours.extend(
            earlier
                .into_iter()
                .map(|(i, sim)| (batch.inserts[i].0.clone(), sim)),
        );
        let policy = self.conflict_policy_of(&filter.tenant)?;
        let found = find_conflicts(&new.content, &neighbours, None, policy);
        let at = new.created_at;
        link_newer(new, &found);
        if policy == ConflictPolicy::Supersede {
            new.supersedes = found.first().map(|(m, _)| m.id);
        }
        let (in_batch, stored): (Vec<_>, Vec<_>) = found
            .iter()
            .cloned()
            .partition(|(m, _)| batch.inserts.iter().any(|(b, _)| b.id == m.id));
        apply_conflicts(batch, &stored, new.id, at, actor);
        for (old, c) in &in_batch {
            let Some((m, _)) = batch.inserts.iter_mut().find(|(b, _)| b.id == old.id) else {
                continue;
            };
            let why = match c.action {
                ConflictAction::Flagged => {
                    *m = flagged(m.clone(), new.id, at);
                    "conflict flagged"
                }
                ConflictAction::Contested => {
                    *m = contested(m.clone(), new.id, &c.reason, at);
                    "contested"
                }
                ConflictAction::Superseded => {
                    *m = superseded(m.clone(), new.id, at);
                    "superseded"
                }
            };
            // One version per memory and batch: its creation says it.
            if let Some(created) = batch.changes.iter_mut().find(|ch| ch.id == old.id) {
                let note = format!("{why} by {}: {}", new.id, c.reason);
                created.reason = Some(match created.reason.take() {
                    Some(r) => format!("{r}; {note}"),
                    None => note,
                });
            }
        }
        Ok(found.into_iter().map(|(_, c)| c).collect())
    }
}

/// The search context (text only the keyword index reads) of a memory
/// that contests or supersedes `conflicts`: their texts, so that the
/// question the older answered finds its correction ("where do I live?"
/// finds "I moved. My new address is …" by the "live" of "I live at …").
pub(crate) fn correction_context(conflicts: &[(Memory, ConflictingMemory)]) -> Option<String> {
    let texts: Vec<String> = conflicts
        .iter()
        .map(|(m, _)| m.content.replace('\n', " "))
        .collect();
    (!texts.is_empty()).then(|| texts.join("\n"))
}

/// The reason recorded on the new memory's creation: which memories it
/// conflicts with.
pub(crate) fn creation_note(conflicts: &[(Memory, ConflictingMemory)]) -> Option<String> {
    let parts: Vec<String> = conflicts
        .iter()
        .map(|(_, c)| format!("conflicts with {} ({})", c.id, c.reason))
        .collect();
    (!parts.is_empty()).then(|| parts.join("; "))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::conformance::LexicalEmbedder;
    use crate::engine::RememberRequest;
    use crate::history::LOCAL_ACTOR;
    use crate::MemoryStore;

    #[test]
    fn a_correction_is_found_by_what_it_corrects_until_that_is_forgotten() {
        let c = Cairn::new(Arc::new(MemoryStore::new()), Arc::new(LexicalEmbedder));
        let old = c
            .remember(RememberRequest::new("t", "Dana is the lead of atlas"))
            .unwrap();
        let mut req = RememberRequest::new("t", "Leadership changed. Sam is now the lead of atlas");
        req.conflicts = Some(ConflictPolicy::PreferNewer);
        let new = c.remember(req).unwrap();
        assert_eq!(new.conflicts[0].id, old.id, "{:?}", new.conflicts);
        let stored = c.store().get("t", &[new.id]).unwrap().remove(0);
        assert_eq!(
            stored.search_context.as_deref(),
            Some("Dana is the lead of atlas")
        );
        c.forget("t", &[old.id.to_string()], LOCAL_ACTOR).unwrap();
        let stored = c.store().get("t", &[new.id]).unwrap().remove(0);
        assert_eq!(stored.search_context, None);
    }

    #[test]
    fn policies_parse_by_name() {
        for p in [
            ConflictPolicy::Flag,
            ConflictPolicy::PreferNewer,
            ConflictPolicy::Supersede,
        ] {
            assert_eq!(p.as_str().parse::<ConflictPolicy>().unwrap(), p);
        }
        assert_eq!(
            "PREFER_NEWER".parse::<ConflictPolicy>().unwrap(),
            ConflictPolicy::PreferNewer
        );
        let e = "merge".parse::<ConflictPolicy>().unwrap_err().to_string();
        assert!(e.contains("flag, prefer-newer or supersede"), "{e}");
        assert_eq!(ConflictPolicy::default(), ConflictPolicy::Flag);
    }
}
