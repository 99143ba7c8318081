//! PostgreSQL stores for the suite (`CAIRN_TEST_STORE=postgres`): one
//! schema per store in the database `CAIRN_TEST_POSTGRES_URL` names.
//!
//! A store is shared by the state, its clones and the tasks a test
//! spawns, so no one test knows when it is gone: each new store first
//! drops the schemas of the stores no longer held, and the first one
//! drops those of test processes no longer running (the last few schemas
//! of a run go with the next run).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Once, Weak};

use cairn_core::Store;
use cairn_postgres::{PostgresOptions, PostgresStore};

/// The schemas' prefix; the process id and a number follow.
const PREFIX: &str = "t_srv_";

/// The stores made, with their schemas.
static STORES: Mutex<Vec<(Weak<dyn Store>, String)>> = Mutex::new(Vec::new());

/// The test database's URL, or a failure saying how to get one.
fn url() -> String {
    match std::env::var("CAIRN_TEST_POSTGRES_URL") {
        Ok(url) if !url.is_empty() => url,
        _ => panic!(
            "CAIRN_TEST_STORE=postgres needs CAIRN_TEST_POSTGRES_URL: run \
             `export CAIRN_TEST_POSTGRES_URL=$(scripts/postgres.sh start | tail -1)` \
             (scripts/test.sh does this itself)."
        ),
    }
}

/// A fresh store in a schema of its own. Call it off the async runtime.
pub fn store() -> Arc<dyn Store> {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let url = url();
    drop_unused_schemas(&url);
    let schema = format!(
        "{PREFIX}{}_{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    );
    let options = PostgresOptions {
        schema: schema.clone(),
        pool_size: 4,
        ..PostgresOptions::default()
    };
    let store: Arc<dyn Store> = Arc::new(
        PostgresStore::open_with(&url, options).expect("open a PostgreSQL store for the test"),
    );
    STORES
        .lock()
        .unwrap()
        .push((Arc::downgrade(&store), schema));
    store
}

/// Drop the schemas of this process's stores that are gone (their
/// connections closed with them), and once, those of processes gone.
fn drop_unused_schemas(url: &str) {
    static STALE: Once = Once::new();
    let mut unused: Vec<String> = Vec::new();
    STORES.lock().unwrap().retain(|(store, schema)| {
        let held = store.strong_count() > 0;
        if !held {
            unused.push(schema.clone());
        }
        held
    });
    let mut client = postgres::Client::connect(url, postgres::NoTls)
        .unwrap_or_else(|e| panic!("CAIRN_TEST_POSTGRES_URL does not answer: {e}"));
    STALE.call_once(|| {
        let rows = client
            .query(
                "SELECT nspname FROM pg_namespace WHERE starts_with(nspname, $1)",
                &[&PREFIX],
            )
            .unwrap();
        for row in rows {
            let schema: String = row.get(0);
            let pid = schema[PREFIX.len()..].split('_').next().unwrap_or("");
            if !std::path::Path::new("/proc").join(pid).exists() {
                unused.push(schema);
            }
        }
    });
    for schema in unused {
        client
            .batch_execute(&format!("DROP SCHEMA IF EXISTS {schema} CASCADE"))
            .unwrap();
    }
}
