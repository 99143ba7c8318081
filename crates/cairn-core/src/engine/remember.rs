//! Remember: dedup against near-identical memories, warn about related
//! ones, apply supersession.

use serde_json::{Map, Value};

use super::conflicts::{
    apply_conflicts, correction_context, creation_note, find_conflicts, link_newer,
    ConflictingMemory,
};
use super::{superseded, Cairn, ConflictPolicy, Redactions};
use crate::analysis::values::mergeable;
use crate::history::{Change, ChangeKind, LOCAL_ACTOR};
use crate::memory::{
    normalize_project, normalize_slot_name, normalize_tags, validate_content, validate_unit,
    Memory, MemoryId, MemoryType, Thread, Tier,
};
use crate::rank::{classify_similarity, cosine, Similarity, DEDUP_THRESHOLD};
use crate::store::{Filter, Hit, Inserted, ScopeFilter, WriteBatch};
use crate::Result;

/// What to remember.
#[derive(Debug, Clone)]
pub struct RememberRequest {
    /// Owner.
    pub tenant: String,
    /// The text.
    pub content: String,
    /// Type.
    pub kind: MemoryType,
    /// `None` = global.
    pub project: Option<String>,
    /// Tags (normalised on write).
    pub tags: Vec<String>,
    /// Extra data.
    pub metadata: Map<String, Value>,
    /// 0–1; default 0.5.
    pub importance: Option<f64>,
    /// Time to live in ms.
    pub ttl_ms: Option<i64>,
    /// Id or id prefix of a memory this one replaces.
    pub supersedes: Option<String>,
    /// Merge into a near-identical memory instead of adding (default on).
    /// Never merged whatever the cosine: a text that changes a value slot
    /// of the other ([`crate::analysis::values::mergeable`]).
    pub dedup: bool,
    /// What a conflict with an older memory does; `None`: the engine's
    /// policy ([`Cairn::with_conflict_policy`]).
    pub conflicts: Option<ConflictPolicy>,
    /// Origin; default `manual`.
    pub source: Option<String>,
    /// Who writes it (see [`crate::history::Change::actor`]).
    pub actor: String,
    /// The conversation it is a message of.
    pub thread: Option<Thread>,
    /// The slot it is an entry of (checked by
    /// [`crate::memory::normalize_slot_name`]); `None`: in no slot.
    pub slot: Option<String>,
    /// Redact the content and metadata with the engine's redactor (default
    /// true; false stores them as given).
    pub redact: bool,
    /// The id and creation time of a write kept pending
    /// ([`super::pending`]), which it keeps once embedded.
    pub(crate) queued: Option<(MemoryId, crate::Timestamp)>,
}

impl RememberRequest {
    /// A request with defaults: a global `note`, dedup on.
    pub fn new(tenant: impl Into<String>, content: impl Into<String>) -> Self {
        RememberRequest {
            tenant: tenant.into(),
            content: content.into(),
            kind: MemoryType::default(),
            project: None,
            tags: Vec::new(),
            metadata: Map::new(),
            importance: None,
            ttl_ms: None,
            supersedes: None,
            dedup: true,
            conflicts: None,
            source: None,
            actor: LOCAL_ACTOR.to_string(),
            thread: None,
            slot: None,
            redact: true,
            queued: None,
        }
    }
}

/// Whether a write created a memory or merged into an existing one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum WriteStatus {
    /// A new memory.
    Created,
    /// Merged into a near-identical memory (cosine ≥ 0.92, no value slot
    /// changed), whose id is kept.
    Deduplicated,
    /// Kept in the store until the embedding endpoint answers again
    /// (it failed after its retries): written, with this id, by `cairn
    /// reindex --pending` or `cairn serve` in the background; not
    /// recallable until then. See [`super::pending`].
    Pending,
}

/// An existing memory similar to one being written.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SimilarMemory {
    /// Its id.
    pub id: MemoryId,
    /// Its type.
    #[serde(rename = "type")]
    pub kind: MemoryType,
    /// Its text.
    pub content: String,
    /// Cosine similarity with the new memory.
    pub similarity: f32,
}

