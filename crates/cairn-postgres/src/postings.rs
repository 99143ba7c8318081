//! The keyword search's top k, found without scoring every memory that
//! holds a query term: a threshold algorithm over impact-ordered postings
//! (`kw_postings`, migration 5), with every returned score computed
//! exactly by `rank::bm25_term`'s formula.
//!
//! # Why it is exact
//! A term's postings fall into groups by the term's occurrences in each
//! field (`fa`, `fb`, `fc`: one frequency `f`). Within a group, a memory's
//! BM25 contribution only falls as its length grows, whatever the
//! corpus's average length: so the group read in ascending length is read
//! best first, and a group read up to some row bounds every row not read
//! by that row's contribution. A round reads each group up to a depth
//! (whole lists for rare terms) and then:
//! - every memory read is bounded: its known contributions, plus for each
//!   term not read for it the best it could have in a group not read past
//!   its own length;
//! - in descending bound, the memories are filtered in the database and
//!   scored exactly, until the next bound is below the `limit`-th score:
//!   a memory whose every term was read (or is in no group that goes on
//!   past it) has its bound for score, the same sum of the same counts
//!   and length its `tsvector` holds (every memory of a query of rare
//!   terms, whose lists are read whole); any other is scored from its own
//!   words (`tsvector`);
//! - a memory never read scores at most the sum over terms of the best
//!   unread row of each term.
//!
//! When that sum is below the `limit`-th score (or every list was read to
//! its end), the top `limit` is exact; otherwise the next round reads
//! deeper (the last reads everything). Bounds are compared with a
//! relative margin of [`MARGIN`], so rounding never drops a memory.
//!
//! # Queries of common terms only
//! A query whose every term is common (its idf at most
//! `PostgresOptions::common_term_idf`: each held by one memory in 21 or
//! more by default) has loose bounds: the unread rows of a few terms held
//! by thousands of memories each sum to more than the best read, and an
//! exact answer reads their lists deep and scores thousands of memories.
//! Such a query makes one round only and scores exactly only the
//! memories read with the best bounds, until `limit` are found: its
//! answer is the best of what that round read (the shortest memories of
//! each term and frequency, a few hundred a group), not always the exact
//! top `limit`; every score is still exact.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use cairn_core::rank::{bm25_idf, bm25_term, BM25_FIELD_WEIGHTS};
use cairn_core::store::{Filter, Hit};
use cairn_core::{MemoryId, Result};
use uuid::Uuid;

use crate::db::Reader;
use crate::sql::{factors_from_row, filter_sql, get, pg_err, Params, FACTOR_COLUMNS};

/// Terms held by at most this many memories have their whole list read
/// in the first round (reading it costs less than a second round).
const WHOLE_LIST_ROWS: f64 = 4096.0;

/// Rows read per group by each round, the last reading everything.
const DEPTHS: [Option<i64>; 4] = [Some(256), Some(2048), Some(16384), None];

/// The relative margin of every comparison of a bound with a score.
const MARGIN: f64 = 1e-9;

/// BM25's corpus statistics and a query's terms, as the search uses them.
pub(crate) struct Query<'a> {
    /// The stems, in the query's order (no repeats).
    pub(crate) lexemes: &'a [String],
    /// How many memories hold each stem (all tenants).
    pub(crate) rows_with: &'a [f64],
    /// How many memories there are (all tenants).
    pub(crate) rows: f64,
    /// Their average length.
    pub(crate) avgdl: f64,
    /// The idf at or under which a term is common (see the module's doc).
    pub(crate) common_idf: f64,
    /// The statistics' version ([`Lists`]): it changes with every
    /// commit that changes any memory's words.
    pub(crate) version: i64,
}

