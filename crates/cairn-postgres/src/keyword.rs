//! The keyword side of a [`crate::PostgresStore`]: a query's terms
//! stemmed as the memories were, candidates found by the GIN index, and
//! scores computed with `rank::bm25_term` over statistics of every memory
//! (`kw_corpus`, `kw_terms`), as the other backends score.

use std::collections::HashMap;

use cairn_core::rank::{bm25_term, BM25_FIELD_WEIGHTS};
use cairn_core::store::{keyword_terms, Filter, Hit, TermRarity};
use cairn_core::{MemoryId, Result};
use postgres::Transaction;
use uuid::Uuid;

use crate::db::{Db, Scope};
use crate::sql::{
    any_lexeme_query, factors_from_row, filter_sql, get, pg_err, Params, FACTOR_COLUMNS,
};

/// Each term's stem, in order, by the configuration that indexed the
/// memories (a term PostgreSQL makes no stem of is left out).
fn stems(tx: &mut Transaction<'_>, terms: &[String]) -> Result<Vec<String>> {
    let rows = tx
        .query(
            "SELECT tsvector_to_array(to_tsvector('cairn_english', t)) \
             FROM unnest($1::text[]) WITH ORDINALITY AS q(t, n) ORDER BY n",
            &[&terms],
        )
        .map_err(|e| pg_err("stemming a query", e))?;
    let mut lexemes = Vec::new();
    for row in &rows {
        let stem: Vec<String> = get(row, 0)?;
        lexemes.extend(stem.into_iter().next());
    }
    Ok(lexemes)
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
        let lexemes = stems(tx, &terms)?;
        let corpus = tx
            .query_one("SELECT rows FROM kw_corpus", &[])
            .map_err(|e| pg_err("reading keyword statistics", e))?;
        let rows: i64 = get(&corpus, 0)?;
        let with_term = rows_with(tx, &lexemes)?;
        Ok(Some(TermRarity {
            rows: rows.max(0) as f64,
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
        let lexemes = stems(tx, &terms)?;
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
        // The candidates (the GIN index finds them) with each matching
        // stem's weights: one letter per occurrence, A content, B tags,
        // C metadata.
        let mut params = Params::default();
        let condition = filter_sql(filter, &mut params);
        let tsquery = params.push(any_lexeme_query(&lexemes));
        let wanted = params.push(lexemes.clone());
        let sql = format!(
            "SELECT m.id, {FACTOR_COLUMNS}, m.kw_len, u.lexeme, u.weights \
             FROM memories m, unnest(m.tsv) AS u(lexeme, positions, weights) \
             WHERE {condition} AND m.tsv @@ {tsquery}::text::tsquery AND u.lexeme = ANY({wanted})"
        );
        let found = tx
            .query(&sql, &params.refs())
            .map_err(|e| pg_err("searching keywords", e))?;
        struct Candidate {
            factors: cairn_core::RankFactors,
            len: f64,
            freq: HashMap<String, f64>,
        }
        let mut candidates: HashMap<Uuid, Candidate> = HashMap::new();
        for row in &found {
            let id: Uuid = get(row, 0)?;
            let len: i32 = get(row, 5)?;
            let lexeme: String = get(row, 6)?;
            let weights: Vec<String> = get(row, 7)?;
            let freq: f64 = weights
                .iter()
                .map(|w| match w.as_str() {
                    "A" => BM25_FIELD_WEIGHTS[0],
                    "B" => BM25_FIELD_WEIGHTS[1],
                    "C" => BM25_FIELD_WEIGHTS[2],
                    _ => 0.0,
                })
                .sum();
            let candidate = match candidates.entry(id) {
                std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::hash_map::Entry::Vacant(e) => e.insert(Candidate {
                    factors: factors_from_row(row, 1)?,
                    len: f64::from(len),
                    freq: HashMap::new(),
                }),
            };
            candidate.freq.insert(lexeme, freq);
        }
        let mut hits: Vec<Hit> = candidates
            .into_iter()
            .filter_map(|(id, c)| {
                let mut score = 0.0;
                let mut matched = false;
                for lexeme in &lexemes {
                    let freq = c.freq.get(lexeme).copied().unwrap_or(0.0);
                    if freq > 0.0 {
                        matched = true;
                        let n = with_term.get(lexeme).copied().unwrap_or(1.0);
                        score += bm25_term(rows, n, freq, c.len, avgdl);
                    }
                }
                matched.then_some(Hit {
                    id: MemoryId(id),
                    score,
                    factors: c.factors,
                })
            })
            .collect();
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(b.id.cmp(&a.id)));
        hits.truncate(limit);
        Ok(hits)
    })
}
