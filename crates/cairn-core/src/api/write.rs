//! Remember, update, forget.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{non_empty, Caller, MemoryView, Selection, SimilarView};
use crate::engine::{
    redaction_counts, Cairn, ConflictAction, ConflictPolicy, RememberRequest, UpdateRequest,
    WriteStatus,
};
use crate::memory::{MemoryId, MemoryType};
use crate::rank::DEDUP_THRESHOLD;
use crate::store::ScopeFilter;
use crate::time::parse_duration;
use crate::{Error, Result, SHORT_ID_MIN};

/// What to remember.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(default)]
pub struct RememberInput {
    /// The text (at most 1 MiB).
    pub content: String,
    /// Type name (default `note`; when superseding, the old memory's).
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// Project (default: when superseding, the old memory's; else the
    /// caller's; else global).
    pub project: Option<String>,
    /// Store as a global memory (overrides every project default).
    pub global: bool,
    /// Tags (default: when superseding, the old memory's; else none).
    pub tags: Option<Vec<String>>,
    /// Extra data; `null` values are dropped.
    pub metadata: Option<Map<String, Value>>,
    /// 0–1 (default 0.5).
    pub importance: Option<f64>,
    /// Time to live: `30m`, `24h`, `7d`, `2w`.
    pub ttl: Option<String>,
    /// Id or unique prefix of the memory this one replaces.
    pub supersedes: Option<String>,
    /// Merge into a near-identical memory instead of adding one (default
    /// true; a text that changes a number, version, date, amount, name,
    /// host, path, identifier or negation is never merged).
    pub dedup: Option<bool>,
    /// What a conflict with an older memory does: `flag`, `prefer-newer`
    /// or `supersede` (default: the server's, `prefer-newer` unless
    /// configured).
    pub conflicts: Option<String>,
    /// Where it came from (default `manual`).
    pub source: Option<String>,
    /// Replace secrets and personal data (keys, tokens, passwords,
    /// emails, phone and card numbers, IBANs) with `[REDACTED:kind]`
    /// before anything is stored or embedded (default true, when the
    /// server redacts; false stores the text as given).
    pub redact: Option<bool>,
}

impl RememberInput {
    /// A request to remember `content` with every default.
    pub fn new(content: impl Into<String>) -> Self {
        RememberInput {
            content: content.into(),
            ..Default::default()
        }
    }
}

/// How a memory merged into an existing one.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, JsonSchema)]
pub struct DedupView {
    /// Cosine similarity with the memory merged into.
    pub similarity: f32,
    /// The threshold it met.
    pub threshold: f32,
}

/// What a remember did, and why.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct RememberOutput {
    /// The memory written: new, or the near-identical one merged into.
    pub id: String,
    /// Its short id.
    pub short_id: String,
    /// `created`, `deduplicated` (merged into an existing near-identical
    /// memory, whose id is kept: its text is replaced, tags and metadata
    /// merged), or `pending` (the embedding endpoint failed: the write is
    /// kept in the store and stored with this id once the endpoint
    /// answers; not recallable until then).
    #[schemars(with = "String")]
    pub status: WriteStatus,
    /// When deduplicated: how similar, against which threshold.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dedup: Option<DedupView>,
    /// The project it is stored in; `null` = global.
    pub project: Option<String>,
    /// The memory it superseded (hidden from recall, kept for history).
    pub superseded: Option<String>,
    /// Related memories (similarity 0.75–0.92) that may contradict it: if
    /// one is now wrong, supersede or forget it.
    pub similar: Vec<SimilarView>,
    /// The older memories it conflicts with (the same subject with a
    /// changed value, or a correction), why, and what the conflict policy
    /// did to each.
    pub conflicts: Vec<ConflictView>,
    /// Secrets replaced before it was stored, by kind (`email`: 2, …).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub redacted: BTreeMap<String, usize>,
}

/// An older memory a write conflicts with.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct ConflictView {
    /// Full id.
    pub id: String,
    /// Short id.
    pub short_id: String,
    /// Its type.
    #[serde(rename = "type")]
    pub kind: MemoryType,
    /// Its text.
    pub content: String,
    /// Cosine similarity with the memory written.
    pub similarity: f32,
    /// Why they conflict: the changed values, the correction cue, the
    /// shared subject.
    pub reason: String,
    /// `flagged`, `contested` (its validity closed, ranked below the new
    /// one) or `superseded`.
    pub action: ConflictAction,
}

