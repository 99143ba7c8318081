//! Several processes' connections creating and migrating one new store at
//! the same moment (`cairn serve` beside `cairn keys create`): each waits
//! for the others; none fails with "database is locked".

use std::sync::{Arc, Barrier};

use cairn_core::store::prelude::*;
use cairn_sqlite::SqliteStore;

#[test]
fn stores_opened_at_once_on_a_new_file_all_open() {
    for round in 0..8 {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("fresh").join("cairn.db");
        let openers = 6;
        let start = Arc::new(Barrier::new(openers));
        let handles: Vec<_> = (0..openers)
            .map(|_| {
                let path = path.clone();
                let start = start.clone();
                std::thread::spawn(move || {
                    start.wait();
                    SqliteStore::open(&path).map(|s| {
                        s.tenants(cairn_core::TenantsWith::Memories)
                            .map(|t| t.len())
                    })
                })
            })
            .collect();
        for h in handles {
            match h.join().unwrap() {
                Ok(Ok(0)) => {}
                Ok(other) => panic!("round {round}: {other:?}"),
                Err(e) => panic!("round {round}: {e} ({:?})", e.kind()),
            }
        }
    }
}
