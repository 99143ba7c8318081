//! The engine: remember, recall, update, forget, import, export — the
//! operations every front end offers, written once over a [`Store`] and an
//! [`Embedder`].

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::memory::{
    normalize_id_prefix, normalize_project, normalize_tags, validate_content, validate_unit,
    Memory, MemoryId, MemoryType, Tier, Timestamp,
};
use crate::rank::{
    access_boost, classify_similarity, cosine, recency_decay, reciprocal_rank_fusion, scope_weight,
    Fusion, ScoreBreakdown, Similarity,
};
use crate::store::{Filter, Hit, ListOrder, ScopeFilter, Store, StoreStats, WriteBatch};
use crate::wire::MemoryRecord;
use crate::{Embedder, Error, ModelInfo, Result};

/// A source of the current time (ms since epoch); swappable in tests.
pub type Clock = Arc<dyn Fn() -> Timestamp + Send + Sync>;

/// The weight a superseded memory keeps.
pub const SUPERSEDED_WEIGHT: f64 = 0.1;

/// The most results one recall may ask for.
pub const MAX_RECALL_LIMIT: usize = 1000;

/// Cairn's engine. Cheap to clone; share one per process.
#[derive(Clone)]
pub struct Cairn {
    store: Arc<dyn Store>,
    embedder: Arc<dyn Embedder>,
    clock: Clock,
    fusion: Fusion,
}

/// How recall finds candidates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SearchMode {
    /// BM25 and vector candidates fused by RRF (default).
    #[default]
    Hybrid,
    /// BM25 only.
    Keyword,
    /// Vector similarity only.
    Semantic,
}

impl SearchMode {
    /// Every mode.
    pub const ALL: [SearchMode; 3] = [
        SearchMode::Keyword,
        SearchMode::Semantic,
        SearchMode::Hybrid,
    ];

    /// The mode's name, as parsed by `from_str`.
    pub fn as_str(self) -> &'static str {
        match self {
            SearchMode::Hybrid => "hybrid",
            SearchMode::Keyword => "keyword",
            SearchMode::Semantic => "semantic",
        }
    }
}

impl std::str::FromStr for SearchMode {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "hybrid" => Ok(SearchMode::Hybrid),
            "keyword" | "bm25" => Ok(SearchMode::Keyword),
            "semantic" | "vector" => Ok(SearchMode::Semantic),
            _ => Err(Error::invalid(format!(
                "unknown search mode `{s}`; use hybrid, keyword or semantic"
            ))),
        }
    }
}

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
    pub dedup: bool,
    /// Origin; default `manual`.
    pub source: Option<String>,
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
            source: None,
        }
    }
}

/// Whether a write created a memory or merged into an existing one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum WriteStatus {
    /// A new memory.
    Created,
    /// Merged into a near-identical memory (cosine ≥ 0.92), whose id is kept.
    Deduplicated,
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
}

/// What to recall.
#[derive(Debug, Clone)]
pub struct RecallRequest {
    /// The question or keywords.
    pub query: String,
    /// Which memories may be returned (tenant, scope, types, tags, times,
    /// expired/superseded). Its `now` is set by the engine.
    pub filter: Filter,
    /// How many results (1–1000).
    pub limit: usize,
    /// Hybrid, keyword or semantic.
    pub mode: SearchMode,
}

impl RecallRequest {
    /// A hybrid recall of 10 results among `tenant`'s global memories.
    pub fn new(tenant: impl Into<String>, query: impl Into<String>) -> Self {
        RecallRequest {
            query: query.into(),
            filter: Filter::new(tenant, 0),
            limit: 10,
            mode: SearchMode::Hybrid,
        }
    }
}

/// One recalled memory with its score and every factor of it.
#[derive(Debug, Clone)]
pub struct Recalled {
    /// The memory (as it was before this recall counted as an access).
    pub memory: Memory,
    /// Every factor of the score; `explain.score` is the final score.
    pub explain: ScoreBreakdown,
}

