//! Copying a whole store into another (`cairn migrate`), whatever their
//! backends, and proving the copy: a count and a checksum per kind of
//! record, computed on each side through the [`Store`] trait alone.
//!
//! # What is copied
//! The embedding model, API keys (their hashes, as stored), and for every
//! tenant ([`Reading::tenants`](crate::store::Reading::tenants)) its collections (sessions,
//! conversations, topics, slots), memories (ids, times, embeddings and
//! every version, through [`Writing::restore`](crate::store::Writing::restore))
//! and deletion receipts.
//!
//! # Resuming
//! Memories are copied in id order, a batch per transaction, and a batch
//! leaves out the ids the destination holds already; keys the destination
//! holds are left as they are; collections and receipts are written over.
//! A migration stopped anywhere and run again therefore finishes the copy
//! without duplicating or missing anything.
//!
//! # Checksums
//! Each record is serialised canonically (fixed field order, JSON; a
//! vector as its little-endian `f32` bytes) and hashed with SHA-256 in a
//! fixed order (tenants bytewise, records by id), so two stores with the
//! same content have the same sums whatever their backends.

use sha2::{Digest, Sha256};

use crate::collections::CollectionKind;
use crate::history::Version;
use crate::memory::MemoryId;
use crate::store::{Filter, ListOrder, Restore, Store, TenantsWith};
use crate::{Error, Result};

/// Memories per transaction by default.
pub const DEFAULT_BATCH: usize = 1000;

/// What a migration did.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct MigrateReport {
    /// Memories written to the destination.
    pub memories: usize,
    /// Memories the destination held already (left as they were).
    pub skipped: usize,
    /// API keys written (those held already are left).
    pub keys: usize,
    /// Collection records written.
    pub collections: usize,
    /// Deletion receipts written.
    pub receipts: usize,
}

/// One kind of record's count and checksum in one store.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TableSum {
    /// The kind of record: `memories`, `versions`, `receipts`, `keys`,
    /// `collections`, `settings`.
    pub table: &'static str,
    /// How many records.
    pub count: usize,
    /// SHA-256 over their canonical serialisations, hex.
    pub sha256: String,
}

/// How a migration runs.
pub struct MigrateOptions<'a> {
    /// Memories per transaction.
    pub batch: usize,
    /// Told `(memories done, memories in all)` after each batch.
    pub progress: &'a mut dyn FnMut(usize, usize),
}

/// Every memory of `tenant`, expired and superseded included.
fn every_memory(tenant: &str) -> Filter {
    Filter::new(tenant, 0).everything()
}

/// Refuse a copy between stores of different embedding models.
pub fn check_models(from: &dyn Store, to: &dyn Store) -> Result<()> {
    if let (Some(a), Some(b)) = (from.model()?, to.model()?) {
        if a != b {
            return Err(Error::invalid(format!(
                "the stores use different embedding models: the source {} ({} dimensions), \
                 the destination {} ({} dimensions); migrate into an empty store, or run \
                 `cairn reindex` on one of them first",
                a.name, a.dim, b.name, b.dim
            )));
        }
    }
    Ok(())
}

/// Copy everything `from` holds into `to` (see the module docs).
pub fn migrate(
    from: &dyn Store,
    to: &dyn Store,
    mut options: MigrateOptions<'_>,
) -> Result<MigrateReport> {
    check_models(from, to)?;
    let mut report = MigrateReport::default();
    if let Some(model) = from.model()? {
        if to.model()?.is_none() {
            to.set_model(&model)?;
        }
    }
    for key in from.key_store().keys(None)? {
        if to.key_store().key(&key.id)?.is_none() {
            to.key_store().insert_key(&key)?;
            report.keys += 1;
        }
    }
    let tenants = from.tenants(TenantsWith::Anything)?;
    let mut total = 0;
    for tenant in &tenants {
        total += from.count(&every_memory(tenant))?;
    }
    let batch = options.batch.max(1);
    let mut done = 0;
    (options.progress)(0, total);
    let bulk = total >= 4096;
    if bulk {
        to.maintenance().begin_bulk(total)?;
    }
    let copied = copy_tenants(
        from,
        to,
        &tenants,
        batch,
        &mut options,
        &mut report,
        &mut done,
        total,
    );
    let ended = if bulk {
        to.maintenance().end_bulk()
    } else {
        Ok(())
    };
    copied?;
    ended?;
    Ok(report)
}

