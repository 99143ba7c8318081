//! Writes kept while the embedding endpoint fails.
//!
//! An endpoint's vectors cannot be replaced by another model's (the store
//! holds one model's vectors), so when the configured embedder fails with
//! [`Error::Provider`] after its retries, `remember`, `ingest` and
//! conversation logging (`observe`) neither fail nor embed elsewhere: the
//! write — its final, redacted text and every field, with the id it will
//! have — is kept as a [`CollectionKind::Pending`] record of the store
//! (every backend has the collections table; the conformance suite checks
//! the round trip), and the answer says `pending`. [`Cairn::embed_pending`]
//! (`cairn reindex --pending`, and `cairn serve` in the background) embeds
//! the kept writes once the endpoint answers and writes them like any
//! other, with their ids and creation times; until then they are not
//! recallable.
//!
//! A kept message is logged by [`Cairn::observe`] then, in its
//! conversation, session and topic. A conversation is logged in order: a
//! message of a conversation with kept messages is kept behind them even
//! when the endpoint answers, and they are logged oldest first.
//!
//! Crash safety: a record is deleted only after its memory is written, and
//! a record whose id is already stored is just deleted, so a crash between
//! the two writes nothing twice.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::conversation::default_session;
use super::{
    Cairn, KeptMessage, Message, ObserveReport, ObserveRequest, RememberOutcome, RememberRequest,
    WriteStatus,
};
use crate::collections::{CollectionKind, CollectionRecord};
use crate::memory::{normalize_tags, MemoryId, MemoryType, Timestamp};
use crate::{Error, Result};

/// Kept writes embedded per endpoint call.
const PENDING_BATCH: usize = 64;

/// A write kept until it can be embedded: a [`RememberRequest`] whose
/// text is final.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct PendingWrite {
    content: String,
    kind: MemoryType,
    project: Option<String>,
    tags: Vec<String>,
    metadata: Map<String, Value>,
    importance: Option<f64>,
    ttl_ms: Option<i64>,
    supersedes: Option<String>,
    dedup: bool,
    source: Option<String>,
    actor: String,
    slot: Option<String>,
    /// Why it could not be embedded.
    failure: String,
}

/// A conversation message kept until it can be embedded: a [`Message`]
/// whose text is final and whose id, session and time are set.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct PendingMessage {
    conversation: String,
    session: String,
    speaker: String,
    text: String,
    at: Timestamp,
    metadata: Map<String, Value>,
    project: Option<String>,
    actor: String,
    /// Its place among its tenant's kept messages (the order they are
    /// logged in).
    seq: usize,
    /// Why it could not be embedded.
    failure: String,
}

/// A kept record's body: a conversation message (it names its
/// conversation), else a write.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Kept {
    Message(PendingMessage),
    Write(PendingWrite),
}

fn read_kept(record: &CollectionRecord) -> Result<Kept> {
    serde_json::from_value(Value::Object(record.body.clone()))
        .map_err(|e| Error::storage(format!("pending write {} is unreadable: {e}", record.id)))
}

/// What [`Cairn::embed_pending`] did.
#[derive(Debug, Clone, Default, PartialEq, Serialize, schemars::JsonSchema)]
pub struct PendingReport {
    /// Kept writes embedded and written.
    pub embedded: usize,
    /// Kept writes whose time to live ran out while they waited (dropped).
    pub expired: usize,
    /// Kept writes still waiting.
    pub remaining: usize,
    /// The endpoint's failure, when it still fails.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
}

impl Cairn {
    /// Store `kept` (a write or a message) as `tenant`'s pending record `id`.
    fn put_pending(
        &self,
        tenant: &str,
        id: MemoryId,
        kept: &impl serde::Serialize,
        now: Timestamp,
    ) -> Result<()> {
        let Ok(Value::Object(body)) = serde_json::to_value(kept) else {
            return Err(Error::storage("a pending record is not a JSON object"));
        };
        self.store.collections().put_collection(&CollectionRecord {
            tenant: tenant.to_string(),
            kind: CollectionKind::Pending,
            id: id.to_string(),
            parent: None,
            body,
            created_at: now,
            updated_at: now,
        })
    }

