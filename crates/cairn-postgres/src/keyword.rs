//! The keyword side of a [`crate::PostgresStore`]: a query's terms
//! stemmed as the memories were, and scores by `rank::bm25_term`'s formula
//! over statistics of every memory (`kw_corpus`, `kw_terms`), as the other
//! backends score. The terms' `idf` (`rank::bm25_idf`) and the formula's
//! constants come from the core; the best `limit` are found over the
//! impact-ordered postings (`postings.rs`), scoring only the memories
//! that could be among them.

use std::collections::HashMap;

use cairn_core::store::{keyword_terms, Filter, Hit, TermRarity};
use cairn_core::Result;
use postgres::Transaction;

use crate::db::{Db, Scope};
use crate::postings;
use crate::sql::{get, pg_err};

/// Each term with its stem, in order, by the configuration that indexed
/// the memories (a term PostgreSQL makes no stem of is left out).
fn stems(tx: &mut Transaction<'_>, terms: &[String]) -> Result<Vec<(String, String)>> {
    let rows = tx
        .query(
            "SELECT tsvector_to_array(to_tsvector('cairn_english', t)) \
             FROM unnest($1::text[]) WITH ORDINALITY AS q(t, n) ORDER BY n",
            &[&terms],
        )
        .map_err(|e| pg_err("stemming a query", e))?;
    let mut stemmed = Vec::new();
    for (row, term) in rows.iter().zip(terms) {
        let stem: Vec<String> = get(row, 0)?;
        stemmed.extend(stem.into_iter().next().map(|s| (term.clone(), s)));
    }
    Ok(stemmed)
}

/// How many memories (of every tenant) hold each of `lexemes`; a lexeme no
/// memory holds is absent.
fn rows_with(tx: &mut Transaction<'_>, lexemes: &[String]) -> Result<HashMap<String, f64>> {
    let mut with_term = HashMap::new();
    for row in &tx
        .query(
            "SELECT lexeme, rows FROM kw_terms WHERE lexeme = ANY($1)",
            &[&lexemes],
        )
        .map_err(|e| pg_err("reading keyword statistics", e))?
    {
        let n: i64 = get(row, 1)?;
        with_term.insert(get(row, 0)?, n.max(0) as f64);
    }
    Ok(with_term)
}

/// [`cairn_core::Store::keyword_rarity`].
pub(crate) fn rarity(db: &Db, query: &str) -> Result<Option<TermRarity>> {
    let terms = keyword_terms(query);
    if terms.is_empty() {
        return Ok(None);
    }
    // As `keyword_search`: each term's stem, and BM25's statistics over
    // every memory of every tenant.
    db.tx(Scope::Unscoped, |tx| {
        let (terms, lexemes): (Vec<String>, Vec<String>) = stems(tx, &terms)?.into_iter().unzip();
        let corpus = tx
            .query_one("SELECT rows FROM kw_corpus", &[])
            .map_err(|e| pg_err("reading keyword statistics", e))?;
        let rows: i64 = get(&corpus, 0)?;
        let with_term = rows_with(tx, &lexemes)?;
        Ok(Some(TermRarity {
            rows: rows.max(0) as f64,
            terms,
            rows_with_term: lexemes
                .iter()
                .map(|l| with_term.get(l).copied().unwrap_or(0.0))
                .collect(),
        }))
    })
}

/// [`cairn_core::Store::keyword_search`].
pub(crate) fn search(db: &Db, query: &str, filter: &Filter, limit: usize) -> Result<Vec<Hit>> {
    let terms = keyword_terms(query);
    if terms.is_empty() {
        return Ok(Vec::new());
    }
    db.tx(Scope::Tenant(&filter.tenant), |tx| {
        let lexemes: Vec<String> = stems(tx, &terms)?.into_iter().map(|(_, l)| l).collect();
        if lexemes.is_empty() {
            return Ok(Vec::new());
        }
        // BM25's statistics over every memory of every tenant.
        let corpus = tx
            .query_one("SELECT rows, total_len FROM kw_corpus", &[])
            .map_err(|e| pg_err("reading keyword statistics", e))?;
        let rows: i64 = get(&corpus, 0)?;
        let total_len: i64 = get(&corpus, 1)?;
        let rows = rows.max(0) as f64;
        let avgdl = total_len.max(0) as f64 / rows.max(1.0);
        let with_term = rows_with(tx, &lexemes)?;
        // A stem no memory holds counts as held by one (its idf is then
        // the highest); it finds nothing either way.
        let rows_with: Vec<f64> = lexemes
            .iter()
            .map(|l| with_term.get(l).copied().unwrap_or(1.0))
            .collect();
        let query = postings::Query {
            lexemes: &lexemes,
            rows_with: &rows_with,
            rows,
            avgdl,
        };
        postings::top_k(tx, filter, &query, limit)
    })
}
