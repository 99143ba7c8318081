//! Writing rows: a memory's row, keyword-index entry, embedding and
//! vector-index row, written together, and its versions; deletes erase
//! all of them and leave tombstones and deletion receipts.

use cairn_core::history::{Change, Deletion};
use cairn_core::store::WriteBatch;
use cairn_core::{Error, Memory, MemoryId, Result};
use rusqlite::{params, CachedStatement, Connection, OptionalExtension, TransactionBehavior};
use std::collections::HashMap;

use crate::packing::StoredText;
use crate::sql::*;

/// The statements that write one memory (its row, keyword-index entry,
/// embedding and vector-index row), prepared once per write batch: an
/// import writes thousands of memories per batch, and looking each
/// statement up again per memory cost a few percent of it.
pub(crate) struct RowWriter<'c> {
    conn: &'c Connection,
    rev: i64,
    insert: CachedStatement<'c>,
    update: CachedStatement<'c>,
    fts_insert: CachedStatement<'c>,
    vector: CachedStatement<'c>,
    vindex: CachedStatement<'c>,
    access: CachedStatement<'c>,
}

impl<'c> RowWriter<'c> {
    /// Statements writing at revision `rev`.
    pub(crate) fn new(conn: &'c Connection, rev: i64) -> Result<Self> {
        let prepare = |sql: &str| conn.prepare_cached(sql).map_err(sql_err);
        Ok(RowWriter {
            conn,
            rev,
            insert: prepare(concat!(
                "INSERT INTO memories (",
                row_columns!(),
                ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22)"
            ))?,
            update: prepare(
                "UPDATE memories SET id = ?1, tenant = ?2, content = ?3, kind = ?4, project = ?5, tags = ?6, metadata = ?7, \
                 importance = ?8, weight = ?9, source = ?10, created_at = ?11, updated_at = ?12, \
                 expires_at = ?13, valid_from = ?14, valid_to = ?15, supersedes = ?16, superseded_by = ?17, \
                 session = ?18, conversation = ?19, topic = ?20, search_context = ?21, slot = ?22 WHERE rowid = ?23",
            )?,
            fts_insert: prepare(
                "INSERT INTO memories_fts (rowid, content, tags, metadata) VALUES (?1, ?2, ?3, ?4)",
            )?,
            vector: prepare("INSERT OR REPLACE INTO vectors (rowid, vector) VALUES (?1, ?2)")?,
            // The index row: attributes always; the code when a vector is
            // given, else the old code is kept.
            vindex: prepare(
                "INSERT INTO vindex (rowid, rev, id, tenant, project, kind, tags, created_at, valid_from, valid_to, expires_at, superseded, code, \
                 weight, session, conversation, topic, slot, source) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19) \
                 ON CONFLICT (rowid) DO UPDATE SET rev = excluded.rev, id = excluded.id, tenant = excluded.tenant, project = excluded.project, \
                 kind = excluded.kind, tags = excluded.tags, created_at = excluded.created_at, valid_from = excluded.valid_from, \
                 valid_to = excluded.valid_to, expires_at = excluded.expires_at, superseded = excluded.superseded, \
                 code = CASE WHEN length(excluded.code) > 0 THEN excluded.code ELSE vindex.code END, \
                 weight = excluded.weight, session = excluded.session, conversation = excluded.conversation, topic = excluded.topic, \
                 slot = excluded.slot, source = excluded.source",
            )?,
            // A new memory's accesses, when it comes with some (a restore).
            access: prepare(
                "INSERT OR REPLACE INTO accessed (rowid, arev, count, last_at) VALUES (?1, 0, ?2, ?3)",
            )?,
        })
    }

    /// Write memory `m`: a new row when `rowid` is `None`, else over row
    /// `rowid`. Its embedding is replaced when `vector` is given (an update
    /// without one keeps the old). A new row takes `m`'s access count and
    /// last access; an update keeps the row's (only recorded accesses
    /// change them). Returns the row id.
    pub(crate) fn write(
        &mut self,
        m: &Memory,
        rowid: Option<i64>,
        vector: Option<&[f32]>,
    ) -> Result<i64> {
        let id = m.id.to_string();
        let tags = tags_json(&m.tags);
        let metadata = serde_json::to_string(&m.metadata).map_err(Error::storage)?;
        let [session, conversation, topic] = thread_columns(m.thread.as_ref());
        let args = params![
            id,
            m.tenant,
            m.content,
            m.kind.as_str(),
            m.project,
            tags,
            metadata,
            m.importance,
            m.weight,
            m.source,
            m.created_at,
            m.updated_at,
            m.expires_at,
            m.valid_from,
            m.valid_to,
            m.supersedes.map(|i| i.to_string()),
            m.superseded_by.map(|i| i.to_string()),
            session,
            conversation,
            topic,
            m.search_context,
            m.slot,
        ];
        let rowid = match rowid {
            None => {
                self.insert.execute(args).map_err(|e| match e {
                    rusqlite::Error::SqliteFailure(f, _)
                        if f.code == rusqlite::ErrorCode::ConstraintViolation =>
                    {
                        Error::DuplicateId(m.id.to_string())
                    }
                    e => sql_err(e),
                })?;
                let rowid = self.conn.last_insert_rowid();
                if m.access_count > 0 || m.last_accessed_at.is_some() {
                    self.access
                        .execute(params![rowid, m.access_count as i64, m.last_accessed_at])
                        .map_err(sql_err)?;
                }
                rowid
            }
            Some(rowid) => {
                unindex_keywords(self.conn, rowid)?;
                let mut all: Vec<&dyn rusqlite::ToSql> = args.to_vec();
                all.push(&rowid);
                self.update.execute(all.as_slice()).map_err(sql_err)?;
                rowid
            }
        };
        let (fts_tags, fts_metadata) = (m.tags.join(" "), m.keyword_context());
        self.fts_insert
            .execute(params![rowid, m.content, fts_tags, fts_metadata])
            .map_err(sql_err)?;
        if let Some(v) = vector {
            self.vector
                .execute(params![rowid, vector_blob(v)])
                .map_err(sql_err)?;
        }
        self.vindex
            .execute(params![
                rowid,
                self.rev,
                id,
                m.tenant,
                m.project,
                m.kind.as_str(),
                tags,
                m.created_at,
                m.valid_from,
                m.valid_to,
                m.expires_at,
                m.superseded_by.is_some(),
                vector.map(code_blob).unwrap_or_default(),
                m.weight,
                session,
                conversation,
                topic,
                m.slot,
                m.source,
            ])
            .map_err(sql_err)?;
        Ok(rowid)
    }
}

