//! Access counts: every access of a batch in one write transaction (the
//! engine's batched access log sends many recalls' accesses at once).

use std::collections::HashMap;

use cairn_core::{Access, MemoryId, Result, Timestamp};
use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};

use crate::sql::{bump, sql_err};

/// Count each access of `batch` in one transaction: a memory read n times
/// gains n accesses, and its last access is the latest of them.
pub(crate) fn record(conn: &mut Connection, batch: &[Access]) -> Result<()> {
    let mut counted: HashMap<(&str, MemoryId), (i64, Timestamp)> = HashMap::new();
    for a in batch {
        for id in &a.ids {
            let e = counted.entry((&a.tenant, *id)).or_insert((0, a.at));
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
    for ((tenant, id), (n, at)) in counted {
        let rowid: Option<i64> = tx
            .prepare_cached(
                "UPDATE memories SET access_count = access_count + ?1, last_accessed_at = ?2 \
                 WHERE id = ?3 AND tenant = ?4 RETURNING rowid",
            )
            .and_then(|mut s| {
                s.query_row(params![n, at, id.to_string(), tenant], |r| r.get(0))
                    .optional()
            })
            .map_err(sql_err)?;
        let Some(rowid) = rowid else { continue };
        tx.prepare_cached(
            "UPDATE vindex SET access_count = access_count + ?3, last_accessed_at = ?2 WHERE rowid = ?1",
        )
        .and_then(|mut s| s.execute(params![rowid, at, n]))
        .map_err(sql_err)?;
        tx.prepare_cached("INSERT OR REPLACE INTO accessed (rowid, arev) VALUES (?1, ?2)")
            .and_then(|mut s| s.execute([rowid, arev]))
            .map_err(sql_err)?;
    }
    tx.commit().map_err(sql_err)
}
