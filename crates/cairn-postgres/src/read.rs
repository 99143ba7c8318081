//! The read side of a [`crate::PostgresStore`]: memories by id, prefix
//! and filter, histories and deletion receipts, tenants and statistics.

use cairn_core::history::{Deletion, DeletionReceipt, Version};
use cairn_core::packing::Packed;
use cairn_core::store::{Filter, ListOrder, StoreStats};
use cairn_core::{Error, Memory, MemoryId, Result, Timestamp};
use pgvector::Vector;
use uuid::Uuid;

use postgres::Row;

use crate::db::{Db, Reader, Scope};
use crate::sql::{
    filter_sql, get, memory_from_row, order_sql, pg_err, prefix_range, Params, MEMORY_COLUMNS,
};

/// The rows of `sql` (parameters: the tenant, the lowest and highest id
/// with `prefix`, and `limit`); none when `prefix` is not a hexadecimal id
/// prefix.
fn by_prefix(
    db: &Db,
    tenant: &str,
    prefix: &str,
    limit: usize,
    sql: &str,
    what: &str,
) -> Result<Vec<Row>> {
    let Some((lo, hi)) = prefix_range(prefix) else {
        return Ok(Vec::new());
    };
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    db.tx(Scope::Tenant(tenant), |tx| {
        tx.query(sql, &[&tenant, &lo, &hi, &limit])
            .map_err(|e| pg_err(what, e))
    })
}

/// A version from the row's columns `number, kind, actor, reason, at,
/// memory` from column `first` on.
fn version_from_row(row: &Row, first: usize) -> Result<Version> {
    let number: i32 = get(row, first)?;
    let kind: String = get(row, first + 1)?;
    let memory: String = get(row, first + 5)?;
    Ok(Version {
        number: number.max(0) as u32,
        kind: kind.parse()?,
        actor: get(row, first + 2)?,
        reason: get(row, first + 3)?,
        at: get(row, first + 4)?,
        memory: serde_json::from_str(&memory)
            .map_err(|e| Error::storage_from("a stored version is not JSON", e))?,
    })
}

/// [`cairn_core::store::Reading::receipts`].
pub(crate) fn receipts(
    db: &Db,
    tenant: &str,
    prefix: &str,
    limit: usize,
) -> Result<Vec<DeletionReceipt>> {
    let rows = by_prefix(
        db,
        tenant,
        prefix,
        limit,
        "SELECT id, tenant, actor, reason, at, versions FROM deletions \
         WHERE tenant = $1 AND id BETWEEN $2 AND $3 ORDER BY id LIMIT $4",
        "reading deletion receipts",
    )?;
    rows.iter()
        .map(|row| {
            let versions: i32 = get(row, 5)?;
            Ok(DeletionReceipt {
                id: MemoryId(get(row, 0)?),
                tenant: get(row, 1)?,
                deletion: Deletion {
                    actor: get(row, 2)?,
                    reason: get(row, 3)?,
                    at: get(row, 4)?,
                },
                versions: versions.max(0) as usize,
            })
        })
        .collect()
}

/// [`cairn_core::store::Reading::get`].
pub(crate) fn memories(db: &Db, tenant: &str, ids: &[MemoryId]) -> Result<Vec<Memory>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let ids: Vec<Uuid> = ids.iter().map(|id| id.0).collect();
    let rows = db.read(Scope::Tenant(tenant), "", "", |tx: &mut Reader<'_>, _| {
        tx.query(
            &format!(
                "SELECT {MEMORY_COLUMNS} FROM unnest($2::uuid[]) WITH ORDINALITY AS q(id, n) \
                 JOIN memories m ON m.id = q.id WHERE m.tenant = $1 ORDER BY q.n"
            ),
            &[&tenant, &ids],
        )
        .map_err(|e| pg_err("reading memories", e))
    })?;
    rows.iter().map(memory_from_row).collect()
}

/// [`cairn_core::store::Reading::embeddings`].
pub(crate) fn embeddings(db: &Db, tenant: &str, ids: &[MemoryId]) -> Result<Vec<Option<Vec<f32>>>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let ids: Vec<Uuid> = ids.iter().map(|id| id.0).collect();
    let rows = db.read(Scope::Tenant(tenant), "", "", |tx: &mut Reader<'_>, _| {
        tx.query(
            "SELECT m.embedding FROM unnest($2::uuid[]) WITH ORDINALITY AS q(id, n) \
             LEFT JOIN memories m ON m.id = q.id AND m.tenant = $1 ORDER BY q.n",
            &[&tenant, &ids],
        )
        .map_err(|e| pg_err("reading embeddings", e))
    })?;
    rows.iter()
        .map(|row| Ok(get::<Option<Vector>>(row, 0)?.map(Vec::from)))
        .collect()
}

