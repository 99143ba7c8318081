//! [`PostgresStore`]: the [`Store`] implementation (its keyword side in
//! `keyword.rs`, its keys in `keys.rs`).

use std::time::Duration;

use cairn_core::history::{Change, ChangeKind, Deletion, DeletionReceipt, Version};
use cairn_core::keys::KeyStore;
use cairn_core::memstore::check_dimension;
use cairn_core::packing::Packed;
use cairn_core::rank::cosine;
use cairn_core::store::{query_terms, Filter, Hit, Inserted, ListOrder, StoreStats, TermRarity};
use cairn_core::{Error, Memory, MemoryId, ModelInfo, Result, Store, Timestamp, WriteBatch};
use pgvector::Vector;
use postgres::types::ToSql;
use postgres::{NoTls, Transaction};
use uuid::Uuid;

use crate::bulk;
use crate::collections::PgCollections;
use crate::db::{Db, Scope};
use crate::keys::PgKeys;
use crate::keyword;
use crate::schema;
use crate::sql::{
    factors_from_row, filter_sql, get, is_unique_violation, memory_from_row, order_sql, pg_err,
    prefix_range, Params, FACTOR_COLUMNS, MEMORY_COLUMNS,
};

/// How to open a [`PostgresStore`].
#[derive(Debug, Clone)]
pub struct PostgresOptions {
    /// The schema the store's tables live in (made if missing). Several
    /// stores can share a database, one schema each.
    pub schema: String,
    /// At most this many connections.
    pub pool_size: u32,
    /// How long to wait for a connection before the store is
    /// [`cairn_core::ErrorKind::Unavailable`]: both one attempt to connect
    /// (unless the URL gives `connect_timeout`) and a wait for a pooled
    /// connection. Default [`CONNECT_TIMEOUT`].
    pub connect_timeout: Duration,
    /// The HNSW search's candidate list (`hnsw.ef_search`) at least: larger
    /// finds the true nearest neighbours more often, slower. A search for
    /// more results than this uses its limit. Default
    /// [`DEFAULT_EF_SEARCH`]; the URL's `?ef_search=N` wins.
    pub ef_search: usize,
}

/// The default [`PostgresOptions::ef_search`]: 100, with which hybrid
/// recall on LoCoMo matches SQLite's exact vector search (see
/// `docs/BENCHMARKS.md`).
pub const DEFAULT_EF_SEARCH: usize = 100;

/// The default [`PostgresOptions::connect_timeout`]: 3 seconds. Long
/// enough for a connection across a data centre (and PostgreSQL's own
/// authentication) under load; short enough that a request while the
/// database is unreachable gets its 503 well within a client's patience
/// and the server's request timeout (30 s by default).
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);

/// How long data sent on a connection may go unacknowledged (or a
/// connection stay silent past its keepalives) before the connection
/// counts as lost (`tcp_user_timeout`, unless the URL gives it): 10
/// seconds. A database host that vanishes without closing its
/// connections (power loss, a network partition) then fails the queries
/// under way as unavailable within seconds rather than after the
/// kernel's retransmissions (about 15 minutes).
pub const TCP_USER_TIMEOUT: Duration = Duration::from_secs(10);

impl Default for PostgresOptions {
    fn default() -> Self {
        PostgresOptions {
            schema: "cairn".into(),
            pool_size: 16,
            connect_timeout: CONNECT_TIMEOUT,
            ef_search: DEFAULT_EF_SEARCH,
        }
    }
}

/// The URL without Cairn's own parameter, `schema` (which PostgreSQL's
/// URL syntax does not have), and that parameter's value.
fn split_schema(url: &str) -> (String, Option<String>) {
    split_param(url, "schema")
}

