//! A packed copy of a [`VectorIndex`], saved in the store file so that a
//! new process reads a few blobs instead of decoding every `vindex` row
//! one by one, which is many times slower at 100,000 memories.
//!
//! A snapshot is only a cache. It records the revisions it reflects, and
//! a process that loads it catches up from there exactly as a running
//! process does (rows written since, tombstones, accesses). A snapshot that
//! fails to decode is ignored and the index is loaded from its rows.
//!
//! # Format
//! Little-endian throughout; the format version is part of the magic.
//! - Part 0: [`MAGIC`], the content revision (`i64`), the access revision
//!   (`i64`), the dimension (`u32`), the entry count (`u64`), the name
//!   count (`u32`); then the interned names (ids 1, 2, … in order), each a
//!   `u32` byte length and UTF-8; then one record per entry: rowid `i64`,
//!   id (16 bytes), tenant name id `u32`, project name id `u32` (0 for
//!   global), type `u8`, flags `u8` ([`SUPERSEDED`] and which optional
//!   times follow), created `i64`, then valid from, valid to, expiry and
//!   last access (`i64` each, only those flagged), access count `u64`,
//!   weight `f64`, tag count `u32` and the tags (as names), then, if
//!   flagged [`THREAD`], the session, conversation and topic (as names),
//!   then, if flagged [`SLOT`], the slot (as a name); then the source's
//!   name id `u32`.
//!   After the entries, the partitions (module `partitions`): their count
//!   `u32` (0: none), and if any, the entry count they were trained for
//!   (`u64`), the centroids' int8 codes (`dim` each) and each entry's list
//!   (`u32`, in entry order).
//! - Parts 1, 2, …: the entries' int8 codes, in entry order,
//!   [`ENTRIES_PER_PART`] entries per part (SQLite caps one value at 1 GB).
//!
//! Norms and sign sketches are computed again on load: they cost a few
//! milliseconds and would add an eighth to the snapshot.

use std::sync::Arc;

use cairn_core::{MemoryId, MemoryType, Thread};

use super::{code_norm, sketch_codes, EntryAttributes, PackedEntry, Partitions, VectorIndex};

/// The first bytes of part 0; the last one is the format version.
pub(super) const MAGIC: &[u8; 8] = b"cairnvx5";
/// Entries whose codes go into one part after part 0.
pub(super) const ENTRIES_PER_PART: usize = 65_536;

/// The smallest entry record in part 0 (no optional times, no tags).
const MIN_ENTRY_BYTES: usize = 8 + 16 + 4 + 4 + 1 + 1 + 8 + 8 + 8 + 4 + 4;

const SUPERSEDED: u8 = 1;
const VALID_FROM: u8 = 1 << 1;
const VALID_TO: u8 = 1 << 2;
const EXPIRES: u8 = 1 << 3;
const LAST_ACCESS: u8 = 1 << 4;
const THREAD: u8 = 1 << 5;
const SLOT: u8 = 1 << 6;

/// The revisions a snapshot reflects, read from its part 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SnapshotRevs {
    /// Content revision.
    pub rev: i64,
    /// Access revision.
    pub access_rev: i64,
}

