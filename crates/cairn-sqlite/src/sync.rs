//! Keeping this process's in-memory indexes in step with the file: the
//! store's content and access revisions, catching the vector index up from
//! rows written since (or loading it from its snapshot), and building the
//! keyword index from FTS5's own postings.

use cairn_core::{Error, Result};
use rusqlite::Connection;

use crate::keyword_index::{fts_token, KeywordIndex};
use crate::sql::*;
use crate::store::{EXPECTED_DIM, KEYWORD_TEMP_TABLES, SNAPSHOT_MIN_ENTRIES};
use crate::vector_index::{snapshot_revs, EntryAttributes, VectorIndex};

/// Whether saving a snapshot of a vector index of `entries` entries pays
/// off, when this process decoded `decoded` of its rows (a first load
/// without a usable snapshot, or catching up with others' writes): on
/// stores of at least [`SNAPSHOT_MIN_ENTRIES`], once an eighth of the
/// index was decoded. Saving costs about what decoding the rows again
/// would, so a store is saved once per eighth of it rewritten, and a new
/// process decodes at most that eighth.
pub(crate) fn snapshot_pays_off(entries: usize, decoded: usize) -> bool {
    entries >= SNAPSHOT_MIN_ENTRIES && decoded >= entries / 8
}

/// What [`catch_up_content`] did.
pub(crate) struct Load {
    /// The index was first loaded from a snapshot.
    pub(crate) from_snapshot: bool,
    /// `vindex` rows decoded.
    pub(crate) decoded: usize,
}

/// Load the vector index (first use: from the snapshot if there is a
/// usable one, else every row with its current access counters) or apply
/// the rows written and deleted since its revision.
pub(crate) fn catch_up_content(
    conn: &Connection,
    index: &mut VectorIndex,
    revs: Revs,
) -> Result<Load> {
    let mut load = Load {
        from_snapshot: false,
        decoded: 0,
    };
    if !index.loaded {
        if let Some(snapshot) = load_snapshot(conn, revs)? {
            *index = snapshot;
            load.from_snapshot = true;
        }
    }
    let since = if index.loaded { index.rev } else { i64::MIN };
    if index.loaded {
        let mut stmt = conn
            .prepare_cached("SELECT rowid FROM tombstones WHERE rev > ?1")
            .map_err(sql_err)?;
        let gone: Vec<i64> = stmt
            .query_map([since], |r| r.get(0))
            .and_then(|rows| rows.collect())
            .map_err(sql_err)?;
        for rowid in gone {
            index.remove(rowid);
        }
    }
    // A first load reads the whole table in rowid order (`+rev` keeps the
    // planner off the rev index); catching up uses the rev index.
    macro_rules! vindex_rows {
        ($rev:literal) => {
            concat!(
                "SELECT v.rowid, v.id, v.tenant, v.project, v.kind, v.tags, v.created_at, v.valid_from, \
                 v.valid_to, v.expires_at, v.superseded, v.code, ",
                access_count_of!("v"),
                ", ",
                last_access_of!("v"),
                ", v.weight, v.session, v.conversation, v.topic, v.slot, v.source FROM vindex v WHERE ",
                $rev,
                " > ?1"
            )
        };
    }
    let sql = if index.loaded {
        vindex_rows!("v.rev")
    } else {
        vindex_rows!("+v.rev")
    };
    if !index.loaded {
        let docs = meta_int(conn, "docs")?;
        index.reserve(usize::try_from(docs).unwrap_or(0), EXPECTED_DIM);
    }
    let mut stmt = conn.prepare_cached(sql).map_err(sql_err)?;
    let mut rows = stmt.query([since]).map_err(sql_err)?;
    while let Some(row) = rows.next().map_err(sql_err)? {
        let rowid: i64 = row.get(0).map_err(sql_err)?;
        let (id, tenant, project, kind, tags) = (
            text(row, 1)?.unwrap_or_default(),
            text(row, 2)?.unwrap_or_default(),
            text(row, 3)?,
            text(row, 4)?.unwrap_or_default(),
            text(row, 5)?.unwrap_or("[]"),
        );
        let access_count: i64 = row.get(12).map_err(sql_err)?;
        let thread = thread_of([
            row.get(15).map_err(sql_err)?,
            row.get(16).map_err(sql_err)?,
            row.get(17).map_err(sql_err)?,
        ])
        .map(|t| index.intern_thread(t));
        let slot = text(row, 18)?.map(|s| index.intern(s));
        let source = index.intern(text(row, 19)?.unwrap_or_default());
        let attrs = EntryAttributes {
            id: id.parse()?,
            tenant: index.intern(tenant),
            project: project.map(|p| index.intern(p)),
            kind: kind.parse()?,
            tags: if tags == "[]" {
                Vec::new()
            } else {
                serde_json::from_str(tags).map_err(Error::storage)?
            },
            created_at: row.get(6).map_err(sql_err)?,
            valid_from: row.get(7).map_err(sql_err)?,
            valid_to: row.get(8).map_err(sql_err)?,
            expires_at: row.get(9).map_err(sql_err)?,
            superseded: row.get(10).map_err(sql_err)?,
            access_count: access_count.max(0) as u64,
            last_accessed_at: row.get(13).map_err(sql_err)?,
            weight: row.get(14).map_err(sql_err)?,
            thread,
            slot,
            source,
        };
        let code = row
            .get_ref(11)
            .map_err(sql_err)?
            .as_blob()
            .map_err(Error::storage)?;
        index.upsert(rowid, attrs, code);
        load.decoded += 1;
    }
    Ok(load)
}

