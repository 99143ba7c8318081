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