impl From<crate::engine::ConflictingMemory> for ConflictView {
    /// The view of a conflict whose short id is its first
    /// [`crate::SHORT_ID_MIN`] characters (unique by the clock of a
    /// UUIDv7, as short ids are shown).
    fn from(c: crate::engine::ConflictingMemory) -> Self {
        let id = c.id.to_string();
        ConflictView {
            short_id: id.chars().take(crate::SHORT_ID_MIN).collect(),
            id,
            kind: c.kind,
            content: c.content,
            similarity: c.similarity,
            reason: c.reason,
            action: c.action,
        }
    }
}

/// Remember a memory. A superseding memory inherits the type, project and
/// tags of the one it replaces unless the request gives them, and its slot
/// always (the request names none).
pub fn remember(cairn: &Cairn, caller: &Caller, input: RememberInput) -> Result<RememberOutput> {
    let tenant = caller.tenant.as_str();
    let old = match non_empty(input.supersedes.as_deref()) {
        Some(s) => Some(cairn.peek(tenant, &s)?),
        None => None,
    };
    let mut req = RememberRequest::new(tenant, input.content);
    req.kind = match (non_empty(input.kind.as_deref()), &old) {
        (Some(k), _) => k.parse()?,
        (None, Some(o)) => o.kind,
        (None, None) => Default::default(),
    };
    req.project = match (input.global, non_empty(input.project.as_deref()), &old) {
        (true, Some(p), _) => {
            return Err(Error::invalid(format!(
                "give a project ({p}) or global, not both"
            )))
        }
        (true, None, _) => None,
        (false, Some(p), _) => Some(p),
        (false, None, Some(o)) => o.project.clone(),
        (false, None, None) => caller.project.clone(),
    };
    req.tags = match (input.tags.filter(|t| !t.is_empty()), &old) {
        (Some(t), _) => t,
        (None, Some(o)) => o.tags.clone(),
        (None, None) => Vec::new(),
    };
    req.slot = old.as_ref().and_then(|o| o.slot.clone());
    req.metadata = input.metadata.unwrap_or_default();
    req.metadata.retain(|_, v| !v.is_null());
    req.importance = input.importance;
    req.ttl_ms = non_empty(input.ttl.as_deref())
        .map(|t| parse_duration(&t))
        .transpose()?;
    req.supersedes = old.as_ref().map(|o| o.id.to_string());
    req.dedup = input.dedup.unwrap_or(true);
    req.conflicts = non_empty(input.conflicts.as_deref())
        .map(|p| p.parse::<ConflictPolicy>())
        .transpose()?;
    req.source = non_empty(input.source.as_deref());
    req.actor.clone_from(&caller.actor);
    req.redact = input.redact.unwrap_or(true);
    let project = req.project.clone();
    let outcome = cairn.remember(req)?;
    let mut ids: Vec<MemoryId> = vec![outcome.id];
    ids.extend(outcome.similar.iter().map(|s| s.id));
    ids.extend(outcome.conflicts.iter().map(|c| c.id));
    let mut shorts = if outcome.status == WriteStatus::Pending {
        // Not stored yet: no prefix can be checked for uniqueness.
        vec![outcome.id.to_string()].into_iter()
    } else {
        cairn.short_ids(tenant, &ids, SHORT_ID_MIN)?.into_iter()
    };
    let short_id = shorts.next().unwrap_or_default();
    Ok(RememberOutput {
        id: outcome.id.to_string(),
        short_id,
        status: outcome.status,
        dedup: outcome.merged_similarity.map(|similarity| DedupView {
            similarity,
            threshold: DEDUP_THRESHOLD,
        }),
        project: project.map(|p| p.trim().to_string()),
        superseded: outcome.superseded.map(|i| i.to_string()),
        similar: outcome
            .similar
            .into_iter()
            .zip(shorts.by_ref())
            .map(|(s, short_id)| SimilarView {
                id: s.id.to_string(),
                short_id,
                kind: s.kind,
                content: s.content,
                similarity: s.similarity,
            })
            .collect(),
        conflicts: outcome
            .conflicts
            .into_iter()
            .zip(shorts)
            .map(|(c, short_id)| ConflictView {
                id: c.id.to_string(),
                short_id,
                kind: c.kind,
                content: c.content,
                similarity: c.similarity,
                reason: c.reason,
                action: c.action,
            })
            .collect(),
        redacted: redaction_counts(&outcome.redacted),
    })
}

