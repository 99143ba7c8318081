//! Integration tests of the PostgreSQL backend: the store conformance
//! suite, row-level security, migrations, and an unreachable server.
//!
//! They need a PostgreSQL with pgvector: `CAIRN_TEST_POSTGRES_URL` names
//! it (`scripts/postgres.sh start` starts one and prints its URL;
//! `scripts/test.sh` does both). Without it every test fails, never skips.
//! Each store lives in a schema of its own, dropped after the test, so the
//! tests run in parallel on one database.

use std::sync::Arc;

use cairn_core::Store;
use cairn_postgres::{PostgresOptions, PostgresStore};

mod bulk;
mod keyword;
mod nul;
mod reads;
mod rls;
mod server;

/// The test database's URL, or a failure saying how to get one.
pub fn url() -> String {
    match std::env::var("CAIRN_TEST_POSTGRES_URL") {
        Ok(url) if !url.is_empty() => url,
        _ => panic!(
            "CAIRN_TEST_POSTGRES_URL is not set: the PostgreSQL tests need a database. \
             Run `export CAIRN_TEST_POSTGRES_URL=$(scripts/postgres.sh start | tail -1)` \
             (scripts/test.sh does this itself)."
        ),
    }
}

/// A schema of its own for one test, dropped (with everything in it) when
/// the test ends.
pub struct Schema {
    /// The schema's name (`t_` and a fresh UUIDv7).
    pub name: String,
}

impl Default for Schema {
    fn default() -> Self {
        Self::new()
    }
}

impl Schema {
    /// A new, unused name.
    pub fn new() -> Self {
        Schema {
            name: format!("t_{}", uuid::Uuid::now_v7().simple()),
        }
    }

    /// Options opening a store in this schema, with a small pool.
    pub fn options(&self) -> PostgresOptions {
        PostgresOptions {
            schema: self.name.clone(),
            pool_size: 4,
            ..PostgresOptions::default()
        }
    }

    /// A store in this schema (made and migrated on first open).
    pub fn open(&self) -> PostgresStore {
        PostgresStore::open_with(&url(), self.options()).expect("open the PostgreSQL store")
    }
}

impl Drop for Schema {
    fn drop(&mut self) {
        // Never `url()` here: a second panic while unwinding would abort.
        let Ok(url) = std::env::var("CAIRN_TEST_POSTGRES_URL") else {
            return;
        };
        if let Ok(mut client) = postgres::Client::connect(&url, postgres::NoTls) {
            let _ = client.batch_execute(&format!("DROP SCHEMA IF EXISTS {} CASCADE", self.name));
        }
    }
}

/// A fresh store in a fresh schema; the schema goes when the check ends.
fn fresh() -> (Arc<dyn Store>, Schema) {
    let schema = Schema::new();
    (Arc::new(schema.open()), schema)
}

cairn_core::store_conformance_tests!(crate::fresh());
