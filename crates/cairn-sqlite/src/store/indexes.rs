//! The store's in-process indexes: locks on the vector and keyword
//! indexes, keeping the keyword index in step with other writers, and
//! keyword search answered from it.

use super::*;

/// Above this many rows written or deleted since, the keyword index is
/// rebuilt from FTS5 instead of caught up (removing a row scans the
/// postings of each of its terms).
const MAX_KEYWORD_CATCH_UP: i64 = 1_000;

/// Most query terms whose FTS5 tokens are remembered (the cache is
/// emptied when it is full).
const MAX_CACHED_TERMS: usize = 50_000;

/// The rows indexed, and each term with the number of rows holding it.
type Frequencies = (i64, Vec<(i64, String)>);

impl SqliteStore {
    /// Keep the rarest terms of a keyword query (see [`PRUNE_ABOVE_DOCS`]).
    pub(super) fn prune_terms(&self, conn: &Connection, terms: Vec<String>) -> Result<Vec<String>> {
        let docs = meta_int(conn, "docs")?;
        if docs <= PRUNE_ABOVE_DOCS || terms.len() < 2 {
            return Ok(terms);
        }
        let counted = self.document_frequencies(conn, terms, docs)?;
        Ok(rarest_within(counted, MAX_KEYWORD_POSTINGS))
    }

    /// Each term with the number of rows holding it, and the rows indexed,
    /// from the in-memory keyword index brought up to the store's
    /// revision: `None` when that path cannot answer (the index is not
    /// built, or a term is a phrase to FTS5).
    pub(super) fn document_frequencies_in_memory(
        &self,
        terms: &[String],
    ) -> Result<Option<Frequencies>> {
        if self.keywords()?.is_none() {
            return Ok(None);
        }
        let tokens = {
            let conn = self.reader()?;
            self.sync_keywords(&conn, current_revs(&conn)?.content)?;
            self.query_tokens(&conn, terms)?
        };
        let Some(tokens) = tokens.into_iter().collect::<Option<Vec<Box<str>>>>() else {
            return Ok(None);
        };
        let guard = self.keywords()?;
        let Some(keywords) = guard.as_ref() else {
            return Ok(None);
        };
        let counted = terms
            .iter()
            .zip(&tokens)
            .map(|(term, token)| (keywords.rows_with(token) as i64, term.clone()))
            .collect();
        Ok(Some((keywords.rows() as i64, counted)))
    }

    /// Each term with the number of rows holding it (FTS5's count, cached
    /// in [`DfCache`]); `docs` is the store's row count.
    pub(super) fn document_frequencies(
        &self,
        conn: &Connection,
        terms: Vec<String>,
        docs: i64,
    ) -> Result<Vec<(i64, String)>> {
        let mut cache = self
            .df_cache
            .lock()
            .map_err(|_| Error::storage("df cache lock poisoned"))?;
        if (cache.docs - docs).abs() * 50 > docs {
            cache.df.clear();
            cache.docs = docs;
        }
        let mut counted = Vec::with_capacity(terms.len());
        for term in terms {
            let df = match cache.df.get(&term) {
                Some(df) => *df,
                None => {
                    let q = fts_query(std::slice::from_ref(&term)).unwrap_or_default();
                    let df: i64 = conn
                        .prepare_cached(
                            "SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?1",
                        )
                        .and_then(|mut s| s.query_row([q], |r| r.get(0)))
                        .map_err(sql_err)?;
                    cache.df.insert(term.clone(), df);
                    df
                }
            };
            counted.push((df, term));
        }
        Ok(counted)
    }

