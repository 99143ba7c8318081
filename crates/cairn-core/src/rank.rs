//! Ranking math: pure functions, each documented with its formula.
//!
//! Recall multiplies a relevance score (Reciprocal Rank Fusion of the keyword
//! and vector rankings) by four factors:
//!
//! ```text
//! final = rrf × access_boost × recency_decay × scope_weight × weight
//! ```
//!
//! and keeps only results whose [`relevance::relevance`] (a probability
//! from the memory's own evidence, not its rank) reaches a floor.
//!
//! Nothing here touches storage, embeddings or I/O.

pub mod current;
pub mod relevance;
pub mod ties;

use std::collections::HashMap;
use std::hash::Hash;

/// The RRF constant `k`: an item at rank `r` of a list scores
/// `w / (k + r)`. Cormack et al. (2009) used 60, which flattens the top of
/// both lists so that one list's first place barely beats its tenth; with
/// lists of a few dozen candidates a small `k` keeps each list's own order
/// meaningful. Chosen on LoCoMo evidence recall with [`VECTOR_WEIGHT`]
/// (docs/BENCHMARKS.md has the ablation): against k = 60 with equal
/// weights it raised hybrid recall and put hybrid ahead of keyword-only
/// search at every cut-off.
pub const RRF_K: f64 = 5.0;

/// Weight of the keyword (BM25) ranking in the fusion.
pub const KEYWORD_WEIGHT: f64 = 1.0;

/// Weight of the vector ranking in the fusion. Below the keyword weight:
/// a memory that shares the query's rare words is a stronger signal than
/// the nearest neighbour of a small sentence-embedding model (on LoCoMo
/// BM25 alone recalls far more evidence than vectors alone); the vectors
/// still lift what keyword search misses. With this weight a first place among vectors counts as much as a
/// tenth place among keywords.
pub const VECTOR_WEIGHT: f64 = 0.4;

/// Candidates each side offers per result asked for.
pub const CANDIDATES_PER_RESULT: usize = 3;

/// Milliseconds in a day.
pub const MS_PER_DAY: f64 = 86_400_000.0;

/// Recency decay rate per day since last access: `exp(-0.01·days)`, a
/// half-life of ln 2 / 0.01 ≈ 69 days.
pub const DECAY_PER_DAY: f64 = 0.01;

/// Scope weight of a memory of the project being recalled in.
pub const PROJECT_SCOPE_WEIGHT: f64 = 1.0;

/// Scope weight of a global memory seen from a project (or from anywhere).
pub const GLOBAL_SCOPE_WEIGHT: f64 = 0.8;

/// BM25 `k1` (term-frequency saturation), as SQLite's FTS5.
pub const BM25_K1: f64 = 1.2;
/// BM25 `b` (length normalisation), as SQLite's FTS5.
pub const BM25_B: f64 = 0.75;
/// Weights of a memory's searchable fields in BM25: content, tags,
/// metadata values (metadata counts half: it holds context, not the memory
/// itself).
pub const BM25_FIELD_WEIGHTS: [f64; 3] = [1.0, 1.0, 0.5];

/// One term's contribution to a memory's BM25 score, exactly as SQLite's
/// FTS5 computes it (`bm25()` in `fts5_aux.c`), so that every backend
/// scores alike:
///
/// `idf · (f · (k1 + 1)) / (f + k1 · (1 − b + b · D / avgdl))`
///
/// with `idf = ln((N − n + 0.5) / (n + 0.5))`, floored at 10⁻⁶ (a term in
/// more than half the memories still counts a little), where `N` is the
/// number of memories, `n` those containing the term, `f` the term's
/// occurrences in the memory weighted by field ([`BM25_FIELD_WEIGHTS`]),
/// `D` the memory's length in tokens and `avgdl` the average length.
/// A memory's score is the sum over the query's terms.
pub fn bm25_term(rows: f64, rows_with_term: f64, freq: f64, len: f64, avgdl: f64) -> f64 {
    bm25_idf(rows, rows_with_term)
        * ((freq * (BM25_K1 + 1.0)) / (freq + BM25_K1 * (1.0 - BM25_B + BM25_B * len / avgdl)))
}

