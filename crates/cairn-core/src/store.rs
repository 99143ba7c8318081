//! The [`Store`] trait: where memories live, and how they are found.
//!
//! # Sync, decided once
//! The trait is **synchronous**. Backends block (SQLite does disk I/O; the
//! PostgreSQL backend will use a blocking client or block on its own runtime).
//! Async front ends (MCP, the REST API, the web UI) call the engine off their
//! workers (`block_in_place`, or `spawn_blocking` on a single-threaded runtime). This keeps the core free of any async runtime.
//!
//! # What a backend must do
//! Persist [`Memory`] records with their embeddings; answer keyword (BM25)
//! and vector queries under a [`Filter`]; apply each [`WriteBatch`]
//! atomically; and let several processes share one store, each seeing the
//! others' committed writes at its next call. `conformance` (feature
//! `conformance`) is the test suite every backend runs.

use crate::history::{Change, Deletion, DeletionReceipt, Version};
use crate::memory::{Memory, MemoryId, MemoryType, Thread, Timestamp};
use crate::packing::Packed;
use crate::{ModelInfo, Result};

mod terms;
pub use terms::{keyword_terms, query_terms, STOP_WORDS};

/// Which scopes a query sees.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ScopeFilter {
    /// Global memories only.
    #[default]
    Global,
    /// Global memories plus this project's: what a recall in a project sees.
    Project(String),
    /// Exactly this scope (`None` = global only, `Some(p)` = only `p`'s).
    Exactly(Option<String>),
    /// Every scope.
    All,
}

impl ScopeFilter {
    /// Whether a memory with this project passes.
    pub fn admits(&self, project: Option<&str>) -> bool {
        match self {
            ScopeFilter::Global => project.is_none(),
            ScopeFilter::Project(p) => project.is_none() || project == Some(p.as_str()),
            ScopeFilter::Exactly(s) => project == s.as_deref(),
            ScopeFilter::All => true,
        }
    }
}

/// Which part of a conversation a query sees: Memorg's session,
/// conversation and topic scopes, on [`Memory::thread`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ThreadScope {
    /// The messages of this session.
    Session(String),
    /// The messages of this conversation.
    Conversation(String),
    /// The messages of this topic.
    Topic(String),
}

impl ThreadScope {
    /// Whether a memory in `thread` passes (one outside any conversation
    /// never does).
    pub fn admits(&self, thread: Option<&Thread>) -> bool {
        let Some(t) = thread else { return false };
        match self {
            ThreadScope::Session(s) => t.session == *s,
            ThreadScope::Conversation(c) => t.conversation == *c,
            ThreadScope::Topic(p) => t.topic == *p,
        }
    }
}

/// Conditions a memory must meet to be returned. Every search and listing
/// takes one; the defaults leave out expired and superseded memories.
#[derive(Debug, Clone, PartialEq)]
pub struct Filter {
    /// Only this tenant's memories (always applied: tenants never mix).
    pub tenant: String,
    /// Which scopes.
    pub scope: ScopeFilter,
    /// Only the messages of this session, conversation or topic.
    pub thread: Option<ThreadScope>,
    /// Only the entries of any of these slots ([`Memory::slot`]; empty = no
    /// slot condition, memories in no slot included).
    pub slots: Vec<String>,
    /// Leave out the entries of these slots (archived slots, which leave
    /// default recall); memories in no slot or in other slots stay. A slot
    /// named in both lists is left out.
    pub hidden_slots: Vec<String>,
    /// Any of these types (empty = all types).
    pub types: Vec<MemoryType>,
    /// All of these tags (empty = no tag condition).
    pub tags: Vec<String>,
    /// Any of these sources ([`Memory::source`]: `manual`, `import`,
    /// `conversation`, `import:mem0`…; empty = any source).
    pub sources: Vec<String>,
    /// Created at or after.
    pub created_after: Option<Timestamp>,
    /// Created before.
    pub created_before: Option<Timestamp>,
    /// Only memories whose id sorts after this one: a cursor over
    /// [`ListOrder::Id`] that pages through a whole store in constant time
    /// per page (a database reads ids in order from its id index), where an
    /// offset costs the rows it skips.
    pub after: Option<MemoryId>,
    /// Valid at some time at or after this (validity = `[valid_from or
    /// created_at, valid_to)`).
    pub valid_after: Option<Timestamp>,
    /// Valid at some time before this.
    pub valid_before: Option<Timestamp>,
    /// Keep memories whose TTL has passed.
    pub include_expired: bool,
    /// Keep memories that another memory superseded.
    pub include_superseded: bool,
    /// Only memories that another memory superseded (whatever
    /// `include_superseded` says).
    pub only_superseded: bool,
    /// The time against which expiry is judged.
    pub now: Timestamp,
}