    /// Bring the vector index up to the store's revisions `revs` (read by
    /// the caller): rows written or deleted since its content revision,
    /// then rows accessed since its access revision.
    pub(super) fn sync_index(&self, conn: &Connection, revs: Revs) -> Result<()> {
        // At or past `revs`: another reader may have caught up further.
        let current = |index: &VectorIndex| {
            index.loaded && index.rev >= revs.content && index.access_rev >= revs.access
        };
        let index = self.vector_index()?;
        if current(&index) {
            return Ok(());
        }
        drop(index);
        let mut index = self.vector_index_mut()?;
        if current(&index) {
            return Ok(());
        }
        if !index.loaded || index.rev < revs.content {
            let load = catch_up_content(conn, &mut index, revs)?;
            if load.from_snapshot {
                self.decoded.store(load.decoded, Ordering::Relaxed);
            } else {
                self.decoded.fetch_add(load.decoded, Ordering::Relaxed);
            }
            index.settle(self.partition_at.load(Ordering::Relaxed));
        }
        if index.loaded && index.access_rev < revs.access {
            let mut stmt = conn
                .prepare_cached("SELECT rowid, count, last_at FROM accessed WHERE arev > ?1")
                .map_err(sql_err)?;
            let mut rows = stmt.query([index.access_rev]).map_err(sql_err)?;
            while let Some(row) = rows.next().map_err(sql_err)? {
                let count: i64 = row.get(1).map_err(sql_err)?;
                index.set_access(
                    row.get(0).map_err(sql_err)?,
                    count.max(0) as u64,
                    row.get(2).map_err(sql_err)?,
                );
            }
        }
        index.rev = index.rev.max(revs.content);
        index.access_rev = index.access_rev.max(revs.access);
        index.loaded = true;
        Ok(())
    }