/// BM25's inverse document frequency of a term, as [`bm25_term`] uses it:
/// `ln((N − n + 0.5) / (n + 0.5))`, floored at 10⁻⁶.
pub fn bm25_idf(rows: f64, rows_with_term: f64) -> f64 {
    let idf = ((rows - rows_with_term + 0.5) / (rows_with_term + 0.5)).ln();
    if idf <= 0.0 {
        1e-6
    } else {
        idf
    }
}

/// How far the keyword ranking can be trusted for one query: the share of
/// the query's IDF mass that its best hit matched.
///
/// ```text
/// confidence = min(1, top_bm25 / Σ_{t : n_t > 0} idf(t))
/// ```
///
/// with `idf` as [`bm25_idf`] over `rows` memories, `n_t` the memories
/// holding term `t`. `Σ idf` is what a memory of average length holding
/// each query term once would score, so the ratio is about the share of
/// the query's information (rare words weigh more) that the best keyword
/// match covers. Terms no memory holds are left out: no keyword match
/// could cover them, so they say nothing of this ranking. A match on every
/// rare word of the question gives 1; a match on one generic word
/// ("customer", "user") of a question whose other words are rare gives a
/// small share, and that ranking orders memories by a word that says
/// little about the question. 1 when there is nothing to measure (no
/// term found, or no keyword hit: then the weight does not matter).
pub fn keyword_confidence(top_bm25: Option<f64>, rows: f64, rows_with_term: &[f64]) -> f64 {
    let mass: f64 = rows_with_term
        .iter()
        .filter(|&&n| n > 0.0)
        .map(|&n| bm25_idf(rows, n))
        .sum();
    match top_bm25 {
        Some(top) if mass > 0.0 => (top / mass).clamp(0.0, 1.0),
        _ => 1.0,
    }
}

/// How sure the vector ranking is of its first place for one query: the
/// margin of its best cosine over the cosine at [`VECTOR_MARGIN_RANK`],
/// on a scale of `margin_scale`.
///
/// ```text
/// confidence = clamp((cos_1 − cos_r) / margin_scale, 0, 1),  r = min(VECTOR_MARGIN_RANK, n)
/// ```
///
/// A query whose nearest memory stands out from the rest gives 1; one
/// whose nearest memories are all about as close (the embedding sees
/// nothing in particular) gives about 0. 0 when there are fewer than two
/// cosines or the scale is not positive: nothing to measure, and then the
/// keyword ranking keeps its weight.
pub fn vector_confidence(cosines: &[f64], margin_scale: f64) -> f64 {
    if cosines.len() < 2 || margin_scale <= 0.0 {
        return 0.0;
    }
    let other = cosines[VECTOR_MARGIN_RANK.min(cosines.len()) - 1];
    ((cosines[0] - other) / margin_scale).clamp(0.0, 1.0)
}

/// The rank whose cosine [`vector_confidence`] measures the first one's
/// margin against.
pub const VECTOR_MARGIN_RANK: usize = 10;

/// The margin of the first cosine over the tenth at which the vector
/// ranking counts as sure ([`vector_confidence`]), chosen on LoCoMo and
/// Cairn's evaluation set together (docs/BENCHMARKS.md, "Query-adaptive
/// fusion").
pub const VECTOR_MARGIN: f64 = 0.2;

