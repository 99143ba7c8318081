//! What only a real file shows: data survives reopening, several
//! connections (as several processes would) see each other's writes, and
//! concurrent writers lose nothing.

use std::sync::Arc;
use std::thread;

use cairn_core::conformance::{axis, sample, T0};
use cairn_core::store::{Filter, ScopeFilter, WriteBatch};
use cairn_core::{MemoryType, Store};
use cairn_sqlite::SqliteStore;

fn all(tenant: &str) -> Filter {
    Filter::new(tenant, T0).scope(ScopeFilter::All)
}

#[test]
fn data_survives_reopening_and_file_stays_healthy() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested/dir/cairn.db");
    let m = sample(
        1,
        "default",
        None,
        MemoryType::Fact,
        "persistent staging database fact",
    );
    {
        let store = SqliteStore::open(&path).unwrap();
        store
            .write(WriteBatch {
                inserts: vec![(m.clone(), axis(1, 8))],
                updates: vec![],
            })
            .unwrap();
    }
    let store = SqliteStore::open(&path).unwrap();
    assert_eq!(store.get("default", &[m.id]).unwrap(), vec![m.clone()]);
    assert_eq!(
        store.keyword_search("staging", &all("default"), 5).unwrap()[0].id,
        m.id
    );
    assert_eq!(
        store
            .vector_search(&axis(1, 8), &all("default"), 5)
            .unwrap()[0]
            .id,
        m.id
    );
    assert_eq!(store.integrity_check().unwrap(), "ok");
}

#[test]
fn a_second_connection_sees_writes_and_deletes_without_reopening() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cairn.db");
    let a = SqliteStore::open(&path).unwrap();
    let b = SqliteStore::open(&path).unwrap();
    let m1 = sample(1, "default", None, MemoryType::Fact, "first");
    a.write(WriteBatch {
        inserts: vec![(m1.clone(), axis(1, 8))],
        updates: vec![],
    })
    .unwrap();
    // b loads its vector index now...
    assert_eq!(
        b.vector_search(&axis(1, 8), &all("default"), 5)
            .unwrap()
            .len(),
        1
    );
    // ...and follows a's later insert, update and delete.
    let m2 = sample(2, "default", None, MemoryType::Fact, "second");
    a.write(WriteBatch {
        inserts: vec![(m2.clone(), axis(2, 8))],
        updates: vec![],
    })
    .unwrap();
    assert_eq!(
        b.vector_search(&axis(2, 8), &all("default"), 1).unwrap()[0].id,
        m2.id
    );
    let mut moved = m1.clone();
    moved.project = Some("atlas".into());
    a.write(WriteBatch {
        inserts: vec![],
        updates: vec![(moved, Some(axis(5, 8)))],
    })
    .unwrap();
    let global = Filter::new("default", T0);
    assert!(!b
        .vector_search(&axis(5, 8), &global, 5)
        .unwrap()
        .iter()
        .any(|h| h.id == m1.id));
    assert_eq!(
        b.vector_search(&axis(5, 8), &all("default"), 1).unwrap()[0].id,
        m1.id
    );
    a.delete("default", &[m2.id]).unwrap();
    assert!(!b
        .vector_search(&axis(2, 8), &all("default"), 5)
        .unwrap()
        .iter()
        .any(|h| h.id == m2.id));
    assert_eq!(b.count(&all("default")).unwrap(), 1);
}

#[test]
fn concurrent_writers_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cairn.db");
    SqliteStore::open(&path).unwrap();
    let threads: Vec<_> = (0..4u32)
        .map(|t| {
            let path = path.clone();
            thread::spawn(move || {
                let store = Arc::new(SqliteStore::open(&path).unwrap());
                for i in 0..50u32 {
                    let n = t * 1000 + i;
                    let m = sample(
                        n,
                        "default",
                        None,
                        MemoryType::Note,
                        &format!("writer {t} note {i}"),
                    );
                    store
                        .write(WriteBatch {
                            inserts: vec![(m, axis(n as usize, 16))],
                            updates: vec![],
                        })
                        .unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let store = SqliteStore::open(&path).unwrap();
    assert_eq!(store.count(&all("default")).unwrap(), 200);
    assert_eq!(store.integrity_check().unwrap(), "ok");
}

#[test]
fn garbage_file_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("not-a-db");
    std::fs::write(
        &path,
        b"this is not sqlite, just some text that is long enough to have a header",
    )
    .unwrap();
    let err = SqliteStore::open(&path)
        .err()
        .expect("must fail")
        .to_string();
    assert!(err.contains("not-a-db"), "{err}");
    // The file is left as it was.
    assert!(std::fs::read(&path)
        .unwrap()
        .starts_with(b"this is not sqlite"));
}

#[test]
fn warm_up_loads_the_index_while_keyword_search_and_writes_go_on() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cairn.db");
    let writer = SqliteStore::open(&path).unwrap();
    let batch: Vec<_> = (1..=200u32)
        .map(|i| {
            let m = sample(i, "default", None, MemoryType::Fact, &format!("note {i}"));
            (m, axis(i as usize % 7, 8))
        })
        .collect();
    writer
        .write(WriteBatch {
            inserts: batch.clone(),
            updates: vec![],
        })
        .unwrap();
    // A fresh process: nothing loaded yet.
    let store = Arc::new(SqliteStore::open(&path).unwrap());
    let late = sample(
        500,
        "default",
        None,
        MemoryType::Fact,
        "written during warm-up",
    );
    thread::scope(|s| {
        let warm = s.spawn(|| store.warm_up());
        let keyword = s.spawn(|| store.keyword_search("note", &all("default"), 5));
        writer
            .write(WriteBatch {
                inserts: vec![(late.clone(), axis(7, 8))],
                updates: vec![],
            })
            .unwrap();
        warm.join().unwrap().unwrap();
        assert_eq!(keyword.join().unwrap().unwrap().len(), 5);
    });
    store.warm_up().unwrap(); // idempotent
                              // The index holds everything, including the write made meanwhile.
    let hits = store
        .vector_search(&axis(7, 8), &all("default"), 500)
        .unwrap();
    assert_eq!(hits.len(), 201);
    assert_eq!(hits[0].id, late.id, "only the late memory lies on axis 7");
    let on_axis_3 = store
        .vector_search(&axis(3, 8), &all("default"), 500)
        .unwrap();
    let expected = batch.iter().filter(|(_, v)| *v == axis(3, 8)).count();
    assert!(on_axis_3[..expected].iter().all(|h| h.score > 0.99));
    assert!(on_axis_3[expected].score < 0.5);
    assert_eq!(store.integrity_check().unwrap(), "ok");
}