impl Filter {
    /// A filter for `tenant` that sees global memories only, at `now`.
    pub fn new(tenant: impl Into<String>, now: Timestamp) -> Self {
        Filter {
            tenant: tenant.into(),
            scope: ScopeFilter::Global,
            thread: None,
            slots: Vec::new(),
            hidden_slots: Vec::new(),
            types: Vec::new(),
            tags: Vec::new(),
            sources: Vec::new(),
            created_after: None,
            created_before: None,
            after: None,
            valid_after: None,
            valid_before: None,
            include_expired: false,
            include_superseded: false,
            only_superseded: false,
            now,
        }
    }

    /// Builder: set the scope.
    pub fn scope(mut self, scope: ScopeFilter) -> Self {
        self.scope = scope;
        self
    }

    /// Builder: keep expired and superseded memories too.
    pub fn everything(mut self) -> Self {
        self.include_expired = true;
        self.include_superseded = true;
        self.scope = ScopeFilter::All;
        self
    }

    /// Whether a memory passes the filter.
    ///
    /// Destructured without `..`: a new field does not compile until it is
    /// handled here, and (by the same rule) in every backend's query code.
    pub fn matches(&self, m: &impl Filterable) -> bool {
        let Filter {
            tenant,
            scope,
            thread,
            slots,
            hidden_slots,
            types,
            tags,
            sources,
            created_after,
            created_before,
            after,
            valid_after,
            valid_before,
            include_expired,
            include_superseded,
            only_superseded,
            now,
        } = self;
        if m.tenant() != tenant || !scope.admits(m.project()) {
            return false;
        }
        if thread.as_ref().is_some_and(|t| !t.admits(m.thread())) {
            return false;
        }
        if !slots_admit(slots, hidden_slots, m.slot()) {
            return false;
        }
        if !types.is_empty() && !types.contains(&m.kind()) {
            return false;
        }
        if !tags.iter().all(|t| m.has_tag(t)) {
            return false;
        }
        if !sources.is_empty() && !sources.iter().any(|s| s == m.source()) {
            return false;
        }
        let created = m.created_at();
        if created_after.is_some_and(|a| created < a)
            || created_before.is_some_and(|b| created >= b)
            || after.is_some_and(|cursor| m.id() <= cursor)
        {
            return false;
        }
        let (from, to) = m.validity();
        if valid_after.is_some_and(|a| to.is_some_and(|t| t <= a))
            || valid_before.is_some_and(|b| from >= b)
        {
            return false;
        }
        if !include_expired && m.expires_at().is_some_and(|e| e <= *now) {
            return false;
        }
        let superseded_kept = match (only_superseded, include_superseded) {
            (true, _) => m.is_superseded(),
            (false, true) => true,
            (false, false) => !m.is_superseded(),
        };
        if !superseded_kept {
            return false;
        }
        true
    }
}

/// Whether a memory in `slot` passes [`Filter::slots`] and
/// [`Filter::hidden_slots`]: in one of `slots` (when any are given) and in
/// none of `hidden` (a memory in no slot passes `hidden` always, `slots`
/// only when it is empty).
pub fn slots_admit(slots: &[String], hidden: &[String], slot: Option<&str>) -> bool {
    match slot {
        None => slots.is_empty(),
        Some(s) => {
            (slots.is_empty() || slots.iter().any(|x| x == s)) && !hidden.iter().any(|x| x == s)
        }
    }
}

