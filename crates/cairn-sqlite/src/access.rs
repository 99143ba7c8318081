//! Access counts: every access of a batch in one write transaction (the
//! engine's batched access log sends many recalls' accesses at once),
//! each accessed memory's count and last access in its narrow `accessed`
//! row, marked with the batch's access revision so that other processes'
//! indexes catch up with it.
//!
//! The batch is written in id order: ids are time-ordered (UUIDv7), so
//! the id index and the `accessed` rows are visited in page order, and a
//! page many accesses share is read and rewritten once.

use std::collections::BTreeMap;

use cairn_core::{Access, MemoryId, Result, Timestamp};
use rusqlite::{params, Connection, TransactionBehavior};

use crate::sql::{bump, sql_err};

/// Adds `?2` accesses, the latest at `?3`, to the memory `?4` of tenant
/// `?5`, marked with access revision `?1`; its row is found in
/// `memories_id_tenant` alone.
pub(crate) const RECORD_SQL: &str = "INSERT INTO accessed (rowid, arev, count, last_at) \
     SELECT rowid, ?1, ?2, ?3 FROM memories WHERE id = ?4 AND tenant = ?5 \
     ON CONFLICT (rowid) DO UPDATE SET arev = excluded.arev, \
     count = count + excluded.count, last_at = excluded.last_at";

/// Count each access of `batch` in one transaction: a memory read n times
/// gains n accesses, and its last access is the latest of them.
pub(crate) fn record(conn: &mut Connection, batch: &[Access]) -> Result<()> {
    let mut counted: BTreeMap<(MemoryId, &str), (i64, Timestamp)> = BTreeMap::new();
    for a in batch {
        for id in &a.ids {
            let e = counted.entry((*id, &a.tenant)).or_insert((0, a.at));
            e.0 += 1;
            e.1 = e.1.max(a.at);
        }
    }
    if counted.is_empty() {
        return Ok(());
    }
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(sql_err)?;
    let arev = bump(&tx, "arev")?;
    let mut count = tx.prepare_cached(RECORD_SQL).map_err(sql_err)?;
    for ((id, tenant), (n, at)) in counted {
        count
            .execute(params![arev, n, at, id.to_string(), tenant])
            .map_err(sql_err)?;
    }
    drop(count);
    tx.commit().map_err(sql_err)
}