    /// Keep `req` (its text final) for later embedding, after `failure`.
    pub(crate) fn keep_pending(
        &self,
        req: RememberRequest,
        failure: &Error,
    ) -> Result<RememberOutcome> {
        let now = self.now();
        let id = MemoryId::new_at(now);
        let write = PendingWrite {
            content: req.content,
            kind: req.kind,
            project: req.project,
            tags: req.tags,
            metadata: req.metadata,
            importance: req.importance,
            ttl_ms: req.ttl_ms,
            supersedes: req.supersedes,
            dedup: req.dedup,
            source: req.source,
            actor: req.actor,
            slot: req.slot,
            failure: failure.to_string(),
        };
        self.put_pending(&req.tenant, id, &write, now)?;
        Ok(RememberOutcome {
            id,
            status: WriteStatus::Pending,
            similar: Vec::new(),
            superseded: None,
            conflicts: Vec::new(),
            merged_similarity: None,
            redacted: Default::default(),
        })
    }

    /// Keep `messages` (checked, redacted) of `req` for later logging,
    /// after `failure` (`None`: they are behind kept messages of their
    /// conversation), numbered from `seq` on, and list them in `report`.
    pub(crate) fn keep_messages(
        &self,
        req: &ObserveRequest,
        project: Option<&str>,
        messages: Vec<Message>,
        failure: Option<&Error>,
        seq: &mut usize,
        report: &mut ObserveReport,
    ) -> Result<()> {
        if messages.is_empty() {
            return Ok(());
        }
        let now = self.now();
        let reason = match failure {
            Some(e) => pending_reason(e),
            None => "kept pending behind earlier messages of the conversation that wait for \
                     the embedding endpoint; logged with them when it answers"
                .to_string(),
        };
        for m in messages {
            let at = m.at.unwrap_or(now);
            let id = m.id.unwrap_or_else(|| MemoryId::new_at(at));
            let session = m
                .session
                .unwrap_or_else(|| default_session(&m.conversation, at));
            let kept = PendingMessage {
                conversation: m.conversation,
                session,
                speaker: m.speaker,
                text: m.text,
                at,
                metadata: m.metadata,
                project: project.map(str::to_string),
                actor: req.actor.clone(),
                seq: *seq,
                failure: reason.clone(),
            };
            self.put_pending(&req.tenant, id, &kept, now)?;
            *seq += 1;
            report.pending.push(KeptMessage {
                id,
                session: kept.session,
                conversation: kept.conversation,
            });
        }
        report.pending_reason.get_or_insert(reason);
        Ok(())
    }

    /// The conversations of `tenant` with messages kept pending, and the
    /// number the next kept message takes.
    pub(crate) fn pending_conversations(&self, tenant: &str) -> Result<(HashSet<String>, usize)> {
        let mut waiting = HashSet::new();
        let mut next = 0;
        for record in
            self.store
                .collections()
                .list_collections(tenant, CollectionKind::Pending, None)?
        {
            if let Kept::Message(m) = read_kept(&record)? {
                waiting.insert(m.conversation);
                next = next.max(m.seq + 1);
            }
        }
        Ok((waiting, next))
    }

    /// How many writes of `tenant` wait for the embedding endpoint.
    pub fn pending_count(&self, tenant: &str) -> Result<usize> {
        Ok(self
            .store
            .collections()
            .list_collections(tenant, CollectionKind::Pending, None)?
            .len())
    }

    /// Embed and write every tenant's kept writes, oldest first, then log
    /// the kept messages, until the endpoint fails again (then the rest
    /// stay, and the report says why).
    pub fn embed_pending(&self) -> Result<PendingReport> {
        let mut report = PendingReport::default();
        let mut waiting = Vec::new();
        let mut messages = Vec::new();
        for tenant in self.store.tenants(crate::TenantsWith::Anything)? {
            for record in
                self.store
                    .collections()
                    .list_collections(&tenant, CollectionKind::Pending, None)?
            {
                match read_kept(&record)? {
                    Kept::Write(w) => waiting.push((record, w)),
                    Kept::Message(m) => messages.push((record, m)),
                }
            }
        }
        let total = waiting.len() + messages.len();
        if total == 0 {
            return Ok(report);
        }
        let recipe = self.ensure_model()?;
        for batch in waiting.chunks(PENDING_BATCH) {
            let writes: Vec<&PendingWrite> = batch.iter().map(|(_, w)| w).collect();
            let texts: Vec<String> = writes
                .iter()
                .map(|w| {
                    let tags = normalize_tags(&w.tags).unwrap_or_default();
                    recipe.text(&w.content, &tags).into_owned()
                })
                .collect();
            let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
            let vectors = match self.embedder.embed_batch(&texts) {
                Ok(v) if v.len() == texts.len() => v,
                Ok(_) => return Err(Error::embedding("embedder returned too few vectors")),
                Err(e @ Error::Provider { .. }) => {
                    report.failure = Some(e.to_string());
                    break;
                }
                Err(e) => return Err(e),
            };
            for ((record, write), vector) in batch.iter().zip(vectors) {
                self.write_pending(record, write.clone(), vector, &mut report)?;
            }
        }
        if report.failure.is_none() {
            self.log_pending(messages, &mut report)?;
        }
        report.remaining = total - report.embedded - report.expired;
        Ok(report)
    }