/// What [`Filter::matches`] needs to know of a memory. Implemented by
/// [`Memory`] and by backends' compact index entries, so that every backend
/// filters with this one function.
pub trait Filterable {
    /// Identifier.
    fn id(&self) -> MemoryId;
    /// Owner.
    fn tenant(&self) -> &str;
    /// Project, `None` = global.
    fn project(&self) -> Option<&str>;
    /// The conversation it is a message of.
    fn thread(&self) -> Option<&Thread>;
    /// The slot it is an entry of.
    fn slot(&self) -> Option<&str>;
    /// Type.
    fn kind(&self) -> MemoryType;
    /// Whether it carries this (normalised) tag.
    fn has_tag(&self, tag: &str) -> bool;
    /// Where it came from ([`Memory::source`]).
    fn source(&self) -> &str;
    /// Creation time.
    fn created_at(&self) -> Timestamp;
    /// `(valid_from or created_at, valid_to)`.
    fn validity(&self) -> (Timestamp, Option<Timestamp>);
    /// TTL.
    fn expires_at(&self) -> Option<Timestamp>;
    /// Whether another memory superseded it.
    fn is_superseded(&self) -> bool;
}

impl Filterable for Memory {
    fn id(&self) -> MemoryId {
        self.id
    }
    fn tenant(&self) -> &str {
        &self.tenant
    }
    fn project(&self) -> Option<&str> {
        self.project.as_deref()
    }
    fn thread(&self) -> Option<&Thread> {
        self.thread.as_ref()
    }
    fn slot(&self) -> Option<&str> {
        self.slot.as_deref()
    }
    fn kind(&self) -> MemoryType {
        self.kind
    }
    fn has_tag(&self, tag: &str) -> bool {
        self.tags.iter().any(|t| t == tag)
    }
    fn source(&self) -> &str {
        &self.source
    }
    fn created_at(&self) -> Timestamp {
        self.created_at
    }
    fn validity(&self) -> (Timestamp, Option<Timestamp>) {
        (self.valid_from.unwrap_or(self.created_at), self.valid_to)
    }
    fn expires_at(&self) -> Option<Timestamp> {
        self.expires_at
    }
    fn is_superseded(&self) -> bool {
        self.superseded_by.is_some()
    }
}

/// Order of a listing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ListOrder {
    /// Newest created first.
    #[default]
    Newest,
    /// Oldest created first.
    Oldest,
    /// By id, ascending: the order the ids were made in (a UUIDv7 begins
    /// with its creation time), whatever `created_at` says. The export's
    /// order, paged with [`Filter::after`].
    Id,
    /// Most recently updated first.
    RecentlyUpdated,
    /// Most accessed first.
    MostAccessed,
    /// Longest unused first (never accessed counts from creation).
    Stalest,
    /// Soonest to expire first; memories without an expiry time last (ties
    /// and those by id).
    Expiring,
}

/// Memories read together at one time: one entry of a batch of accesses
/// ([`Writing::record_accesses`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Access {
    /// The tenant of the memories.
    pub tenant: String,
    /// The memories read (one access each; an id twice counts twice).
    pub ids: Vec<MemoryId>,
    /// When they were read.
    pub at: Timestamp,
}

/// One search hit: a memory id, the backend's relevance score (BM25,
/// higher is better; or cosine similarity) and the memory's ranking
/// factors, so that recall ranks every candidate without reading it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    /// The memory.
    pub id: MemoryId,
    /// Higher is better.
    pub score: f64,
    /// The memory's ranking factors at the time of the search.
    pub factors: RankFactors,
}

/// Document frequencies of a keyword query's terms (see
/// [`Reading::keyword_rarity`]).
#[derive(Debug, Clone, PartialEq)]
pub struct TermRarity {
    /// Memories in the keyword index (BM25's `N`).
    pub rows: f64,
    /// The terms the keyword search scores, as [`keyword_terms`] spells
    /// them, in the order of `rows_with_term`.
    pub terms: Vec<String>,
    /// For each of `terms`, the memories containing it (BM25's `n`).
    pub rows_with_term: Vec<f64>,
}