#[allow(clippy::too_many_arguments)]
fn copy_tenants(
    from: &dyn Store,
    to: &dyn Store,
    tenants: &[String],
    batch: usize,
    options: &mut MigrateOptions<'_>,
    report: &mut MigrateReport,
    done: &mut usize,
    total: usize,
) -> Result<()> {
    for tenant in tenants {
        for kind in CollectionKind::ALL {
            for record in from.collections().list_collections(tenant, kind, None)? {
                to.collections().put_collection(&record)?;
                report.collections += 1;
            }
        }
        let mut filter = every_memory(tenant);
        loop {
            let page = from.list(&filter, ListOrder::Id, batch, 0)?;
            let Some(last) = page.last().map(|m| m.id) else {
                break;
            };
            let ids: Vec<MemoryId> = page.iter().map(|m| m.id).collect();
            let held: std::collections::HashSet<MemoryId> =
                to.get(tenant, &ids)?.into_iter().map(|m| m.id).collect();
            let fresh: Vec<_> = page.into_iter().filter(|m| !held.contains(&m.id)).collect();
            report.skipped += held.len();
            if !fresh.is_empty() {
                let fresh_ids: Vec<MemoryId> = fresh.iter().map(|m| m.id).collect();
                let vectors = from.embeddings(tenant, &fresh_ids)?;
                let histories = from.histories(tenant, &fresh_ids)?;
                let mut memories = Vec::with_capacity(fresh.len());
                for ((m, v), h) in fresh.into_iter().zip(vectors).zip(histories) {
                    let v = v.ok_or_else(|| {
                        Error::storage(format!("memory {} has no stored embedding", m.id))
                    })?;
                    memories.push((m, v, h));
                }
                report.memories += memories.len();
                to.restore(Restore {
                    memories,
                    receipts: Vec::new(),
                })?;
            }
            *done += ids.len();
            filter.after = Some(last);
            (options.progress)(*done, total);
            if ids.len() < batch {
                break;
            }
        }
        let receipts = from.receipts(tenant, "", usize::MAX)?;
        for chunk in receipts.chunks(batch) {
            report.receipts += chunk.len();
            to.restore(Restore {
                memories: Vec::new(),
                receipts: chunk.to_vec(),
            })?;
        }
    }
    Ok(())
}

/// Each kind of record's count and checksum in `store` (see the module
/// docs): memories (with embeddings), versions, receipts, API keys,
/// collections and settings (the model).
pub fn checksums(store: &dyn Store) -> Result<Vec<TableSum>> {
    let mut sums: Vec<(&'static str, usize, Sha256)> = [
        "memories",
        "versions",
        "receipts",
        "keys",
        "collections",
        "settings",
    ]
    .into_iter()
    .map(|t| (t, 0, Sha256::new()))
    .collect();
    let mut add = |table: usize, bytes: &[u8]| {
        let (_, count, hash) = &mut sums[table];
        *count += 1;
        hash.update((bytes.len() as u64).to_le_bytes());
        hash.update(bytes);
    };
    let json = |v: serde_json::Value| v.to_string().into_bytes();
    if let Some(model) = store.model()? {
        add(5, &json(serde_json::json!([model.name, model.dim])));
    }
    let mut keys = store.key_store().keys(None)?;
    keys.sort_by(|a, b| a.id.cmp(&b.id));
    for k in keys {
        let hash: String = k.hash.iter().map(|b| format!("{b:02x}")).collect();
        add(
            3,
            &json(serde_json::json!([
                k.id,
                k.tenant,
                k.role.as_str(),
                k.label,
                hash,
                k.created_at,
                k.expires_at,
                k.last_used_at,
                k.revoked_at
            ])),
        );
    }
    for tenant in store.tenants(TenantsWith::Anything)? {
        for kind in CollectionKind::ALL {
            let mut records = store.collections().list_collections(&tenant, kind, None)?;
            records.sort_by(|a, b| a.id.cmp(&b.id));
            for r in records {
                add(
                    4,
                    &json(serde_json::json!([
                        r.tenant,
                        r.kind.as_str(),
                        r.id,
                        r.parent,
                        r.body,
                        r.created_at,
                        r.updated_at
                    ])),
                );
            }
        }
        let mut filter = every_memory(&tenant);
        loop {
            let page = store.list(&filter, ListOrder::Id, DEFAULT_BATCH, 0)?;
            let Some(last) = page.last().map(|m| m.id) else {
                break;
            };
            let ids: Vec<MemoryId> = page.iter().map(|m| m.id).collect();
            let vectors = store.embeddings(&tenant, &ids)?;
            let histories = store.histories(&tenant, &ids)?;
            for ((m, v), h) in page.iter().zip(vectors).zip(histories) {
                let mut bytes = serde_json::to_vec(m).map_err(Error::storage)?;
                for x in v.unwrap_or_default() {
                    bytes.extend_from_slice(&x.to_le_bytes());
                }
                add(0, &bytes);
                for version in h {
                    add(1, &version_bytes(&version)?);
                }
            }
            filter.after = Some(last);
            if page.len() < DEFAULT_BATCH {
                break;
            }
        }
        for r in store.receipts(&tenant, "", usize::MAX)? {
            add(
                2,
                &json(serde_json::json!([
                    r.id.to_string(),
                    r.tenant,
                    r.deletion.actor,
                    r.deletion.reason,
                    r.deletion.at,
                    r.versions
                ])),
            );
        }
    }
    Ok(sums
        .into_iter()
        .map(|(table, count, hash)| TableSum {
            table,
            count,
            sha256: hash.finalize().iter().map(|b| format!("{b:02x}")).collect(),
        })
        .collect())
}

fn version_bytes(v: &Version) -> Result<Vec<u8>> {
    let memory = serde_json::to_value(&v.memory).map_err(Error::storage)?;
    Ok(
        serde_json::json!([v.number, v.kind.as_str(), v.actor, v.reason, v.at, memory])
            .to_string()
            .into_bytes(),
    )
}
