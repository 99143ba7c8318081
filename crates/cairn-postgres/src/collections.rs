//! Sessions, conversations and topics of a [`crate::PostgresStore`]:
//! [`CollectionStore`] on the `collections` table (row-level security per tenant,
//! like the memories).

use cairn_core::collections::{CollectionKind, CollectionRecord, CollectionStore};
use cairn_core::{Error, Result};

use crate::db::{Db, Scope};
use crate::sql::{get, pg_err};

/// The collection records of a [`crate::PostgresStore`].
pub(crate) struct PgCollections {
    pub(crate) db: Db,
}

/// The columns [`record_from_row`] reads.
const COLUMNS: &str = "tenant, kind, id, parent, body, created_at, updated_at";

fn record_from_row(row: &postgres::Row) -> Result<CollectionRecord> {
    let kind: String = get(row, 1)?;
    let body: String = get(row, 4)?;
    Ok(CollectionRecord {
        tenant: get(row, 0)?,
        kind: CollectionKind::parse(&kind)?,
        id: get(row, 2)?,
        parent: get(row, 3)?,
        body: serde_json::from_str(&body)
            .map_err(|e| Error::storage_from("a collection record's body is not JSON", e))?,
        created_at: get(row, 5)?,
        updated_at: get(row, 6)?,
    })
}

impl CollectionStore for PgCollections {
    fn put_collection(&self, r: &CollectionRecord) -> Result<()> {
        let body = serde_json::Value::Object(r.body.clone()).to_string();
        self.db.tx(Scope::Tenant(&r.tenant), |tx| {
            tx.execute(
                &format!(
                    "INSERT INTO collections ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7) \
                     ON CONFLICT (tenant, kind, id) DO UPDATE SET parent = excluded.parent, \
                     body = excluded.body, created_at = excluded.created_at, \
                     updated_at = excluded.updated_at"
                ),
                &[
                    &r.tenant,
                    &r.kind.as_str(),
                    &r.id,
                    &r.parent,
                    &body,
                    &r.created_at,
                    &r.updated_at,
                ],
            )
            .map_err(|e| pg_err(format!("storing {} `{}`", r.kind, r.id), e))?;
            Ok(())
        })
    }

    fn collection(
        &self,
        tenant: &str,
        kind: CollectionKind,
        id: &str,
    ) -> Result<Option<CollectionRecord>> {
        let row = self.db.tx(Scope::Tenant(tenant), |tx| {
            tx.query_opt(
                &format!(
                    "SELECT {COLUMNS} FROM collections WHERE tenant = $1 AND kind = $2 AND id = $3"
                ),
                &[&tenant, &kind.as_str(), &id],
            )
            .map_err(|e| pg_err(format!("reading {kind} `{id}`"), e))
        })?;
        row.as_ref().map(record_from_row).transpose()
    }

    fn list_collections(
        &self,
        tenant: &str,
        kind: CollectionKind,
        parent: Option<&str>,
    ) -> Result<Vec<CollectionRecord>> {
        let rows = self.db.tx(Scope::Tenant(tenant), |tx| {
            tx.query(
                &format!(
                    "SELECT {COLUMNS} FROM collections WHERE tenant = $1 AND kind = $2 \
                     AND ($3::text IS NULL OR parent = $3) ORDER BY created_at, id COLLATE \"C\""
                ),
                &[&tenant, &kind.as_str(), &parent],
            )
            .map_err(|e| pg_err(format!("listing {kind}s"), e))
        })?;
        rows.iter().map(record_from_row).collect()
    }

    fn delete_collection(&self, tenant: &str, kind: CollectionKind, id: &str) -> Result<bool> {
        let n = self.db.tx(Scope::Tenant(tenant), |tx| {
            tx.execute(
                "DELETE FROM collections WHERE tenant = $1 AND kind = $2 AND id = $3",
                &[&tenant, &kind.as_str(), &id],
            )
            .map_err(|e| pg_err(format!("deleting {kind} `{id}`"), e))
        })?;
        Ok(n > 0)
    }
}
