//! The keyword side of a [`crate::PostgresStore`]: a query's terms
//! stemmed as the memories were, candidates found by the GIN index, and
//! scores by `rank::bm25_term`'s formula over statistics of every memory
//! (`kw_corpus`, `kw_terms`), as the other backends score. The terms'
//! `idf` (`rank::bm25_idf`) and the formula's constants come from the
//! core; the database applies the formula to each candidate and sends only
//! the best `limit`.

use std::collections::HashMap;

use cairn_core::rank::{bm25_idf, BM25_B, BM25_FIELD_WEIGHTS, BM25_K1};
use cairn_core::store::{keyword_terms, Filter, Hit, TermRarity};
use cairn_core::{MemoryId, Result};
use postgres::Transaction;

use crate::db::{Db, Scope};
use crate::sql::{
    any_lexeme_query, factors_from_row, filter_sql, get, pg_err, Params, FACTOR_COLUMNS,
};

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
        let idfs: Vec<f64> = lexemes
            .iter()
            .map(|l| bm25_idf(rows, with_term.get(l).copied().unwrap_or(1.0)))
            .collect();
        // The candidates (the GIN index finds them), each matching stem's
        // weighted frequency (one letter per occurrence: A content, B tags,
        // C metadata), scored by `rank::bm25_term`'s formula with the
        // core's constants, and cut to the best `limit` in the database:
        // only those cross the wire.
        let mut params = Params::default();
        let condition = filter_sql(filter, &mut params);
        let tsquery = params.push(any_lexeme_query(&lexemes));
        let wanted = params.push(lexemes.clone());
        let idf = params.push(idfs);
        let mut number = |x: f64| format!("{}::float8", params.push(x));
        let [wa, wb, wc] = BM25_FIELD_WEIGHTS.map(&mut number);
        let (k1, b, avgdl) = (number(BM25_K1), number(BM25_B), number(avgdl));
        let limit = params.push(i64::try_from(limit).unwrap_or(i64::MAX));
        let sql = format!(
            "WITH scored AS ( \
               SELECT m.id, sum(q.idf * (t.f * ({k1} + 1)) \
                   / (t.f + {k1} * (1 - {b} + {b} * m.kw_len / {avgdl}))) AS score \
               FROM memories m \
               CROSS JOIN LATERAL ( \
                 SELECT u.lexeme, (SELECT coalesce(sum(CASE w WHEN 'A' THEN {wa} \
                     WHEN 'B' THEN {wb} WHEN 'C' THEN {wc} ELSE 0 END), 0) \
                   FROM unnest(u.weights) AS w) AS f \
                 FROM unnest(m.tsv) AS u(lexeme, positions, weights) \
                 WHERE u.lexeme = ANY({wanted})) t \
               JOIN unnest({wanted}::text[], {idf}::float8[]) AS q(lexeme, idf) \
                 ON q.lexeme = t.lexeme \
               WHERE {condition} AND m.tsv @@ {tsquery}::text::tsquery AND t.f > 0 \
               GROUP BY m.id \
               ORDER BY score DESC, m.id DESC LIMIT {limit}) \
             SELECT m.id, {FACTOR_COLUMNS}, s.score FROM scored s JOIN memories m ON m.id = s.id \
             ORDER BY s.score DESC, s.id DESC"
        );
        let found = tx
            .query(&sql, &params.refs())
            .map_err(|e| pg_err("searching keywords", e))?;
        found
            .iter()
            .map(|row| {
                Ok(Hit {
                    id: MemoryId(get(row, 0)?),
                    score: get(row, 5)?,
                    factors: factors_from_row(row, 1)?,
                })
            })
            .collect()
    })
}