/// PostgreSQL compresses every long text value itself (TOAST: `pglz`,
/// or `lz4` where the server is set so), from about 2 KB: compressing
/// again would only cost time. This answers what it did, read from
/// `pg_column_compression` and `pg_column_size`, and changes nothing.
pub(crate) fn pack_contents(
    db: &Db,
    tenant: &str,
    ids: &[MemoryId],
    _pack: bool,
) -> Result<Vec<Packed>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let uuids: Vec<Uuid> = ids.iter().map(|id| id.0).collect();
    let rows = db.tx(Scope::Tenant(tenant), |tx| {
        tx.query(
            "SELECT id, octet_length(content)::int8, pg_column_size(content)::int8, \
             pg_column_compression(content) FROM memories \
             WHERE tenant = $1 AND id = ANY($2) AND pg_column_compression(content) IS NOT NULL",
            &[&tenant, &uuids],
        )
        .map_err(|e| pg_err("reading how contents are compressed", e))
    })?;
    rows.iter()
        .map(|row| {
            let algorithm = match get::<String>(row, 3)?.as_str() {
                "lz4" => "lz4",
                _ => "pglz",
            };
            Ok(Packed {
                id: MemoryId(get(row, 0)?),
                original_bytes: get::<i64>(row, 1)? as usize,
                stored_bytes: get::<i64>(row, 2)? as usize,
                algorithm,
            })
        })
        .collect()
}

/// [`cairn_core::store::Reading::find_by_prefix`].
pub(crate) fn find_by_prefix(
    db: &Db,
    tenant: &str,
    prefix: &str,
    limit: usize,
) -> Result<Vec<MemoryId>> {
    let rows = by_prefix(
        db,
        tenant,
        prefix,
        limit,
        "SELECT id FROM memories WHERE tenant = $1 AND id BETWEEN $2 AND $3 \
         ORDER BY id LIMIT $4",
        "finding ids by prefix",
    )?;
    rows.iter().map(|row| Ok(MemoryId(get(row, 0)?))).collect()
}

/// [`cairn_core::store::Reading::id_neighbours`].
pub(crate) fn id_neighbours(
    db: &Db,
    tenant: &str,
    ids: &[MemoryId],
) -> Result<Vec<(Option<MemoryId>, Option<MemoryId>)>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let ids: Vec<Uuid> = ids.iter().map(|id| id.0).collect();
    let rows = db.tx(Scope::Tenant(tenant), |tx| {
        tx.query(
            "SELECT (SELECT m.id FROM memories m WHERE m.tenant = $1 AND m.id < q.id \
                     ORDER BY m.id DESC LIMIT 1), \
                    (SELECT m.id FROM memories m WHERE m.tenant = $1 AND m.id > q.id \
                     ORDER BY m.id LIMIT 1) \
             FROM unnest($2::uuid[]) WITH ORDINALITY AS q(id, n) ORDER BY q.n",
            &[&tenant, &ids],
        )
        .map_err(|e| pg_err("reading id neighbours", e))
    })?;
    rows.iter()
        .map(|row| {
            let before: Option<Uuid> = get(row, 0)?;
            let after: Option<Uuid> = get(row, 1)?;
            Ok((before.map(MemoryId), after.map(MemoryId)))
        })
        .collect()
}

/// [`cairn_core::store::Reading::list`].
pub(crate) fn list(
    db: &Db,
    filter: &Filter,
    order: ListOrder,
    limit: usize,
    offset: usize,
) -> Result<Vec<Memory>> {
    let mut params = Params::default();
    let condition = filter_sql(filter, &mut params);
    let limit = params.push(i64::try_from(limit).unwrap_or(i64::MAX));
    let offset = params.push(i64::try_from(offset).unwrap_or(i64::MAX));
    let sql = format!(
        "SELECT {MEMORY_COLUMNS} FROM memories m WHERE {condition} \
         ORDER BY {} LIMIT {limit} OFFSET {offset}",
        order_sql(order)
    );
    let rows = db.tx(Scope::Tenant(&filter.tenant), |tx| {
        tx.query(&sql, &params.refs())
            .map_err(|e| pg_err("listing memories", e))
    })?;
    rows.iter().map(memory_from_row).collect()
}

/// [`cairn_core::store::Reading::count`].
pub(crate) fn count(db: &Db, filter: &Filter) -> Result<usize> {
    let mut params = Params::default();
    let condition = filter_sql(filter, &mut params);
    let sql = format!("SELECT count(*) FROM memories m WHERE {condition}");
    let n: i64 = db.tx(Scope::Tenant(&filter.tenant), |tx| {
        let row = tx
            .query_one(&sql, &params.refs())
            .map_err(|e| pg_err("counting memories", e))?;
        get(&row, 0)
    })?;
    Ok(n.max(0) as usize)
}

