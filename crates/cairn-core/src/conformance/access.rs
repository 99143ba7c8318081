//! Conformance checks of access counts written in batches: the store's
//! [`Store::record_accesses`], and the engine's batched access log
//! ([`Cairn::with_access_batching`]) reaching the store after a flush and
//! when the engine is dropped.

#[allow(unused_imports)]
use super::*;
use crate::store::Access;

/// A batch counts every access of each entry: an id read in two entries
/// gains two, its last access is the later one (a batch is in the order
/// of time); another tenant's entry and an
/// unknown id change nothing.
pub fn check_batched_accesses(store: Arc<dyn Store>) {
    let a = sample(1, "default", None, MemoryType::Fact, "a");
    let b = sample(2, "default", None, MemoryType::Fact, "b");
    insert(
        &*store,
        vec![(a.clone(), axis(1, DIM)), (b.clone(), axis(2, DIM))],
    );
    let batch = vec![
        Access {
            tenant: "default".into(),
            ids: vec![a.id, b.id],
            at: T0 + 50,
        },
        Access {
            tenant: "default".into(),
            ids: vec![a.id, MemoryId::new_at(T0 + 9)],
            at: T0 + 60,
        },
        Access {
            tenant: "other".into(),
            ids: vec![a.id],
            at: T0 + 99,
        },
    ];
    store.record_accesses(&batch).unwrap();
    store.record_accesses(&[]).unwrap();
    let got = store.get("default", &[a.id, b.id]).unwrap();
    let (ga, gb) = match got[0].id == a.id {
        true => (&got[0], &got[1]),
        false => (&got[1], &got[0]),
    };
    assert_eq!(ga.access_count, 2);
    assert_eq!(ga.last_accessed_at, Some(T0 + 60));
    assert_eq!(gb.access_count, 1);
    assert_eq!(gb.last_accessed_at, Some(T0 + 50));
}

/// Recalls from several threads through a batching engine: every access
/// reaches the store once flushed, and those queued when the engine is
/// dropped (a clean stop) are written then.
pub fn engine_batched_accesses(store: Arc<dyn Store>) {
    let cairn = engine(store.clone()).with_access_batching();
    let id = cairn
        .remember(RememberRequest::new(
            "default",
            "the harbour crane lifts containers",
        ))
        .unwrap()
        .id;
    let recall = |cairn: &Cairn| {
        let mut req = RecallRequest::new("default", "harbour crane");
        req.mode = SearchMode::Keyword;
        let found = cairn.recall(&req).unwrap();
        assert_eq!(found.len(), 1);
    };
    std::thread::scope(|s| {
        for _ in 0..4 {
            let cairn = cairn.clone();
            s.spawn(move || (0..5).for_each(|_| recall(&cairn)));
        }
    });
    cairn.flush_accesses().unwrap();
    let count = |store: &Arc<dyn Store>| store.get("default", &[id]).unwrap()[0].access_count;
    assert_eq!(count(&store), 20);
    cairn.peek("default", &id.to_string()).unwrap();
    cairn.get("default", &id.to_string()).unwrap();
    recall(&cairn);
    drop(cairn);
    assert_eq!(count(&store), 22, "queued accesses are written on drop");
}

/// A memory replaced from a copy read before accesses were recorded keeps
/// those accesses: a replacement never lowers the access count nor moves
/// the last access back (counts change by recorded accesses alone).
pub fn check_update_keeps_accesses(store: Arc<dyn Store>) {
    let a = sample(
        1,
        "default",
        None,
        MemoryType::Fact,
        "the ferry leaves at nine",
    );
    insert(&*store, vec![(a.clone(), axis(1, DIM))]);
    let read = store.get("default", &[a.id]).unwrap().remove(0);
    store
        .record_access("default", &[a.id, a.id], T0 + 70)
        .unwrap();
    let mut edited = read.clone();
    edited.content = "the ferry leaves at ten".into();
    edited.updated_at = T0 + 80;
    store
        .write(WriteBatch {
            updates: vec![(edited, None)],
            ..Default::default()
        })
        .unwrap();
    let got = store.get("default", &[a.id]).unwrap().remove(0);
    assert_eq!(got.content, "the ferry leaves at ten");
    assert_eq!(
        (got.access_count, got.last_accessed_at),
        (2, Some(T0 + 70)),
        "the accesses recorded after the copy was read"
    );
}
