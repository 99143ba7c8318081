//! The model and the vector side of a [`crate::PostgresStore`]: the
//! recorded model, one HNSW cosine index per model dimension, and the
//! nearest-neighbour search over it.

use cairn_core::memstore::check_dimension;
use cairn_core::store::{Filter, Hit};
use cairn_core::{Error, MemoryId, ModelInfo, Result};
use pgvector::Vector;
use postgres::{SimpleQueryRow, Transaction};

use crate::db::{Db, Pool, Reader, Scope};
use crate::sql::{factors_from_row, filter_sql, get, pg_err, Params, FACTOR_COLUMNS};

/// The statement reading the recorded model.
const MODEL_SQL: &str = "SELECT key, value FROM meta WHERE key IN ('model_name', 'model_dim')";

/// The recorded model, read inside the transaction.
pub(crate) fn read_model(tx: &mut Transaction<'_>) -> Result<Option<ModelInfo>> {
    let rows = tx.query(MODEL_SQL, &[]);
    model_of_rows(&rows.map_err(|e| pg_err("reading the model", e))?)
}

/// The recorded model from the rows of [`MODEL_SQL`].
fn model_of_rows(rows: &[postgres::Row]) -> Result<Option<ModelInfo>> {
    let mut pairs = Vec::new();
    for row in rows {
        pairs.push((get::<String>(row, 0)?, get::<String>(row, 1)?));
    }
    model_from(pairs)
}

/// The recorded model, in one round trip outside any transaction (a
/// recall checks it before every semantic search).
pub(crate) fn model(db: &Db) -> Result<Option<ModelInfo>> {
    db.read(Scope::Shared, "", MODEL_SQL, |_, rows| model_of(rows))
}

/// The recorded model from the rows of [`MODEL_SQL`] run as a simple query.
fn model_of(rows: &[SimpleQueryRow]) -> Result<Option<ModelInfo>> {
    let text = |row: &SimpleQueryRow, i: usize| -> Result<String> {
        row.try_get(i)
            .map_err(|e| pg_err("reading the model", e))?
            .map(str::to_string)
            .ok_or_else(|| Error::storage("the recorded model has a null"))
    };
    let pairs = rows
        .iter()
        .map(|row| Ok((text(row, 0)?, text(row, 1)?)))
        .collect::<Result<Vec<_>>>()?;
    model_from(pairs)
}

/// The model from its `(key, value)` rows in `meta`.
fn model_from(pairs: Vec<(String, String)>) -> Result<Option<ModelInfo>> {
    let mut name = None;
    let mut dim = None;
    for (key, value) in pairs {
        match key.as_str() {
            "model_name" => name = Some(value),
            _ => {
                dim = Some(value.parse::<usize>().map_err(|e| {
                    Error::storage_from("the recorded model's dimension is not a number", e)
                })?)
            }
        }
    }
    Ok(name.zip(dim).map(|(name, dim)| ModelInfo { name, dim }))
}

/// Build the recorded model's vector index if it is missing (cheap when
/// it is there): after a bulk load, or when a process died during one.
/// The build may use [`graph_mib`] of memory, up to `memory_mib`.
pub(crate) fn ensure_index(pool: &Pool, memory_mib: u64) -> Result<()> {
    pool.tx(Scope::Unscoped, |tx| {
        let Some(model) = read_model(tx)? else {
            return Ok(());
        };
        let present = tx
            .query_opt(
                "SELECT 1 FROM pg_indexes WHERE schemaname = current_schema() \
                 AND indexname = $1",
                &[&format!("memories_hnsw_{}", model.dim)],
            )
            .map_err(|e| pg_err("looking for the vector index", e))?
            .is_some();
        if present {
            return Ok(());
        }
        let rows: i64 = tx
            .query_one(
                &format!(
                    "SELECT count(*) FROM memories WHERE vector_dims(embedding) = {}",
                    model.dim
                ),
                &[],
            )
            .and_then(|r| r.try_get(0))
            .map_err(|e| pg_err("counting the vectors to index", e))?;
        // The graph is built in memory when it fits (far faster), by as
        // many processes as the server lets parallel work use (pgvector
        // builds HNSW in parallel; PostgreSQL still scales the workers to
        // the table's size).
        let mib = graph_mib(rows.max(0) as u64, model.dim).clamp(64, memory_mib.max(64));
        tx.batch_execute(&format!(
            "SET LOCAL maintenance_work_mem = '{mib}MB'; \
             SELECT set_config('max_parallel_maintenance_workers', \
                 current_setting('max_parallel_workers'), true)"
        ))
        .map_err(|e| pg_err("setting the index build's memory and workers", e))?;
        index_dimension(pool, tx, model.dim)
    })
}

/// The memory, in MiB, pgvector's HNSW build needs to hold the graph of
/// `rows` vectors of `dim` dimensions: each element's vector (4 bytes a
/// dimension) and about 1 KiB of neighbour lists and bookkeeping (16
/// links a layer, 32 on the bottom one), with an eighth to spare.
pub(crate) fn graph_mib(rows: u64, dim: usize) -> u64 {
    let bytes = rows * (dim as u64 * 4 + 1024);
    (bytes + bytes / 8).div_ceil(1 << 20)
}