/// What recall's ranking reads of a memory besides its search ranks (see
/// [`crate::rank`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RankFactors {
    /// Recorded accesses.
    pub access_count: u64,
    /// Last recorded access.
    pub last_accessed_at: Option<Timestamp>,
    /// Global (no project).
    pub global: bool,
    /// The memory's weight.
    pub weight: f64,
}

impl RankFactors {
    /// A memory's factors.
    pub fn of(m: &Memory) -> Self {
        RankFactors {
            access_count: m.access_count,
            last_accessed_at: m.last_accessed_at,
            global: m.project.is_none(),
            weight: m.weight,
        }
    }
}

/// A set of writes applied atomically: all of them or none, versions
/// included.
#[derive(Debug, Clone, Default)]
pub struct WriteBatch {
    /// New memories with their embeddings (an id that exists is an error).
    pub inserts: Vec<(Memory, Vec<f32>)>,
    /// Replacements of existing memories (matched by id and tenant); the
    /// embedding is replaced when given, kept otherwise. A replacement
    /// never lowers the access count nor moves the last access back:
    /// accesses recorded after its copy was read are kept.
    pub updates: Vec<(Memory, Option<Vec<f32>>)>,
    /// The versions the batch records: each a change to a memory the batch
    /// inserts or updates (at most one per memory), whose state as written
    /// here is the version's. Writes without one (re-embedding) leave
    /// history as it is.
    pub changes: Vec<Change>,
}

impl WriteBatch {
    /// Whether the batch writes nothing.
    pub fn is_empty(&self) -> bool {
        self.inserts.is_empty() && self.updates.is_empty()
    }

    /// The memories the changes of this batch record, in the changes'
    /// order: each as the batch inserts or updates it. A change to a memory
    /// the batch does not write, or a second change to one memory, is
    /// [`crate::Error::InvalidInput`].
    pub fn versioned(&self) -> crate::Result<Vec<&Memory>> {
        let mut seen = std::collections::HashSet::new();
        self.changes
            .iter()
            .map(|change| {
                if !seen.insert(change.id) {
                    return Err(crate::Error::invalid(format!(
                        "two versions of {} in one batch",
                        change.id
                    )));
                }
                let inserted = self.inserts.iter().map(|(m, _)| m);
                inserted
                    .chain(self.updates.iter().map(|(m, _)| m))
                    .find(|m| m.id == change.id)
                    .ok_or_else(|| {
                        crate::Error::invalid(format!(
                            "a version of {} in a batch that does not write it",
                            change.id
                        ))
                    })
            })
            .collect()
    }
}

/// Records copied from another store, written as they are by
/// [`Writing::restore`] (`cairn migrate`): nothing about them is recorded anew.
#[derive(Debug, Clone, Default)]
pub struct Restore {
    /// Memories, each with its embedding and every version it has
    /// (oldest first, numbers as they were).
    pub memories: Vec<(Memory, Vec<f32>, Vec<Version>)>,
    /// Deletion receipts; one whose id is stored replaces it.
    pub receipts: Vec<DeletionReceipt>,
}

/// Counts for `stats`.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct StoreStats {
    /// Every memory of the tenant, including expired and superseded ones.
    pub total: usize,
    /// Expired (awaiting `gc`).
    pub expired: usize,
    /// Superseded.
    pub superseded: usize,
    /// Count per type, by type name.
    pub by_type: Vec<(String, usize)>,
    /// Count per project (`None` = global).
    pub by_project: Vec<(Option<String>, usize)>,
    /// Oldest creation time.
    pub oldest: Option<Timestamp>,
    /// Newest creation time.
    pub newest: Option<Timestamp>,
    /// Bytes on disk, where the backend knows.
    pub size_bytes: Option<u64>,
}

/// What [`Writing::insert_unless_duplicate`] did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Inserted {
    /// The memory was inserted.
    New,
    /// A near-identical memory was already stored; nothing was written.
    Duplicate {
        /// The memory already stored.
        id: MemoryId,
        /// Its exact cosine similarity with the vector offered.
        similarity: f32,
    },
}

