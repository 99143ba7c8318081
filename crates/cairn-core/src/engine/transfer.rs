//! Import, export and reindex: whole stores in and out, a transaction or
//! a page at a time.

use super::{superseded, Cairn};
use crate::history::{Change, ChangeKind, LOCAL_ACTOR};
use crate::memory::{Memory, MemoryId, Timestamp};
use crate::store::{Filter, ListOrder, WriteBatch};
use crate::wire::MemoryRecord;
use crate::{Error, Result};

/// What an import did.
#[derive(Debug, Clone, Default, serde::Serialize, schemars::JsonSchema)]
pub struct ImportReport {
    /// Memories written.
    pub imported: usize,
    /// Records whose id was already in the store (left as they were).
    pub skipped_existing: usize,
    /// Records embedded during the import (the others carried embeddings).
    pub embedded: usize,
    /// Bad records: (line number, problem). Skipped unless strict.
    pub errors: Vec<(usize, String)>,
}

/// How far an import has gone: what its progress callback is told after
/// each transaction.
#[derive(Debug, Clone, Copy)]
pub struct ImportProgress<'a> {
    /// Records done (written, or skipped as already stored).
    pub done: usize,
    /// The bad records met so far: (line number, problem).
    pub errors: &'a [(usize, String)],
}

/// Embedding batch size for imports and reindexing.
const EMBED_BATCH: usize = 256;

/// Records per transaction when importing records that carry embeddings.
const WRITE_BATCH: usize = 8192;

/// A first transaction of at least this many records makes an import a
/// bulk load ([`crate::store::Maintenance::begin_bulk`]).
const BULK_ROWS: usize = 4096;

impl Cairn {
    /// Import records (line number, parsed record or parse error).
    ///
    /// Ids and times are preserved; a record whose id is already stored is
    /// skipped. Bad records are reported with their line number and skipped;
    /// with `strict`, any bad record refuses the whole import before anything
    /// is written. Records without an `embedding` are embedded in batches.
    ///
    /// The records are taken as they come (a stream, such as
    /// [`crate::wire::JsonLines`], is written while it is still being read)
    /// and written a transaction at a time, so an import that stops halfway
    /// leaves whole transactions, and run again it skips the records whose
    /// id is stored. `strict` takes them all first. `progress` is told how
    /// many records are done ([`Cairn::import_reporting`] also tells the
    /// bad records met so far).
    pub fn import(
        &self,
        tenant: &str,
        records: impl IntoIterator<Item = (usize, Result<MemoryRecord>)>,
        strict: bool,
        actor: &str,
        progress: &mut dyn FnMut(usize),
    ) -> Result<ImportReport> {
        self.import_reporting(tenant, records, strict, actor, &mut |p| progress(p.done))
    }

