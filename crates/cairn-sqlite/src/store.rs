//! [`SqliteStore`]: opening the file, and the [`Store`] implementation
//! (its reading, writing and maintenance roles) over the other modules.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::Duration;

use cairn_core::history::{Change, ChangeKind, Deletion, DeletionReceipt, Version};
use cairn_core::packing::Packed;
use cairn_core::store::{
    keyword_terms, Filter, ListOrder, Maintenance, Reading, ScopeFilter, StoreStats, TenantsWith,
    TermRarity, WriteBatch, Writing,
};
use cairn_core::{
    Error, Hit, Inserted, Memory, MemoryId, ModelInfo, RankFactors, Result, Store, StoreCaches,
    Timestamp,
};
use rusqlite::types::Value;
use rusqlite::{
    params, params_from_iter, Connection, OpenFlags, OptionalExtension, TransactionBehavior,
};

use crate::checkpoint::{truncate_wal, wal_left, Checkpointer};
use crate::keyword_index::{fts_token, KeywordIndex};
use crate::readers::{reader_count, Reader, Readers};
use crate::vector_index::VectorIndex;

use crate::schema;
use crate::sql::*;
use crate::sync::*;
use crate::write::*;

mod indexes;

/// How long a writer waits for another process's write to finish.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// SQLite page cache per connection, in KiB (SQLite's default is 2 MiB).
/// Recall touches a few thousand scattered pages at 100,000 memories (FTS5
/// doclists, document sizes, rows); with the default cache each was a
/// `pread`, the largest single cost of a keyword search. A memory map
/// would do as well but makes every page read count as resident memory.
pub const CACHE_KIB: i64 = 64 * 1024;

/// The dimension the vector index reserves room for before its first load
/// (all-MiniLM-L6-v2's; another model only costs a reallocation).
pub(crate) const EXPECTED_DIM: usize = 384;

/// Below this many memories a store keeps no snapshot of its vector index
/// (see [`StoreCaches::save_caches`]): decoding that few rows is quick.
pub const SNAPSHOT_MIN_ENTRIES: usize = 10_000;

/// Most distinct terms taken from one keyword query.
pub const MAX_QUERY_TERMS: usize = 64;

/// Keyword-query pruning: above this many memories, query terms are taken
/// rarest first while their document frequencies add up to at most
/// [`MAX_KEYWORD_POSTINGS`] (the rarest term is always kept).
///
/// FTS5 computes BM25 for every matching row, so a term found in 40% of
/// 100,000 memories costs 40,000 scorings per query. Such a term has
/// an IDF of about ln 2.5 ≈ 0.9 against 7–11 for a rare one: it barely moves
/// the ranking, and leaving it out keeps recall within its latency budget.
pub const PRUNE_ABOVE_DOCS: i64 = 5_000;
/// See [`PRUNE_ABOVE_DOCS`].
pub const MAX_KEYWORD_POSTINGS: i64 = 3_000;

/// Document frequencies of query terms, counted with FTS5 and cached until
/// the store's size drifts by more than 2%.
#[derive(Default)]
struct DfCache {
    docs: i64,
    df: HashMap<String, i64>,
}

/// Temporary tables of a connection that feeds the keyword index: the
/// occurrences in `memories_fts`, and a scratch FTS5 table with the same
/// tokenizer that turns text written since, or query terms, into FTS5's
/// tokens.
pub(crate) const KEYWORD_TEMP_TABLES: &str = "\
    CREATE VIRTUAL TABLE IF NOT EXISTS temp.cairn_fts_instances USING fts5vocab(main, memories_fts, instance);
    CREATE VIRTUAL TABLE IF NOT EXISTS temp.cairn_tok USING fts5 (
        content, tags, metadata, content = '', contentless_delete = 1,
        tokenize = 'porter unicode61 remove_diacritics 2');
    CREATE VIRTUAL TABLE IF NOT EXISTS temp.cairn_tok_instances USING fts5vocab(temp, cairn_tok, instance);";

/// Write batches of at least this many memories leave WAL checkpoints to
/// the checkpoint thread (see `checkpoint.rs`).
pub const BULK_WRITE: usize = 1_000;

