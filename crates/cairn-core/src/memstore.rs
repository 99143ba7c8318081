//! [`MemoryStore`]: a `Store` held in RAM.
//!
//! For tests, for ephemeral agents, and as the reference the conformance
//! suite checks other backends against. Exact (brute-force) vector search,
//! and BM25 scored as SQLite's FTS5 scores it (`rank::bm25_term`, the same
//! field weights, row count and average length over every stored memory).
//! Words are split and lowercased as FTS5's `unicode61` does, but not
//! stemmed: SQLite's `porter` tokenizer also matches `deploys` with
//! `deploy`, which this store does not. Nothing survives the process.

use std::collections::{BTreeMap, HashSet};
use std::sync::RwLock;

use crate::collections::{CollectionKind, CollectionRecord, CollectionStore};
use crate::history::{Change, ChangeKind, Deletion, DeletionReceipt, Version};
use crate::keys::{ApiKey, KeyStore};
use crate::memory::{Memory, MemoryId, Timestamp};
use crate::rank::{bm25_term, cosine, BM25_FIELD_WEIGHTS};
use crate::store::{
    keyword_terms, query_terms, Filter, Filterable, Hit, Inserted, ListOrder, Maintenance,
    RankFactors, Reading, Store, StoreStats, TenantsWith, TermRarity, WriteBatch, Writing,
};
use crate::{Error, ModelInfo, Result};

#[derive(Default)]
struct State {
    model: Option<ModelInfo>,
    memories: BTreeMap<MemoryId, (Memory, Vec<f32>)>,
    versions: BTreeMap<MemoryId, Vec<Version>>,
    /// By tenant and id: an id freed by a deletion may be taken by
    /// another tenant, whose deletion leaves a receipt of its own.
    receipts: BTreeMap<(String, MemoryId), DeletionReceipt>,
    /// Each memory's keyword terms by field ([`field_terms`]), kept beside
    /// it so that a keyword search tokenises the query, not every memory.
    terms: BTreeMap<MemoryId, [Vec<String>; 3]>,
}

impl State {
    /// Store `memory` with its vector, and its keyword terms.
    fn put(&mut self, memory: Memory, vector: Vec<f32>) {
        self.terms.insert(memory.id, field_terms(&memory));
        self.memories.insert(memory.id, (memory, vector));
    }

    /// Each stored memory with its keyword terms.
    fn with_terms(&self) -> impl Iterator<Item = (&Memory, &[Vec<String>; 3])> {
        self.memories.values().map(|(m, _)| (m, &self.terms[&m.id]))
    }

    fn record(&mut self, change: &Change, memory: &Memory) {
        let versions = self.versions.entry(change.id).or_default();
        versions.push(Version {
            number: versions.len() as u32 + 1,
            kind: change.kind,
            actor: change.actor.clone(),
            reason: change.reason.clone(),
            at: change.at,
            memory: memory.clone(),
        });
    }

    /// Remove memory `id` and its versions, leaving a receipt.
    fn erase(&mut self, id: MemoryId, deletion: &Deletion) {
        let Some((m, _)) = self.memories.remove(&id) else {
            return;
        };
        self.terms.remove(&id);
        let versions = self.versions.remove(&id).map_or(0, |v| v.len());
        self.receipts.insert(
            (m.tenant.clone(), id),
            DeletionReceipt {
                id,
                tenant: m.tenant,
                deletion: deletion.clone(),
                versions,
            },
        );
    }
}

/// A store in RAM.
#[derive(Default)]
pub struct MemoryStore {
    state: RwLock<State>,
    keys: MemoryKeys,
    threads: MemoryCollections,
    shared: crate::shared::MemoryShared,
    oauth: crate::oauth::MemoryOAuth,
}

/// Collection records by tenant, kind and id.
type CollectionTable = BTreeMap<(String, CollectionKind, String), CollectionRecord>;

/// Collection records in RAM.
#[derive(Default)]
struct MemoryCollections(RwLock<CollectionTable>);

impl MemoryCollections {
    fn lock(&self) -> Result<std::sync::RwLockWriteGuard<'_, CollectionTable>> {
        self.0
            .write()
            .map_err(|_| Error::storage("the thread table's lock is poisoned"))
    }
}