/// Which tenants [`Reading::tenants`] lists, sorted bytewise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TenantsWith {
    /// Those with at least one memory: what a pass over memories visits
    /// (reindex, consolidation, metrics).
    Memories,
    /// Those with anything stored: memories, deletion receipts or
    /// collections (API keys name theirs: [`crate::keys::KeyStore::keys`]);
    /// what a copy of the whole store visits (migration, backup).
    Anything,
}

/// Storage for memories: the one trait every backend implements, and the
/// contract a new backend fulfils. It is made of roles, each a trait of
/// its own:
/// - [`Reading`]: fetches, listings, counts, searches, history and
///   receipts, the recorded model, the tenants;
/// - [`Writing`]: every change to memories (batches, dedup-checked
///   inserts, erasing deletes, accesses, restores) and the model record;
/// - [`Maintenance`], through [`Store::maintenance`]: housekeeping (the
///   expiry sweep, integrity checks) and the hooks a backend needs for its
///   own speed (packing, bulk loads, snapshots, caches), all with defaults
///   but the sweep;
/// - the small stores kept beside the memories: API keys, OAuth, the
///   collections and the servers' shared state.
///
/// `Reading` and `Writing` are supertraits: the engine reads and writes on
/// almost every path, and a `&dyn Store` (or `Arc<dyn Store>`) answers
/// their methods with no import; a concrete backend type answers them
/// where they are in scope (`use cairn_core::store::prelude::*`).
/// `Maintenance` is reached through an accessor instead: its dozen call
/// sites (gc, bulk imports, backups, packing, the servers' jobs) write
/// `store.maintenance().begin_bulk(n)`, which says at the call that it is
/// housekeeping, and the everyday surface stays reads and writes.
///
/// Object safe, `Send + Sync`, held as `Arc<dyn Store>`. See the module
/// docs for the sync/async decision.
///
/// # The contract
/// - **Tenants never mix.** Every read, search, count and delete names its
///   tenant (in the call or its [`Filter`]) and sees nothing of another.
/// - **Batches are atomic**, and so is [`Writing::insert_unless_duplicate`]:
///   two writers on one store (threads, processes, servers) can never both
///   insert the same memory.
/// - **Reads come in batches**: every per-memory read takes many ids, so
///   that a page of results costs one round trip to a networked database.
/// - **One dimension.** Once a model is recorded ([`Writing::set_model`]),
///   a vector of another length, written or searched, is
///   [`crate::Error::InvalidInput`].
/// - **Several processes** may share one store; each sees the others'
///   committed writes at its next call.
///
/// Backends that keep caches (SQLite's in-memory indexes) expose them
/// through [`Maintenance::caches`]; the contract holds with or without them.
pub trait Store: Reading + Writing {
    /// The store's housekeeping and backend hooks.
    fn maintenance(&self) -> &dyn Maintenance;

    /// The store's API keys (kept beside the memories, in the same file or
    /// database).
    fn key_store(&self) -> &dyn crate::keys::KeyStore;

    /// The store's OAuth clients, grants and tokens (kept beside the API
    /// keys).
    fn oauth_store(&self) -> &dyn crate::oauth::OAuthStore;

    /// The store's sessions, conversations and topics (kept beside the
    /// memories, in the same file or database).
    fn collections(&self) -> &dyn crate::collections::CollectionStore;

    /// What the servers on this store share: web UI sessions, rate
    /// buckets, job leases (kept beside the memories, so that every process
    /// on the store sees the same).
    fn shared(&self) -> &dyn crate::shared::SharedState;
}

/// The reading role of a [`Store`]: nothing here changes what is stored.
pub trait Reading: Send + Sync {
    /// The embedding model recorded for this store, if any memory was ever
    /// embedded.
    fn model(&self) -> Result<Option<ModelInfo>>;

    /// Fetch memories by id (those that exist and belong to `tenant`), in
    /// the order asked.
    fn get(&self, tenant: &str, ids: &[MemoryId]) -> Result<Vec<Memory>>;

