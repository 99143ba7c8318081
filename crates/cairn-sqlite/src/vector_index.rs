//! The in-process vector index: int8-quantised vectors with a 1-bit sign
//! sketch, scanned with filters applied during the scan.
//!
//! # Why this index
//! Recall must answer in ≤ 2 ms p50 at 100,000 memories, and a fresh
//! `cairn recall` process must answer in ≤ 300 ms. An exact f32 scan reads
//! 150 MB per query at 100k (far over budget); HNSW answers fast but must be
//! rebuilt or persisted and kept in step with other processes' writes. This
//! index is two flat scans:
//!
//! 1. a Hamming scan over 1-bit sign sketches (48 bytes per 384-d vector,
//!    4.8 MB at 100k) keeps the best `max(1000, 30 × k)` candidates;
//! 2. those are rescored with int8 vectors (per-vector scale), which give
//!    cosines within about ±0.003 of the exact ones.
//!
//! When the filter admits fewer entries than the candidate count, stage 1 is
//! skipped and every admitted entry is rescored: small scopes are exact.
//! Filters are applied inside the scan (a scope or tenant with few memories
//! in a large store still gets its best matches). From [`PARTITION_AT`]
//! entries, stage 1 scans only the lists of entries near the query (module
//! `partitions`). The index is loaded on first use from its snapshot
//! (module `snapshot`) or else from the `vindex` table, and kept in step by
//! the store's revision counters, so it always reflects every process's
//! committed writes.

mod codes;
mod partitions;
mod select;
mod snapshot;

use std::sync::Arc;

use cairn_core::store::{Filter, Filterable, ScopeFilter};
use cairn_core::{Hit, MemoryId, MemoryType, RankFactors, Thread, Timestamp};
use codes::{code_norm, cosine_i8, hamming, sketch, sketch_codes};
pub use codes::{dot_i8, quantize};
use partitions::Partitions;
pub use partitions::PARTITION_AT;
use rustc_hash::FxHashMap;
use select::{nearest_by_histogram, Scanned};
pub use snapshot::{snapshot_revs, SnapshotRevs};

/// Minimum number of sketch candidates rescored with int8 vectors.
pub const MIN_RESCORE: usize = 1000;
/// Sketch candidates rescored per result asked for.
pub const RESCORE_PER_RESULT: usize = 30;
/// Candidates whose rows are fetched together while rescoring.
const RESCORE_GROUP: usize = 8;

/// The filterable attributes of one indexed memory.
#[derive(Debug, Clone)]
pub struct EntryAttributes {
    /// Memory id.
    pub id: MemoryId,
    /// Owner.
    pub tenant: Arc<str>,
    /// Project.
    pub project: Option<Arc<str>>,
    /// Type.
    pub kind: MemoryType,
    /// Tags.
    pub tags: Vec<String>,
    /// Creation.
    pub created_at: Timestamp,
    /// Valid from.
    pub valid_from: Option<Timestamp>,
    /// Valid to.
    pub valid_to: Option<Timestamp>,
    /// Expiry.
    pub expires_at: Option<Timestamp>,
    /// Superseded.
    pub superseded: bool,
    /// Recorded accesses.
    pub access_count: u64,
    /// Last recorded access.
    pub last_accessed_at: Option<Timestamp>,
    /// The memory's weight.
    pub weight: f64,
    /// The conversation it is a message of (shared by a topic's entries).
    pub thread: Option<Arc<Thread>>,
    /// The memory's slot (memcord's named collection, interned like
    /// tenants and projects), not to be confused with an entry's slot in
    /// this index's arrays.
    pub slot: Option<Arc<str>>,
    /// Where the memory came from (interned).
    pub source: Arc<str>,
}

impl EntryAttributes {
    /// What recall ranks this memory by.
    pub fn factors(&self) -> RankFactors {
        RankFactors {
            access_count: self.access_count,
            last_accessed_at: self.last_accessed_at,
            global: self.project.is_none(),
            weight: self.weight,
        }
    }
}

impl Filterable for EntryAttributes {
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
        self.thread.as_deref()
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
        self.superseded
    }
}

