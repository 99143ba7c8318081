//! The API keys of a [`crate::PostgresStore`]: [`KeyStore`] on the
//! `api_keys` table (ids are unique across tenants; only hashes are kept).

use cairn_core::keys::{ApiKey, KeyStore, Role};
use cairn_core::{Error, Result, Timestamp};

use crate::db::{Db, Scope};
use crate::sql::{get, is_unique_violation, pg_err};

/// The API keys of a [`crate::PostgresStore`].
pub(crate) struct PgKeys {
    pub(crate) db: Db,
}

/// The columns [`key_from_row`] reads.
const KEY_COLUMNS: &str =
    "id, tenant, role, label, hash, created_at, expires_at, last_used_at, revoked_at";

fn key_from_row(row: &postgres::Row) -> Result<ApiKey> {
    let role: String = get(row, 2)?;
    let hash: Vec<u8> = get(row, 4)?;
    Ok(ApiKey {
        id: get(row, 0)?,
        tenant: get(row, 1)?,
        role: role.parse::<Role>()?,
        label: get(row, 3)?,
        hash: hash
            .try_into()
            .map_err(|_| Error::storage("a stored key hash is not 32 bytes"))?,
        created_at: get(row, 5)?,
        expires_at: get(row, 6)?,
        last_used_at: get(row, 7)?,
        revoked_at: get(row, 8)?,
    })
}

impl KeyStore for PgKeys {
    fn insert_key(&self, key: &ApiKey) -> Result<()> {
        self.db.tx(Scope::Unscoped, |tx| {
            tx.execute(
                &format!("INSERT INTO api_keys ({KEY_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"),
                &[
                    &key.id,
                    &key.tenant,
                    &key.role.as_str(),
                    &key.label,
                    &key.hash.as_slice(),
                    &key.created_at,
                    &key.expires_at,
                    &key.last_used_at,
                    &key.revoked_at,
                ],
            )
            .map_err(|e| {
                if is_unique_violation(&e) {
                    Error::DuplicateId(key.id.clone())
                } else {
                    pg_err("storing an API key", e)
                }
            })?;
            Ok(())
        })
    }

    fn key(&self, id: &str) -> Result<Option<ApiKey>> {
        let row = self.db.tx(Scope::Unscoped, |tx| {
            tx.query_opt(
                &format!("SELECT {KEY_COLUMNS} FROM api_keys WHERE id = $1"),
                &[&id],
            )
            .map_err(|e| pg_err("reading an API key", e))
        })?;
        row.as_ref().map(key_from_row).transpose()
    }

    fn keys(&self, tenant: Option<&str>) -> Result<Vec<ApiKey>> {
        let rows = self.db.tx(Scope::Unscoped, |tx| {
            tx.query(
                &format!(
                    "SELECT {KEY_COLUMNS} FROM api_keys WHERE $1::text IS NULL OR tenant = $1 \
                     ORDER BY created_at, id COLLATE \"C\""
                ),
                &[&tenant],
            )
            .map_err(|e| pg_err("listing API keys", e))
        })?;
        rows.iter().map(key_from_row).collect()
    }

    fn revoke_key(&self, id: &str, at: Timestamp) -> Result<bool> {
        let n = self.db.tx(Scope::Unscoped, |tx| {
            tx.execute(
                "UPDATE api_keys SET revoked_at = coalesce(revoked_at, $2) WHERE id = $1",
                &[&id, &at],
            )
            .map_err(|e| pg_err("revoking an API key", e))
        })?;
        Ok(n > 0)
    }

    fn touch_key(&self, id: &str, at: Timestamp) -> Result<()> {
        self.db.tx(Scope::Unscoped, |tx| {
            tx.execute(
                "UPDATE api_keys SET last_used_at = $2 WHERE id = $1",
                &[&id, &at],
            )
            .map_err(|e| pg_err("recording an API key's use", e))?;
            Ok(())
        })
    }
}