    /// The stored embeddings of these memories of `tenant`, in the order
    /// asked (`None` for an id that is not stored).
    fn embeddings(&self, tenant: &str, ids: &[MemoryId]) -> Result<Vec<Option<Vec<f32>>>>;

    /// Ids of `tenant`'s memories whose hyphenated id starts with `prefix`
    /// (already normalised), at most `limit`.
    fn find_by_prefix(&self, tenant: &str, prefix: &str, limit: usize) -> Result<Vec<MemoryId>>;

    /// For each id, the ids of `tenant`'s memories just before and just
    /// after it in id order (the id itself left out; it need not exist).
    /// Any id sharing a prefix with an id is between them, which makes
    /// short ids one call for a whole page.
    fn id_neighbours(
        &self,
        tenant: &str,
        ids: &[MemoryId],
    ) -> Result<Vec<(Option<MemoryId>, Option<MemoryId>)>>;

    /// Memories passing `filter`, in `order`, paged.
    fn list(
        &self,
        filter: &Filter,
        order: ListOrder,
        limit: usize,
        offset: usize,
    ) -> Result<Vec<Memory>>;

    /// How many memories pass `filter`.
    fn count(&self, filter: &Filter) -> Result<usize>;

    /// Full-text (BM25, [`crate::rank::bm25_term`]) search over content,
    /// tags and metadata values.
    ///
    /// `query` is raw user text: it must never be parsed as query syntax.
    /// Terms are OR-ed (BM25 ranks memories matching more and rarer terms
    /// first); a query with no searchable term returns nothing.
    fn keyword_search(&self, query: &str, filter: &Filter, limit: usize) -> Result<Vec<Hit>>;

    /// How rare each keyword term of `query` is, as
    /// [`Reading::keyword_search`] scores it: what BM25's IDF is computed
    /// from (see [`crate::rank::bm25_idf`]). Recall weighs the keyword
    /// ranking by the share of this IDF mass its best hit matched
    /// ([`crate::rank::keyword_confidence`]).
    ///
    /// `None` (the default) when the backend does not count them; recall
    /// then fuses with fixed weights.
    fn keyword_rarity(&self, query: &str) -> Result<Option<TermRarity>> {
        let _ = query;
        Ok(None)
    }

    /// The memories most similar to `vector` (cosine, best first). An
    /// index may approximate: a memory it misses is one recall does not
    /// return.
    fn vector_search(&self, vector: &[f32], filter: &Filter, limit: usize) -> Result<Vec<Hit>>;

    /// As [`Reading::vector_search`], but every memory the filter admits
    /// is compared: nothing is left out by an approximate index. Dedup,
    /// contradiction and novelty checks read this, so that a duplicate is
    /// never stored twice because an index missed it. No default: a
    /// backend whose `vector_search` is exact says so by calling it.
    fn vector_search_exact(
        &self,
        vector: &[f32],
        filter: &Filter,
        limit: usize,
    ) -> Result<Vec<Hit>>;

    /// Every version of each of these memories of `tenant`, in the order
    /// asked (oldest first; empty for an id that is not stored). One
    /// memory's: `histories(tenant, &[id])`.
    fn histories(&self, tenant: &str, ids: &[MemoryId]) -> Result<Vec<Vec<Version>>>;

    /// `tenant`'s deletion receipts whose hyphenated id starts with
    /// `prefix` (already normalised; empty = all), in id order, at most
    /// `limit`.
    fn receipts(&self, tenant: &str, prefix: &str, limit: usize) -> Result<Vec<DeletionReceipt>>;

    /// The tenants `with` memories, or with anything stored, sorted
    /// bytewise.
    fn tenants(&self, with: TenantsWith) -> Result<Vec<String>>;

    /// Counts for `tenant`.
    fn stats(&self, tenant: &str, now: Timestamp) -> Result<StoreStats>;
}

/// The writing role of a [`Store`]: every change to the memories, their
/// versions and receipts, and the recorded model.
pub trait Writing: Send + Sync {
    /// Record the embedding model (first write, or after a reindex).
    fn set_model(&self, model: &ModelInfo) -> Result<()>;

