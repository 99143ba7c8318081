//! The engine: remember, recall, update, forget, import, export — the
//! operations on memories, written once over a [`Store`] and an
//! [`Embedder`]. Typed and validated; the application layer
//! ([`crate::api`]) turns front ends' requests into these calls.
//!
//! Files by operation: `remember.rs` (dedup, contradiction
//! warnings, supersession), `recall.rs` (search and ranking),
//! `update.rs`, `transfer.rs` (import, export,
//! reindex), `access.rs` (access counts batched off the request path).
//! This file holds the engine itself: ids, reads, deletes.

mod access;
mod conflicts;
mod consolidate;
mod conversation;
mod erase;
mod facts;
mod generate;
mod history;
mod ingest;
mod judge;
mod marks;
pub mod pending;
mod recall;
mod redaction;
mod remember;
mod tenant_policy;
mod transfer;
mod update;
mod window;

use std::sync::Arc;

pub use access::{AccessLog, FLUSH_DELAY, QUEUE_CAPACITY};

pub use conflicts::{
    ConflictAction, ConflictPolicy, ConflictingMemory, CONTESTED_BY, CONTESTED_REASON,
    CONTESTED_WEIGHT, CONTESTS, FLAGGED_BY, LINK_KEYS,
};
pub use consolidate::{
    ConsolidateRequest, ConsolidatedGroup, ConsolidationReport, CONSOLIDATED_TAG,
    DEFAULT_KEEP_GROUPS, DEFAULT_MAX_GROUPS, SUMMARY_TOKENS,
};
pub use conversation::{KeptMessage, LoggedMessage, Message, ObserveReport, ObserveRequest};
pub use facts::FACT_ATTEMPTS;
pub use history::History;
pub use ingest::{ChunkReceipt, Decision, IngestReceipt, IngestRequest, DEFAULT_INGEST_THRESHOLD};
pub use marks::{newer_of, ConflictMark};
pub use pending::PendingReport;
pub use recall::{Found, Profile, RecallRequest, Recalled, SearchMode, MAX_RECALL_LIMIT};
pub use redaction::{
    redaction_counts, RedactionPolicy, Redactions, DEFAULT_REDACT_PERSONAL, REDACT_PERSONAL_SETTING,
};
pub use remember::{RememberOutcome, RememberRequest, SimilarMemory, WriteStatus};
pub use tenant_policy::CONFLICTS_SETTING;
#[cfg(any(test, feature = "conformance"))]
pub(crate) use transfer::copy_id;
pub use transfer::{ImportProgress, ImportReport};
pub use update::{changed_fields, UpdateRequest};
pub use window::{PromptRequest, WindowRequest, DEFAULT_WORKING_TOKENS};

use crate::embed_queue::BatchingEmbedder;
use crate::foreign::{Foreign, Importer};
use crate::history::Deletion;
use crate::memory::{normalize_id_prefix, EmbedRecipe, Memory, MemoryId, Timestamp};
use crate::rank::Fusion;
use crate::redact::Redactor;
use crate::rerank::Reranker;
use crate::store::{Filter, ListOrder, Store, StoreStats};
use crate::tokens::TokenCounter;
use crate::{ChatProvider, Embedder, Error, ModelInfo, Result};

/// A source of the current time (ms since epoch); swappable in tests.
pub type Clock = Arc<dyn Fn() -> Timestamp + Send + Sync>;

/// The weight a superseded memory keeps.
pub const SUPERSEDED_WEIGHT: f64 = 0.1;

/// Cairn's engine. Cheap to clone; share one per process.
#[derive(Clone)]
pub struct Cairn {
    store: Arc<dyn Store>,
    embedder: Arc<dyn Embedder>,
    clock: Clock,
    fusion: Fusion,
    tokens: TokenCounter,
    redactor: Option<Redactor>,
    chat: Option<Arc<dyn ChatProvider>>,
    reranker: Option<Arc<dyn Reranker>>,
    importer: Option<Arc<dyn Importer>>,
    recipe: EmbedRecipe,
    conflicts: ConflictPolicy,
    /// Held by a write that cannot leave its duplicate check to the
    /// store's transaction (a changed value or a conflict beside it): the
    /// check and the write are then one step within this process.
    write_lock: Arc<std::sync::Mutex<()>>,
    /// Where reads' access counts go when they are batched
    /// ([`Cairn::with_access_batching`]); `None`: written by each read.
    access: Option<Arc<AccessLog>>,
}

