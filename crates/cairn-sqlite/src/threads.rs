//! Sessions, conversations and topics in the `threads` table (see
//! [`cairn_core::threads`]): one row per record, its body as JSON.

use cairn_core::threads::{ThreadKind, ThreadRecord, ThreadStore};
use cairn_core::{Error, Result};
use rusqlite::{params, OptionalExtension, Row};

use crate::sql::sql_err;
use crate::SqliteStore;

const COLUMNS: &str = "tenant, kind, id, parent, body, created_at, updated_at";

fn record_of(row: &Row<'_>) -> rusqlite::Result<Result<ThreadRecord>> {
    let kind: String = row.get(1)?;
    let body: String = row.get(4)?;
    let record = || -> Result<ThreadRecord> {
        Ok(ThreadRecord {
            tenant: row.get(0).map_err(sql_err)?,
            kind: ThreadKind::parse(&kind)?,
            id: row.get(2).map_err(sql_err)?,
            parent: row.get(3).map_err(sql_err)?,
            body: serde_json::from_str(&body)
                .map_err(|e| Error::storage_from("a thread record's body is not JSON", e))?,
            created_at: row.get(5).map_err(sql_err)?,
            updated_at: row.get(6).map_err(sql_err)?,
        })
    };
    Ok(record())
}

impl ThreadStore for SqliteStore {
    fn put_thread(&self, r: &ThreadRecord) -> Result<()> {
        let body = serde_json::Value::Object(r.body.clone()).to_string();
        self.conn()?
            .prepare_cached(&format!(
                "INSERT OR REPLACE INTO threads ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"
            ))
            .and_then(|mut s| {
                s.execute(params![
                    r.tenant,
                    r.kind.as_str(),
                    r.id,
                    r.parent,
                    body,
                    r.created_at,
                    r.updated_at
                ])
            })
            .map_err(sql_err)?;
        Ok(())
    }

    fn thread(&self, tenant: &str, kind: ThreadKind, id: &str) -> Result<Option<ThreadRecord>> {
        self.reader()?
            .prepare_cached(&format!(
                "SELECT {COLUMNS} FROM threads WHERE tenant = ?1 AND kind = ?2 AND id = ?3"
            ))
            .and_then(|mut s| {
                s.query_row(params![tenant, kind.as_str(), id], record_of)
                    .optional()
            })
            .map_err(sql_err)?
            .transpose()
    }

    fn threads(
        &self,
        tenant: &str,
        kind: ThreadKind,
        parent: Option<&str>,
    ) -> Result<Vec<ThreadRecord>> {
        let conn = self.reader()?;
        let mut stmt = conn
            .prepare_cached(&format!(
                "SELECT {COLUMNS} FROM threads WHERE tenant = ?1 AND kind = ?2 \
                 AND (?3 IS NULL OR parent = ?3) ORDER BY created_at, id"
            ))
            .map_err(sql_err)?;
        let rows = stmt
            .query_map(params![tenant, kind.as_str(), parent], record_of)
            .map_err(sql_err)?;
        rows.map(|r| r.map_err(sql_err)?).collect()
    }

    fn delete_thread(&self, tenant: &str, kind: ThreadKind, id: &str) -> Result<bool> {
        let deleted = self
            .conn()?
            .execute(
                "DELETE FROM threads WHERE tenant = ?1 AND kind = ?2 AND id = ?3",
                params![tenant, kind.as_str(), id],
            )
            .map_err(sql_err)?;
        Ok(deleted > 0)
    }
}