    /// [`Cairn::import`], telling `progress` after each transaction the
    /// records done and the bad records met so far.
    pub fn import_reporting(
        &self,
        tenant: &str,
        records: impl IntoIterator<Item = (usize, Result<MemoryRecord>)>,
        strict: bool,
        actor: &str,
        progress: &mut dyn FnMut(ImportProgress<'_>),
    ) -> Result<ImportReport> {
        let now = self.now();
        let dim = self.embedder.model().dim;
        // Filled while records are read, read by `progress` between
        // transactions: never borrowed twice at once.
        let errors = std::cell::RefCell::new(Vec::new());
        let mut seen = std::collections::HashSet::new();
        // Each valid record, with whether it named its id (only those can
        // already be stored: a new id is a fresh UUIDv7).
        let valid = records.into_iter().filter_map(|(line, record)| {
            let checked = record.and_then(|r| {
                let named = r.id.is_some();
                let (m, e) = r.into_memory(tenant, now)?;
                if let Some(e) = &e {
                    if e.len() != dim {
                        return Err(Error::invalid(format!(
                            "embedding has {} dimensions; this store uses {dim}",
                            e.len()
                        )));
                    }
                    if let Some(x) = e.iter().find(|x| !x.is_finite()) {
                        return Err(Error::invalid(format!(
                            "embedding has a value that is not a finite number ({x})"
                        )));
                    }
                }
                if !seen.insert(m.id) {
                    return Err(Error::invalid(format!(
                        "id {} appears twice in the input",
                        m.id
                    )));
                }
                Ok((m, e, named))
            });
            checked
                .map_err(|e| errors.borrow_mut().push((line, e.to_string())))
                .ok()
        });
        let mut told = |done: usize| {
            progress(ImportProgress {
                done,
                errors: &errors.borrow(),
            })
        };
        let mut report = if strict {
            let valid: Vec<_> = valid.collect();
            if let Some((line, msg)) = errors.borrow().first() {
                return Err(Error::invalid(format!(
                    "line {line}: {msg} ({} bad line(s) in all; --strict imports nothing)",
                    errors.borrow().len()
                )));
            }
            self.write_imported(tenant, valid.into_iter(), actor, &mut told)?
        } else {
            self.write_imported(tenant, valid, actor, &mut told)?
        };
        report.errors = errors.take();
        Ok(report)
    }

    /// The writing half of [`Cairn::import`]: valid records (memory,
    /// embedding if given, whether it named its id), a transaction at a time,
    /// each memory with its `imported` version.
    fn write_imported(
        &self,
        tenant: &str,
        records: impl Iterator<Item = (Memory, Option<Vec<f32>>, bool)>,
        actor: &str,
        progress: &mut dyn FnMut(usize),
    ) -> Result<ImportReport> {
        let mut records = records.peekable();
        if records.peek().is_some() {
            self.ensure_model()?;
        }
        let mut bulk = false;
        let outcome = self.write_imported_chunks(tenant, &mut records, actor, progress, &mut bulk);
        // The store's deferred indexes are brought up to date whatever
        // happened to the import.
        let ended = if bulk {
            self.store.maintenance().end_bulk()
        } else {
            Ok(())
        };
        let report = outcome?;
        ended?;
        Ok(report)
    }

    /// [`Cairn::write_imported`]'s chunks; `bulk` says whether it told the
    /// store a bulk load began.
    fn write_imported_chunks(
        &self,
        tenant: &str,
        records: &mut std::iter::Peekable<impl Iterator<Item = (Memory, Option<Vec<f32>>, bool)>>,
        actor: &str,
        progress: &mut dyn FnMut(usize),
        bulk: &mut bool,
    ) -> Result<ImportReport> {
        let recipe = match records.peek() {
            Some(_) => self.ensure_model()?,
            None => self.recipe,
        };
        let mut report = ImportReport::default();
        let mut done = 0;
        let now = self.now();
        while records.peek().is_some() {
            // Pre-embedded records go in big transactions, which spend less
            // on commits and index merges; those to embed a model batch at a
            // time (so that progress moves).
            let mut chunk = Vec::new();
            let mut to_embed = 0;
            while chunk.len() < WRITE_BATCH && to_embed < EMBED_BATCH {
                let Some(record) = records.next() else { break };
                to_embed += usize::from(record.1.is_none());
                chunk.push(record);
            }
            done += chunk.len();
            if !*bulk && chunk.len() >= BULK_ROWS {
                self.store.maintenance().begin_bulk(chunk.len())?;
                *bulk = true;
            }
            // A named id is stored already as itself, or as this tenant's
            // copy of another tenant's memory (see `copy_id`).
            let named: Vec<MemoryId> = chunk
                .iter()
                .filter(|(_, _, named)| *named)
                .flat_map(|(m, _, _)| [m.id, copy_id(tenant, m.id)])
                .collect();
            let existing: std::collections::HashSet<MemoryId> = if named.is_empty() {
                Default::default()
            } else {
                self.store
                    .get(tenant, &named)?
                    .into_iter()
                    .map(|m| m.id)
                    .collect()
            };
            let stored =
                |id: MemoryId| existing.contains(&id) || existing.contains(&copy_id(tenant, id));
            let before = chunk.len();
            let named_ids: std::collections::HashSet<MemoryId> = chunk
                .iter()
                .filter(|(_, _, named)| *named)
                .map(|(m, _, _)| m.id)
                .collect();
            let fresh: Vec<(Memory, Option<Vec<f32>>)> = chunk
                .into_iter()
                .filter(|(m, _, named)| !(*named && stored(m.id)))
                .map(|(m, e, _)| (m, e))
                .collect();
            report.skipped_existing += before - fresh.len();
            let fresh = if names_are_tenant_scoped(actor) {
                self.own_names(tenant, fresh, &named_ids)?
            } else {
                fresh
            };
            let texts: Vec<_> = fresh
                .iter()
                .filter(|(_, e)| e.is_none())
                .map(|(m, _)| m.embedding_text(recipe))
                .collect();
            let refs: Vec<&str> = texts.iter().map(AsRef::as_ref).collect();
            let mut computed = if refs.is_empty() {
                Vec::new()
            } else {
                self.embedder.embed_batch(&refs)?
            }
            .into_iter();
            report.embedded += refs.len();
            let mut batch = WriteBatch::default();
            for (m, e) in fresh {
                let v = match e {
                    Some(v) => v,
                    None => computed
                        .next()
                        .ok_or_else(|| Error::embedding("embedder returned too few vectors"))?,
                };
                batch
                    .changes
                    .push(Change::new(m.id, ChangeKind::Imported, actor, now));
                batch.inserts.push((m, v));
            }
            report.imported += batch.inserts.len();
            self.link_supersessions(tenant, &mut batch, actor)?;
            self.write_taking_copies(tenant, &mut batch)?;
            progress(done);
        }
        Ok(report)
    }

    /// `fresh` under the tenant's own names ([`names_are_tenant_scoped`]):
    /// each id in `named` becomes its [`copy_id`], and so does each
    /// supersession link to an id the tenant does not hold as itself.
    fn own_names(
        &self,
        tenant: &str,
        mut fresh: Vec<(Memory, Option<Vec<f32>>)>,
        named: &std::collections::HashSet<MemoryId>,
    ) -> Result<Vec<(Memory, Option<Vec<f32>>)>> {
        let links: Vec<MemoryId> = fresh
            .iter()
            .flat_map(|(m, _)| [m.supersedes, m.superseded_by])
            .flatten()
            .collect();
        let held: std::collections::HashSet<MemoryId> = if links.is_empty() {
            Default::default()
        } else {
            self.store
                .get(tenant, &links)?
                .into_iter()
                .map(|m| m.id)
                .collect()
        };
        for (m, _) in &mut fresh {
            if named.contains(&m.id) {
                m.id = copy_id(tenant, m.id);
            }
            for link in [&mut m.supersedes, &mut m.superseded_by] {
                if let Some(id) = link.filter(|id| !held.contains(id)) {
                    *link = Some(copy_id(tenant, id));
                }
            }
        }
        Ok(fresh)
    }

    /// Write `batch`; an inserted id another tenant holds (ids are unique
    /// across tenants) is written as this tenant's copy instead, under
    /// [`copy_id`], so an import neither fails on nor reveals another
    /// tenant's memory.
    /// `batch` is left as written; returns each id renamed, with its copy.
    pub(crate) fn write_taking_copies(
        &self,
        tenant: &str,
        batch: &mut WriteBatch,
    ) -> Result<Vec<(MemoryId, MemoryId)>> {
        let mut renamed = Vec::new();
        loop {
            let taken = match self.store.write(batch.clone()) {
                Err(Error::DuplicateId(id)) => id,
                done => return done.map(|()| renamed),
            };
            let Some(original) = taken.parse::<uuid::Uuid>().ok().map(MemoryId) else {
                return Err(Error::DuplicateId(taken));
            };
            let copy = copy_id(tenant, original);
            let Some(at) = batch.inserts.iter().position(|(m, _)| m.id == original) else {
                return Err(Error::DuplicateId(taken));
            };
            batch.inserts[at].0.id = copy;
            rename_links(batch, original, copy);
            renamed.push((original, copy));
        }
    }

    /// For each inserted memory that names a memory it supersedes, mark that
    /// one superseded (unless it already says so), in the same batch: a
    /// stored one with a version saying so.
    fn link_supersessions(&self, tenant: &str, batch: &mut WriteBatch, actor: &str) -> Result<()> {
        let links: Vec<(MemoryId, MemoryId, Timestamp)> = batch
            .inserts
            .iter()
            .filter_map(|(m, _)| m.supersedes.map(|old| (old, m.id, m.created_at)))
            .collect();
        for (old, new, at) in links {
            if let Some((m, _)) = batch.inserts.iter_mut().find(|(m, _)| m.id == old) {
                if m.superseded_by.is_none() {
                    *m = superseded(m.clone(), new, at);
                }
            } else if let Some(m) = self.store.get(tenant, &[old])?.pop() {
                if m.superseded_by.is_none() {
                    batch.updates.push((superseded(m, new, at), None));
                    batch.changes.push(
                        Change::new(old, ChangeKind::Superseded, actor, self.now())
                            .because(format!("superseded by {new} (imported)")),
                    );
                }
            }
        }
        Ok(())
    }

    /// Every memory of `tenant` (expired and superseded included), in id
    /// order, as wire records; with `embeddings`, each carries its vector.
    pub fn export(
        &self,
        tenant: &str,
        embeddings: bool,
        sink: &mut dyn FnMut(MemoryRecord) -> Result<()>,
    ) -> Result<usize> {
        self.for_each_page(self.filter(tenant).everything(), 1000, &mut |page| {
            let vectors = match embeddings {
                true => {
                    let ids: Vec<MemoryId> = page.iter().map(|m| m.id).collect();
                    self.store.embeddings(tenant, &ids)?
                }
                false => vec![None; page.len()],
            };
            for (m, vector) in page.iter().zip(vectors) {
                let mut record = MemoryRecord::from_memory(m);
                record.embedding = vector;
                sink(record)?;
            }
            Ok(())
        })
    }

    /// Every memory passing `filter`, in id order, handed to `f` a page of
    /// `size` at a time (memory stays bounded, and a page costs its own
    /// rows: see [`Filter::after`]); returns how many there were.
    fn for_each_page(
        &self,
        mut filter: Filter,
        size: usize,
        f: &mut dyn FnMut(Vec<Memory>) -> Result<()>,
    ) -> Result<usize> {
        let mut count = 0;
        loop {
            let page = self.store.list(&filter, ListOrder::Id, size, 0)?;
            let (len, last) = (page.len(), page.last().map(|m| m.id));
            if len > 0 {
                f(page)?;
            }
            count += len;
            match last {
                Some(last) if len == size => filter.after = Some(last),
                _ => return Ok(count),
            }
        }
    }

    /// Re-embed every memory of every tenant with this engine's embedder and
    /// record its model. A model batch is read, embedded and written at a
    /// time, so memory stays bounded and a memory another process changes
    /// meanwhile is overwritten by at most one batch's stale copy.
    /// `progress(done, total)` is called after each batch.
    ///
    /// A model of another dimension is recorded first: a store refuses
    /// vectors of any other length than its model's. Until the reindex
    /// ends, memories not yet re-embedded are left out of vector search.
    pub fn reindex(&self, progress: &mut dyn FnMut(usize, usize)) -> Result<usize> {
        let model = self.model_info();
        if self.store.model()?.is_some_and(|m| m.dim != model.dim) {
            self.store.set_model(&model)?;
        }
        let filters = self
            .store
            .tenants(crate::TenantsWith::Memories)?
            .into_iter()
            .map(|t| self.filter(&t).everything())
            .collect::<Vec<_>>();
        let total = filters
            .iter()
            .map(|f| self.store.count(f))
            .sum::<Result<usize>>()?;
        let mut done = 0;
        for filter in filters {
            self.for_each_page(filter, EMBED_BATCH, &mut |page| {
                let texts: Vec<_> = page.iter().map(|m| m.embedding_text(self.recipe)).collect();
                let refs: Vec<&str> = texts.iter().map(AsRef::as_ref).collect();
                let vectors = self.embedder.embed_batch(&refs)?;
                done += page.len();
                let updates = page
                    .into_iter()
                    .zip(vectors.into_iter().map(Some))
                    .collect();
                self.store.write(WriteBatch {
                    updates,
                    ..Default::default()
                })?;
                progress(done, total.max(done));
                Ok(())
            })?;
        }
        self.store.set_model(&model)?;
        Ok(done)
    }
}

/// Whether the ids `actor` names (a message's `id`, an imported record's)
/// are its tenant's own names, stored under [`copy_id`]: so for every API
/// key. Ids are unique across tenants in storage, so an id kept as given
/// would tell a key's caller whether another tenant holds it (kept, or
/// renamed); under its tenant's own id it is the same either way, and
/// what the caller is told depends on its tenant alone. The local user
/// ([`LOCAL_ACTOR`]: the CLI, `cairn mcp`, `serve --no-auth`) owns every
/// tenant, learns nothing it could not read, and keeps ids as given.
pub(crate) fn names_are_tenant_scoped(actor: &str) -> bool {
    actor != LOCAL_ACTOR
}

/// The id under which `tenant` keeps its copy of a memory whose id another
/// tenant holds: the same creation time (a UUIDv7's first 48 bits), the
/// rest from a hash of the tenant and the original id. The same for every
/// import, so importing the text again skips the copy like any stored id.
pub(crate) fn copy_id(tenant: &str, id: MemoryId) -> MemoryId {
    use sha2::{Digest, Sha256};
    let hash = Sha256::new()
        .chain_update(tenant.as_bytes())
        .chain_update([0])
        .chain_update(id.0.as_bytes())
        .finalize();
    let mut bytes = *id.0.as_bytes();
    bytes[6..].copy_from_slice(&hash[..10]);
    // Version 7, RFC 4122 variant.
    bytes[6] = (bytes[6] & 0x0f) | 0x70;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    MemoryId(uuid::Uuid::from_bytes(bytes))
}

/// Make `ids` name the copies of the ids [`Cairn::write_taking_copies`]
/// `renamed` (each id with its copy).
pub(super) fn follow_copies<'a>(
    renamed: &[(MemoryId, MemoryId)],
    ids: impl Iterator<Item = &'a mut MemoryId>,
) {
    for id in ids {
        if let Some((_, copy)) = renamed.iter().find(|(from, _)| from == id) {
            *id = *copy;
        }
    }
}

