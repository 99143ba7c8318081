//! The pool of connections, made on the first successful connection, and
//! transactions confined to a tenant.

use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use cairn_core::{Error, Result};
use postgres::{Client, NoTls, Transaction};
use r2d2_postgres::PostgresConnectionManager;

use crate::schema::{self, APP_ROLE};
use crate::sql::pg_err;

/// Which rows a transaction may see of the tables under row-level
/// security.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Scope<'a> {
    /// One tenant's (`SET LOCAL cairn.tenant`).
    Tenant(&'a str),
    /// Every tenant's: expiry, the tenant list, batches spanning tenants.
    Every,
    /// None: the tables without tenants (settings, API keys).
    Unscoped,
}

/// What every pooled connection does first: the store's schema on its
/// search path, and the application role when the connected one would
/// bypass row-level security.
#[derive(Debug)]
struct Session {
    schema: String,
    app_role: bool,
}

impl r2d2::CustomizeConnection<Client, postgres::Error> for Session {
    fn on_acquire(&self, conn: &mut Client) -> std::result::Result<(), postgres::Error> {
        let mut sql = format!("SET search_path = \"{}\", public", self.schema);
        if self.app_role {
            sql.push_str(&format!("; SET ROLE {APP_ROLE}"));
        }
        conn.batch_execute(&sql)
    }
}

/// What runs once the schema is migrated, before the first transaction
/// of a store (the vector index a bulk load owed, for one).
pub(crate) type OnConnect = Box<dyn Fn(&Pool) -> Result<()> + Send + Sync>;

/// How to reach the database: everything [`Db`] needs to connect, again
/// and again until it succeeds.
pub(crate) struct Connect {
    /// The server, its user and its timeouts.
    pub(crate) config: postgres::Config,
    /// The store's schema (made and migrated on connecting).
    pub(crate) schema: String,
    /// At most this many connections.
    pub(crate) size: u32,
    /// How long a caller waits for a pooled connection.
    pub(crate) wait: Duration,
    /// See [`OnConnect`].
    pub(crate) on_connect: OnConnect,
}

/// The database of one store: a pool over its schema, made by the first
/// call that reaches the server (the schema migrated first), so that a
/// store opened while the database is down works once it is up.
#[derive(Clone)]
pub(crate) struct Db {
    shared: Arc<Shared>,
}

struct Shared {
    connect: Connect,
    pool: OnceLock<Pool>,
    /// Held by the one caller connecting; the others wait for its result.
    connecting: Mutex<()>,
}

impl Drop for Shared {
    /// The pool's connections each hold a runtime of the `postgres`
    /// client's, which must not be dropped on an async runtime's thread:
    /// they close on a thread of their own.
    fn drop(&mut self) {
        if let Some(pool) = self.pool.take() {
            let _ = std::thread::spawn(move || drop(pool)).join();
        }
    }
}

impl Db {
    /// The database `connect` reaches; nothing is connected yet.
    pub(crate) fn new(connect: Connect) -> Self {
        Db {
            shared: Arc::new(Shared {
                connect,
                pool: OnceLock::new(),
                connecting: Mutex::new(()),
            }),
        }
    }

    /// The pool, connecting (and migrating the schema) first if no call
    /// has yet. While the server is unreachable this is
    /// [`cairn_core::ErrorKind::Unavailable`], and the next call tries
    /// again.
    pub(crate) fn pool(&self) -> Result<&Pool> {
        if let Some(pool) = self.shared.pool.get() {
            return Ok(pool);
        }
        let _turn = self
            .shared
            .connecting
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(pool) = self.shared.pool.get() {
            return Ok(pool);
        }
        let pool = Pool::connect(&self.shared.connect)?;
        (self.shared.connect.on_connect)(&pool)?;
        Ok(self.shared.pool.get_or_init(|| pool))
    }

