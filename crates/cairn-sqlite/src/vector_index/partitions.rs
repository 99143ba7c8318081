//! Partitions of a large index (an inverted file): each entry sits in the
//! list of its nearest centroid, and a search scans the lists whose
//! centroids are nearest the query instead of every entry.
//!
//! # Why
//! The flat sketch scan reads about 60 bytes per entry: 6 MB at 100,000
//! entries (under 2 ms), 60 MB at a million (about 11 ms). From
//! [`PARTITION_AT`] entries the index is cut into 2√n lists. A search ranks
//! the centroids (2√n int8 cosines), then scans lists in that order until
//! it has seen, of the entries that pass the filter, a seventh of the
//! tenant's and [`PROBE_PER_CANDIDATE`] per candidate the flat index
//! rescores; it rescores [`RESCORE_BOOST`] times as many. A selective
//! filter (a small tenant in a large store) scans more lists, at worst all
//! of them, so it still gets its best matches. What this costs in recall is
//! measured by `cairn-bench store` and `index-recall --partition-at`
//! (docs/BENCHMARKS.md): more lists, a larger share scanned and more
//! candidates rescored each buy recall back, at a price in time.
//!
//! # Training
//! Spherical k-means (Lloyd's rounds, [`ROUNDS`] of them) on an evenly
//! spaced sample of [`SAMPLE_PER_LIST`] entries per list, then every entry
//! goes to its nearest centroid: the best by int8 cosine among the
//! [`SHORTLIST`] nearest by sketch distance, on every core (about 5 s at a
//! million entries on two cores). Entries written later go to their
//! nearest list as they come; the index is trained again when it has
//! doubled or halved.

use rustc_hash::FxHashMap;

use super::codes::{code_norm, cosine_i8, hamming, quantize, sketch_codes};
use super::select::{nearest_by_histogram, Scanned};
use super::{CompiledFilter, PackedEntry, VectorIndex};

/// Entries from which an index is partitioned.
pub const PARTITION_AT: usize = 200_000;
/// Lists per square root of the entry count.
const LISTS_PER_ROOT: f64 = 2.0;
/// Entries that pass the filter scanned per candidate rescored, at least.
const PROBE_PER_CANDIDATE: usize = 40;
/// And at least this share of the tenant's entries (one in…).
const PROBE_SHARE: usize = 7;
/// Candidates rescored, times the flat index's: the scan is cheaper, and
/// rescoring more of what it found buys back recall.
const RESCORE_BOOST: usize = 3;
/// Training sample per list.
const SAMPLE_PER_LIST: usize = 32;
/// Rounds of k-means.
const ROUNDS: usize = 6;
/// Centroids nearest by sketch among which an entry's list is chosen.
const SHORTLIST: usize = 8;

/// One list: its entries' slots, with copies of what a scan reads of them
/// (packed attributes, sketches), so that a list is scanned in order like
/// the flat index.
#[derive(Debug, Clone, Default, PartialEq)]
struct List {
    slots: Vec<u32>,
    packed: Vec<PackedEntry>,
    sketches: Vec<u64>,
}

/// The lists, their centroids and where each entry is.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Partitions {
    dim: usize,
    words: usize,
    /// Centroids as the index keeps entries: int8 codes (`lists × dim`),
    /// their norms and sign sketches.
    codes: Vec<i8>,
    norms: Vec<f32>,
    sketches: Vec<u64>,
    /// The lists.
    lists: Vec<List>,
    /// Each slot's list and position in it.
    place: Vec<(u32, u32)>,
    /// Entries per tenant (by interned name id).
    tenants: FxHashMap<u32, usize>,
    /// Entries when trained.
    trained_for: usize,
}