impl Cairn {
    /// An engine over `store` and `embedder`, using the system clock,
    /// redacting every kind of secret (see [`Cairn::with_redaction`]).
    pub fn new(store: Arc<dyn Store>, embedder: Arc<dyn Embedder>) -> Self {
        Cairn {
            store,
            embedder: Arc::new(BatchingEmbedder::new(embedder)),
            clock: Arc::new(crate::time::now),
            fusion: Fusion::default(),
            tokens: TokenCounter::default(),
            redactor: Some(Redactor::default()),
            chat: None,
            reranker: None,
            importer: None,
            recipe: EmbedRecipe::NAMES,
            conflicts: ConflictPolicy::default(),
            write_lock: Arc::default(),
            access: None,
        }
    }

    /// Count reads' accesses in batches off the request path
    /// ([`AccessLog`]): for a process serving many requests. Without it
    /// each recall or get writes its accesses before it answers.
    pub fn with_access_batching(mut self) -> Self {
        self.access = Some(Arc::new(AccessLog::new(self.store.clone())));
        self
    }

    /// Write the accesses queued so far (nothing to do when they are not
    /// batched); answers a failed background write since the last flush.
    pub fn flush_accesses(&self) -> Result<()> {
        match &self.access {
            Some(log) => log.flush(),
            None => Ok(()),
        }
    }

    /// Count one access of each of `ids`: queued when batched, else
    /// written now.
    fn count_access(&self, tenant: &str, ids: Vec<MemoryId>) -> Result<()> {
        let at = self.now();
        match &self.access {
            Some(log) => log.push(crate::store::Access {
                tenant: tenant.to_string(),
                ids,
                at,
            }),
            None => self.store.record_access(tenant, &ids, at),
        }
    }

    /// Replace what a write's conflict with an older memory does when the
    /// request does not say ([`ConflictPolicy`]; default
    /// [`ConflictPolicy::PreferNewer`]).
    pub fn with_conflict_policy(mut self, policy: ConflictPolicy) -> Self {
        self.conflicts = policy;
        self
    }

    /// The conflict policy writes follow when neither their request nor
    /// their tenant names one ([`Cairn::conflict_policy_of`]).
    pub fn conflict_policy(&self) -> ConflictPolicy {
        self.conflicts
    }

    /// Replace what a memory's vector is made from (measurements: see
    /// [`EmbedRecipe`]); the default is [`EmbedRecipe::NAMES`]. A store
    /// keeps the recipe it was embedded with until [`Cairn::reindex`].
    pub fn with_embed_recipe(mut self, recipe: EmbedRecipe) -> Self {
        self.recipe = recipe;
        self
    }

    /// Replace the fusion parameters (ranking experiments).
    pub fn with_fusion(mut self, fusion: Fusion) -> Self {
        self.fusion = fusion;
        self
    }

    /// Replace the embedder by one that embeds the same way (a wrapper
    /// that counts or caches: the model must be the same).
    pub fn with_embedder(mut self, embedder: Arc<dyn Embedder>) -> Self {
        debug_assert_eq!(embedder.model(), self.embedder.model());
        self.embedder = Arc::new(BatchingEmbedder::new(embedder));
        self
    }

    /// Use a chat model for summaries and titles (consolidation, a slot's
    /// progress summaries, ingestion titles); without one, or when it fails,
    /// they are extractive. See [`crate::chat`].
    pub fn with_chat(mut self, chat: Option<Arc<dyn ChatProvider>>) -> Self {
        self.chat = chat;
        self
    }

    /// The chat model, if one is configured.
    pub fn chat(&self) -> Option<&Arc<dyn ChatProvider>> {
        self.chat.as_ref()
    }

    /// Rerank recall's best candidates (see [`crate::rerank`]); `None`
    /// (the default) keeps recall's own order.
    pub fn with_reranker(mut self, reranker: Option<Arc<dyn Reranker>>) -> Self {
        self.reranker = reranker;
        self
    }

    /// The reranker, if one is configured.
    pub fn reranker(&self) -> Option<&Arc<dyn Reranker>> {
        self.reranker.as_ref()
    }

    /// Read other systems' exports with `importer` (`cairn-importers`);
    /// `None` (the default) refuses such imports.
    pub fn with_importer(mut self, importer: Option<Arc<dyn Importer>>) -> Self {
        self.importer = importer;
        self
    }

    /// The reader of other systems' exports; an error naming `from` if
    /// this engine was built without one.
    pub fn importer(&self, from: Foreign) -> Result<&dyn Importer> {
        self.importer.as_deref().ok_or_else(|| {
            Error::invalid(format!(
                "cannot read a {from} export: this program was built without the readers of other systems' exports"
            ))
        })
    }

    /// Replace the clock (tests, benchmarks replaying history).
    pub fn with_clock(mut self, clock: Clock) -> Self {
        self.clock = clock;
        self
    }