/// Point every supersession link and change of `batch` at `from` to `to`.
fn rename_links(batch: &mut WriteBatch, from: MemoryId, to: MemoryId) {
    for change in &mut batch.changes {
        if change.id == from {
            change.id = to;
        }
        if let Some(reason) = &mut change.reason {
            *reason = reason.replace(&from.to_string(), &to.to_string());
        }
    }
    let memories = batch
        .inserts
        .iter_mut()
        .map(|(m, _)| m)
        .chain(batch.updates.iter_mut().map(|(m, _)| m));
    for m in memories {
        for link in [&mut m.supersedes, &mut m.superseded_by] {
            if *link == Some(from) {
                *link = Some(to);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::LexicalEmbedder;
    use crate::{EmbedRecipe, Embedder, Error, MemoryStore, ModelInfo, RememberRequest, Store};
    use std::sync::Arc;

    #[test]
    fn a_store_keeps_its_recipe_until_reindex_re_embeds_with_the_engines() {
        let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
        let content = Cairn::new(store.clone(), Arc::new(LexicalEmbedder))
            .with_embed_recipe(EmbedRecipe::CONTENT);
        let (old, new) = (
            "Ana adopted a greyhound called Pixel.",
            "Ben started pottery.",
        );
        let old_id = content.remember(RememberRequest::new("t", old)).unwrap().id;
        assert_eq!(store.model().unwrap(), Some(LexicalEmbedder.model()));

        // An engine embedding names writes this store as it was embedded.
        let names = Cairn::new(store.clone(), Arc::new(LexicalEmbedder));
        let new_id = names.remember(RememberRequest::new("t", new)).unwrap().id;
        let vector = |id| store.embeddings("t", &[id]).unwrap().remove(0).unwrap();
        assert_eq!(vector(new_id), LexicalEmbedder.embed(new).unwrap());

        assert_eq!(names.reindex(&mut |_, _| ()).unwrap(), 2);
        let recorded = store.model().unwrap().unwrap();
        assert_eq!(
            recorded.name,
            format!("{}+names", LexicalEmbedder.model().name)
        );
        for (id, text) in [(old_id, old), (new_id, new)] {
            let want = EmbedRecipe::NAMES.text(text, &[]);
            assert_ne!(want, text);
            assert_eq!(vector(id), LexicalEmbedder.embed(&want).unwrap());
        }
        // Now the content-only engine keeps to the names in turn.
        let id = content
            .remember(RememberRequest::new("t", "Cleo moved to Oslo."))
            .unwrap()
            .id;
        let want = EmbedRecipe::NAMES.text("Cleo moved to Oslo.", &[]);
        assert_eq!(vector(id), LexicalEmbedder.embed(&want).unwrap());
        // Another model's store is still refused.
        let other = ModelInfo {
            name: "other".into(),
            ..LexicalEmbedder.model()
        };
        store.set_model(&other).unwrap();
        let err = names
            .remember(RememberRequest::new("t", "x y"))
            .unwrap_err();
        assert!(matches!(err, Error::ModelMismatch { .. }), "{err:?}");
    }

    #[test]
    fn dedup_compares_what_memories_say_not_their_tags() {
        let cairn = Cairn::new(Arc::new(MemoryStore::new()), Arc::new(LexicalEmbedder));
        let text = "Deploys of atlas go through Fly.io in region fra.";
        let mut first = RememberRequest::new("t", text);
        first.tags = vec!["deploy".into()];
        let first = cairn.remember(first).unwrap();
        let mut again = RememberRequest::new("t", text);
        again.tags = vec!["infra".into(), "fly".into()];
        let again = cairn.remember(again).unwrap();
        assert_eq!(again.status, crate::WriteStatus::Deduplicated);
        assert_eq!(again.id, first.id);
        assert_eq!(again.merged_similarity, Some(1.0));
    }

    #[test]
    fn a_copy_id_keeps_the_time_and_differs_by_tenant() {
        let id = MemoryId::new_at(1_700_000_000_000);
        let (a, b) = (copy_id("alice", id), copy_id("bob", id));
        assert_ne!(a, b);
        assert_ne!(a, id);
        assert_eq!(a, copy_id("alice", id), "the same every time");
        assert_eq!(
            &a.0.as_bytes()[..6],
            &id.0.as_bytes()[..6],
            "same creation time"
        );
        assert_eq!(a.0.get_version_num(), 7);
    }
}