/// Changes to a memory; what is left out stays as it is.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(default)]
pub struct UpdateInput {
    /// New text (re-embeds the memory).
    pub content: Option<String>,
    /// New type.
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// Move to this project.
    pub project: Option<String>,
    /// Make it global.
    pub global: bool,
    /// Replace every tag.
    pub tags: Option<Vec<String>>,
    /// Add these tags.
    pub add_tags: Vec<String>,
    /// Remove these tags.
    pub remove_tags: Vec<String>,
    /// Merge into the metadata; a `null` value removes its key.
    pub metadata: Option<Map<String, Value>>,
    /// New importance (0–1).
    pub importance: Option<f64>,
    /// New weight (0–100; superseded memories have 0.1).
    pub weight: Option<f64>,
    /// New time to live from now (`30m`, `7d`, ...).
    pub ttl: Option<String>,
    /// Remove the time to live.
    pub clear_ttl: bool,
}

/// A memory after an update.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct UpdateOutput {
    /// The memory as it is now.
    pub memory: MemoryView,
}

/// Change a memory (by id or unique prefix); answers it as it is now.
pub fn update(
    cairn: &Cairn,
    caller: &Caller,
    id: &str,
    input: UpdateInput,
) -> Result<UpdateOutput> {
    let project = match (input.global, non_empty(input.project.as_deref())) {
        (true, Some(p)) => {
            return Err(Error::invalid(format!(
                "give a project ({p}) or global, not both"
            )))
        }
        (true, None) => Some(None),
        (false, p) => p.map(Some),
    };
    if input.clear_ttl && input.ttl.is_some() {
        return Err(Error::invalid("give a ttl or clear it, not both"));
    }
    let req = UpdateRequest {
        content: input.content,
        kind: non_empty(input.kind.as_deref())
            .map(|k| k.parse())
            .transpose()?,
        project,
        slot: None,
        tags: input.tags,
        add_tags: input.add_tags,
        remove_tags: input.remove_tags,
        metadata: input.metadata,
        importance: input.importance,
        weight: input.weight,
        ttl_ms: non_empty(input.ttl.as_deref())
            .map(|t| parse_duration(&t))
            .transpose()?,
        clear_ttl: input.clear_ttl,
        redact: true,
    };
    let m = cairn.update(&caller.tenant, id, req, &caller.actor)?;
    Ok(UpdateOutput {
        memory: MemoryView::of(cairn, &caller.tenant, &m)?,
    })
}

/// Tags to add to and remove from many memories at once.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(default)]
pub struct TagInput {
    /// Ids or unique prefixes (at most 1000).
    pub ids: Vec<String>,
    /// Add these tags.
    pub add_tags: Vec<String>,
    /// Remove these tags.
    pub remove_tags: Vec<String>,
}

/// What a bulk tagging changed.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct TagOutput {
    /// How many memories' tags changed.
    pub tagged: usize,
    /// Their ids.
    pub ids: Vec<String>,
    /// How many already had the tags asked for (left unchanged).
    pub unchanged: usize,
}

/// Add and remove tags on many memories in one transaction (a version
/// each); every id is resolved first, so one bad id changes nothing.
pub fn tag(cairn: &Cairn, caller: &Caller, input: TagInput) -> Result<TagOutput> {
    let ids: Vec<String> = input
        .ids
        .iter()
        .filter_map(|i| non_empty(Some(i)))
        .collect();
    if ids.is_empty() {
        return Err(Error::invalid("give the ids of the memories to tag"));
    }
    if ids.len() > super::MAX_PAGE {
        return Err(Error::invalid(format!(
            "at most {} memories a call, got {}",
            super::MAX_PAGE,
            ids.len()
        )));
    }
    let changed = cairn.retag(
        &caller.tenant,
        &ids,
        &input.add_tags,
        &input.remove_tags,
        &caller.actor,
    )?;
    let distinct: std::collections::HashSet<&String> = ids.iter().collect();
    Ok(TagOutput {
        tagged: changed.len(),
        unchanged: distinct.len().saturating_sub(changed.len()),
        ids: changed.iter().map(|m| m.id.to_string()).collect(),
    })
}

