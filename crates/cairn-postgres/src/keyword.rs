//! The keyword side of a [`crate::PostgresStore`]: a query's terms
//! stemmed as the memories were, and scores by `rank::bm25_term`'s formula
//! over statistics of every memory (`kw_corpus`, `kw_terms`), as the other
//! backends score. The terms' `idf` (`rank::bm25_idf`) and the formula's
//! constants come from the core; the best `limit` are found over the
//! impact-ordered postings (`postings.rs`), scoring only the memories
//! that could be among them.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::thread::ThreadId;
use std::time::{Duration, Instant};

use crate::db::{Db, Reader, Scope};
use crate::postings;
use crate::sql::{get, pg_err};
use cairn_core::store::{keyword_terms, Filter, Hit, TermRarity};
use cairn_core::Result;

/// A query's terms as the keyword index holds them, and BM25's
/// statistics over every memory of every tenant.
#[derive(Clone)]
struct Stemmed {
    /// The terms PostgreSQL made a stem of, in order.
    terms: Vec<String>,
    /// Each one's stem.
    lexemes: Vec<String>,
    /// How many memories hold each stem (0: none).
    rows_with: Vec<f64>,
    /// How many memories there are.
    rows: f64,
    /// Their words, in all.
    total_len: f64,
    /// The statistics' version (`postings::Lists`).
    version: i64,
}

impl Stemmed {
    /// What [`stem`] would have read of `terms`, all of which this read
    /// asked, at the same version.
    fn only(self, terms: &[String]) -> Stemmed {
        let mut out = Stemmed {
            terms: Vec::new(),
            lexemes: Vec::new(),
            rows_with: Vec::new(),
            ..self
        };
        for term in terms {
            if let Some(i) = self.terms.iter().position(|t| t == term) {
                out.terms.push(term.clone());
                out.lexemes.push(self.lexemes[i].clone());
                out.rows_with.push(self.rows_with[i]);
            }
        }
        out
    }
}

/// Each term's stem by the configuration that indexed the memories (a term
/// PostgreSQL makes no stem of is left out), with the statistics, in one
/// statement.
fn stem(tx: &mut Reader<'_>, terms: &[String]) -> Result<Stemmed> {
    let rows = tx
        .query(
            "SELECT q.n::int, s.lexeme, coalesce(t.rows, 0), c.rows, c.total_len, \
                    c.xmin::text::int8 \
             FROM kw_corpus c \
             LEFT JOIN (unnest($1::text[]) WITH ORDINALITY AS q(term, n) \
               CROSS JOIN LATERAL (SELECT (tsvector_to_array( \
                   to_tsvector('cairn_english', q.term)))[1] AS lexeme) s \
               LEFT JOIN kw_terms t ON t.lexeme = s.lexeme) ON s.lexeme IS NOT NULL \
             ORDER BY q.n",
            &[&terms],
        )
        .map_err(|e| pg_err("stemming a query and reading keyword statistics", e))?;
    let mut out = Stemmed {
        terms: Vec::new(),
        lexemes: Vec::new(),
        rows_with: Vec::new(),
        rows: 0.0,
        total_len: 0.0,
        version: 0,
    };
    for row in &rows {
        out.rows = get::<i64>(row, 3)?.max(0) as f64;
        out.total_len = get::<i64>(row, 4)?.max(0) as f64;
        out.version = get(row, 5)?;
        let (Some(n), Some(lexeme)) = (get::<Option<i32>>(row, 0)?, get(row, 1)?) else {
            continue;
        };
        out.terms
            .push(terms[usize::try_from(n - 1).unwrap_or(0)].clone());
        out.lexemes.push(lexeme);
        out.rows_with.push(get::<i64>(row, 2)?.max(0) as f64);
    }
    Ok(out)
}

/// The statistics read lately, for the same recall's next read to take
/// instead of a round trip of its own: a hybrid recall asks [`rarity`]
/// of the query its keyword search just read, and its feedback search
/// asks [`search`] for the query with some of the first vector hits'
/// words, whose rarity (with the query's) it has just read. A read of
/// the database is taken once, by the thread that made it, within
/// [`RECENT_FOR`]: a search's statistics are at most that old, so a kept
/// posting list ([`postings::Lists`]) is reused at most that long after
/// a word changed.
#[derive(Default)]
pub(crate) struct Recent(Mutex<VecDeque<Read>>);