/// Changes to a memory; `None` leaves a field as it is.
#[derive(Debug, Clone, Default)]
pub struct UpdateRequest {
    /// New text.
    pub content: Option<String>,
    /// New type.
    pub kind: Option<MemoryType>,
    /// New scope (`Some(None)` = make global).
    pub project: Option<Option<String>>,
    /// Replace all tags.
    pub tags: Option<Vec<String>>,
    /// Add these tags.
    pub add_tags: Vec<String>,
    /// Remove these tags.
    pub remove_tags: Vec<String>,
    /// Merge into metadata; a `null` value removes the key.
    pub metadata: Option<Map<String, Value>>,
    /// New importance.
    pub importance: Option<f64>,
    /// New weight.
    pub weight: Option<f64>,
    /// New TTL from now (ms).
    pub ttl_ms: Option<i64>,
    /// Remove the TTL.
    pub clear_ttl: bool,
}

/// What an import did.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct ImportReport {
    /// Memories written.
    pub imported: usize,
    /// Records whose id was already in the store (left as they were).
    pub skipped_existing: usize,
    /// Records embedded during the import (the others carried embeddings).
    pub embedded: usize,
    /// Bad records: (line number, problem). Skipped unless strict.
    pub errors: Vec<(usize, String)>,
}

/// Embedding batch size for imports and reindexing.
const EMBED_BATCH: usize = 256;

/// Records per transaction when importing records that carry embeddings.
const WRITE_BATCH: usize = 8192;

impl Cairn {
    /// An engine over `store` and `embedder`, using the system clock.
    pub fn new(store: Arc<dyn Store>, embedder: Arc<dyn Embedder>) -> Self {
        Cairn {
            store,
            embedder,
            clock: Arc::new(crate::time::now),
            fusion: Fusion::default(),
        }
    }