impl CollectionStore for MemoryCollections {
    fn put_collection(&self, record: &CollectionRecord) -> Result<()> {
        let key = (record.tenant.clone(), record.kind, record.id.clone());
        self.lock()?.insert(key, record.clone());
        Ok(())
    }

    fn collection(
        &self,
        tenant: &str,
        kind: CollectionKind,
        id: &str,
    ) -> Result<Option<CollectionRecord>> {
        let key = (tenant.to_string(), kind, id.to_string());
        Ok(self.lock()?.get(&key).cloned())
    }

    fn list_collections(
        &self,
        tenant: &str,
        kind: CollectionKind,
        parent: Option<&str>,
    ) -> Result<Vec<CollectionRecord>> {
        let mut out: Vec<CollectionRecord> = self
            .lock()?
            .values()
            .filter(|r| r.tenant == tenant && r.kind == kind)
            .filter(|r| parent.is_none_or(|p| r.parent.as_deref() == Some(p)))
            .cloned()
            .collect();
        out.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        Ok(out)
    }

    fn delete_collection(&self, tenant: &str, kind: CollectionKind, id: &str) -> Result<bool> {
        let key = (tenant.to_string(), kind, id.to_string());
        Ok(self.lock()?.remove(&key).is_some())
    }
}

/// API keys in RAM, by id.
#[derive(Default)]
struct MemoryKeys(RwLock<BTreeMap<String, ApiKey>>);

impl MemoryKeys {
    fn lock(&self) -> Result<std::sync::RwLockWriteGuard<'_, BTreeMap<String, ApiKey>>> {
        self.0
            .write()
            .map_err(|_| Error::storage("the key table's lock is poisoned"))
    }
}

impl KeyStore for MemoryKeys {
    fn insert_key(&self, key: &ApiKey) -> Result<()> {
        let mut keys = self.lock()?;
        if keys.contains_key(&key.id) {
            return Err(Error::DuplicateId(key.id.clone()));
        }
        keys.insert(key.id.clone(), key.clone());
        Ok(())
    }

    fn key(&self, id: &str) -> Result<Option<ApiKey>> {
        Ok(self.lock()?.get(id).cloned())
    }

    fn keys(&self, tenant: Option<&str>) -> Result<Vec<ApiKey>> {
        let mut keys: Vec<ApiKey> = self
            .lock()?
            .values()
            .filter(|k| tenant.is_none_or(|t| k.tenant == t))
            .cloned()
            .collect();
        keys.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        Ok(keys)
    }

    fn revoke_key(&self, id: &str, at: Timestamp) -> Result<bool> {
        Ok(match self.lock()?.get_mut(id) {
            Some(k) => {
                k.revoked_at.get_or_insert(at);
                true
            }
            None => false,
        })
    }

    fn touch_key(&self, id: &str, at: Timestamp) -> Result<()> {
        if let Some(k) = self.lock()?.get_mut(id) {
            k.last_used_at = Some(at);
        }
        Ok(())
    }
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn read(&self) -> Result<std::sync::RwLockReadGuard<'_, State>> {
        self.state
            .read()
            .map_err(|_| Error::storage("in-memory store lock poisoned"))
    }

    fn write_lock(&self) -> Result<std::sync::RwLockWriteGuard<'_, State>> {
        self.state
            .write()
            .map_err(|_| Error::storage("in-memory store lock poisoned"))
    }
}

/// The searchable words of a memory by field, in the order of
/// [`BM25_FIELD_WEIGHTS`]: content, tags, metadata values.
pub fn field_terms(m: &Memory) -> [Vec<String>; 3] {
    [
        query_terms(&m.content),
        query_terms(&m.tags.join(" ")),
        query_terms(&m.keyword_context()),
    ]
}