impl Partitions {
    /// Train on `index` (see the module docs).
    fn train(index: &VectorIndex) -> Partitions {
        let n = index.len();
        let lists = ((LISTS_PER_ROOT * (n as f64).sqrt()).round() as usize).max(1);
        let step = (n / (SAMPLE_PER_LIST * lists)).max(1);
        let sample: Vec<usize> = (0..n).step_by(step).collect();
        let mut parts = Partitions {
            dim: index.dim,
            words: index.words,
            codes: Vec::with_capacity(lists * index.dim),
            norms: Vec::with_capacity(lists),
            sketches: Vec::with_capacity(lists * index.words),
            lists: vec![List::default(); lists],
            place: Vec::with_capacity(n),
            tenants: FxHashMap::default(),
            trained_for: n,
        };
        for list in 0..lists {
            let slot = sample[list * sample.len() / lists];
            parts.codes.extend_from_slice(index.row(slot));
            parts.norms.push(index.norms[slot]);
            parts.sketches.extend_from_slice(index.sketch_of(slot));
        }
        for _ in 0..ROUNDS {
            let mut sums = vec![0f32; lists * index.dim];
            let mut counts = vec![0u32; lists];
            for (&slot, list) in sample.iter().zip(parts.assign(index, &sample)) {
                let list = list as usize;
                counts[list] += 1;
                let inverse = if index.norms[slot] > 0.0 {
                    index.norms[slot].recip()
                } else {
                    0.0
                };
                let sum = &mut sums[list * index.dim..(list + 1) * index.dim];
                for (s, c) in sum.iter_mut().zip(index.row(slot)) {
                    *s += f32::from(*c) * inverse;
                }
            }
            for (list, sum) in sums.chunks_exact(index.dim).enumerate() {
                if counts[list] > 0 {
                    parts.set_centroid(list, sum);
                }
            }
        }
        let all: Vec<usize> = (0..n).collect();
        let lists_of = parts.assign(index, &all);
        for (slot, list) in lists_of.into_iter().enumerate() {
            parts.place.push((list, 0));
            parts.put(index, slot, list);
        }
        parts
    }

    /// What a snapshot keeps: the centroids' codes, the entry count they
    /// were trained for, and each entry's list in slot order.
    pub(super) fn kept(&self) -> (&[i8], usize, impl Iterator<Item = u32> + '_) {
        let lists_of = self.place.iter().map(|&(list, _)| list);
        (&self.codes, self.trained_for, lists_of)
    }

    /// The partitions a snapshot kept (see [`Partitions::kept`]), over the
    /// entries of `index` as decoded.
    pub(super) fn restore(
        index: &VectorIndex,
        codes: Vec<i8>,
        trained_for: usize,
        lists_of: &[u32],
    ) -> Result<Partitions, String> {
        let dim = index.dim.max(1);
        let lists = codes.len() / dim;
        let mut parts = Partitions {
            dim: index.dim,
            words: index.words,
            norms: vec![0.0; lists],
            sketches: vec![0; lists * index.words],
            codes,
            lists: vec![List::default(); lists],
            place: Vec::with_capacity(lists_of.len()),
            tenants: FxHashMap::default(),
            trained_for,
        };
        for list in 0..lists {
            parts.derive(list);
        }
        for (slot, &list) in lists_of.iter().enumerate() {
            if list as usize >= lists {
                return Err(format!("list {list} of {lists} out of range"));
            }
            parts.place.push((list, 0));
            parts.put(index, slot, list);
        }
        Ok(parts)
    }

    /// Centroid `list` becomes the direction of `sum`.
    fn set_centroid(&mut self, list: usize, sum: &[f32]) {
        let (codes, _) = quantize(sum);
        self.codes[list * self.dim..(list + 1) * self.dim].copy_from_slice(&codes);
        self.derive(list);
    }

    /// The norm and sketch of centroid `list`, from its codes.
    fn derive(&mut self, list: usize) {
        let row = &self.codes[list * self.dim..(list + 1) * self.dim];
        self.norms[list] = code_norm(row);
        sketch_codes(
            row,
            &mut self.sketches[list * self.words..(list + 1) * self.words],
        );
    }

