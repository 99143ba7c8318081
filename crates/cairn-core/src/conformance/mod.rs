//! The conformance suite every [`Store`] backend runs (feature
//! `conformance`).
//!
//! Written once, run against the in-memory store, SQLite, and later
//! PostgreSQL, like tantivy's directory tests. A backend's test file calls
//! [`store_conformance_tests!`](crate::store_conformance_tests) with an
//! expression that makes a fresh, empty store.
//!
//! Besides the store checks, the `engine_*` checks run the [`Cairn`] engine
//! over the backend with [`LexicalEmbedder`], a small deterministic
//! embedder, so that dedup, supersession, TTL and import/export are proven
//! on every backend without loading a neural model.

use std::sync::Arc;

use serde_json::json;

use crate::engine::{
    Cairn, RecallRequest, RememberRequest, SearchMode, UpdateRequest, WriteStatus,
};
use crate::history::{Change, ChangeKind, Deletion, LOCAL_ACTOR};
use crate::memory::{EmbedRecipe, Memory, MemoryId, MemoryType};
use crate::store::{Filter, Hit, Inserted, ListOrder, RankFactors, ScopeFilter, Store, WriteBatch};
use crate::wire::{parse_record_line, MemoryRecord};
use crate::{Embedder, Error, ModelInfo, Result};

mod conflicts;
mod listing;
mod pending;
pub mod secrets;
mod slots;
mod threads;
pub use conflicts::{engine_conflicts_prefer_newer, engine_conflicts_supersede_and_flag};
pub use listing::check_sources_superseded_and_expiry;
pub use pending::{engine_keeps_messages_pending, engine_keeps_writes_pending};
pub use slots::{
    check_packing, check_slot_dedup, check_slot_filters, check_slot_moves, check_slot_roundtrip,
    engine_slots,
};
pub use threads::{check_collections, check_thread_scopes};

/// The one dimension of every vector in the suite: MiniLM's, so that a
/// backend with a typed vector column passes it as it is.
pub const DIM: usize = 384;

/// A deterministic bag-of-words embedder: each lowercase word is hashed
/// (FNV-1a) to one of [`DIM`] dimensions with a sign, and the sum is
/// L2-normalised. Texts sharing words are similar; identical texts have
/// cosine 1. For tests of the engine's logic only.
pub struct LexicalEmbedder;

impl Embedder for LexicalEmbedder {
    fn model(&self) -> ModelInfo {
        ModelInfo {
            name: "lexical-test".into(),
            dim: DIM,
        }
    }

    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        Ok(texts.iter().map(|t| lexical_vector(t, DIM)).collect())
    }
}

fn lexical_vector(text: &str, dim: usize) -> Vec<f32> {
    let mut v = vec![0f32; dim];
    for word in crate::store::query_terms(text) {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in word.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        let sign = if h >> 63 == 0 { 1.0 } else { -1.0 };
        v[(h % dim as u64) as usize] += sign;
    }
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
    v
}

/// A fixed clock for reproducible checks: 2026-01-01T00:00:00Z.
pub const T0: i64 = 1_767_225_600_000;

/// A deletion by the local user at [`T0`].
pub fn forgotten() -> Deletion {
    Deletion::new(LOCAL_ACTOR, "forgotten", T0)
}

/// A memory with every field set to something non-default.
pub fn sample(
    i: u32,
    tenant: &str,
    project: Option<&str>,
    kind: MemoryType,
    content: &str,
) -> Memory {
    let created = T0 + i64::from(i) * 1000;
    Memory {
        id: MemoryId::new_at(created),
        tenant: tenant.into(),
        content: content.into(),
        kind,
        project: project.map(str::to_string),
        tags: vec!["alpha".into(), format!("t{}", i % 3)],
        metadata: json!({"speaker": "Ada", "n": i})
            .as_object()
            .cloned()
            .unwrap_or_default(),
        importance: 0.25,
        weight: 1.0,
        source: "manual".into(),
        created_at: created,
        updated_at: created,
        last_accessed_at: None,
        access_count: 0,
        expires_at: None,
        valid_from: None,
        valid_to: None,
        supersedes: None,
        superseded_by: None,
        thread: None,
        slot: None,
        search_context: None,
    }
}

/// A unit vector along axis `i` of `dim` (with a little of axis 0 so that
/// cosines are distinct).
pub fn axis(i: usize, dim: usize) -> Vec<f32> {
    let mut v = vec![0f32; dim];
    v[i % dim] = 1.0;
    v[0] += 0.1;
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter_mut().for_each(|x| *x /= n);
    v
}

fn insert(store: &dyn Store, items: Vec<(Memory, Vec<f32>)>) {
    store
        .write(WriteBatch {
            inserts: items,
            ..Default::default()
        })
        .expect("insert");
}

fn filter_all(tenant: &str) -> Filter {
    Filter::new(tenant, T0).scope(ScopeFilter::All)
}

/// Inserted memories come back field for field, with their embedding.
pub fn check_roundtrip(store: Arc<dyn Store>) {
    let mut m = sample(
        1,
        "default",
        Some("atlas"),
        MemoryType::Fact,
        "héllo wörld 🦀 \"quoted\"",
    );
    m.last_accessed_at = Some(T0 + 5);
    m.access_count = 3;
    m.expires_at = Some(T0 + 10_000_000);
    m.valid_from = Some(T0 - 1);
    m.valid_to = Some(T0 + 99);
    m.supersedes = Some(MemoryId::new_at(T0 - 100));
    m.superseded_by = Some(MemoryId::new_at(T0 + 100));
    m.weight = 0.1;
    let v = axis(3, DIM);
    insert(&*store, vec![(m.clone(), v.clone())]);
    assert_eq!(store.get("default", &[m.id]).unwrap(), vec![m.clone()]);
    let e = store
        .embeddings("default", &[m.id])
        .unwrap()
        .remove(0)
        .unwrap();
    assert_eq!(e, v);
    // Other tenants see nothing.
    assert!(store.get("other", &[m.id]).unwrap().is_empty());
    assert!(store
        .embeddings("other", &[m.id])
        .unwrap()
        .remove(0)
        .is_none());
}

/// A batch with one bad write writes nothing.
pub fn check_batches_are_atomic(store: Arc<dyn Store>) {
    let a = sample(1, "default", None, MemoryType::Note, "first");
    insert(&*store, vec![(a.clone(), axis(1, DIM))]);
    let b = sample(2, "default", None, MemoryType::Note, "second");
    // Duplicate id in the batch: refused whole.
    let err = store.write(WriteBatch {
        inserts: vec![(b.clone(), axis(2, DIM)), (a.clone(), axis(1, DIM))],
        ..Default::default()
    });
    assert!(err.is_err());
    assert!(store.get("default", &[b.id]).unwrap().is_empty());
    // Update of a missing memory: refused whole, the good update not applied.
    let mut a2 = a.clone();
    a2.content = "changed".into();
    let ghost = sample(9, "default", None, MemoryType::Note, "ghost");
    let err = store.write(WriteBatch {
        updates: vec![(a2, None), (ghost, None)],
        ..Default::default()
    });
    assert!(err.is_err());
    assert_eq!(store.get("default", &[a.id]).unwrap()[0].content, "first");
    // Another tenant cannot update it.
    let mut stolen = a.clone();
    stolen.tenant = "mallory".into();
    assert!(store
        .write(WriteBatch {
            updates: vec![(stolen, None)],
            ..Default::default()
        })
        .is_err());
}

/// Updates replace the record and keep or replace the embedding.
pub fn check_update(store: Arc<dyn Store>) {
    let a = sample(1, "default", None, MemoryType::Note, "original text");
    insert(&*store, vec![(a.clone(), axis(1, DIM))]);
    let mut b = a.clone();
    b.content = "replacement words".into();
    b.tags = vec!["zulu".into()];
    store
        .write(WriteBatch {
            updates: vec![(b.clone(), None)],
            ..Default::default()
        })
        .unwrap();
    assert_eq!(store.get("default", &[a.id]).unwrap(), vec![b.clone()]);
    assert_eq!(
        store
            .embeddings("default", &[a.id])
            .unwrap()
            .remove(0)
            .unwrap(),
        axis(1, DIM)
    );
    // The keyword index follows the content.
    let f = filter_all("default");
    assert!(store.keyword_search("original", &f, 10).unwrap().is_empty());
    assert_eq!(
        store.keyword_search("replacement", &f, 10).unwrap()[0].id,
        a.id
    );
    assert_eq!(store.keyword_search("zulu", &f, 10).unwrap()[0].id, a.id);
    store
        .write(WriteBatch {
            updates: vec![(b, Some(axis(5, DIM)))],
            ..Default::default()
        })
        .unwrap();
    assert_eq!(
        store
            .embeddings("default", &[a.id])
            .unwrap()
            .remove(0)
            .unwrap(),
        axis(5, DIM)
    );
    assert_eq!(
        store.vector_search(&axis(5, DIM), &f, 1).unwrap()[0].id,
        a.id
    );
}