/// The values of a metadata object (recursively), joined by spaces: what
/// keyword search indexes of metadata. Keys are left out.
pub fn metadata_text(metadata: &serde_json::Map<String, serde_json::Value>) -> String {
    fn walk(v: &serde_json::Value, out: &mut String) {
        match v {
            serde_json::Value::String(s) => {
                out.push_str(s);
                out.push(' ');
            }
            serde_json::Value::Number(n) => {
                out.push_str(&n.to_string());
                out.push(' ');
            }
            serde_json::Value::Bool(b) => {
                out.push_str(if *b { "true " } else { "false " });
            }
            serde_json::Value::Array(a) => a.iter().for_each(|v| walk(v, out)),
            serde_json::Value::Object(o) => o.values().for_each(|v| walk(v, out)),
            serde_json::Value::Null => {}
        }
    }
    let mut out = String::new();
    metadata.values().for_each(|v| walk(v, &mut out));
    out
}

/// Sort key of a listing order.
pub fn order_memories(list: &mut [Memory], order: ListOrder) {
    match order {
        ListOrder::Newest => {
            list.sort_by(|a, b| b.created_at.cmp(&a.created_at).then(b.id.cmp(&a.id)))
        }
        ListOrder::Oldest => {
            list.sort_by(|a, b| a.created_at.cmp(&b.created_at).then(a.id.cmp(&b.id)))
        }
        ListOrder::Id => list.sort_by_key(|m| m.id),
        ListOrder::RecentlyUpdated => {
            list.sort_by(|a, b| b.updated_at.cmp(&a.updated_at).then(b.id.cmp(&a.id)))
        }
        ListOrder::MostAccessed => {
            list.sort_by(|a, b| b.access_count.cmp(&a.access_count).then(b.id.cmp(&a.id)))
        }
        ListOrder::Stalest => {
            list.sort_by_key(|m| (m.last_accessed_at.unwrap_or(m.created_at), m.id))
        }
        ListOrder::Expiring => list.sort_by_key(|m| (m.expires_at.is_none(), m.expires_at, m.id)),
    }
}

impl Store for MemoryStore {
    fn maintenance(&self) -> &dyn Maintenance {
        self
    }

    fn key_store(&self) -> &dyn KeyStore {
        &self.keys
    }

    fn collections(&self) -> &dyn CollectionStore {
        &self.threads
    }

    fn shared(&self) -> &dyn crate::shared::SharedState {
        &self.shared
    }

    fn oauth_store(&self) -> &dyn crate::oauth::OAuthStore {
        &self.oauth
    }
}

impl Reading for MemoryStore {
    fn model(&self) -> Result<Option<ModelInfo>> {
        Ok(self.read()?.model.clone())
    }

    fn histories(&self, tenant: &str, ids: &[MemoryId]) -> Result<Vec<Vec<Version>>> {
        let state = self.read()?;
        Ok(ids
            .iter()
            .map(|id| match state.memories.get(id) {
                Some((m, _)) if m.tenant == tenant => {
                    state.versions.get(id).cloned().unwrap_or_default()
                }
                _ => Vec::new(),
            })
            .collect())
    }

    fn receipts(&self, tenant: &str, prefix: &str, limit: usize) -> Result<Vec<DeletionReceipt>> {
        let state = self.read()?;
        Ok(state
            .receipts
            .values()
            .filter(|r| r.tenant == tenant && r.id.to_string().starts_with(prefix))
            .take(limit)
            .cloned()
            .collect())
    }

    fn get(&self, tenant: &str, ids: &[MemoryId]) -> Result<Vec<Memory>> {
        let state = self.read()?;
        Ok(ids
            .iter()
            .filter_map(|id| state.memories.get(id))
            .filter(|(m, _)| m.tenant == tenant)
            .map(|(m, _)| m.clone())
            .collect())
    }

    fn find_by_prefix(&self, tenant: &str, prefix: &str, limit: usize) -> Result<Vec<MemoryId>> {
        let state = self.read()?;
        Ok(state
            .memories
            .values()
            .filter(|(m, _)| m.tenant == tenant && m.id.to_string().starts_with(prefix))
            .map(|(m, _)| m.id)
            .take(limit)
            .collect())
    }