/// How recall fuses its keyword and vector rankings: the parameters of
/// [`reciprocal_rank_fusion`] and how many candidates each side offers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fusion {
    /// The RRF constant (default [`RRF_K`]).
    pub k: f64,
    /// Weight of the keyword (BM25) ranking (default [`KEYWORD_WEIGHT`]).
    pub keyword_weight: f64,
    /// Weight of the vector ranking (default [`VECTOR_WEIGHT`]).
    pub vector_weight: f64,
    /// Candidates each side offers per result asked for (default
    /// [`CANDIDATES_PER_RESULT`]).
    pub candidates_per_result: usize,
    /// Scale the keyword weight per query by [`keyword_confidence`] and
    /// [`vector_confidence`] ([`Fusion::weights`]; default on: see
    /// docs/BENCHMARKS.md).
    pub adaptive_keyword: bool,
    /// The cosine margin at which the vector ranking counts as sure of its
    /// first place ([`vector_confidence`]; default [`VECTOR_MARGIN`]).
    pub vector_margin: f64,
    /// Multiply each candidate's score by [`entity_boost`] for the
    /// entities it shares with the query (default off; see
    /// docs/BENCHMARKS.md).
    pub entity_boost: bool,
    /// Deprioritise memories idle for longer than this many days
    /// ([`staleness`], on top of [`recency_decay`]); `None` (the default)
    /// leaves it off (see docs/BENCHMARKS.md).
    pub staleness_days: Option<f64>,
    /// Hybrid recall multiplies the score of a memory written within the
    /// time the query names by [`time_match`] with this boost (default
    /// [`TIME_MATCH_BOOST`]; 0 turns it off).
    pub time_boost: f64,
    /// Hybrid recall's weight for a third ranking: the keyword search of the
    /// query with [`feedback_terms`] of the vector ranking's first
    /// [`FEEDBACK_DOCS`] hits (default [`FEEDBACK_WEIGHT`]; 0 turns it off).
    pub feedback_weight: f64,
    /// The least [`relevance::relevance`] a result needs when the request
    /// names none (default [`relevance::RELEVANCE_FLOOR`]; 0 turns the
    /// floor off).
    pub min_relevance: f64,
    /// The coefficients [`relevance::relevance`] uses (default
    /// [`relevance::FITTED`]; other values are for experiments).
    pub relevance_model: relevance::RelevanceModel,
    /// Hybrid, keyword and semantic recall multiply each candidate's score
    /// by [`relevance_factor`] with this weight: its own evidence for the
    /// query (default [`RELEVANCE_WEIGHT`]; 0 turns it off).
    pub relevance_weight: f64,
}

impl Default for Fusion {
    fn default() -> Self {
        Fusion {
            k: RRF_K,
            keyword_weight: KEYWORD_WEIGHT,
            vector_weight: VECTOR_WEIGHT,
            candidates_per_result: CANDIDATES_PER_RESULT,
            adaptive_keyword: true,
            vector_margin: VECTOR_MARGIN,
            entity_boost: false,
            staleness_days: None,
            time_boost: TIME_MATCH_BOOST,
            feedback_weight: FEEDBACK_WEIGHT,
            min_relevance: relevance::RELEVANCE_FLOOR,
            relevance_model: relevance::FITTED,
            relevance_weight: RELEVANCE_WEIGHT,
        }
    }
}

impl Fusion {
    /// The weights of the keyword and vector rankings for one query, from
    /// the keyword ranking's confidence `kc` ([`keyword_confidence`]) and
    /// the vector ranking's `vc` ([`vector_confidence`]):
    ///
    /// ```text
    /// w_keyword = keyword_weight · (1 − vc · (1 − kc))
    /// w_vector  = vector_weight
    /// ```
    ///
    /// A keyword ranking that matched most of the query's IDF mass keeps
    /// its lead; one that matched only a generic word weighs less, as far
    /// as the vector ranking is sure of its own first place, so a clear
    /// semantic match can rise above it while an unsure one cannot.
    pub fn weights(&self, kc: f64, vc: f64) -> (f64, f64) {
        let (kc, vc) = (kc.clamp(0.0, 1.0), vc.clamp(0.0, 1.0));
        (
            self.keyword_weight * (1.0 - vc * (1.0 - kc)),
            self.vector_weight,
        )
    }
}

