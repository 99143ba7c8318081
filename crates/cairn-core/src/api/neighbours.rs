//! A memory's nearest neighbours by meaning (which of them may contradict
//! it), and a tenant's recent activity: the changes and deletions of its
//! memories, newest first.

use std::collections::HashMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Caller, SimilarView};
use crate::engine::Cairn;
use crate::rank::{classify_similarity, Similarity, CONTRADICTION_THRESHOLD, DEDUP_THRESHOLD};
use crate::store::{Filter, ListOrder, ScopeFilter};
use crate::time::format_timestamp;
use crate::{Error, Result, Timestamp, SHORT_ID_MIN};

/// Most neighbours or activity entries one call returns.
pub const MAX_NEIGHBOURS: usize = 100;

/// How many neighbours.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(default)]
pub struct SimilarInput {
    /// Most neighbours, 1 to 100 (default 10).
    pub limit: Option<usize>,
}

/// One neighbour of a memory.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Neighbour {
    /// The neighbour, with its cosine similarity.
    #[serde(flatten)]
    pub memory: SimilarView,
    /// Related closely enough to contradict it (similarity in
    /// `[contradiction_threshold, duplicate_threshold)`): if one of the two
    /// is now wrong, supersede or forget it.
    pub may_contradict: bool,
}

/// A memory's nearest neighbours.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct SimilarOutput {
    /// The memory's full id.
    pub id: String,
    /// Most similar first; expired and superseded memories left out.
    pub similar: Vec<Neighbour>,
    /// The similarity from which two memories may contradict.
    pub contradiction_threshold: f32,
    /// The similarity from which a new memory merges into an old one.
    pub duplicate_threshold: f32,
}

/// The memories of the caller's tenant nearest in meaning to one of them
/// (by id or unique prefix; not counted as an access), in every project.
pub fn similar(
    cairn: &Cairn,
    caller: &Caller,
    id: &str,
    input: SimilarInput,
) -> Result<SimilarOutput> {
    let limit = input.limit.unwrap_or(10);
    if limit == 0 || limit > MAX_NEIGHBOURS {
        return Err(Error::invalid(format!(
            "limit must be between 1 and {MAX_NEIGHBOURS}, got {limit}"
        )));
    }
    let tenant = caller.tenant.as_str();
    let memory = cairn.peek(tenant, id)?;
    let vector = cairn
        .store()
        .embeddings(tenant, &[memory.id])?
        .pop()
        .flatten()
        .ok_or_else(|| Error::storage(format!("memory {} has no embedding", memory.id)))?;
    let filter = Filter::new(tenant, cairn.now()).scope(ScopeFilter::All);
    let hits: Vec<_> = cairn
        .store()
        .vector_search(&vector, &filter, limit + 1)?
        .into_iter()
        .filter(|h| h.id != memory.id)
        .take(limit)
        .collect();
    let ids: Vec<_> = hits.iter().map(|h| h.id).collect();
    let mut found: HashMap<_, _> = cairn
        .store()
        .get(tenant, &ids)?
        .into_iter()
        .map(|m| (m.id, m))
        .collect();
    let shorts = cairn.short_ids(tenant, &ids, SHORT_ID_MIN)?;
    let similar = hits
        .iter()
        .zip(shorts)
        .filter_map(|(h, short_id)| {
            let m = found.remove(&h.id)?;
            let similarity = h.score as f32;
            Some(Neighbour {
                memory: SimilarView {
                    id: m.id.to_string(),
                    short_id,
                    kind: m.kind,
                    content: m.content,
                    similarity,
                },
                may_contradict: classify_similarity(similarity) == Similarity::Related,
            })
        })
        .collect();
    Ok(SimilarOutput {
        id: memory.id.to_string(),
        similar,
        contradiction_threshold: CONTRADICTION_THRESHOLD,
        duplicate_threshold: DEDUP_THRESHOLD,
    })
}

/// How much activity.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ActivityInput {
    /// Most entries, 1 to 100 (default 50).
    pub limit: Option<usize>,
}

/// One change to a memory, or its deletion.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct ActivityEntry {
    /// When (RFC 3339).
    pub at: String,
    /// Who: an API key's id, `local` or `system`.
    pub actor: String,
    /// `created`, `imported`, `updated`, `deduplicated`, `superseded`,
    /// `reverted`, or `deleted`.
    pub change: String,
    /// The memory's full id.
    pub id: String,
    /// The version the change made (none for a deletion).
    pub version: Option<u32>,
    /// Why, or which fields changed.
    pub reason: Option<String>,
    /// The memory's text after the change (none for a deletion).
    pub content: Option<String>,
}

/// What happened to the caller's memories lately.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct ActivityOutput {
    /// Newest first.
    pub entries: Vec<ActivityEntry>,
}