impl VectorIndex {
    /// This index as snapshot parts (see the module docs): part 0,
    /// then the codes.
    pub fn snapshot(&self) -> Vec<Vec<u8>> {
        let mut names = vec![""; self.name_ids.len()];
        for (name, &id) in &self.name_ids {
            names[id as usize - 1] = name;
        }
        let mut head = Vec::with_capacity(48 + self.len() * 72);
        head.extend_from_slice(MAGIC);
        head.extend_from_slice(&self.rev.to_le_bytes());
        head.extend_from_slice(&self.access_rev.to_le_bytes());
        put_u32(&mut head, self.dim);
        head.extend_from_slice(&(self.len() as u64).to_le_bytes());
        put_u32(&mut head, names.len());
        for name in names {
            put_str(&mut head, name);
        }
        for (slot, a) in self.attrs.iter().enumerate() {
            let packed = &self.packed[slot];
            head.extend_from_slice(&self.rowids[slot].to_le_bytes());
            head.extend_from_slice(a.id.0.as_bytes());
            head.extend_from_slice(&packed.tenant.to_le_bytes());
            head.extend_from_slice(&packed.project.to_le_bytes());
            head.push(packed.kind);
            let optional = [
                (VALID_FROM, a.valid_from),
                (VALID_TO, a.valid_to),
                (EXPIRES, a.expires_at),
                (LAST_ACCESS, a.last_accessed_at),
            ];
            let mut flags = optional
                .iter()
                .filter(|(_, t)| t.is_some())
                .fold(if a.superseded { SUPERSEDED } else { 0 }, |f, (bit, _)| {
                    f | bit
                });
            if a.thread.is_some() {
                flags |= THREAD;
            }
            if a.slot.is_some() {
                flags |= SLOT;
            }
            head.push(flags);
            head.extend_from_slice(&a.created_at.to_le_bytes());
            for t in optional.iter().filter_map(|(_, t)| *t) {
                head.extend_from_slice(&t.to_le_bytes());
            }
            head.extend_from_slice(&a.access_count.to_le_bytes());
            head.extend_from_slice(&a.weight.to_le_bytes());
            put_u32(&mut head, a.tags.len());
            for tag in &a.tags {
                put_str(&mut head, tag);
            }
            if let Some(t) = &a.thread {
                for part in [&t.session, &t.conversation, &t.topic] {
                    put_str(&mut head, part);
                }
            }
            if let Some(name) = &a.slot {
                put_str(&mut head, name);
            }
            head.extend_from_slice(&self.name_ids[&*a.source].to_le_bytes());
        }
        match &self.partitions {
            None => put_u32(&mut head, 0),
            Some(p) => {
                let (centroids, trained_for, lists_of) = p.kept();
                put_u32(&mut head, centroids.len() / self.dim.max(1));
                head.extend_from_slice(&(trained_for as u64).to_le_bytes());
                head.extend(centroids.iter().map(|&c| c as u8));
                for list in lists_of {
                    head.extend_from_slice(&list.to_le_bytes());
                }
            }
        }
        let mut parts = vec![head];
        parts.extend(
            self.codes
                .chunks(ENTRIES_PER_PART * self.dim.max(1))
                .map(|chunk| chunk.iter().map(|&c| c as u8).collect()),
        );
        parts
    }