/// Make the HNSW index for `dim`-dimensional embeddings (an expression
/// index over the rows of that dimension) and drop those of other
/// dimensions.
pub(crate) fn index_dimension(pool: &Pool, tx: &mut Transaction<'_>, dim: usize) -> Result<()> {
    pool.as_owner(tx)?;
    let name = format!("memories_hnsw_{dim}");
    let stale = tx
        .query(
            "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() \
             AND tablename = 'memories' AND indexname LIKE 'memories\\_hnsw\\_%' \
             AND indexname <> $1",
            &[&name],
        )
        .map_err(|e| pg_err("listing vector indexes", e))?;
    for row in &stale {
        let old: String = get(row, 0)?;
        tx.batch_execute(&format!("DROP INDEX \"{old}\""))
            .map_err(|e| pg_err("dropping a vector index", e))?;
    }
    tx.batch_execute(&format!(
        "CREATE INDEX IF NOT EXISTS {name} ON memories \
         USING hnsw ((embedding::vector({dim})) vector_cosine_ops) \
         WHERE vector_dims(embedding) = {dim}"
    ))
    .map_err(|e| pg_err("making the vector index", e))
}

/// How [`search`] finds the nearest memories.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Scan {
    /// By HNSW, with a candidate list of this many at least.
    Index { ef_search: usize },
    /// By comparing every row the filter lets through (no index scan):
    /// nothing an approximate graph walk would miss is left out.
    Exact,
}

/// The `limit` memories nearest `vector` that `filter` lets through.
pub(crate) fn search(
    db: &Db,
    vector: &[f32],
    filter: &Filter,
    limit: usize,
    scan: Scan,
) -> Result<Vec<Hit>> {
    if limit == 0 {
        return Ok(Vec::new());
    }
    let search = |tx: &mut Reader<'_>| {
        let dim = vector.len();
        let mut params = Params::default();
        let condition = filter_sql(filter, &mut params);
        let probe = params.push(Vector::from(vector.to_vec()));
        let limit = params.push(i64::try_from(limit).unwrap_or(i64::MAX));
        let sql = format!(
            "SELECT m.id, {FACTOR_COLUMNS}, \
                    (m.embedding::vector({dim}) <=> {probe}::vector({dim})) AS distance \
             FROM memories m WHERE vector_dims(m.embedding) = {dim} AND {condition} \
               AND coalesce((SELECT value FROM meta WHERE key = 'model_dim'), '{dim}') = '{dim}' \
             ORDER BY distance LIMIT {limit}"
        );
        let rows = tx
            .query(&sql, &params.refs())
            .map_err(|e| pg_err("searching vectors", e))?;
        let mut hits = rows
            .iter()
            .map(|row| {
                let distance: f64 = get(row, 5)?;
                Ok(Hit {
                    id: MemoryId(get(row, 0)?),
                    score: 1.0 - distance,
                    factors: factors_from_row(row, 1)?,
                })
            })
            .collect::<Result<Vec<Hit>>>()?;
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(b.id.cmp(&a.id)));
        Ok(hits)
    };
    let scope = Scope::Tenant(&filter.tenant);
    match scan {
        // HNSW keeps scanning until the filter has let `limit` rows
        // through (pgvector's iterative scan). Its settings stay on the
        // session (they only concern vector searches, which all set them).
        // A vector of another dimension than the recorded model's is an
        // error: the search finds nothing then (its one-time filter on
        // `meta`, evaluated before any row is read), and only a search
        // that finds nothing reads the model to say why (one round trip
        // fewer than reading it first).
        Scan::Index { ef_search } => {
            let settings = format!(
                "SET hnsw.ef_search = {}; SET hnsw.iterative_scan = strict_order",
                limit.max(ef_search).min(1000)
            );
            db.read(scope, &settings, "", |tx, _| {
                let hits = search(tx)?;
                if hits.is_empty() {
                    let model = tx.query(MODEL_SQL, &[]);
                    let model = model_of_rows(&model.map_err(|e| pg_err("reading the model", e))?)?;
                    check_dimension(model.as_ref(), vector)?;
                }
                Ok(hits)
            })
        }
        // The HNSW index is read only by an index scan.
        Scan::Exact => db.read_tx(
            scope,
            &format!("SET LOCAL enable_indexscan = off; {MODEL_SQL}"),
            |tx, model| {
                check_dimension(model_of(model)?.as_ref(), vector)?;
                search(tx)
            },
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::graph_mib;
    use crate::options::INDEX_MEMORY_MIB;

    #[test]
    fn the_graph_of_a_million_memories_outgrows_the_default_build_memory() {
        // 384-d: about 2.8 KiB an element with the margin.
        assert!(graph_mib(100_000, 384) < INDEX_MEMORY_MIB / 3);
        assert!(graph_mib(1_000_000, 384) > INDEX_MEMORY_MIB * 2);
        assert!(graph_mib(1_000_000, 384) < INDEX_MEMORY_MIB * 3);
        assert_eq!(graph_mib(0, 384), 0);
    }
}