/// The latest changes and deletions of the caller's memories, newest
/// first: every version of the most recently updated memories (the newest
/// `limit` versions can only belong to them) and the deletion receipts.
pub fn activity(cairn: &Cairn, caller: &Caller, input: ActivityInput) -> Result<ActivityOutput> {
    let limit = input.limit.unwrap_or(50);
    if limit == 0 || limit > MAX_NEIGHBOURS {
        return Err(Error::invalid(format!(
            "limit must be between 1 and {MAX_NEIGHBOURS}, got {limit}"
        )));
    }
    let tenant = caller.tenant.as_str();
    let mut filter = Filter::new(tenant, cairn.now()).scope(ScopeFilter::All);
    filter.include_expired = true;
    filter.include_superseded = true;
    let mut entries: Vec<(Timestamp, ActivityEntry)> = Vec::new();
    let page = cairn.list(&filter, ListOrder::RecentlyUpdated, limit, 0)?;
    let ids: Vec<_> = page.iter().map(|m| m.id).collect();
    for (m, versions) in page.iter().zip(cairn.store().histories(tenant, &ids)?) {
        for v in versions {
            entries.push((
                v.at,
                ActivityEntry {
                    at: format_timestamp(v.at),
                    actor: v.actor,
                    change: v.kind.as_str().to_string(),
                    id: m.id.to_string(),
                    version: Some(v.number),
                    reason: v.reason,
                    content: Some(v.memory.content),
                },
            ));
        }
    }
    for r in cairn.store().receipts(tenant, "", usize::MAX)? {
        entries.push((
            r.deletion.at,
            ActivityEntry {
                at: format_timestamp(r.deletion.at),
                actor: r.deletion.actor,
                change: "deleted".into(),
                id: r.id.to_string(),
                version: None,
                reason: Some(r.deletion.reason),
                content: None,
            },
        ));
    }
    entries.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| b.1.version.cmp(&a.1.version)));
    entries.truncate(limit);
    Ok(ActivityOutput {
        entries: entries.into_iter().map(|(_, e)| e).collect(),
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::api::{forget, remember, update, ForgetInput, RememberInput, UpdateInput};
    use crate::conformance::LexicalEmbedder;
    use crate::MemoryStore;

    #[test]
    fn neighbours_are_the_tenants_own_most_similar_first() {
        let c = Cairn::new(Arc::new(MemoryStore::new()), Arc::new(LexicalEmbedder));
        let caller = Caller::new("t");
        let no_dedup = |text: &str| RememberInput {
            dedup: Some(false),
            ..RememberInput::new(text)
        };
        let a = remember(&c, &caller, no_dedup("deploy runs from the ci runner")).unwrap();
        remember(
            &c,
            &caller,
            no_dedup("deploy runs from the ci runner at night"),
        )
        .unwrap();
        remember(&c, &caller, no_dedup("lunch is at noon")).unwrap();
        remember(
            &c,
            &Caller::new("other"),
            no_dedup("deploy runs from the ci runner"),
        )
        .unwrap();
        let out = similar(&c, &caller, &a.id, SimilarInput::default()).unwrap();
        assert_eq!(out.similar.len(), 2, "itself and other tenants left out");
        assert!(out.similar[0].memory.content.contains("at night"));
        assert!(out.similar[0].memory.similarity >= out.similar[1].memory.similarity);
        assert!(similar(&c, &Caller::new("other"), &a.id, SimilarInput::default()).is_err());
        let zero = SimilarInput { limit: Some(0) };
        assert!(similar(&c, &caller, &a.id, zero).is_err());
    }

    #[test]
    fn activity_is_newest_first_with_deletions() {
        let c = Cairn::new(Arc::new(MemoryStore::new()), Arc::new(LexicalEmbedder));
        let caller = Caller::new("t").with_actor("key1");
        let a = remember(&c, &caller, RememberInput::new("first note")).unwrap();
        let b = remember(&c, &caller, RememberInput::new("second thing entirely")).unwrap();
        let edit = UpdateInput {
            content: Some("first note, edited".into()),
            ..Default::default()
        };
        update(&c, &caller, &a.id, edit).unwrap();
        let gone = ForgetInput {
            ids: vec![b.id.clone()],
            ..Default::default()
        };
        forget(&c, &caller, gone).unwrap();
        remember(&c, &Caller::new("other"), RememberInput::new("not theirs")).unwrap();
        let out = activity(&c, &caller, ActivityInput::default()).unwrap();
        let changes: Vec<_> = out.entries.iter().map(|e| e.change.as_str()).collect();
        assert_eq!(changes.len(), 3, "{changes:?}");
        assert!(changes.contains(&"deleted") && changes.contains(&"updated"));
        assert!(out.entries.iter().all(|e| e.actor == "key1"));
        assert!(out.entries.windows(2).all(|w| w[0].at >= w[1].at));
    }
}
