//! The write side of a [`crate::PostgresStore`]: the statements that
//! insert, replace and version memories, batches in one transaction,
//! the race-free near-duplicate check, deletions with receipts, and
//! restores.

use cairn_core::history::{Change, ChangeKind, Deletion, Version};
use cairn_core::memstore::check_dimension;
use cairn_core::rank::cosine;
use cairn_core::store::{query_terms, Inserted};
use cairn_core::{Error, Memory, MemoryId, Result, WriteBatch};
use pgvector::Vector;
use postgres::types::ToSql;
use postgres::Transaction;

use crate::bulk;
use crate::db::{Db, Scope};
use crate::sql::{get, is_unique_violation, pg_err};
use crate::vector::read_model;

/// The statement inserting one memory (see [`memory_values`]).
const INSERT_MEMORY: &str = "INSERT INTO memories (id, tenant, content, kind, project, tags, \
     metadata, importance, weight, source, created_at, updated_at, last_accessed_at, \
     access_count, expires_at, valid_from, valid_to, supersedes, superseded_by, embedding, \
     tsv, kw_len, session, conversation, topic, search_context, slot) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, \
     $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, \
     setweight(to_tsvector('cairn_english', $21), 'A') \
     || setweight(to_tsvector('cairn_english', $22), 'B') \
     || setweight(to_tsvector('cairn_english', $23), 'C'), $24, $25, $26, $27, $28, $29)";

/// The statement replacing one memory of a tenant (same values; a null
/// embedding keeps the stored one; accesses recorded since the memory was
/// read are kept).
const UPDATE_MEMORY: &str = "UPDATE memories SET content = $3, kind = $4, project = $5, \
     tags = $6, metadata = $7, importance = $8, weight = $9, source = $10, created_at = $11, \
     updated_at = $12, last_accessed_at = greatest(last_accessed_at, $13), \
     access_count = greatest(access_count, $14), expires_at = $15, \
     valid_from = $16, valid_to = $17, supersedes = $18, superseded_by = $19, \
     embedding = coalesce($20, embedding), \
     tsv = setweight(to_tsvector('cairn_english', $21), 'A') \
     || setweight(to_tsvector('cairn_english', $22), 'B') \
     || setweight(to_tsvector('cairn_english', $23), 'C'), kw_len = $24, \
     session = $25, conversation = $26, topic = $27, search_context = $28, slot = $29 \
     WHERE id = $1 AND tenant = $2";

/// The statement recording one version.
const INSERT_VERSION: &str = "INSERT INTO versions \
     (memory_id, number, tenant, kind, actor, reason, at, memory) \
     SELECT $1, coalesce(max(number), 0) + 1, $2, $3, $4, $5, $6, $7 \
     FROM versions WHERE memory_id = $1";

/// The 29 values of [`INSERT_MEMORY`] and [`UPDATE_MEMORY`]. A memory's
/// words are the core's terms (`query_terms`) of each field, so that a
/// document is split exactly as a query is; PostgreSQL stems them.
pub(crate) fn memory_values(
    m: &Memory,
    embedding: Option<&[f32]>,
) -> Vec<Box<dyn ToSql + Sync + Send>> {
    let fields = [
        query_terms(&m.content),
        query_terms(&m.tags.join(" ")),
        query_terms(&m.keyword_context()),
    ];
    let len: usize = fields.iter().map(Vec::len).sum();
    let [content_words, tag_words, metadata_words] = fields.map(|f| f.join(" "));
    vec![
        Box::new(m.id.0),
        Box::new(m.tenant.clone()),
        Box::new(m.content.clone()),
        Box::new(m.kind.as_str().to_string()),
        Box::new(m.project.clone()),
        Box::new(m.tags.clone()),
        Box::new(serde_json::Value::Object(m.metadata.clone()).to_string()),
        Box::new(m.importance),
        Box::new(m.weight),
        Box::new(m.source.clone()),
        Box::new(m.created_at),
        Box::new(m.updated_at),
        Box::new(m.last_accessed_at),
        Box::new(i64::try_from(m.access_count).unwrap_or(i64::MAX)),
        Box::new(m.expires_at),
        Box::new(m.valid_from),
        Box::new(m.valid_to),
        Box::new(m.supersedes.map(|s| s.0)),
        Box::new(m.superseded_by.map(|s| s.0)),
        Box::new(embedding.map(|v| Vector::from(v.to_vec()))),
        Box::new(content_words),
        Box::new(tag_words),
        Box::new(metadata_words),
        Box::new(i32::try_from(len).unwrap_or(i32::MAX)),
        Box::new(m.thread.as_ref().map(|t| t.session.clone())),
        Box::new(m.thread.as_ref().map(|t| t.conversation.clone())),
        Box::new(m.thread.as_ref().map(|t| t.topic.clone())),
        Box::new(m.search_context.clone()),
        Box::new(m.slot.clone()),
    ]
}