/// The URL without the query parameter `name`, and its value.
fn split_param(url: &str, name: &str) -> (String, Option<String>) {
    let Some((base, query)) = url.split_once('?') else {
        return (url.to_string(), None);
    };
    let mut value = None;
    let prefix = format!("{name}=");
    let rest: Vec<&str> = query
        .split('&')
        .filter(|pair| match pair.strip_prefix(prefix.as_str()) {
            Some(v) => {
                value = Some(v.to_string());
                false
            }
            None => !pair.is_empty(),
        })
        .collect();
    if rest.is_empty() {
        (base.to_string(), value)
    } else {
        (format!("{base}?{}", rest.join("&")), value)
    }
}

/// A Cairn store in a PostgreSQL database (with pgvector).
pub struct PostgresStore {
    db: Db,
    keys: PgKeys,
    threads: PgCollections,
    /// Whether this process dropped the vector index for a bulk load (see
    /// `bulk.rs`) and owes the store its rebuild.
    index_deferred: std::sync::atomic::AtomicBool,
    /// [`PostgresOptions::ef_search`].
    ef_search: usize,
}

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
/// embedding keeps the stored one).
const UPDATE_MEMORY: &str = "UPDATE memories SET content = $3, kind = $4, project = $5, \
     tags = $6, metadata = $7, importance = $8, weight = $9, source = $10, created_at = $11, \
     updated_at = $12, last_accessed_at = $13, access_count = $14, expires_at = $15, \
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