/// Remove row `rowid`'s terms from the keyword index, given the text they
/// were indexed from. With FTS5's secure-delete on, this takes them out of
/// the index itself; a plain `DELETE` on a contentless table would only
/// hide them behind a tombstone until segments merge.
fn unindex_keywords(conn: &Connection, rowid: i64) -> Result<()> {
    let indexed: Option<(String, String, String, Option<String>)> = conn
        .prepare_cached(
            "SELECT content, tags, metadata, search_context FROM memories WHERE rowid = ?1",
        )
        .and_then(|mut s| {
            s.query_row([rowid], |r| {
                Ok((
                    r.get::<_, StoredText>(0)?.0,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                ))
            })
            .optional()
        })
        .map_err(sql_err)?;
    let Some((content, tags, metadata, context)) = indexed else {
        return Ok(());
    };
    let (tags, metadata) = fts_columns(&tags, &metadata, context.as_deref())?;
    conn.prepare_cached(
        "INSERT INTO memories_fts (memories_fts, rowid, content, tags, metadata) \
         VALUES ('delete', ?1, ?2, ?3, ?4)",
    )
    .and_then(|mut s| s.execute(params![rowid, content, tags, metadata]))
    .map_err(sql_err)?;
    Ok(())
}

/// Index every memory's terms (an empty keyword index being refilled).
pub(crate) fn index_all_keywords(conn: &Connection) -> Result<()> {
    let mut rows = conn
        .prepare("SELECT rowid, content, tags, metadata, search_context FROM memories")
        .map_err(sql_err)?;
    let mut insert = conn
        .prepare(
            "INSERT INTO memories_fts (rowid, content, tags, metadata) VALUES (?1, ?2, ?3, ?4)",
        )
        .map_err(sql_err)?;
    let mut it = rows.query([]).map_err(sql_err)?;
    while let Some(r) = it.next().map_err(sql_err)? {
        let (rowid, content): (i64, String) = (
            r.get(0).map_err(sql_err)?,
            r.get::<_, StoredText>(1).map_err(sql_err)?.0,
        );
        let (tags, metadata) = fts_columns(
            &r.get::<_, String>(2).map_err(sql_err)?,
            &r.get::<_, String>(3).map_err(sql_err)?,
            r.get::<_, Option<String>>(4).map_err(sql_err)?.as_deref(),
        )?;
        insert
            .execute(params![rowid, content, tags, metadata])
            .map_err(sql_err)?;
    }
    Ok(())
}