    pub(super) fn vector_index(&self) -> Result<RwLockReadGuard<'_, VectorIndex>> {
        self.index
            .read()
            .map_err(|_| Error::storage("index lock poisoned"))
    }

    /// The vector index, caught up with every committed write, once
    /// `vector` is checked against the store's dimension.
    pub(super) fn vector_index_for(
        &self,
        vector: &[f32],
    ) -> Result<RwLockReadGuard<'_, VectorIndex>> {
        {
            let conn = self.reader()?;
            check_vector(&conn, vector)?;
            self.sync_index(&conn, current_revs(&conn)?)?;
        }
        self.vector_index()
    }

    pub(super) fn vector_index_mut(&self) -> Result<RwLockWriteGuard<'_, VectorIndex>> {
        self.index
            .write()
            .map_err(|_| Error::storage("index lock poisoned"))
    }

    pub(super) fn keywords(&self) -> Result<RwLockReadGuard<'_, Option<KeywordIndex>>> {
        self.keywords
            .read()
            .map_err(|_| Error::storage("keyword index lock poisoned"))
    }

    pub(super) fn keywords_mut(&self) -> Result<RwLockWriteGuard<'_, Option<KeywordIndex>>> {
        self.keywords
            .write()
            .map_err(|_| Error::storage("keyword index lock poisoned"))
    }

    /// A read-only connection of its own, for building an index while
    /// keyword search and reads go on (WAL readers do not block each
    /// other). NO_MUTEX: the connection is one thread's alone, and SQLite's
    /// per-call locking otherwise costs ~8% of a fresh recall here.
    pub(super) fn side_connection(&self) -> Result<Connection> {
        let conn = Connection::open_with_flags(
            &self.path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(sql_err)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(sql_err)?;
        Ok(conn)
    }

    /// Bring the keyword index, once built, up to the store's revision:
    /// deleted rows leave it, and rows written since are tokenised by FTS5
    /// again (through the scratch table) and replace their old postings.
    ///
    /// A catch-up that fails drops the index (searches fall back to FTS5
    /// until the next `preload`) and empties the scratch table: a half
    /// caught-up index or a leftover scratch row must never outlive the
    /// failure and break the searches that follow.
    pub(super) fn sync_keywords(&self, conn: &Connection, rev: i64) -> Result<()> {
        if self.keywords()?.as_ref().is_none_or(|k| k.rev >= rev) {
            return Ok(());
        }
        let mut guard = self.keywords_mut()?;
        let Some(index) = guard.as_mut().filter(|k| k.rev < rev) else {
            return Ok(());
        };
        let caught_up = catch_up_keywords(conn, index, rev);
        if caught_up.is_err() {
            *guard = None;
            let _ = clear_scratch(conn);
        }
        caught_up
    }

    /// FTS5's token for each query term: `None` for a term FTS5 splits
    /// into several tokens or none (a phrase, which only FTS5 matches).
    pub(super) fn query_tokens(
        &self,
        conn: &Connection,
        terms: &[String],
    ) -> Result<Vec<Option<Box<str>>>> {
        let mut cache = self
            .term_tokens
            .lock()
            .map_err(|_| Error::storage("token cache lock poisoned"))?;
        let missing: Vec<&String> = terms.iter().filter(|t| !cache.contains_key(*t)).collect();
        if !missing.is_empty() {
            if cache.len() + missing.len() > MAX_CACHED_TERMS {
                cache.clear();
            }
            conn.execute_batch(KEYWORD_TEMP_TABLES).map_err(sql_err)?;
            for (i, term) in missing.iter().enumerate() {
                conn.prepare_cached("INSERT INTO temp.cairn_tok (rowid, content) VALUES (?1, ?2)")
                    .and_then(|mut s| s.execute(params![i as i64, term]))
                    .map_err(sql_err)?;
            }
            let mut tokens: Vec<Vec<String>> = vec![Vec::new(); missing.len()];
            let rows: Result<Vec<(i64, String)>> = conn
                .prepare_cached("SELECT doc, term FROM temp.cairn_tok_instances")
                .and_then(|mut s| {
                    s.query_map([], |r| {
                        let term = r.get_ref(1)?.as_bytes_or_null().ok().flatten();
                        let term = term.unwrap_or_default();
                        Ok((r.get(0)?, fts_token(term).to_owned()))
                    })?
                    .collect()
                })
                .map_err(sql_err);
            let rows = match rows {
                Ok(rows) => rows,
                Err(e) => {
                    let _ = clear_scratch(conn);
                    return Err(e);
                }
            };
            for (doc, token) in rows {
                if let Some(t) = usize::try_from(doc).ok().and_then(|d| tokens.get_mut(d)) {
                    t.push(token);
                }
            }
            clear_scratch(conn)?;
            for (term, mut tokens) in missing.into_iter().zip(tokens) {
                let one = (tokens.len() == 1).then(|| tokens.remove(0).into_boxed_str());
                cache.insert(term.clone(), one);
            }
        }
        Ok(terms
            .iter()
            .map(|t| cache.get(t).cloned().flatten())
            .collect())
    }

    /// Keyword search on the in-memory index, ranked exactly as the FTS5
    /// query of
    /// [`Reading::keyword_search`](cairn_core::store::Reading::keyword_search)
    /// ranks (same pruning, same BM25). `None` when that path cannot answer:
    /// the index is not built, or a term is a phrase to FTS5.
    pub(super) fn keyword_search_in_memory(
        &self,
        terms: &[String],
        filter: &Filter,
        limit: usize,
    ) -> Result<Option<Vec<Hit>>> {
        if self.keywords()?.is_none() {
            return Ok(None);
        }
        let (tokens, vectors, guard) = {
            let conn = self.reader()?;
            let Some(tokens) = self
                .query_tokens(&conn, terms)?
                .into_iter()
                .collect::<Option<Vec<Box<str>>>>()
            else {
                return Ok(None);
            };
            // One revision for both indexes: they filter through each
            // other. Both are read-locked before the connection is let go
            // (syncing happens under it), so they stay at that revision
            // while scoring, and the vector side of a hybrid search can
            // use the connection meanwhile.
            let revs = current_revs(&conn)?;
            self.sync_index(&conn, revs)?;
            self.sync_keywords(&conn, revs.content)?;
            let vectors = self.vector_index()?;
            (tokens, vectors, self.keywords()?)
        };
        let Some(keywords) = guard.as_ref() else {
            return Ok(None);
        };
        let token_of: HashMap<&str, &str> = terms
            .iter()
            .map(String::as_str)
            .zip(tokens.iter().map(|t| &**t))
            .collect();
        let kept: Vec<&str> = if keywords.rows() as i64 <= PRUNE_ABOVE_DOCS || terms.len() < 2 {
            tokens.iter().map(|t| &**t).collect()
        } else {
            let counted = terms
                .iter()
                .map(|t| (keywords.rows_with(token_of[t.as_str()]) as i64, t.clone()))
                .collect();
            rarest_within(counted, MAX_KEYWORD_POSTINGS)
                .iter()
                .map(|t| token_of[t.as_str()])
                .collect()
        };
        let Some(admit) = vectors.admit(filter) else {
            return Ok(Some(Vec::new()));
        };
        // Best first; the filter is checked in that order, until `limit`
        // rows pass and the next score is lower (ties are ordered by id).
        let mut scored = keywords.scores(&kept);
        scored.sort_unstable_by(|a, b| b.1.total_cmp(&a.1));
        let mut hits: Vec<Hit> = Vec::with_capacity(limit);
        for (rowid, score) in scored {
            if hits.len() >= limit && hits.last().is_some_and(|h| h.score > score) {
                break;
            }
            if let Some(attrs) = vectors.admitted(&admit, rowid) {
                hits.push(Hit {
                    id: attrs.id,
                    score,
                    factors: attrs.factors(),
                });
            }
        }
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(b.id.cmp(&a.id)));
        hits.truncate(limit);
        Ok(Some(hits))
    }
}