    /// The current time by this engine's clock.
    pub fn now(&self) -> Timestamp {
        (self.clock)()
    }

    /// The store.
    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    /// The embedder.
    pub fn embedder(&self) -> &Arc<dyn Embedder> {
        &self.embedder
    }

    /// The token counter every budget of this engine counts with.
    pub fn tokens(&self) -> &TokenCounter {
        &self.tokens
    }

    /// The model this engine's vectors are recorded under: the embedder's,
    /// named with what its recipe adds ([`EmbedRecipe::model`]).
    fn model_info(&self) -> ModelInfo {
        self.recipe.model(self.embedder.model())
    }

    /// Check that the store's vectors were made by this engine's embedder,
    /// recording the model and the engine's recipe on first use; returns
    /// the recipe to embed with for this store. A store embedded by the
    /// same model with another recipe keeps that recipe, so its vectors
    /// are never mixed, until `cairn reindex` re-embeds it with the
    /// engine's ([`Cairn::reindex`]).
    fn ensure_model(&self) -> Result<EmbedRecipe> {
        let embedder = self.embedder.model();
        let current = self.recipe.model(embedder.clone());
        match self.store.model()? {
            None => self.store.set_model(&current).map(|()| self.recipe),
            Some(stored) if stored == current => Ok(self.recipe),
            Some(stored) => {
                EmbedRecipe::of_model(&stored, &embedder).ok_or_else(|| Error::ModelMismatch {
                    stored: stored.to_string(),
                    current: current.to_string(),
                })
            }
        }
    }

    fn embed_one(&self, text: &str) -> Result<Vec<f32>> {
        let v = self.embedder.embed(text)?;
        let dim = self.embedder.model().dim;
        if v.len() != dim {
            return Err(Error::embedding(format!(
                "embedder returned {} dimensions, expected {dim}",
                v.len()
            )));
        }
        Ok(v)
    }

    /// Resolve a full id or a unique prefix (≥ 4 characters) of one of
    /// `tenant`'s memories.
    pub fn resolve(&self, tenant: &str, id_or_prefix: &str) -> Result<MemoryId> {
        let prefix = normalize_id_prefix(id_or_prefix)?;
        if prefix.len() == 36 {
            let id: MemoryId = prefix.parse()?;
            return match self.store.get(tenant, &[id])?.is_empty() {
                true => Err(Error::NotFound(id_or_prefix.trim().to_string())),
                false => Ok(id),
            };
        }
        let found = self.store.find_by_prefix(tenant, &prefix, 6)?;
        match found.as_slice() {
            [] => Err(Error::NotFound(id_or_prefix.trim().to_string())),
            [one] => Ok(*one),
            many => Err(Error::AmbiguousId {
                prefix: id_or_prefix.trim().to_string(),
                candidates: many.iter().take(5).map(|i| i.to_string()).collect(),
            }),
        }
    }

    /// The shortest prefix (at least 8 characters, never ending in a
    /// hyphen) that names `id` alone among `tenant`'s memories — what humans
    /// see and type back. UUIDv7 ids begin with their creation time, so
    /// memories written within the same 65.5 s window (2^16 ms) share their
    /// first 8 characters and get longer short ids, like git's abbreviated
    /// hashes.
    pub fn short_id(&self, tenant: &str, id: MemoryId) -> Result<String> {
        self.short_id_at_least(tenant, id, 8)
    }

    /// [`Cairn::short_id`], but at least `min` characters long (rounded up
    /// to the next length that does not end in a hyphen). Front ends whose
    /// readers keep ids for later (models) ask for 13: the creation
    /// millisecond, so an id shown now stays unique as memories are added.
    pub fn short_id_at_least(&self, tenant: &str, id: MemoryId, min: usize) -> Result<String> {
        Ok(self.short_ids(tenant, &[id], min)?.remove(0))
    }

    /// [`Cairn::short_id_at_least`] of many ids, with one store call, all
    /// of one length: that of the longest any of them needs, so that one
    /// listing shows each id at the same width.
    pub fn short_ids(&self, tenant: &str, ids: &[MemoryId], min: usize) -> Result<Vec<String>> {
        // Only the neighbours in id order can share a longer prefix than
        // any other id.
        let neighbours = self.store.id_neighbours(tenant, ids)?;
        let shortest: Vec<String> = ids
            .iter()
            .zip(neighbours)
            .map(|(id, (before, after))| shortest_unique(*id, [before, after], min))
            .collect();
        let width = shortest.iter().map(String::len).max().unwrap_or(0);
        Ok(ids
            .iter()
            .map(|id| id.to_string()[..width].to_string())
            .collect())
    }