/// The answer of [`Cairn::remember`].
#[derive(Debug, Clone, serde::Serialize)]
pub struct RememberOutcome {
    /// The memory written (new, or the one merged into).
    pub id: MemoryId,
    /// Created or deduplicated.
    pub status: WriteStatus,
    /// Related memories (0.75 ≤ cosine < 0.92): they may contradict the new
    /// one; decide whether to supersede, forget or keep both.
    pub similar: Vec<SimilarMemory>,
    /// The memory this one superseded.
    pub superseded: Option<MemoryId>,
    /// The memories the new one conflicts with (the same subject with a
    /// changed value, or a correction), why, and what the conflict policy
    /// did to each.
    pub conflicts: Vec<ConflictingMemory>,
    /// When deduplicated: the cosine similarity with the memory merged
    /// into (at least [`DEDUP_THRESHOLD`]).
    pub merged_similarity: Option<f32>,
    /// The secrets replaced before it was embedded and stored.
    pub redacted: Redactions,
}

impl Cairn {
    /// Store a memory: dedup against near-identical memories, warn about
    /// related ones, and apply `supersedes`.
    ///
    /// Dedup is race-free: when no duplicate is seen here, the store checks
    /// again inside the insert's own transaction
    /// ([`crate::store::Writing::insert_unless_duplicate`]), and a duplicate another
    /// writer stored meanwhile is merged into like one found here.
    pub fn remember(&self, mut req: RememberRequest) -> Result<RememberOutcome> {
        let mut redacted = Redactions::new();
        let policy = self.policy_if(&req.tenant, req.redact)?;
        policy.redact_text(&mut req.content, &mut redacted);
        policy.redact_metadata(&mut req.metadata, &mut redacted);
        validate_content(&req.content)?;
        let recipe = self.ensure_model()?;
        policy.refuse_secrets("tag", &req.tags)?;
        policy.refuse_secrets("project", &req.project)?;
        req.tags = normalize_tags(&req.tags)?;
        let vector = match self.embed_one(&recipe.text(&req.content, &req.tags)) {
            Ok(v) => v,
            Err(e @ crate::Error::Provider { .. }) if req.thread.is_none() => {
                let mut outcome = self.keep_pending(req, &e)?;
                outcome.redacted = redacted;
                return Ok(outcome);
            }
            Err(e) => return Err(e),
        };
        let mut outcome = self.remember_embedded(req, vector)?;
        outcome.redacted = redacted;
        Ok(outcome)
    }