fn refs(values: &[Box<dyn ToSql + Sync + Send>]) -> Vec<&(dyn ToSql + Sync)> {
    values
        .iter()
        .map(|v| v.as_ref() as &(dyn ToSql + Sync))
        .collect()
}

/// Insert one memory; an id that is stored is [`Error::DuplicateId`].
fn insert_memory(
    tx: &mut Transaction<'_>,
    statement: &postgres::Statement,
    m: &Memory,
    v: &[f32],
) -> Result<()> {
    let values = memory_values(m, Some(v));
    tx.execute(statement, &refs(&values)).map_err(|e| {
        if is_unique_violation(&e) {
            Error::DuplicateId(m.id.to_string())
        } else {
            pg_err("inserting a memory", e)
        }
    })?;
    Ok(())
}

/// Record `change`, with `m` as the version's memory.
fn insert_version(
    tx: &mut Transaction<'_>,
    statement: &postgres::Statement,
    change: &Change,
    m: &Memory,
) -> Result<()> {
    let snapshot = serde_json::to_string(m)
        .map_err(|e| Error::storage_from("encoding a version's memory", e))?;
    tx.execute(
        statement,
        &[
            &change.id.0,
            &m.tenant,
            &change.kind.as_str(),
            &change.actor,
            &change.reason,
            &change.at,
            &snapshot,
        ],
    )
    .map_err(|e| pg_err("recording a version", e))?;
    Ok(())
}

/// A memory updated without a change of its own (a search context
/// rebuilt after a forget, a re-embedding) has its latest version's
/// snapshot rewritten to match, as SQLite's latest version is the row:
/// a forgotten neighbour's text must not stay in it.
fn refresh_latest_versions(tx: &mut Transaction<'_>, batch: &WriteBatch) -> Result<()> {
    let changed: std::collections::HashSet<MemoryId> = batch.changes.iter().map(|c| c.id).collect();
    for (m, _) in batch
        .updates
        .iter()
        .filter(|(m, _)| !changed.contains(&m.id))
    {
        let snapshot = serde_json::to_string(m)
            .map_err(|e| Error::storage_from("encoding a version's memory", e))?;
        tx.execute(
            "UPDATE versions SET memory = $2 WHERE memory_id = $1 \
             AND number = (SELECT max(number) FROM versions WHERE memory_id = $1)",
            &[&m.id.0, &snapshot],
        )
        .map_err(|e| pg_err("refreshing a version", e))?;
    }
    Ok(())
}

/// The single tenant of a batch, if it has one.
fn batch_scope(batch: &WriteBatch) -> Scope<'_> {
    let mut tenants = batch
        .inserts
        .iter()
        .map(|(m, _)| m.tenant.as_str())
        .chain(batch.updates.iter().map(|(m, _)| m.tenant.as_str()));
    match tenants.next() {
        Some(first) if tenants.all(|t| t == first) => Scope::Tenant(first),
        Some(_) => Scope::Every,
        None => Scope::Unscoped,
    }
}

/// Delete the memories `condition` selects (its values from `$4` on),
/// leaving receipts; returns how many.
pub(crate) fn delete_where(
    tx: &mut Transaction<'_>,
    condition: &str,
    deletion: &Deletion,
    args: &[&(dyn ToSql + Sync)],
) -> Result<usize> {
    let sql = format!(
        "WITH gone AS (DELETE FROM memories m WHERE {condition} RETURNING m.id, m.tenant) \
         INSERT INTO deletions (id, tenant, actor, reason, at, versions) \
         SELECT g.id, g.tenant, $1, $2, $3, \
                (SELECT count(*) FROM versions v WHERE v.memory_id = g.id)::integer \
         FROM gone g \
         ON CONFLICT (tenant, id) DO UPDATE SET actor = excluded.actor, \
             reason = excluded.reason, at = excluded.at, versions = excluded.versions"
    );
    let mut all: Vec<&(dyn ToSql + Sync)> = vec![&deletion.actor, &deletion.reason, &deletion.at];
    all.extend_from_slice(args);
    let n = tx
        .execute(&sql, &all)
        .map_err(|e| pg_err("deleting memories", e))?;
    Ok(n as usize)
}

