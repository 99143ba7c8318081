//! Writes kept while the embedding endpoint fails.
//!
//! An endpoint's vectors cannot be replaced by another model's (the store
//! holds one model's vectors), so when the configured embedder fails with
//! [`Error::Provider`] after its retries, `remember` and `ingest` neither
//! fail nor embed elsewhere: the write — its final, redacted text and
//! every field, with the id it will have — is kept as a
//! [`CollectionKind::Pending`] record of the store (every backend has the
//! collections table; the conformance suite checks the round trip), and
//! the answer says `pending`. [`Cairn::embed_pending`] (`cairn reindex
//! --pending`, and `cairn serve` in the background) embeds the kept writes
//! once the endpoint answers and writes them like any other, with their
//! ids and creation times; until then they are not recallable.
//!
//! Crash safety: a record is deleted only after its memory is written, and
//! a record whose id is already stored is just deleted, so a crash between
//! the two writes nothing twice.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{Cairn, RememberOutcome, RememberRequest, WriteStatus};
use crate::collections::{CollectionKind, CollectionRecord};
use crate::memory::{normalize_tags, MemoryId, MemoryType};
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
        let body = match serde_json::to_value(&write) {
            Ok(Value::Object(body)) => body,
            _ => return Err(Error::storage("a pending write is not a JSON object")),
        };
        self.store.collections().put_collection(&CollectionRecord {
            tenant: req.tenant,
            kind: CollectionKind::Pending,
            id: id.to_string(),
            parent: None,
            body,
            created_at: now,
            updated_at: now,
        })?;
        Ok(RememberOutcome {
            id,
            status: WriteStatus::Pending,
            similar: Vec::new(),
            superseded: None,
            merged_similarity: None,
            redacted: Default::default(),
        })
    }

    /// How many writes of `tenant` wait for the embedding endpoint.
    pub fn pending_count(&self, tenant: &str) -> Result<usize> {
        Ok(self
            .store
            .collections()
            .list_collections(tenant, CollectionKind::Pending, None)?
            .len())
    }

    /// Embed and write every tenant's kept writes, oldest first, until the
    /// endpoint fails again (then the rest stay, and the report says why).
    pub fn embed_pending(&self) -> Result<PendingReport> {
        let mut report = PendingReport::default();
        let mut waiting = Vec::new();
        for tenant in self.store.every_tenant()? {
            waiting.extend(self.store.collections().list_collections(
                &tenant,
                CollectionKind::Pending,
                None,
            )?);
        }
        if waiting.is_empty() {
            return Ok(report);
        }
        let recipe = self.ensure_model()?;
        let total = waiting.len();
        for batch in waiting.chunks(PENDING_BATCH) {
            let writes: Vec<PendingWrite> = batch
                .iter()
                .map(|r| {
                    serde_json::from_value(Value::Object(r.body.clone())).map_err(|e| {
                        Error::storage(format!("pending write {} is unreadable: {e}", r.id))
                    })
                })
                .collect::<Result<_>>()?;
            let texts: Vec<_> = writes
                .iter()
                .map(|w| {
                    let tags = normalize_tags(&w.tags).unwrap_or_default();
                    recipe.text(&w.content, &tags).into_owned()
                })
                .collect();
            let texts: Vec<&str> = texts.iter().map(AsRef::as_ref).collect();
            let vectors = match self.embedder.embed_batch(&texts) {
                Ok(v) if v.len() == texts.len() => v,
                Ok(_) => return Err(Error::embedding("embedder returned too few vectors")),
                Err(e @ Error::Provider { .. }) => {
                    report.failure = Some(e.to_string());
                    break;
                }
                Err(e) => return Err(e),
            };
            for ((record, write), vector) in batch.iter().zip(writes).zip(vectors) {
                self.write_pending(record, write, vector, &mut report)?;
            }
        }
        report.remaining = total - report.embedded - report.expired;
        Ok(report)
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
