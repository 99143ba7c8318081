//! The pool of connections and transactions confined to a tenant.

use std::time::Duration;

use cairn_core::{Error, Result};
use postgres::{Client, NoTls, Transaction};
use r2d2_postgres::PostgresConnectionManager;

use crate::schema::APP_ROLE;
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

/// A pool of connections to one store's schema.
#[derive(Clone)]
pub(crate) struct Db {
    pool: r2d2::Pool<PostgresConnectionManager<NoTls>>,
    /// Whether connections act as [`APP_ROLE`] (and so must leave it for
    /// what only the owner may do).
    app_role: bool,
}

impl Db {
    /// A pool of at most `size` connections with `config`, each set up
    /// for `schema`.
    pub(crate) fn new(
        config: postgres::Config,
        schema: &str,
        app_role: bool,
        size: u32,
        wait: Duration,
    ) -> Result<Self> {
        let pool = r2d2::Pool::builder()
            .max_size(size.max(1))
            .min_idle(Some(1))
            .connection_timeout(wait)
            .connection_customizer(Box::new(Session {
                schema: schema.to_string(),
                app_role,
            }))
            .build(PostgresConnectionManager::new(config, NoTls))
            .map_err(|e| Error::unavailable_from("no connection to PostgreSQL", e))?;
        Ok(Db { pool, app_role })
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