    /// Apply a batch of inserts and updates atomically. An insert whose id
    /// is stored is [`crate::Error::DuplicateId`], and nothing is written.
    fn write(&self, batch: WriteBatch) -> Result<()>;

    /// Insert `memory` unless a near-duplicate is stored: a live memory
    /// (not expired, not superseded) of the same tenant, type, project and
    /// slot (both in no slot, or in the same one) whose stored embedding
    /// has a cosine of at least `threshold` with `vector`. The check and
    /// the insert are one transaction, so concurrent writers of the same
    /// text leave one memory. An inserted memory gets its first version
    /// ([`crate::history::ChangeKind::Created`] by `actor`, at its
    /// `updated_at`) in the same transaction.
    fn insert_unless_duplicate(
        &self,
        memory: Memory,
        vector: Vec<f32>,
        threshold: f32,
        actor: &str,
    ) -> Result<Inserted>;

    /// Delete these memories of `tenant` for good: their rows, versions,
    /// embeddings and index entries, leaving a [`DeletionReceipt`] each.
    /// Returns how many existed. Nothing of their content may remain in
    /// the store's files once the backend has reclaimed its space.
    fn delete(&self, tenant: &str, ids: &[MemoryId], deletion: &Deletion) -> Result<usize>;

    /// Count one access of each memory at `at`.
    fn record_access(&self, tenant: &str, ids: &[MemoryId], at: Timestamp) -> Result<()>;

    /// Count each access of `batch` (the engine's batched access log):
    /// the same effect as [`Writing::record_access`] for each in turn. The
    /// default does just that; a backend that can writes the whole batch
    /// in one transaction.
    fn record_accesses(&self, batch: &[Access]) -> Result<()> {
        for a in batch {
            self.record_access(&a.tenant, &a.ids, a.at)?;
        }
        Ok(())
    }

    /// Write records copied from another store exactly as they were, in
    /// one transaction: memories with their ids, times, embeddings and
    /// versions (numbers, kinds, actors, reasons, times and states kept),
    /// and deletion receipts. A memory whose id is stored is
    /// [`crate::Error::DuplicateId`] and nothing is written; a vector of
    /// another dimension than the recorded model's is
    /// [`crate::Error::InvalidInput`].
    fn restore(&self, batch: Restore) -> Result<()>;
}

/// The maintenance role of a [`Store`], reached through
/// [`Store::maintenance`]: housekeeping, and the hooks a backend needs for
/// its own speed or safety. Every hook has a default that is correct for
/// a backend without the need (it does nothing, or answers "cannot"); the
/// expiry sweep has none, since a default that did nothing would keep
/// expired memories for ever.
pub trait Maintenance: Send + Sync {
    /// [`Writing::delete`] every memory (of any tenant) that expired at or
    /// before `now` (the receipts say [`crate::history::SYSTEM_ACTOR`],
    /// `expired`); returns how many.
    fn delete_expired(&self, now: Timestamp) -> Result<usize>;

    /// Check the store's own consistency (SQLite: `PRAGMA integrity_check`).
    /// An error describes the damage.
    fn verify(&self) -> Result<()> {
        Ok(())
    }

    /// Keep the text of `tenant`'s memories `ids` compressed at rest
    /// (`pack`), or plain again, without changing the text, the indexes or
    /// the history ([`crate::packing`]). Answers, for each memory whose
    /// text is (`pack`) or was (unpacking) kept compressed, its sizes and
    /// algorithm. A backend that compresses long text by itself
    /// (PostgreSQL) answers what it did; one that keeps text only as it is
    /// (the in-memory store) answers nothing.
    fn pack_contents(&self, tenant: &str, ids: &[MemoryId], pack: bool) -> Result<Vec<Packed>> {
        let _ = (tenant, ids, pack);
        Ok(Vec::new())
    }