    fn id_neighbours(
        &self,
        tenant: &str,
        ids: &[MemoryId],
    ) -> Result<Vec<(Option<MemoryId>, Option<MemoryId>)>> {
        let state = self.read()?;
        let of_tenant =
            |(k, (m, _)): (&MemoryId, &(Memory, Vec<f32>))| (m.tenant == tenant).then_some(*k);
        Ok(ids
            .iter()
            .map(|&id| {
                let before = state.memories.range(..id).rev().find_map(of_tenant);
                let after = state
                    .memories
                    .range((std::ops::Bound::Excluded(id), std::ops::Bound::Unbounded))
                    .find_map(of_tenant);
                (before, after)
            })
            .collect())
    }

    fn embeddings(&self, tenant: &str, ids: &[MemoryId]) -> Result<Vec<Option<Vec<f32>>>> {
        let state = self.read()?;
        Ok(ids
            .iter()
            .map(|id| {
                state
                    .memories
                    .get(id)
                    .filter(|(m, _)| m.tenant == tenant)
                    .map(|(_, v)| v.clone())
            })
            .collect())
    }

    fn list(
        &self,
        filter: &Filter,
        order: ListOrder,
        limit: usize,
        offset: usize,
    ) -> Result<Vec<Memory>> {
        let state = self.read()?;
        let mut list: Vec<Memory> = state
            .memories
            .values()
            .filter(|(m, _)| filter.matches(m))
            .map(|(m, _)| m.clone())
            .collect();
        order_memories(&mut list, order);
        Ok(list.into_iter().skip(offset).take(limit).collect())
    }

    fn count(&self, filter: &Filter) -> Result<usize> {
        Ok(self
            .read()?
            .memories
            .values()
            .filter(|(m, _)| filter.matches(m))
            .count())
    }

    fn keyword_search(&self, query: &str, filter: &Filter, limit: usize) -> Result<Vec<Hit>> {
        let terms = keyword_terms(query);
        if terms.is_empty() {
            return Ok(Vec::new());
        }
        let state = self.read()?;
        // As FTS5: the row count, average length and rows per term are
        // those of every stored memory; the filter only picks the hits.
        let fields: Vec<(&Memory, &[Vec<String>; 3])> = state.with_terms().collect();
        let rows = fields.len() as f64;
        let lengths: Vec<f64> = fields
            .iter()
            .map(|(_, f)| f.iter().map(Vec::len).sum::<usize>() as f64)
            .collect();
        let avgdl = lengths.iter().sum::<f64>() / rows.max(1.0);
        let with_term: Vec<f64> = terms
            .iter()
            .map(|t| {
                fields
                    .iter()
                    .filter(|(_, f)| f.iter().flatten().any(|w| w == t))
                    .count() as f64
            })
            .collect();
        let mut hits: Vec<Hit> = fields
            .iter()
            .zip(&lengths)
            .filter(|((m, _), _)| filter.matches(*m))
            .filter_map(|((m, f), &len)| {
                let mut score = 0.0;
                let mut matched = false;
                for (t, &n) in terms.iter().zip(&with_term) {
                    let freq: f64 = f
                        .iter()
                        .zip(BM25_FIELD_WEIGHTS)
                        .map(|(words, weight)| {
                            weight * words.iter().filter(|w| *w == t).count() as f64
                        })
                        .sum();
                    if freq > 0.0 {
                        matched = true;
                        score += bm25_term(rows, n, freq, len, avgdl);
                    }
                }
                matched.then(|| Hit {
                    id: m.id,
                    score,
                    factors: RankFactors::of(m),
                })
            })
            .collect();
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(b.id.cmp(&a.id)));
        hits.truncate(limit);
        Ok(hits)
    }

    fn keyword_rarity(&self, query: &str) -> Result<Option<TermRarity>> {
        let terms = keyword_terms(query);
        let state = self.read()?;
        let fields: Vec<&[Vec<String>; 3]> = state.with_terms().map(|(_, f)| f).collect();
        Ok(Some(TermRarity {
            rows: fields.len() as f64,
            terms: terms.clone(),
            rows_with_term: terms
                .iter()
                .map(|t| {
                    fields
                        .iter()
                        .filter(|f| f.iter().flatten().any(|w| w == t))
                        .count() as f64
                })
                .collect(),
        }))
    }

    fn vector_search(&self, vector: &[f32], filter: &Filter, limit: usize) -> Result<Vec<Hit>> {
        let state = self.read()?;
        check_dimension(state.model.as_ref(), vector)?;
        let mut hits: Vec<Hit> = state
            .memories
            .values()
            .filter(|(m, v)| v.len() == vector.len() && filter.matches(m))
            .map(|(m, v)| Hit {
                id: m.id,
                score: f64::from(cosine(vector, v)),
                factors: RankFactors::of(m),
            })
            .collect();
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(b.id.cmp(&a.id)));
        hits.truncate(limit);
        Ok(hits)
    }

    /// This store's `vector_search` compares every memory already.
    fn vector_search_exact(
        &self,
        vector: &[f32],
        filter: &Filter,
        limit: usize,
    ) -> Result<Vec<Hit>> {
        self.vector_search(vector, filter, limit)
    }

    fn tenants(&self, with: TenantsWith) -> Result<Vec<String>> {
        let state = self.read()?;
        let mut set: std::collections::BTreeSet<String> = state
            .memories
            .values()
            .map(|(m, _)| m.tenant.clone())
            .collect();
        if with == TenantsWith::Anything {
            set.extend(state.receipts.values().map(|r| r.tenant.clone()));
            drop(state);
            set.extend(self.threads.lock()?.keys().map(|(t, _, _)| t.clone()));
        }
        Ok(set.into_iter().collect())
    }

    fn stats(&self, tenant: &str, now: Timestamp) -> Result<StoreStats> {
        let state = self.read()?;
        let mine: Vec<&Memory> = state
            .memories
            .values()
            .map(|(m, _)| m)
            .filter(|m| m.tenant == tenant)
            .collect();
        Ok(stats_of(&mine, now, None))
    }
}