/// SQLite's default automatic checkpoint threshold, in WAL pages.
const AUTOCHECKPOINT_PAGES: i64 = 1_000;

/// A [`Store`] in one SQLite file.
pub struct SqliteStore {
    path: PathBuf,
    /// Before `conn`: dropping it waits for a running checkpoint, so that
    /// the connection closes on a checkpointed file.
    checkpointer: Checkpointer,
    conn: Mutex<Connection>,
    /// Read-only connections beside the writer (`conn`), so that reads run
    /// in parallel with each other and with a write.
    readers: Readers,
    index: RwLock<VectorIndex>,
    /// `None` until [`StoreCaches::preload`] builds it.
    keywords: RwLock<Option<KeywordIndex>>,
    /// FTS5's token for query terms (`None`: not exactly one token).
    term_tokens: Mutex<HashMap<String, Option<Box<str>>>>,
    df_cache: Mutex<DfCache>,
    /// `vindex` rows this process decoded into its vector index since it
    /// loaded or saved a snapshot: what a new process would decode too.
    decoded: AtomicUsize,
    /// Entries from which the vector index is partitioned.
    partition_at: AtomicUsize,
}

impl SqliteStore {
    /// Open the store at `path`, which must exist (a read must never
    /// create a store).
    pub fn open_existing(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        if !path.exists() {
            return Err(Error::invalid(format!(
                "no store at {}: check the path (a store is created by the first write, such as `cairn remember`)",
                path.display()
            )));
        }
        Self::open(path)
    }

