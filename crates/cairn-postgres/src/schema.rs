//! The database's shape: versioned migrations (embedded SQL, each recorded
//! in `cairn_migrations` once applied), and the role the store's
//! connections act as, so that row-level security holds them.

use cairn_core::{Error, Result};
use postgres::Client;

use crate::sql::pg_err;

/// The role every pooled connection takes (`SET ROLE`) when the store
/// connects as a superuser or a role that bypasses row-level security:
/// neither a superuser nor the tables' owner, so the tenant policies hold.
pub const APP_ROLE: &str = "cairn_app";

/// The migrations, in order: (version, name, SQL).
const MIGRATIONS: &[(i32, &str, &str)] = &[
    (1, "init", include_str!("migrations/0001_init.sql")),
    (
        2,
        "conversations",
        include_str!("migrations/0002_conversations.sql"),
    ),
    (3, "slots", include_str!("migrations/0003_slots.sql")),
    (
        4,
        "receipts_by_tenant",
        include_str!("migrations/0004_receipts_by_tenant.sql"),
    ),
    (5, "postings", include_str!("migrations/0005_postings.sql")),
    (
        6,
        "shared_state",
        include_str!("migrations/0006_shared_state.sql"),
    ),
    (7, "oauth", include_str!("migrations/0007_oauth.sql")),
];

/// The latest schema version this build knows.
pub const SCHEMA_VERSION: i32 = MIGRATIONS[MIGRATIONS.len() - 1].0;

/// A schema name as an SQL identifier: lowercase ASCII letters, digits and
/// underscores, not starting with a digit, at most 63 bytes.
pub(crate) fn check_schema_name(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name.len() <= 63
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        && !name.as_bytes()[0].is_ascii_digit();
    if ok {
        Ok(())
    } else {
        Err(Error::invalid(format!(
            "schema name {name:?}: use lowercase letters, digits and underscores"
        )))
    }
}

/// Whether the connected role skips row-level security (a superuser, or
/// `BYPASSRLS`): then connections must `SET ROLE` [`APP_ROLE`].
pub(crate) fn bypasses_rls(client: &mut Client) -> Result<bool> {
    let row = client
        .query_one(
            "SELECT rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = current_user",
            &[],
        )
        .map_err(|e| pg_err("reading the connected role", e))?;
    row.try_get(0)
        .map_err(|e| pg_err("reading the connected role", e))
}

/// Make the schema, the `vector` extension (in `public`, once per
/// database), apply the migrations not yet applied, and, when connections
/// will act as [`APP_ROLE`], make that role and grant it what it needs.
/// Safe to run from several processes at once: each step takes an
/// advisory lock.
pub(crate) fn prepare(client: &mut Client, schema: &str, app_role: bool) -> Result<()> {
    let mut tx = client
        .transaction()
        .map_err(|e| pg_err("beginning the migration", e))?;
    // One lock for the database-wide steps (extension, role), then one for
    // this schema.
    tx.batch_execute("SELECT pg_advisory_xact_lock(hashtext('cairn.prepare'))")
        .map_err(|e| pg_err("locking for the migration", e))?;
    let has_vector = tx
        .query_opt("SELECT 1 FROM pg_extension WHERE extname = 'vector'", &[])
        .map_err(|e| pg_err("looking for pgvector", e))?
        .is_some();
    if !has_vector {
        tx.batch_execute("CREATE EXTENSION IF NOT EXISTS vector SCHEMA public")
            .map_err(|e| {
                pg_err(
                    "the pgvector extension is not installed in this database, and this role \
                     cannot install it (CREATE EXTENSION vector)",
                    e,
                )
            })?;
    }
    if app_role {
        tx.batch_execute(&format!(
            "DO $$ BEGIN
                 IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{APP_ROLE}') THEN
                     CREATE ROLE {APP_ROLE} NOLOGIN NOSUPERUSER NOBYPASSRLS;
                 END IF;
             EXCEPTION WHEN duplicate_object OR unique_violation THEN
                 NULL; -- made at the same moment by another database's store
             END $$"
        ))
        .map_err(|e| pg_err(format!("creating the role {APP_ROLE}"), e))?;
    }
    tx.batch_execute(&format!(
        "CREATE SCHEMA IF NOT EXISTS \"{schema}\";
         SET LOCAL search_path = \"{schema}\", public;
         CREATE TABLE IF NOT EXISTS cairn_migrations (
             version    integer PRIMARY KEY,
             name       text NOT NULL,
             applied_at timestamptz NOT NULL DEFAULT now()
         )"
    ))
    .map_err(|e| pg_err(format!("creating the schema {schema}"), e))?;
    let applied: i32 = tx
        .query_one(
            "SELECT coalesce(max(version), 0) FROM cairn_migrations",
            &[],
        )
        .and_then(|r| r.try_get(0))
        .map_err(|e| pg_err("reading the schema version", e))?;
    if applied > SCHEMA_VERSION {
        return Err(Error::storage(format!(
            "the database's schema {schema} is at version {applied}, newer than this \
             Cairn's {SCHEMA_VERSION}: upgrade Cairn"
        )));
    }
    for (version, name, sql) in MIGRATIONS.iter().filter(|(v, _, _)| *v > applied) {
        tx.batch_execute(sql)
            .map_err(|e| pg_err(format!("migration {version} ({name})"), e))?;
        tx.execute(
            "INSERT INTO cairn_migrations (version, name) VALUES ($1, $2)",
            &[version, name],
        )
        .map_err(|e| pg_err(format!("recording migration {version}"), e))?;
    }
    if app_role {
        tx.batch_execute(&format!(
            "GRANT USAGE ON SCHEMA \"{schema}\" TO {APP_ROLE};
             GRANT SELECT ON cairn_migrations TO {APP_ROLE};
             GRANT SELECT, INSERT, UPDATE, DELETE
                 ON meta, memories, versions, deletions, api_keys, kw_corpus, kw_terms, kw_postings,
                    collections
                 TO {APP_ROLE};
             GRANT SELECT, INSERT, UPDATE, DELETE
                 ON ui_sessions, rate_buckets, leases,
                    oauth_clients, oauth_grants, oauth_tokens
                 TO {APP_ROLE};"
        ))
        .map_err(|e| pg_err(format!("granting {APP_ROLE} its rights"), e))?;
    }
    tx.commit()
        .map_err(|e| pg_err("committing the migration", e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_names_are_plain_identifiers() {
        assert!(check_schema_name("cairn").is_ok());
        assert!(check_schema_name("t_01abc").is_ok());
        for bad in ["", "1x", "Cairn", "a-b", "a\"b", &"x".repeat(64)] {
            assert!(check_schema_name(bad).is_err(), "{bad}");
        }
    }
}