/// Bring `index` up to revision `rev` (see [`SqliteStore::sync_keywords`]).
fn catch_up_keywords(conn: &Connection, index: &mut KeywordIndex, rev: i64) -> Result<()> {
    let since = index.rev;
    let changes: i64 = conn
        .prepare_cached(
            "SELECT (SELECT count(*) FROM tombstones WHERE rev > ?1) \
             + (SELECT count(*) FROM vindex WHERE rev > ?1)",
        )
        .and_then(|mut s| s.query_row([since], |r| r.get(0)))
        .map_err(sql_err)?;
    if changes > MAX_KEYWORD_CATCH_UP {
        *index = load_keywords(conn)?;
        return Ok(());
    }
    let gone: Vec<i64> = conn
        .prepare_cached("SELECT rowid FROM tombstones WHERE rev > ?1")
        .and_then(|mut s| s.query_map([since], |r| r.get(0))?.collect())
        .map_err(sql_err)?;
    for rowid in gone {
        index.remove(rowid);
    }
    type Row = (i64, String, String, String, Option<String>);
    let changed: Vec<Row> = conn
        .prepare_cached(
            "SELECT m.rowid, m.content, m.tags, m.metadata, m.search_context FROM vindex v \
             JOIN memories m ON m.rowid = v.rowid WHERE v.rev > ?1",
        )
        .and_then(|mut s| {
            s.query_map([since], |r| {
                Ok((
                    r.get(0)?,
                    r.get::<_, crate::packing::StoredText>(1)?.0,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                ))
            })?
            .collect()
        })
        .map_err(sql_err)?;
    conn.execute_batch(KEYWORD_TEMP_TABLES).map_err(sql_err)?;
    for (rowid, content, tags, metadata, context) in changed {
        index.remove(rowid);
        let (tags, metadata) = fts_columns(&tags, &metadata, context.as_deref())?;
        conn.prepare_cached(
            "INSERT INTO temp.cairn_tok (rowid, content, tags, metadata) VALUES (?1, ?2, ?3, ?4)",
        )
        .and_then(|mut s| s.execute(params![rowid, content, tags, metadata]))
        .map_err(sql_err)?;
    }
    add_instances(conn, index, "temp.cairn_tok_instances")?;
    clear_scratch(conn)?;
    index.rev = rev;
    Ok(())
}

impl StoreCaches for SqliteStore {
    fn warm_up(&self) -> Result<()> {
        let loaded = self.vector_index()?.loaded;
        if loaded {
            return Ok(()); // catching up is cheap: `vector_search` does it
        }
        let conn = self.side_connection()?;
        self.sync_index(&conn, current_revs(&conn)?)
    }

    fn preload(&self) -> Result<()> {
        self.warm_up()?;
        if self.keywords()?.is_some() {
            return Ok(());
        }
        // Built from a snapshot on a connection of its own (seconds at
        // 100,000 memories; searches meanwhile use FTS5), then caught up
        // by the next search.
        let index = load_keywords(&self.side_connection()?)?;
        let mut guard = self.keywords_mut()?;
        if guard.is_none() {
            *guard = Some(index);
        }
        Ok(())
    }

    /// Saves a snapshot of the vector index when it pays off: at least
    /// [`SNAPSHOT_MIN_ENTRIES`] memories, an eighth of them decoded from rows
    /// since this process loaded its index.
    fn save_caches(&self) -> Result<()> {
        let entries = {
            let index = self.vector_index()?;
            if !index.loaded {
                return Ok(());
            }
            index.len()
        };
        if snapshot_pays_off(entries, self.decoded.load(Ordering::Relaxed)) {
            self.save_index_snapshot()?;
        }
        Ok(())
    }
}