impl Query<'_> {
    /// Term `t`'s contribution at weighted frequency `f` and length `len`.
    fn score(&self, t: usize, f: f64, len: i32) -> f64 {
        bm25_term(self.rows, self.rows_with[t], f, f64::from(len), self.avgdl)
    }

    /// Whether every term is common: the query is answered from one
    /// round (see the module's doc).
    fn all_common(&self) -> bool {
        self.rows_with
            .iter()
            .all(|n| bm25_idf(self.rows, *n) <= self.common_idf)
    }
}

/// One (term, field counts) group of postings, and how far it was read.
struct Group {
    term: usize,
    /// The weighted frequency of its rows.
    f: f64,
    /// The first row not read, `(len, id)`; `None` once read to the end.
    next: Option<(i32, Uuid)>,
}

/// A memory read from the postings: its length and, per term, the
/// weighted frequency read (`None`: not read).
struct Seen {
    len: i32,
    f: Vec<Option<f64>>,
}

/// One group's rows, `(len, id)`, in no particular order.
type GroupRows = ([i16; 3], Vec<(i32, Uuid)>);

/// The whole posting lists of rare terms read lately, by tenant and stem,
/// for one version of the statistics: a hybrid recall's feedback search
/// repeats its query's terms, and a recall repeated before any write
/// reads nothing again. Every commit that changes a memory's words
/// updates `kw_corpus`'s row, so its version (`xmin`, read with the
/// statistics) changing empties the cache: a list is reused only while
/// no word changed anywhere.
#[derive(Default)]
pub(crate) struct Lists(Mutex<ListCache>);

#[derive(Default)]
struct ListCache {
    version: i64,
    rows: usize,
    by_term: HashMap<(String, String), Arc<Vec<GroupRows>>>,
}

/// How many postings [`Lists`] holds at most (about 20 bytes each).
const CACHED_ROWS: usize = 200_000;

impl Lists {
    /// The cached list of each of `lexemes` (`None`: not cached).
    fn known(
        &self,
        tenant: &str,
        version: i64,
        lexemes: &[String],
    ) -> Vec<Option<Arc<Vec<GroupRows>>>> {
        let cache = self.0.lock().unwrap_or_else(|e| e.into_inner());
        lexemes
            .iter()
            .map(|l| match cache.version == version {
                true => cache.by_term.get(&(tenant.to_string(), l.clone())).cloned(),
                false => None,
            })
            .collect()
    }

    /// Keep `list`, the whole list of `lexeme` as of `version`.
    fn keep(&self, tenant: &str, version: i64, lexeme: &str, list: Arc<Vec<GroupRows>>) {
        let mut cache = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let rows: usize = list.iter().map(|(_, r)| r.len()).sum();
        if cache.version != version || cache.rows + rows > CACHED_ROWS {
            *cache = ListCache {
                version,
                ..ListCache::default()
            };
        }
        cache.rows += rows;
        cache
            .by_term
            .insert((tenant.to_string(), lexeme.to_string()), list);
    }
}

/// The top `limit` memories `filter` lets through by BM25 over `query`'s
/// terms, best first (ties by descending id).
pub(crate) fn top_k(
    tx: &mut Reader<'_>,
    filter: &Filter,
    query: &Query<'_>,
    limit: usize,
    lists: &Lists,
) -> Result<Vec<Hit>> {
    if limit == 0 {
        return Ok(Vec::new());
    }
    let common = query.all_common();
    let rounds = rounds(common);
    for (round, depth) in rounds.iter().enumerate() {
        let (groups, seen) = read(tx, &filter.tenant, query, *depth, lists)?;
        if groups.is_empty() {
            return Ok(Vec::new());
        }
        let (hits, complete) = best_of(tx, filter, query, &groups, &seen, limit, common)?;
        if complete || round + 1 == rounds.len() {
            return Ok(hits);
        }
    }
    unreachable!("a query makes one round at least")
}

/// The depths of the rounds a query makes: every one of [`DEPTHS`] (the
/// last reads everything), or only the first for a query whose every
/// term is common (`Query::all_common`).
fn rounds(all_common: bool) -> &'static [Option<i64>] {
    match all_common {
        true => &DEPTHS[..1],
        false => &DEPTHS,
    }
}