    /// Open (creating if needed) the store at `path`, migrating it to the
    /// current schema. Parent directories are created.
    ///
    /// Processes that create or migrate the same new store at once (`cairn
    /// serve` and `cairn keys create`, say) wait for each other: a step
    /// that finds the file locked is retried, the whole opening taking at
    /// most [`BUSY_TIMEOUT`], after which the error is
    /// [`Error::Unavailable`] (retry later), never a storage fault.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let deadline = std::time::Instant::now() + BUSY_TIMEOUT;
        let mut pause = std::time::Duration::from_millis(5);
        loop {
            match Self::open_once(path) {
                Err(e)
                    if e.kind() == cairn_core::ErrorKind::Unavailable
                        && std::time::Instant::now() + pause < deadline =>
                {
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(std::time::Duration::from_millis(200));
                }
                done => return done,
            }
        }
    }

    fn open_once(path: &Path) -> Result<Self> {
        let path = path.to_path_buf();
        if path.is_dir() {
            return Err(Error::storage(format!(
                "cannot open {}: it is a directory; name the store file (such as {})",
                path.display(),
                path.join("cairn.db").display()
            )));
        }
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            create_private_dir(parent).map_err(|e| {
                Error::storage_from(format!("cannot create directory {}", parent.display()), e)
            })?;
        }
        create_private_file(&path)
            .map_err(|e| Error::storage_from(format!("cannot create {}", path.display()), e))?;
        let conn = Connection::open(&path)
            .map_err(|e| Error::storage(format!("cannot open {}: {e}", path.display())))?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(sql_err)?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(|e| match e.sqlite_error_code() {
                Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked) => {
                    sql_err(e)
                }
                _ => Error::storage(format!(
                    "{} is not a usable SQLite database: {e}",
                    path.display()
                )),
            })?;
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(sql_err)?;
        conn.pragma_update(None, "foreign_keys", "ON")
            .map_err(sql_err)?;
        conn.pragma_update(None, "cache_size", -CACHE_KIB)
            .map_err(sql_err)?;
        // What is deleted is overwritten, not only unlinked: a forgotten
        // memory's text must not stay readable in the file.
        conn.pragma_update(None, "secure_delete", "ON")
            .map_err(sql_err)?;
        let store = SqliteStore {
            checkpointer: Checkpointer::new(path.clone()),
            readers: Readers::new(path.clone(), reader_count()),
            path,
            conn: Mutex::new(conn),
            index: RwLock::new(VectorIndex::default()),
            keywords: RwLock::new(None),
            term_tokens: Mutex::new(HashMap::new()),
            df_cache: Mutex::new(DfCache::default()),
            decoded: AtomicUsize::new(0),
            partition_at: AtomicUsize::new(crate::vector_index::PARTITION_AT),
        };
        store.migrate()?;
        if wal_left(&store.path) {
            truncate_wal(&*store.conn()?);
        }
        Ok(store)
    }

    /// Partition the vector index from `entries` memories on instead of
    /// [`PARTITION_AT`](crate::vector_index::PARTITION_AT) (its recall and
    /// speed are measured with this); takes effect at the next load or
    /// write.
    pub fn set_partition_at(&self, entries: usize) {
        self.partition_at.store(entries, Ordering::Relaxed);
    }

    /// The file this store lives in.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The one writing connection.
    pub(crate) fn conn(&self) -> Result<MutexGuard<'_, Connection>> {
        self.conn
            .lock()
            .map_err(|_| Error::storage("connection lock poisoned"))
    }

    /// A read-only connection of the pool.
    pub(crate) fn reader(&self) -> Result<Reader<'_>> {
        self.readers.get()
    }

    fn migrate(&self) -> Result<()> {
        let mut conn = self.conn()?;
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql_err)?;
        let version: i64 = tx
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .map_err(sql_err)?;
        let version = usize::try_from(version).unwrap_or(usize::MAX);
        if version > schema::MIGRATIONS.len() {
            return Err(Error::storage(format!(
                "{} was written by a newer Cairn (schema {version}; this build knows {}): upgrade Cairn",
                self.path.display(),
                schema::MIGRATIONS.len()
            )));
        }
        for (i, sql) in schema::MIGRATIONS.iter().enumerate().skip(version) {
            tx.execute_batch(sql)
                .map_err(|e| match e.sqlite_error_code() {
                    Some(
                        rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked,
                    ) => sql_err(e),
                    _ => Error::storage(format!("migration {} failed: {e}", i + 1)),
                })?;
            tx.pragma_update(None, "user_version", (i + 1) as i64)
                .map_err(sql_err)?;
        }
        // After the last migration, whose columns the indexing reads.
        if version < schema::KEYWORDS_REFILLED_BY {
            index_all_keywords(&tx)?;
        }
        tx.commit().map_err(sql_err)
    }

    /// Save a snapshot of the vector index in the file (see
    /// [`vector_index`](crate::vector_index)'s `snapshot` module), replacing the previous one: new
    /// processes then load the index from it and catch up from its
    /// revisions instead of decoding every row. The index is first brought
    /// up to the store's revisions inside the same write transaction, so
    /// the snapshot is exactly what they say. It writes the whole index, so
    /// [`StoreCaches::save_caches`] calls it after bulk work, when it pays
    /// off, never per write.
    pub fn save_index_snapshot(&self) -> Result<()> {
        let mut conn = self.conn()?;
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql_err)?;
        self.sync_index(&tx, current_revs(&tx)?)?;
        let parts = self.vector_index()?.snapshot();
        tx.execute("DELETE FROM vsnap", []).map_err(sql_err)?;
        {
            let mut insert = tx
                .prepare_cached("INSERT INTO vsnap (part, data) VALUES (?1, ?2)")
                .map_err(sql_err)?;
            for (i, part) in parts.iter().enumerate() {
                insert.execute(params![i as i64, part]).map_err(sql_err)?;
            }
        }
        tx.commit().map_err(sql_err)?;
        self.decoded.store(0, Ordering::Relaxed);
        Ok(())
    }

    /// Wait until the checkpoints bulk writes left to the checkpoint
    /// thread are done (the store also waits when it is dropped).
    pub fn wait_for_checkpoints(&self) {
        self.checkpointer.wait();
    }

    /// `PRAGMA integrity_check`: `"ok"` for a healthy file.
    pub fn integrity_check(&self) -> Result<String> {
        let conn = self.conn()?;
        let rows: Vec<String> = conn
            .prepare("PRAGMA integrity_check")
            .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
            .map_err(sql_err)?;
        Ok(rows.join("\n"))
    }

    /// Rows in the in-memory keyword index, `None` until [`StoreCaches::preload`]
    /// has built it (keyword search then uses FTS5).
    pub fn keyword_index_rows(&self) -> Result<Option<usize>> {
        Ok(self.keywords()?.as_ref().map(KeywordIndex::rows))
    }
}