    /// A bulk load of about `rows` new memories begins (a large import or
    /// migration): the backend may put off index maintenance until
    /// [`Maintenance::end_bulk`] (PostgreSQL builds its vector index once
    /// instead of row by row). Every call answers correctly meanwhile,
    /// if more slowly; a process that dies before `end_bulk` loses
    /// nothing (the next process to open the store finishes the work).
    /// Default: nothing.
    fn begin_bulk(&self, rows: usize) -> Result<()> {
        let _ = rows;
        Ok(())
    }

    /// The bulk load [`Maintenance::begin_bulk`] announced is over (also
    /// after it failed): bring the indexes (and the planner's statistics)
    /// up to date. Default: nothing.
    fn end_bulk(&self) -> Result<()> {
        Ok(())
    }

    /// Write a consistent copy of the whole store, as it stands at one
    /// instant, into the empty file `path`, while other connections go on
    /// writing (SQLite: `VACUUM INTO`), and answer `true`; a backend that
    /// cannot answers `false` (the default) and writes nothing, and
    /// [`crate::api::backup`] copies it record by record instead.
    fn snapshot_into(&self, path: &std::path::Path) -> Result<bool> {
        let _ = path;
        Ok(false)
    }

    /// The store's caches, if it keeps any.
    fn caches(&self) -> Option<&dyn StoreCaches> {
        None
    }
}

/// Caches a backend keeps to answer faster (SQLite: the in-memory vector
/// and keyword indexes and a packed snapshot of the former), reached
/// through [`Maintenance::caches`]. Optional: searches give the same
/// results whether or not these are called.
pub trait StoreCaches: Send + Sync {
    /// Load what vector search needs into memory, so that the first search
    /// does not pay for it. Called on another thread while the query is
    /// being embedded, so it must not hold up other calls; cheap once done.
    fn warm_up(&self) -> Result<()>;

    /// Build everything a long-running process (a server) answers faster
    /// with, beyond what [`StoreCaches::warm_up`] loads. It may take
    /// seconds on a large store, so servers call it once in the
    /// background; one-shot commands do not.
    fn preload(&self) -> Result<()>;

    /// Save what lets the next process open this store faster, if enough
    /// has changed since it was saved for that to pay off. It can take a
    /// while when it does save, so one-shot commands call it after
    /// answering and servers from time to time in the background.
    fn save_caches(&self) -> Result<()>;
}

/// The store's traits, for `use cairn_core::store::prelude::*` where a
/// concrete backend type (not `dyn Store`) is called.
pub mod prelude {
    pub use super::{Maintenance, Reading, Store, StoreCaches, Writing};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slot_admission() {
        let names = |n: &[&str]| n.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let cases = [
            // (slots, hidden, the memory's slot, admitted)
            (names(&[]), names(&[]), None, true),
            (names(&[]), names(&[]), Some("inbox"), true),
            (names(&["inbox", "work"]), names(&[]), Some("work"), true),
            (names(&["inbox"]), names(&[]), Some("work"), false),
            (names(&["inbox"]), names(&[]), None, false),
            (names(&[]), names(&["archive"]), None, true),
            (names(&[]), names(&["archive"]), Some("inbox"), true),
            (names(&[]), names(&["archive"]), Some("archive"), false),
            (
                names(&["archive"]),
                names(&["archive"]),
                Some("archive"),
                false,
            ),
            (names(&["inbox"]), names(&["Inbox"]), Some("inbox"), true),
        ];
        for (slots, hidden, slot, admitted) in cases {
            assert_eq!(
                slots_admit(&slots, &hidden, slot),
                admitted,
                "{slots:?} / {hidden:?} / {slot:?}"
            );
        }
    }

    #[test]
    fn scope_admission() {
        let p = ScopeFilter::Project("atlas".into());
        assert!(p.admits(None));
        assert!(p.admits(Some("atlas")));
        assert!(!p.admits(Some("other")));
        assert!(ScopeFilter::Global.admits(None));
        assert!(!ScopeFilter::Global.admits(Some("atlas")));
        assert!(!ScopeFilter::Exactly(Some("atlas".into())).admits(None));
        assert!(ScopeFilter::All.admits(Some("x")));
    }
}
