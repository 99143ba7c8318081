//! The pool of connections, made on the first successful connection, and
//! transactions confined to a tenant.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use cairn_core::{Error, Result};
use postgres::types::ToSql;
use postgres::{Client, NoTls, Row, SimpleQueryMessage, SimpleQueryRow, Statement, Transaction};

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
    /// Reads of what every tenant shares and no row-level security
    /// guards (the recorded model, keyword statistics): under whatever
    /// tenant the connection holds, so that a recall's reads never switch
    /// its connection's tenant back and forth ([`Pool::read`] only).
    Shared,
}

/// What every pooled connection does first: the store's schema on its
/// search path, and the application role when the connected one would
/// bypass row-level security.
#[derive(Debug)]
struct Session {
    schema: String,
    app_role: bool,
}

impl r2d2::CustomizeConnection<Conn, postgres::Error> for Session {
    fn on_acquire(&self, conn: &mut Conn) -> std::result::Result<(), postgres::Error> {
        let mut sql = format!("SET search_path = \"{}\", public", self.schema);
        if self.app_role {
            sql.push_str(&format!("; SET ROLE {APP_ROLE}"));
        }
        conn.client.batch_execute(&sql)
    }
}

/// A pooled connection and the statements prepared on it by
/// [`Reader::query`] (a prepared statement lives on its connection).
pub(crate) struct Conn {
    client: Client,
    statements: HashMap<String, Statement>,
    /// The session's `cairn.tenant` as [`Pool::read`] last set it (`""`:
    /// none); `None` when not known (a new connection, a failed read).
    tenant: Option<String>,
    /// The session settings [`Pool::read`] last made on it.
    settings: Option<String>,
}

/// At most this many statements stay prepared on a connection (the
/// read paths' statements differ only by the filter's shape).
const PREPARED_PER_CONNECTION: usize = 256;

/// Makes [`Conn`]s. A connection is not tested with a round trip when it
/// is lent (r2d2's default): one the server closed fails its first
/// statement, is seen broken when it comes back, and the read paths try
/// again on another ([`Pool::read`]).
#[derive(Debug)]
struct Manager {
    config: postgres::Config,
}

impl r2d2::ManageConnection for Manager {
    type Connection = Conn;
    type Error = postgres::Error;

    fn connect(&self) -> std::result::Result<Conn, postgres::Error> {
        Ok(Conn {
            client: self.config.connect(NoTls)?,
            statements: HashMap::new(),
            tenant: None,
            settings: None,
        })
    }

    fn is_valid(&self, conn: &mut Conn) -> std::result::Result<(), postgres::Error> {
        conn.client.simple_query("").map(drop)
    }

    fn has_broken(&self, conn: &mut Conn) -> bool {
        conn.client.is_closed()
    }
}

/// A read-only transaction on one connection, whose statements are
/// prepared once per connection: each costs one round trip, not two
/// (parse, then bind and execute).
pub(crate) struct Reader<'a> {
    conn: &'a mut Conn,
}

impl Reader<'_> {
    /// The rows of `sql` (prepared on this connection the first time).
    pub(crate) fn query(
        &mut self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> std::result::Result<Vec<Row>, postgres::Error> {
        let Conn {
            client, statements, ..
        } = &mut *self.conn;
        let statement = match statements.get(sql) {
            Some(s) => s.clone(),
            None => {
                let s = client.prepare(sql)?;
                if statements.len() >= PREPARED_PER_CONNECTION {
                    statements.clear();
                }
                statements.insert(sql.to_string(), s.clone());
                s
            }
        };
        client.query(&statement, params)
    }
}

/// A read's connection; rolled back when dropped before its end (an
/// error or a panic in the read), so it goes back to the pool idle.
struct Open {
    conn: r2d2::PooledConnection<Manager>,
    ended: bool,
}

impl Drop for Open {
    fn drop(&mut self) {
        if !self.ended {
            let _ = self.conn.client.batch_execute("ROLLBACK");
        }
    }
}

/// The statement naming a transaction's `scope` (one simple query: the
/// tenant is a quoted literal).
fn scope_sql(scope: Scope<'_>) -> String {
    match scope {
        Scope::Tenant(tenant) => format!(
            "SELECT set_config('cairn.tenant', '{}', true)",
            tenant.replace('\'', "''")
        ),
        Scope::Every => "SELECT set_config('cairn.every_tenant', 'on', true)".to_string(),
        // A statement all the same: [`Pool::read`] counts them.
        Scope::Unscoped | Scope::Shared => "SELECT NULL".to_string(),
    }
}