/// A store closed cleanly leaves no write-ahead log behind (see
/// `truncate_wal`).
impl Drop for SqliteStore {
    fn drop(&mut self) {
        self.checkpointer.wait();
        if let Ok(conn) = self.conn.get_mut() {
            truncate_wal(conn);
        }
    }
}

impl Store for SqliteStore {
    fn maintenance(&self) -> &dyn Maintenance {
        self
    }

    fn key_store(&self) -> &dyn cairn_core::keys::KeyStore {
        self
    }

    fn collections(&self) -> &dyn cairn_core::collections::CollectionStore {
        self
    }

    fn shared(&self) -> &dyn cairn_core::shared::SharedState {
        self
    }

    fn oauth_store(&self) -> &dyn cairn_core::oauth::OAuthStore {
        self
    }
}

impl Reading for SqliteStore {
    fn model(&self) -> Result<Option<ModelInfo>> {
        recorded_model(&*self.reader()?)
    }

    fn histories(&self, tenant: &str, ids: &[MemoryId]) -> Result<Vec<Vec<Version>>> {
        let conn = self.reader()?;
        let mut stmt = conn.prepare_cached(&history_sql()).map_err(sql_err)?;
        ids.iter()
            .map(|id| {
                let rows: Vec<Result<Version>> = stmt
                    .query_map(params![id.to_string(), tenant], |r| {
                        let memory = row_to_memory(r)?;
                        // The version's own columns follow the memory's.
                        let n = MEMORY_COLUMN_COUNT;
                        let change: String = r.get(n + 1)?;
                        let (number, actor, reason, at) =
                            (r.get(n)?, r.get(n + 2)?, r.get(n + 3)?, r.get(n + 4)?);
                        Ok(memory.and_then(|memory| {
                            Ok(Version {
                                number,
                                kind: change.parse()?,
                                actor,
                                reason,
                                at,
                                memory,
                            })
                        }))
                    })
                    .and_then(|rows| rows.collect())
                    .map_err(sql_err)?;
                rows.into_iter().collect()
            })
            .collect()
    }

    fn receipts(&self, tenant: &str, prefix: &str, limit: usize) -> Result<Vec<DeletionReceipt>> {
        let conn = self.reader()?;
        let upper = format!("{prefix}~");
        let rows: Vec<(String, String, String, i64, i64)> = conn
            .prepare_cached(
                "SELECT id, actor, reason, deleted_at, versions FROM deletions \
                 WHERE tenant = ?1 AND id >= ?2 AND id < ?3 ORDER BY id LIMIT ?4",
            )
            .and_then(|mut s| {
                s.query_map(
                    params![
                        tenant,
                        prefix,
                        upper,
                        i64::try_from(limit).unwrap_or(i64::MAX)
                    ],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
                )?
                .collect()
            })
            .map_err(sql_err)?;
        rows.into_iter()
            .map(|(id, actor, reason, at, versions)| {
                Ok(DeletionReceipt {
                    id: id.parse()?,
                    tenant: tenant.to_string(),
                    deletion: Deletion { actor, reason, at },
                    versions: versions.max(0) as usize,
                })
            })
            .collect()
    }