/// Write `batch` in one transaction (see [`cairn_core::store::Writing::write`]).
pub(crate) fn write(db: &Db, batch: WriteBatch) -> Result<()> {
    let versioned: Vec<Memory> = batch.versioned()?.into_iter().cloned().collect();
    if batch.is_empty() {
        return Ok(());
    }
    db.tx(batch_scope(&batch), |tx| {
        let model = read_model(tx)?;
        for v in batch
            .inserts
            .iter()
            .map(|(_, v)| v)
            .chain(batch.updates.iter().filter_map(|(_, v)| v.as_ref()))
        {
            check_dimension(model.as_ref(), v)?;
        }
        let copied = batch.inserts.len() >= bulk::COPY_MIN_ROWS;
        if copied {
            bulk::copy_memories(tx, &batch.inserts)?;
        } else if !batch.inserts.is_empty() {
            let insert = tx
                .prepare(INSERT_MEMORY)
                .map_err(|e| pg_err("preparing an insert", e))?;
            for (m, v) in &batch.inserts {
                insert_memory(tx, &insert, m, v)?;
            }
        }
        if !batch.updates.is_empty() {
            let update = tx
                .prepare(UPDATE_MEMORY)
                .map_err(|e| pg_err("preparing an update", e))?;
            for (m, v) in &batch.updates {
                let values = memory_values(m, v.as_deref());
                let n = tx
                    .execute(&update, &refs(&values))
                    .map_err(|e| pg_err("updating a memory", e))?;
                if n == 0 {
                    return Err(Error::NotFound(m.id.to_string()));
                }
            }
            refresh_latest_versions(tx, &batch)?;
        }
        // The first versions of copied memories are copied too; the
        // others are numbered after the memory's stored ones.
        let inserted: std::collections::HashSet<MemoryId> = match copied {
            true => batch.inserts.iter().map(|(m, _)| m.id).collect(),
            false => Default::default(),
        };
        let (first, later): (Vec<_>, Vec<_>) = batch
            .changes
            .iter()
            .zip(&versioned)
            .partition(|(change, _)| inserted.contains(&change.id));
        bulk::copy_first_versions(tx, &first)?;
        if !later.is_empty() {
            let version = tx
                .prepare(INSERT_VERSION)
                .map_err(|e| pg_err("preparing a version", e))?;
            for (change, m) in later {
                insert_version(tx, &version, change, m)?;
            }
        }
        Ok(())
    })
}

