//! Reads never wait for the store's writer: with access counts batched
//! (`Cairn::with_access_batching`), a recall and a get answer while
//! another connection holds SQLite's write lock, and their accesses reach
//! the file once the lock is released and the log flushed.

use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

use cairn_core::conformance::LexicalEmbedder;
use cairn_core::{Cairn, RecallRequest, RememberRequest, SearchMode, Store};
use cairn_sqlite::SqliteStore;

#[test]
fn a_recall_answers_while_another_connection_holds_the_write_lock() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cairn.db");
    let store: Arc<dyn Store> = Arc::new(SqliteStore::open(&path).unwrap());
    let cairn = Cairn::new(store.clone(), Arc::new(LexicalEmbedder)).with_access_batching();
    let id = cairn
        .remember(RememberRequest::new(
            "default",
            "the lighthouse keeper logs the fog",
        ))
        .unwrap()
        .id;

    let writer = rusqlite::Connection::open(&path).unwrap();
    writer.execute_batch("BEGIN IMMEDIATE").unwrap();
    let (tx, rx) = mpsc::channel();
    let reader = cairn.clone();
    let reads = std::thread::spawn(move || {
        let mut req = RecallRequest::new("default", "lighthouse fog");
        req.mode = SearchMode::Keyword;
        let found = reader.recall(&req).map(|r| r.len());
        let got = reader.get("default", &id.to_string()).map(|m| m.id);
        tx.send((found, got)).unwrap();
    });
    let answered = rx.recv_timeout(Duration::from_secs(5));
    writer.execute_batch("COMMIT").unwrap();
    reads.join().unwrap();
    let (found, got) = answered.expect("the reads waited for the write lock");
    assert_eq!(found.unwrap(), 1);
    assert_eq!(got.unwrap(), id);

    cairn.flush_accesses().unwrap();
    let m = &store.get("default", &[id]).unwrap()[0];
    assert_eq!(m.access_count, 2);
}
