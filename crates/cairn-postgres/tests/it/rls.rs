//! Row-level security: a query that forgets its tenant condition still
//! sees only the tenant its transaction names.

use cairn_core::conformance::{axis, sample, DIM};
use cairn_core::store::prelude::*;
use cairn_core::{MemoryType, WriteBatch};
use cairn_postgres::APP_ROLE;

use crate::{url, Schema};

#[test]
fn a_query_without_a_tenant_condition_sees_only_its_tenant() {
    let schema = Schema::new();
    let store = schema.open();
    let mine = sample(1, "alice", None, MemoryType::Fact, "alice's secret");
    let theirs = sample(2, "bob", None, MemoryType::Fact, "bob's secret");
    store
        .write(WriteBatch {
            inserts: vec![(mine.clone(), axis(1, DIM)), (theirs, axis(2, DIM))],
            ..Default::default()
        })
        .unwrap();

    // A connection set up as the store sets up its own (the test database
    // is entered as a superuser, so the store acts as APP_ROLE).
    let mut client = postgres::Client::connect(&url(), postgres::NoTls).unwrap();
    client
        .batch_execute(&format!(
            "SET search_path = {}, public; SET ROLE {APP_ROLE}",
            schema.name
        ))
        .unwrap();
    let mut tx = client.transaction().unwrap();
    tx.execute("SELECT set_config('cairn.tenant', 'alice', true)", &[])
        .unwrap();
    // No tenant condition: row-level security supplies it.
    let contents: Vec<String> = tx
        .query("SELECT content FROM memories", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(contents, vec!["alice's secret".to_string()]);
    let versions: i64 = tx
        .query_one("SELECT count(*) FROM versions WHERE tenant <> 'alice'", &[])
        .unwrap()
        .get(0);
    assert_eq!(versions, 0);
    // Nor can it write another tenant's row.
    let stolen = tx.execute(
        "UPDATE memories SET content = 'stolen' WHERE tenant = 'bob'",
        &[],
    );
    assert_eq!(stolen.unwrap(), 0);
    tx.rollback().unwrap();

    // A transaction naming no tenant sees nothing at all.
    let n: i64 = client
        .query_one("SELECT count(*) FROM memories", &[])
        .unwrap()
        .get(0);
    assert_eq!(n, 0);
}