/// Insert `memory` unless a near-duplicate is stored (see
/// [`cairn_core::store::Writing::insert_unless_duplicate`]).
pub(crate) fn insert_unless_duplicate(
    db: &Db,
    memory: Memory,
    vector: Vec<f32>,
    threshold: f32,
    actor: &str,
) -> Result<Inserted> {
    db.tx(Scope::Tenant(&memory.tenant), |tx| {
        // One writer per tenant at a time, across processes, from the
        // check to the commit.
        tx.execute(
            "SELECT pg_advisory_xact_lock(hashtext(current_schema()), hashtext($1))",
            &[&memory.tenant],
        )
        .map_err(|e| pg_err("locking the tenant", e))?;
        check_dimension(read_model(tx)?.as_ref(), &vector)?;
        let stored = tx
            .query_opt("SELECT 1 FROM memories WHERE id = $1", &[&memory.id.0])
            .map_err(|e| pg_err("looking up an id", e))?;
        if stored.is_some() {
            return Err(Error::DuplicateId(memory.id.to_string()));
        }
        // Candidates by pgvector's distance with a little slack; the
        // decision is the core's cosine on the stored vectors.
        let dim = i32::try_from(vector.len()).unwrap_or(i32::MAX);
        let slack = 1.0 - f64::from(threshold) + 1e-4;
        let candidates = tx
            .query(
                "SELECT id, embedding FROM memories \
                 WHERE tenant = $1 AND kind = $2 AND project IS NOT DISTINCT FROM $3 \
                 AND slot IS NOT DISTINCT FROM $8 \
                 AND (expires_at IS NULL OR expires_at > $4) AND superseded_by IS NULL \
                 AND vector_dims(embedding) = $5 \
                 AND (CASE WHEN vector_dims(embedding) = $5 \
                      THEN embedding <=> $6 END) <= $7",
                &[
                    &memory.tenant,
                    &memory.kind.as_str(),
                    &memory.project,
                    &memory.created_at,
                    &dim,
                    &Vector::from(vector.clone()),
                    &slack,
                    &memory.slot,
                ],
            )
            .map_err(|e| pg_err("looking for a near-duplicate", e))?;
        let mut best: Option<(MemoryId, f32)> = None;
        for row in &candidates {
            let id = MemoryId(get(row, 0)?);
            let stored: Vector = get(row, 1)?;
            let similarity = cosine(&vector, stored.as_slice());
            if similarity >= threshold && best.is_none_or(|(_, s)| similarity > s) {
                best = Some((id, similarity));
            }
        }
        if let Some((id, similarity)) = best {
            return Ok(Inserted::Duplicate { id, similarity });
        }
        let insert = tx
            .prepare(INSERT_MEMORY)
            .map_err(|e| pg_err("preparing an insert", e))?;
        insert_memory(tx, &insert, &memory, &vector)?;
        let version = tx
            .prepare(INSERT_VERSION)
            .map_err(|e| pg_err("preparing a version", e))?;
        let created = Change::new(memory.id, ChangeKind::Created, actor, memory.updated_at);
        insert_version(tx, &version, &created, &memory)?;
        Ok(Inserted::New)
    })
}

/// Copy `batch` in as it is (see [`cairn_core::store::Writing::restore`]).
pub(crate) fn restore(db: &Db, batch: cairn_core::Restore) -> Result<()> {
    if batch.memories.is_empty() && batch.receipts.is_empty() {
        return Ok(());
    }
    db.tx(Scope::Every, |tx| {
        let model = read_model(tx)?;
        for (_, v, _) in &batch.memories {
            check_dimension(model.as_ref(), v)?;
        }
        let inserts: Vec<(Memory, Vec<f32>)> = batch
            .memories
            .iter()
            .map(|(m, v, _)| (m.clone(), v.clone()))
            .collect();
        if inserts.len() >= bulk::COPY_MIN_ROWS {
            bulk::copy_memories(tx, &inserts)?;
        } else if !inserts.is_empty() {
            let insert = tx
                .prepare(INSERT_MEMORY)
                .map_err(|e| pg_err("preparing an insert", e))?;
            for (m, v) in &inserts {
                insert_memory(tx, &insert, m, v)?;
            }
        }
        let versions: Vec<Version> = batch
            .memories
            .iter()
            .flat_map(|(m, _, versions)| {
                // A version is its memory's, whatever its state says.
                versions.iter().map(|v| {
                    let mut v = v.clone();
                    v.memory.id = m.id;
                    v.memory.tenant = m.tenant.clone();
                    v
                })
            })
            .collect();
        bulk::copy_versions(tx, &versions)?;
        if !batch.receipts.is_empty() {
            let receipt = tx
                .prepare(
                    "INSERT INTO deletions (id, tenant, actor, reason, at, versions) \
                     VALUES ($1, $2, $3, $4, $5, $6) \
                     ON CONFLICT (tenant, id) DO UPDATE SET \
                     actor = excluded.actor, reason = excluded.reason, at = excluded.at, \
                     versions = excluded.versions",
                )
                .map_err(|e| pg_err("preparing a receipt", e))?;
            for r in &batch.receipts {
                let versions = i32::try_from(r.versions).unwrap_or(i32::MAX);
                tx.execute(
                    &receipt,
                    &[
                        &r.id.0,
                        &r.tenant,
                        &r.deletion.actor,
                        &r.deletion.reason,
                        &r.deletion.at,
                        &versions,
                    ],
                )
                .map_err(|e| pg_err("restoring a receipt", e))?;
            }
        }
        Ok(())
    })
}