    /// Rebuild an index from a snapshot's part 0 (`head`) and the
    /// concatenation of its other parts (`codes`). Every length, name id
    /// and type is checked; an error says what is wrong.
    pub fn from_snapshot(head: &[u8], codes: Vec<u8>) -> Result<VectorIndex, String> {
        let mut r = Reader { buf: head, pos: 0 };
        if r.take(MAGIC.len())? != MAGIC {
            return Err("not a vector-index snapshot of this version".into());
        }
        let revs = SnapshotRevs {
            rev: r.i64()?,
            access_rev: r.i64()?,
        };
        let dim = r.u32()? as usize;
        let n = usize::try_from(r.u64()?).map_err(|_| "entry count overflows")?;
        if n > 0 && dim == 0 {
            return Err(format!("{n} entries of no dimension"));
        }
        if codes.len() != n.checked_mul(dim).ok_or("code size overflows")? {
            return Err(format!(
                "{} code bytes for {n} entries of {dim} dimensions",
                codes.len()
            ));
        }
        let mut index = VectorIndex {
            rev: revs.rev,
            access_rev: revs.access_rev,
            loaded: true,
            dim,
            words: dim.div_ceil(64),
            ..VectorIndex::default()
        };
        let name_count = r.u32()?;
        // Counts are checked against the bytes left before anything is
        // allocated for them: a damaged count must not ask for gigabytes.
        r.room_for(name_count as usize, 4)?;
        let mut names = Vec::with_capacity(name_count as usize);
        for expected in 1..=name_count {
            let name = r.str()?;
            let interned = index.intern(name);
            if index.name_ids.get(name) != Some(&expected) {
                return Err(format!("name {name:?} appears twice"));
            }
            names.push(interned);
        }
        let name = |id: u32| -> Result<Arc<str>, String> {
            names
                .get((id as usize).wrapping_sub(1))
                .cloned()
                .ok_or_else(|| format!("name id {id} out of range"))
        };
        r.room_for(n, MIN_ENTRY_BYTES)?;
        index.rowids.reserve(n);
        index.packed.reserve(n);
        index.attrs.reserve(n);
        index.slots.reserve(n);
        for slot in 0..n {
            let rowid = r.i64()?;
            let id = MemoryId(uuid::Uuid::from_bytes(r.take(16)?.try_into().unwrap()));
            let (tenant, project) = (r.u32()?, r.u32()?);
            let kind = r.u8()?;
            let flags = r.u8()?;
            let created_at = r.i64()?;
            let mut optional = |bit: u8| (flags & bit != 0).then(|| r.i64()).transpose();
            let (valid_from, valid_to, expires_at, last_accessed_at) = (
                optional(VALID_FROM)?,
                optional(VALID_TO)?,
                optional(EXPIRES)?,
                optional(LAST_ACCESS)?,
            );
            let access_count = r.u64()?;
            let weight = f64::from_bits(r.u64()?);
            let tag_count = r.u32()? as usize;
            r.room_for(tag_count, 4)?;
            let tags = (0..tag_count)
                .map(|_| r.str().map(str::to_owned))
                .collect::<Result<Vec<_>, _>>()?;
            let thread = if flags & THREAD != 0 {
                let (session, conversation, topic) = (r.str()?, r.str()?, r.str()?);
                Some(index.intern_thread(Thread {
                    session: session.to_owned(),
                    conversation: conversation.to_owned(),
                    topic: topic.to_owned(),
                }))
            } else {
                None
            };
            // (`slot` here is the entry's place in the index.)
            let memory_slot = match flags & SLOT != 0 {
                true => Some(index.intern(r.str()?)),
                false => None,
            };
            let source = name(r.u32()?)?;
            let attrs = EntryAttributes {
                id,
                tenant: name(tenant)?,
                project: if project == 0 {
                    None
                } else {
                    Some(name(project)?)
                },
                kind: *MemoryType::ALL
                    .get(usize::from(kind))
                    .ok_or_else(|| format!("type {kind} out of range"))?,
                tags,
                created_at,
                valid_from,
                valid_to,
                expires_at,
                superseded: flags & SUPERSEDED != 0,
                access_count,
                last_accessed_at,
                weight,
                thread,
                slot: memory_slot,
                source,
            };
            if index.slots.insert(rowid, slot).is_some() {
                return Err(format!("row {rowid} appears twice"));
            }
            index.rowids.push(rowid);
            index.packed.push(PackedEntry {
                tenant,
                project,
                kind,
                superseded: attrs.superseded,
                expires: expires_at.is_some(),
                slotted: attrs.slot.is_some(),
            });
            index.attrs.push(attrs);
        }
        let partitions = r.partitions(n, dim)?;
        if r.pos != head.len() {
            return Err(format!("{} bytes left over", head.len() - r.pos));
        }
        index.set_codes(codes);
        if let Some((centroids, trained_for, lists_of)) = partitions {
            index.partitions = Some(Partitions::restore(
                &index,
                centroids,
                trained_for,
                &lists_of,
            )?);
        }
        Ok(index)
    }
}

impl VectorIndex {
    /// Take the entries' codes (in entry order) and compute their norms and
    /// sketches.
    fn set_codes(&mut self, codes: Vec<u8>) {
        // Same size and alignment: collected in place, no copy.
        self.codes = codes.into_iter().map(|b| b as i8).collect();
        self.norms = self
            .codes
            .chunks_exact(self.dim.max(1))
            .map(code_norm)
            .collect();
        self.sketches = vec![0; self.len() * self.words];
        if self.dim > 0 {
            let rows = self.codes.chunks_exact(self.dim);
            for (codes, sketch) in rows.zip(self.sketches.chunks_exact_mut(self.words)) {
                sketch_codes(codes, sketch);
            }
        }
    }
}

/// What a snapshot keeps of partitions: the centroids' codes, the entry
/// count they were trained for, each entry's list.
type KeptPartitions = (Vec<i8>, usize, Vec<u32>);

/// The revisions recorded in a snapshot's part 0, without decoding it.
pub fn snapshot_revs(head: &[u8]) -> Option<SnapshotRevs> {
    let mut r = Reader { buf: head, pos: 0 };
    (r.take(MAGIC.len()).ok()? == MAGIC).then_some(())?;
    Some(SnapshotRevs {
        rev: r.i64().ok()?,
        access_rev: r.i64().ok()?,
    })
}

fn put_u32(out: &mut Vec<u8>, n: usize) {
    let n = u32::try_from(n).expect("snapshot counts and lengths fit in u32");
    out.extend_from_slice(&n.to_le_bytes());
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_u32(out, s.len());
    out.extend_from_slice(s.as_bytes());
}