/// Before row `rowid` is overwritten by a change: keep the row as the
/// state of the memory's latest version (which until now was the row
/// itself).
pub(crate) fn keep_latest_version(conn: &Connection, rowid: i64) -> Result<()> {
    conn.prepare_cached(concat!(
        "UPDATE versions SET (",
        snapshot_columns!(),
        ") = (SELECT ",
        row_snapshot!(),
        " FROM memories m WHERE m.rowid = ?1) \
         WHERE memory = ?1 AND content IS NULL AND number = (SELECT MAX(number) FROM versions WHERE memory = ?1)"
    ))
    .and_then(|mut s| s.execute([rowid]))
    .map_err(sql_err)?;
    Ok(())
}

/// Record `change` as the latest version of the memory in row `rowid`,
/// whose state is the row as written (see [`keep_latest_version`]); `new`
/// when the row was inserted by this transaction (its first version).
pub(crate) fn record_version(
    conn: &Connection,
    rowid: i64,
    new: bool,
    change: &Change,
) -> Result<()> {
    let sql = match new {
        true => "INSERT INTO versions (memory, number, change, actor, reason, at) VALUES (?1, 1, ?2, ?3, ?4, ?5)",
        false => "INSERT INTO versions (memory, number, change, actor, reason, at) \
                  SELECT ?1, COALESCE(MAX(number), 0) + 1, ?2, ?3, ?4, ?5 FROM versions WHERE memory = ?1",
    };
    conn.prepare_cached(sql)
        .and_then(|mut s| {
            s.execute(params![
                rowid,
                change.kind.as_str(),
                change.actor,
                change.reason,
                change.at
            ])
        })
        .map_err(sql_err)?;
    Ok(())
}

/// Delete rows for good: the memory, its versions, embedding and index
/// entries (with `secure_delete` on, their bytes are overwritten), leaving
/// a tombstone (for other processes' indexes) and a deletion receipt.
pub(crate) fn delete_rows(
    conn: &Connection,
    rowids: &[i64],
    rev: i64,
    deletion: &Deletion,
) -> Result<()> {
    add_docs(conn, -(rowids.len() as i64))?;
    for rowid in rowids {
        conn.prepare_cached(
            "INSERT OR REPLACE INTO deletions (id, tenant, actor, reason, deleted_at, versions) \
             SELECT id, tenant, ?2, ?3, ?4, (SELECT COUNT(*) FROM versions WHERE memory = ?1) \
             FROM memories WHERE rowid = ?1",
        )
        .and_then(|mut s| s.execute(params![rowid, deletion.actor, deletion.reason, deletion.at]))
        .map_err(sql_err)?;
        unindex_keywords(conn, *rowid)?;
        for sql in [
            "DELETE FROM versions WHERE memory = ?1",
            "DELETE FROM memories WHERE rowid = ?1",
            "DELETE FROM vectors WHERE rowid = ?1",
            "DELETE FROM vindex WHERE rowid = ?1",
            "DELETE FROM accessed WHERE rowid = ?1",
        ] {
            conn.prepare_cached(sql)
                .and_then(|mut s| s.execute([rowid]))
                .map_err(sql_err)?;
        }
        conn.prepare_cached("INSERT OR REPLACE INTO tombstones (rowid, rev) VALUES (?1, ?2)")
            .and_then(|mut s| s.execute([*rowid, rev]))
            .map_err(sql_err)?;
    }
    // The index snapshot holds the deleted memories' tags: it is a cache,
    // saved again when it pays off.
    if !rowids.is_empty() {
        conn.execute("DELETE FROM vsnap", []).map_err(sql_err)?;
    }
    Ok(())
}