/// Weighted Reciprocal Rank Fusion of several rankings.
///
/// Each list holds items best first, with a weight `w`; an item at 1-based
/// rank `r` in a list contributes `w / (k + r)`, and an item's fused score
/// is the sum over the lists it appears in:
///
/// ```text
/// rrf(d) = Σ_lists w_list / (k + rank_list(d))
/// ```
///
/// With every weight 1 this is the RRF of Cormack et al. (2009). Returns
/// items with their fused score, best first; ties keep the order in which
/// items were first seen (earlier lists first), so the result is
/// deterministic.
pub fn reciprocal_rank_fusion<T: Clone + Eq + Hash>(
    lists: &[(&[T], f64)],
    k: f64,
) -> Vec<(T, f64)> {
    let mut scores: HashMap<T, (f64, usize)> = HashMap::new();
    let mut order = 0usize;
    for (list, weight) in lists {
        for (i, item) in list.iter().enumerate() {
            let contribution = weight / (k + (i + 1) as f64);
            let entry = scores.entry(item.clone()).or_insert_with(|| {
                order += 1;
                (0.0, order)
            });
            entry.0 += contribution;
        }
    }
    let mut fused: Vec<(T, f64, usize)> = scores.into_iter().map(|(t, (s, o))| (t, s, o)).collect();
    fused.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.2.cmp(&b.2)));
    fused.into_iter().map(|(t, s, _)| (t, s)).collect()
}

/// Access boost: memories that are used often rank a little higher.
///
/// ```text
/// boost = 1 + 0.1 · ln(1 + access_count)
/// ```
///
/// 1.0 for a memory never accessed; 10 accesses give ≈ 1.24, 100 give ≈ 1.46.
pub fn access_boost(access_count: u64) -> f64 {
    1.0 + 0.1 * (1.0 + access_count as f64).ln()
}

/// Recency decay: memories not used for a long time rank lower.
///
/// ```text
/// decay = exp(-0.01 · days since last access)
/// ```
///
/// Exactly 1.0 for a memory never accessed (`last_accessed_at = None`), so a
/// new memory is never penalised; an access in the future (clock skew)
/// counts as now.
pub fn recency_decay(last_accessed_at: Option<i64>, now: i64) -> f64 {
    match last_accessed_at {
        None => 1.0,
        Some(t) => {
            let days = ((now - t).max(0)) as f64 / MS_PER_DAY;
            (-DECAY_PER_DAY * days).exp()
        }
    }
}

/// Maximal marginal relevance (Carbonell & Goldstein, 1998): the order in
/// which to show candidates so that each adds relevance without repeating
/// what came before.
///
/// ```text
/// rel(i)  = relevance(i) / max relevance          (0–1)
/// next    = argmax_{i ∉ S} λ · rel(i) − (1 − λ) · max_{j ∈ S} sim(i, j)
/// ```
///
/// starting from `S = ∅` (the most relevant first), until every index is
/// placed; ties go to the earlier index. `λ = 1` keeps the relevance
/// order; smaller `λ` spreads the results out. `sim` is a similarity in
/// −1..1 (a cosine). Returns indices into `relevance`, best first.
pub fn mmr(relevance: &[f64], sim: impl Fn(usize, usize) -> f64, lambda: f64) -> Vec<usize> {
    let lambda = lambda.clamp(0.0, 1.0);
    let top = relevance.iter().copied().fold(0.0, f64::max);
    let rel: Vec<f64> = relevance
        .iter()
        .map(|r| if top > 0.0 { r / top } else { 0.0 })
        .collect();
    let n = rel.len();
    let mut placed = Vec::with_capacity(n);
    let mut used = vec![false; n];
    // The highest similarity of each candidate to those placed so far.
    let mut nearest = vec![f64::NEG_INFINITY; n];
    for _ in 0..n {
        let mut best: Option<(usize, f64)> = None;
        for i in (0..n).filter(|&i| !used[i]) {
            let redundancy = if placed.is_empty() { 0.0 } else { nearest[i] };
            let value = lambda * rel[i] - (1.0 - lambda) * redundancy;
            if best.is_none_or(|(_, v)| value > v) {
                best = Some((i, value));
            }
        }
        let Some((pick, _)) = best else { break };
        used[pick] = true;
        placed.push(pick);
        for i in (0..n).filter(|&i| !used[i]) {
            nearest[i] = nearest[i].max(sim(i, pick));
        }
    }
    placed
}

