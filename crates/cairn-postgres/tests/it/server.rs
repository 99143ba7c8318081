//! What a server shows: migrations recorded once, an unreachable server
//! reported as unavailable, two stores (two processes' pools) on one
//! database deduplicating together.

use std::sync::Arc;
use std::time::Duration;

use cairn_core::conformance::{axis, sample, DIM};
use cairn_core::history::LOCAL_ACTOR;
use cairn_core::store::prelude::*;
use cairn_core::store::{Filter, ScopeFilter};
use cairn_core::{ErrorKind, Inserted, MemoryType};
use cairn_postgres::{PostgresOptions, PostgresStore, SCHEMA_VERSION};

use crate::{url, Schema};

#[test]
fn migrations_are_recorded_and_applied_once() {
    let schema = Schema::new();
    drop(schema.open());
    drop(schema.open());
    let mut client = postgres::Client::connect(&url(), postgres::NoTls).unwrap();
    let rows = client
        .query(
            &format!(
                "SELECT version FROM {}.cairn_migrations ORDER BY version",
                schema.name
            ),
            &[],
        )
        .unwrap();
    let versions: Vec<i32> = rows.iter().map(|r| r.get(0)).collect();
    assert_eq!(versions, (1..=SCHEMA_VERSION).collect::<Vec<_>>());
}

#[test]
fn an_unreachable_server_is_unavailable() {
    // A port nothing listens on (the discard port, refused on loopback).
    let err = PostgresStore::open_with(
        "postgres://cairn@127.0.0.1:9/cairn",
        PostgresOptions {
            connect_timeout: Duration::from_secs(2),
            ..PostgresOptions::default()
        },
    )
    .err()
    .expect("no server there");
    assert_eq!(err.kind(), ErrorKind::Unavailable, "{err}");
}

#[test]
fn two_stores_on_one_database_leave_one_memory() {
    let schema = Schema::new();
    let stores: Vec<Arc<PostgresStore>> = (0..2).map(|_| Arc::new(schema.open())).collect();
    let v = axis(7, DIM);
    for round in 0..10u32 {
        let barrier = std::sync::Barrier::new(2);
        let outcomes: Vec<Inserted> = std::thread::scope(|s| {
            let handles: Vec<_> = stores
                .iter()
                .enumerate()
                .map(|(i, store)| {
                    let (barrier, v) = (&barrier, v.clone());
                    s.spawn(move || {
                        let text = format!("round {round}: the deploy key lives in the vault");
                        let m = sample(
                            round * 2 + i as u32,
                            "default",
                            None,
                            MemoryType::Fact,
                            &text,
                        );
                        let mut v = v;
                        v[1 + round as usize] += 0.5;
                        barrier.wait();
                        store
                            .insert_unless_duplicate(m, v, 0.92, LOCAL_ACTOR)
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
    assert_eq!(stores[0].count(&all).unwrap(), 10);
}