/// Bounds-checked reads from part 0.
struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&end| end <= self.buf.len())
            .ok_or_else(|| format!("truncated at byte {}", self.pos))?;
        let bytes = &self.buf[self.pos..end];
        self.pos = end;
        Ok(bytes)
    }

    /// An error unless `count` items of at least `size` bytes each fit in
    /// what is left.
    fn room_for(&self, count: usize, size: usize) -> Result<(), String> {
        let left = self.buf.len() - self.pos;
        if count.checked_mul(size).is_some_and(|need| need <= left) {
            Ok(())
        } else {
            Err(format!("{count} items cannot fit in the {left} bytes left"))
        }
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], String> {
        Ok(self.take(N)?.try_into().unwrap())
    }

    fn u8(&mut self) -> Result<u8, String> {
        Ok(self.array::<1>()?[0])
    }

    fn u32(&mut self) -> Result<u32, String> {
        self.array().map(u32::from_le_bytes)
    }

    fn u64(&mut self) -> Result<u64, String> {
        self.array().map(u64::from_le_bytes)
    }

    fn i64(&mut self) -> Result<i64, String> {
        self.array().map(i64::from_le_bytes)
    }

    fn str(&mut self) -> Result<&'a str, String> {
        let n = self.u32()? as usize;
        std::str::from_utf8(self.take(n)?).map_err(|e| format!("bad UTF-8: {e}"))
    }

    /// The partitions of `n` entries of `dim` dimensions, if any: the
    /// centroids' codes, the entry count they were trained for, and each
    /// entry's list.
    fn partitions(&mut self, n: usize, dim: usize) -> Result<Option<KeptPartitions>, String> {
        let lists = self.u32()? as usize;
        if lists == 0 {
            return Ok(None);
        }
        let trained_for = usize::try_from(self.u64()?).map_err(|_| "entry count overflows")?;
        self.room_for(lists, dim)?;
        let centroids = self.take(lists * dim)?.iter().map(|&b| b as i8).collect();
        self.room_for(n, 4)?;
        let lists_of = (0..n).map(|_| self.u32()).collect::<Result<_, _>>()?;
        Ok(Some((centroids, trained_for, lists_of)))
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{attrs, blob, vector};
    use super::*;
    use cairn_core::store::Filter;

    /// An index with a bit of everything: projects, tags, optional times,
    /// conversation messages, slots, sources, superseded entries, a removed entry,
    /// and more than one code part's worth of names.
    fn sample(n: u32) -> VectorIndex {
        let mut index = VectorIndex::default();
        for i in 0..n {
            let project = ["alpha", "beta"].get(i as usize % 3).copied();
            let mut a = attrs(&mut index, i, project);
            a.tags = (0..i % 3).map(|t| format!("tag-{t}")).collect();
            a.valid_to = (i % 4 == 0).then_some(i64::from(i) * 7);
            a.expires_at = (i % 5 == 0).then_some(i64::from(i) << 40);
            a.last_accessed_at = (i % 2 == 0).then_some(-i64::from(i));
            a.superseded = i % 7 == 0;
            a.weight = 0.5 + f64::from(i) / 100.0;
            a.kind = MemoryType::ALL[i as usize % MemoryType::ALL.len()];
            a.thread = (i % 6 == 1).then(|| {
                index.intern_thread(Thread {
                    session: format!("s{}", i % 4),
                    conversation: "c".into(),
                    topic: format!("t{}", i % 12),
                })
            });
            a.slot = ["inbox", "beta"]
                .get(i as usize % 5)
                .map(|s| index.intern(s));
            a.source = index.intern(["manual", "import:mem0", "conversation"][i as usize % 3]);
            index.upsert(i64::from(i) * 3 + 1, a, &blob(&vector(u64::from(i), 48)));
        }
        index.remove(4);
        index.rev = 41;
        index.access_rev = 17;
        index.loaded = true;
        index
    }

    fn decode(parts: &[Vec<u8>]) -> Result<VectorIndex, String> {
        VectorIndex::from_snapshot(&parts[0], parts[1..].concat())
    }

    #[test]
    fn a_partitioned_index_keeps_its_partitions_in_its_snapshot() {
        let mut index = sample(300);
        index.settle(100);
        let copy = decode(&index.snapshot()).unwrap();
        copy.check_partitions();
        assert!(copy.partitions.is_some() && copy.partitions == index.partitions);
        let filter = Filter::new("default", 0);
        let query = vector(11, 48);
        assert_eq!(
            format!("{:?}", copy.search_rescoring(&query, &filter, 10, 20)),
            format!("{:?}", index.search_rescoring(&query, &filter, 10, 20))
        );
        // A list out of range is refused.
        let mut parts = index.snapshot();
        let last = parts[0].len() - 4;
        parts[0][last..].copy_from_slice(&u32::MAX.to_le_bytes());
        let refused = decode(&parts).err().expect("a list out of range");
        assert!(refused.contains("out of range"), "{refused}");
    }

    #[test]
    fn a_snapshot_decodes_to_the_same_index() {
        let index = sample(200);
        let parts = index.snapshot();
        let copy = decode(&parts).unwrap();
        assert_eq!((copy.rev, copy.access_rev, copy.loaded), (41, 17, true));
        assert_eq!(copy.len(), index.len());
        assert_eq!(copy.rowids, index.rowids);
        assert_eq!(copy.codes, index.codes);
        assert_eq!(copy.norms, index.norms);
        assert_eq!(copy.sketches, index.sketches);
        assert_eq!(copy.name_ids, index.name_ids);
        assert_eq!(format!("{:?}", copy.attrs), format!("{:?}", index.attrs));
        assert_eq!(format!("{:?}", copy.packed), format!("{:?}", index.packed));
        assert_eq!(copy.slots, index.slots);
        let mut filter = Filter::new("default", 0);
        filter.include_superseded = true;
        let query = vector(7, 48);
        assert_eq!(
            format!("{:?}", copy.search(&query, &filter, 10)),
            format!("{:?}", index.search(&query, &filter, 10))
        );
        filter.scope = cairn_core::ScopeFilter::All;
        filter.thread = Some(cairn_core::ThreadScope::Session("s1".into()));
        let in_session = copy.search(&query, &filter, 10);
        assert_eq!(
            format!("{in_session:?}"),
            format!("{:?}", index.search(&query, &filter, 10))
        );
        assert!(!in_session.is_empty());
        filter.thread = None;
        filter.slots = vec!["inbox".into()];
        let in_slot = copy.search(&query, &filter, 10);
        assert_eq!(
            format!("{in_slot:?}"),
            format!("{:?}", index.search(&query, &filter, 10))
        );
        assert!(!in_slot.is_empty());
        filter.slots = Vec::new();
        filter.hidden_slots = vec!["inbox".into(), "beta".into()];
        let unslotted = copy.search(&query, &filter, 10);
        assert_eq!(
            format!("{unslotted:?}"),
            format!("{:?}", index.search(&query, &filter, 10))
        );
        assert!(!unslotted.is_empty());
        assert_eq!(
            snapshot_revs(&parts[0]),
            Some(SnapshotRevs {
                rev: 41,
                access_rev: 17
            })
        );
        // Encoding the copy again gives the same bytes.
        assert_eq!(copy.snapshot(), parts);
    }

    #[test]
    fn an_empty_index_round_trips() {
        let parts = VectorIndex::default().snapshot();
        assert_eq!(parts.len(), 1);
        let copy = decode(&parts).unwrap();
        assert!(copy.is_empty() && copy.loaded);
    }

    #[test]
    fn damaged_snapshots_are_refused() {
        let parts = sample(30).snapshot();
        let head = &parts[0];
        // Every truncation of part 0 is an error, never a panic.
        for len in 0..head.len() {
            assert!(VectorIndex::from_snapshot(&head[..len], parts[1].clone()).is_err());
        }
        let mut longer = head.clone();
        longer.push(0);
        assert!(VectorIndex::from_snapshot(&longer, parts[1].clone()).is_err());
        // Codes of the wrong length.
        let mut codes = parts[1].clone();
        codes.pop();
        assert!(VectorIndex::from_snapshot(head, codes).is_err());
        // Another version.
        let mut other = head.clone();
        other[7] = b'9';
        assert!(VectorIndex::from_snapshot(&other, parts[1].clone()).is_err());
        assert_eq!(snapshot_revs(&other), None);
        // Random bytes flipped anywhere: an error or a consistent index.
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let mut bad = head.clone();
            let at = (x % bad.len() as u64) as usize;
            bad[at] ^= (x >> 32) as u8 | 1;
            if let Ok(index) = VectorIndex::from_snapshot(&bad, parts[1].clone()) {
                assert_eq!(index.len(), index.attrs.len());
                assert_eq!(index.slots.len(), index.len());
            }
        }
    }
}