    /// The list whose centroid is nearest the entry with these `codes`,
    /// `norm` and `sketch`: the best by int8 cosine among the
    /// [`SHORTLIST`] nearest by sketch distance.
    fn nearest(&self, codes: &[i8], norm: f32, sketch: &[u64]) -> u32 {
        // The shortlist, nearest first; most centroids fail the first test.
        let mut short = [(u32::MAX, 0u32); SHORTLIST];
        let sketches = self.sketches.chunks_exact(self.words);
        for (list, s) in sketches.enumerate() {
            let d = if self.words == 6 {
                hamming(&s[..6], &sketch[..6])
            } else {
                hamming(s, sketch)
            };
            if d < short[SHORTLIST - 1].0 {
                let mut i = SHORTLIST - 1;
                while i > 0 && short[i - 1].0 > d {
                    short[i] = short[i - 1];
                    i -= 1;
                }
                short[i] = (d, list as u32);
            }
        }
        let cosine = |list: u32| {
            let list = list as usize;
            let centroid = &self.codes[list * self.dim..(list + 1) * self.dim];
            cosine_i8(codes, norm, centroid, self.norms[list])
        };
        short
            .iter()
            .filter(|(d, _)| *d != u32::MAX)
            .map(|&(_, list)| (cosine(list), list))
            .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)))
            .map_or(0, |(_, list)| list)
    }

    /// [`Partitions::nearest`] for the entry in `slot` of `index`.
    fn nearest_to(&self, index: &VectorIndex, slot: usize) -> u32 {
        self.nearest(index.row(slot), index.norms[slot], index.sketch_of(slot))
    }

    /// The nearest list of the entry in each of `slots`, the entries split
    /// between the cores.
    fn assign(&self, index: &VectorIndex, slots: &[usize]) -> Vec<u32> {
        let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
        let chunk = slots.len().div_ceil(threads).max(1);
        std::thread::scope(|scope| {
            let parts: Vec<_> = slots
                .chunks(chunk)
                .map(|part| {
                    scope.spawn(move || {
                        part.iter()
                            .map(|&slot| self.nearest_to(index, slot))
                            .collect::<Vec<u32>>()
                    })
                })
                .collect();
            parts
                .into_iter()
                .flat_map(|part| part.join().expect("an assignment thread panicked"))
                .collect()
        })
    }

    /// The lists by their centroid's cosine with the int8 query `q` (norm
    /// `qnorm`), nearest first.
    fn ranked(&self, q: &[i8], qnorm: f32) -> Vec<usize> {
        let mut scored: Vec<(f32, usize)> = self
            .codes
            .chunks_exact(self.dim)
            .zip(&self.norms)
            .enumerate()
            .map(|(list, (codes, norm))| (cosine_i8(codes, *norm, q, qnorm), list))
            .collect();
        scored.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        scored.into_iter().map(|(_, list)| list).collect()
    }

    /// Put the entry in `slot` of `index` (new, one past the last placed,
    /// or placed before and maybe changed) into its nearest list.
    fn place(&mut self, index: &VectorIndex, slot: usize) {
        let list = self.nearest_to(index, slot);
        match self.place.get(slot) {
            Some(&(old, pos)) if old == list => {
                // Same list: its copies of the entry are refreshed.
                let words = self.words;
                let to = &mut self.lists[list as usize];
                let old = std::mem::replace(&mut to.packed[pos as usize], index.packed[slot]);
                *self.tenants.entry(old.tenant).or_default() -= 1;
                *self.tenants.entry(index.packed[slot].tenant).or_default() += 1;
                to.sketches[pos as usize * words..(pos as usize + 1) * words]
                    .copy_from_slice(index.sketch_of(slot));
                return;
            }
            Some(_) => self.take_out(slot),
            None => self.place.push((0, 0)),
        }
        self.put(index, slot, list);
    }

    /// Append the entry in `slot` to `list`.
    fn put(&mut self, index: &VectorIndex, slot: usize, list: u32) {
        let to = &mut self.lists[list as usize];
        self.place[slot] = (list, to.slots.len() as u32);
        to.slots.push(slot as u32);
        to.packed.push(index.packed[slot]);
        *self.tenants.entry(index.packed[slot].tenant).or_default() += 1;
        to.sketches.extend_from_slice(index.sketch_of(slot));
    }

    /// Take `slot` out of its list (its place is left stale).
    fn take_out(&mut self, slot: usize) {
        let (list, pos) = self.place[slot];
        let (pos, words) = (pos as usize, self.words);
        let from = &mut self.lists[list as usize];
        let last = from.slots.len() - 1;
        from.slots.swap_remove(pos);
        let gone = from.packed.swap_remove(pos);
        *self.tenants.entry(gone.tenant).or_default() -= 1;
        from.sketches
            .copy_within(last * words..(last + 1) * words, pos * words);
        from.sketches.truncate(last * words);
        if let Some(&moved) = from.slots.get(pos) {
            self.place[moved as usize].1 = pos as u32;
        }
    }

    /// The entry in `slot` leaves and the one in `last` moves into its
    /// slot, as the index's arrays do.
    fn remove(&mut self, slot: usize, last: usize) {
        self.take_out(slot);
        if slot != last {
            let (list, pos) = self.place[last];
            self.lists[list as usize].slots[pos as usize] = slot as u32;
            self.place[slot] = (list, pos);
        }
        self.place.pop();
    }
}

