//! [`PostgresStore`]: the [`Store`] implementation, over the pool of
//! `db.rs`. Its reads are in `read.rs`, its writes in `write.rs`, its
//! model and vector search in `vector.rs`, its keyword side in
//! `keyword.rs`, bulk loads in `bulk.rs`, its keys in `keys.rs`.

use std::sync::atomic::{AtomicBool, Ordering};

use cairn_core::history::{Deletion, DeletionReceipt, Version};
use cairn_core::keys::KeyStore;
use cairn_core::packing::Packed;
use cairn_core::store::{
    Filter, Hit, Inserted, ListOrder, Maintenance, Reading, StoreStats, TenantsWith, TermRarity,
    Writing,
};
use cairn_core::{ErrorKind, Memory, MemoryId, ModelInfo, Result, Store, Timestamp, WriteBatch};
use uuid::Uuid;

use crate::collections::PgCollections;
use crate::db::{Connect, Db, Scope};
use crate::keys::PgKeys;
use crate::oauth::PgOAuth;
use crate::options::{resolve, PostgresOptions};
use crate::shared::PgShared;
use crate::sql::pg_err;
use crate::write::delete_where;
use crate::{bulk, keyword, read, vector, write};

/// A Cairn store in a PostgreSQL database (with pgvector).
pub struct PostgresStore {
    db: Db,
    keys: PgKeys,
    threads: PgCollections,
    shared: PgShared,
    oauth: PgOAuth,
    /// Whether this process dropped the vector index for a bulk load (see
    /// `bulk.rs`) and owes the store its rebuild.
    index_deferred: AtomicBool,
    /// [`PostgresOptions::ef_search`].
    ef_search: usize,
    /// The statistics of the last keyword searches.
    recent: keyword::Recent,
    /// The rare terms' posting lists read lately.
    lists: crate::postings::Lists,
    /// [`PostgresOptions::common_term_idf`].
    common_term_idf: f64,
    /// [`PostgresOptions::index_memory_mib`].
    index_memory_mib: u64,
}

impl PostgresStore {
    /// Open the store at `url` (`postgres://user@host:port/db`) with the
    /// default options: schema `cairn`, made and migrated if need be.
    pub fn open(url: &str) -> Result<Self> {
        Self::open_with(url, PostgresOptions::default())
    }

    /// Open the store at `url` with `options`. An unreachable server is
    /// [`cairn_core::ErrorKind::Unavailable`], unless
    /// [`PostgresOptions::wait_for_database`].
    ///
    /// The URL may name the schema, `?schema=NAME` (Cairn's own parameter,
    /// taken out before the URL reaches PostgreSQL), which wins over
    /// `options.schema`; its other parameters are PostgreSQL's.
    pub fn open_with(url: &str, mut options: PostgresOptions) -> Result<Self> {
        let (config, wait) = resolve(url, &mut options)?;
        let index_memory_mib = options.index_memory_mib;
        let db = Db::new(Connect {
            config,
            schema: options.schema.clone(),
            size: options.pool_size,
            // The URL's `connect_timeout`, if it gives one, bounds the wait
            // for a pooled connection too.
            wait,
            // A bulk load that died before its end left the vector index
            // to whoever connects next.
            on_connect: Box::new(move |pool| vector::ensure_index(pool, index_memory_mib)),
        });
        match db.pool() {
            Err(e) if !(options.wait_for_database && e.kind() == ErrorKind::Unavailable) => {
                return Err(e)
            }
            _ => {}
        }
        Ok(PostgresStore {
            keys: PgKeys { db: db.clone() },
            oauth: PgOAuth { db: db.clone() },
            threads: PgCollections { db: db.clone() },
            shared: PgShared { db: db.clone() },
            db,
            index_deferred: AtomicBool::new(false),
            ef_search: options.ef_search,
            recent: keyword::Recent::default(),
            lists: crate::postings::Lists::default(),
            common_term_idf: options.common_term_idf,
            index_memory_mib,
        })
    }
}

impl Store for PostgresStore {
    fn maintenance(&self) -> &dyn Maintenance {
        self
    }

    fn key_store(&self) -> &dyn KeyStore {
        &self.keys
    }

    fn collections(&self) -> &dyn cairn_core::collections::CollectionStore {
        &self.threads
    }

    fn shared(&self) -> &dyn cairn_core::shared::SharedState {
        &self.shared
    }

    fn oauth_store(&self) -> &dyn cairn_core::oauth::OAuthStore {
        &self.oauth
    }
}

impl Reading for PostgresStore {
    fn model(&self) -> Result<Option<ModelInfo>> {
        vector::model(&self.db)
    }

    fn receipts(&self, tenant: &str, prefix: &str, limit: usize) -> Result<Vec<DeletionReceipt>> {
        read::receipts(&self.db, tenant, prefix, limit)
    }

