//! API keys in the `api_keys` table (see [`cairn_core::keys`]).

use cairn_core::keys::{ApiKey, KeyStore, Role};
use cairn_core::{Error, Result, Timestamp};
use rusqlite::{params, OptionalExtension, Row};

use crate::sql::sql_err;
use crate::SqliteStore;

const COLUMNS: &str =
    "id, tenant, role, label, hash, created_at, expires_at, last_used_at, revoked_at";

fn key_of(row: &Row<'_>) -> rusqlite::Result<Result<ApiKey>> {
    let role: String = row.get(2)?;
    let hash: Vec<u8> = row.get(4)?;
    let key = ApiKey {
        id: row.get(0)?,
        tenant: row.get(1)?,
        role: Role::Read,
        label: row.get(3)?,
        hash: [0; 32],
        created_at: row.get(5)?,
        expires_at: row.get(6)?,
        last_used_at: row.get(7)?,
        revoked_at: row.get(8)?,
    };
    let corrupt = |what: String| Error::storage(format!("API key {}: {what}", key.id));
    let role = match role.parse::<Role>() {
        Ok(r) => r,
        Err(e) => return Ok(Err(corrupt(e.to_string()))),
    };
    let Ok(hash) = <[u8; 32]>::try_from(hash) else {
        return Ok(Err(corrupt("its hash is not 32 bytes".into())));
    };
    Ok(Ok(ApiKey { role, hash, ..key }))
}

impl KeyStore for SqliteStore {
    fn insert_key(&self, key: &ApiKey) -> Result<()> {
        let conn = self.conn()?;
        let inserted = conn
            .execute(
                &format!("INSERT OR IGNORE INTO api_keys ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"),
                params![
                    key.id,
                    key.tenant,
                    key.role.as_str(),
                    key.label,
                    &key.hash[..],
                    key.created_at,
                    key.expires_at,
                    key.last_used_at,
                    key.revoked_at
                ],
            )
            .map_err(sql_err)?;
        if inserted == 0 {
            return Err(Error::DuplicateId(key.id.clone()));
        }
        Ok(())
    }

    fn key(&self, id: &str) -> Result<Option<ApiKey>> {
        let conn = self.reader()?;
        conn.query_row(
            &format!("SELECT {COLUMNS} FROM api_keys WHERE id = ?1"),
            [id],
            key_of,
        )
        .optional()
        .map_err(sql_err)?
        .transpose()
    }

    fn keys(&self, tenant: Option<&str>) -> Result<Vec<ApiKey>> {
        let conn = self.reader()?;
        let mut stmt = conn
            .prepare(&format!(
                "SELECT {COLUMNS} FROM api_keys WHERE ?1 IS NULL OR tenant = ?1 ORDER BY created_at, id"
            ))
            .map_err(sql_err)?;
        let rows = stmt.query_map([tenant], key_of).map_err(sql_err)?;
        rows.map(|r| r.map_err(sql_err)?).collect()
    }

    fn revoke_key(&self, id: &str, at: Timestamp) -> Result<bool> {
        let conn = self.conn()?;
        let changed = conn
            .execute(
                "UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?2) WHERE id = ?1",
                params![id, at],
            )
            .map_err(sql_err)?;
        Ok(changed > 0)
    }

    fn touch_key(&self, id: &str, at: Timestamp) -> Result<()> {
        let conn = self.conn()?;
        conn.execute(
            "UPDATE api_keys SET last_used_at = ?2 WHERE id = ?1",
            params![id, at],
        )
        .map_err(sql_err)?;
        Ok(())
    }
}