impl VectorIndex {
    /// Partition the index, or train its partitions again, when its size
    /// calls for it: from `at` entries, and again when it has doubled or
    /// halved since it was trained. Called once a load or catch-up is done.
    pub fn settle(&mut self, at: usize) {
        let n = self.len();
        let stale = match &self.partitions {
            None => true,
            Some(p) => n >= 2 * p.trained_for || 2 * n < p.trained_for,
        };
        if n < at.max(1) || self.dim == 0 {
            self.partitions = None;
        } else if stale {
            self.partitions = Some(Partitions::train(self));
        }
    }

    /// Whether the index is partitioned.
    pub fn is_partitioned(&self) -> bool {
        self.partitions.is_some()
    }

    /// Keep the partitions in step with an upsert into `slot`.
    pub(super) fn place_in_partition(&mut self, slot: usize) {
        if let Some(mut parts) = self.partitions.take() {
            parts.place(self, slot);
            self.partitions = Some(parts);
        }
    }

    /// Keep the partitions in step with the removal of `slot` (the entry in
    /// `last` moving into it).
    pub(super) fn remove_from_partition(&mut self, slot: usize, last: usize) {
        if let Some(parts) = &mut self.partitions {
            parts.remove(slot, last);
        }
    }

    /// The `rescore` nearest entries by sketch distance to `q_sketch`
    /// among those passing `admit`, found by scanning the lists nearest
    /// the query's int8 codes `q` (norm `q_norm`; see the module docs);
    /// `None` when the index is not partitioned.
    pub(super) fn probe(
        &self,
        admit: &CompiledFilter,
        (q, q_norm): (&[i8], f32),
        q_sketch: &[u64],
        rescore: usize,
    ) -> Option<Vec<usize>> {
        let parts = self.partitions.as_ref()?;
        let tenant = parts.tenants.get(&admit.tenant).copied().unwrap_or(0);
        let want = rescore
            .saturating_mul(PROBE_PER_CANDIDATE)
            .max(tenant / PROBE_SHARE);
        let mut scanned = Scanned::new(self.words, want.min(self.len()));
        let mut slots: Vec<u32> = Vec::with_capacity(want.min(self.len()));
        for list in parts.ranked(q, q_norm) {
            let list = &parts.lists[list];
            let entries = (&list.packed[..], &list.sketches[..]);
            self.scan(
                admit,
                entries,
                |i| list.slots[i] as usize,
                q_sketch,
                &mut scanned,
            );
            slots.extend_from_slice(&list.slots);
            if scanned.admitted >= want {
                break;
            }
        }
        let rescore = rescore.saturating_mul(RESCORE_BOOST);
        let nearest = nearest_by_histogram(&scanned.distances, &scanned.histogram(), rescore);
        Some(nearest.into_iter().map(|i| slots[i] as usize).collect())
    }

    /// Every list's member slots and each slot's place agree, and every
    /// slot is in exactly one list.
    #[cfg(test)]
    pub(super) fn check_partitions(&self) {
        let Some(parts) = &self.partitions else {
            return;
        };
        assert_eq!(parts.place.len(), self.len());
        let mut seen = vec![false; self.len()];
        for (l, list) in parts.lists.iter().enumerate() {
            assert_eq!(list.packed.len(), list.slots.len());
            assert_eq!(list.sketches.len(), list.slots.len() * self.words);
            for (pos, &slot) in list.slots.iter().enumerate() {
                let slot = slot as usize;
                assert_eq!(parts.place[slot], (l as u32, pos as u32));
                assert!(!std::mem::replace(&mut seen[slot], true));
                assert_eq!(list.packed[pos], self.packed[slot]);
                let words = self.words;
                assert_eq!(
                    &list.sketches[pos * words..(pos + 1) * words],
                    self.sketch_of(slot)
                );
            }
        }
        assert!(seen.into_iter().all(|s| s));
        for (tenant, count) in &parts.tenants {
            let actual = self.packed.iter().filter(|p| p.tenant == *tenant).count();
            assert_eq!(*count, actual, "tenant {tenant}");
        }
        assert!(!parts.lists.is_empty());
    }
}

#[cfg(test)]
mod tests {
    use cairn_core::store::{Filter, ScopeFilter};
    use cairn_core::MemoryId;

    use super::super::tests::{attrs, blob, vector};
    use super::*;