/// Short ids are the shortest unique prefixes (of the allowed lengths),
/// and each resolves back to its memory.
pub fn check_short_ids(store: Arc<dyn Store>) {
    let with_id = |n: u32, id: &str| {
        let mut m = sample(n, "default", None, MemoryType::Note, &format!("memory {n}"));
        m.id = id.parse().unwrap();
        (m, axis(n as usize % 8, DIM))
    };
    let x1 = "0193aaaa-bbbb-7ccc-8ddd-000000000001";
    let x2 = "0193aaaa-bbbb-7ccc-8ddd-000000000002";
    let y = "0193aaab-0000-7000-8000-000000000000";
    let z = "0193aaaa-bbbc-7000-8000-000000000000";
    insert(
        &*store,
        vec![with_id(1, x1), with_id(2, x2), with_id(3, y), with_id(4, z)],
    );
    // Another tenant's id next to y does not lengthen y's short id.
    let mut other = sample(5, "other", None, MemoryType::Note, "elsewhere");
    other.id = "0193aaab-0000-7000-8000-000000000001".parse().unwrap();
    insert(&*store, vec![(other, axis(5, DIM))]);
    let cairn = engine(store);
    let short = |id: &str, min: usize| {
        cairn
            .short_id_at_least("default", id.parse().unwrap(), min)
            .unwrap()
    };
    assert_eq!(short(y, 8), "0193aaab");
    assert_eq!(short(y, 13), "0193aaab-0000");
    assert_eq!(short(y, 9), "0193aaab-00", "lengths never end in a hyphen");
    assert_eq!(short(z, 8), "0193aaaa-bbbc");
    assert_eq!(short(x1, 8), x1, "35 shared characters: the full id");
    assert_eq!(short(x2, 8), x2);
    for id in [x1, x2, y, z] {
        let s = short(id, 8);
        assert_eq!(cairn.resolve("default", &s).unwrap().to_string(), id);
    }
}

/// Deletes respect tenants; prefixes find ids.
pub fn check_delete_and_prefix(store: Arc<dyn Store>) {
    let a = sample(1, "default", None, MemoryType::Note, "one");
    let b = sample(2, "other", None, MemoryType::Note, "two");
    insert(
        &*store,
        vec![(a.clone(), axis(1, DIM)), (b.clone(), axis(2, DIM))],
    );
    let prefix = &a.id.to_string()[..13];
    assert_eq!(
        store.find_by_prefix("default", prefix, 5).unwrap(),
        vec![a.id]
    );
    assert!(store
        .find_by_prefix("default", "ffff", 5)
        .unwrap()
        .is_empty());
    // Both ids share the time prefix, but tenants are separate.
    assert_eq!(
        store
            .find_by_prefix("other", &b.id.to_string()[..8], 5)
            .unwrap(),
        vec![b.id]
    );
    // Neighbours in id order, per tenant.
    let c = sample(3, "default", None, MemoryType::Note, "three");
    insert(&*store, vec![(c.clone(), axis(3, DIM))]);
    let (first, last) = if a.id < c.id {
        (a.id, c.id)
    } else {
        (c.id, a.id)
    };
    assert_eq!(
        store.id_neighbours("default", &[first]).unwrap()[0],
        (None, Some(last))
    );
    assert_eq!(
        store.id_neighbours("default", &[last]).unwrap()[0],
        (Some(first), None)
    );
    assert_eq!(
        store.id_neighbours("other", &[first]).unwrap()[0]
            .0
            .is_some(),
        b.id < first
    );
    assert_eq!(
        store.id_neighbours("nobody", &[first]).unwrap()[0],
        (None, None)
    );
    store.delete("default", &[c.id], &forgotten()).unwrap();
    assert_eq!(store.delete("default", &[b.id], &forgotten()).unwrap(), 0);
    assert_eq!(store.get("other", &[b.id]).unwrap().len(), 1);
    assert_eq!(store.delete("default", &[a.id], &forgotten()).unwrap(), 1);
    assert!(store.get("default", &[a.id]).unwrap().is_empty());
    assert!(store
        .keyword_search("one", &filter_all("default"), 5)
        .unwrap()
        .is_empty());
    assert!(store
        .vector_search(&axis(1, DIM), &filter_all("default"), 5)
        .unwrap()
        .is_empty());
}

/// Every filter field and listing order.
pub fn check_filters_and_listing(store: Arc<dyn Store>) {
    let mut items = Vec::new();
    let g = sample(0, "default", None, MemoryType::Fact, "global fact");
    let a = sample(1, "default", Some("atlas"), MemoryType::Rule, "atlas rule");
    let b = sample(
        2,
        "default",
        Some("borealis"),
        MemoryType::Fact,
        "borealis fact",
    );
    let mut expired = sample(3, "default", None, MemoryType::Note, "expired note");
    expired.expires_at = Some(T0 - 1);
    let mut old = sample(4, "default", None, MemoryType::Note, "superseded note");
    old.superseded_by = Some(g.id);
    old.valid_to = Some(T0 + 4500);
    let mut used = sample(5, "default", None, MemoryType::Note, "used note");
    used.access_count = 7;
    used.last_accessed_at = Some(T0 + 50_000);
    let foreign = sample(6, "other", None, MemoryType::Fact, "foreign fact");
    for (i, m) in [&g, &a, &b, &expired, &old, &used, &foreign]
        .into_iter()
        .enumerate()
    {
        items.push((m.clone(), axis(i + 1, DIM)));
    }
    insert(&*store, items);
    let ids = |f: &Filter, o: ListOrder| -> Vec<MemoryId> {
        store
            .list(f, o, 100, 0)
            .unwrap()
            .into_iter()
            .map(|m| m.id)
            .collect()
    };
    let base = Filter::new("default", T0);
    assert_eq!(ids(&base, ListOrder::Oldest), vec![g.id, used.id]);
    let atlas = base.clone().scope(ScopeFilter::Project("atlas".into()));
    assert_eq!(ids(&atlas, ListOrder::Oldest), vec![g.id, a.id, used.id]);
    let only = base
        .clone()
        .scope(ScopeFilter::Exactly(Some("atlas".into())));
    assert_eq!(ids(&only, ListOrder::Oldest), vec![a.id]);
    let mut all = base.clone().scope(ScopeFilter::All);
    assert_eq!(
        ids(&all, ListOrder::Oldest),
        vec![g.id, a.id, b.id, used.id]
    );
    assert_eq!(store.count(&all).unwrap(), 4);
    all.include_expired = true;
    all.include_superseded = true;
    assert_eq!(ids(&all, ListOrder::Oldest).len(), 6);
    assert_eq!(ids(&all, ListOrder::Newest)[0], used.id);
    assert_eq!(ids(&all, ListOrder::MostAccessed)[0], used.id);
    assert_eq!(*ids(&all, ListOrder::Stalest).last().unwrap(), used.id);
    assert_eq!(
        store
            .list(&all, ListOrder::Oldest, 2, 1)
            .unwrap()
            .iter()
            .map(|m| m.id)
            .collect::<Vec<_>>(),
        vec![a.id, b.id]
    );
    let mut typed = all.clone();
    typed.types = vec![MemoryType::Fact];
    assert_eq!(ids(&typed, ListOrder::Oldest), vec![g.id, b.id]);
    let mut tagged = all.clone();
    tagged.tags = vec!["t1".into(), "alpha".into()];
    assert_eq!(ids(&tagged, ListOrder::Oldest), vec![a.id, old.id]);
    let mut created = all.clone();
    created.created_after = Some(T0 + 1000);
    created.created_before = Some(T0 + 3000);
    assert_eq!(ids(&created, ListOrder::Oldest), vec![a.id, b.id]);
    let mut valid = all.clone();
    valid.valid_after = Some(T0 + 4600);
    assert!(!ids(&valid, ListOrder::Oldest).contains(&old.id));
    valid.valid_after = None;
    valid.valid_before = Some(T0 + 1500);
    assert_eq!(ids(&valid, ListOrder::Oldest), vec![g.id, a.id]);
    // The searches apply the same filter.
    let kw: Vec<MemoryId> = store
        .keyword_search("fact", &atlas, 10)
        .unwrap()
        .iter()
        .map(|h| h.id)
        .collect();
    assert_eq!(kw, vec![g.id]);
    let vs: Vec<MemoryId> = store
        .vector_search(&axis(3, DIM), &atlas, 10)
        .unwrap()
        .iter()
        .map(|h| h.id)
        .collect();
    assert!(!vs.contains(&b.id) && !vs.contains(&expired.id) && !vs.contains(&foreign.id));
    assert_eq!(vs.len(), 3);
}

/// `ListOrder::Id` lists by id whatever the creation times say, and
/// `Filter::after` pages through it, each memory exactly once (three share
/// each creation time here, in an order unlike their ids'); the searches
/// honour the cursor too.
pub fn check_paging_with_a_cursor(store: Arc<dyn Store>) {
    let items: Vec<(Memory, Vec<f32>)> = (0..9u32)
        .map(|i| {
            let mut m = sample(i, "default", None, MemoryType::Fact, "cursor stone");
            m.created_at = T0 - i64::from(i / 3);
            (m, axis(i as usize, DIM))
        })
        .collect();
    let mut all: Vec<MemoryId> = items.iter().map(|(m, _)| m.id).collect();
    all.sort();
    insert(&*store, items);
    let everything = filter_all("default");
    let ids = |f: &Filter, order, limit| -> Vec<MemoryId> {
        store
            .list(f, order, limit, 0)
            .unwrap()
            .iter()
            .map(|m| m.id)
            .collect()
    };
    assert_eq!(ids(&everything, ListOrder::Id, 100), all);
    assert_ne!(ids(&everything, ListOrder::Oldest, 100), all);
    for page in [1, 2, 4] {
        let mut filter = everything.clone();
        let mut paged = Vec::new();
        loop {
            let got = store.list(&filter, ListOrder::Id, page, 0).unwrap();
            paged.extend(got.iter().map(|m| m.id));
            match got.last() {
                Some(last) => filter.after = Some(last.id),
                None => break,
            }
        }
        assert_eq!(paged, all, "pages of {page}");
    }
    let mut after = everything.clone();
    after.after = Some(all[4]);
    assert_eq!(ids(&after, ListOrder::Id, 100), all[5..].to_vec());
    assert_eq!(store.count(&after).unwrap(), 4);
    let found = |hits: Vec<Hit>| -> Vec<MemoryId> {
        let mut ids: Vec<MemoryId> = hits.iter().map(|h| h.id).collect();
        ids.sort();
        ids
    };
    let mut later = all[5..].to_vec();
    later.sort();
    assert_eq!(
        found(store.keyword_search("cursor", &after, 20).unwrap()),
        later
    );
    assert_eq!(
        found(store.vector_search(&axis(1, DIM), &after, 20).unwrap()),
        later
    );
}

