//! Integration tests of the SQLite backend: the store conformance suite,
//! and what only a file can show (reopening, several connections).

use std::sync::Arc;

use cairn_core::Store;
use cairn_sqlite::SqliteStore;

/// A fresh store in its own temporary directory (kept alive by leaking the
/// guard for the test's duration; the OS temp dir is cleaned by the runner).
fn fresh() -> Arc<dyn Store> {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("cairn.db");
    std::mem::forget(dir);
    Arc::new(SqliteStore::open(path).expect("open"))
}

cairn_core::store_conformance_tests!(crate::fresh());

mod file;
mod keywords;

/// The conformance suite again, on a store whose keyword search answers
/// from the in-memory index (built while the store is empty, so every
/// check's writes reach it by catching up).
mod preloaded {
    use std::sync::Arc;

    use cairn_core::{Store, StoreCaches};
    use cairn_sqlite::SqliteStore;

    fn fresh() -> Arc<dyn Store> {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("cairn.db");
        std::mem::forget(dir);
        let store = SqliteStore::open(path).expect("open");
        store.preload().expect("preload");
        Arc::new(store)
    }

    cairn_core::store_conformance_tests!(crate::preloaded::fresh());
}