/// The vector index saved by [`SqliteStore::save_index_snapshot`], if there
/// is one that decodes and is not ahead of the store's revisions `revs`
/// (a file restored from an older copy). Its parts are read in one read
/// transaction, so that they come from the same snapshot.
pub(crate) fn load_snapshot(conn: &Connection, revs: Revs) -> Result<Option<VectorIndex>> {
    let tx = conn
        .is_autocommit()
        .then(|| conn.unchecked_transaction())
        .transpose()
        .map_err(sql_err)?;
    let parts: Vec<(i64, usize)> = conn
        .prepare_cached("SELECT part, length(data) FROM vsnap ORDER BY part")
        .and_then(|mut s| {
            s.query_map([], |r| Ok((r.get(0)?, r.get::<_, i64>(1)?.max(0) as usize)))?
                .collect()
        })
        .map_err(sql_err)?;
    let Some((&(0, head_len), code_parts)) = parts.split_first() else {
        return Ok(None);
    };
    let read = |part: i64, out: &mut [u8]| {
        conn.blob_open("main", "vsnap", "data", part, true)
            .and_then(|blob| blob.read_at_exact(out, 0))
            .map_err(sql_err)
    };
    let mut head = vec![0; head_len];
    read(0, &mut head)?;
    if snapshot_revs(&head).is_none_or(|s| s.rev > revs.content || s.access_rev > revs.access) {
        return Ok(None);
    }
    let mut codes = vec![0; code_parts.iter().map(|(_, len)| len).sum()];
    let mut at = 0;
    for &(part, len) in code_parts {
        read(part, &mut codes[at..at + len])?;
        at += len;
    }
    end_read(tx)?;
    Ok(VectorIndex::from_snapshot(&head, codes).ok())
}

/// A keyword index of every row of `memories_fts`, read from FTS5's own
/// index in one read transaction (so that its revision matches).
pub(crate) fn load_keywords(conn: &Connection) -> Result<KeywordIndex> {
    conn.execute_batch(KEYWORD_TEMP_TABLES).map_err(sql_err)?;
    let tx = conn.unchecked_transaction().map_err(sql_err)?;
    let mut index = KeywordIndex::default();
    index.rev = current_revs(&tx)?.content;
    add_instances(&tx, &mut index, "temp.cairn_fts_instances")?;
    tx.finish().map_err(sql_err)?;
    Ok(index)
}

/// Add every occurrence an `fts5vocab` instance table lists.
pub(crate) fn add_instances(
    conn: &Connection,
    index: &mut KeywordIndex,
    table: &str,
) -> Result<()> {
    let mut stmt = conn
        .prepare_cached(&format!("SELECT doc, col, term FROM {table}"))
        .map_err(sql_err)?;
    let mut rows = stmt.query([]).map_err(sql_err)?;
    while let Some(row) = rows.next().map_err(sql_err)? {
        let column = match text(row, 1)? {
            Some("content") => 0,
            Some("tags") => 1,
            _ => 2,
        };
        let term = row.get_ref(2).map_err(sql_err)?;
        let term = fts_token(
            term.as_bytes_or_null()
                .map_err(Error::storage)?
                .unwrap_or_default(),
        );
        index.add(row.get(0).map_err(sql_err)?, column, term);
    }
    Ok(())
}

/// Empty the scratch FTS5 table.
pub(crate) fn clear_scratch(conn: &Connection) -> Result<()> {
    conn.prepare_cached("INSERT INTO temp.cairn_tok (cairn_tok) VALUES ('delete-all')")
        .and_then(|mut s| s.execute([]))
        .map_err(sql_err)?;
    Ok(())
}

/// The store's revisions: every write and delete bumps `content`; every
/// recorded access bumps `access`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Revs {
    pub(crate) content: i64,
    pub(crate) access: i64,
}

pub(crate) fn current_revs(conn: &Connection) -> Result<Revs> {
    conn.prepare_cached(
        "SELECT (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'rev'), \
         (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'arev')",
    )
    .and_then(|mut s| {
        s.query_row([], |r| {
            Ok(Revs {
                content: r.get(0)?,
                access: r.get(1)?,
            })
        })
    })
    .map_err(sql_err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshots_are_saved_for_large_stores_once_an_eighth_changed() {
        assert!(!snapshot_pays_off(SNAPSHOT_MIN_ENTRIES - 1, usize::MAX));
        assert!(snapshot_pays_off(
            SNAPSHOT_MIN_ENTRIES,
            SNAPSHOT_MIN_ENTRIES
        ));
        assert!(snapshot_pays_off(100_000, 12_500));
        assert!(!snapshot_pays_off(100_000, 12_499));
        assert!(!snapshot_pays_off(100_000, 0));
    }
}