/// Each term's groups in the tenant's postings (their distinct field
/// counts, by a skip scan of the primary key: one probe a group), each
/// group's best `depth` rows (every row of a rare term, or of any term
/// when `depth` is `None`), and the memories read, with what was read of
/// each. A rare term's whole list comes from `lists` when it holds it,
/// and goes there when read. Groups whose rows score nothing (no
/// weighted occurrence) are left out.
fn read(
    tx: &mut Reader<'_>,
    tenant: &str,
    query: &Query<'_>,
    depth: Option<i64>,
    lists: &Lists,
) -> Result<(Vec<Group>, HashMap<Uuid, Seen>)> {
    // One row past the depth: whether the group goes on, and where.
    let limits: Vec<Option<i64>> = query
        .rows_with
        .iter()
        .map(|n| depth.filter(|_| *n > WHOLE_LIST_ROWS).map(|d| d + 1))
        .collect();
    let rare = |t: usize| query.rows_with[t] <= WHOLE_LIST_ROWS;
    // Each term's groups: a rare term's whole list shared with `lists`,
    // any other's as read.
    let mut lists_of: Vec<Option<Arc<Vec<GroupRows>>>> =
        lists.known(tenant, query.version, query.lexemes);
    let asked: Vec<usize> = (0..query.lexemes.len())
        .filter(|&t| lists_of[t].is_none())
        .collect();
    let mut partial: Vec<(usize, GroupRows)> = Vec::new();
    if !asked.is_empty() {
        let lexemes: Vec<&str> = asked.iter().map(|&t| query.lexemes[t].as_str()).collect();
        let asked_limits: Vec<Option<i64>> = asked.iter().map(|&t| limits[t]).collect();
        let mut whole: Vec<Vec<GroupRows>> = vec![Vec::new(); query.lexemes.len()];
        for (n, group) in read_groups(tx, tenant, &lexemes, &asked_limits)? {
            match rare(asked[n]) {
                true => whole[asked[n]].push(group),
                false => partial.push((asked[n], group)),
            }
        }
        for &t in asked.iter().filter(|&&t| rare(t)) {
            let list = Arc::new(std::mem::take(&mut whole[t]));
            lists.keep(tenant, query.version, &query.lexemes[t], list.clone());
            lists_of[t] = Some(list);
        }
    }
    let every = lists_of
        .iter()
        .enumerate()
        .flat_map(|(t, l)| l.iter().flat_map(move |l| l.iter().map(move |g| (t, g))))
        .chain(partial.iter().map(|(t, g)| (*t, g)));
    let mut groups: Vec<Group> = Vec::new();
    let mut seen: HashMap<Uuid, Seen> = HashMap::new();
    for (term, (counts, rows)) in every {
        let mut group = Group {
            term,
            f: weighted(counts.map(f64::from)),
            next: None,
        };
        // The row past the depth is the greatest read: not counted.
        let past = limits[term]
            .filter(|l| rows.len() as i64 >= *l)
            .and_then(|_| (0..rows.len()).max_by_key(|&i| rows[i]));
        group.next = past.map(|i| rows[i]);
        for (i, &(len, id)) in rows.iter().enumerate() {
            if Some(i) == past {
                continue;
            }
            let s = seen.entry(id).or_insert_with(|| Seen {
                len,
                f: vec![None; query.lexemes.len()],
            });
            s.f[term] = Some(group.f);
        }
        if !rows.is_empty() {
            groups.push(group);
        }
    }
    groups.retain(|g| g.f > 0.0);
    Ok((groups, seen))
}