/// Keyword search: content, tags and metadata are searched, ranking favours
/// more matching terms, and no user text is ever query syntax.
pub fn check_keyword_search(store: Arc<dyn Store>) {
    let a = sample(
        1,
        "default",
        None,
        MemoryType::Fact,
        "the staging database runs on a Hetzner box in Falkenstein",
    );
    let b = sample(
        2,
        "default",
        None,
        MemoryType::Fact,
        "the production database is managed by the platform team",
    );
    let mut c = sample(
        3,
        "default",
        None,
        MemoryType::Fact,
        "coffee order: flat white",
    );
    c.tags = vec!["kitchen".into()];
    c.metadata = json!({"owner": "Grace Hopper"})
        .as_object()
        .cloned()
        .unwrap();
    insert(
        &*store,
        vec![
            (a.clone(), axis(1, DIM)),
            (b.clone(), axis(2, DIM)),
            (c.clone(), axis(3, DIM)),
        ],
    );
    // Document frequencies, where the backend counts them.
    if let Some(r) = store.keyword_rarity("database Falkenstein zzzqqq").unwrap() {
        assert_eq!(r.rows, 3.0);
        assert_eq!(r.terms, ["database", "falkenstein", "zzzqqq"]);
        assert_eq!(r.rows_with_term, vec![2.0, 1.0, 0.0]);
    }
    let f = filter_all("default");
    let top = |q: &str| {
        store
            .keyword_search(q, &f, 10)
            .unwrap()
            .first()
            .map(|h| h.id)
    };
    assert_eq!(top("staging database Falkenstein"), Some(a.id));
    assert_eq!(top("production database"), Some(b.id));
    assert_eq!(top("kitchen"), Some(c.id));
    assert_eq!(top("hopper"), Some(c.id));
    let hits = store.keyword_search("database", &f, 10).unwrap();
    assert_eq!(hits.len(), 2);
    assert!(hits[0].score >= hits[1].score && hits[1].score > 0.0);
    // Terms are OR-ed: one matching word is enough.
    assert_eq!(top("falkenstein zzzunknownzzz"), Some(a.id));
    for hostile in [
        "\"",
        "\"unbalanced",
        "pre-production",
        "AND",
        "OR",
        "NOT",
        "NEAR",
        "NEAR(a b)",
        "a AND OR b",
        "*",
        "data*",
        "content:staging",
        "(staging",
        "staging)",
        "🦀🦀",
        "?!.,;",
        "",
        "   ",
        "'",
        "\\",
        "^staging",
        "+-",
        "\"\"\"\"",
        "{staging}",
        "[x]",
        "a:b:c",
        "NEAR/2",
        "col1 : \"x",
    ] {
        let r = store.keyword_search(hostile, &f, 10);
        assert!(r.is_ok(), "query {hostile:?} failed: {r:?}");
    }
    assert_eq!(top("\"staging"), Some(a.id));
    assert_eq!(top("staging)"), Some(a.id));
    assert!(store.keyword_search("?!.,;", &f, 10).unwrap().is_empty());
}

/// Vector search returns the nearest memories first with their cosine.
pub fn check_vector_search(store: Arc<dyn Store>) {
    let mut items = Vec::new();
    for i in 0..30u32 {
        items.push((
            sample(i, "default", None, MemoryType::Note, &format!("note {i}")),
            axis(i as usize + 1, DIM),
        ));
    }
    insert(&*store, items.clone());
    let f = filter_all("default");
    for probe in [0usize, 7, 29] {
        let hits = store.vector_search(&items[probe].1, &f, 5).unwrap();
        assert_eq!(hits[0].id, items[probe].0.id, "probe {probe}");
        assert!((hits[0].score - 1.0).abs() < 0.02, "{}", hits[0].score);
        assert!(hits.windows(2).all(|w| w[0].score >= w[1].score));
        assert_eq!(hits.len(), 5);
    }
}

/// `vector_search_exact` finds the nearest memory however an index would
/// rank it: here the nearest (cosine ≈ 0.84) has the opposite sign to the
/// query on every coordinate but one, while 1,100 others (cosine ≈ 0.1)
/// share the query's signs everywhere, so a sign-sketch or graph index
/// has every reason to pass it over.
pub fn check_exact_vector_search(store: Arc<dyn Store>) {
    let a = 0.015f32;
    let along = |sign: f32, axis: usize| {
        let mut v = vec![sign * a; DIM];
        v[axis] = 1.0;
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter_mut().for_each(|x| *x /= n);
        v
    };
    let query = along(1.0, 0);
    let nearest = sample(0, "default", None, MemoryType::Note, "the nearest");
    let mut items = vec![(nearest.clone(), along(-1.0, 0))];
    for i in 1..=1100u32 {
        let m = sample(i, "default", None, MemoryType::Note, &format!("far {i}"));
        items.push((m, along(1.0, 1 + i as usize % (DIM - 1))));
    }
    insert(&*store, items);
    let f = filter_all("default");
    let hits = store.vector_search_exact(&query, &f, 8).unwrap();
    assert_eq!(hits.len(), 8);
    assert_eq!(hits[0].id, nearest.id, "the nearest memory was left out");
    // 0.841 exactly; an index may keep its cosines approximately.
    assert!((hits[0].score - 0.841).abs() < 0.03, "{}", hits[0].score);
    assert!(hits[1].score < 0.2, "{}", hits[1].score);
}

/// Accesses are counted; expired memories are collected; stats add up.
pub fn check_access_expiry_stats(store: Arc<dyn Store>) {
    let a = sample(1, "default", Some("atlas"), MemoryType::Fact, "a");
    let mut b = sample(2, "default", None, MemoryType::Rule, "b");
    b.expires_at = Some(T0 + 10);
    let c = sample(3, "other", None, MemoryType::Rule, "c");
    insert(
        &*store,
        vec![
            (a.clone(), axis(1, DIM)),
            (b.clone(), axis(2, DIM)),
            (c.clone(), axis(3, DIM)),
        ],
    );
    store
        .record_access("default", &[a.id, a.id], T0 + 77)
        .unwrap();
    store.record_access("other", &[a.id], T0 + 99).unwrap();
    let got = &store.get("default", &[a.id]).unwrap()[0];
    assert_eq!(got.access_count, 2);
    assert_eq!(got.last_accessed_at, Some(T0 + 77));
    let s = store.stats("default", T0 + 20).unwrap();
    assert_eq!(s.total, 2);
    assert_eq!(s.expired, 1);
    assert_eq!(
        s.by_type,
        vec![("fact".to_string(), 1), ("rule".to_string(), 1)]
    );
    assert_eq!(
        s.by_project,
        vec![(None, 1), (Some("atlas".to_string()), 1)]
    );
    assert_eq!(
        store.tenants().unwrap(),
        vec!["default".to_string(), "other".to_string()]
    );
    assert_eq!(store.delete_expired(T0 + 5).unwrap(), 0);
    assert_eq!(store.delete_expired(T0 + 20).unwrap(), 1);
    assert!(store.get("default", &[b.id]).unwrap().is_empty());
    assert_eq!(store.stats("other", T0).unwrap().total, 1);
}

/// Search hits carry each memory's ranking factors as they are now:
/// weight, scope, and accesses recorded after the memory was written.
pub fn check_hit_factors(store: Arc<dyn Store>) {
    let mut a = sample(
        1,
        "default",
        Some("atlas"),
        MemoryType::Fact,
        "granite ridge",
    );
    a.weight = 0.5;
    let b = sample(2, "default", None, MemoryType::Fact, "granite valley");
    insert(
        &*store,
        vec![(a.clone(), axis(1, DIM)), (b.clone(), axis(2, DIM))],
    );
    let filter = filter_all("default");
    let factors_of = |hits: Vec<Hit>, id: MemoryId| {
        hits.into_iter()
            .find(|h| h.id == id)
            .map(|h| h.factors)
            .expect("the memory is a hit")
    };
    let both = |id: MemoryId, vector: &[f32]| {
        let keyword = factors_of(store.keyword_search("granite", &filter, 10).unwrap(), id);
        let semantic = factors_of(store.vector_search(vector, &filter, 10).unwrap(), id);
        assert_eq!(keyword, semantic, "both sides agree");
        let whole = &store.get("default", &[id]).unwrap()[0];
        assert_eq!(keyword, RankFactors::of(whole), "hits agree with get");
        keyword
    };
    let untouched = RankFactors {
        access_count: 0,
        last_accessed_at: None,
        global: false,
        weight: 0.5,
    };
    assert_eq!(both(a.id, &axis(1, DIM)), untouched);
    store
        .record_access("default", &[b.id, b.id], T0 + 50)
        .unwrap();
    let accessed = RankFactors {
        access_count: 2,
        last_accessed_at: Some(T0 + 50),
        global: true,
        weight: 1.0,
    };
    assert_eq!(both(b.id, &axis(2, DIM)), accessed);
    assert_eq!(both(a.id, &axis(1, DIM)), untouched);
}

