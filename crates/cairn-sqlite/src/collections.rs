//! Sessions, conversations and topics in the `collections` table (see
//! [`cairn_core::collections`]): one row per record, its body as JSON.

use cairn_core::collections::{CollectionKind, CollectionRecord, CollectionStore};
use cairn_core::{Error, Result};
use rusqlite::{params, OptionalExtension, Row};

use crate::sql::sql_err;
use crate::SqliteStore;

const COLUMNS: &str = "tenant, kind, id, parent, body, created_at, updated_at";

/// A tenant's records of one kind with `condition` on them, in no order.
/// Neither an `ORDER BY` nor a test of a parameter for NULL is in the
/// statement: SQLite prepares such a statement over this table again
/// before every run (`tests::listing_is_prepared_once`), and every
/// recall lists the tenant's slots.
fn list_sql(condition: &str) -> String {
    format!("SELECT {COLUMNS} FROM collections WHERE tenant = ?1 AND kind = ?2{condition}")
}

fn record_of(row: &Row<'_>) -> rusqlite::Result<Result<CollectionRecord>> {
    let kind: String = row.get(1)?;
    let body: String = row.get(4)?;
    let record = || -> Result<CollectionRecord> {
        Ok(CollectionRecord {
            tenant: row.get(0).map_err(sql_err)?,
            kind: CollectionKind::parse(&kind)?,
            id: row.get(2).map_err(sql_err)?,
            parent: row.get(3).map_err(sql_err)?,
            body: serde_json::from_str(&body)
                .map_err(|e| Error::storage_from("a collection record's body is not JSON", e))?,
            created_at: row.get(5).map_err(sql_err)?,
            updated_at: row.get(6).map_err(sql_err)?,
        })
    };
    Ok(record())
}

impl CollectionStore for SqliteStore {
    fn put_collection(&self, r: &CollectionRecord) -> Result<()> {
        let body = serde_json::Value::Object(r.body.clone()).to_string();
        self.conn()?
            .prepare_cached(&format!(
                "INSERT OR REPLACE INTO collections ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"
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

    fn collection(
        &self,
        tenant: &str,
        kind: CollectionKind,
        id: &str,
    ) -> Result<Option<CollectionRecord>> {
        self.reader()?
            .prepare_cached(&format!(
                "SELECT {COLUMNS} FROM collections WHERE tenant = ?1 AND kind = ?2 AND id = ?3"
            ))
            .and_then(|mut s| {
                s.query_row(params![tenant, kind.as_str(), id], record_of)
                    .optional()
            })
            .map_err(sql_err)?
            .transpose()
    }

    fn list_collections(
        &self,
        tenant: &str,
        kind: CollectionKind,
        parent: Option<&str>,
    ) -> Result<Vec<CollectionRecord>> {
        let conn = self.reader()?;
        let kind = kind.as_str();
        let rows: rusqlite::Result<Vec<Result<CollectionRecord>>> = match parent {
            None => conn
                .prepare_cached(&list_sql(""))
                .and_then(|mut s| s.query_map(params![tenant, kind], record_of)?.collect()),
            Some(parent) => conn
                .prepare_cached(&list_sql(" AND parent = ?3"))
                .and_then(|mut s| {
                    s.query_map(params![tenant, kind, parent], record_of)?
                        .collect()
                }),
        };
        let mut records = rows
            .map_err(sql_err)?
            .into_iter()
            .collect::<Result<Vec<_>>>()?;
        records.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        Ok(records)
    }

    fn delete_collection(&self, tenant: &str, kind: CollectionKind, id: &str) -> Result<bool> {
        let conn = self.conn()?;
        let deleted = conn
            .execute(
                "DELETE FROM collections WHERE tenant = ?1 AND kind = ?2 AND id = ?3",
                params![tenant, kind.as_str(), id],
            )
            .map_err(sql_err)?;
        if deleted > 0 {
            crate::checkpoint::truncate_wal(&conn);
        }
        Ok(deleted > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rusqlite::{Connection, StatementStatus};

    #[test]
    fn listing_is_prepared_once() {
        let conn = Connection::open_in_memory().unwrap();
        for sql in crate::schema::MIGRATIONS {
            conn.execute_batch(sql).unwrap();
        }
        for _ in 0..3 {
            let mut all = conn.prepare_cached(&list_sql("")).unwrap();
            all.query(params!["t", "slot"]).unwrap().next().unwrap();
            assert_eq!(all.get_status(StatementStatus::RePrepare), 0);
            drop(all);
            let mut under = conn.prepare_cached(&list_sql(" AND parent = ?3")).unwrap();
            under
                .query(params!["t", "topic", "p"])
                .unwrap()
                .next()
                .unwrap();
            assert_eq!(under.get_status(StatementStatus::RePrepare), 0);
        }
    }
}