impl Writing for MemoryStore {
    fn set_model(&self, model: &ModelInfo) -> Result<()> {
        self.write_lock()?.model = Some(model.clone());
        Ok(())
    }

    fn write(&self, batch: WriteBatch) -> Result<()> {
        let mut state = self.write_lock()?;
        // Check everything first so that a failing batch writes nothing.
        for v in batch
            .inserts
            .iter()
            .map(|(_, v)| v)
            .chain(batch.updates.iter().filter_map(|(_, v)| v.as_ref()))
        {
            check_dimension(state.model.as_ref(), v)?;
        }
        let mut new_ids = HashSet::new();
        for (m, _) in &batch.inserts {
            if state.memories.contains_key(&m.id) || !new_ids.insert(m.id) {
                return Err(Error::DuplicateId(m.id.to_string()));
            }
        }
        for (m, _) in &batch.updates {
            match state.memories.get(&m.id) {
                Some((old, _)) if old.tenant == m.tenant => {}
                _ => return Err(Error::NotFound(m.id.to_string())),
            }
        }
        let versioned: Vec<Memory> = batch.versioned()?.into_iter().cloned().collect();
        for (change, m) in batch.changes.iter().zip(&versioned) {
            state.record(change, m);
        }
        for (m, v) in batch.inserts {
            state.put(m, v);
        }
        for (mut m, v) in batch.updates {
            let (was, old) = state.memories.remove(&m.id).expect("checked above");
            // Accesses recorded since the replacement was read are kept.
            m.access_count = m.access_count.max(was.access_count);
            m.last_accessed_at = m.last_accessed_at.max(was.last_accessed_at);
            state.put(m, v.unwrap_or(old));
        }
        Ok(())
    }

    fn delete(&self, tenant: &str, ids: &[MemoryId], deletion: &Deletion) -> Result<usize> {
        let mut state = self.write_lock()?;
        let mut n = 0;
        for id in ids {
            if state
                .memories
                .get(id)
                .is_some_and(|(m, _)| m.tenant == tenant)
            {
                state.erase(*id, deletion);
                n += 1;
            }
        }
        Ok(n)
    }

