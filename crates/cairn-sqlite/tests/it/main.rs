//! Integration tests of the SQLite backend: the store conformance suite,
//! and what only a file can show (reopening, several connections).

use std::sync::Arc;

use cairn_core::Store;
use cairn_sqlite::SqliteStore;

/// A fresh store in its own temporary directory, which the test owns (it
/// is removed when the check ends).
fn fresh() -> (Arc<dyn Store>, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = SqliteStore::open(dir.path().join("cairn.db")).expect("open");
    (Arc::new(store), dir)
}

cairn_core::store_conformance_tests!(crate::fresh());

mod access;
mod concurrent_open;
mod file;
mod forget;
mod keywords;
mod redaction;
mod tokenizer;

/// The conformance suite again, on a store whose keyword search answers
/// from the in-memory index (built while the store is empty, so every
/// check's writes reach it by catching up).
mod preloaded {
    use std::sync::Arc;

    use cairn_core::{Store, StoreCaches};
    use cairn_sqlite::SqliteStore;

    fn fresh() -> (Arc<dyn Store>, tempfile::TempDir) {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = SqliteStore::open(dir.path().join("cairn.db")).expect("open");
        store.preload().expect("preload");
        (Arc::new(store), dir)
    }

    cairn_core::store_conformance_tests!(crate::preloaded::fresh());
}

/// The conformance suite again, on a store whose vector index is
/// partitioned from its first memory on (lists kept in step with every
/// write, removal and change of a check).
mod partitioned {
    use std::sync::Arc;

    use cairn_core::Store;
    use cairn_sqlite::SqliteStore;

    fn fresh() -> (Arc<dyn Store>, tempfile::TempDir) {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = SqliteStore::open(dir.path().join("cairn.db")).expect("open");
        store.set_partition_at(1);
        (Arc::new(store), dir)
    }

    cairn_core::store_conformance_tests!(crate::partitioned::fresh());
}
