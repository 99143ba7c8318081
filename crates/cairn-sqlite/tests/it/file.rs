//! What only a real file shows: data survives reopening, several
//! connections (as several processes would) see each other's writes, and
//! concurrent writers lose nothing.

use std::sync::Arc;
use std::thread;

use cairn_core::conformance::{axis, forgotten, sample, T0};
use cairn_core::history::LOCAL_ACTOR;
use cairn_core::store::prelude::*;
use cairn_core::store::{Filter, ScopeFilter, WriteBatch};
use cairn_core::MemoryType;
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
                ..Default::default()
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
        ..Default::default()
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
        ..Default::default()
    })
    .unwrap();
    assert_eq!(
        b.vector_search(&axis(2, 8), &all("default"), 1).unwrap()[0].id,
        m2.id
    );
    let mut moved = m1.clone();
    moved.project = Some("atlas".into());
    a.write(WriteBatch {
        updates: vec![(moved, Some(axis(5, 8)))],
        ..Default::default()
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
    a.delete("default", &[m2.id], &forgotten()).unwrap();
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
                            ..Default::default()
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
    // A directory is named as one, and nothing is created in it.
    let err = SqliteStore::open(dir.path())
        .err()
        .expect("must fail")
        .to_string();
    assert!(err.contains("is a directory"), "{err}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[cfg(unix)]
#[test]
fn a_new_store_is_private_and_a_read_never_creates_one() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("typo").join("cairn.db");
    let err = SqliteStore::open_existing(&missing)
        .err()
        .expect("must fail")
        .to_string();
    assert!(err.contains("no store at") && err.contains("typo"), "{err}");
    assert!(!dir.path().join("typo").exists(), "nothing created");

    let path = dir.path().join("private").join("deeper").join("cairn.db");
    let store = SqliteStore::open(&path).unwrap();
    store
        .write(WriteBatch {
            inserts: vec![(
                sample(1, "default", None, MemoryType::Note, "secret"),
                axis(1, 8),
            )],
            ..Default::default()
        })
        .unwrap();
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&path), 0o600);
    assert_eq!(mode(path.parent().unwrap()), 0o700);
    assert_eq!(mode(&dir.path().join("private")), 0o700);
    let wal = path.with_file_name("cairn.db-wal");
    assert!(wal.exists());
    assert_eq!(mode(&wal), 0o600);
    drop(store);
    // An existing store opens for reading.
    assert!(SqliteStore::open_existing(&path).is_ok());
}