    fn insert_unless_duplicate(
        &self,
        memory: Memory,
        vector: Vec<f32>,
        threshold: f32,
        actor: &str,
    ) -> Result<Inserted> {
        let mut state = self.write_lock()?;
        check_dimension(state.model.as_ref(), &vector)?;
        if state.memories.contains_key(&memory.id) {
            return Err(Error::DuplicateId(memory.id.to_string()));
        }
        let now = memory.created_at;
        let duplicate = state
            .memories
            .values()
            .filter(|(m, _)| {
                m.tenant == memory.tenant
                    && m.kind == memory.kind
                    && m.project == memory.project
                    && m.slot == memory.slot
                    && !m.is_expired(now)
                    && !m.is_superseded()
            })
            .map(|(m, v)| (m.id, cosine(&vector, v)))
            .filter(|(_, sim)| *sim >= threshold)
            .max_by(|a, b| a.1.total_cmp(&b.1));
        if let Some((id, similarity)) = duplicate {
            return Ok(Inserted::Duplicate { id, similarity });
        }
        let created = Change::new(memory.id, ChangeKind::Created, actor, memory.updated_at);
        state.record(&created, &memory);
        state.put(memory, vector);
        Ok(Inserted::New)
    }

    fn record_access(&self, tenant: &str, ids: &[MemoryId], at: Timestamp) -> Result<()> {
        let mut state = self.write_lock()?;
        for id in ids {
            if let Some((m, _)) = state
                .memories
                .get_mut(id)
                .filter(|(m, _)| m.tenant == tenant)
            {
                m.access_count += 1;
                m.last_accessed_at = Some(at);
            }
        }
        Ok(())
    }

    fn restore(&self, batch: crate::store::Restore) -> Result<()> {
        let mut state = self.write_lock()?;
        let mut new_ids = HashSet::new();
        for (m, v, _) in &batch.memories {
            check_dimension(state.model.as_ref(), v)?;
            if state.memories.contains_key(&m.id) || !new_ids.insert(m.id) {
                return Err(Error::DuplicateId(m.id.to_string()));
            }
        }
        for (m, v, versions) in batch.memories {
            if !versions.is_empty() {
                state.versions.insert(m.id, versions);
            }
            state.put(m, v);
        }
        for r in batch.receipts {
            state.receipts.insert((r.tenant.clone(), r.id), r);
        }
        Ok(())
    }
}

impl Maintenance for MemoryStore {
    fn delete_expired(&self, now: Timestamp) -> Result<usize> {
        let mut state = self.write_lock()?;
        let expired: Vec<MemoryId> = state
            .memories
            .values()
            .filter(|(m, _)| m.is_expired(now))
            .map(|(m, _)| m.id)
            .collect();
        for id in &expired {
            state.erase(*id, &Deletion::expired(now));
        }
        Ok(expired.len())
    }
}

/// A vector whose length is not the recorded model's dimension is refused
/// (the [`Store`] contract's "one dimension").
pub fn check_dimension(model: Option<&ModelInfo>, vector: &[f32]) -> Result<()> {
    match model {
        Some(m) if m.dim != vector.len() => Err(Error::invalid(format!(
            "a vector of {} dimensions was given, but this store holds {}-dimensional vectors of {}",
            vector.len(),
            m.dim,
            m.name
        ))),
        _ => Ok(()),
    }
}

/// Compute [`StoreStats`] from a tenant's memories.
pub fn stats_of(memories: &[&Memory], now: Timestamp, size_bytes: Option<u64>) -> StoreStats {
    let mut by_type: BTreeMap<String, usize> = BTreeMap::new();
    let mut by_project: BTreeMap<Option<String>, usize> = BTreeMap::new();
    for m in memories {
        *by_type.entry(m.kind.as_str().to_string()).or_default() += 1;
        *by_project.entry(m.project.clone()).or_default() += 1;
    }
    StoreStats {
        total: memories.len(),
        expired: memories.iter().filter(|m| m.is_expired(now)).count(),
        superseded: memories.iter().filter(|m| m.is_superseded()).count(),
        by_type: by_type.into_iter().collect(),
        by_project: by_project.into_iter().collect(),
        oldest: memories.iter().map(|m| m.created_at).min(),
        newest: memories.iter().map(|m| m.created_at).max(),
        size_bytes,
    }
}