/// One read of terms' stems and statistics.
struct Read {
    at: Instant,
    thread: ThreadId,
    /// Whether [`rarity`] made it (else [`search`]).
    by_rarity: bool,
    /// The terms asked, stemmed or not.
    asked: Vec<String>,
    stemmed: Stemmed,
}

/// How many reads [`Recent`] keeps.
const RECENT_READS: usize = 32;

/// How long a read is taken: the gap between two reads of one recall.
const RECENT_FOR: Duration = Duration::from_millis(100);

impl Recent {
    /// Keep a read this thread made (its earlier ones go).
    fn put(&self, by_rarity: bool, asked: &[String], stemmed: &Stemmed) {
        let thread = std::thread::current().id();
        let mut recent = self.0.lock().unwrap_or_else(|e| e.into_inner());
        recent.retain(|r| r.thread != thread && r.at.elapsed() < RECENT_FOR);
        if recent.len() >= RECENT_READS {
            recent.pop_front();
        }
        recent.push_back(Read {
            at: Instant::now(),
            thread,
            by_rarity,
            asked: asked.to_vec(),
            stemmed: stemmed.clone(),
        });
    }

    /// This thread's read by [`rarity`] (`by_rarity`) or [`search`], if
    /// it asked every one of `terms`, as a read of `terms` alone would
    /// have stemmed them.
    fn take(&self, by_rarity: bool, terms: &[String]) -> Option<Stemmed> {
        let thread = std::thread::current().id();
        let mut recent = self.0.lock().unwrap_or_else(|e| e.into_inner());
        recent.retain(|r| r.at.elapsed() < RECENT_FOR);
        let i = recent.iter().position(|r| {
            r.thread == thread
                && r.by_rarity == by_rarity
                && terms.iter().all(|t| r.asked.contains(t))
        })?;
        let read = recent.remove(i)?.stemmed;
        Some(read.only(terms))
    }
}

fn rarity_of(stemmed: Stemmed) -> TermRarity {
    TermRarity {
        rows: stemmed.rows,
        terms: stemmed.terms,
        rows_with_term: stemmed.rows_with,
    }
}

/// [`cairn_core::store::Reading::keyword_rarity`].
pub(crate) fn rarity(db: &Db, recent: &Recent, query: &str) -> Result<Option<TermRarity>> {
    let terms = keyword_terms(query);
    if terms.is_empty() {
        return Ok(None);
    }
    let stemmed = match recent.take(false, &terms) {
        Some(known) => known,
        // As `keyword_search`: each term's stem, and BM25's statistics
        // over every memory of every tenant (no tenant's rows).
        None => {
            let read = db.read(Scope::Shared, "", "", |tx, _| stem(tx, &terms))?;
            recent.put(true, &terms, &read);
            read
        }
    };
    Ok(Some(rarity_of(stemmed)))
}

/// [`cairn_core::store::Reading::keyword_search`]; a query whose every
/// term's idf is at most `common_idf` is answered from one bounded read
/// (`crate::PostgresOptions::common_term_idf`).
pub(crate) fn search(
    db: &Db,
    (recent, lists): (&Recent, &postings::Lists),
    common_idf: f64,
    query: &str,
    filter: &Filter,
    limit: usize,
) -> Result<Vec<Hit>> {
    let terms = keyword_terms(query);
    if terms.is_empty() {
        return Ok(Vec::new());
    }
    db.read(Scope::Tenant(&filter.tenant), "", "", |tx, _| {
        let stemmed = match recent.take(true, &terms) {
            Some(known) => known,
            None => {
                let read = stem(tx, &terms)?;
                recent.put(false, &terms, &read);
                read
            }
        };
        if stemmed.lexemes.is_empty() {
            return Ok(Vec::new());
        }
        // A stem no memory holds counts as held by one (its idf is then
        // the highest); it finds nothing either way.
        let rows_with: Vec<f64> = stemmed.rows_with.iter().map(|n| n.max(1.0)).collect();
        let query = postings::Query {
            lexemes: &stemmed.lexemes,
            rows_with: &rows_with,
            rows: stemmed.rows,
            avgdl: stemmed.total_len / stemmed.rows.max(1.0),
            common_idf,
            version: stemmed.version,
        };
        postings::top_k(tx, filter, &query, limit, lists)
    })
}