    /// Run `f` in one transaction confined to `scope` (see [`Pool::tx`]).
    pub(crate) fn tx<T>(
        &self,
        scope: Scope<'_>,
        f: impl FnOnce(&mut Transaction<'_>) -> Result<T>,
    ) -> Result<T> {
        self.pool()?.tx(scope, f)
    }

    /// Run `f` on a connection outside any explicit transaction (see
    /// [`Pool::client`]).
    pub(crate) fn client<T>(&self, f: impl FnOnce(&mut Client) -> Result<T>) -> Result<T> {
        self.pool()?.client(f)
    }
}

/// Connections to one store's migrated schema.
pub(crate) struct Pool {
    pool: r2d2::Pool<PostgresConnectionManager<NoTls>>,
    /// Whether connections act as [`APP_ROLE`] (and so must leave it for
    /// what only the owner may do).
    app_role: bool,
}

impl Pool {
    /// Connect once to migrate the schema, then make the pool.
    fn connect(c: &Connect) -> Result<Self> {
        let mut setup = c
            .config
            .connect(NoTls)
            .map_err(|e| pg_err("connecting", e))?;
        let app_role = schema::bypasses_rls(&mut setup)?;
        schema::prepare(&mut setup, &c.schema, app_role)?;
        drop(setup);
        let pool = r2d2::Pool::builder()
            .max_size(c.size.max(1))
            .min_idle(Some(1))
            .connection_timeout(c.wait)
            .connection_customizer(Box::new(Session {
                schema: c.schema.clone(),
                app_role,
            }))
            .build(PostgresConnectionManager::new(c.config.clone(), NoTls))
            .map_err(|e| Error::unavailable_from("no connection to PostgreSQL", e))?;
        Ok(Pool { pool, app_role })
    }

    /// Run `f` in one transaction confined to `scope`, committed when `f`
    /// succeeds and rolled back otherwise.
    pub(crate) fn tx<T>(
        &self,
        scope: Scope<'_>,
        f: impl FnOnce(&mut Transaction<'_>) -> Result<T>,
    ) -> Result<T> {
        let mut conn = self
            .pool
            .get()
            .map_err(|e| Error::unavailable_from("no connection to PostgreSQL", e))?;
        let mut tx = conn
            .transaction()
            .map_err(|e| pg_err("beginning a transaction", e))?;
        match scope {
            Scope::Tenant(tenant) => tx
                .execute("SELECT set_config('cairn.tenant', $1, true)", &[&tenant])
                .map(drop),
            Scope::Every => tx
                .batch_execute("SELECT set_config('cairn.every_tenant', 'on', true)")
                .map(drop),
            Scope::Unscoped => Ok(()),
        }
        .map_err(|e| pg_err("naming the transaction's tenant", e))?;
        let out = f(&mut tx)?;
        tx.commit()
            .map_err(|e| pg_err("committing a transaction", e))?;
        Ok(out)
    }

    /// Run `f` on a pooled connection outside any explicit transaction:
    /// one statement is its own transaction, at one round trip.
    pub(crate) fn client<T>(&self, f: impl FnOnce(&mut Client) -> Result<T>) -> Result<T> {
        let mut conn = self
            .pool
            .get()
            .map_err(|e| Error::unavailable_from("no connection to PostgreSQL", e))?;
        f(&mut conn)
    }

    /// Run `sql` (one statement) outside any transaction, as the tables'
    /// owner: `VACUUM`, which no transaction may hold.
    pub(crate) fn outside_tx(&self, sql: &str) -> Result<()> {
        let mut conn = self
            .pool
            .get()
            .map_err(|e| Error::unavailable_from("no connection to PostgreSQL", e))?;
        if self.app_role {
            conn.batch_execute("SET ROLE NONE")
                .map_err(|e| pg_err("acting as the schema's owner", e))?;
        }
        let out = conn.batch_execute(sql).map_err(|e| pg_err(sql, e));
        if self.app_role {
            // Back to the application role before the pool lends it again.
            conn.batch_execute(&format!("SET ROLE {APP_ROLE}"))
                .map_err(|e| pg_err(format!("acting as {APP_ROLE} again"), e))?;
        }
        out
    }

    /// Within a transaction, act as the tables' owner until it ends (to
    /// make or drop an index).
    pub(crate) fn as_owner(&self, tx: &mut Transaction<'_>) -> Result<()> {
        if self.app_role {
            tx.batch_execute("SET LOCAL ROLE NONE")
                .map_err(|e| pg_err("acting as the schema's owner", e))?;
        }
        Ok(())
    }
}
