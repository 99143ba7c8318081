//! Bulk writes: many new memories in one binary `COPY`, and the vector
//! index built once after a bulk load instead of row by row.
//!
//! A batch of at least [`COPY_MIN_ROWS`] inserts is copied into a
//! temporary staging table (binary `COPY`, one round trip for the whole
//! batch), then moved into `memories` by one `INSERT … SELECT` that
//! computes each row's words as the single-row insert does. The move
//! skips ids already stored (`ON CONFLICT DO NOTHING`, which sees every
//! tenant's rows through the primary key even under row-level security);
//! any id skipped makes the batch [`Error::DuplicateId`] and the
//! transaction is rolled back, exactly as a single-row insert would. The
//! batch's first versions (those of memories it inserts) are copied the
//! same way; the keyword statistics' triggers run once per statement.
//!
//! Inserting into an HNSW index costs far more per row than building the
//! index over the same rows at once, so a bulk load into a store holding
//! fewer memories than it brings drops the vector index
//! ([`defer_vector_index`]) and builds it when the load ends ([`finish`]). Searches meanwhile stay correct (an exact scan); a process that
//! dies before the end leaves the index to the next one that opens the
//! store, which builds it if it is missing.

use cairn_core::history::{Change, Version};
use cairn_core::{Error, Memory, Result};
use postgres::binary_copy::BinaryCopyInWriter;
use postgres::types::ToSql;
use postgres::Transaction;
use uuid::Uuid;

use crate::db::{Db, Scope};
use crate::sql::pg_err;
use crate::vector::{self, read_model};
use crate::write::memory_values;

/// Inserts from which a batch is copied rather than inserted row by row.
pub(crate) const COPY_MIN_ROWS: usize = 64;

/// The staging table: [`memory_values`]'s columns, in its order.
const STAGING: &str = "CREATE TEMP TABLE IF NOT EXISTS cairn_staging (
    id uuid, tenant text, content text, kind text, project text, tags text[],
    metadata text, importance double precision, weight double precision, source text,
    created_at bigint, updated_at bigint, last_accessed_at bigint, access_count bigint,
    expires_at bigint, valid_from bigint, valid_to bigint, supersedes uuid,
    superseded_by uuid, embedding vector, content_words text, tag_words text,
    metadata_words text, kw_len integer, session text, conversation text, topic text,
    search_context text, slot text
) ON COMMIT DELETE ROWS";

/// The move from staging into `memories`; returns the ids inserted.
const MOVE: &str = "INSERT INTO memories (id, tenant, content, kind, project, tags, \
     metadata, importance, weight, source, created_at, updated_at, last_accessed_at, \
     access_count, expires_at, valid_from, valid_to, supersedes, superseded_by, embedding, \
     tsv, kw_len, session, conversation, topic, search_context, slot) \
     SELECT id, tenant, content, kind, project, tags, metadata, importance, weight, source, \
     created_at, updated_at, last_accessed_at, access_count, expires_at, valid_from, valid_to, \
     supersedes, superseded_by, embedding, \
     setweight(to_tsvector('cairn_english', content_words), 'A') \
     || setweight(to_tsvector('cairn_english', tag_words), 'B') \
     || setweight(to_tsvector('cairn_english', metadata_words), 'C'), \
     kw_len, session, conversation, topic, search_context, slot FROM cairn_staging \
     ON CONFLICT (id) DO NOTHING RETURNING id";

/// Copy `inserts` into `memories` within `tx`. An id already stored (of
/// any tenant), or given twice, is [`Error::DuplicateId`]; the caller's
/// transaction then rolls back.
pub(crate) fn copy_memories(
    tx: &mut Transaction<'_>,
    inserts: &[(Memory, Vec<f32>)],
) -> Result<()> {
    tx.batch_execute(STAGING)
        .map_err(|e| pg_err("making the staging table", e))?;
    let types = tx
        .prepare("SELECT * FROM cairn_staging")
        .map_err(|e| pg_err("reading the staging table's columns", e))?
        .columns()
        .iter()
        .map(|c| c.type_().clone())
        .collect::<Vec<_>>();
    let sink = tx
        .copy_in("COPY cairn_staging FROM STDIN (FORMAT binary)")
        .map_err(|e| pg_err("starting a COPY", e))?;
    let mut writer = BinaryCopyInWriter::new(sink, &types);
    for (m, v) in inserts {
        let values = memory_values(m, Some(v));
        let row: Vec<&(dyn ToSql + Sync)> = values
            .iter()
            .map(|v| v.as_ref() as &(dyn ToSql + Sync))
            .collect();
        writer
            .write(&row)
            .map_err(|e| pg_err("copying a memory", e))?;
    }
    writer.finish().map_err(|e| pg_err("finishing a COPY", e))?;
    let moved = tx
        .query(MOVE, &[])
        .map_err(|e| pg_err("moving copied memories into place", e))?;
    if moved.len() != inserts.len() {
        let inserted: std::collections::HashSet<Uuid> =
            moved.iter().map(|r| r.get::<_, Uuid>(0)).collect();
        let taken = inserts
            .iter()
            .map(|(m, _)| m.id)
            .find(|id| !inserted.contains(&id.0))
            .map(|id| id.to_string())
            .unwrap_or_default();
        return Err(Error::DuplicateId(taken));
    }
    Ok(())
}