/// The index. Entries live in parallel arrays (structure of arrays) so
/// that scans touch only what they need.
#[derive(Default)]
pub struct VectorIndex {
    /// The store revision this index reflects.
    pub rev: i64,
    /// The access revision this index reflects.
    pub access_rev: i64,
    /// Whether the index was ever loaded.
    pub loaded: bool,
    dim: usize,
    words: usize,
    rowids: Vec<i64>,
    attrs: Vec<EntryAttributes>,
    codes: Vec<i8>,
    norms: Vec<f32>,
    sketches: Vec<u64>,
    /// Fx-hashed: keyword search looks up thousands of rows per query.
    slots: FxHashMap<i64, usize>,
    packed: Vec<PackedEntry>,
    interned: FxHashMap<String, Arc<str>>,
    name_ids: FxHashMap<String, u32>,
    threads: FxHashMap<Thread, Arc<Thread>>,
    /// Lists of near entries, in a large index (module `partitions`).
    partitions: Option<Partitions>,
}

/// What every scan reads of an entry, packed (12 bytes) so that filtering
/// 100,000 entries touches little memory.
#[derive(Debug, Clone, Copy, PartialEq)]
struct PackedEntry {
    tenant: u32,
    /// 0 = global.
    project: u32,
    kind: u8,
    superseded: bool,
    /// Has an expiry time (checked against the entry's attributes).
    expires: bool,
    /// Is in a slot (checked against the entry's attributes when the
    /// filter names slots; an entry in none is decided here).
    slotted: bool,
}

fn kind_index(kind: MemoryType) -> u32 {
    MemoryType::ALL.iter().position(|k| *k == kind).unwrap_or(0) as u32
}

impl VectorIndex {
    /// Number of entries.
    pub fn len(&self) -> usize {
        self.rowids.len()
    }

    /// Whether the index is empty.
    pub fn is_empty(&self) -> bool {
        self.rowids.is_empty()
    }

    /// The int8 codes of the entry in `slot`.
    fn row(&self, slot: usize) -> &[i8] {
        &self.codes[slot * self.dim..(slot + 1) * self.dim]
    }

    /// The sign sketch of the entry in `slot`.
    fn sketch_of(&self, slot: usize) -> &[u64] {
        &self.sketches[slot * self.words..(slot + 1) * self.words]
    }

    /// Share one allocation per distinct tenant/project string.
    pub fn intern(&mut self, s: &str) -> Arc<str> {
        if let Some(a) = self.interned.get(s) {
            return a.clone();
        }
        let id = self.name_ids.len() as u32 + 1;
        self.name_ids.insert(s.to_string(), id);
        let a: Arc<str> = Arc::from(s);
        self.interned.insert(s.to_string(), a.clone());
        a
    }

    /// Share one allocation per distinct thread (a topic's messages).
    pub fn intern_thread(&mut self, thread: Thread) -> Arc<Thread> {
        self.threads
            .entry(thread)
            .or_insert_with_key(|t| Arc::new(t.clone()))
            .clone()
    }