/// The recorded model, read inside the transaction.
fn read_model(tx: &mut Transaction<'_>) -> Result<Option<ModelInfo>> {
    let rows = tx
        .query(
            "SELECT key, value FROM meta WHERE key IN ('model_name', 'model_dim')",
            &[],
        )
        .map_err(|e| pg_err("reading the model", e))?;
    let mut name = None;
    let mut dim = None;
    for row in &rows {
        let key: String = get(row, 0)?;
        let value: String = get(row, 1)?;
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
fn delete_where(
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
         ON CONFLICT (id) DO UPDATE SET tenant = excluded.tenant, actor = excluded.actor, \
             reason = excluded.reason, at = excluded.at, versions = excluded.versions"
    );
    let mut all: Vec<&(dyn ToSql + Sync)> = vec![&deletion.actor, &deletion.reason, &deletion.at];
    all.extend_from_slice(args);
    let n = tx
        .execute(&sql, &all)
        .map_err(|e| pg_err("deleting memories", e))?;
    Ok(n as usize)
}

impl PostgresStore {
    /// Open the store at `url` (`postgres://user@host:port/db`) with the
    /// default options: schema `cairn`, made and migrated if need be.
    pub fn open(url: &str) -> Result<Self> {
        Self::open_with(url, PostgresOptions::default())
    }

    /// Open the store at `url` with `options`. An unreachable server is
    /// [`cairn_core::ErrorKind::Unavailable`].
    ///
    /// The URL may name the schema, `?schema=NAME` (Cairn's own parameter,
    /// taken out before the URL reaches PostgreSQL), which wins over
    /// `options.schema`; its other parameters are PostgreSQL's.
    pub fn open_with(url: &str, mut options: PostgresOptions) -> Result<Self> {
        let (url, named) = split_schema(url);
        if let Some(name) = named {
            options.schema = name;
        }
        let (url, ef_search) = split_param(&url, "ef_search");
        if let Some(ef) = ef_search {
            options.ef_search = ef
                .parse()
                .ok()
                .filter(|n| (1..=1000).contains(n))
                .ok_or_else(|| {
                    Error::invalid(format!("ef_search={ef}: give a number from 1 to 1000"))
                })?;
        }
        schema::check_schema_name(&options.schema)?;
        let mut config: postgres::Config = url
            .parse()
            .map_err(|e| Error::invalid(format!("not a PostgreSQL URL: {e}")))?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(options.connect_timeout);
        }
        let wait = *config
            .get_connect_timeout()
            .unwrap_or(&options.connect_timeout);
        if config.get_tcp_user_timeout().is_none() {
            config.tcp_user_timeout(TCP_USER_TIMEOUT);
        }
        let mut setup = config.connect(NoTls).map_err(|e| pg_err("connecting", e))?;
        let app_role = schema::bypasses_rls(&mut setup)?;
        schema::prepare(&mut setup, &options.schema, app_role)?;
        drop(setup);
        let db = Db::new(
            config,
            &options.schema,
            app_role,
            options.pool_size,
            // The URL's `connect_timeout`, if it gives one, bounds the wait
            // for a pooled connection too.
            wait,
        )?;
        let store = PostgresStore {
            keys: PgKeys { db: db.clone() },
            threads: PgCollections { db: db.clone() },
            db,
            index_deferred: std::sync::atomic::AtomicBool::new(false),
            ef_search: options.ef_search,
        };
        // A bulk load that died before its end left the vector index to
        // whoever opens the store next.
        store.ensure_vector_index()?;
        Ok(store)
    }

    /// Build the recorded model's vector index if it is missing (cheap
    /// when it is there).
    fn ensure_vector_index(&self) -> Result<()> {
        self.db.tx(Scope::Unscoped, |tx| {
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
            // The graph is built in memory when it fits: far faster.
            tx.batch_execute("SET LOCAL maintenance_work_mem = '1GB'")
                .map_err(|e| pg_err("setting the index build's memory", e))?;
            self.index_dimension(tx, model.dim)
        })
    }

    /// Make the HNSW index for `dim`-dimensional embeddings (an expression
    /// index over the rows of that dimension) and drop those of other
    /// dimensions.
    fn index_dimension(&self, tx: &mut Transaction<'_>, dim: usize) -> Result<()> {
        self.db.as_owner(tx)?;
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
}

impl Store for PostgresStore {
    fn model(&self) -> Result<Option<ModelInfo>> {
        self.db.tx(Scope::Unscoped, read_model)
    }

    fn set_model(&self, model: &ModelInfo) -> Result<()> {
        self.db.tx(Scope::Unscoped, |tx| {
            tx.execute(
                "INSERT INTO meta (key, value) VALUES ('model_name', $1), ('model_dim', $2) \
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                &[&model.name, &model.dim.to_string()],
            )
            .map_err(|e| pg_err("recording the model", e))?;
            self.index_dimension(tx, model.dim)
        })
    }

    fn write(&self, batch: WriteBatch) -> Result<()> {
        let versioned: Vec<Memory> = batch.versioned()?.into_iter().cloned().collect();
        if batch.is_empty() {
            return Ok(());
        }
        self.db.tx(batch_scope(&batch), |tx| {
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

    fn insert_unless_duplicate(
        &self,
        memory: Memory,
        vector: Vec<f32>,
        threshold: f32,
        actor: &str,
    ) -> Result<Inserted> {
        self.db.tx(Scope::Tenant(&memory.tenant), |tx| {
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

    fn delete(&self, tenant: &str, ids: &[MemoryId], deletion: &Deletion) -> Result<usize> {
        if ids.is_empty() {
            return Ok(0);
        }
        let ids: Vec<Uuid> = ids.iter().map(|id| id.0).collect();
        self.db.tx(Scope::Tenant(tenant), |tx| {
            delete_where(
                tx,
                "m.tenant = $4 AND m.id = ANY($5)",
                deletion,
                &[&tenant, &ids],
            )
        })
    }

    fn delete_expired(&self, now: Timestamp) -> Result<usize> {
        self.db.tx(Scope::Every, |tx| {
            delete_where(tx, "m.expires_at <= $4", &Deletion::expired(now), &[&now])
        })
    }

    fn history(&self, tenant: &str, id: MemoryId) -> Result<Vec<Version>> {
        let rows = self.db.tx(Scope::Tenant(tenant), |tx| {
            tx.query(
                "SELECT number, kind, actor, reason, at, memory FROM versions \
                 WHERE tenant = $1 AND memory_id = $2 ORDER BY number",
                &[&tenant, &id.0],
            )
            .map_err(|e| pg_err("reading history", e))
        })?;
        rows.iter()
            .map(|row| {
                let number: i32 = get(row, 0)?;
                let kind: String = get(row, 1)?;
                let memory: String = get(row, 5)?;
                Ok(Version {
                    number: number.max(0) as u32,
                    kind: kind.parse()?,
                    actor: get(row, 2)?,
                    reason: get(row, 3)?,
                    at: get(row, 4)?,
                    memory: serde_json::from_str(&memory)
                        .map_err(|e| Error::storage_from("a stored version is not JSON", e))?,
                })
            })
            .collect()
    }

    fn receipts(&self, tenant: &str, prefix: &str, limit: usize) -> Result<Vec<DeletionReceipt>> {
        let Some((lo, hi)) = prefix_range(prefix) else {
            return Ok(Vec::new());
        };
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = self.db.tx(Scope::Tenant(tenant), |tx| {
            tx.query(
                "SELECT id, tenant, actor, reason, at, versions FROM deletions \
                 WHERE tenant = $1 AND id BETWEEN $2 AND $3 ORDER BY id LIMIT $4",
                &[&tenant, &lo, &hi, &limit],
            )
            .map_err(|e| pg_err("reading deletion receipts", e))
        })?;
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

    fn get(&self, tenant: &str, ids: &[MemoryId]) -> Result<Vec<Memory>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let ids: Vec<Uuid> = ids.iter().map(|id| id.0).collect();
        let rows = self.db.tx(Scope::Tenant(tenant), |tx| {
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

    fn embeddings(&self, tenant: &str, ids: &[MemoryId]) -> Result<Vec<Option<Vec<f32>>>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let ids: Vec<Uuid> = ids.iter().map(|id| id.0).collect();
        let rows = self.db.tx(Scope::Tenant(tenant), |tx| {
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
    fn pack_contents(&self, tenant: &str, ids: &[MemoryId], _pack: bool) -> Result<Vec<Packed>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let uuids: Vec<Uuid> = ids.iter().map(|id| id.0).collect();
        let rows = self.db.tx(Scope::Tenant(tenant), |tx| {
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

    fn find_by_prefix(&self, tenant: &str, prefix: &str, limit: usize) -> Result<Vec<MemoryId>> {
        let Some((lo, hi)) = prefix_range(prefix) else {
            return Ok(Vec::new());
        };
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = self.db.tx(Scope::Tenant(tenant), |tx| {
            tx.query(
                "SELECT id FROM memories WHERE tenant = $1 AND id BETWEEN $2 AND $3 \
                 ORDER BY id LIMIT $4",
                &[&tenant, &lo, &hi, &limit],
            )
            .map_err(|e| pg_err("finding ids by prefix", e))
        })?;
        rows.iter().map(|row| Ok(MemoryId(get(row, 0)?))).collect()
    }

    fn id_neighbours(
        &self,
        tenant: &str,
        ids: &[MemoryId],
    ) -> Result<Vec<(Option<MemoryId>, Option<MemoryId>)>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let ids: Vec<Uuid> = ids.iter().map(|id| id.0).collect();
        let rows = self.db.tx(Scope::Tenant(tenant), |tx| {
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

    fn list(
        &self,
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
        let rows = self.db.tx(Scope::Tenant(&filter.tenant), |tx| {
            tx.query(&sql, &params.refs())
                .map_err(|e| pg_err("listing memories", e))
        })?;
        rows.iter().map(memory_from_row).collect()
    }

    fn count(&self, filter: &Filter) -> Result<usize> {
        let mut params = Params::default();
        let condition = filter_sql(filter, &mut params);
        let sql = format!("SELECT count(*) FROM memories m WHERE {condition}");
        let n: i64 = self.db.tx(Scope::Tenant(&filter.tenant), |tx| {
            let row = tx
                .query_one(&sql, &params.refs())
                .map_err(|e| pg_err("counting memories", e))?;
            get(&row, 0)
        })?;
        Ok(n.max(0) as usize)
    }

    fn keyword_rarity(&self, query: &str) -> Result<Option<TermRarity>> {
        keyword::rarity(&self.db, query)
    }

    fn keyword_search(&self, query: &str, filter: &Filter, limit: usize) -> Result<Vec<Hit>> {
        keyword::search(&self.db, query, filter, limit)
    }

    fn vector_search(&self, vector: &[f32], filter: &Filter, limit: usize) -> Result<Vec<Hit>> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        self.db.tx(Scope::Tenant(&filter.tenant), |tx| {
            check_dimension(read_model(tx)?.as_ref(), vector)?;
            // HNSW keeps scanning until the filter has let `limit` rows
            // through (pgvector's iterative scan).
            let ef_search = limit.max(self.ef_search).min(1000);
            tx.batch_execute(&format!(
                "SET LOCAL hnsw.ef_search = {ef_search}; \
                 SET LOCAL hnsw.iterative_scan = strict_order"
            ))
            .map_err(|e| pg_err("setting the vector search", e))?;
            let dim = vector.len();
            let mut params = Params::default();
            let condition = filter_sql(filter, &mut params);
            let probe = params.push(Vector::from(vector.to_vec()));
            let limit = params.push(i64::try_from(limit).unwrap_or(i64::MAX));
            let sql = format!(
                "SELECT m.id, {FACTOR_COLUMNS}, \
                        (m.embedding::vector({dim}) <=> {probe}::vector({dim})) AS distance \
                 FROM memories m WHERE vector_dims(m.embedding) = {dim} AND {condition} \
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
        })
    }

    fn record_access(&self, tenant: &str, ids: &[MemoryId], at: Timestamp) -> Result<()> {
        if ids.is_empty() {
            return Ok(());
        }
        let ids: Vec<Uuid> = ids.iter().map(|id| id.0).collect();
        self.db.tx(Scope::Tenant(tenant), |tx| {
            tx.execute(
                "UPDATE memories m SET access_count = m.access_count + q.n, \
                 last_accessed_at = $3 \
                 FROM (SELECT id, count(*) AS n FROM unnest($2::uuid[]) AS id GROUP BY id) q \
                 WHERE m.tenant = $1 AND m.id = q.id",
                &[&tenant, &ids, &at],
            )
            .map_err(|e| pg_err("recording accesses", e))?;
            Ok(())
        })
    }

    fn tenants(&self) -> Result<Vec<String>> {
        let rows = self.db.tx(Scope::Every, |tx| {
            tx.query(
                "SELECT tenant FROM memories GROUP BY tenant ORDER BY tenant COLLATE \"C\"",
                &[],
            )
            .map_err(|e| pg_err("listing tenants", e))
        })?;
        rows.iter().map(|row| get(row, 0)).collect()
    }

    fn stats(&self, tenant: &str, now: Timestamp) -> Result<StoreStats> {
        self.db.tx(Scope::Tenant(tenant), |tx| {
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

    fn verify(&self) -> Result<()> {
        self.db.tx(Scope::Unscoped, |tx| {
            tx.batch_execute("SELECT 1")
                .map_err(|e| pg_err("checking the connection", e))
        })
    }

    fn histories(&self, tenant: &str, ids: &[MemoryId]) -> Result<Vec<Vec<Version>>> {
        let wanted: Vec<Uuid> = ids.iter().map(|id| id.0).collect();
        let rows = self.db.tx(Scope::Tenant(tenant), |tx| {
            tx.query(
                "SELECT memory_id, number, kind, actor, reason, at, memory FROM versions \
                 WHERE tenant = $1 AND memory_id = ANY($2) ORDER BY memory_id, number",
                &[&tenant, &wanted],
            )
            .map_err(|e| pg_err("reading histories", e))
        })?;
        let mut by_id: std::collections::HashMap<Uuid, Vec<Version>> = Default::default();
        for row in &rows {
            let number: i32 = get(row, 1)?;
            let kind: String = get(row, 2)?;
            let memory: String = get(row, 6)?;
            by_id.entry(get(row, 0)?).or_default().push(Version {
                number: number.max(0) as u32,
                kind: kind.parse()?,
                actor: get(row, 3)?,
                reason: get(row, 4)?,
                at: get(row, 5)?,
                memory: serde_json::from_str(&memory)
                    .map_err(|e| Error::storage_from("a stored version is not JSON", e))?,
            });
        }
        Ok(wanted
            .iter()
            .map(|id| by_id.get(id).cloned().unwrap_or_default())
            .collect())
    }

    fn every_tenant(&self) -> Result<Vec<String>> {
        let rows = self.db.tx(Scope::Every, |tx| {
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

    fn restore(&self, batch: cairn_core::Restore) -> Result<()> {
        if batch.memories.is_empty() && batch.receipts.is_empty() {
            return Ok(());
        }
        self.db.tx(Scope::Every, |tx| {
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
                         ON CONFLICT (id) DO UPDATE SET tenant = excluded.tenant, \
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

    fn begin_bulk(&self, rows: usize) -> Result<()> {
        use std::sync::atomic::Ordering;
        if self.index_deferred.load(Ordering::SeqCst) {
            return Ok(());
        }
        let dropped = self.db.tx(Scope::Every, |tx| {
            let Some(model) = read_model(tx)? else {
                return Ok(false);
            };
            let stored: i64 = tx
                .query_one("SELECT count(*) FROM memories", &[])
                .and_then(|r| r.try_get(0))
                .map_err(|e| pg_err("counting memories", e))?;
            // Building the index over everything costs less than inserting
            // this many rows into it only when the store is smaller.
            if usize::try_from(stored).unwrap_or(usize::MAX) >= rows {
                return Ok(false);
            }
            self.db.as_owner(tx)?;
            tx.batch_execute(&format!("DROP INDEX IF EXISTS memories_hnsw_{}", model.dim))
                .map_err(|e| pg_err("dropping the vector index for a bulk load", e))?;
            Ok(true)
        })?;
        self.index_deferred.store(dropped, Ordering::SeqCst);
        Ok(())
    }

    fn end_bulk(&self) -> Result<()> {
        use std::sync::atomic::Ordering;
        if self.index_deferred.swap(false, Ordering::SeqCst) {
            self.ensure_vector_index()?;
        }
        // Fresh statistics, so that the planner does not take a store just
        // loaded for the empty one it last sampled (autovacuum's analyze
        // comes later, if at all before the first queries).
        self.db.tx(Scope::Unscoped, |tx| {
            self.db.as_owner(tx)?;
            tx.batch_execute("ANALYZE memories, versions")
                .map_err(|e| pg_err("analysing the loaded tables", e))
        })
    }

    fn key_store(&self) -> &dyn KeyStore {
        &self.keys
    }

    fn collections(&self) -> &dyn cairn_core::collections::CollectionStore {
        &self.threads
    }
}

#[cfg(test)]
mod tests {
    use super::split_schema;

    #[test]
    fn the_schema_parameter_is_taken_out_of_the_url() {
        let url = "postgres://cairn@db/cairn";
        assert_eq!(split_schema(url), (url.to_string(), None));
        assert_eq!(
            split_schema("postgres://cairn@db/cairn?schema=team_a"),
            (url.to_string(), Some("team_a".to_string()))
        );
        assert_eq!(
            split_schema("postgres://db/c?sslmode=disable&schema=s1&connect_timeout=2"),
            (
                "postgres://db/c?sslmode=disable&connect_timeout=2".to_string(),
                Some("s1".to_string())
            )
        );
    }
}