/// What to forget: ids, or a selection (a dry run unless confirmed).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ForgetInput {
    /// Ids or unique prefixes. Give these, or a selection, not both.
    pub ids: Vec<String>,
    /// Which memories (a project means its own memories only).
    #[serde(flatten)]
    pub selection: Selection,
    /// With a selection: false (default) only counts what would be
    /// deleted; true deletes.
    pub confirm: bool,
}

/// What a forget did (or, unconfirmed, would do).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct ForgetOutput {
    /// How many were deleted.
    pub forgotten: usize,
    /// Their ids.
    pub ids: Vec<String>,
    /// Unconfirmed, with a selection: how many would be deleted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub would_forget: Option<usize>,
    /// The scope a selection applied to: a project, `global` or `all`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
}

/// Forget memories by id (every id is resolved first, so one bad id
/// deletes nothing), or every memory of a selection once confirmed.
pub fn forget(cairn: &Cairn, caller: &Caller, input: ForgetInput) -> Result<ForgetOutput> {
    let ids: Vec<String> = input
        .ids
        .iter()
        .filter_map(|i| non_empty(Some(i)))
        .collect();
    let deleted = match (ids.is_empty(), input.selection.has_conditions()) {
        (false, false) => cairn.forget(&caller.tenant, &ids, &caller.actor)?,
        (false, true) => {
            return Err(Error::invalid(
                "give ids or a filter (project, global, types, tags, since, until), not both",
            ))
        }
        (true, false) => return Err(Error::invalid(
            "nothing to forget: give ids, or a filter (project, global, types, tags, since, until)",
        )),
        (true, true) => {
            let filter = input.selection.owned(caller, cairn.now())?;
            let scope = Some(scope_label(&filter.scope));
            if !input.confirm {
                return Ok(ForgetOutput {
                    forgotten: 0,
                    ids: Vec::new(),
                    would_forget: Some(cairn.store().count(&filter)?),
                    scope,
                });
            }
            let ids = cairn.forget_matching(&filter, &caller.actor)?;
            return Ok(ForgetOutput {
                forgotten: ids.len(),
                ids: ids.iter().map(|i| i.to_string()).collect(),
                would_forget: None,
                scope,
            });
        }
    };
    Ok(ForgetOutput {
        forgotten: deleted.len(),
        ids: deleted.iter().map(|i| i.to_string()).collect(),
        would_forget: None,
        scope: None,
    })
}

