//! Text kept compressed at rest ([`cairn_core::packing`]): a packed
//! memory's `content` column holds a zstd blob instead of text (SQLite
//! keeps the type of each value), so a row tells by itself which it is.
//! The keyword index is contentless and keeps its terms; the vector index
//! holds no text: neither changes, and nothing is versioned.

use cairn_core::packing::Packed;

use crate::compress as packing;
use cairn_core::{MemoryId, Result};
use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ValueRef};
use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};

use crate::sql::sql_err;

/// A `content` value: text, or a packed blob read back as its text.
pub(crate) struct StoredText(pub(crate) String);

impl FromSql for StoredText {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        match value {
            ValueRef::Text(t) => std::str::from_utf8(t)
                .map(|s| StoredText(s.to_string()))
                .map_err(|e| FromSqlError::Other(Box::new(e))),
            ValueRef::Blob(b) => packing::unpack(b)
                .map(StoredText)
                .map_err(|e| FromSqlError::Other(Box::new(e))),
            _ => Err(FromSqlError::InvalidType),
        }
    }
}

/// Pack (or unpack) the text of `tenant`'s memories `ids`, in one
/// transaction.
pub(crate) fn pack_contents(
    conn: &mut Connection,
    tenant: &str,
    ids: &[MemoryId],
    pack: bool,
) -> Result<Vec<Packed>> {
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(sql_err)?;
    let mut out = Vec::new();
    for id in ids {
        let stored: Option<(i64, rusqlite::types::Value)> = tx
            .prepare_cached("SELECT rowid, content FROM memories WHERE id = ?1 AND tenant = ?2")
            .and_then(|mut s| {
                s.query_row(params![id.to_string(), tenant], |r| {
                    Ok((r.get(0)?, r.get(1)?))
                })
                .optional()
            })
            .map_err(sql_err)?;
        use rusqlite::types::Value;
        let (rowid, new, packed) = match (stored, pack) {
            (Some((rowid, Value::Text(text))), true) => match packing::pack(&text) {
                Some(blob) => {
                    let p = Packed {
                        id: *id,
                        original_bytes: text.len(),
                        stored_bytes: blob.len(),
                        algorithm: packing::ALGORITHM,
                    };
                    (rowid, Value::Blob(blob), p)
                }
                None => continue,
            },
            (Some((rowid, Value::Blob(blob))), false) => {
                let text = packing::unpack(&blob)?;
                let p = Packed {
                    id: *id,
                    original_bytes: text.len(),
                    stored_bytes: blob.len(),
                    algorithm: packing::ALGORITHM,
                };
                (rowid, Value::Text(text), p)
            }
            _ => continue,
        };
        tx.prepare_cached("UPDATE memories SET content = ?2 WHERE rowid = ?1")
            .and_then(|mut s| s.execute(params![rowid, new]))
            .map_err(sql_err)?;
        out.push(packed);
    }
    tx.commit().map_err(sql_err)?;
    Ok(out)
}