    /// Insert or replace the entry of `rowid`. `code` is the stored blob:
    /// a little-endian f32 scale followed by `dim` int8 codes. Entries of
    /// another dimension than the first one indexed are ignored (a store in
    /// the middle of a reindex).
    pub fn upsert(&mut self, rowid: i64, attrs: EntryAttributes, code: &[u8]) {
        if code.len() < 4 {
            return;
        }
        let dim = code.len() - 4;
        if self.is_empty() && self.dim != dim {
            self.dim = dim;
            self.words = dim.div_ceil(64);
        }
        if dim != self.dim {
            self.remove(rowid);
            return;
        }
        let packed = PackedEntry {
            tenant: self
                .name_ids
                .get(&*attrs.tenant)
                .copied()
                .unwrap_or(u32::MAX),
            project: attrs
                .project
                .as_deref()
                .map_or(0, |p| self.name_ids.get(p).copied().unwrap_or(u32::MAX)),
            kind: kind_index(attrs.kind) as u8,
            superseded: attrs.superseded,
            expires: attrs.expires_at.is_some(),
            slotted: attrs.slot.is_some(),
        };
        // The blob starts with the f32 scale; the cosine does not need it.
        // The codes go straight into their slot, and the norm and sketch
        // are computed there: no per-entry allocation (a first load does
        // this 100,000 times).
        let bytes = code[4..].iter().map(|b| *b as i8);
        let slot = match self.slots.get(&rowid) {
            Some(&slot) => {
                self.packed[slot] = packed;
                self.attrs[slot] = attrs;
                for (c, b) in self.codes[slot * dim..(slot + 1) * dim]
                    .iter_mut()
                    .zip(bytes)
                {
                    *c = b;
                }
                slot
            }
            None => {
                let slot = self.rowids.len();
                self.slots.insert(rowid, slot);
                self.rowids.push(rowid);
                self.packed.push(packed);
                self.attrs.push(attrs);
                self.codes.extend(bytes);
                self.norms.push(0.0);
                self.sketches.extend(std::iter::repeat_n(0, self.words));
                slot
            }
        };
        let codes = &self.codes[slot * dim..(slot + 1) * dim];
        self.norms[slot] = code_norm(codes);
        sketch_codes(
            codes,
            &mut self.sketches[slot * self.words..(slot + 1) * self.words],
        );
        self.place_in_partition(slot);
    }

    /// Record the access counters of `rowid`, if indexed.
    pub fn set_access(
        &mut self,
        rowid: i64,
        access_count: u64,
        last_accessed_at: Option<Timestamp>,
    ) {
        if let Some(&slot) = self.slots.get(&rowid) {
            let attrs = &mut self.attrs[slot];
            attrs.access_count = access_count;
            attrs.last_accessed_at = last_accessed_at;
        }
    }

    /// Make room for `n` more entries of `dim` dimensions, so that a first
    /// load does not copy its arrays as they grow.
    pub fn reserve(&mut self, n: usize, dim: usize) {
        self.rowids.reserve(n);
        self.packed.reserve(n);
        self.attrs.reserve(n);
        self.norms.reserve(n);
        self.slots.reserve(n);
        self.codes.reserve(n * dim);
        self.sketches.reserve(n * dim.div_ceil(64));
    }

    /// Remove the entry of `rowid` (moving the last entry into its slot).
    pub fn remove(&mut self, rowid: i64) {
        let Some(slot) = self.slots.remove(&rowid) else {
            return;
        };
        let last = self.rowids.len() - 1;
        self.remove_from_partition(slot, last);
        let (dim, words) = (self.dim, self.words);
        if slot != last {
            let moved = self.rowids[last];
            self.rowids.swap(slot, last);
            self.attrs.swap(slot, last);
            self.packed.swap(slot, last);
            self.norms.swap(slot, last);
            self.codes
                .copy_within(last * dim..(last + 1) * dim, slot * dim);
            self.sketches
                .copy_within(last * words..(last + 1) * words, slot * words);
            self.slots.insert(moved, slot);
        }
        self.rowids.pop();
        self.attrs.pop();
        self.packed.pop();
        self.norms.pop();
        self.codes.truncate(last * dim);
        self.sketches.truncate(last * words);
    }

    /// Drop everything (the store changed model).
    pub fn clear(&mut self) {
        *self = VectorIndex::default();
    }

    /// The `limit` entries most similar to `query` among those passing
    /// `filter`, best first, with approximate cosines.
    pub fn search(&self, query: &[f32], filter: &Filter, limit: usize) -> Vec<Hit> {
        let rescore = MIN_RESCORE.max(RESCORE_PER_RESULT * limit);
        self.search_rescoring(query, filter, limit, rescore)
    }

    /// As [`VectorIndex::search`], with every entry the filter admits
    /// rescored: no entry is left out by its sketch, so the best `limit`
    /// are the best by int8 cosine. What dedup and contradiction checks
    /// read; a full scan of the int8 codes (38 MB at 100,000 entries).
    pub fn search_exact(&self, query: &[f32], filter: &Filter, limit: usize) -> Vec<Hit> {
        self.search_rescoring(query, filter, limit, usize::MAX)
    }