    fn get(&self, tenant: &str, ids: &[MemoryId]) -> Result<Vec<Memory>> {
        let conn = self.reader()?;
        let tx = read_transaction(&conn, ids.len())?;
        let mut stmt = conn
            .prepare_cached(&format!(
                "SELECT {MEMORY_COLUMNS} FROM memories m WHERE m.id = ?1 AND m.tenant = ?2"
            ))
            .map_err(sql_err)?;
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            if let Some(m) = stmt
                .query_row(params![id.to_string(), tenant], row_to_memory)
                .optional()
                .map_err(sql_err)?
            {
                out.push(m?);
            }
        }
        drop(stmt);
        end_read(tx)?;
        Ok(out)
    }

    fn find_by_prefix(&self, tenant: &str, prefix: &str, limit: usize) -> Result<Vec<MemoryId>> {
        let conn = self.reader()?;
        let upper = format!("{prefix}~");
        let ids: Vec<String> = conn
            // `+tenant`: keep the planner on the id index (a range seek), not
            // the tenant index (a scan of every memory of the tenant).
            .prepare_cached("SELECT id FROM memories WHERE id >= ?1 AND id < ?2 AND +tenant = ?3 ORDER BY id LIMIT ?4")
            .and_then(|mut s| {
                s.query_map(params![prefix, upper, tenant, limit as i64], |r| r.get(0))?.collect()
            })
            .map_err(sql_err)?;
        ids.iter().map(|s| s.parse()).collect()
    }

    fn id_neighbours(
        &self,
        tenant: &str,
        ids: &[MemoryId],
    ) -> Result<Vec<(Option<MemoryId>, Option<MemoryId>)>> {
        let conn = self.reader()?;
        let mut stmt = conn.prepare_cached(NEIGHBOURS_SQL).map_err(sql_err)?;
        ids.iter()
            .map(|id| {
                let (before, after): (Option<String>, Option<String>) = stmt
                    .query_row(params![id.to_string(), tenant], |r| {
                        Ok((r.get(0)?, r.get(1)?))
                    })
                    .map_err(sql_err)?;
                Ok((
                    before.map(|s| s.parse()).transpose()?,
                    after.map(|s| s.parse()).transpose()?,
                ))
            })
            .collect()
    }

    fn embeddings(&self, tenant: &str, ids: &[MemoryId]) -> Result<Vec<Option<Vec<f32>>>> {
        let conn = self.reader()?;
        let mut stmt = conn.prepare_cached(EMBEDDING_SQL).map_err(sql_err)?;
        ids.iter()
            .map(|id| {
                let blob: Option<Option<Vec<u8>>> = stmt
                    .query_row(params![id.to_string(), tenant], |r| r.get(0))
                    .optional()
                    .map_err(sql_err)?;
                Ok(blob.flatten().map(|b| blob_vector(&b)))
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
        let conn = self.reader()?;
        let (sql, mut args) = list_sql(filter, order);
        args.push(Value::Integer(i64::try_from(limit).unwrap_or(i64::MAX)));
        args.push(Value::Integer(i64::try_from(offset).unwrap_or(i64::MAX)));
        let rows: Vec<Result<Memory>> = conn
            .prepare_cached(&sql)
            .and_then(|mut s| {
                s.query_map(params_from_iter(args), row_to_memory)?
                    .collect()
            })
            .map_err(sql_err)?;
        rows.into_iter().collect()
    }

    fn count(&self, filter: &Filter) -> Result<usize> {
        let conn = self.reader()?;
        let (cond, args) = filter_sql(filter);
        let n: i64 = conn
            .prepare_cached(&format!("SELECT COUNT(*) FROM memories m WHERE {cond}"))
            .and_then(|mut s| s.query_row(params_from_iter(args), |r| r.get(0)))
            .map_err(sql_err)?;
        Ok(n as usize)
    }

    fn keyword_search(&self, query: &str, filter: &Filter, limit: usize) -> Result<Vec<Hit>> {
        let mut terms = keyword_terms(query);
        terms.truncate(MAX_QUERY_TERMS);
        if let Some(hits) = self.keyword_search_in_memory(&terms, filter, limit)? {
            return Ok(hits);
        }
        let conn = self.reader()?;
        let terms = self.prune_terms(&conn, terms)?;
        let Some(fts) = fts_query(&terms) else {
            return Ok(Vec::new());
        };
        let (cond, filter_args) = filter_sql(filter);
        let mut args = vec![Value::Text(fts)];
        args.extend(filter_args);
        args.push(Value::Integer(limit as i64));
        let [content, tags, metadata] = cairn_core::rank::BM25_FIELD_WEIGHTS;
        let sql = format!(
            "SELECT m.id, bm25(memories_fts, {content:?}, {tags:?}, {metadata:?}) AS s, \
             {ROW_FACTORS} FROM memories_fts JOIN memories m ON m.rowid = memories_fts.rowid \
             WHERE memories_fts MATCH ? AND {cond} ORDER BY s ASC, m.id DESC LIMIT ?"
        );
        let rows: Vec<(String, f64, RankFactors)> = conn
            .prepare_cached(&sql)
            .and_then(|mut s| {
                s.query_map(params_from_iter(args), |r| {
                    Ok((r.get(0)?, r.get(1)?, row_factors(r, 2)?))
                })?
                .collect()
            })
            .map_err(sql_err)?;
        rows.into_iter()
            .map(|(id, s, factors)| {
                Ok(Hit {
                    id: id.parse()?,
                    score: -s,
                    factors,
                })
            })
            .collect()
    }

    fn keyword_rarity(&self, query: &str) -> Result<Option<TermRarity>> {
        let mut terms = keyword_terms(query);
        terms.truncate(MAX_QUERY_TERMS);
        // The in-memory keyword index's counts when it is built (no FTS5
        // count, no lock held across reads), else FTS5's.
        let (docs, counted) = match self.document_frequencies_in_memory(&terms)? {
            Some(known) => known,
            None => {
                let conn = self.reader()?;
                let docs = meta_int(&conn, "docs")?;
                (docs, self.document_frequencies(&conn, terms, docs)?)
            }
        };
        let pruned = docs > PRUNE_ABOVE_DOCS && counted.len() >= 2;
        // The terms keyword search scores: the rarest, past the pruning
        // threshold.
        let kept = match pruned {
            true => rarest_within(counted.clone(), MAX_KEYWORD_POSTINGS),
            false => counted.iter().map(|(_, t)| t.clone()).collect(),
        };
        let (rows_with_term, terms) = counted
            .into_iter()
            .filter(|(_, t)| kept.contains(t))
            .map(|(n, t)| (n as f64, t))
            .unzip();
        Ok(Some(TermRarity {
            rows: docs as f64,
            terms,
            rows_with_term,
        }))
    }

    fn vector_search(&self, vector: &[f32], filter: &Filter, limit: usize) -> Result<Vec<Hit>> {
        Ok(self.vector_index_for(vector)?.search(vector, filter, limit))
    }

    fn vector_search_exact(
        &self,
        vector: &[f32],
        filter: &Filter,
        limit: usize,
    ) -> Result<Vec<Hit>> {
        Ok(self
            .vector_index_for(vector)?
            .search_exact(vector, filter, limit))
    }

    fn tenants(&self, with: TenantsWith) -> Result<Vec<String>> {
        let conn = self.reader()?;
        conn.prepare(match with {
            TenantsWith::Memories => "SELECT DISTINCT tenant FROM memories ORDER BY tenant",
            TenantsWith::Anything => EVERY_TENANT_SQL,
        })
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .map_err(sql_err)
    }

    fn stats(&self, tenant: &str, now: Timestamp) -> Result<StoreStats> {
        let conn = self.reader()?;
        let q = |sql: &str| -> Result<Vec<(Option<String>, usize)>> {
            conn.prepare(sql)
                .and_then(|mut s| {
                    s.query_map([tenant], |r| Ok((r.get(0)?, r.get::<_, i64>(1)? as usize)))?
                        .collect()
                })
                .map_err(sql_err)
        };
        let by_type =
            q("SELECT kind, COUNT(*) FROM memories WHERE tenant = ?1 GROUP BY kind ORDER BY kind")?
                .into_iter()
                .map(|(k, n)| (k.unwrap_or_default(), n))
                .collect();
        let by_project = q("SELECT project, COUNT(*) FROM memories WHERE tenant = ?1 GROUP BY project ORDER BY project")?;
        let (total, expired, superseded, oldest, newest): (i64, i64, i64, Option<i64>, Option<i64>) = conn
            .query_row(
                "SELECT COUNT(*), COALESCE(SUM(expires_at IS NOT NULL AND expires_at <= ?2), 0), \
                 COALESCE(SUM(superseded_by IS NOT NULL), 0), MIN(created_at), MAX(created_at) FROM memories WHERE tenant = ?1",
                params![tenant, now],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
            )
            .map_err(sql_err)?;
        let pages: i64 = conn
            .query_row("PRAGMA page_count", [], |r| r.get(0))
            .map_err(sql_err)?;
        let page_size: i64 = conn
            .query_row("PRAGMA page_size", [], |r| r.get(0))
            .map_err(sql_err)?;
        Ok(StoreStats {
            total: total as usize,
            expired: expired as usize,
            superseded: superseded as usize,
            by_type,
            by_project,
            oldest,
            newest,
            size_bytes: Some((pages * page_size) as u64),
        })
    }
}

impl Writing for SqliteStore {
    fn set_model(&self, model: &ModelInfo) -> Result<()> {
        let mut conn = self.conn()?;
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql_err)?;
        for (k, v) in [
            ("model_name", model.name.clone()),
            ("model_dim", model.dim.to_string()),
        ] {
            tx.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)",
                [k, &v],
            )
            .map_err(sql_err)?;
        }
        // A snapshot holds the old model's vectors.
        tx.execute("DELETE FROM vsnap", []).map_err(sql_err)?;
        tx.commit().map_err(sql_err)
    }

    fn write(&self, batch: WriteBatch) -> Result<()> {
        if batch.is_empty() {
            return Ok(());
        }
        let mut conn = self.conn()?;
        let vectors = batch.inserts.iter().map(|(_, v)| Some(v));
        let vectors = vectors.chain(batch.updates.iter().map(|(_, v)| v.as_ref()));
        if let Some(first) = vectors.flatten().next() {
            // One model's vectors all have its dimension: the first decides
            // for the batch, the others are checked as they are written.
            check_vector(&conn, first)?;
        }
        if batch.inserts.len() + batch.updates.len() < BULK_WRITE {
            return write_batch(&mut conn, batch);
        }
        // A bulk write: its commit does not checkpoint; the checkpoint
        // thread does, while the caller goes on.
        conn.pragma_update(None, "wal_autocheckpoint", 0)
            .map_err(sql_err)?;
        let written = write_batch(&mut conn, batch);
        let restored = conn
            .pragma_update(None, "wal_autocheckpoint", AUTOCHECKPOINT_PAGES)
            .map_err(sql_err);
        written?;
        restored?;
        self.checkpointer.request();
        Ok(())
    }

    fn delete(&self, tenant: &str, ids: &[MemoryId], deletion: &Deletion) -> Result<usize> {
        let mut conn = self.conn()?;
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql_err)?;
        let mut rowids = Vec::new();
        for id in ids {
            let r: Option<i64> = tx
                .prepare_cached("SELECT rowid FROM memories WHERE id = ?1 AND tenant = ?2")
                .and_then(|mut s| {
                    s.query_row(params![id.to_string(), tenant], |r| r.get(0))
                        .optional()
                })
                .map_err(sql_err)?;
            rowids.extend(r);
        }
        rowids.sort_unstable();
        rowids.dedup();
        if !rowids.is_empty() {
            let rev = bump(&tx, "rev")?;
            delete_rows(&tx, &rowids, rev, deletion)?;
        }
        tx.commit().map_err(sql_err)?;
        if !rowids.is_empty() {
            truncate_wal(&conn);
        }
        Ok(rowids.len())
    }

    fn insert_unless_duplicate(
        &self,
        memory: Memory,
        vector: Vec<f32>,
        threshold: f32,
        actor: &str,
    ) -> Result<Inserted> {
        let mut conn = self.conn()?;
        check_vector(&conn, &vector)?;
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql_err)?;
        // Inside the write lock: what other writers committed is in the
        // index once it caught up, and nobody writes until this commits.
        self.sync_index(&tx, current_revs(&tx)?)?;
        let mut filter = Filter::new(&memory.tenant, memory.created_at)
            .scope(ScopeFilter::Exactly(memory.project.clone()));
        filter.types = vec![memory.kind];
        // Its own slot only; for a memory in none, every slot of the
        // tenant left out.
        match &memory.slot {
            Some(slot) => filter.slots = vec![slot.clone()],
            None => {
                filter.hidden_slots = tx
                    .prepare_cached(
                        "SELECT DISTINCT slot FROM memories WHERE tenant = ?1 AND slot IS NOT NULL",
                    )
                    .and_then(|mut s| s.query_map([&memory.tenant], |r| r.get(0))?.collect())
                    .map_err(sql_err)?
            }
        }
        let hits = self.vector_index()?.search_exact(&vector, &filter, 8);
        let mut best: Option<(MemoryId, f32)> = None;
        {
            let mut stmt = tx.prepare_cached(EMBEDDING_SQL).map_err(sql_err)?;
            for hit in hits {
                let blob: Option<Option<Vec<u8>>> = stmt
                    .query_row(params![hit.id.to_string(), memory.tenant], |r| r.get(0))
                    .optional()
                    .map_err(sql_err)?;
                if let Some(stored) = blob.flatten() {
                    let sim = cairn_core::rank::cosine(&vector, &blob_vector(&stored));
                    if sim >= threshold && best.is_none_or(|(_, b)| sim > b) {
                        best = Some((hit.id, sim));
                    }
                }
            }
        }
        if let Some((id, similarity)) = best {
            return Ok(Inserted::Duplicate { id, similarity });
        }
        let rev = bump(&tx, "rev")?;
        let rowid = RowWriter::new(&tx, rev)?.write(&memory, None, Some(&vector))?;
        add_docs(&tx, 1)?;
        let created = Change::new(memory.id, ChangeKind::Created, actor, memory.updated_at);
        record_version(&tx, rowid, true, &created)?;
        tx.commit().map_err(sql_err)?;
        Ok(Inserted::New)
    }

    fn record_access(&self, tenant: &str, ids: &[MemoryId], at: Timestamp) -> Result<()> {
        let batch = [cairn_core::Access {
            tenant: tenant.to_string(),
            ids: ids.to_vec(),
            at,
        }];
        crate::access::record(&mut *self.conn()?, &batch)
    }

    fn record_accesses(&self, batch: &[cairn_core::Access]) -> Result<()> {
        crate::access::record(&mut *self.conn()?, batch)
    }

    fn restore(&self, batch: cairn_core::Restore) -> Result<()> {
        if batch.memories.is_empty() && batch.receipts.is_empty() {
            return Ok(());
        }
        let mut conn = self.conn()?;
        crate::write::restore_batch(&mut conn, batch)?;
        self.checkpointer.request();
        Ok(())
    }
}

