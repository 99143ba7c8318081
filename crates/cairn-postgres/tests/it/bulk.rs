//! Bulk loads: the vector index dropped for the load, built at its end,
//! and built by the next process to open the store when a load died.

use cairn_core::conformance::{axis, sample, DIM};
use cairn_core::store::prelude::*;
use cairn_core::{MemoryType, ModelInfo, WriteBatch};

use crate::{url, Schema};

fn has_vector_index(schema: &Schema) -> bool {
    let mut client = postgres::Client::connect(&url(), postgres::NoTls).unwrap();
    client
        .query_opt(
            "SELECT 1 FROM pg_indexes WHERE schemaname = $1 AND indexname = $2",
            &[&schema.name, &format!("memories_hnsw_{DIM}")],
        )
        .unwrap()
        .is_some()
}

#[test]
fn a_bulk_load_defers_the_vector_index_and_a_dead_one_leaves_it_to_the_next_open() {
    let schema = Schema::new();
    let store = schema.open();
    store
        .set_model(&ModelInfo {
            name: "test".into(),
            dim: DIM,
        })
        .unwrap();
    assert!(has_vector_index(&schema));
    let rows = |from: u32| -> WriteBatch {
        WriteBatch {
            inserts: (from..from + 100)
                .map(|i| {
                    let m = sample(i, "default", None, MemoryType::Note, &format!("row {i}"));
                    (m, axis(i as usize, DIM))
                })
                .collect(),
            ..Default::default()
        }
    };
    // A load bigger than the store: the index goes, and comes back at the end.
    store.maintenance().begin_bulk(1000).unwrap();
    assert!(!has_vector_index(&schema));
    store.write(rows(0)).unwrap();
    store.maintenance().end_bulk().unwrap();
    assert!(has_vector_index(&schema));
    // A load smaller than the store keeps the index.
    store.maintenance().begin_bulk(50).unwrap();
    assert!(has_vector_index(&schema));
    store.maintenance().end_bulk().unwrap();
    // A load whose process dies before its end: the next open builds it.
    store.maintenance().begin_bulk(1000).unwrap();
    store.write(rows(100)).unwrap();
    drop(store);
    assert!(!has_vector_index(&schema));
    let again = schema.open();
    assert!(has_vector_index(&schema));
    let filter = cairn_core::Filter::new("default", 0);
    let hits = again.vector_search(&axis(150, DIM), &filter, 1).unwrap();
    assert_eq!(hits.len(), 1);
}