    /// The two stages, with the `rescore` nearest entries by sketch
    /// distance rescored.
    fn search_rescoring(
        &self,
        query: &[f32],
        filter: &Filter,
        limit: usize,
        rescore: usize,
    ) -> Vec<Hit> {
        if query.len() != self.dim || self.is_empty() || limit == 0 {
            return Vec::new();
        }
        let Some(admit) = self.admit(filter) else {
            return Vec::new();
        };
        // Stage 1: filter and sketch distance in one pass, so that each
        // entry is read once; `u16::MAX` marks an entry left out.
        // The query is quantised too: an integer dot product vectorises,
        // and the scales cancel out of the cosine.
        let (q_codes, _) = quantize(query);
        let q_norm = code_norm(&q_codes);
        let q = sketch(query);
        let probed = match rescore {
            usize::MAX => None,
            _ => self.probe(&admit, (&q_codes, q_norm), &q, rescore),
        };
        let candidates = probed.unwrap_or_else(|| {
            let mut scanned = Scanned::new(self.words, self.len());
            self.scan(
                &admit,
                (&self.packed, &self.sketches),
                |i| i,
                &q,
                &mut scanned,
            );
            nearest_by_histogram(&scanned.distances, &scanned.histogram(), rescore)
        });
        // Stage 2: int8 cosines.
        let mut hits = self.cosines(&q_codes, q_norm, &candidates);
        let order = |a: &(f32, usize), b: &(f32, usize)| {
            b.0.total_cmp(&a.0)
                .then_with(|| self.attrs[b.1].id.cmp(&self.attrs[a.1].id))
        };
        if hits.len() > limit {
            hits.select_nth_unstable_by(limit - 1, order);
            hits.truncate(limit);
        }
        hits.sort_unstable_by(order);
        hits.into_iter()
            .map(|(cos, slot)| Hit {
                id: self.attrs[slot].id,
                score: f64::from(cos),
                factors: self.attrs[slot].factors(),
            })
            .collect()
    }

    /// Scan a run of entries (their packed attributes and sketches; entry
    /// `i` of the run is in slot `slot_of(i)`): the sketch distance to `q`
    /// of each that passes the filter, appended to `scanned`.
    fn scan(
        &self,
        admit: &CompiledFilter,
        (packed, sketches): (&[PackedEntry], &[u64]),
        slot_of: impl Fn(usize) -> usize,
        q: &[u64],
        scanned: &mut Scanned,
    ) {
        if self.words == 6 {
            // 384 dimensions: a fixed width, so the distance is unrolled.
            let distance = |s: &[u64]| hamming(&s[..6], &q[..6]);
            self.scan_by(admit, (packed, sketches), slot_of, distance, scanned);
        } else {
            let distance = |s: &[u64]| hamming(s, q);
            self.scan_by(admit, (packed, sketches), slot_of, distance, scanned);
        }
    }

    /// [`VectorIndex::scan`] with the distance `distance`.
    ///
    /// Branch-free where it can be: every entry's distance is computed, and
    /// one that fails the filter is counted into a sink bin instead. Four
    /// histograms take turns, so that neighbours at the same distance do
    /// not wait on each other's increment. Only entries that need the full
    /// filter (an expiry, a slot under a filter naming slots, or a filter
    /// on tags or times) take a branch.
    fn scan_by(
        &self,
        admit: &CompiledFilter,
        (packed, sketches): (&[PackedEntry], &[u64]),
        slot_of: impl Fn(usize) -> usize,
        distance: impl Fn(&[u64]) -> u32,
        scanned: &mut Scanned,
    ) {
        let bins = self.words * 64 + 1;
        let sink = bins;
        let base = scanned.distances.len();
        scanned.distances.resize(base + packed.len(), u16::MAX);
        let out = &mut scanned.distances[base..];
        let histograms = &mut scanned.histograms;
        let sketches = sketches.chunks_exact(self.words);
        let mut admitted = 0;
        for (i, ((h, sketch), d)) in packed.iter().zip(sketches).zip(out).enumerate() {
            let ok = self.admits(admit, h, slot_of(i));
            let dist = if ok { distance(sketch) as usize } else { sink };
            histograms[(i & 3) * (bins + 1) + dist] += 1;
            *d = if ok { dist as u16 } else { u16::MAX };
            admitted += usize::from(ok);
        }
        scanned.admitted += admitted;
    }