/// The least [`staleness`] factor: a long-idle memory still counts half.
pub const STALE_FLOOR: f64 = 0.5;

/// Staleness (Memory Vault AI's `staleness_days`): memories idle for longer
/// than `staleness_days` rank lower, on top of [`recency_decay`].
///
/// ```text
/// idle      = days since max(last access, creation)
/// staleness = 1                                       if idle ≤ S
///           = max(STALE_FLOOR, 1 − 0.5 · (idle − S) / S)  otherwise
/// ```
///
/// A linear ramp from 1 at `S` days idle to [`STALE_FLOOR`] (0.5) at `2S`,
/// then flat: unlike the decay, a memory never accessed is judged by its
/// age, and old memories are not driven to zero (a stale memory that is
/// the only match still comes back). `S ≤ 0` or `None` turns it off (1.0).
/// Times in the future count as now.
pub fn staleness(
    last_accessed_at: Option<i64>,
    created_at: i64,
    now: i64,
    staleness_days: Option<f64>,
) -> f64 {
    let Some(limit) = staleness_days.filter(|s| *s > 0.0) else {
        return 1.0;
    };
    let touched = last_accessed_at.map_or(created_at, |a| a.max(created_at));
    let idle = (now - touched).max(0) as f64 / MS_PER_DAY;
    if idle <= limit {
        1.0
    } else {
        (1.0 - 0.5 * (idle - limit) / limit).max(STALE_FLOOR)
    }
}

/// Scope weight: a project's own memories count fully, global ones a little
/// less (they are about everything, so less specific to the question).
///
/// `global`: the memory has no project.
pub fn scope_weight(global: bool) -> f64 {
    if global {
        GLOBAL_SCOPE_WEIGHT
    } else {
        PROJECT_SCOPE_WEIGHT
    }
}

/// Every factor of one result's final score, for `--explain`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct ScoreBreakdown {
    /// 1-based rank in the keyword (BM25) list, if the memory was in it.
    pub bm25_rank: Option<usize>,
    /// The raw BM25 score (higher is better), if in the keyword list.
    pub bm25_score: Option<f64>,
    /// 1-based rank in the vector list, if the memory was in it.
    pub vector_rank: Option<usize>,
    /// 1-based rank in the feedback keyword list ([`feedback_terms`]), if
    /// the memory was in it.
    pub feedback_rank: Option<usize>,
    /// Cosine similarity between query and memory, if in the vector list
    /// or judged for relevance with the query embedded.
    pub cosine: Option<f64>,
    /// The fused relevance score.
    pub rrf: f64,
    /// [`access_boost`].
    pub boost: f64,
    /// [`recency_decay`] × [`staleness`] (the latter 1 unless configured).
    pub decay: f64,
    /// [`scope_weight`].
    pub scope_weight: f64,
    /// The memory's own weight.
    pub weight: f64,
    /// [`entity_boost`] (1 when off or nothing is shared).
    pub entities: f64,
    /// [`time_match`] (1 when the query names no time).
    pub time: f64,
    /// [`relevance::relevance`]: the probability (0–1) that the memory
    /// answers the query, from `cosine` and `term_share`; `None` when
    /// there was no query to judge it by (a listing).
    pub relevance: Option<f64>,
    /// [`relevance::term_share`]: the share of the query's information
    /// (its terms weighted by rarity) the memory's words cover.
    pub term_share: Option<f64>,
    /// [`relevance::weighted_unknown_share`]: the share of the query's
    /// information no memory in the store holds, weighed by the store's
    /// size (the same for every result of one query).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unknown_share: Option<f64>,
    /// The query's terms the memory contains.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub matched_terms: Vec<String>,
    /// [`relevance_factor`] (none when the score does not weigh
    /// relevance).
    pub relevance_factor: Option<f64>,
    /// `rrf × boost × decay × scope_weight × weight × entities × time`.
    pub score: f64,
}