    fn load(&self, tenant: &str, id: MemoryId) -> Result<Memory> {
        self.store
            .get(tenant, &[id])?
            .pop()
            .ok_or_else(|| Error::NotFound(id.to_string()))
    }

    /// Read one memory without counting an access.
    pub fn peek(&self, tenant: &str, id_or_prefix: &str) -> Result<Memory> {
        let id = self.resolve(tenant, id_or_prefix)?;
        self.load(tenant, id)
    }

    /// Read one memory (counts as an access).
    pub fn get(&self, tenant: &str, id_or_prefix: &str) -> Result<Memory> {
        let id = self.resolve(tenant, id_or_prefix)?;
        let memory = self.load(tenant, id)?;
        self.count_access(tenant, vec![id])?;
        Ok(memory)
    }

    /// Delete memories by id or prefix for `actor`, for good (see
    /// [`Writing::delete`](crate::store::Writing::delete)); every id is resolved before anything is
    /// deleted, so one bad id deletes nothing.
    pub fn forget(
        &self,
        tenant: &str,
        ids_or_prefixes: &[String],
        actor: &str,
    ) -> Result<Vec<MemoryId>> {
        let ids = ids_or_prefixes
            .iter()
            .map(|s| self.resolve(tenant, s))
            .collect::<Result<Vec<_>>>()?;
        let gone = self.store.get(tenant, &ids)?;
        self.store.delete(tenant, &ids, &self.forgotten_by(actor))?;
        self.scrub_forgotten(tenant, &gone)?;
        Ok(ids)
    }

    fn forgotten_by(&self, actor: &str) -> Deletion {
        Deletion::new(actor, "forgotten", self.now())
    }

    /// Memories passing a filter.
    pub fn list(
        &self,
        filter: &Filter,
        order: ListOrder,
        limit: usize,
        offset: usize,
    ) -> Result<Vec<Memory>> {
        self.store.list(filter, order, limit, offset)
    }

    /// The names of `tenant`'s archived slots (their entries leave default
    /// recall, listing, windows and prompts).
    pub fn archived_slots(&self, tenant: &str) -> Result<Vec<String>> {
        use crate::collections::{CollectionBody, CollectionKind, Slot};
        let mut names = Vec::new();
        for r in self
            .store
            .collections()
            .list_collections(tenant, CollectionKind::Slot, None)?
        {
            if Slot::from_record(&r)?.archived_at.is_some() {
                names.push(r.id);
            }
        }
        Ok(names)
    }

    /// A filter for `tenant` at the engine's current time.
    pub fn filter(&self, tenant: &str) -> Filter {
        Filter::new(tenant, self.now())
    }

    /// Delete every memory passing `filter` for `actor`; returns their ids.
    pub fn forget_matching(&self, filter: &Filter, actor: &str) -> Result<Vec<MemoryId>> {
        let gone = self.store.list(filter, ListOrder::Oldest, usize::MAX, 0)?;
        let ids: Vec<MemoryId> = gone.iter().map(|m| m.id).collect();
        self.store
            .delete(&filter.tenant, &ids, &self.forgotten_by(actor))?;
        self.scrub_forgotten(&filter.tenant, &gone)?;
        Ok(ids)
    }

    /// Counts for `tenant`, and the store's model.
    pub fn stats(&self, tenant: &str) -> Result<(StoreStats, Option<ModelInfo>)> {
        Ok((self.store.stats(tenant, self.now())?, self.store.model()?))
    }

    /// Delete expired memories (all tenants); returns how many.
    pub fn gc(&self) -> Result<usize> {
        self.store.maintenance().delete_expired(self.now())
    }
}

/// The shortest prefix of `id` of at least `min` characters that no
/// neighbour shares, at one of the lengths that do not end in a hyphen.
fn shortest_unique(id: MemoryId, neighbours: [Option<MemoryId>; 2], min: usize) -> String {
    let full = id.to_string();
    let shared = neighbours
        .into_iter()
        .flatten()
        .map(|other| {
            let other = other.to_string();
            full.bytes()
                .zip(other.bytes())
                .take_while(|(a, b)| a == b)
                .count()
        })
        .max()
        .unwrap_or(0);
    match [8, 11, 13, 16, 18, 21, 23, 28]
        .into_iter()
        .find(|&len| len >= min && len > shared)
    {
        Some(len) => full[..len].to_string(),
        None => full,
    }
}

/// `m` marked as replaced by `by` at `at`: weight 0.1, `superseded_by`,
/// `valid_to`.
fn superseded(mut m: Memory, by: MemoryId, at: Timestamp) -> Memory {
    m.weight = SUPERSEDED_WEIGHT;
    m.superseded_by = Some(by);
    m.valid_to = Some(at);
    m
}