    /// `n` vectors around 50 directions, as embeddings of related texts
    /// gather around topics.
    fn clustered(n: u64, dim: usize) -> Vec<Vec<f32>> {
        (0..n)
            .map(|i| {
                let mut v = vector(i % 50 + 1, dim);
                v.iter_mut()
                    .zip(vector(1000 + i, dim))
                    .for_each(|(a, b)| *a += 0.8 * b);
                v
            })
            .collect()
    }

    /// Recall@10 of the two-stage search rescoring `rescore` candidates,
    /// against every admitted entry rescored.
    fn recall(index: &VectorIndex, queries: &[Vec<f32>], filter: &Filter, rescore: usize) -> f64 {
        let mut found = 0;
        for q in queries {
            let exact = index.search_exact(q, filter, 10);
            let approx = index.search_rescoring(q, filter, 10, rescore);
            found += approx
                .iter()
                .filter(|h| exact.iter().any(|e| e.id == h.id))
                .count();
        }
        found as f64 / (10 * queries.len()) as f64
    }

    #[test]
    fn a_partitioned_index_finds_what_the_flat_one_finds_and_stays_consistent() {
        let dim = 384;
        let n = 4000;
        let mut index = VectorIndex::default();
        let vectors = clustered(n, dim);
        for (i, v) in vectors.iter().enumerate() {
            let project = (i % 97 == 0).then_some("small");
            let a = attrs(&mut index, i as u32, project);
            index.upsert(i as i64, a, &blob(v));
        }
        let queries: Vec<Vec<f32>> = clustered(n + 40, dim).split_off(n as usize);
        let all = Filter::new("default", 0).scope(ScopeFilter::All);
        // 40 candidates: a quarter of the entries is probed.
        let flat = recall(&index, &queries, &all, 40);
        index.settle(n as usize + 1);
        assert!(!index.is_partitioned(), "below the threshold");
        index.settle(1000);
        assert!(index.is_partitioned());
        index.check_partitions();
        let partitioned = recall(&index, &queries, &all, 40);
        assert!(
            partitioned >= flat - 0.05,
            "recall {partitioned} against {flat} unpartitioned"
        );
        // An entry's own vector finds it first.
        for i in [0usize, 1234, 3999] {
            let hit = index.search_rescoring(&vectors[i], &all, 1, 40)[0];
            assert_eq!(hit.id, index.attrs[i].id, "entry {i}");
        }
        // A selective filter scans every list: each admitted entry (fewer
        // than the candidates rescored) is found.
        let small = Filter::new("default", 0).scope(ScopeFilter::Exactly(Some("small".into())));
        let hits = index.search_rescoring(&queries[0], &small, 100, 20);
        assert_eq!(hits.len(), (n as usize).div_ceil(97));
        assert_eq!(
            index.search(&queries[0], &small, 100).len(),
            (n as usize).div_ceil(97)
        );

        // Writes after training: removals (which move the last entry),
        // new entries and changed vectors are all found, removed ones never.
        for i in (0..n as i64).step_by(7) {
            index.remove(i);
        }
        let moved = |i: i64| vector(i as u64 * 3, dim);
        for i in (n as i64..n as i64 + 300).chain((1..n as i64).step_by(11).filter(|i| i % 7 != 0))
        {
            let a = attrs(&mut index, i as u32, None);
            index.upsert(i, a, &blob(&moved(i)));
        }
        index.check_partitions();
        for i in [n as i64 + 1, n as i64 + 299, 12, 1090] {
            let hit = index.search_rescoring(&moved(i), &all, 1, 40)[0];
            assert_eq!(hit.id, index.attrs[index.slots[&i]].id, "entry {i}");
        }
        let removed = MemoryId::new_at(1_000_007);
        let near_removed = index.search_rescoring(&vectors[7], &all, 40, 40);
        assert!(near_removed.iter().all(|h| h.id != removed));
        let after = recall(&index, &queries, &all, 40);
        assert!(after >= flat - 0.05, "recall after writes {after}");
        // Halved: trained again; under the threshold: flat again.
        for i in 0..2400 {
            index.remove(i);
        }
        assert!((1000..2000).contains(&index.len()), "{}", index.len());
        index.settle(1000);
        assert_eq!(
            index.partitions.as_ref().map(|p| p.trained_for),
            Some(index.len())
        );
        index.check_partitions();
        index.settle(100_000);
        assert!(!index.is_partitioned());
    }
}