/// Copy the first versions of memories the same transaction inserted
/// (`(change, memory)`: the change and the memory as it records it): each
/// is version 1, as no memory that was not stored has versions.
pub(crate) fn copy_first_versions(
    tx: &mut Transaction<'_>,
    versions: &[(&Change, &Memory)],
) -> Result<()> {
    let rows: Vec<Version> = versions
        .iter()
        .map(|(change, m)| Version {
            number: 1,
            kind: change.kind,
            actor: change.actor.clone(),
            reason: change.reason.clone(),
            at: change.at,
            memory: (*m).clone(),
        })
        .collect();
    copy_versions(tx, &rows)
}

/// Copy versions as they are (each its memory's id and tenant from its
/// state, its number as given).
pub(crate) fn copy_versions(tx: &mut Transaction<'_>, versions: &[Version]) -> Result<()> {
    if versions.is_empty() {
        return Ok(());
    }
    // Row-level security forbids `COPY` into `versions` itself.
    tx.batch_execute(
        "CREATE TEMP TABLE IF NOT EXISTS cairn_staging_versions (
             memory_id uuid, number integer, tenant text, kind text, actor text, reason text,
             at bigint, memory text
         ) ON COMMIT DELETE ROWS",
    )
    .map_err(|e| pg_err("making the versions' staging table", e))?;
    let types = tx
        .prepare("SELECT * FROM cairn_staging_versions")
        .map_err(|e| pg_err("reading the versions' columns", e))?
        .columns()
        .iter()
        .map(|c| c.type_().clone())
        .collect::<Vec<_>>();
    let sink = tx
        .copy_in("COPY cairn_staging_versions FROM STDIN (FORMAT binary)")
        .map_err(|e| pg_err("starting a COPY of versions", e))?;
    let mut writer = BinaryCopyInWriter::new(sink, &types);
    for v in versions {
        let snapshot = serde_json::to_string(&v.memory)
            .map_err(|e| Error::storage_from("encoding a version's memory", e))?;
        let number = i32::try_from(v.number).unwrap_or(i32::MAX);
        writer
            .write(&[
                &v.memory.id.0,
                &number,
                &v.memory.tenant,
                &v.kind.as_str(),
                &v.actor,
                &v.reason,
                &v.at,
                &snapshot,
            ])
            .map_err(|e| pg_err("copying a version", e))?;
    }
    writer
        .finish()
        .map_err(|e| pg_err("finishing a COPY of versions", e))?;
    tx.batch_execute(
        "INSERT INTO versions (memory_id, number, tenant, kind, actor, reason, at, memory) \
         SELECT memory_id, number, tenant, kind, actor, reason, at, memory \
         FROM cairn_staging_versions",
    )
    .map_err(|e| pg_err("moving copied versions into place", e))?;
    Ok(())
}

/// Before a load of `rows` memories: drop the vector index when building
/// it afterwards costs less than inserting the rows into it (the store
/// holds fewer than it brings). Whether it was dropped.
pub(crate) fn defer_vector_index(db: &Db, rows: usize) -> Result<bool> {
    let pool = db.pool()?;
    pool.tx(Scope::Every, |tx| {
        let Some(model) = read_model(tx)? else {
            return Ok(false);
        };
        let stored: i64 = tx
            .query_one("SELECT count(*) FROM memories", &[])
            .and_then(|r| r.try_get(0))
            .map_err(|e| pg_err("counting memories", e))?;
        if usize::try_from(stored).unwrap_or(usize::MAX) >= rows {
            return Ok(false);
        }
        pool.as_owner(tx)?;
        tx.batch_execute(&format!("DROP INDEX IF EXISTS memories_hnsw_{}", model.dim))
            .map_err(|e| pg_err("dropping the vector index for a bulk load", e))?;
        Ok(true)
    })
}

/// After a load: the vector index built if [`defer_vector_index`]
/// dropped it, fresh statistics, so that the planner does not take a
/// store just loaded for the empty one it last sampled (autovacuum's
/// analyze comes later, if at all before the first queries), and the
/// keyword postings vacuumed.
pub(crate) fn finish(db: &Db, index_deferred: bool, index_memory_mib: u64) -> Result<()> {
    let pool = db.pool()?;
    if index_deferred {
        vector::ensure_index(pool, index_memory_mib)?;
    }
    pool.tx(Scope::Unscoped, |tx| {
        pool.as_owner(tx)?;
        tx.batch_execute("ANALYZE memories, versions")
            .map_err(|e| pg_err("analysing the loaded tables", e))
    })?;
    // Keyword search reads the postings by index alone once their pages
    // are marked all-visible, which only a vacuum does.
    pool.outside_tx("VACUUM (ANALYZE) kw_postings")
}