    /// [`Cairn::remember`] of a request whose text is final (redacted as
    /// it should be) and whose `vector` this engine's model made from it.
    pub(crate) fn remember_embedded(
        &self,
        req: RememberRequest,
        vector: Vec<f32>,
    ) -> Result<RememberOutcome> {
        validate_content(&req.content)?;
        let tags = normalize_tags(&req.tags)?;
        let project = req.project.as_deref().map(normalize_project).transpose()?;
        let slot = req.slot.as_deref().map(normalize_slot_name).transpose()?;
        if let Some(i) = req.importance {
            validate_unit("importance", i)?;
        }
        let now = self.now();
        let old = req
            .supersedes
            .as_deref()
            .map(|s| {
                self.resolve(&req.tenant, s)
                    .and_then(|id| self.load(&req.tenant, id))
            })
            .transpose()?;

        // Memories the new one may duplicate or contradict: the same tenant,
        // in the scopes a recall from this scope sees.
        let mut filter = Filter::new(&req.tenant, now);
        filter.scope = match &project {
            Some(p) => ScopeFilter::Project(p.clone()),
            None => ScopeFilter::Global,
        };
        let hits = self.store.vector_search_exact(&vector, &filter, 8)?;
        let mut neighbours = self.exact_similarities(&req.tenant, &vector, &hits)?;
        self.add_conflict_candidates(&req.content, &filter, &vector, &mut neighbours)?;

        // Episodes record distinct events: two identical turns at different
        // times are two memories, never merged. Superseding writes are
        // explicit replacements, never merged either.
        let may_dedup = req.dedup && req.kind.tier() != Tier::Episodic && old.is_none();
        let given = (req.importance, req.ttl_ms);
        let (id, created_at) = req.queued.unwrap_or((MemoryId::new_at(now), now));
        let memory = Memory {
            id,
            tenant: req.tenant.clone(),
            content: req.content,
            kind: req.kind,
            project,
            tags,
            metadata: req.metadata,
            importance: req.importance.unwrap_or(0.5),
            weight: 1.0,
            source: req.source.unwrap_or_else(|| "manual".to_string()),
            created_at,
            updated_at: now,
            last_accessed_at: None,
            access_count: 0,
            expires_at: req.ttl_ms.map(|t| now + t),
            valid_from: None,
            valid_to: None,
            supersedes: old.as_ref().map(|o| o.id),
            superseded_by: None,
            thread: req.thread,
            slot,
            search_context: None,
        };
        // A near-identical memory of the same type and scope is merged
        // into, unless the texts differ in a value slot.
        let same_place = |m: &Memory, sim: f32| {
            m.kind == memory.kind
                && m.project == memory.project
                && m.slot == memory.slot
                && classify_similarity(sim) == Similarity::Duplicate
        };
        let (duplicates, changed): (Vec<_>, Vec<_>) = neighbours
            .iter()
            .filter(|(m, sim)| may_dedup && same_place(m, *sim))
            .partition(|(m, _)| mergeable(&m.content, &memory.content));
        if let Some((existing, sim)) = duplicates.first() {
            let existing = existing.clone();
            return self.merge(existing, memory, given, vector, *sim, &req.actor);
        }
        let policy = match req.conflicts {
            Some(p) => p,
            None => self.conflict_policy_of(&req.tenant)?,
        };
        let conflicts = find_conflicts(
            &memory.content,
            &neighbours,
            old.as_ref().map(|o| o.id),
            policy,
        );
        // The store checks again for a duplicate inside its insert, unless
        // a changed value stands at the dedup threshold (the store would
        // take it for one) or conflicts must be written with the memory.
        let mut inserted = false;
        let _held;
        if may_dedup && !(changed.is_empty() && conflicts.is_empty()) {
            // The store's own check would stop at the changed value: check
            // again for the same text under the engine's lock instead.
            _held = self.write_lock.lock().unwrap_or_else(|e| e.into_inner());
            let hits = self.store.vector_search_exact(&vector, &filter, 8)?;
            let twin = self
                .exact_similarities(&req.tenant, &vector, &hits)?
                .into_iter()
                .find(|(m, sim)| same_place(m, *sim) && m.content == memory.content);
            if let Some((existing, sim)) = twin {
                return self.merge(existing, memory, given, vector, sim, &req.actor);
            }
        }
        if may_dedup && changed.is_empty() && conflicts.is_empty() {
            match self.store.insert_unless_duplicate(
                memory.clone(),
                vector.clone(),
                DEDUP_THRESHOLD,
                &req.actor,
            )? {
                Inserted::New => inserted = true,
                Inserted::Duplicate { id, similarity } => {
                    let existing = self.load(&memory.tenant, id)?;
                    if mergeable(&existing.content, &memory.content) {
                        return self.merge(existing, memory, given, vector, similarity, &req.actor);
                    }
                }
            }
        }
        let mut batch = WriteBatch::default();
        if !inserted {
            creation(
                &mut batch,
                &memory,
                vector,
                old.as_ref(),
                policy,
                &conflicts,
                &req.actor,
            );
        }
        apply_conflicts(&mut batch, &conflicts, memory.id, now, &req.actor);
        if !batch.inserts.is_empty() || !batch.updates.is_empty() {
            self.store.write(batch)?;
        }
        Ok(RememberOutcome {
            id: memory.id,
            status: WriteStatus::Created,
            similar: similar_memories(neighbours, old.as_ref(), &conflicts),
            superseded: old.map(|o| o.id),
            conflicts: conflicts.into_iter().map(|(_, c)| c).collect(),
            merged_similarity: None,
            redacted: Redactions::new(),
        })
    }