    /// Log kept messages, oldest first, a run of one tenant, project and
    /// actor per [`Cairn::observe`] call; each record is deleted once its
    /// run is logged (a message already stored is skipped by `observe`).
    fn log_pending(
        &self,
        mut messages: Vec<(CollectionRecord, PendingMessage)>,
        report: &mut PendingReport,
    ) -> Result<()> {
        messages.sort_by(|(a, am), (b, bm)| (&a.tenant, am.seq).cmp(&(&b.tenant, bm.seq)));
        let same_run = |(a, am): &(CollectionRecord, PendingMessage),
                        (b, bm): &(CollectionRecord, PendingMessage)| {
            a.tenant == b.tenant && am.project == bm.project && am.actor == bm.actor
        };
        for run in messages.chunk_by(same_run) {
            let (first, kept) = &run[0];
            let req = ObserveRequest {
                tenant: first.tenant.clone(),
                project: kept.project.clone(),
                actor: kept.actor.clone(),
            };
            let batch = run.iter().map(|(record, m)| {
                Ok(Message {
                    conversation: m.conversation.clone(),
                    session: Some(m.session.clone()),
                    speaker: m.speaker.clone(),
                    text: m.text.clone(),
                    at: Some(m.at),
                    id: Some(record.id.parse()?),
                    metadata: m.metadata.clone(),
                })
            });
            let batch = batch.collect::<Result<Vec<Message>>>()?;
            match self.observe_with(&req, batch, &mut |_| (), false) {
                Ok(_) => {}
                Err(e @ Error::Provider { .. }) => {
                    report.failure = Some(e.to_string());
                    return Ok(());
                }
                Err(e) => return Err(e),
            }
            for (record, _) in run {
                self.store.collections().delete_collection(
                    &record.tenant,
                    CollectionKind::Pending,
                    &record.id,
                )?;
                report.embedded += 1;
            }
        }
        Ok(())
    }

    fn write_pending(
        &self,
        record: &CollectionRecord,
        write: PendingWrite,
        vector: Vec<f32>,
        report: &mut PendingReport,
    ) -> Result<()> {
        let id: MemoryId = record.id.parse()?;
        let tenant = &record.tenant;
        let now = self.now();
        let waited = now - record.created_at;
        let ttl = write.ttl_ms.map(|t| t - waited);
        if ttl.is_some_and(|t| t <= 0) {
            report.expired += 1;
        } else if self.store.get(tenant, &[id])?.is_empty() {
            let mut req = RememberRequest::new(tenant, write.content);
            req.kind = write.kind;
            req.project = write.project;
            req.tags = write.tags;
            req.metadata = write.metadata;
            req.importance = write.importance;
            req.ttl_ms = ttl;
            req.supersedes = write.supersedes;
            req.dedup = write.dedup;
            req.source = write.source;
            req.actor = write.actor;
            req.slot = write.slot;
            req.queued = Some((id, record.created_at));
            self.remember_embedded(req, vector)?;
            report.embedded += 1;
        } else {
            report.embedded += 1;
        }
        self.store
            .collections()
            .delete_collection(tenant, CollectionKind::Pending, &record.id)?;
        Ok(())
    }
}

/// When a pending write was kept, for receipts.
pub fn pending_reason(failure: &Error) -> String {
    format!(
        "kept pending: the embedding endpoint failed ({failure}); it is embedded and stored \
         when the endpoint answers (cairn reindex --pending, or cairn serve in the background)"
    )
}