/// The rows of the last statement of a simple query's `messages`.
fn last_statement_rows(messages: Vec<SimpleQueryMessage>) -> Vec<SimpleQueryRow> {
    let mut last = Vec::new();
    let mut current = Vec::new();
    for message in messages {
        match message {
            SimpleQueryMessage::Row(row) => current.push(row),
            SimpleQueryMessage::CommandComplete(_) => last = std::mem::take(&mut current),
            _ => {}
        }
    }
    last
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

    /// Run `f`'s reads (see [`Pool::read`]).
    pub(crate) fn read<T>(
        &self,
        scope: Scope<'_>,
        settings: &str,
        first: &str,
        f: impl FnMut(&mut Reader<'_>, &[SimpleQueryRow]) -> Result<T>,
    ) -> Result<T> {
        self.pool()?.read(scope, settings, first, f)
    }

    /// Run `f` in one read-only transaction (see [`Pool::read_tx`]).
    pub(crate) fn read_tx<T>(
        &self,
        scope: Scope<'_>,
        settings: &str,
        f: impl FnOnce(&mut Reader<'_>, &[SimpleQueryRow]) -> Result<T>,
    ) -> Result<T> {
        self.pool()?.read_tx(scope, settings, f)
    }

    /// Run `f` on a connection outside any explicit transaction (see
    /// [`Pool::client`]).
    pub(crate) fn client<T>(&self, f: impl FnOnce(&mut Client) -> Result<T>) -> Result<T> {
        self.pool()?.client(f)
    }
}

/// Connections to one store's migrated schema.
pub(crate) struct Pool {
    pool: r2d2::Pool<Manager>,
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
            .test_on_check_out(false)
            .connection_customizer(Box::new(Session {
                schema: c.schema.clone(),
                app_role,
            }))
            .build(Manager {
                config: c.config.clone(),
            })
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
        let has_tenant = conn.tenant.as_deref() != Some("");
        let mut tx = conn
            .client
            .transaction()
            .map_err(|e| pg_err("beginning a transaction", e))?;
        match scope {
            Scope::Tenant(tenant) => tx
                .execute("SELECT set_config('cairn.tenant', $1, true)", &[&tenant])
                .map(drop),
            Scope::Every => tx
                .batch_execute("SELECT set_config('cairn.every_tenant', 'on', true)")
                .map(drop),
            // A tenant a read left on the session names none here.
            Scope::Unscoped | Scope::Shared if has_tenant => tx
                .batch_execute("SELECT set_config('cairn.tenant', '', true)")
                .map(drop),
            Scope::Unscoped | Scope::Shared => Ok(()),
        }
        .map_err(|e| pg_err("naming the transaction's tenant", e))?;
        let out = f(&mut tx)?;
        tx.commit()
            .map_err(|e| pg_err("committing a transaction", e))?;
        Ok(out)
    }

    /// Run `f` in one read-only transaction confined to `scope`, begun
    /// in one round trip with `settings` (`SET LOCAL`s, and any
    /// statements whose rows `f` is given), its statements prepared once
    /// per connection ([`Reader`]). A connection the server closed while
    /// it was idle is replaced once. Three round trips at least: see
    /// [`Pool::read`] for one.
    pub(crate) fn read_tx<T>(
        &self,
        scope: Scope<'_>,
        settings: &str,
        f: impl FnOnce(&mut Reader<'_>, &[SimpleQueryRow]) -> Result<T>,
    ) -> Result<T> {
        let begin = format!("BEGIN READ ONLY; {}; {settings}", scope_sql(scope));
        let mut retried = false;
        let (conn, messages) = loop {
            let mut conn = self
                .pool
                .get()
                .map_err(|e| Error::unavailable_from("no connection to PostgreSQL", e))?;
            match conn.client.simple_query(&begin) {
                Ok(messages) => break (conn, messages),
                Err(_) if conn.client.is_closed() && !retried => retried = true,
                Err(e) => return Err(pg_err("beginning a read", e)),
            }
        };
        let mut open = Open { conn, ended: false };
        // The rows of `settings`: those after `BEGIN`'s and the scope's.
        let mut done = 0;
        let mut rows: Vec<SimpleQueryRow> = Vec::new();
        for message in messages {
            match message {
                SimpleQueryMessage::Row(row) if done >= 2 => rows.push(row),
                SimpleQueryMessage::CommandComplete(_) => done += 1,
                _ => {}
            }
        }
        let out = f(
            &mut Reader {
                conn: &mut open.conn,
            },
            &rows,
        )?;
        open.ended = true;
        open.conn
            .client
            .batch_execute("COMMIT")
            .map_err(|e| pg_err("ending a read", e))?;
        Ok(out)
    }

    /// Run `f`'s statements confined to `scope`, each its own transaction
    /// (one round trip each, prepared once per connection: [`Reader`]),
    /// after `first`, whose rows `f` is given. The tenant is named on the
    /// session (`set_config(…, false)`) and `settings` (`SET`s that only
    /// reads depend on) are made on it, each only when the connection's
    /// differ: in the same round trip as `first`. A connection the server
    /// closed while it was idle is replaced once.
    ///
    /// Every other use of a connection names its own scope ([`Pool::tx`]
    /// resets a tenant left on the session when it has none), so a
    /// tenant left on an idle connection widens nothing. Statements see
    /// their own snapshots: a read of several may see a write between
    /// them, as two reads would. [`Scope::Every`] reads in one
    /// transaction ([`Pool::read_tx`]).
    pub(crate) fn read<T>(
        &self,
        scope: Scope<'_>,
        settings: &str,
        first: &str,
        mut f: impl FnMut(&mut Reader<'_>, &[SimpleQueryRow]) -> Result<T>,
    ) -> Result<T> {
        let tenant = match scope {
            Scope::Tenant(tenant) => Some(tenant),
            Scope::Unscoped => Some(""),
            Scope::Shared => None,
            Scope::Every => return self.read_tx(scope, &format!("{settings}; {first}"), f),
        };
        let mut retried = false;
        loop {
            let mut conn = self
                .pool
                .get()
                .map_err(|e| Error::unavailable_from("no connection to PostgreSQL", e))?;
            let mut sql = String::new();
            if let Some(tenant) = tenant.filter(|t| conn.tenant.as_deref() != Some(t)) {
                sql.push_str(&format!(
                    "SELECT set_config('cairn.tenant', '{}', false);",
                    tenant.replace('\'', "''")
                ));
            }
            if !settings.is_empty() && conn.settings.as_deref() != Some(settings) {
                sql.push_str(settings);
                sql.push(';');
            }
            sql.push_str(first);
            let mut rows: Vec<SimpleQueryRow> = Vec::new();
            if !sql.is_empty() {
                // Unknown until it succeeds (a failed simple query rolls
                // back all of it).
                let held = conn.tenant.take();
                conn.settings = None;
                match conn.client.simple_query(&sql) {
                    Ok(messages) => rows = last_statement_rows(messages),
                    Err(_) if conn.client.is_closed() && !retried => {
                        retried = true;
                        continue;
                    }
                    Err(e) => return Err(pg_err("beginning a read", e)),
                }
                conn.tenant = tenant.map(str::to_string).or(held);
                if !settings.is_empty() {
                    conn.settings = Some(settings.to_string());
                }
            }
            let first_rows = if first.is_empty() { Vec::new() } else { rows };
            let out = f(&mut Reader { conn: &mut conn }, &first_rows);
            match out {
                // Closed while idle: once more, on another connection
                // (the statements only read).
                Err(_) if conn.client.is_closed() && !retried => retried = true,
                out => return out,
            }
        }
    }

    /// Run `f` on a pooled connection outside any explicit transaction:
    /// one statement is its own transaction, at one round trip.
    pub(crate) fn client<T>(&self, f: impl FnOnce(&mut Client) -> Result<T>) -> Result<T> {
        let mut conn = self
            .pool
            .get()
            .map_err(|e| Error::unavailable_from("no connection to PostgreSQL", e))?;
        f(&mut conn.client)
    }

    /// Run `sql` (one statement) outside any transaction, as the tables'
    /// owner: `VACUUM`, which no transaction may hold.
    pub(crate) fn outside_tx(&self, sql: &str) -> Result<()> {
        let mut conn = self
            .pool
            .get()
            .map_err(|e| Error::unavailable_from("no connection to PostgreSQL", e))?;
        let conn = &mut conn.client;
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