/// Each group of `lexemes` in the tenant's postings, its best
/// `limits[n]` rows (all: `None`), with the position of its term in
/// `lexemes`: one statement, one row a group, its rows' lengths and ids
/// in two arrays.
fn read_groups(
    tx: &mut Reader<'_>,
    tenant: &str,
    lexemes: &[&str],
    limits: &[Option<i64>],
) -> Result<Vec<(usize, GroupRows)>> {
    let rows = tx
        .query(
            "WITH RECURSIVE g(n, fa, fb, fc) AS ( \
               SELECT q.n::int, f.fa, f.fb, f.fc \
               FROM unnest($2::text[]) WITH ORDINALITY AS q(lexeme, n) \
               CROSS JOIN LATERAL (SELECT p.fa, p.fb, p.fc FROM kw_postings p \
                 WHERE p.tenant = $1 AND p.lexeme = q.lexeme \
                 ORDER BY p.fa, p.fb, p.fc LIMIT 1) f \
               UNION ALL \
               SELECT g.n, f.fa, f.fb, f.fc FROM g \
               CROSS JOIN LATERAL (SELECT p.fa, p.fb, p.fc FROM kw_postings p \
                 WHERE p.tenant = $1 AND p.lexeme = ($2::text[])[g.n] \
                   AND (p.fa, p.fb, p.fc) > (g.fa, g.fb, g.fc) \
                 ORDER BY p.fa, p.fb, p.fc LIMIT 1) f) \
             SELECT g.n, g.fa, g.fb, g.fc, r.lens, r.ids FROM g \
             CROSS JOIN LATERAL (SELECT array_agg(p.len) AS lens, array_agg(p.memory_id) AS ids \
               FROM (SELECT p.len, p.memory_id FROM kw_postings p \
                 WHERE p.tenant = $1 AND p.lexeme = ($2::text[])[g.n] AND p.fa = g.fa \
                   AND p.fb = g.fb AND p.fc = g.fc \
                 ORDER BY p.len, p.memory_id LIMIT ($3::int8[])[g.n]) p) r",
            &[&tenant, &lexemes, &limits],
        )
        .map_err(|e| pg_err("reading keyword postings", e))?;
    rows.iter()
        .map(|row| {
            let n: i32 = get(row, 0)?;
            let counts: [i16; 3] = [get(row, 1)?, get(row, 2)?, get(row, 3)?];
            let lens: Vec<i32> = get::<Option<Vec<i32>>>(row, 4)?.unwrap_or_default();
            let ids: Vec<Uuid> = get::<Option<Vec<Uuid>>>(row, 5)?.unwrap_or_default();
            let at = usize::try_from(n - 1).unwrap_or(0);
            Ok((at, (counts, lens.into_iter().zip(ids).collect())))
        })
        .collect()
}

/// The weighted frequency of a stem occurring `counts` times in each
/// field (`rank::BM25_FIELD_WEIGHTS`).
fn weighted(counts: [f64; 3]) -> f64 {
    counts
        .iter()
        .zip(BM25_FIELD_WEIGHTS)
        .map(|(c, w)| c * w)
        .sum()
}