/// [`cairn_core::store::Reading::tenants`] with [`cairn_core::TenantsWith::Memories`].
pub(crate) fn tenants(db: &Db) -> Result<Vec<String>> {
    let rows = db.tx(Scope::Every, |tx| {
        tx.query(
            "SELECT tenant FROM memories GROUP BY tenant ORDER BY tenant COLLATE \"C\"",
            &[],
        )
        .map_err(|e| pg_err("listing tenants", e))
    })?;
    rows.iter().map(|row| get(row, 0)).collect()
}

/// [`cairn_core::store::Reading::stats`].
pub(crate) fn stats(db: &Db, tenant: &str, now: Timestamp) -> Result<StoreStats> {
    db.tx(Scope::Tenant(tenant), |tx| {
        let totals = tx
            .query_one(
                "SELECT count(*), \
                        count(*) FILTER (WHERE expires_at IS NOT NULL AND expires_at <= $2), \
                        count(*) FILTER (WHERE superseded_by IS NOT NULL), \
                        min(created_at), max(created_at), \
                        (SELECT sum(pg_total_relation_size(c.oid))::bigint FROM pg_class c \
                         WHERE c.relnamespace = current_schema()::regnamespace \
                         AND c.relkind = 'r') \
                 FROM memories WHERE tenant = $1",
                &[&tenant, &now],
            )
            .map_err(|e| pg_err("counting memories", e))?;
        let count = |i: usize| -> Result<usize> { Ok(get::<i64>(&totals, i)?.max(0) as usize) };
        let by_type = tx
            .query(
                "SELECT kind, count(*) FROM memories WHERE tenant = $1 \
                 GROUP BY kind ORDER BY kind COLLATE \"C\"",
                &[&tenant],
            )
            .map_err(|e| pg_err("counting memories by type", e))?;
        let by_project = tx
            .query(
                "SELECT project, count(*) FROM memories WHERE tenant = $1 \
                 GROUP BY project ORDER BY project COLLATE \"C\" NULLS FIRST",
                &[&tenant],
            )
            .map_err(|e| pg_err("counting memories by project", e))?;
        let size: Option<i64> = get(&totals, 5)?;
        Ok(StoreStats {
            total: count(0)?,
            expired: count(1)?,
            superseded: count(2)?,
            by_type: by_type
                .iter()
                .map(|r| Ok((get(r, 0)?, get::<i64>(r, 1)?.max(0) as usize)))
                .collect::<Result<_>>()?,
            by_project: by_project
                .iter()
                .map(|r| Ok((get(r, 0)?, get::<i64>(r, 1)?.max(0) as usize)))
                .collect::<Result<_>>()?,
            oldest: get(&totals, 3)?,
            newest: get(&totals, 4)?,
            size_bytes: size.map(|s| s.max(0) as u64),
        })
    })
}

/// [`cairn_core::store::Reading::histories`].
pub(crate) fn histories(db: &Db, tenant: &str, ids: &[MemoryId]) -> Result<Vec<Vec<Version>>> {
    let wanted: Vec<Uuid> = ids.iter().map(|id| id.0).collect();
    let rows = db.tx(Scope::Tenant(tenant), |tx| {
        tx.query(
            "SELECT memory_id, number, kind, actor, reason, at, memory FROM versions \
             WHERE tenant = $1 AND memory_id = ANY($2) ORDER BY memory_id, number",
            &[&tenant, &wanted],
        )
        .map_err(|e| pg_err("reading histories", e))
    })?;
    let mut by_id: std::collections::HashMap<Uuid, Vec<Version>> = Default::default();
    for row in &rows {
        by_id
            .entry(get(row, 0)?)
            .or_default()
            .push(version_from_row(row, 1)?);
    }
    Ok(wanted
        .iter()
        .map(|id| by_id.get(id).cloned().unwrap_or_default())
        .collect())
}

/// [`cairn_core::store::Reading::tenants`] with [`cairn_core::TenantsWith::Anything`].
pub(crate) fn every_tenant(db: &Db) -> Result<Vec<String>> {
    let rows = db.tx(Scope::Every, |tx| {
        tx.query(
            "SELECT tenant FROM (SELECT tenant FROM memories UNION SELECT tenant \
             FROM deletions UNION SELECT tenant FROM collections) t \
             ORDER BY tenant COLLATE \"C\"",
            &[],
        )
        .map_err(|e| pg_err("listing tenants", e))
    })?;
    rows.iter().map(|row| get(row, 0)).collect()
}