    /// Replace the fusion parameters (ranking experiments).
    pub fn with_fusion(mut self, fusion: Fusion) -> Self {
        self.fusion = fusion;
        self
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

    /// Check that the store's vectors were made by this engine's embedder,
    /// recording the model on first use.
    fn ensure_model(&self) -> Result<()> {
        let current = self.embedder.model();
        match self.store.model()? {
            None => self.store.set_model(&current),
            Some(stored) if stored == current => Ok(()),
            Some(stored) => Err(Error::ModelMismatch {
                stored: stored.to_string(),
                current: current.to_string(),
            }),
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
        let full = id.to_string();
        // Only the neighbours in id order can share a longer prefix than
        // any other id.
        let (before, after) = self.store.id_neighbours(tenant, id)?;
        let shared = [before, after]
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
        Ok(
            match [8, 11, 13, 16, 18, 21, 23, 28]
                .into_iter()
                .find(|&len| len >= min && len > shared)
            {
                Some(len) => full[..len].to_string(),
                None => full,
            },
        )
    }

    fn load(&self, tenant: &str, id: MemoryId) -> Result<Memory> {
        self.store
            .get(tenant, &[id])?
            .pop()
            .ok_or_else(|| Error::NotFound(id.to_string()))
    }

    /// Read one memory (counts as an access).
    pub fn get(&self, tenant: &str, id_or_prefix: &str) -> Result<Memory> {
        let id = self.resolve(tenant, id_or_prefix)?;
        let memory = self.load(tenant, id)?;
        self.store.record_access(tenant, &[id], self.now())?;
        Ok(memory)
    }

    /// Store a memory: dedup against near-identical memories, warn about
    /// related ones, and apply `supersedes`.
    pub fn remember(&self, req: RememberRequest) -> Result<RememberOutcome> {
        validate_content(&req.content)?;
        let tags = normalize_tags(&req.tags)?;
        let project = req.project.as_deref().map(normalize_project).transpose()?;
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
        self.ensure_model()?;
        let vector = self.embed_one(&req.content)?;

        // Memories the new one may duplicate or contradict: the same tenant,
        // in the scopes a recall from this scope sees.
        let mut filter = Filter::new(&req.tenant, now);
        filter.scope = match &project {
            Some(p) => ScopeFilter::Project(p.clone()),
            None => ScopeFilter::Global,
        };
        let hits = self.store.vector_search(&vector, &filter, 8)?;
        let neighbours = self.exact_similarities(&req.tenant, &vector, &hits)?;

        // Episodes record distinct events: two identical turns at different
        // times are two memories, never merged. Superseding writes are
        // explicit replacements, never merged either.
        let may_dedup = req.dedup && req.kind.tier() != Tier::Episodic && old.is_none();
        if may_dedup {
            if let Some((existing, _)) = neighbours.iter().find(|(m, sim)| {
                m.kind == req.kind
                    && m.project == project
                    && classify_similarity(*sim) == Similarity::Duplicate
            }) {
                let mut merged = existing.clone();
                merged.content = req.content.clone();
                merged.tags = normalize_tags(existing.tags.iter().chain(&tags))?;
                for (k, v) in &req.metadata {
                    merged.metadata.insert(k.clone(), v.clone());
                }
                if let Some(i) = req.importance {
                    merged.importance = i;
                }
                if let Some(ttl) = req.ttl_ms {
                    merged.expires_at = Some(now + ttl);
                }
                merged.updated_at = now;
                let id = merged.id;
                self.store.write(WriteBatch {
                    inserts: vec![],
                    updates: vec![(merged, Some(vector))],
                })?;
                return Ok(RememberOutcome {
                    id,
                    status: WriteStatus::Deduplicated,
                    similar: Vec::new(),
                    superseded: None,
                });
            }
        }

        let id = MemoryId::new_at(now);
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
            created_at: now,
            updated_at: now,
            last_accessed_at: None,
            access_count: 0,
            expires_at: req.ttl_ms.map(|t| now + t),
            valid_from: None,
            valid_to: None,
            supersedes: old.as_ref().map(|o| o.id),
            superseded_by: None,
        };
        let mut batch = WriteBatch {
            inserts: vec![(memory, vector)],
            updates: vec![],
        };
        if let Some(o) = &old {
            batch.updates.push((superseded(o.clone(), id, now), None));
        }
        self.store.write(batch)?;
        let similar = neighbours
            .into_iter()
            .filter(|(m, sim)| {
                Some(m.id) != old.as_ref().map(|o| o.id)
                    && classify_similarity(*sim) != Similarity::Unrelated
            })
            .map(|(m, sim)| SimilarMemory {
                id: m.id,
                kind: m.kind,
                content: m.content,
                similarity: sim,
            })
            .collect();
        Ok(RememberOutcome {
            id,
            status: WriteStatus::Created,
            similar,
            superseded: old.map(|o| o.id),
        })
    }

    /// Exact cosines between `vector` and the stored embeddings of `hits`,
    /// with the memories, best first.
    fn exact_similarities(
        &self,
        tenant: &str,
        vector: &[f32],
        hits: &[Hit],
    ) -> Result<Vec<(Memory, f32)>> {
        let ids: Vec<MemoryId> = hits.iter().map(|h| h.id).collect();
        let mut out = Vec::with_capacity(ids.len());
        for m in self.store.get(tenant, &ids)? {
            if let Some(e) = self.store.embedding(tenant, m.id)? {
                let sim = cosine(vector, &e);
                out.push((m, sim));
            }
        }
        out.sort_by(|a, b| b.1.total_cmp(&a.1));
        Ok(out)
    }

    /// Replace `old` by a new memory: `req.supersedes` is set to `old`.
    pub fn supersede(&self, old: &str, mut req: RememberRequest) -> Result<RememberOutcome> {
        req.supersedes = Some(old.to_string());
        self.remember(req)
    }

    /// Ranked memories for a query, without counting an access.
    pub fn search(&self, req: &RecallRequest) -> Result<Vec<Recalled>> {
        if req.limit == 0 || req.limit > MAX_RECALL_LIMIT {
            return Err(Error::invalid(format!(
                "limit must be between 1 and {MAX_RECALL_LIMIT}, got {}",
                req.limit
            )));
        }
        if req.query.trim().is_empty() {
            return Err(Error::invalid("the query is empty: say what to look for"));
        }
        let now = self.now();
        let mut filter = req.filter.clone();
        filter.now = now;
        filter.tags = normalize_tags(&filter.tags)?;
        let candidates = req.limit * self.fusion.candidates_per_result;
        if req.mode != SearchMode::Keyword {
            self.ensure_model()?;
        }
        let keyword_side = || self.store.keyword_search(&req.query, &filter, candidates);
        let vector_side =
            |query_vector: Vec<f32>| self.store.vector_search(&query_vector, &filter, candidates);
        // The sides are independent: while this thread embeds the query,
        // another loads the vector index (the first search of a process) and
        // then, in hybrid mode, runs BM25.
        let (keyword, vector) = match req.mode {
            SearchMode::Keyword => (keyword_side()?, Vec::new()),
            mode => std::thread::scope(|scope| {
                let other = scope.spawn(|| {
                    self.store.warm_up()?;
                    match mode {
                        SearchMode::Hybrid => keyword_side(),
                        _ => Ok(Vec::new()),
                    }
                });
                let vector = self.embed_one(&req.query).and_then(vector_side);
                let keyword = other
                    .join()
                    .unwrap_or_else(|_| Err(Error::storage("keyword search panicked")));
                Ok::<_, Error>((keyword?, vector?))
            })?,
        };
        let keyword_ids: Vec<MemoryId> = keyword.iter().map(|h| h.id).collect();
        let vector_ids: Vec<MemoryId> = vector.iter().map(|h| h.id).collect();
        let fused = reciprocal_rank_fusion(
            &[
                (&keyword_ids, self.fusion.keyword_weight),
                (&vector_ids, self.fusion.vector_weight),
            ],
            self.fusion.k,
        );
        // Every candidate is ranked on the factors its hit carries; only
        // the memories returned are read whole.
        let position = |hits: &[Hit], id: MemoryId| hits.iter().position(|h| h.id == id);
        let mut ranked: Vec<(MemoryId, ScoreBreakdown)> = fused
            .into_iter()
            .filter_map(|(id, rrf)| {
                let k = position(&keyword, id);
                let v = position(&vector, id);
                let f = k.map(|i| keyword[i]).or(v.map(|i| vector[i]))?.factors;
                let mut explain = ScoreBreakdown {
                    bm25_rank: k.map(|i| i + 1),
                    bm25_score: k.map(|i| keyword[i].score),
                    vector_rank: v.map(|i| i + 1),
                    cosine: v.map(|i| vector[i].score),
                    rrf,
                    boost: access_boost(f.access_count),
                    decay: recency_decay(f.last_accessed_at, now),
                    scope_weight: scope_weight(f.global),
                    weight: f.weight,
                    score: 0.0,
                };
                explain.combine();
                Some((id, explain))
            })
            .collect();
        ranked.sort_by(|(a_id, a), (b_id, b)| b.score.total_cmp(&a.score).then(b_id.cmp(a_id)));
        // Read the best `limit`; a memory deleted meanwhile by another
        // process is replaced by the next candidate.
        let mut results = Vec::with_capacity(req.limit);
        let mut next = ranked.into_iter();
        loop {
            let batch: Vec<(MemoryId, ScoreBreakdown)> =
                next.by_ref().take(req.limit - results.len()).collect();
            if batch.is_empty() {
                break;
            }
            let ids: Vec<MemoryId> = batch.iter().map(|(id, _)| *id).collect();
            let mut memories: HashMap<MemoryId, Memory> = self
                .store
                .get(&filter.tenant, &ids)?
                .into_iter()
                .map(|m| (m.id, m))
                .collect();
            results.extend(batch.into_iter().filter_map(|(id, explain)| {
                Some(Recalled {
                    memory: memories.remove(&id)?,
                    explain,
                })
            }));
        }
        Ok(results)
    }

    /// Ranked memories for a query; each one returned counts as an access.
    pub fn recall(&self, req: &RecallRequest) -> Result<Vec<Recalled>> {
        let results = self.search(req)?;
        let ids: Vec<MemoryId> = results.iter().map(|r| r.memory.id).collect();
        if !ids.is_empty() {
            self.store
                .record_access(&req.filter.tenant, &ids, self.now())?;
        }
        Ok(results)
    }

    /// Change a memory. A content change re-embeds it; every change
    /// re-indexes it for keyword search (tags and metadata are searchable).
    pub fn update(&self, tenant: &str, id_or_prefix: &str, req: UpdateRequest) -> Result<Memory> {
        let id = self.resolve(tenant, id_or_prefix)?;
        let mut m = self.load(tenant, id)?;
        let now = self.now();
        let mut reembed = false;
        if let Some(c) = req.content {
            validate_content(&c)?;
            reembed |= c != m.content;
            m.content = c;
        }
        if let Some(k) = req.kind {
            m.kind = k;
        }
        if let Some(p) = req.project {
            m.project = p.as_deref().map(normalize_project).transpose()?;
        }
        let mut tags = match req.tags {
            Some(t) => normalize_tags(&t)?,
            None => m.tags.clone(),
        };
        tags.extend(normalize_tags(&req.add_tags)?);
        let remove = normalize_tags(&req.remove_tags)?;
        tags.retain(|t| !remove.contains(t));
        let tags = normalize_tags(&tags)?;
        m.tags = tags;
        if let Some(meta) = req.metadata {
            for (k, v) in meta {
                if v.is_null() {
                    m.metadata.remove(&k);
                } else {
                    m.metadata.insert(k, v);
                }
            }
        }
        if let Some(i) = req.importance {
            validate_unit("importance", i)?;
            m.importance = i;
        }
        if let Some(w) = req.weight {
            if !(0.0..=100.0).contains(&w) {
                return Err(Error::invalid(format!(
                    "weight must be between 0 and 100, got {w}"
                )));
            }
            m.weight = w;
        }
        if req.clear_ttl {
            m.expires_at = None;
        }
        if let Some(ttl) = req.ttl_ms {
            m.expires_at = Some(now + ttl);
        }
        m.updated_at = now;
        let vector = if reembed {
            self.ensure_model()?;
            Some(self.embed_one(m.embedding_text())?)
        } else {
            None
        };
        self.store.write(WriteBatch {
            inserts: vec![],
            updates: vec![(m.clone(), vector)],
        })?;
        Ok(m)
    }

    /// Delete memories by id or prefix; every id is resolved before anything
    /// is deleted, so one bad id deletes nothing.
    pub fn forget(&self, tenant: &str, ids_or_prefixes: &[String]) -> Result<Vec<MemoryId>> {
        let ids = ids_or_prefixes
            .iter()
            .map(|s| self.resolve(tenant, s))
            .collect::<Result<Vec<_>>>()?;
        self.store.delete(tenant, &ids)?;
        Ok(ids)
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

    /// A filter for `tenant` at the engine's current time.
    pub fn filter(&self, tenant: &str) -> Filter {
        Filter::new(tenant, self.now())
    }

    /// Delete every memory passing `filter`; returns their ids.
    pub fn forget_matching(&self, filter: &Filter) -> Result<Vec<MemoryId>> {
        let ids: Vec<MemoryId> = self
            .store
            .list(filter, ListOrder::Oldest, usize::MAX, 0)?
            .into_iter()
            .map(|m| m.id)
            .collect();
        self.store.delete(&filter.tenant, &ids)?;
        Ok(ids)
    }

    /// Import records (line number, parsed record or parse error).
    ///
    /// Ids and times are preserved; a record whose id is already stored is
    /// skipped. Bad records are reported with their line number and skipped;
    /// with `strict`, any bad record refuses the whole import before anything
    /// is written. Records without an `embedding` are embedded in batches.
    ///
    /// The records are taken as they come (a stream, such as
    /// [`crate::wire::JsonLines`], is written while it is still being read)
    /// and written a transaction at a time, so an import that stops halfway
    /// leaves whole transactions, and run again it skips the records whose
    /// id is stored. `strict` takes them all first. `progress` is told how
    /// many records are done.
    pub fn import(
        &self,
        tenant: &str,
        records: impl IntoIterator<Item = (usize, Result<MemoryRecord>)>,
        strict: bool,
        progress: &mut dyn FnMut(usize),
    ) -> Result<ImportReport> {
        let now = self.now();
        let dim = self.embedder.model().dim;
        let mut errors = Vec::new();
        let mut seen = std::collections::HashSet::new();
        // Each valid record, with whether it named its id (only those can
        // already be stored: a new id is a fresh UUIDv7).
        let valid = records.into_iter().filter_map(|(line, record)| {
            let checked = record.and_then(|r| {
                let named = r.id.is_some();
                let (m, e) = r.into_memory(tenant, now)?;
                if let Some(e) = &e {
                    if e.len() != dim {
                        return Err(Error::invalid(format!(
                            "embedding has {} dimensions; this store uses {dim}",
                            e.len()
                        )));
                    }
                    if let Some(x) = e.iter().find(|x| !x.is_finite()) {
                        return Err(Error::invalid(format!(
                            "embedding has a value that is not a finite number ({x})"
                        )));
                    }
                }
                if !seen.insert(m.id) {
                    return Err(Error::invalid(format!(
                        "id {} appears twice in the input",
                        m.id
                    )));
                }
                Ok((m, e, named))
            });
            checked.map_err(|e| errors.push((line, e.to_string()))).ok()
        });
        let mut report = if strict {
            let valid: Vec<_> = valid.collect();
            if let Some((line, msg)) = errors.first() {
                return Err(Error::invalid(format!(
                    "line {line}: {msg} ({} bad line(s) in all; --strict imports nothing)",
                    errors.len()
                )));
            }
            self.write_imported(tenant, valid.into_iter(), progress)?
        } else {
            self.write_imported(tenant, valid, progress)?
        };
        report.errors = errors;
        Ok(report)
    }

    /// The writing half of [`Cairn::import`]: valid records (memory,
    /// embedding if given, whether it named its id), a transaction at a time.
    fn write_imported(
        &self,
        tenant: &str,
        records: impl Iterator<Item = (Memory, Option<Vec<f32>>, bool)>,
        progress: &mut dyn FnMut(usize),
    ) -> Result<ImportReport> {
        let mut report = ImportReport::default();
        let mut records = records.peekable();
        if records.peek().is_some() {
            self.ensure_model()?;
        }
        let mut done = 0;
        while records.peek().is_some() {
            // Pre-embedded records go in big transactions, which spend less
            // on commits and index merges; those to embed a model batch at a
            // time (so that progress moves).
            let mut chunk = Vec::new();
            let mut to_embed = 0;
            while chunk.len() < WRITE_BATCH && to_embed < EMBED_BATCH {
                let Some(record) = records.next() else { break };
                to_embed += usize::from(record.1.is_none());
                chunk.push(record);
            }
            done += chunk.len();
            let named: Vec<MemoryId> = chunk
                .iter()
                .filter(|(_, _, named)| *named)
                .map(|(m, _, _)| m.id)
                .collect();
            let existing: std::collections::HashSet<MemoryId> = if named.is_empty() {
                Default::default()
            } else {
                self.store
                    .get(tenant, &named)?
                    .into_iter()
                    .map(|m| m.id)
                    .collect()
            };
            let fresh: Vec<(Memory, Option<Vec<f32>>)> = chunk
                .into_iter()
                .filter(|(m, _, _)| !existing.contains(&m.id))
                .map(|(m, e, _)| (m, e))
                .collect();
            report.skipped_existing += existing.len();
            let refs: Vec<&str> = fresh
                .iter()
                .filter(|(_, e)| e.is_none())
                .map(|(m, _)| m.embedding_text())
                .collect();
            let mut computed = if refs.is_empty() {
                Vec::new()
            } else {
                self.embedder.embed_batch(&refs)?
            }
            .into_iter();
            report.embedded += refs.len();
            let mut batch = WriteBatch::default();
            for (m, e) in fresh {
                let v = match e {
                    Some(v) => v,
                    None => computed
                        .next()
                        .ok_or_else(|| Error::embedding("embedder returned too few vectors"))?,
                };
                batch.inserts.push((m, v));
            }
            report.imported += batch.inserts.len();
            self.link_supersessions(tenant, &mut batch)?;
            self.store.write(batch)?;
            progress(done);
        }
        Ok(report)
    }

    /// For each inserted memory that names a memory it supersedes, mark that
    /// one superseded (unless it already says so), in the same batch.
    fn link_supersessions(&self, tenant: &str, batch: &mut WriteBatch) -> Result<()> {
        let links: Vec<(MemoryId, MemoryId, Timestamp)> = batch
            .inserts
            .iter()
            .filter_map(|(m, _)| m.supersedes.map(|old| (old, m.id, m.created_at)))
            .collect();
        for (old, new, at) in links {
            if let Some((m, _)) = batch.inserts.iter_mut().find(|(m, _)| m.id == old) {
                if m.superseded_by.is_none() {
                    *m = superseded(m.clone(), new, at);
                }
            } else if let Some(m) = self.store.get(tenant, &[old])?.pop() {
                if m.superseded_by.is_none() {
                    batch.updates.push((superseded(m, new, at), None));
                }
            }
        }
        Ok(())
    }

    /// Every memory of `tenant` (expired and superseded included), in id
    /// order, as wire records; with `embeddings`, each carries its vector.
    pub fn export(
        &self,
        tenant: &str,
        embeddings: bool,
        sink: &mut dyn FnMut(MemoryRecord) -> Result<()>,
    ) -> Result<usize> {
        self.for_each_page(self.filter(tenant).everything(), 1000, &mut |page| {
            for m in &page {
                let mut record = MemoryRecord::from_memory(m);
                if embeddings {
                    record.embedding = self.store.embedding(tenant, m.id)?;
                }
                sink(record)?;
            }
            Ok(())
        })
    }

    /// Every memory passing `filter`, in id order, handed to `f` a page of
    /// `size` at a time (memory stays bounded, and a page costs its own
    /// rows: see [`Filter::after`]); returns how many there were.
    fn for_each_page(
        &self,
        mut filter: Filter,
        size: usize,
        f: &mut dyn FnMut(Vec<Memory>) -> Result<()>,
    ) -> Result<usize> {
        let mut count = 0;
        loop {
            let page = self.store.list(&filter, ListOrder::Id, size, 0)?;
            let (len, last) = (page.len(), page.last().map(|m| m.id));
            if len > 0 {
                f(page)?;
            }
            count += len;
            match last {
                Some(last) if len == size => filter.after = Some(last),
                _ => return Ok(count),
            }
        }
    }

    /// Counts for `tenant`, and the store's model.
    pub fn stats(&self, tenant: &str) -> Result<(StoreStats, Option<ModelInfo>)> {
        Ok((self.store.stats(tenant, self.now())?, self.store.model()?))
    }

    /// Delete expired memories (all tenants); returns how many.
    pub fn gc(&self) -> Result<usize> {
        self.store.delete_expired(self.now())
    }

    /// Re-embed every memory of every tenant with this engine's embedder and
    /// record its model. A model batch is read, embedded and written at a
    /// time, so memory stays bounded and a memory another process changes
    /// meanwhile is overwritten by at most one batch's stale copy.
    /// `progress(done, total)` is called after each batch.
    pub fn reindex(&self, progress: &mut dyn FnMut(usize, usize)) -> Result<usize> {
        let filters = self
            .store
            .tenants()?
            .into_iter()
            .map(|t| self.filter(&t).everything())
            .collect::<Vec<_>>();
        let total = filters
            .iter()
            .map(|f| self.store.count(f))
            .sum::<Result<usize>>()?;
        let mut done = 0;
        for filter in filters {
            self.for_each_page(filter, EMBED_BATCH, &mut |page| {
                let refs: Vec<&str> = page.iter().map(Memory::embedding_text).collect();
                let vectors = self.embedder.embed_batch(&refs)?;
                done += page.len();
                let updates = page
                    .into_iter()
                    .zip(vectors.into_iter().map(Some))
                    .collect();
                self.store.write(WriteBatch {
                    inserts: vec![],
                    updates,
                })?;
                progress(done, total.max(done));
                Ok(())
            })?;
        }
        self.store.set_model(&self.embedder.model())?;
        Ok(done)
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