/// The model is recorded and read back.
pub fn check_model(store: Arc<dyn Store>) {
    assert_eq!(store.model().unwrap(), None);
    let m = ModelInfo {
        name: "x".into(),
        dim: DIM,
    };
    store.set_model(&m).unwrap();
    assert_eq!(store.model().unwrap(), Some(m));
}

fn engine(store: Arc<dyn Store>) -> Cairn {
    Cairn::new(store, Arc::new(LexicalEmbedder)).with_clock(Arc::new(|| T0))
}

/// Remember dedups near-identical memories of the same type and scope,
/// never episodes, and warns about related ones.
pub fn engine_dedup_and_warnings(store: Arc<dyn Store>) {
    let cairn = engine(store.clone());
    let mut req = RememberRequest::new("default", "deploys happen on tuesdays after the standup");
    req.kind = MemoryType::Fact;
    req.tags = vec!["ops".into()];
    let first = cairn.remember(req.clone()).unwrap();
    assert_eq!(first.status, WriteStatus::Created);
    let mut again = req.clone();
    again.tags = vec!["release".into()];
    let second = cairn.remember(again).unwrap();
    assert_eq!(second.status, WriteStatus::Deduplicated);
    assert_eq!(second.id, first.id);
    let m = cairn.get("default", &first.id.to_string()).unwrap();
    assert_eq!(m.tags, vec!["ops", "release"]);
    // Another type, another scope, or --no-dedup: a new memory.
    let mut other_type = req.clone();
    other_type.kind = MemoryType::Decision;
    assert_eq!(
        cairn.remember(other_type).unwrap().status,
        WriteStatus::Created
    );
    let mut no_dedup = req.clone();
    no_dedup.dedup = false;
    assert_eq!(
        cairn.remember(no_dedup).unwrap().status,
        WriteStatus::Created
    );
    // Episodes are distinct events.
    let mut ep = RememberRequest::new("default", "Thanks, see you tomorrow!");
    ep.kind = MemoryType::Episode;
    let e1 = cairn.remember(ep.clone()).unwrap();
    let e2 = cairn.remember(ep).unwrap();
    assert_ne!(e1.id, e2.id);
    assert_eq!(e2.status, WriteStatus::Created);
    // Related but different: stored, with a warning naming the other.
    let mut related = RememberRequest::new(
        "default",
        "deploys happen on tuesdays after the standup meeting ends",
    );
    related.kind = MemoryType::Fact;
    let out = cairn.remember(related).unwrap();
    assert_eq!(out.status, WriteStatus::Created);
    assert!(
        out.similar.iter().any(|s| s.id == first.id),
        "{:?}",
        out.similar
    );
}

/// Supersede hides the old memory from recall and marks it.
pub fn engine_supersede_and_ttl(store: Arc<dyn Store>) {
    let cairn = engine(store.clone());
    let old = cairn
        .remember(RememberRequest::new("default", "the api runs on port 8080"))
        .unwrap();
    let mut newer = RememberRequest::new("default", "the api moved to port 9090");
    newer.supersedes = Some(old.id.to_string()[..8].to_string());
    let new = cairn.remember(newer).unwrap();
    assert_eq!(new.superseded, Some(old.id));
    let o = cairn.get("default", &old.id.to_string()).unwrap();
    assert_eq!(o.weight, 0.1);
    assert_eq!(o.superseded_by, Some(new.id));
    assert_eq!(o.valid_to, Some(T0));
    let ids = |r: &RecallRequest| -> Vec<MemoryId> {
        cairn
            .recall(r)
            .unwrap()
            .into_iter()
            .map(|r| r.memory.id)
            .collect()
    };
    let mut q = RecallRequest::new("default", "api port");
    assert_eq!(ids(&q), vec![new.id]);
    q.filter.include_superseded = true;
    assert!(ids(&q).contains(&old.id));
    // TTL: gone from recall once expired, deleted by gc.
    let mut temp = RememberRequest::new("default", "temporary staging password rotation");
    temp.ttl_ms = Some(60_000);
    let t = cairn.remember(temp).unwrap();
    let later =
        Cairn::new(store.clone(), Arc::new(LexicalEmbedder)).with_clock(Arc::new(|| T0 + 120_000));
    let q = RecallRequest::new("default", "staging password");
    assert!(cairn
        .search(&q)
        .unwrap()
        .iter()
        .any(|r| r.memory.id == t.id));
    assert!(!later
        .search(&q)
        .unwrap()
        .iter()
        .any(|r| r.memory.id == t.id));
    assert_eq!(later.gc().unwrap(), 1);
    assert!(matches!(
        cairn.get("default", &t.id.to_string()),
        Err(Error::NotFound(_))
    ));
}