impl ScoreBreakdown {
    /// Every factor neutral (1, or absent), no fused rank and no score:
    /// what a ranking that sets only some factors starts from.
    pub fn neutral() -> Self {
        ScoreBreakdown {
            bm25_rank: None,
            bm25_score: None,
            vector_rank: None,
            feedback_rank: None,
            cosine: None,
            rrf: 0.0,
            boost: 1.0,
            decay: 1.0,
            scope_weight: 1.0,
            weight: 1.0,
            entities: 1.0,
            time: 1.0,
            relevance: None,
            term_share: None,
            unknown_share: None,
            matched_terms: Vec::new(),
            relevance_factor: None,
            score: 0.0,
        }
    }

    /// Combine relevance with the memory's factors into the final score.
    pub fn combine(&mut self) {
        self.score = self.rrf
            * self.boost
            * self.decay
            * self.scope_weight
            * self.weight
            * self.entities
            * self.time
            * self.relevance_factor.unwrap_or(1.0);
    }
}

/// The weight of [`relevance_factor`] in recall's score.
pub const RELEVANCE_WEIGHT: f64 = 0.0;

/// How much a candidate's own evidence for the query
/// ([`relevance::relevance`]) weighs in its score:
///
/// ```text
/// relevance_factor = max(relevance, 10⁻⁶) ^ weight
/// ```
///
/// Fusion orders by rank positions, which say how each side ranks a
/// memory but not how strong its evidence is: a memory first among
/// keyword hits for one generic word of the question is first all the
/// same. The factor lets a candidate's calibrated evidence (its cosine,
/// and the share and rarity of the query terms it holds) correct that, so
/// that a clear semantic match rises above a weak keyword one. 1 with
/// weight 0.
pub fn relevance_factor(relevance: f64, weight: f64) -> f64 {
    if weight <= 0.0 {
        return 1.0;
    }
    relevance.clamp(1e-6, 1.0).powf(weight)
}

/// How many candidates per result Memory Vault AI's retrieval takes from
/// the vector index (`top_k × 16`).
pub const VAULT_CANDIDATES_PER_RESULT: usize = 16;

/// The least importance a memory needs to be returned by Memory Vault AI's
/// retrieval.
pub const VAULT_MIN_IMPORTANCE: f64 = 0.2;

/// Memory Vault AI's score of a candidate: mostly how similar it is to
/// the query, partly how important it is.
///
/// ```text
/// vault_score = 0.8 · cosine + 0.2 · importance
/// ```
pub fn vault_score(cosine: f64, importance: f64) -> f64 {
    0.8 * cosine + 0.2 * importance
}

/// The most [`entity_boost`] adds: a memory naming every entity of the
/// query scores this much more (×1.25).
pub const ENTITY_BOOST: f64 = 0.25;

/// How much a memory gains for naming the entities a query names:
///
/// ```text
/// entity_boost = 1 + ENTITY_BOOST · shared / query_entities
/// ```
///
/// 1 when the query names no entity.
pub fn entity_boost(shared: usize, query_entities: usize) -> f64 {
    if query_entities == 0 {
        return 1.0;
    }
    1.0 + ENTITY_BOOST * (shared.min(query_entities) as f64 / query_entities as f64)
}

/// How much more a memory written within the time a query names scores
/// in hybrid recall ([`time_match`]; see docs/BENCHMARKS.md).
pub const TIME_MATCH_BOOST: f64 = 2.0;

/// The factor of a memory for a query that names a time ("last week", "in
/// March 2023"): `1 + boost` when the memory was written within it, else 1.
///
/// A soft preference rather than a filter: a question that names a time
/// usually asks about what was said then, but may ask about an event of
/// that time told later, which the temporal match type would filter out.
pub fn time_match(written_within: bool, boost: f64) -> f64 {
    match written_within {
        true => 1.0 + boost.max(0.0),
        false => 1.0,
    }
}

/// How many of the vector ranking's first hits seed keyword feedback
/// ([`feedback_terms`]).
pub const FEEDBACK_DOCS: usize = 3;