/// The best `limit` of the memories read that `filter` lets through,
/// scored exactly, and whether no memory left unread could be among them.
/// With `enough_at_limit`, scoring stops at the first chunk that brings
/// the hits to `limit` (a query of common terms: see the module's doc).
fn best_of(
    tx: &mut Reader<'_>,
    filter: &Filter,
    query: &Query<'_>,
    groups: &[Group],
    seen: &HashMap<Uuid, Seen>,
    limit: usize,
    enough_at_limit: bool,
) -> Result<(Vec<Hit>, bool)> {
    let terms = query.lexemes.len();
    // Per term, the best a row not read could add.
    let mut unread = vec![0.0f64; terms];
    for g in groups {
        if let Some((len, _)) = g.next {
            unread[g.term] = unread[g.term].max(query.score(g.term, g.f, len));
        }
    }
    let unseen: f64 = unread.iter().sum();
    let everything_read = groups.iter().all(|g| g.next.is_none());
    // Per term, its groups that go on past where they were read.
    let mut open: Vec<Vec<&Group>> = (0..terms).map(|_| Vec::new()).collect();
    for g in groups.iter().filter(|g| g.next.is_some()) {
        open[g.term].push(g);
    }
    // Each memory read, bounded above, and whether the bound is its score:
    // every term read for it, or in no group that goes on past it.
    let mut bounded: Vec<(f64, Uuid, bool)> = seen
        .iter()
        .map(|(id, s)| {
            let mut bound = 0.0;
            let mut exact = true;
            for (t, (read, groups)) in s.f.iter().zip(&open).enumerate() {
                bound += match read {
                    Some(f) => query.score(t, *f, s.len),
                    // In a group of this term not read past this row?
                    None => {
                        let best = groups
                            .iter()
                            .filter(|g| g.next.is_some_and(|n| n <= (s.len, *id)))
                            .map(|g| query.score(t, g.f, s.len))
                            .reduce(f64::max);
                        exact &= best.is_none();
                        best.unwrap_or(0.0)
                    }
                };
            }
            (bound, *id, exact)
        })
        .collect();
    bounded.sort_by(|a, b| b.0.total_cmp(&a.0).then(b.1.cmp(&a.1)));
    let mut hits: Vec<Hit> = Vec::new();
    let threshold = |hits: &[Hit]| match hits.len() >= limit {
        true => hits[limit - 1].score * (1.0 - MARGIN),
        false => f64::NEG_INFINITY,
    };
    let mut at = 0;
    let mut chunk = (limit * 2).max(32);
    while at < bounded.len()
        && bounded[at].0 >= threshold(&hits)
        && !(enough_at_limit && hits.len() >= limit)
    {
        let floor = threshold(&hits);
        let next: Vec<(f64, Uuid, bool)> = bounded[at..(at + chunk).min(bounded.len())]
            .iter()
            .take_while(|(bound, _, _)| *bound >= floor)
            .copied()
            .collect();
        at += next.len();
        chunk *= 2;
        // A bound that is the score (0: no term held) needs no rescoring.
        let known: Vec<(f64, Uuid)> = next
            .iter()
            .filter(|(bound, _, exact)| *exact && *bound > 0.0)
            .map(|(bound, id, _)| (*bound, *id))
            .collect();
        let unknown: Vec<Uuid> = next
            .iter()
            .filter(|(_, _, exact)| !exact)
            .map(|(_, id, _)| *id)
            .collect();
        hits.extend(let_through(tx, filter, &known)?);
        hits.extend(score_exactly(tx, filter, query, &unknown)?);
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(b.id.cmp(&a.id)));
        hits.truncate(limit);
    }
    let complete = everything_read || (hits.len() >= limit && unseen < threshold(&hits));
    Ok((hits, complete))
}

/// The memories of `scored` that `filter` lets through, each with the
/// score given: one the postings gave whole (every query stem's counts by
/// field and the memory's length, as its `tsvector` holds them, summed in
/// the query's order as [`score_exactly`] sums them).
fn let_through(tx: &mut Reader<'_>, filter: &Filter, scored: &[(f64, Uuid)]) -> Result<Vec<Hit>> {
    if scored.is_empty() {
        return Ok(Vec::new());
    }
    let mut params = Params::default();
    let condition = filter_sql(filter, &mut params);
    let ids = params.push(scored.iter().map(|(_, id)| *id).collect::<Vec<Uuid>>());
    let sql = format!(
        "SELECT m.id, {FACTOR_COLUMNS} FROM memories m WHERE m.id = ANY({ids}) AND {condition}"
    );
    let found = tx
        .query(&sql, &params.refs())
        .map_err(|e| pg_err("filtering keyword candidates", e))?;
    let score: HashMap<Uuid, f64> = scored.iter().map(|(s, id)| (*id, *s)).collect();
    let mut hits = Vec::with_capacity(found.len());
    for row in &found {
        let id: Uuid = get(row, 0)?;
        hits.push(Hit {
            id: MemoryId(id),
            score: score.get(&id).copied().unwrap_or(0.0),
            factors: factors_from_row(row, 1)?,
        });
    }
    Ok(hits)
}