impl Maintenance for SqliteStore {
    fn delete_expired(&self, now: Timestamp) -> Result<usize> {
        let mut conn = self.conn()?;
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql_err)?;
        let rowids: Vec<i64> = tx
            .prepare("SELECT rowid FROM memories WHERE expires_at IS NOT NULL AND expires_at <= ?1")
            .and_then(|mut s| s.query_map([now], |r| r.get(0))?.collect())
            .map_err(sql_err)?;
        if !rowids.is_empty() {
            let rev = bump(&tx, "rev")?;
            delete_rows(&tx, &rowids, rev, &Deletion::expired(now))?;
        }
        tx.commit().map_err(sql_err)?;
        if !rowids.is_empty() {
            truncate_wal(&conn);
        }
        Ok(rowids.len())
    }

    fn pack_contents(&self, tenant: &str, ids: &[MemoryId], pack: bool) -> Result<Vec<Packed>> {
        crate::packing::pack_contents(&mut *self.conn()?, tenant, ids, pack)
    }

    fn caches(&self) -> Option<&dyn StoreCaches> {
        Some(self)
    }

    fn snapshot_into(&self, path: &Path) -> Result<bool> {
        let target = path
            .to_str()
            .ok_or_else(|| Error::invalid(format!("{}: the path is not UTF-8", path.display())))?;
        // A read transaction of its own: the copy is the store at one
        // instant, while other connections (processes) go on writing.
        self.conn()?
            .execute("VACUUM INTO ?1", [target])
            .map_err(|e| Error::storage(format!("cannot copy into {target}: {e}")))?;
        Ok(true)
    }

    fn verify(&self) -> Result<()> {
        match self.integrity_check()?.as_str() {
            "ok" => Ok(()),
            damage => Err(Error::storage(format!(
                "{} is damaged: {damage}",
                self.path.display()
            ))),
        }
    }
}

#[cfg(test)]
mod tests;