/// How many terms keyword feedback adds to the query.
pub const FEEDBACK_TERMS: usize = 5;

/// The RRF weight of the feedback keyword ranking in hybrid recall (0 turns
/// feedback off; see docs/BENCHMARKS.md).
pub const FEEDBACK_WEIGHT: f64 = 0.3;

/// Pseudo-relevance feedback for the keyword side: the terms of the vector
/// ranking's first hits (`seeds`, each a memory's keyword terms) worth
/// adding to the query, best first, at most `limit`.
///
/// A term scores `seeds holding it × IDF` (`idf(term)`, `None` for a term
/// no memory holds, which is skipped); terms of the query itself and terms
/// of one or two characters are left out. A question that shares no word
/// with the memory it means then still reaches, by keyword, the memories
/// that share words with what the vectors found; the list this search
/// returns is a third ranking in the fusion, weighted [`FEEDBACK_WEIGHT`],
/// so it adds evidence without displacing either side.
pub fn feedback_terms(
    query_terms: &[String],
    seeds: &[Vec<String>],
    idf: impl Fn(&str) -> Option<f64>,
    limit: usize,
) -> Vec<String> {
    let mut held: Vec<(&str, usize)> = Vec::new();
    for seed in seeds {
        let mut seen = std::collections::HashSet::new();
        for term in seed.iter().filter(|t| seen.insert(t.as_str())) {
            if term.chars().count() <= 2 || query_terms.contains(term) {
                continue;
            }
            match held.iter_mut().find(|(t, _)| *t == term.as_str()) {
                Some((_, n)) => *n += 1,
                None => held.push((term, 1)),
            }
        }
    }
    let mut scored: Vec<(&str, f64)> = held
        .into_iter()
        .filter_map(|(t, n)| Some((t, n as f64 * idf(t)?)))
        .collect();
    // Best first; ties in first-seen order, so the result is deterministic.
    scored.sort_by(|a, b| b.1.total_cmp(&a.1));
    scored
        .into_iter()
        .take(limit)
        .map(|(t, _)| t.to_string())
        .collect()
}

pub use cairn_text::similarity::cosine;

/// The importance of a conversation message (Memory Vault AI's formula):
/// `0.6·novelty + 0.4·salience`, where novelty is `1 − ` the highest
/// cosine between the message and what is already stored, and salience
/// ([`mod@crate::analysis::salience`]) how much the message carries worth
/// keeping. Both are clamped to 0–1 first, so the result is in 0–1.
pub fn exchange_importance(novelty: f64, salience: f64) -> f64 {
    0.6 * novelty.clamp(0.0, 1.0) + 0.4 * salience.clamp(0.0, 1.0)
}

/// Cosine at or above which a new memory is the same as an existing one of
/// the same type, scope and tenant, and updates it instead of being added.
pub const DEDUP_THRESHOLD: f32 = 0.92;

/// Cosine at or above which (and below [`DEDUP_THRESHOLD`]) an existing
/// memory is reported as possibly contradicting a new one.
pub const CONTRADICTION_THRESHOLD: f32 = 0.75;

/// What writing a memory with this similarity to an existing one means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Similarity {
    /// Below [`CONTRADICTION_THRESHOLD`]: unrelated.
    Unrelated,
    /// In `[CONTRADICTION_THRESHOLD, DEDUP_THRESHOLD)`: related, maybe
    /// contradicting; the new memory is stored and the similar one reported.
    Related,
    /// At or above [`DEDUP_THRESHOLD`]: the same memory.
    Duplicate,
}

/// Classify a cosine similarity against the dedup and contradiction
/// thresholds.
pub fn classify_similarity(cosine: f32) -> Similarity {
    if cosine >= DEDUP_THRESHOLD {
        Similarity::Duplicate
    } else if cosine >= CONTRADICTION_THRESHOLD {
        Similarity::Related
    } else {
        Similarity::Unrelated
    }
}

#[cfg(test)]
mod tests;