    /// The int8 cosine of each candidate slot with the quantised query.
    ///
    /// The candidates' rows are scattered over the codes (a thousand
    /// cache misses of six lines each at 100,000 entries). Waited for one
    /// row at a time they were most of the rescoring, so the rows of the
    /// next group are touched (one load per line, all independent) before
    /// the current group is scored: their misses overlap each other and the
    /// arithmetic.
    fn cosines(&self, q: &[i8], qnorm: f32, slots: &[usize]) -> Vec<(f32, usize)> {
        let touch = |group: &[usize]| {
            let sum = group.iter().fold(0u32, |acc, &slot| {
                // Every 32nd code: each 64-byte line at least once, however
                // the rows are aligned.
                let codes = self.row(slot).iter().step_by(32);
                codes.fold(acc ^ self.norms[slot].to_bits(), |a, c| {
                    a ^ u32::from(*c as u8)
                })
            });
            std::hint::black_box(sum);
        };
        let mut out = Vec::with_capacity(slots.len());
        let mut groups = slots.chunks(RESCORE_GROUP).peekable();
        if let Some(first) = groups.peek() {
            touch(first);
        }
        while let Some(group) = groups.next() {
            if let Some(next) = groups.peek() {
                touch(next);
            }
            out.extend(group.iter().map(|&slot| {
                let cos = cosine_i8(self.row(slot), self.norms[slot], q, qnorm);
                (cos, slot)
            }));
        }
        out
    }

    /// The filter compiled against this index's interned names; `None` when
    /// it can admit nothing (a tenant the index has never seen).
    pub(crate) fn admit<'f>(&self, filter: &'f Filter) -> Option<CompiledFilter<'f>> {
        // Destructured without `..`: a new filter field does not compile
        // until it is classified here, as checked on the packed entry or
        // left to `Filter::matches` (which makes the filter not simple).
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
            include_expired: _,
            include_superseded,
            only_superseded,
            now: _,
        } = filter;
        let tenant = *self.name_ids.get(tenant.as_str())?;
        // Project ids start at 1; 0 = global; a project this index has
        // never seen gets an id no entry has.
        let id_of = |p: &str| self.name_ids.get(p).copied().unwrap_or(u32::MAX);
        let (any_project, global, project) = match scope {
            ScopeFilter::All => (true, true, None),
            ScopeFilter::Global | ScopeFilter::Exactly(None) => (false, true, None),
            ScopeFilter::Project(p) => (false, true, Some(id_of(p))),
            ScopeFilter::Exactly(Some(p)) => (false, false, Some(id_of(p))),
        };
        let types = if types.is_empty() {
            u32::MAX
        } else {
            types.iter().fold(0, |m, t| m | 1 << kind_index(*t))
        };
        // Superseded is checked on the packed entry, expiry on entries
        // that have one and slots on entries in one (see `admits`); the
        // rest by `Filter::matches`.
        let simple = tags.is_empty()
            && sources.is_empty()
            && !only_superseded
            && thread.is_none()
            && created_after.is_none()
            && created_before.is_none()
            && after.is_none()
            && valid_after.is_none()
            && valid_before.is_none();
        Some(CompiledFilter {
            filter,
            tenant,
            any_project,
            global,
            project,
            types,
            unslotted: slots.is_empty(),
            by_slot: !slots.is_empty() || !hidden_slots.is_empty(),
            superseded: *include_superseded || *only_superseded,
            simple,
        })
    }

    /// The attributes of row `rowid` if it is indexed and passes the
    /// filter.
    pub(crate) fn admitted(&self, admit: &CompiledFilter, rowid: i64) -> Option<&EntryAttributes> {
        let slot = *self.slots.get(&rowid)?;
        self.admits(admit, &self.packed[slot], slot)
            .then(|| &self.attrs[slot])
    }

    /// Whether the entry in `slot` (whose packed part is `h`) passes the
    /// filter: [`CompiledFilter::admits_packed`] first, then, for what that
    /// does not check (tags, time ranges, expiry, the names of slots),
    /// [`Filter::matches`] itself, so the index can never disagree with it.
    #[inline]
    fn admits(&self, admit: &CompiledFilter, h: &PackedEntry, slot: usize) -> bool {
        let packed = admit.admits_packed(h);
        if admit.simple
            && (!h.expires || admit.filter.include_expired)
            && (!h.slotted || !admit.by_slot)
        {
            packed
        } else {
            packed && admit.filter.matches(&self.attrs[slot])
        }
    }
}