/// Write `batch` in one transaction, with its versions.
pub(crate) fn write_batch(conn: &mut Connection, batch: WriteBatch) -> Result<()> {
    batch.versioned()?;
    let changed: HashMap<MemoryId, &Change> = batch.changes.iter().map(|c| (c.id, c)).collect();
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(sql_err)?;
    let rev = bump(&tx, "rev")?;
    let mut writer = RowWriter::new(&tx, rev)?;
    for (m, v) in &batch.inserts {
        let rowid = writer.write(m, None, Some(v))?;
        if let Some(change) = changed.get(&m.id) {
            record_version(&tx, rowid, true, change)?;
        }
    }
    add_docs(&tx, batch.inserts.len() as i64)?;
    for (m, v) in &batch.updates {
        let rowid: i64 = tx
            .prepare_cached("SELECT rowid FROM memories WHERE id = ?1 AND tenant = ?2")
            .and_then(|mut s| {
                s.query_row(params![m.id.to_string(), m.tenant], |r| r.get(0))
                    .optional()
            })
            .map_err(sql_err)?
            .ok_or_else(|| Error::NotFound(m.id.to_string()))?;
        let change = changed.get(&m.id);
        if change.is_some() {
            keep_latest_version(&tx, rowid)?;
        }
        writer.write(m, Some(rowid), v.as_deref())?;
        if let Some(change) = change {
            record_version(&tx, rowid, false, change)?;
        }
    }
    drop(writer);
    tx.commit().map_err(sql_err)
}

/// Write records copied from another store as they were, in one
/// transaction (see [`cairn_core::store::Writing::restore`]). A version is kept in
/// full unless it is the memory's latest and its state is the memory's
/// row (then, as [`record_version`] leaves it, its state is the row).
pub(crate) fn restore_batch(conn: &mut Connection, batch: cairn_core::Restore) -> Result<()> {
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(sql_err)?;
    let model = recorded_model(&tx)?;
    for (_, v, _) in &batch.memories {
        cairn_core::memstore::check_dimension(model.as_ref(), v)?;
    }
    let rev = bump(&tx, "rev")?;
    let mut writer = RowWriter::new(&tx, rev)?;
    for (m, v, versions) in &batch.memories {
        let rowid = writer.write(m, None, Some(v))?;
        for (i, version) in versions.iter().enumerate() {
            let state = &version.memory;
            let latest = i + 1 == versions.len() && state == m;
            tx.prepare_cached(
                "INSERT INTO versions (memory, number, change, actor, reason, at) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )
            .and_then(|mut s| {
                s.execute(params![
                    rowid,
                    version.number,
                    version.kind.as_str(),
                    version.actor,
                    version.reason,
                    version.at
                ])
            })
            .map_err(sql_err)?;
            if latest {
                continue;
            }
            let metadata = serde_json::to_string(&state.metadata).map_err(Error::storage)?;
            let [session, conversation, topic] = thread_columns(state.thread.as_ref());
            tx.prepare_cached(concat!(
                "UPDATE versions SET (",
                snapshot_columns!(),
                ") = (?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, \
                 ?19, ?20, ?21, ?22, ?23, ?24) WHERE memory = ?1 AND number = ?2"
            ))
            .and_then(|mut s| {
                s.execute(params![
                    rowid,
                    version.number,
                    state.content,
                    state.kind.as_str(),
                    state.project,
                    tags_json(&state.tags),
                    metadata,
                    state.importance,
                    state.weight,
                    state.source,
                    state.created_at,
                    state.updated_at,
                    state.last_accessed_at,
                    state.access_count as i64,
                    state.expires_at,
                    state.valid_from,
                    state.valid_to,
                    state.supersedes.map(|i| i.to_string()),
                    state.superseded_by.map(|i| i.to_string()),
                    session,
                    conversation,
                    topic,
                    state.search_context,
                    state.slot,
                ])
            })
            .map_err(sql_err)?;
        }
    }
    add_docs(&tx, batch.memories.len() as i64)?;
    drop(writer);
    for r in &batch.receipts {
        tx.prepare_cached(
            "INSERT OR REPLACE INTO deletions (id, tenant, actor, reason, deleted_at, versions) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )
        .and_then(|mut s| {
            s.execute(params![
                r.id.to_string(),
                r.tenant,
                r.deletion.actor,
                r.deletion.reason,
                r.deletion.at,
                r.versions as i64
            ])
        })
        .map_err(sql_err)?;
    }
    tx.commit().map_err(sql_err)
}