    /// Merge the new memory into the near-identical `existing` one: its
    /// text replaces the old, tags and metadata are merged, importance and
    /// TTL replaced when `given` (importance, TTL) says so; the id is kept.
    fn merge(
        &self,
        existing: Memory,
        new: Memory,
        given: (Option<f64>, Option<i64>),
        vector: Vec<f32>,
        similarity: f32,
        actor: &str,
    ) -> Result<RememberOutcome> {
        let mut merged = existing;
        merged.tags = normalize_tags(merged.tags.iter().chain(&new.tags))?;
        merged.content = new.content;
        merged.metadata.extend(new.metadata);
        if given.0.is_some() {
            merged.importance = new.importance;
        }
        if given.1.is_some() {
            merged.expires_at = new.expires_at;
        }
        merged.updated_at = new.updated_at;
        let id = merged.id;
        let change =
            Change::new(id, ChangeKind::Deduplicated, actor, merged.updated_at).because(format!(
                "merged a near-identical memory (similarity {similarity:.3} ≥ {DEDUP_THRESHOLD})"
            ));
        self.store.write(WriteBatch {
            updates: vec![(merged, Some(vector))],
            changes: vec![change],
            ..Default::default()
        })?;
        Ok(RememberOutcome {
            id,
            status: WriteStatus::Deduplicated,
            similar: Vec::new(),
            superseded: None,
            conflicts: Vec::new(),
            merged_similarity: Some(similarity),
            redacted: Redactions::new(),
        })
    }

    /// Exact cosines between `vector` and the stored embeddings of `hits`,
    /// with the memories, best first.
    pub(super) fn exact_similarities(
        &self,
        tenant: &str,
        vector: &[f32],
        hits: &[Hit],
    ) -> Result<Vec<(Memory, f32)>> {
        let ids: Vec<MemoryId> = hits.iter().map(|h| h.id).collect();
        let memories = self.store.get(tenant, &ids)?;
        let found: Vec<MemoryId> = memories.iter().map(|m| m.id).collect();
        let embeddings = self.store.embeddings(tenant, &found)?;
        let mut out = Vec::with_capacity(ids.len());
        for (m, e) in memories.into_iter().zip(embeddings) {
            if let Some(e) = e {
                let sim = cosine(vector, &e);
                out.push((m, sim));
            }
        }
        out.sort_by(|a, b| b.1.total_cmp(&a.1));
        Ok(out)
    }
}

/// Add the creation of `memory` (embedded as `vector`, written at its
/// `updated_at` by `actor`) to `batch`: the supersession of `old` when it
/// replaces one, what the conflict `policy` records of `conflicts` on the
/// new memory, and its creation's version.
fn creation(
    batch: &mut WriteBatch,
    memory: &Memory,
    vector: Vec<f32>,
    old: Option<&Memory>,
    policy: ConflictPolicy,
    conflicts: &[(Memory, ConflictingMemory)],
    actor: &str,
) {
    let now = memory.updated_at;
    let mut created = Change::new(memory.id, ChangeKind::Created, actor, now);
    let mut memory = memory.clone();
    if let Some(o) = old {
        created = created.because(format!("supersedes {}", o.id));
        batch
            .updates
            .push((superseded(o.clone(), memory.id, now), None));
        batch.changes.push(
            Change::new(o.id, ChangeKind::Superseded, actor, now)
                .because(format!("superseded by {}", memory.id)),
        );
    } else if policy == ConflictPolicy::Supersede {
        memory.supersedes = conflicts.first().map(|(m, _)| m.id);
    }
    if policy != ConflictPolicy::Flag {
        memory.search_context = correction_context(conflicts);
    }
    link_newer(&mut memory, conflicts);
    if let Some(note) = creation_note(conflicts) {
        created = match &created.reason {
            Some(r) => created.clone().because(format!("{r}; {note}")),
            None => created.because(note),
        };
    }
    batch.inserts.push((memory, vector));
    batch.changes.push(created);
}

/// The neighbours a write answers as similar: related ones that are
/// neither the memory it supersedes nor one it conflicts with.
fn similar_memories(
    neighbours: Vec<(Memory, f32)>,
    old: Option<&Memory>,
    conflicts: &[(Memory, ConflictingMemory)],
) -> Vec<SimilarMemory> {
    neighbours
        .into_iter()
        .filter(|(m, sim)| {
            Some(m.id) != old.map(|o| o.id)
                && conflicts.iter().all(|(c, _)| c.id != m.id)
                && classify_similarity(*sim) != Similarity::Unrelated
        })
        .map(|(m, sim)| SimilarMemory {
            id: m.id,
            kind: m.kind,
            content: m.content,
            similarity: sim,
        })
        .collect()
}
