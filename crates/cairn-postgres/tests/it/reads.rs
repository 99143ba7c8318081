//! Reads name their tenant on the connection's session, and only when it
//! changes: one connection lent to tenant after tenant, each read sees
//! its own tenant's memories and never another's.

use cairn_core::conformance::{axis, sample, DIM};
use cairn_core::store::prelude::*;
use cairn_core::store::Filter;
use cairn_core::{MemoryType, WriteBatch};
use cairn_postgres::{PostgresOptions, PostgresStore};

use crate::{url, Schema};

#[test]
fn one_connection_lent_to_tenant_after_tenant_reads_each_ones_own() {
    let schema = Schema::new();
    // One connection: every read below is on the same session.
    let store = PostgresStore::open_with(
        &url(),
        PostgresOptions {
            pool_size: 1,
            ..schema.options()
        },
    )
    .unwrap();
    let alice = sample(1, "alice", None, MemoryType::Fact, "the shared secret word");
    let bob = sample(2, "bob", None, MemoryType::Fact, "the shared secret word");
    store
        .write(WriteBatch {
            inserts: vec![(alice.clone(), axis(1, DIM)), (bob.clone(), axis(1, DIM))],
            ..Default::default()
        })
        .unwrap();
    let both = [alice.id, bob.id];
    for round in 0..3 {
        for (tenant, own) in [("alice", &alice), ("bob", &bob), ("carol", &alice)] {
            let expect: Vec<_> = match tenant {
                "carol" => Vec::new(),
                _ => vec![own.id],
            };
            let filter = Filter::new(tenant, 0);
            // Statistics every tenant shares: read under the tenant the
            // session holds, which the next read must still replace.
            store.keyword_rarity("word shared").unwrap();
            let got: Vec<_> = store
                .get(tenant, &both)
                .unwrap()
                .iter()
                .map(|m| m.id)
                .collect();
            assert_eq!(got, expect, "get as {tenant}, round {round}");
            let got: Vec<_> = store
                .keyword_search("secret", &filter, 10)
                .unwrap()
                .iter()
                .map(|h| h.id)
                .collect();
            assert_eq!(got, expect, "keyword search as {tenant}, round {round}");
            let got: Vec<_> = store
                .vector_search(&axis(1, DIM), &filter, 10)
                .unwrap()
                .iter()
                .map(|h| h.id)
                .collect();
            assert_eq!(got, expect, "vector search as {tenant}, round {round}");
            let got: Vec<_> = store
                .embeddings(tenant, &both)
                .unwrap()
                .iter()
                .map(Option::is_some)
                .collect();
            let want = match tenant {
                "alice" => vec![true, false],
                "bob" => vec![false, true],
                _ => vec![false, false],
            };
            assert_eq!(got, want, "embeddings as {tenant}, round {round}");
            // A statistic over every tenant between them.
            assert!(store.keyword_rarity("secret").unwrap().is_some());
            assert_eq!(store.count(&filter).unwrap(), expect.len());
        }
    }
}