/// A scope for humans: a project name, `global` or `all`.
pub fn scope_label(scope: &ScopeFilter) -> String {
    match scope {
        ScopeFilter::Global | ScopeFilter::Exactly(None) => "global".into(),
        ScopeFilter::Project(p) | ScopeFilter::Exactly(Some(p)) => p.clone(),
        ScopeFilter::All => "all".into(),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::conformance::LexicalEmbedder;
    use crate::MemoryStore;

    fn cairn() -> Cairn {
        Cairn::new(Arc::new(MemoryStore::new()), Arc::new(LexicalEmbedder))
    }

    #[test]
    fn a_superseding_memory_inherits_what_it_does_not_give() {
        let c = cairn();
        let caller = Caller::new("t").with_project(Some("session".into()));
        let old = remember(
            &c,
            &caller,
            RememberInput {
                kind: Some("decision".into()),
                project: Some("atlas".into()),
                tags: Some(vec!["db".into()]),
                ..RememberInput::new("we use MySQL for atlas")
            },
        )
        .unwrap();
        let new = remember(
            &c,
            &caller,
            RememberInput {
                supersedes: Some(old.short_id.clone()),
                ..RememberInput::new("we moved atlas to PostgreSQL")
            },
        )
        .unwrap();
        assert_eq!(new.superseded.as_deref(), Some(old.id.as_str()));
        assert_eq!(new.project.as_deref(), Some("atlas"), "not the session's");
        let m = c.peek("t", &new.id).unwrap();
        assert_eq!(m.kind, crate::MemoryType::Decision);
        assert_eq!(m.tags, vec!["db"]);
        // What the request gives wins.
        let given = remember(
            &c,
            &caller,
            RememberInput {
                supersedes: Some(new.id.clone()),
                kind: Some("fact".into()),
                global: true,
                tags: Some(vec!["infra".into()]),
                ..RememberInput::new("atlas runs PostgreSQL 16")
            },
        )
        .unwrap();
        let m = c.peek("t", &given.id).unwrap();
        assert_eq!(
            (m.kind, m.project, m.tags),
            (crate::MemoryType::Fact, None, vec!["infra".to_string()])
        );
        // Without supersedes, the caller's project.
        let plain = remember(&c, &caller, RememberInput::new("a plain note")).unwrap();
        assert_eq!(plain.project.as_deref(), Some("session"));
    }

    #[test]
    fn tagging_changes_many_memories_at_once_and_nothing_on_a_bad_id() {
        let c = cairn();
        let (caller, other) = (Caller::new("t"), Caller::new("u"));
        let ids: Vec<String> = ["alpha one", "beta two", "gamma three"]
            .into_iter()
            .map(|text| {
                let input = RememberInput {
                    tags: Some(vec!["old".into()]),
                    ..RememberInput::new(text)
                };
                remember(&c, &caller, input).unwrap().id
            })
            .collect();
        let theirs = remember(&c, &other, RememberInput::new("theirs")).unwrap();
        let input = |ids: Vec<String>| TagInput {
            ids,
            add_tags: vec!["Reviewed".into()],
            remove_tags: vec!["old".into()],
        };
        // Another tenant's id is not found: nothing changes.
        let mixed = vec![ids[0].clone(), theirs.id.clone()];
        let e = tag(&c, &caller, input(mixed)).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::NotFound, "{e}");
        assert_eq!(c.peek("t", &ids[0]).unwrap().tags, vec!["old"]);
        let out = tag(&c, &caller, input(ids[..2].to_vec())).unwrap();
        assert_eq!((out.tagged, out.unchanged), (2, 0));
        for id in &ids[..2] {
            assert_eq!(c.peek("t", id).unwrap().tags, vec!["reviewed"]);
            let versions = c.history("t", id).unwrap().versions;
            assert_eq!(versions.len(), 2);
            assert_eq!(versions[1].reason.as_deref(), Some("tags"));
        }
        assert_eq!(c.peek("t", &ids[2]).unwrap().tags, vec!["old"]);
        // Again: nothing left to change.
        let again = tag(&c, &caller, input(ids[..2].to_vec())).unwrap();
        assert_eq!((again.tagged, again.unchanged), (0, 2));
        assert!(tag(
            &c,
            &caller,
            TagInput {
                ids: ids.clone(),
                ..Default::default()
            }
        )
        .is_err());
        assert!(tag(&c, &caller, input(Vec::new())).is_err());
    }

    #[test]
    fn forget_by_filter_counts_first_and_only_deletes_when_confirmed() {
        let c = cairn();
        let caller = Caller::new("t");
        for text in ["scratch one", "scratch two"] {
            let input = RememberInput {
                project: Some("tmp".into()),
                ..RememberInput::new(text)
            };
            remember(&c, &caller, input).unwrap();
        }
        remember(&c, &caller, RememberInput::new("a global note")).unwrap();
        let selection = Selection {
            project: Some("tmp".into()),
            ..Default::default()
        };
        let dry = forget(
            &c,
            &caller,
            ForgetInput {
                selection: selection.clone(),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!((dry.would_forget, dry.forgotten), (Some(2), 0));
        assert_eq!(dry.scope.as_deref(), Some("tmp"));
        let done = forget(
            &c,
            &caller,
            ForgetInput {
                selection,
                confirm: true,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(done.forgotten, 2);
        assert_eq!(c.stats("t").unwrap().0.total, 1);
        assert!(forget(&c, &caller, ForgetInput::default()).is_err());
    }
}
