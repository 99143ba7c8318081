//! Every secret of the redaction table ingested into a SQLite file: none
//! of them is anywhere in the database's files afterwards (the database,
//! its write-ahead log and shared memory), read as raw bytes.

use std::sync::Arc;

use cairn_core::conformance::secrets::secret_table;
use cairn_core::conformance::LexicalEmbedder;
use cairn_core::engine::IngestRequest;
use cairn_core::Cairn;
use cairn_sqlite::SqliteStore;

#[test]
fn no_ingested_secret_reaches_the_database_files() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(dir.path().join("cairn.db")).unwrap();
    let cairn = Cairn::new(Arc::new(store), Arc::new(LexicalEmbedder));
    let table = secret_table();
    assert!(table.len() >= 40, "{} secrets", table.len());
    for (i, (text, _, _)) in table.iter().enumerate() {
        let mut req = IngestRequest::new(
            "default",
            format!("Note {i} about the Atlas rollout: {text}"),
        );
        req.threshold = 0.0;
        let receipt = cairn.ingest(req, &mut |_, _| {}).unwrap();
        assert!(!receipt.redacted.is_empty(), "nothing redacted in {text:?}");
    }
    // Every file of the store's directory, as written (no checkpoint).
    let files: Vec<Vec<u8>> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| std::fs::read(e.unwrap().path()).unwrap())
        .collect();
    assert!(files.iter().map(Vec::len).sum::<usize>() > 0);
    for (_, secret, kind) in &table {
        // A private key block is matched on its body, the part that is secret.
        let needle = secret
            .lines()
            .find(|l| !l.starts_with("-----") && l.len() > 16)
            .unwrap_or(secret)
            .trim();
        let found = files
            .iter()
            .any(|bytes| bytes.windows(needle.len()).any(|w| w == needle.as_bytes()));
        assert!(
            !found,
            "{kind:?} secret `{needle}` is in the database files"
        );
    }
}
