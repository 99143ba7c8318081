//! Conformance checks of a store's records: round trips, atomic batches,
//! updates, short ids and prefixes, deletes, filters, listing orders and
//! paging, and vectors of the wrong dimension.

#[allow(unused_imports)]
use super::*;

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
    let listing = cairn
        .short_ids("default", &[y.parse().unwrap(), z.parse().unwrap()], 8)
        .unwrap();
    assert_eq!(
        listing,
        ["0193aaab-0000", "0193aaaa-bbbc"],
        "one listing, one width: the longest any id needs"
    );
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