/// The memories `ids` that `filter` lets through and that hold a query
/// term, each scored by `rank::bm25_term` over its own words: the query
/// stems' occurrences by field, read from its `tsvector`.
fn score_exactly(
    tx: &mut Reader<'_>,
    filter: &Filter,
    query: &Query<'_>,
    ids: &[Uuid],
) -> Result<Vec<Hit>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut params = Params::default();
    let condition = filter_sql(filter, &mut params);
    let ids = params.push(ids.to_vec());
    let wanted = params.push(query.lexemes.to_vec());
    let sql = format!(
        "SELECT m.id, {FACTOR_COLUMNS}, m.kw_len, w.lexemes, w.fa, w.fb, w.fc \
         FROM memories m CROSS JOIN LATERAL ( \
           SELECT array_agg(u.lexeme) AS lexemes, \
                  array_agg(cardinality(array_positions(u.weights, 'A'))) AS fa, \
                  array_agg(cardinality(array_positions(u.weights, 'B'))) AS fb, \
                  array_agg(cardinality(array_positions(u.weights, 'C'))) AS fc \
           FROM unnest(m.tsv) AS u(lexeme, positions, weights) \
           WHERE u.lexeme = ANY({wanted})) w \
         WHERE m.id = ANY({ids}) AND {condition}"
    );
    let found = tx
        .query(&sql, &params.refs())
        .map_err(|e| pg_err("scoring keyword candidates", e))?;
    let mut hits = Vec::new();
    for row in &found {
        let len: i32 = get(row, 5)?;
        let lexemes: Option<Vec<String>> = get(row, 6)?;
        let counts: [Option<Vec<i32>>; 3] = [get(row, 7)?, get(row, 8)?, get(row, 9)?];
        let (Some(lexemes), [Some(fa), Some(fb), Some(fc)]) = (lexemes, counts) else {
            continue;
        };
        // Summed in the query's order, as `rank::bm25_term`'s callers do.
        let mut score = 0.0;
        let mut matched = false;
        for (t, wanted) in query.lexemes.iter().enumerate() {
            let Some(i) = lexemes.iter().position(|l| l == wanted) else {
                continue;
            };
            let f = weighted([fa[i], fb[i], fc[i]].map(f64::from));
            if f > 0.0 {
                matched = true;
                score += query.score(t, f, len);
            }
        }
        if matched {
            hits.push(Hit {
                id: MemoryId(get(row, 0)?),
                score,
                factors: factors_from_row(row, 1)?,
            });
        }
    }
    Ok(hits)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query<'a>(lexemes: &'a [String], rows_with: &'a [f64], common_idf: f64) -> Query<'a> {
        Query {
            lexemes,
            rows_with,
            rows: 1000.0,
            avgdl: 20.0,
            common_idf,
            version: 0,
        }
    }

    #[test]
    fn a_query_is_common_when_every_term_is_held_widely_enough() {
        let words = ["the".to_string(), "and".to_string()];
        // idf ln((1000 − 47 + 0.5) / 47.5) = 3.0: one in 21.
        assert!(query(&words, &[48.0, 990.0], 3.0).all_common());
        assert!(!query(&words, &[40.0, 990.0], 3.0).all_common());
        // At 0 no query is common, not even one at the idf floor.
        assert!(query(&words, &[500.0, 990.0], 1e-6).all_common());
        assert!(!query(&words, &[500.0, 990.0], 0.0).all_common());
    }

    #[test]
    fn a_common_query_makes_one_bounded_round_and_others_read_on_to_the_end() {
        assert_eq!(rounds(true), &[Some(256)]);
        assert_eq!(rounds(false).len(), DEPTHS.len());
        assert_eq!(
            rounds(false).last(),
            Some(&None),
            "the last round reads every row"
        );
    }
}