/// A [`Filter`] compiled against an index (see [`VectorIndex::admit`]).
pub(crate) struct CompiledFilter<'f> {
    filter: &'f Filter,
    tenant: u32,
    any_project: bool,
    global: bool,
    project: Option<u32>,
    types: u32,
    /// Whether an entry in no slot passes the slot conditions (no slots
    /// named to be in).
    unslotted: bool,
    /// Whether the filter names slots, to be in or to leave out: then an
    /// entry in a slot is checked by name.
    by_slot: bool,
    /// Whether a superseded entry may pass.
    superseded: bool,
    /// Nothing beyond what [`CompiledFilter::admits_packed`] checks (but
    /// expiry and slots, see [`VectorIndex::admits`]).
    simple: bool,
}

impl CompiledFilter<'_> {
    /// Whether an entry passes tenant, scope, type, superseded and (if in
    /// no slot) the slot conditions: compared by interned id, on the packed
    /// entry alone, so that a scan of 100,000 entries reads 12 bytes of
    /// each.
    #[inline]
    fn admits_packed(&self, h: &PackedEntry) -> bool {
        // `&` rather than `&&`: no branches in the scan's inner loop.
        (h.tenant == self.tenant)
            & (self.any_project
                | (self.global & (h.project == 0))
                | (self.project == Some(h.project)))
            & (self.types & (1 << h.kind) != 0)
            & (self.superseded | !h.superseded)
            & (self.unslotted | h.slotted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn attrs(index: &mut VectorIndex, i: u32, project: Option<&str>) -> EntryAttributes {
        EntryAttributes {
            id: MemoryId::new_at(1_000_000 + i64::from(i)),
            tenant: index.intern("default"),
            project: project.map(|p| index.intern(p)),
            kind: MemoryType::Note,
            tags: vec![],
            created_at: 0,
            valid_from: None,
            valid_to: None,
            expires_at: None,
            superseded: false,
            access_count: u64::from(i),
            last_accessed_at: None,
            weight: 1.0,
            thread: None,
            slot: None,
            source: index.intern("manual"),
        }
    }

    pub(super) fn blob(v: &[f32]) -> Vec<u8> {
        let (codes, scale) = quantize(v);
        let mut b = scale.to_le_bytes().to_vec();
        b.extend(codes.iter().map(|c| *c as u8));
        b
    }

    /// A deterministic pseudo-random unit vector.
    pub(super) fn vector(seed: u64, dim: usize) -> Vec<f32> {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut v: Vec<f32> = (0..dim)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % 2001) as f32 / 1000.0 - 1.0
            })
            .collect();
        let n = v.iter().map(|a| a * a).sum::<f32>().sqrt();
        v.iter_mut().for_each(|a| *a /= n);
        v
    }

    #[test]
    fn quantisation_keeps_cosines_close() {
        let a = vector(1, 384);
        let b = vector(2, 384);
        let exact: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        let mut index = VectorIndex::default();
        let at = attrs(&mut index, 0, None);
        index.upsert(1, at, &blob(&b));
        let f = Filter::new("default", 0);
        let hit = index.search(&a, &f, 1)[0];
        assert!(
            (hit.score - f64::from(exact)).abs() < 0.01,
            "{} vs {exact}",
            hit.score
        );
    }

    #[test]
    fn two_stage_search_finds_the_true_neighbours() {
        let dim = 384;
        let mut index = VectorIndex::default();
        let vectors: Vec<Vec<f32>> = (0..5000).map(|i| vector(i + 10, dim)).collect();
        for (i, v) in vectors.iter().enumerate() {
            let a = attrs(&mut index, i as u32, None);
            index.upsert(i as i64, a, &blob(v));
        }
        let f = Filter::new("default", 0);
        // A query near vector 1234: the exact best match must come first.
        let mut q = vectors[1234].clone();
        q.iter_mut()
            .zip(&vector(99, dim))
            .for_each(|(a, b)| *a += 0.3 * b);
        let hits = index.search(&q, &f, 10);
        assert_eq!(hits[0].id, index.attrs[index.slots[&1234]].id);
        assert_eq!(hits.len(), 10);
    }

    #[test]
    fn remove_and_filters() {
        let mut index = VectorIndex::default();
        for i in 0..10u32 {
            let project = if i % 2 == 0 { Some("atlas") } else { None };
            let a = attrs(&mut index, i, project);
            index.upsert(i64::from(i), a, &blob(&vector(u64::from(i), 16)));
        }
        let global = Filter::new("default", 0);
        assert_eq!(index.search(&vector(1, 16), &global, 100).len(), 5);
        let atlas = Filter::new("default", 0).scope(ScopeFilter::Project("atlas".into()));
        assert_eq!(index.search(&vector(1, 16), &atlas, 100).len(), 10);
        let exactly = Filter::new("default", 0).scope(ScopeFilter::Exactly(Some("atlas".into())));
        assert_eq!(index.search(&vector(1, 16), &exactly, 100).len(), 5);
        let unknown = Filter::new("default", 0).scope(ScopeFilter::Exactly(Some("nope".into())));
        assert!(index.search(&vector(1, 16), &unknown, 100).is_empty());
        index.remove(3);
        index.remove(0);
        index.remove(42);
        assert_eq!(index.len(), 8);
        assert_eq!(index.search(&vector(1, 16), &global, 100).len(), 4);
        // The moved entries are still found by their own vectors.
        for i in [1u64, 5, 9] {
            let h = index.search(&vector(i, 16), &global, 1)[0];
            assert_eq!(h.id, index.attrs[index.slots[&(i as i64)]].id);
        }
        let other = Filter::new("someone-else", 0);
        assert!(index.search(&vector(1, 16), &other, 10).is_empty());
    }

    #[test]
    fn slot_filters_agree_with_the_filter_and_the_packed_entry_stays_small() {
        assert_eq!(std::mem::size_of::<PackedEntry>(), 12);
        let mut index = VectorIndex::default();
        let slots = [None, Some("inbox"), Some("archive"), Some("atlas")];
        for i in 0..40u32 {
            let mut a = attrs(&mut index, i, (i % 5 == 0).then_some("atlas"));
            a.slot = slots[i as usize % 4].map(|s| index.intern(s));
            index.upsert(i64::from(i), a, &blob(&vector(u64::from(i), 16)));
        }
        let names = |n: &[&str]| n.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let cases = [
            (names(&[]), names(&[])),
            (names(&["inbox"]), names(&[])),
            (names(&["inbox", "atlas"]), names(&[])),
            (names(&["nope"]), names(&[])),
            (names(&[]), names(&["archive"])),
            (names(&[]), names(&["archive", "atlas", "inbox"])),
            (names(&["archive"]), names(&["archive"])),
        ];
        for (in_slots, hidden) in cases {
            let mut f = Filter::new("default", 0).scope(ScopeFilter::All);
            f.slots = in_slots.clone();
            f.hidden_slots = hidden.clone();
            let mut found: Vec<MemoryId> = index
                .search(&vector(7, 16), &f, 100)
                .into_iter()
                .map(|h| h.id)
                .collect();
            found.sort();
            let mut expected: Vec<MemoryId> = index
                .attrs
                .iter()
                .filter(|a| f.matches(*a))
                .map(|a| a.id)
                .collect();
            expected.sort();
            let admitted = (0..index.len())
                .filter(|&slot| {
                    let admit = index.admit(&f).unwrap();
                    index.admits(&admit, &index.packed[slot], slot)
                })
                .count();
            assert_eq!(found, expected, "{in_slots:?} / {hidden:?}");
            assert_eq!(admitted, expected.len(), "{in_slots:?} / {hidden:?}");
        }
    }
}