    fn get(&self, tenant: &str, ids: &[MemoryId]) -> Result<Vec<Memory>> {
        read::memories(&self.db, tenant, ids)
    }

    fn embeddings(&self, tenant: &str, ids: &[MemoryId]) -> Result<Vec<Option<Vec<f32>>>> {
        read::embeddings(&self.db, tenant, ids)
    }

    fn find_by_prefix(&self, tenant: &str, prefix: &str, limit: usize) -> Result<Vec<MemoryId>> {
        read::find_by_prefix(&self.db, tenant, prefix, limit)
    }

    fn id_neighbours(
        &self,
        tenant: &str,
        ids: &[MemoryId],
    ) -> Result<Vec<(Option<MemoryId>, Option<MemoryId>)>> {
        read::id_neighbours(&self.db, tenant, ids)
    }

    fn list(
        &self,
        filter: &Filter,
        order: ListOrder,
        limit: usize,
        offset: usize,
    ) -> Result<Vec<Memory>> {
        read::list(&self.db, filter, order, limit, offset)
    }

    fn count(&self, filter: &Filter) -> Result<usize> {
        read::count(&self.db, filter)
    }

    fn keyword_rarity(&self, query: &str) -> Result<Option<TermRarity>> {
        keyword::rarity(&self.db, &self.recent, query)
    }

    fn keyword_search(&self, query: &str, filter: &Filter, limit: usize) -> Result<Vec<Hit>> {
        keyword::search(
            &self.db,
            (&self.recent, &self.lists),
            self.common_term_idf,
            query,
            filter,
            limit,
        )
    }

    fn vector_search(&self, vector: &[f32], filter: &Filter, limit: usize) -> Result<Vec<Hit>> {
        let scan = vector::Scan::Index {
            ef_search: self.ef_search,
        };
        vector::search(&self.db, vector, filter, limit, scan)
    }

    fn vector_search_exact(
        &self,
        vector: &[f32],
        filter: &Filter,
        limit: usize,
    ) -> Result<Vec<Hit>> {
        vector::search(&self.db, vector, filter, limit, vector::Scan::Exact)
    }

    fn tenants(&self, with: TenantsWith) -> Result<Vec<String>> {
        match with {
            TenantsWith::Memories => read::tenants(&self.db),
            TenantsWith::Anything => read::every_tenant(&self.db),
        }
    }

    fn stats(&self, tenant: &str, now: Timestamp) -> Result<StoreStats> {
        read::stats(&self.db, tenant, now)
    }

    fn histories(&self, tenant: &str, ids: &[MemoryId]) -> Result<Vec<Vec<Version>>> {
        read::histories(&self.db, tenant, ids)
    }
}

impl Writing for PostgresStore {
    fn set_model(&self, model: &ModelInfo) -> Result<()> {
        let pool = self.db.pool()?;
        pool.tx(Scope::Unscoped, |tx| {
            tx.execute(
                "INSERT INTO meta (key, value) VALUES ('model_name', $1), ('model_dim', $2) \
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                &[&model.name, &model.dim.to_string()],
            )
            .map_err(|e| pg_err("recording the model", e))?;
            vector::index_dimension(pool, tx, model.dim)
        })
    }

    fn write(&self, batch: WriteBatch) -> Result<()> {
        write::write(&self.db, batch)
    }

    fn insert_unless_duplicate(
        &self,
        memory: Memory,
        vector: Vec<f32>,
        threshold: f32,
        actor: &str,
    ) -> Result<Inserted> {
        write::insert_unless_duplicate(&self.db, memory, vector, threshold, actor)
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

    fn restore(&self, batch: cairn_core::Restore) -> Result<()> {
        write::restore(&self.db, batch)
    }
}

impl Maintenance for PostgresStore {
    fn delete_expired(&self, now: Timestamp) -> Result<usize> {
        self.db.tx(Scope::Every, |tx| {
            delete_where(tx, "m.expires_at <= $4", &Deletion::expired(now), &[&now])
        })
    }

    fn pack_contents(&self, tenant: &str, ids: &[MemoryId], pack: bool) -> Result<Vec<Packed>> {
        read::pack_contents(&self.db, tenant, ids, pack)
    }

    fn verify(&self) -> Result<()> {
        self.db.tx(Scope::Unscoped, |tx| {
            tx.batch_execute("SELECT 1")
                .map_err(|e| pg_err("checking the connection", e))
        })
    }

    fn begin_bulk(&self, rows: usize) -> Result<()> {
        if !self.index_deferred.load(Ordering::SeqCst) {
            let dropped = bulk::defer_vector_index(&self.db, rows)?;
            self.index_deferred.store(dropped, Ordering::SeqCst);
        }
        Ok(())
    }

    fn end_bulk(&self) -> Result<()> {
        bulk::finish(
            &self.db,
            self.index_deferred.swap(false, Ordering::SeqCst),
            self.index_memory_mib,
        )
    }
}
