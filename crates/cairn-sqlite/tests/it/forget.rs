//! Forgetting really deletes: once a forgotten memory's store is
//! checkpointed, no byte of its text, tags or versions is left in the file.

use std::sync::Arc;

use cairn_core::conformance::LexicalEmbedder;
use cairn_core::{Cairn, RememberRequest, UpdateRequest};
use cairn_sqlite::SqliteStore;

/// Whether `needle` occurs in the store file or its WAL.
fn on_disk(path: &std::path::Path, needle: &str) -> bool {
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    [path.to_path_buf(), wal.into()].iter().any(|p| {
        std::fs::read(p)
            .is_ok_and(|bytes| bytes.windows(needle.len()).any(|w| w == needle.as_bytes()))
    })
}

fn checkpoint(path: &std::path::Path) {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .unwrap();
}

#[test]
fn a_forgotten_memory_leaves_no_bytes_in_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cairn.db");
    let store = Arc::new(SqliteStore::open(&path).unwrap());
    let cairn = Cairn::new(store.clone(), Arc::new(LexicalEmbedder));
    for i in 0..50 {
        let text = format!("an ordinary memory number {i} about deployments");
        cairn
            .remember(RememberRequest::new("default", text))
            .unwrap();
    }
    let mut secret = RememberRequest::new(
        "default",
        "the vault passphrase is quokkamarmalade and the backup pin is 90210",
    );
    secret.tags = vec!["wombatlabel".into()];
    let id = cairn.remember(secret).unwrap().id;
    // A second version, whose old text lives on in the first.
    let reworded = UpdateRequest {
        content: Some("the vault passphrase is quokkamarmalade, rotated monthly".into()),
        ..Default::default()
    };
    cairn
        .update("default", &id.to_string(), reworded, "local")
        .unwrap();
    store.save_index_snapshot().unwrap();
    checkpoint(&path);
    for needle in ["quokkamarmalade", "backup pin is 90210", "wombatlabel"] {
        assert!(on_disk(&path, needle), "{needle} should be on disk before");
    }

    cairn.forget("default", &[id.to_string()], "local").unwrap();
    checkpoint(&path);
    for needle in ["quokkamarmalade", "passphrase", "90210", "wombatlabel"] {
        assert!(!on_disk(&path, needle), "{needle} is still in the file");
    }
    // The rest is intact, and searchable.
    assert_eq!(store.integrity_check().unwrap(), "ok");
    let hits = cairn
        .search(&cairn_core::RecallRequest::new("default", "deployments"))
        .unwrap();
    assert!(!hits.is_empty());
    let receipt = cairn
        .history("default", &id.to_string())
        .unwrap()
        .deleted
        .unwrap();
    assert_eq!(receipt.versions, 2);
}