/// Every change is a version, with who and why; revert restores an
/// earlier one as a new version; forget erases the versions and leaves a
/// receipt; tenants never see each other's history.
pub fn engine_history(store: Arc<dyn Store>) {
    use crate::history::ChangeKind::*;
    let cairn = engine(store.clone());
    let kinds = |id: MemoryId| -> Vec<ChangeKind> {
        let h = cairn.history("default", &id.to_string()).unwrap();
        h.versions.iter().map(|v| v.kind).collect()
    };
    let mut req = RememberRequest::new("default", "the staging database lives on db-3");
    req.kind = MemoryType::Fact;
    req.actor = "key-a".into();
    let a = cairn.remember(req.clone()).unwrap().id;
    let h = cairn.history("default", &a.to_string()).unwrap();
    assert_eq!(h.versions.len(), 1);
    let first = &h.versions[0];
    assert_eq!(
        (first.number, first.kind, first.actor.as_str()),
        (1, Created, "key-a")
    );
    assert_eq!(first.memory.content, "the staging database lives on db-3");
    // A near-duplicate merges: a version saying how similar.
    req.content = "The staging database lives on db-3.".into();
    req.actor = "key-b".into();
    assert_eq!(
        cairn.remember(req).unwrap().status,
        WriteStatus::Deduplicated
    );
    let h = cairn.history("default", &a.to_string()).unwrap();
    assert_eq!(h.versions[1].kind, Deduplicated);
    assert!(
        h.versions[1]
            .reason
            .as_deref()
            .unwrap()
            .contains("similarity"),
        "{:?}",
        h.versions[1].reason
    );
    // Updates name the fields changed; reads and re-embedding are not changes.
    let tags = UpdateRequest {
        add_tags: vec!["infra".into()],
        ..Default::default()
    };
    cairn
        .update("default", &a.to_string(), tags, "key-c")
        .unwrap();
    let content = UpdateRequest {
        content: Some("the staging database moved to db-7".into()),
        ..Default::default()
    };
    cairn
        .update("default", &a.to_string(), content, "key-c")
        .unwrap();
    cairn.get("default", &a.to_string()).unwrap();
    cairn.reindex(&mut |_, _| {}).unwrap();
    let h = cairn.history("default", &a.to_string()).unwrap();
    assert_eq!(kinds(a), vec![Created, Deduplicated, Updated, Updated]);
    assert_eq!(h.versions[2].reason.as_deref(), Some("tags"));
    assert_eq!(h.versions[3].reason.as_deref(), Some("content"));
    assert_eq!(h.versions[3].actor, "key-c");
    assert_eq!(
        h.versions[3].memory.content,
        "the staging database moved to db-7"
    );
    // Revert restores version 1's text and fields as version 5.
    let back = cairn
        .revert("default", &a.to_string()[..18], 1, "key-d")
        .unwrap();
    assert_eq!(back.content, "the staging database lives on db-3");
    assert!(back.tags.is_empty());
    let h = cairn.history("default", &a.to_string()).unwrap();
    let v5 = &h.versions[4];
    assert_eq!(
        (v5.number, v5.kind, v5.actor.as_str()),
        (5, Reverted, "key-d")
    );
    assert_eq!(
        v5.reason.as_deref(),
        Some("restored version 1: content, tags")
    );
    let hits = cairn
        .search(&RecallRequest::new("default", "db-3 staging"))
        .unwrap();
    assert_eq!(
        hits.first().map(|r| r.memory.id),
        Some(a),
        "re-embedded and re-indexed"
    );
    assert!(matches!(
        cairn.revert("default", &a.to_string(), 9, "key-d"),
        Err(Error::InvalidInput(_))
    ));
    // Supersession is a version of both.
    let mut newer = RememberRequest::new("default", "staging now runs on the shared cluster");
    newer.supersedes = Some(a.to_string());
    let b = cairn.remember(newer).unwrap().id;
    assert_eq!(kinds(a).last(), Some(&Superseded));
    let hb = cairn.history("default", &b.to_string()).unwrap();
    assert_eq!(hb.versions[0].reason, Some(format!("supersedes {a}")));
    // Another tenant sees none of it.
    assert!(matches!(
        cairn.history("other", &a.to_string()),
        Err(Error::NotFound(_))
    ));
    assert!(store.history("other", a).unwrap().is_empty());
    // A batch recording a version of a memory it does not write is refused
    // whole.
    let stray = sample(7, "default", None, MemoryType::Note, "never written");
    let dim = LexicalEmbedder.model().dim;
    let err = store.write(WriteBatch {
        inserts: vec![(stray.clone(), vec![0.5; dim])],
        changes: vec![Change::new(b, Updated, "key-x", T0)],
        ..Default::default()
    });
    assert!(err.is_err());
    assert!(store.get("default", &[stray.id]).unwrap().is_empty());
    let twice = store.write(WriteBatch {
        inserts: vec![(stray.clone(), vec![0.5; dim])],
        changes: vec![
            Change::new(stray.id, Created, "key-x", T0),
            Change::new(stray.id, Updated, "key-x", T0),
        ],
        ..Default::default()
    });
    assert!(matches!(twice, Err(Error::InvalidInput(_))), "{twice:?}");
    assert!(store.get("default", &[stray.id]).unwrap().is_empty());
    assert_eq!(kinds(b), vec![Created]);
    // Forget erases every version and leaves a receipt, found by prefix.
    cairn.forget("default", &[a.to_string()], "key-e").unwrap();
    assert!(store.history("default", a).unwrap().is_empty());
    let h = cairn.history("default", &a.to_string()[..18]).unwrap();
    assert_eq!(h.id, a);
    assert!(h.versions.is_empty());
    let receipt = h.deleted.unwrap();
    assert_eq!(
        (
            receipt.deletion.actor.as_str(),
            receipt.deletion.reason.as_str(),
            receipt.versions
        ),
        ("key-e", "forgotten", 6)
    );
    assert!(store.receipts("other", "", 10).unwrap().is_empty());
    // Expiry leaves a receipt by the system.
    let mut temp = RememberRequest::new("default", "a temporary note about the office wifi");
    temp.ttl_ms = Some(1_000);
    let t = cairn.remember(temp).unwrap().id;
    let later =
        Cairn::new(store.clone(), Arc::new(LexicalEmbedder)).with_clock(Arc::new(|| T0 + 5_000));
    assert_eq!(later.gc().unwrap(), 1);
    let receipt = later
        .history("default", &t.to_string())
        .unwrap()
        .deleted
        .unwrap();
    assert_eq!(
        (
            receipt.deletion.actor.as_str(),
            receipt.deletion.reason.as_str()
        ),
        ("system", "expired")
    );
    // An import records `imported`, and supersedes a stored memory with a
    // version saying so.
    let line =
        format!(r#"{{"content":"staging moved again, to the new cluster","supersedes":"{b}"}}"#);
    cairn
        .import(
            "default",
            [(1, parse_record_line(&line))],
            true,
            "key-f",
            &mut |_| {},
        )
        .unwrap();
    let hb = cairn.history("default", &b.to_string()).unwrap();
    assert_eq!(kinds(b), vec![Created, Superseded]);
    assert_eq!(hb.versions[1].actor, "key-f");
    let c = hb.versions[1].memory.superseded_by.unwrap();
    let hc = cairn.history("default", &c.to_string()).unwrap();
    assert_eq!(
        (hc.versions[0].kind, hc.versions[0].actor.as_str()),
        (Imported, "key-f")
    );
}

/// Recall respects scopes, modes and counts accesses; prefixes resolve.
pub fn engine_recall_scopes_and_prefixes(store: Arc<dyn Store>) {
    let cairn = engine(store.clone());
    let mut a = RememberRequest::new("default", "atlas uses postgres for billing");
    a.project = Some("atlas".into());
    let a = cairn.remember(a).unwrap();
    let mut b = RememberRequest::new("default", "borealis uses postgres for search");
    b.project = Some("borealis".into());
    let b = cairn.remember(b).unwrap();
    let g = cairn
        .remember(RememberRequest::new(
            "default",
            "postgres backups run nightly",
        ))
        .unwrap();
    let mut q = RecallRequest::new("default", "postgres");
    q.filter.scope = ScopeFilter::Project("atlas".into());
    for mode in [
        SearchMode::Hybrid,
        SearchMode::Keyword,
        SearchMode::Semantic,
    ] {
        q.mode = mode;
        let got: Vec<MemoryId> = cairn
            .search(&q)
            .unwrap()
            .into_iter()
            .map(|r| r.memory.id)
            .collect();
        assert!(
            got.contains(&a.id) && got.contains(&g.id) && !got.contains(&b.id),
            "{mode:?}: {got:?}"
        );
    }
    q.mode = SearchMode::Hybrid;
    let top = cairn.recall(&q).unwrap();
    assert_eq!(
        top[0].memory.id, a.id,
        "project memories outrank global ones (scope weight)"
    );
    assert_eq!(top[0].explain.scope_weight, 1.0);
    let global = top.iter().find(|r| r.memory.id == g.id).unwrap();
    assert_eq!(global.explain.scope_weight, 0.8);
    assert_eq!(store.get("default", &[a.id]).unwrap()[0].access_count, 1);
    // Another tenant sees nothing.
    let mut foreign = q.clone();
    foreign.filter.tenant = "mallory".into();
    assert!(cairn.search(&foreign).unwrap().is_empty());
    assert!(matches!(
        cairn.get("mallory", &a.id.to_string()),
        Err(Error::NotFound(_))
    ));
    // Prefixes: a, b, g were made in the same millisecond, so their first
    // 8 characters are equal: ambiguous; the full id resolves.
    match cairn.resolve("default", &a.id.to_string()[..8]) {
        Err(Error::AmbiguousId { candidates, .. }) => assert_eq!(candidates.len(), 3),
        other => panic!("expected ambiguity, got {other:?}"),
    }
    assert_eq!(cairn.resolve("default", &a.id.to_string()).unwrap(), a.id);
    assert!(matches!(
        cairn.resolve("default", "abc"),
        Err(Error::InvalidInput(_))
    ));
    assert!(matches!(
        cairn.resolve("default", "ffffffff"),
        Err(Error::NotFound(_))
    ));
}

/// Export → import into an empty store → export is identical; strict
/// imports write nothing when a line is bad.
pub fn engine_import_export(store: Arc<dyn Store>, empty: Arc<dyn Store>) {
    let cairn = engine(store.clone());
    for i in 0..5 {
        let mut r =
            RememberRequest::new("default", format!("memory number {i} with some words w{i}"));
        r.tags = vec![format!("tag{i}")];
        r.metadata = json!({"i": i}).as_object().cloned().unwrap();
        if i == 3 {
            r.ttl_ms = Some(1000);
        }
        cairn.remember(r).unwrap();
    }
    let first = cairn.export("default", false, &mut |_| Ok(())).unwrap();
    assert_eq!(first, 5);
    let mut lines = Vec::new();
    cairn
        .export("default", false, &mut |r| {
            lines.push(serde_json::to_string(&r).unwrap());
            Ok(())
        })
        .unwrap();
    let target = engine(empty);
    let records = lines
        .iter()
        .enumerate()
        .map(|(i, l)| (i + 1, parse_record_line(l)));
    let report = target
        .import("default", records, true, LOCAL_ACTOR, &mut |_| {})
        .unwrap();
    assert_eq!(report.imported, 5);
    let mut again = Vec::new();
    target
        .export("default", false, &mut |r| {
            again.push(serde_json::to_string(&r).unwrap());
            Ok(())
        })
        .unwrap();
    assert_eq!(lines, again);
    // Importing the same records again skips them.
    let records = lines
        .iter()
        .enumerate()
        .map(|(i, l)| (i + 1, parse_record_line(l)));
    assert_eq!(
        target
            .import("default", records, false, LOCAL_ACTOR, &mut |_| {})
            .unwrap()
            .skipped_existing,
        5
    );
    // Strict: one bad line, nothing written.
    let bad = vec![
        (1, parse_record_line(r#"{"content":"good line"}"#)),
        (2, parse_record_line(r#"{"content":"bad","type":"nope"}"#)),
    ];
    let before = target.store().count(&filter_all("default")).unwrap();
    let err = target
        .import("default", bad, true, LOCAL_ACTOR, &mut |_| {})
        .unwrap_err()
        .to_string();
    assert!(err.contains("line 2"), "{err}");
    assert_eq!(
        target.store().count(&filter_all("default")).unwrap(),
        before
    );
    let lenient = vec![
        (1, parse_record_line(r#"{"content":"good line"}"#)),
        (2, parse_record_line("{not json")),
    ];
    let report = target
        .import("default", lenient, false, LOCAL_ACTOR, &mut |_| {})
        .unwrap();
    assert_eq!(report.imported, 1);
    assert_eq!(report.errors.len(), 1);
    assert_eq!(report.errors[0].0, 2);
    let _ = MemoryRecord::default();
}

/// A store embedded by one model refuses another until reindexed.
pub fn engine_model_mismatch(store: Arc<dyn Store>) {
    let cairn = engine(store.clone());
    cairn
        .remember(RememberRequest::new("default", "something to embed"))
        .unwrap();
    store
        .set_model(&ModelInfo {
            name: "another-model".into(),
            dim: DIM,
        })
        .unwrap();
    let err = cairn
        .remember(RememberRequest::new("default", "more"))
        .unwrap_err();
    assert!(matches!(err, Error::ModelMismatch { .. }));
    assert!(err.to_string().contains("cairn reindex"));
    let mut kw = RecallRequest::new("default", "something");
    kw.mode = SearchMode::Keyword;
    assert_eq!(
        cairn.search(&kw).unwrap().len(),
        1,
        "keyword recall needs no embeddings"
    );
    assert_eq!(cairn.reindex(&mut |_, _| {}).unwrap(), 1);
    cairn
        .remember(RememberRequest::new("default", "more"))
        .unwrap();
}

/// Reindex re-embeds every memory of every tenant, a model batch at a time,
/// and reports its progress up to the total.
pub fn engine_reindex_covers_every_tenant(store: Arc<dyn Store>) {
    let cairn = engine(store.clone());
    let dim = LexicalEmbedder.model().dim;
    let stones = |tenant: &str, n: u32| -> Vec<(Memory, Vec<f32>)> {
        (0..n)
            .map(|i| {
                let text = format!("stone {i} of the {tenant} cairn");
                let m = sample(i, tenant, None, MemoryType::Fact, &text);
                (m, axis(i as usize, dim))
            })
            .collect()
    };
    // More than one model batch (256) for one tenant.
    insert(&*store, stones("default", 300));
    insert(&*store, stones("other", 2));
    let mut progress = Vec::new();
    let done = cairn
        .reindex(&mut |done, total| progress.push((done, total)))
        .unwrap();
    assert_eq!(done, 302);
    assert_eq!(progress.len(), 3, "{progress:?}");
    assert_eq!(progress.last(), Some(&(302, 302)));
    assert!(progress.windows(2).all(|w| w[0].0 < w[1].0), "{progress:?}");
    for tenant in ["default", "other"] {
        let all = filter_all(tenant).everything();
        for m in store.list(&all, ListOrder::Id, 1000, 0).unwrap() {
            let want = LexicalEmbedder
                .embed(&m.embedding_text(EmbedRecipe::NAMES))
                .unwrap();
            assert_eq!(
                store.embeddings(tenant, &[m.id]).unwrap().remove(0),
                Some(want)
            );
        }
    }
    let model = EmbedRecipe::NAMES.model(LexicalEmbedder.model());
    assert_eq!(store.model().unwrap(), Some(model));
}

/// The model's dimension for a store: 384-d vectors are allowed from then on.
fn with_model(store: &dyn Store) {
    store
        .set_model(&ModelInfo {
            name: "conformance".into(),
            dim: DIM,
        })
        .expect("set_model");
}

/// Once a model is recorded, a vector of another length is refused with a
/// message that names both dimensions, and nothing is written.
pub fn check_wrong_dimension_is_a_clear_error(store: Arc<dyn Store>) {
    with_model(&*store);
    let a = sample(1, "default", None, MemoryType::Fact, "a fact");
    let short = |n: usize| vec![0.1f32; n];
    let wrong = |e: Error, n: usize| {
        assert!(matches!(e, Error::InvalidInput(_)), "{e:?}");
        let text = e.to_string();
        assert!(
            text.contains(&n.to_string()) && text.contains("384"),
            "{text}"
        );
    };
    let e = store
        .write(WriteBatch {
            inserts: vec![(a.clone(), short(383))],
            ..Default::default()
        })
        .unwrap_err();
    wrong(e, 383);
    let e = store
        .insert_unless_duplicate(a.clone(), short(100), 0.92, LOCAL_ACTOR)
        .unwrap_err();
    wrong(e, 100);
    let e = store
        .vector_search(&short(10), &filter_all("default"), 5)
        .unwrap_err();
    wrong(e, 10);
    assert_eq!(store.count(&filter_all("default")).unwrap(), 0);
    insert(&*store, vec![(a.clone(), axis(1, DIM))]);
    assert_eq!(store.count(&filter_all("default")).unwrap(), 1);
}

/// Everything a store holds, read through the trait: per tenant, its
/// memories (id order) with embeddings and histories, and its receipts.
#[allow(clippy::type_complexity)]
pub fn everything(
    store: &dyn Store,
) -> Vec<(
    String,
    Vec<(Memory, Option<Vec<f32>>, Vec<crate::history::Version>)>,
    Vec<crate::history::DeletionReceipt>,
)> {
    store
        .every_tenant()
        .unwrap()
        .into_iter()
        .map(|tenant| {
            let ms = store
                .list(
                    &filter_all(&tenant).everything(),
                    ListOrder::Id,
                    usize::MAX >> 1,
                    0,
                )
                .unwrap();
            let ids: Vec<MemoryId> = ms.iter().map(|m| m.id).collect();
            let vectors = store.embeddings(&tenant, &ids).unwrap();
            let histories = store.histories(&tenant, &ids).unwrap();
            let receipts = store.receipts(&tenant, "", usize::MAX >> 1).unwrap();
            let rows = ms
                .into_iter()
                .zip(vectors)
                .zip(histories)
                .map(|((m, v), h)| (m, v, h))
                .collect();
            (tenant, rows, receipts)
        })
        .collect()
}

/// A pseudo-random unit vector for `i` (a fixed linear congruential
/// sequence): rows spread as real embeddings are, which an approximate
/// index searches well, unlike [`axis`]'s equidistant ones.
pub fn scattered(i: u32, dim: usize) -> Vec<f32> {
    let mut state = u64::from(i).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut v: Vec<f32> = (0..dim)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((state >> 40) as f32 / (1u64 << 24) as f32) - 0.5
        })
        .collect();
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter_mut().for_each(|x| *x /= n);
    v
}

/// Bulk writes (a batch of hundreds of inserts, which a backend may copy
/// rather than insert row by row) keep a batch's guarantees: a stored or
/// repeated id refuses the whole batch, first versions are version 1, and
/// keyword and vector search find every row, inside and after a bulk load.
pub fn check_bulk_writes(store: Arc<dyn Store>) {
    store
        .set_model(&ModelInfo {
            name: "lexical-test".into(),
            dim: DIM,
        })
        .unwrap();
    let make = |from: u32, n: u32| -> Vec<(Memory, Vec<f32>)> {
        (from..from + n)
            .map(|i| {
                let m = sample(
                    i,
                    "default",
                    None,
                    MemoryType::Note,
                    &format!("bulk row r{i} zebra"),
                );
                (m, scattered(i, DIM))
            })
            .collect()
    };
    let first = make(0, 300);
    store.begin_bulk(first.len()).unwrap();
    let changes = first
        .iter()
        .map(|(m, _)| Change::new(m.id, ChangeKind::Imported, LOCAL_ACTOR, T0))
        .collect();
    store
        .write(WriteBatch {
            inserts: first.clone(),
            changes,
            ..Default::default()
        })
        .unwrap();
    // A stored id anywhere in a big batch refuses it whole, naming the id.
    let mut second = make(300, 300);
    second.push(first[7].clone());
    match store.write(WriteBatch {
        inserts: second.clone(),
        ..Default::default()
    }) {
        Err(Error::DuplicateId(id)) => assert_eq!(id, first[7].0.id.to_string()),
        other => panic!("expected DuplicateId, got {other:?}"),
    }
    // So does an id given twice.
    second.pop();
    second.push(second[0].clone());
    assert!(matches!(
        store.write(WriteBatch {
            inserts: second.clone(),
            ..Default::default()
        }),
        Err(Error::DuplicateId(_))
    ));
    assert!(store.get("default", &[second[1].0.id]).unwrap().is_empty());
    let all = Filter::new("default", T0 + 10_000_000).everything();
    assert_eq!(store.count(&all).unwrap(), 300);
    // Searches answer during the bulk load and after it.
    for round in 0..2 {
        let hits = store.keyword_search("r123", &all, 5).unwrap();
        assert_eq!(
            hits.first().map(|h| h.id),
            Some(first[123].0.id),
            "round {round}"
        );
        let hits = store.vector_search(&first[42].1, &all, 3).unwrap();
        assert_eq!(
            hits.first().map(|h| h.id),
            Some(first[42].0.id),
            "round {round}"
        );
        store.end_bulk().unwrap();
    }
    let history = store.history("default", first[299].0.id).unwrap();
    assert_eq!(history.len(), 1);
    assert_eq!(
        (history[0].number, history[0].kind, &history[0].memory),
        (1, ChangeKind::Imported, &first[299].0)
    );
    assert_eq!(
        store.embeddings("default", &[first[5].0.id]).unwrap(),
        vec![Some(first[5].1.clone())]
    );
}

/// [`Store::restore`] writes another store's records as they were: every
/// memory with its embedding and history, every receipt, every tenant;
/// a stored id refuses the batch; a wrong dimension is refused.
pub fn check_restore(store: Arc<dyn Store>, empty: Arc<dyn Store>) {
    let model = ModelInfo {
        name: "lexical-test".into(),
        dim: DIM,
    };
    store.set_model(&model).unwrap();
    let a = sample(
        1,
        "default",
        Some("atlas"),
        MemoryType::Fact,
        "first memory",
    );
    let b = sample(2, "default", None, MemoryType::Note, "second memory");
    let c = sample(3, "other", None, MemoryType::Note, "other tenant's memory");
    let changes = [&a, &b, &c]
        .iter()
        .map(|m| Change::new(m.id, ChangeKind::Created, LOCAL_ACTOR, m.created_at))
        .collect();
    store
        .write(WriteBatch {
            inserts: vec![
                (a.clone(), axis(1, DIM)),
                (b.clone(), axis(2, DIM)),
                (c.clone(), axis(3, DIM)),
            ],
            changes,
            ..Default::default()
        })
        .unwrap();
    let mut a2 = a.clone();
    a2.content = "first memory, changed".into();
    a2.updated_at += 5;
    store
        .write(WriteBatch {
            updates: vec![(a2.clone(), Some(axis(4, DIM)))],
            changes: vec![
                Change::new(a.id, ChangeKind::Updated, "alice", a2.updated_at).because("typo"),
            ],
            ..Default::default()
        })
        .unwrap();
    store
        .record_access("default", &[a.id], T0 + 99_000)
        .unwrap();
    store.delete("default", &[b.id], &forgotten()).unwrap();
    store
        .collections()
        .put_collection(&crate::collections::CollectionRecord {
            tenant: "third".into(),
            kind: crate::collections::CollectionKind::Session,
            id: "s1".into(),
            parent: None,
            body: Default::default(),
            created_at: T0,
            updated_at: T0,
        })
        .unwrap();
    assert_eq!(store.every_tenant().unwrap(), ["default", "other", "third"]);

    let source = everything(&*store);
    assert_eq!(source[0].1.len(), 1, "a remains in default");
    assert_eq!(source[0].1[0].2.len(), 2, "a has two versions");
    assert_eq!(source[0].2.len(), 1, "b's receipt");
    let batch = crate::store::Restore {
        memories: source
            .iter()
            .flat_map(|(_, rows, _)| rows.clone())
            .map(|(m, v, h)| (m, v.unwrap(), h))
            .collect(),
        receipts: source.iter().flat_map(|(_, _, r)| r.clone()).collect(),
    };
    // A wrong dimension is refused once a model is recorded.
    empty.set_model(&model).unwrap();
    let mut wrong = batch.clone();
    wrong.memories[0].1.push(0.0);
    assert!(matches!(empty.restore(wrong), Err(Error::InvalidInput(_))));
    empty.restore(batch.clone()).unwrap();
    let copied = everything(&*empty);
    // The collection's tenant has nothing but its collection, which the
    // store keeps apart: compare the tenants with records.
    let with_records = |all: &[(String, _, Vec<_>)]| -> Vec<String> {
        all.iter().map(|(t, _, _)| t.clone()).collect()
    };
    assert_eq!(with_records(&copied), ["default", "other"]);
    assert_eq!(copied, source[..2].to_vec());
    // Again: the ids are stored, nothing is written twice.
    assert!(matches!(empty.restore(batch), Err(Error::DuplicateId(_))));
    assert_eq!(everything(&*empty), copied);
}

/// Embeddings and id neighbours of many ids in one call: in the order
/// asked, confined to the tenant, `None` for what is not there.
pub fn check_batched_reads(store: Arc<dyn Store>) {
    let ms: Vec<Memory> = (0..4)
        .map(|i| sample(i, "default", None, MemoryType::Note, &format!("note {i}")))
        .collect();
    insert(
        &*store,
        ms.iter()
            .enumerate()
            .map(|(i, m)| (m.clone(), axis(i + 1, DIM)))
            .collect(),
    );
    let theirs = sample(9, "other", None, MemoryType::Note, "not yours");
    insert(&*store, vec![(theirs.clone(), axis(9, DIM))]);
    let unknown = MemoryId::new_at(T0 + 500);
    let asked = [ms[2].id, unknown, ms[0].id, theirs.id];
    let got = store.embeddings("default", &asked).unwrap();
    assert_eq!(got.len(), 4);
    assert_eq!(got[0].as_deref(), Some(axis(3, DIM).as_slice()));
    assert!(got[1].is_none() && got[3].is_none());
    assert_eq!(got[2].as_deref(), Some(axis(1, DIM).as_slice()));
    let near = store
        .id_neighbours("default", &[ms[1].id, ms[0].id, ms[3].id])
        .unwrap();
    assert_eq!(near[0], (Some(ms[0].id), Some(ms[2].id)));
    assert_eq!(near[1], (None, Some(ms[1].id)));
    assert_eq!(near[2].0, Some(ms[2].id), "not another tenant's");
    assert!(store.embeddings("default", &[]).unwrap().is_empty());
}

/// `insert_unless_duplicate` finds a stored near-twin of the same tenant,
/// type and project that is neither expired nor superseded, and writes
/// nothing then; anything else is inserted.
pub fn check_insert_unless_duplicate(store: Arc<dyn Store>) {
    with_model(&*store);
    let v = axis(7, DIM);
    let twin = |i: u32, tenant: &str, project: Option<&str>, kind: MemoryType| {
        sample(
            i,
            tenant,
            project,
            kind,
            "the deploy key lives in the vault",
        )
    };
    let first = twin(1, "default", Some("atlas"), MemoryType::Fact);
    assert_eq!(
        store
            .insert_unless_duplicate(first.clone(), v.clone(), 0.92, LOCAL_ACTOR)
            .unwrap(),
        Inserted::New
    );
    match store
        .insert_unless_duplicate(
            twin(2, "default", Some("atlas"), MemoryType::Fact),
            v.clone(),
            0.92,
            LOCAL_ACTOR,
        )
        .unwrap()
    {
        Inserted::Duplicate { id, similarity } => {
            assert_eq!(id, first.id);
            assert!(similarity > 0.99, "{similarity}");
        }
        other => panic!("expected a duplicate, got {other:?}"),
    }
    assert_eq!(store.count(&filter_all("default")).unwrap(), 1);
    let others = [
        twin(3, "default", Some("atlas"), MemoryType::Rule),
        twin(4, "default", None, MemoryType::Fact),
        twin(5, "other", Some("atlas"), MemoryType::Fact),
    ];
    for m in others {
        assert_eq!(
            store
                .insert_unless_duplicate(m, v.clone(), 0.92, LOCAL_ACTOR)
                .unwrap(),
            Inserted::New
        );
    }
    // A near-twin that expired or was superseded does not count.
    let mut expired = twin(6, "default", Some("beta"), MemoryType::Fact);
    expired.expires_at = Some(T0);
    let mut superseded = twin(7, "default", Some("gamma"), MemoryType::Fact);
    superseded.superseded_by = Some(first.id);
    insert(&*store, vec![(expired, v.clone()), (superseded, v.clone())]);
    for (i, project) in [(8, "beta"), (9, "gamma")] {
        let m = twin(i, "default", Some(project), MemoryType::Fact);
        assert_eq!(
            store
                .insert_unless_duplicate(m, v.clone(), 0.92, LOCAL_ACTOR)
                .unwrap(),
            Inserted::New,
            "{project}"
        );
    }
    // Below the threshold: inserted.
    let far = twin(10, "default", Some("atlas"), MemoryType::Fact);
    assert_eq!(
        store
            .insert_unless_duplicate(far, axis(8, DIM), 0.92, LOCAL_ACTOR)
            .unwrap(),
        Inserted::New
    );
    // An id that is stored: refused.
    let e = store
        .insert_unless_duplicate(first, axis(9, DIM), 0.92, LOCAL_ACTOR)
        .unwrap_err();
    assert!(matches!(e, Error::DuplicateId(_)), "{e:?}");
}

/// Two threads remembering the same text at the same moment leave one
/// memory (the store re-checks inside the insert's transaction).
pub fn engine_concurrent_dedup(store: Arc<dyn Store>) {
    let cairn = engine(store.clone());
    for round in 0..20 {
        let text = format!("round {round}: the build cache lives on the ci runner");
        let barrier = std::sync::Barrier::new(2);
        std::thread::scope(|s| {
            for _ in 0..2 {
                s.spawn(|| {
                    let mut req = RememberRequest::new("default", text.clone());
                    req.kind = MemoryType::Fact;
                    barrier.wait();
                    cairn.remember(req).unwrap()
                });
            }
        });
        let mut f = filter_all("default");
        f.types = vec![MemoryType::Fact];
        let same = store
            .list(&f, ListOrder::Oldest, 100, 0)
            .unwrap()
            .into_iter()
            .filter(|m| m.content == text)
            .count();
        assert_eq!(same, 1, "round {round}");
    }
}

/// Keyword search scores exactly `rank::bm25_term` over the corpus's own
/// counts (content, tags and metadata weighted 1, 1 and 0.5; the row count
/// and average length over every stored memory, all tenants): so every
/// backend ranks this corpus identically. The words are ones a Porter
/// stemmer leaves as they are (SQLite stems; the in-memory store does not).
pub fn check_bm25_matches_the_formula(store: Arc<dyn Store>) {
    let corpus: [(&str, &str, &[&str], &str); 8] = [
        ("default", "red fox and red box", &["fox"], "map"),
        ("default", "blue box on a red cart", &["cart"], "red"),
        (
            "default",
            "the owl sat on the tree",
            &["owl", "tree"],
            "sun",
        ),
        ("default", "a cup and a pen", &[], "fox fox"),
        ("default", "sun sun sun over the sea", &["sea"], ""),
        ("default", "fox", &[], ""),
        ("other", "red fox of another tenant", &["fox"], "red"),
        ("default", "nothing to see here at all", &["misc"], "box"),
    ];
    let mut memories = Vec::new();
    for (i, (tenant, content, tags, meta)) in corpus.iter().enumerate() {
        let mut m = sample(i as u32, tenant, None, MemoryType::Note, content);
        m.tags = tags.iter().map(|t| t.to_string()).collect();
        m.metadata = json!({ "about": meta })
            .as_object()
            .cloned()
            .unwrap_or_default();
        memories.push((m, axis(i + 1, DIM)));
    }
    insert(&*store, memories.clone());
    let words = |m: &Memory| -> [Vec<String>; 3] {
        let split = |t: &str| crate::store::query_terms(t);
        [
            split(&m.content),
            split(&m.tags.join(" ")),
            split(&m.keyword_context()),
        ]
    };
    let rows = memories.len() as f64;
    let len = |f: &[Vec<String>; 3]| f.iter().map(Vec::len).sum::<usize>() as f64;
    let avgdl = memories.iter().map(|(m, _)| len(&words(m))).sum::<f64>() / rows;
    for query in ["red fox", "box", "sun tree", "fox cart"] {
        let terms = crate::store::keyword_terms(query);
        let mut expected: Vec<(MemoryId, f64)> = memories
            .iter()
            .filter(|(m, _)| m.tenant == "default")
            .filter_map(|(m, _)| {
                let f = words(m);
                let mut score = 0.0;
                let mut matched = false;
                for t in &terms {
                    let n = memories
                        .iter()
                        .filter(|(o, _)| words(o).iter().flatten().any(|w| w == t))
                        .count() as f64;
                    let freq: f64 = f
                        .iter()
                        .zip(crate::rank::BM25_FIELD_WEIGHTS)
                        .map(|(ws, w)| w * ws.iter().filter(|x| *x == t).count() as f64)
                        .sum();
                    if freq > 0.0 {
                        matched = true;
                        score += crate::rank::bm25_term(rows, n, freq, len(&f), avgdl);
                    }
                }
                matched.then_some((m.id, score))
            })
            .collect();
        expected.sort_by(|a, b| b.1.total_cmp(&a.1).then(b.0.cmp(&a.0)));
        let hits = store
            .keyword_search(query, &filter_all("default"), 20)
            .unwrap();
        let got: Vec<MemoryId> = hits.iter().map(|h| h.id).collect();
        let want: Vec<MemoryId> = expected.iter().map(|e| e.0).collect();
        assert_eq!(got, want, "{query}");
        for (hit, (_, score)) in hits.iter().zip(&expected) {
            let error = (hit.score - score).abs() / score.abs().max(1e-12);
            assert!(error < 1e-9, "{query}: {} against {score}", hit.score);
        }
    }
}

/// API keys: stored without their secret, found by id, listed by tenant
/// oldest first; a taken id is [`Error::DuplicateId`]; revoking keeps the
/// first revocation time; use is recorded.
pub fn check_keys(store: Arc<dyn Store>) {
    use crate::keys::{ApiKey, Role};
    let keys = store.key_store();
    let key = |id: &str, tenant: &str, at: i64| ApiKey {
        id: id.into(),
        tenant: tenant.into(),
        role: Role::Write,
        label: Some(format!("{tenant}'s {id}")),
        hash: [at as u8; 32],
        created_at: at,
        expires_at: Some(at + 1_000),
        last_used_at: None,
        revoked_at: None,
    };
    let a1 = key("aaaaaaaaaaa1", "alice", 20);
    let a2 = ApiKey {
        role: Role::Read,
        label: None,
        expires_at: None,
        ..key("aaaaaaaaaaa2", "alice", 10)
    };
    let b1 = ApiKey {
        role: Role::Admin,
        ..key("bbbbbbbbbbb1", "bob", 15)
    };
    for k in [&a1, &a2, &b1] {
        keys.insert_key(k).unwrap();
    }
    assert!(matches!(
        keys.insert_key(&key("aaaaaaaaaaa1", "bob", 30)),
        Err(Error::DuplicateId(id)) if id == "aaaaaaaaaaa1"
    ));
    assert_eq!(
        keys.key("aaaaaaaaaaa1").unwrap().as_ref(),
        Some(&a1),
        "the first key was kept whole"
    );
    assert_eq!(keys.key("aaaaaaaaaaa2").unwrap().as_ref(), Some(&a2));
    assert_eq!(keys.key("cccccccccccc").unwrap(), None);
    let ids = |tenant: Option<&str>| -> Vec<String> {
        keys.keys(tenant)
            .unwrap()
            .into_iter()
            .map(|k| k.id)
            .collect()
    };
    assert_eq!(ids(None), ["aaaaaaaaaaa2", "bbbbbbbbbbb1", "aaaaaaaaaaa1"]);
    assert_eq!(ids(Some("alice")), ["aaaaaaaaaaa2", "aaaaaaaaaaa1"]);
    assert!(ids(Some("carol")).is_empty());

    assert!(keys.revoke_key("aaaaaaaaaaa1", 40).unwrap());
    assert!(keys.revoke_key("aaaaaaaaaaa1", 50).unwrap());
    assert!(!keys.revoke_key("cccccccccccc", 50).unwrap());
    assert_eq!(
        keys.key("aaaaaaaaaaa1").unwrap().unwrap().revoked_at,
        Some(40)
    );
    assert_eq!(keys.key("bbbbbbbbbbb1").unwrap().unwrap().revoked_at, None);

    keys.touch_key("bbbbbbbbbbb1", 60).unwrap();
    keys.touch_key("cccccccccccc", 60).unwrap();
    let b = keys.key("bbbbbbbbbbb1").unwrap().unwrap();
    assert_eq!(
        (b.last_used_at, b.role, b.hash),
        (Some(60), Role::Admin, [15; 32])
    );
}

/// What a backend's test gives the suite: a fresh, empty store, and
/// whatever must live as long as it (a temporary directory), dropped after
/// the check.
pub trait Fixture {
    /// The store.
    fn store(&self) -> Arc<dyn Store>;
}

impl Fixture for Arc<dyn Store> {
    fn store(&self) -> Arc<dyn Store> {
        self.clone()
    }
}

impl<T: Send + Sync> Fixture for (Arc<dyn Store>, T) {
    fn store(&self) -> Arc<dyn Store> {
        self.0.clone()
    }
}

/// Generate one `#[test]` per conformance check for a backend.
///
/// `$make` is an expression evaluating to a fresh [`Fixture`] each time it
/// is evaluated: an `Arc<dyn Store>`, or the store with a guard that owns
/// what it lives in (`(store, temp_dir)`), dropped when the check ends.
#[macro_export]
macro_rules! store_conformance_tests {
    ($make:expr) => {
        mod store_conformance {
            #[allow(unused_imports)]
            use super::*;
            use $crate::conformance as c;
            #[test]
            fn roundtrip() {
                {
                    let fixture = $make;
                    c::check_roundtrip(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn batches_are_atomic() {
                {
                    let fixture = $make;
                    c::check_batches_are_atomic(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn update() {
                {
                    let fixture = $make;
                    c::check_update(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn delete_and_prefix() {
                {
                    let fixture = $make;
                    c::check_delete_and_prefix(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn short_ids() {
                {
                    let fixture = $make;
                    c::check_short_ids(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn filters_and_listing() {
                {
                    let fixture = $make;
                    c::check_filters_and_listing(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn paging_with_a_cursor() {
                {
                    let fixture = $make;
                    c::check_paging_with_a_cursor(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn keyword_search() {
                {
                    let fixture = $make;
                    c::check_keyword_search(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn vector_search() {
                {
                    let fixture = $make;
                    c::check_vector_search(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn exact_vector_search() {
                {
                    let fixture = $make;
                    c::check_exact_vector_search(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn access_expiry_stats() {
                {
                    let fixture = $make;
                    c::check_access_expiry_stats(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn hit_factors() {
                {
                    let fixture = $make;
                    c::check_hit_factors(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn model() {
                {
                    let fixture = $make;
                    c::check_model(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn engine_dedup_and_warnings() {
                {
                    let fixture = $make;
                    c::engine_dedup_and_warnings(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn engine_supersede_and_ttl() {
                {
                    let fixture = $make;
                    c::engine_supersede_and_ttl(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn engine_recall_scopes_and_prefixes() {
                {
                    let fixture = $make;
                    c::engine_recall_scopes_and_prefixes(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn engine_import_export() {
                {
                    let (a, b) = ($make, $make);
                    c::engine_import_export(c::Fixture::store(&a), c::Fixture::store(&b))
                }
            }
            #[test]
            fn engine_keeps_writes_pending() {
                {
                    let fixture = $make;
                    c::engine_keeps_writes_pending(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn engine_keeps_messages_pending() {
                {
                    let fixture = $make;
                    c::engine_keeps_messages_pending(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn engine_model_mismatch() {
                {
                    let fixture = $make;
                    c::engine_model_mismatch(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn engine_reindex_covers_every_tenant() {
                {
                    let fixture = $make;
                    c::engine_reindex_covers_every_tenant(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn wrong_dimension_is_a_clear_error() {
                {
                    let fixture = $make;
                    c::check_wrong_dimension_is_a_clear_error(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn bulk_writes() {
                {
                    let fixture = $make;
                    c::check_bulk_writes(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn restore() {
                {
                    let (a, b) = ($make, $make);
                    c::check_restore(c::Fixture::store(&a), c::Fixture::store(&b))
                }
            }
            #[test]
            fn batched_reads() {
                {
                    let fixture = $make;
                    c::check_batched_reads(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn insert_unless_duplicate() {
                {
                    let fixture = $make;
                    c::check_insert_unless_duplicate(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn engine_concurrent_dedup() {
                {
                    let fixture = $make;
                    c::engine_concurrent_dedup(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn bm25_matches_the_formula() {
                {
                    let fixture = $make;
                    c::check_bm25_matches_the_formula(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn engine_history() {
                {
                    let fixture = $make;
                    c::engine_history(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn keys() {
                {
                    let fixture = $make;
                    c::check_keys(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn sources_superseded_and_expiry() {
                {
                    let fixture = $make;
                    c::check_sources_superseded_and_expiry(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn thread_scopes() {
                {
                    let fixture = $make;
                    c::check_thread_scopes(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn thread_records() {
                {
                    let fixture = $make;
                    c::check_collections(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn slot_roundtrip() {
                {
                    let fixture = $make;
                    c::check_slot_roundtrip(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn slot_filters() {
                {
                    let fixture = $make;
                    c::check_slot_filters(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn slot_moves() {
                {
                    let fixture = $make;
                    c::check_slot_moves(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn slot_dedup() {
                {
                    let fixture = $make;
                    c::check_slot_dedup(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn packing() {
                {
                    let fixture = $make;
                    c::check_packing(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn engine_conflicts_prefer_newer() {
                {
                    let fixture = $make;
                    c::engine_conflicts_prefer_newer(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn engine_conflicts_supersede_and_flag() {
                {
                    let fixture = $make;
                    c::engine_conflicts_supersede_and_flag(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn engine_slots() {
                {
                    let (a, b) = ($make, $make);
                    c::engine_slots(c::Fixture::store(&a), c::Fixture::store(&b))
                }
            }
        }
    };
}