#[test]
fn two_handles_inserting_the_same_memory_at_once_leave_one() {
    use cairn_core::Inserted;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cairn.db");
    let a = SqliteStore::open(&path).unwrap();
    let b = SqliteStore::open(&path).unwrap();
    for round in 0..10u32 {
        let barrier = std::sync::Barrier::new(2);
        let outcomes: Vec<Inserted> = std::thread::scope(|s| {
            let handles: Vec<_> = [&a, &b]
                .into_iter()
                .enumerate()
                .map(|(i, store)| {
                    let barrier = &barrier;
                    s.spawn(move || {
                        let m = sample(
                            round * 2 + i as u32,
                            "default",
                            None,
                            MemoryType::Fact,
                            "the same fact",
                        );
                        barrier.wait();
                        store
                            .insert_unless_duplicate(
                                m,
                                axis(round as usize + 1, 32),
                                0.92,
                                LOCAL_ACTOR,
                            )
                            .unwrap()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let new = outcomes.iter().filter(|o| **o == Inserted::New).count();
        assert_eq!(new, 1, "round {round}: {outcomes:?}");
    }
    let all = Filter::new("default", 0).scope(ScopeFilter::All);
    assert_eq!(a.count(&all).unwrap(), 10);
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
            ..Default::default()
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
                ..Default::default()
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

#[test]
fn another_processs_accesses_and_weights_reach_the_hits() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cairn.db");
    let a = SqliteStore::open(&path).unwrap();
    let b = SqliteStore::open(&path).unwrap();
    let m = sample(1, "default", None, MemoryType::Fact, "basalt column");
    let other = sample(2, "default", None, MemoryType::Fact, "basalt shore");
    a.write(WriteBatch {
        inserts: vec![(m.clone(), axis(1, 8)), (other.clone(), axis(2, 8))],
        ..Default::default()
    })
    .unwrap();
    // b holds both in-memory indexes, as a server does.
    b.preload().unwrap();
    let factors = |id| {
        let keyword = b.keyword_search("basalt", &all("default"), 5).unwrap();
        let vector = b.vector_search(&axis(1, 8), &all("default"), 5).unwrap();
        let k = keyword.iter().find(|h| h.id == id).unwrap().factors;
        let v = vector.iter().find(|h| h.id == id).unwrap().factors;
        assert_eq!(k, v);
        k
    };
    assert_eq!(factors(m.id).access_count, 0);
    a.record_access("default", &[m.id], T0 + 10).unwrap();
    a.record_access("default", &[m.id, other.id], T0 + 20)
        .unwrap();
    assert_eq!(factors(m.id).access_count, 2);
    assert_eq!(factors(m.id).last_accessed_at, Some(T0 + 20));
    assert_eq!(factors(other.id).access_count, 1);
    // A content write carries the weight; accesses stay.
    let mut lighter = b.get("default", &[m.id]).unwrap().remove(0);
    lighter.weight = 0.1;
    a.write(WriteBatch {
        updates: vec![(lighter, None)],
        ..Default::default()
    })
    .unwrap();
    assert_eq!(factors(m.id).weight, 0.1);
    assert_eq!(factors(m.id).access_count, 2);
    // An accessed memory deleted by a leaves b's indexes.
    a.delete("default", &[other.id], &forgotten()).unwrap();
    a.record_access("default", &[m.id], T0 + 30).unwrap();
    assert_eq!(factors(m.id).access_count, 3);
    assert!(!b
        .keyword_search("basalt", &all("default"), 5)
        .unwrap()
        .iter()
        .any(|h| h.id == other.id));
}

#[test]
fn a_schema_1_file_is_upgraded_with_its_ranking_factors() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cairn.db");
    let id = cairn_core::MemoryId::new_at(T0);
    {
        // A file as the first schema wrote it: one memory, accessed 4 times.
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(cairn_sqlite::schema::MIGRATIONS[0])
            .unwrap();
        conn.pragma_update(None, "user_version", 1).unwrap();
        conn.execute(
            "INSERT INTO memories (rowid, id, tenant, content, kind, project, tags, metadata, importance, weight, source, \
             created_at, updated_at, last_accessed_at, access_count) \
             VALUES (1, ?1, 'default', 'obsidian flake', 'fact', 'atlas', '[]', '{}', 0.5, 0.7, 'manual', ?2, ?2, ?3, 4)",
            rusqlite::params![id.to_string(), T0, T0 + 5],
        )
        .unwrap();
        let (codes, scale) = cairn_sqlite::vector_index::quantize(&axis(1, 8));
        let mut code = scale.to_le_bytes().to_vec();
        code.extend(codes.iter().map(|c| *c as u8));
        conn.execute(
            "INSERT INTO vindex (rowid, rev, id, tenant, project, kind, tags, created_at, superseded, code) \
             VALUES (1, 1, ?1, 'default', 'atlas', 'fact', '[]', ?2, 0, ?3)",
            rusqlite::params![id.to_string(), T0, code],
        )
        .unwrap();
        conn.execute(
            "INSERT INTO memories_fts (rowid, content, tags, metadata) VALUES (1, 'obsidian flake', '', '')",
            [],
        )
        .unwrap();
        conn.execute_batch("UPDATE meta SET value = '1' WHERE key IN ('rev', 'docs')")
            .unwrap();
    }
    let store = SqliteStore::open(&path).unwrap();
    let expected = cairn_core::RankFactors {
        access_count: 4,
        last_accessed_at: Some(T0 + 5),
        global: false,
        weight: 0.7,
    };
    let hits = store
        .vector_search(&axis(1, 8), &all("default"), 5)
        .unwrap();
    assert_eq!(hits[0].id, id);
    assert_eq!(hits[0].factors, expected);
    store.preload().unwrap();
    let hits = store
        .keyword_search("obsidian", &all("default"), 5)
        .unwrap();
    assert_eq!(hits[0].factors, expected);
    store.record_access("default", &[id], T0 + 9).unwrap();
    assert_eq!(
        store
            .vector_search(&axis(1, 8), &all("default"), 5)
            .unwrap()[0]
            .factors
            .access_count,
        5
    );
    // History begins with the upgrade; the refilled keyword index forgets
    // exactly what it holds.
    let versions = store.histories("default", &[id]).unwrap().remove(0);
    assert_eq!(versions.len(), 1);
    assert_eq!(
        versions[0].reason.as_deref(),
        Some("recorded when history began")
    );
    assert_eq!(versions[0].memory.content, "obsidian flake");
    assert_eq!(store.delete("default", &[id], &forgotten()).unwrap(), 1);
    assert!(store
        .keyword_search("obsidian", &all("default"), 5)
        .unwrap()
        .is_empty());
    assert_eq!(store.integrity_check().unwrap(), "ok");
}

/// Memories spread over projects and types, with vectors that are neither
/// axes nor alike.
fn varied(from: u32, to: u32) -> Vec<(cairn_core::Memory, Vec<f32>)> {
    (from..to)
        .map(|i| {
            let project = [None, Some("atlas"), Some("borealis")][i as usize % 3];
            let kind = MemoryType::ALL[i as usize % MemoryType::ALL.len()];
            let mut m = sample(i, "default", project, kind, &format!("stone {i}"));
            m.expires_at = (i % 5 == 0).then_some(T0 + 1_000_000_000);
            let mut v = axis(i as usize, 16);
            v[(i as usize * 7) % 16] += 0.3;
            (m, v)
        })
        .collect()
}

/// A new store file holding `varied(0, n)`, with its directory (removed
/// when dropped) and path.
fn store_of(n: u32) -> (tempfile::TempDir, std::path::PathBuf, SqliteStore) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cairn.db");
    let store = SqliteStore::open(&path).unwrap();
    store
        .write(WriteBatch {
            inserts: varied(0, n),
            ..Default::default()
        })
        .unwrap();
    (dir, path, store)
}

fn snapshot_parts(path: &std::path::Path) -> i64 {
    rusqlite::Connection::open(path)
        .unwrap()
        .query_row("SELECT count(*) FROM vsnap", [], |r| r.get(0))
        .unwrap()
}

/// Every vector query's hits (ids, scores, factors) under several filters.
fn answers(store: &SqliteStore) -> Vec<String> {
    let filters = [
        all("default"),
        Filter::new("default", T0).scope(ScopeFilter::Project("atlas".into())),
        Filter::new("default", T0).scope(ScopeFilter::Global),
    ];
    let mut out = Vec::new();
    for i in 0..16 {
        for f in &filters {
            let hits = store.vector_search(&axis(i, 16), f, 8).unwrap();
            out.push(format!("{hits:?}"));
        }
    }
    out
}

#[test]
fn a_new_process_loads_the_snapshot_and_catches_up_with_later_writes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cairn.db");
    let a = SqliteStore::open(&path).unwrap();
    let first = varied(0, 90);
    a.write(WriteBatch {
        inserts: first.clone(),
        ..Default::default()
    })
    .unwrap();
    a.record_access("default", &[first[3].0.id], T0 + 5)
        .unwrap();
    a.save_index_snapshot().unwrap();
    assert!(snapshot_parts(&path) >= 2);

    // After the snapshot: inserts, an update, deletes and accesses.
    a.write(WriteBatch {
        inserts: varied(90, 110),
        ..Default::default()
    })
    .unwrap();
    let mut heavier = first[10].0.clone();
    heavier.weight = 2.5;
    heavier.tags = vec!["moved".into()];
    a.write(WriteBatch {
        updates: vec![(heavier, Some(axis(5, 16)))],
        ..Default::default()
    })
    .unwrap();
    let gone = [first[0].0.id, first[4].0.id, first[40].0.id];
    assert_eq!(a.delete("default", &gone, &forgotten()).unwrap(), 3);
    a.record_access("default", &[first[3].0.id, first[20].0.id], T0 + 9)
        .unwrap();

    // A new process loads the snapshot, then catches up ...
    let from_snapshot = answers(&SqliteStore::open(&path).unwrap());
    // ... and answers exactly as one that decodes every row.
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute("DELETE FROM vsnap", [])
        .unwrap();
    let from_rows = answers(&SqliteStore::open(&path).unwrap());
    assert_eq!(from_snapshot, from_rows);
    assert!(from_rows.iter().any(|a| a.contains("access_count: 2")));
    assert!(from_rows.iter().any(|a| a.contains("weight: 2.5")));
}

#[test]
fn the_snapshot_is_what_a_new_process_loads_unless_it_is_damaged() {
    let (_dir, path, a) = store_of(30);
    a.save_index_snapshot().unwrap();
    // Change a row behind the revision counter's back: only a process
    // that decodes the rows sees it, so this tells the two loads apart.
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute("UPDATE vindex SET weight = 0.25", []).unwrap();
    let weight = |store: &SqliteStore| {
        store
            .vector_search(&axis(1, 16), &all("default"), 1)
            .unwrap()[0]
            .factors
            .weight
    };
    assert_eq!(weight(&SqliteStore::open(&path).unwrap()), 1.0);
    // A damaged snapshot is ignored: the rows are decoded instead.
    conn.execute("UPDATE vsnap SET data = zeroblob(100) WHERE part = 0", [])
        .unwrap();
    assert_eq!(weight(&SqliteStore::open(&path).unwrap()), 0.25);
    // So is one ahead of the store (a file put back from an older copy).
    a.save_index_snapshot().unwrap();
    conn.execute("UPDATE meta SET value = '0' WHERE key = 'rev'", [])
        .unwrap();
    conn.execute("UPDATE vindex SET weight = 0.5", []).unwrap();
    assert_eq!(weight(&SqliteStore::open(&path).unwrap()), 0.5);
}

#[test]
fn small_stores_save_no_snapshot_and_a_model_change_drops_it() {
    let (_dir, path, a) = store_of(30);
    a.vector_search(&axis(1, 16), &all("default"), 1).unwrap();
    a.save_caches().unwrap();
    assert_eq!(snapshot_parts(&path), 0);
    a.save_index_snapshot().unwrap();
    assert!(snapshot_parts(&path) > 0);
    a.set_model(&cairn_core::ModelInfo {
        name: "another".into(),
        dim: 16,
    })
    .unwrap();
    assert_eq!(snapshot_parts(&path), 0);
}

#[test]
fn a_large_store_saves_its_snapshot_once_it_pays_off() {
    let n = cairn_sqlite::SNAPSHOT_MIN_ENTRIES as u32;
    let (_dir, path, a) = store_of(n);
    let query = |store: &SqliteStore| {
        store
            .vector_search(&axis(3, 16), &all("default"), 5)
            .unwrap();
        store.save_caches().unwrap();
    };
    // A new process decodes every row: saving pays off.
    query(&SqliteStore::open(&path).unwrap());
    let parts = snapshot_parts(&path);
    assert!(parts >= 2);
    // The content revision the saved snapshot reflects.
    let saved = |path: &std::path::Path| -> i64 {
        let head: Vec<u8> = rusqlite::Connection::open(path)
            .unwrap()
            .query_row("SELECT data FROM vsnap WHERE part = 0", [], |r| r.get(0))
            .unwrap();
        cairn_sqlite::vector_index::snapshot_revs(&head)
            .unwrap()
            .rev
    };
    let first = saved(&path);
    // The next one loads it, decodes nothing and saves nothing.
    a.write(WriteBatch {
        inserts: varied(n, n + 10),
        ..Default::default()
    })
    .unwrap();
    query(&SqliteStore::open(&path).unwrap());
    assert_eq!(saved(&path), first);
    // More than an eighth of the store written since: saved again.
    a.write(WriteBatch {
        inserts: varied(n + 10, n + 10 + n / 4),
        ..Default::default()
    })
    .unwrap();
    query(&SqliteStore::open(&path).unwrap());
    assert_eq!(saved(&path), first + 2);
}

#[test]
fn a_bulk_write_reaches_the_database_file_through_the_checkpoint_thread() {
    let n = cairn_sqlite::BULK_WRITE as u32;
    let (dir, path, store) = store_of(n);
    store.wait_for_checkpoints();
    // The database file alone, without its write-ahead log, holds them.
    let copy = dir.path().join("copy.db");
    std::fs::copy(&path, &copy).unwrap();
    let copied = SqliteStore::open(&copy).unwrap();
    assert_eq!(copied.count(&all("default")).unwrap(), n as usize);
    assert_eq!(copied.integrity_check().unwrap(), "ok");
    // Small writes after it still work, and everything survives reopening.
    store
        .write(WriteBatch {
            inserts: varied(n, n + 5),
            ..Default::default()
        })
        .unwrap();
    drop(store);
    let reopened = SqliteStore::open(&path).unwrap();
    assert_eq!(reopened.count(&all("default")).unwrap(), n as usize + 5);
    assert_eq!(reopened.integrity_check().unwrap(), "ok");
}

#[test]
fn reads_run_beside_a_writer_without_errors() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(SqliteStore::open(dir.path().join("cairn.db")).unwrap());
    store
        .write(WriteBatch {
            inserts: varied(0, 200),
            ..Default::default()
        })
        .unwrap();
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let readers: Vec<_> = (0..4)
        .map(|t| {
            let (store, stop) = (store.clone(), stop.clone());
            thread::spawn(move || {
                let mut reads = 0;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let filter = all("default");
                    assert!(!store
                        .keyword_search("stone", &filter, 5)
                        .unwrap()
                        .is_empty());
                    assert!(!store
                        .vector_search(&axis(t, 16), &filter, 5)
                        .unwrap()
                        .is_empty());
                    assert!(store.count(&filter).unwrap() >= 200);
                    reads += 1;
                }
                reads
            })
        })
        .collect();
    for batch in 0..20 {
        let from = 200 + batch * 10;
        store
            .write(WriteBatch {
                inserts: varied(from, from + 10),
                ..Default::default()
            })
            .unwrap();
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let reads: usize = readers.into_iter().map(|r| r.join().unwrap()).sum();
    assert!(reads > 0);
    assert_eq!(store.count(&all("default")).unwrap(), 400);
}
