//! Recall: keyword and vector candidates fused by RRF, then ranked by use,
//! recency, scope and weight (every factor kept for `--explain`).

use std::collections::{HashMap, HashSet};

use schemars::JsonSchema;

use super::Cairn;
use crate::analysis::entities::extract_entities;
use crate::analysis::temporal::{parse_time, split_time};
use crate::memory::{normalize_tags, Memory, MemoryId, Timestamp};
use crate::rank::{
    access_boost, bm25_idf, entity_boost, feedback_terms, keyword_confidence, recency_decay,
    reciprocal_rank_fusion, scope_weight, staleness, time_match, vault_score, vector_confidence,
    ScoreBreakdown, FEEDBACK_DOCS, FEEDBACK_TERMS, VAULT_CANDIDATES_PER_RESULT,
    VAULT_MIN_IMPORTANCE,
};
use crate::rerank::Reranking;
use crate::store::{keyword_terms, Filter, Hit, ListOrder, RankFactors};
use crate::{Error, Result};

/// How many times the results asked for an entity recall searches, before
/// keeping those naming the entity.
const ENTITY_POOL: usize = 10;

/// Memories an importance recall without a query orders (the newest).
const IMPORTANCE_POOL: usize = 10_000;

/// The most results one recall may ask for.
pub const MAX_RECALL_LIMIT: usize = 1000;

/// How recall finds and orders candidates (the match type).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum SearchMode {
    /// BM25 and vector candidates fused by RRF (default).
    #[default]
    Hybrid,
    /// BM25 only.
    Keyword,
    /// Vector similarity only.
    Semantic,
    /// A time expression in the query ("yesterday", "last week", "in
    /// March", "on 8 May 2023") becomes a time filter, relative to the
    /// request's reference time; the rest of the query is searched hybrid
    /// within it, or, when nothing is left, the newest come first.
    Temporal,
    /// The most important first, among the hybrid matches of the query
    /// (or, for an empty query, every memory passing the filter).
    Importance,
}

impl SearchMode {
    /// The three retrieval modes benchmarks compare.
    pub const ALL: [SearchMode; 3] = [
        SearchMode::Keyword,
        SearchMode::Semantic,
        SearchMode::Hybrid,
    ];

    /// The mode's name, as parsed by `from_str`.
    pub fn as_str(self) -> &'static str {
        match self {
            SearchMode::Hybrid => "hybrid",
            SearchMode::Keyword => "keyword",
            SearchMode::Semantic => "semantic",
            SearchMode::Temporal => "temporal",
            SearchMode::Importance => "importance",
        }
    }
}

impl std::str::FromStr for SearchMode {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "hybrid" => Ok(SearchMode::Hybrid),
            "keyword" | "bm25" => Ok(SearchMode::Keyword),
            "semantic" | "vector" => Ok(SearchMode::Semantic),
            "temporal" | "time" => Ok(SearchMode::Temporal),
            "importance" | "important" => Ok(SearchMode::Importance),
            _ => Err(Error::invalid(format!(
                "unknown search mode `{s}`; use hybrid, keyword, semantic, temporal or importance"
            ))),
        }
    }
}

/// Which ranking a recall's candidates get.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// Cairn's: keyword and vector candidates fused by RRF, then use,
    /// recency, scope and weight (default).
    #[default]
    Cairn,
    /// Memory Vault AI's: the `limit × 16` nearest memories by cosine,
    /// those of importance ≥ 0.2, scored `0.8·cosine + 0.2·importance`
    /// ([`crate::rank::vault_score`]).
    Vault,
}

impl std::str::FromStr for Profile {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "cairn" | "default" => Ok(Profile::Cairn),
            "vault" => Ok(Profile::Vault),
            _ => Err(Error::invalid(format!(
                "unknown ranking profile `{s}`; use cairn (the default) or vault"
            ))),
        }
    }
}

/// What to recall.
#[derive(Debug, Clone)]
pub struct RecallRequest {
    /// The question or keywords.
    pub query: String,
    /// Which memories may be returned (tenant, scope, types, tags, times,
    /// expired/superseded). Its `now` is set by the engine.
    pub filter: Filter,
    /// How many results (1–1000).
    pub limit: usize,
    /// How to match (see [`SearchMode`]).
    pub mode: SearchMode,
    /// The time relative expressions of a temporal query are read against
    /// (a conversation's own date); default now.
    pub reference: Option<Timestamp>,
    /// Only memories naming this entity (a person, a path, an identifier…:
    /// see [`crate::analysis::entities`]), compared case-insensitively.
    pub entity: Option<String>,
    /// How the ranked modes order candidates.
    pub profile: Profile,
    /// Leave out results whose relevance
    /// ([`crate::rank::relevance::relevance`]) is below this (0–1; 0 keeps
    /// every match); `None`: the engine's default
    /// ([`crate::rank::Fusion::min_relevance`]).
    pub min_relevance: Option<f64>,
}

impl RecallRequest {
    /// A hybrid recall of 10 results among `tenant`'s global memories.
    pub fn new(tenant: impl Into<String>, query: impl Into<String>) -> Self {
        RecallRequest {
            query: query.into(),
            filter: Filter::new(tenant, 0),
            limit: 10,
            mode: SearchMode::Hybrid,
            reference: None,
            entity: None,
            profile: Profile::Cairn,
            min_relevance: None,
        }
    }
}

/// One recalled memory with its score and every factor of it.
#[derive(Debug, Clone)]
pub struct Recalled {
    /// The memory (as it was before this recall counted as an access).
    pub memory: Memory,
    /// Every factor of the score; `explain.score` is the final score.
    pub explain: ScoreBreakdown,
    /// How it matched: `keyword`, `semantic` or `hybrid` (found by both
    /// sides) for the ranked modes; `temporal` or `importance` for theirs.
    pub matched: SearchMode,
}

/// What a search found, and how its reranking stage went.
#[derive(Debug, Clone)]
pub struct Found {
    /// Best first.
    pub results: Vec<Recalled>,
    /// The reranker's outcome, when one was asked (a reranker is
    /// configured and the ranked modes had two candidates or more).
    pub reranking: Option<Reranking>,
}

impl Cairn {
    /// Ranked memories for a query, without counting an access.
    pub fn search(&self, req: &RecallRequest) -> Result<Vec<Recalled>> {
        Ok(self.search_reported(req)?.results)
    }

    /// [`Cairn::search`], with how the reranking stage went.
    pub fn search_reported(&self, req: &RecallRequest) -> Result<Found> {
        let mut reranking = None;
        let results = self.search_checked(req, &mut reranking)?;
        Ok(Found { results, reranking })
    }

    fn search_checked(
        &self,
        req: &RecallRequest,
        reranking: &mut Option<Reranking>,
    ) -> Result<Vec<Recalled>> {
        if req.limit == 0 || req.limit > MAX_RECALL_LIMIT {
            return Err(Error::invalid(format!(
                "limit must be between 1 and {MAX_RECALL_LIMIT}, got {}",
                req.limit
            )));
        }
        self.relevance_floor(req.min_relevance)?;
        let Some(entity) = req
            .entity
            .as_deref()
            .map(str::trim)
            .filter(|e| !e.is_empty())
        else {
            return self.search_mode(req, reranking);
        };
        // Entities are not indexed: search a wider pool, keep those naming
        // the entity.
        let entity = entity.to_lowercase();
        let wider = RecallRequest {
            limit: (req.limit * ENTITY_POOL).min(MAX_RECALL_LIMIT),
            entity: None,
            ..req.clone()
        };
        let mut found = self.search_mode(&wider, reranking)?;
        found.retain(|r| memory_entities(&r.memory).contains(&entity));
        found.truncate(req.limit);
        Ok(found)
    }

    fn search_mode(
        &self,
        req: &RecallRequest,
        reranking: &mut Option<Reranking>,
    ) -> Result<Vec<Recalled>> {
        match req.mode {
            SearchMode::Temporal => self.search_in_time(req, reranking),
            SearchMode::Importance => self.search_by_importance(req, reranking),
            _ => self.search_profiled(req, reranking),
        }
    }

    /// The ranked modes in the request's profile.
    fn search_profiled(
        &self,
        req: &RecallRequest,
        reranking: &mut Option<Reranking>,
    ) -> Result<Vec<Recalled>> {
        match req.profile {
            Profile::Cairn => self.search_ranked(req, reranking),
            Profile::Vault => self.search_vault(req),
        }
    }

    /// [`Profile::Vault`]: Memory Vault AI's retrieval.
    fn search_vault(&self, req: &RecallRequest) -> Result<Vec<Recalled>> {
        if req.query.trim().is_empty() {
            return Err(Error::invalid("the query is empty: say what to look for"));
        }
        let mut filter = req.filter.clone();
        filter.now = self.now();
        filter.tags = normalize_tags(&filter.tags)?;
        self.ensure_model()?;
        let query = self.embed_one(&req.query)?;
        let pool = (req.limit * VAULT_CANDIDATES_PER_RESULT).min(MAX_RECALL_LIMIT);
        let hits = self.store.vector_search(&query, &filter, pool)?;
        let judge = self.judge(
            &req.query,
            None,
            Some(query),
            self.relevance_floor(req.min_relevance)?,
        )?;
        let cosine: HashMap<MemoryId, (usize, f64)> = hits
            .iter()
            .enumerate()
            .map(|(i, h)| (h.id, (i + 1, h.score)))
            .collect();
        let ids: Vec<MemoryId> = hits.iter().map(|h| h.id).collect();
        let mut found: Vec<Recalled> = self
            .store
            .get(&filter.tenant, &ids)?
            .into_iter()
            .filter(|m| m.importance >= VAULT_MIN_IMPORTANCE)
            .filter_map(|memory| {
                let (rank, cos) = *cosine.get(&memory.id)?;
                let f = RankFactors::of(&memory);
                let explain = ScoreBreakdown {
                    vector_rank: Some(rank),
                    cosine: Some(cos),
                    scope_weight: scope_weight(f.global),
                    score: vault_score(cos, memory.importance),
                    ..ScoreBreakdown::neutral()
                };
                Some(Recalled {
                    memory,
                    explain,
                    matched: SearchMode::Semantic,
                })
            })
            .collect();
        found.sort_by(|a, b| {
            b.explain
                .score
                .total_cmp(&a.explain.score)
                .then(b.memory.id.cmp(&a.memory.id))
        });
        let mut judged: Vec<(&Memory, &mut ScoreBreakdown)> = found
            .iter_mut()
            .map(|r| (&r.memory, &mut r.explain))
            .collect();
        // Every one has its cosine from the vector search.
        judge.assess(&HashMap::new(), &mut judged);
        found.retain(|r| judge.keeps(&r.explain));
        found.truncate(req.limit);
        Ok(found)
    }

    /// [`SearchMode::Temporal`].
    fn search_in_time(
        &self,
        req: &RecallRequest,
        reranking: &mut Option<Reranking>,
    ) -> Result<Vec<Recalled>> {
        let reference = req.reference.unwrap_or_else(|| self.now());
        let (rest, time) = split_time(&req.query, reference);
        let Some(time) = time else {
            // No time in the query: an ordinary hybrid recall.
            return self.search_profiled(
                &RecallRequest {
                    mode: SearchMode::Hybrid,
                    ..req.clone()
                },
                reranking,
            );
        };
        let mut within = req.clone();
        let f = &mut within.filter;
        f.created_after = Some(
            f.created_after
                .map_or(time.range.start, |a| a.max(time.range.start)),
        );
        f.created_before = Some(
            f.created_before
                .map_or(time.range.end, |b| b.min(time.range.end)),
        );
        let mut found = if keyword_terms(&rest).is_empty() {
            self.listed(&within.filter, ListOrder::Newest, req.limit)?
        } else {
            within.query = rest;
            within.mode = SearchMode::Hybrid;
            self.search_profiled(&within, reranking)?
        };
        found
            .iter_mut()
            .for_each(|r| r.matched = SearchMode::Temporal);
        Ok(found)
    }

    /// [`SearchMode::Importance`].
    fn search_by_importance(
        &self,
        req: &RecallRequest,
        reranking: &mut Option<Reranking>,
    ) -> Result<Vec<Recalled>> {
        let pool = (req.limit * self.fusion.candidates_per_result).min(MAX_RECALL_LIMIT);
        let mut found = if keyword_terms(&req.query).is_empty() {
            self.listed(&req.filter, ListOrder::Newest, IMPORTANCE_POOL)?
        } else {
            self.search_profiled(
                &RecallRequest {
                    mode: SearchMode::Hybrid,
                    limit: pool,
                    ..req.clone()
                },
                reranking,
            )?
        };
        // Stable: equally important memories keep their relevance order.
        found.sort_by(|a, b| b.memory.importance.total_cmp(&a.memory.importance));
        found.truncate(req.limit);
        for r in &mut found {
            r.matched = SearchMode::Importance;
        }
        Ok(found)
    }

    /// Memories passing `filter` in `order`, scored by their place in it
    /// (`1 / (1 + position)`), for the modes that order without a query.
    fn listed(&self, filter: &Filter, order: ListOrder, limit: usize) -> Result<Vec<Recalled>> {
        let mut filter = filter.clone();
        filter.now = self.now();
        Ok(self
            .store
            .list(&filter, order, limit, 0)?
            .into_iter()
            .enumerate()
            .map(|(i, memory)| {
                let f = RankFactors::of(&memory);
                let mut explain = ScoreBreakdown {
                    rrf: 1.0 / (1.0 + i as f64),
                    scope_weight: scope_weight(f.global),
                    ..ScoreBreakdown::neutral()
                };
                explain.combine();
                Recalled {
                    memory,
                    explain,
                    matched: SearchMode::Hybrid,
                }
            })
            .collect())
    }

    /// The ranked modes: keyword, semantic and hybrid.
    fn search_ranked(
        &self,
        req: &RecallRequest,
        reranking: &mut Option<Reranking>,
    ) -> Result<Vec<Recalled>> {
        if req.query.trim().is_empty() {
            return Err(Error::invalid("the query is empty: say what to look for"));
        }
        let now = self.now();
        let mut filter = req.filter.clone();
        filter.now = now;
        filter.tags = normalize_tags(&filter.tags)?;
        let candidates = req.limit * self.fusion.candidates_per_result;
        // A time the query names raises what was written within it (the
        // query is searched whole: its time words may be what a memory says).
        let named_time = match req.mode == SearchMode::Hybrid && self.fusion.time_boost > 0.0 {
            true => parse_time(&req.query, req.reference.unwrap_or(now)).map(|t| t.range),
            false => None,
        };
        let keyword_side = || self.store.keyword_search(&req.query, &filter, candidates);
        // With adaptive fusion, hybrid weighs the keyword ranking by how
        // much of the query's IDF mass its best hit matched (and the vector
        // ranking by how sure it is of its first place, below).
        let keyword_and_rarity = || {
            let hits = keyword_side()?;
            let rarity = match hits.is_empty() || !self.fusion.adaptive_keyword {
                true => None,
                false => self.store.keyword_rarity(&req.query)?,
            };
            Ok::<_, Error>((hits, rarity))
        };
        let vector_side = |query_vector: Vec<f32>| {
            let mut hits = self
                .store
                .vector_search(&query_vector, &filter, candidates)?;
            crate::rank::ties::order_vector_hits(&mut hits);
            Ok::<_, Error>((hits, query_vector))
        };
        // The sides are independent: while this thread embeds the query,
        // another checks the store's model (its error wins), loads the
        // vector index (the first search of a process) and then, in hybrid
        // mode, runs BM25.
        let feedback_on = req.mode == SearchMode::Hybrid && self.fusion.feedback_weight > 0.0;
        let ((keyword, rarity), (vector, query_vector, feedback)) = match req.mode {
            SearchMode::Keyword => ((keyword_side()?, None), (Vec::new(), None, Vec::new())),
            mode => std::thread::scope(|scope| {
                let other = scope.spawn(|| {
                    self.ensure_model()?;
                    if let Some(caches) = self.store.maintenance().caches() {
                        caches.warm_up()?;
                    }
                    match mode {
                        SearchMode::Hybrid => keyword_and_rarity(),
                        _ => Ok((Vec::new(), None)),
                    }
                });
                // Feedback needs only the vector hits: it runs on this
                // thread while the other still searches by keyword.
                let vector = self.embed_one(&req.query).and_then(vector_side).and_then(
                    |(hits, query_vector)| {
                        let feedback = match feedback_on {
                            true => self.feedback_search(&req.query, &filter, &hits, candidates)?,
                            false => Vec::new(),
                        };
                        Ok((hits, query_vector, feedback))
                    },
                );
                let keyword = other
                    .join()
                    .unwrap_or_else(|_| Err(Error::storage("keyword search panicked")))?;
                let (hits, query_vector, feedback) = vector?;
                Ok::<_, Error>((keyword, (hits, Some(query_vector), feedback)))
            })?,
        };
        let keyword_ids: Vec<MemoryId> = keyword.iter().map(|h| h.id).collect();
        let vector_ids: Vec<MemoryId> = vector.iter().map(|h| h.id).collect();
        let top = keyword.first().map(|h| h.score);
        // Without the terms' rarity the keyword ranking keeps its weight,
        // however sure the vectors are.
        let (confidence, vector_sure) = match &rarity {
            None => (1.0, 0.0),
            Some(r) => {
                let cosines: Vec<f64> = vector.iter().map(|h| h.score).collect();
                (
                    keyword_confidence(top, r.rows, &r.rows_with_term),
                    vector_confidence(&cosines, self.fusion.vector_margin),
                )
            }
        };
        let (keyword_weight, vector_weight) = self.fusion.weights(confidence, vector_sure);

        let feedback_ids: Vec<MemoryId> = feedback.iter().map(|h| h.id).collect();
        let fused = reciprocal_rank_fusion(
            &[
                (&keyword_ids, keyword_weight),
                (&vector_ids, vector_weight),
                (&feedback_ids, self.fusion.feedback_weight),
            ],
            self.fusion.k,
        );
        // Every candidate is ranked on the factors its hit carries; only
        // the memories returned are read whole.
        let mut ranked: Vec<(MemoryId, ScoreBreakdown)> = fused
            .into_iter()
            .filter_map(|(id, rrf)| {
                let sides = [&keyword[..], &vector[..], &feedback[..]];
                self.breakdown(id, rrf, sides, now, named_time)
            })
            .collect();
        ranked.sort_by(|(a_id, a), (b_id, b)| b.score.total_cmp(&a.score).then(b_id.cmp(a_id)));
        let judge = self.judge(
            &req.query,
            rarity,
            query_vector,
            self.relevance_floor(req.min_relevance)?,
        )?;
        if self.fusion.relevance_weight > 0.0 {
            self.weigh_by_relevance(&judge, &filter.tenant, &mut ranked)?;
        }
        if self.fusion.entity_boost {
            self.boost_shared_entities(&req.query, &filter.tenant, &mut ranked, candidates)?;
        }
        if let Some(reranker) = &self.reranker {
            *reranking = self.rerank(
                reranker.as_ref(),
                &req.query,
                &filter.tenant,
                &mut ranked,
                req.limit,
            )?;
        }
        let mut results = self.read_ranked(&filter.tenant, ranked, req.limit, &judge)?;
        self.current_first(&filter, &mut results)?;
        Ok(results)
    }

    /// The best `limit` of `ranked`, read whole and judged: a memory
    /// deleted meanwhile by another process, or one below the relevance
    /// floor, is replaced by the next candidate.
    fn read_ranked(
        &self,
        tenant: &str,
        ranked: Vec<(MemoryId, ScoreBreakdown)>,
        limit: usize,
        judge: &super::judge::Judge,
    ) -> Result<Vec<Recalled>> {
        let mut results = Vec::with_capacity(limit);
        let mut next = ranked.into_iter();
        loop {
            let batch: Vec<(MemoryId, ScoreBreakdown)> =
                next.by_ref().take(limit - results.len()).collect();
            if batch.is_empty() {
                break;
            }
            let (mut memories, vectors) = self.read_judged(judge, tenant, &batch)?;
            let mut batch: Vec<(MemoryId, ScoreBreakdown)> = batch
                .into_iter()
                .filter(|(id, _)| memories.contains_key(id))
                .collect();
            let mut judged: Vec<(&Memory, &mut ScoreBreakdown)> = batch
                .iter_mut()
                .map(|(id, e)| (&memories[&*id], e))
                .collect();
            judge.assess(&vectors, &mut judged);
            batch.retain(|(_, e)| judge.keeps(e));
            results.extend(batch.into_iter().filter_map(|(id, explain)| {
                // Feedback alone is words the vectors suggested: both sides.
                let matched = match (explain.bm25_rank, explain.vector_rank) {
                    (Some(_), None) => SearchMode::Keyword,
                    (None, Some(_)) => SearchMode::Semantic,
                    _ => SearchMode::Hybrid,
                };
                Some(Recalled {
                    memory: memories.remove(&id)?,
                    explain,
                    matched,
                })
            }));
        }
        Ok(results)
    }

    /// The score breakdown of candidate `id` (fused score `rrf`) from the
    /// factors its hit carries on the keyword, vector and feedback sides,
    /// at `now`, for a query naming `named_time`.
    fn breakdown(
        &self,
        id: MemoryId,
        rrf: f64,
        [keyword, vector, feedback]: [&[Hit]; 3],
        now: Timestamp,
        named_time: Option<crate::analysis::temporal::TimeRange>,
    ) -> Option<(MemoryId, ScoreBreakdown)> {
        let position = |hits: &[Hit], id: MemoryId| hits.iter().position(|h| h.id == id);
        let k = position(keyword, id);
        let v = position(vector, id);
        let fb = position(feedback, id);
        let f = k
            .map(|i| keyword[i])
            .or(v.map(|i| vector[i]))
            .or(fb.map(|i| feedback[i]))?
            .factors;
        let mut explain = ScoreBreakdown {
            bm25_rank: k.map(|i| i + 1),
            bm25_score: k.map(|i| keyword[i].score),
            vector_rank: v.map(|i| i + 1),
            feedback_rank: fb.map(|i| i + 1),
            cosine: v.map(|i| vector[i].score),
            rrf,
            boost: access_boost(f.access_count),
            decay: recency_decay(f.last_accessed_at, now)
                * staleness(
                    f.last_accessed_at,
                    id.created_at(),
                    now,
                    self.fusion.staleness_days,
                ),
            scope_weight: scope_weight(f.global),
            weight: f.weight,
            entities: 1.0,
            time: time_match(
                named_time.is_some_and(|t| t.contains(id.created_at())),
                self.fusion.time_boost,
            ),
            ..ScoreBreakdown::neutral()
        };
        explain.combine();
        Some((id, explain))
    }

    /// The keyword search of `query` with the [`feedback_terms`] of the
    /// vector ranking's first [`FEEDBACK_DOCS`] hits; empty when they add
    /// no term.
    fn feedback_search(
        &self,
        query: &str,
        filter: &Filter,
        vector: &[Hit],
        candidates: usize,
    ) -> Result<Vec<Hit>> {
        let ids: Vec<MemoryId> = vector.iter().take(FEEDBACK_DOCS).map(|h| h.id).collect();
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let seeds: Vec<Vec<String>> = self
            .store
            .get(&filter.tenant, &ids)?
            .iter()
            .map(|m| keyword_terms(&m.content))
            .collect();
        // The IDF of the seeds' terms, from one count of the index; the
        // query's terms are counted with them, so that a store may keep
        // the count for the expanded search that follows.
        let query_terms = keyword_terms(query);
        let pooled: Vec<&str> = (query_terms.iter().chain(seeds.iter().flatten()))
            .map(String::as_str)
            .collect();
        let Some(rarity) = self.store.keyword_rarity(&pooled.join(" "))? else {
            return Ok(Vec::new());
        };
        let idf: HashMap<&str, f64> = rarity
            .terms
            .iter()
            .zip(&rarity.rows_with_term)
            .filter(|(_, &n)| n > 0.0)
            .map(|(t, &n)| (t.as_str(), bm25_idf(rarity.rows, n)))
            .collect();
        let terms = feedback_terms(
            &query_terms,
            &seeds,
            |t| idf.get(t).copied(),
            FEEDBACK_TERMS,
        );
        if terms.is_empty() {
            return Ok(Vec::new());
        }
        let expanded = format!("{query} {}", terms.join(" "));
        self.store.keyword_search(&expanded, filter, candidates)
    }

    /// Reorder the best `limit × RERANK_POOL` of `ranked` as `reranker`
    /// says; the rest keep their places after them. A reranker that fails
    /// leaves the order as it was, and its failure is in the outcome
    /// (`None` when there was nothing to reorder).
    fn rerank(
        &self,
        reranker: &dyn crate::rerank::Reranker,
        query: &str,
        tenant: &str,
        ranked: &mut Vec<(MemoryId, ScoreBreakdown)>,
        limit: usize,
    ) -> Result<Option<Reranking>> {
        let pool = ranked.len().min(limit * crate::rerank::RERANK_POOL);
        if pool < 2 {
            return Ok(None);
        }
        let ids: Vec<MemoryId> = ranked[..pool].iter().map(|(id, _)| *id).collect();
        let mut memories: HashMap<MemoryId, Memory> = self
            .store
            .get(tenant, &ids)?
            .into_iter()
            .map(|m| (m.id, m))
            .collect();
        let vectors = self.store.embeddings(tenant, &ids)?;
        let texts: Vec<String> = ids
            .iter()
            .map(|id| memories.remove(id).map(|m| m.content).unwrap_or_default())
            .collect();
        let candidates: Vec<crate::rerank::Candidate<'_>> = ranked[..pool]
            .iter()
            .zip(&texts)
            .zip(&vectors)
            .map(|(((id, explain), text), vector)| crate::rerank::Candidate {
                id: *id,
                text,
                score: explain.score,
                vector: vector.as_deref(),
            })
            .collect();
        let order = match reranker.rerank(query, &candidates) {
            Ok(order) => order,
            Err(e) => return Ok(Some(Reranking::failed(reranker.name(), &e))),
        };
        let mut seen = vec![false; pool];
        let mut head = Vec::with_capacity(pool);
        for i in order.into_iter().filter(|&i| i < pool) {
            if !std::mem::replace(&mut seen[i], true) {
                head.push(ranked[i].clone());
            }
        }
        head.extend((0..pool).filter(|&i| !seen[i]).map(|i| ranked[i].clone()));
        ranked.splice(..pool, head);
        Ok(Some(Reranking::applied(reranker.name())))
    }

    /// Multiply the scores of the best `pool` candidates by
    /// [`entity_boost`] for the entities they share with the query (their
    /// parsed entities, or those of their content), and sort again.
    fn boost_shared_entities(
        &self,
        query: &str,
        tenant: &str,
        ranked: &mut [(MemoryId, ScoreBreakdown)],
        pool: usize,
    ) -> Result<()> {
        let wanted: HashSet<String> = extract_entities(query)
            .into_iter()
            .map(|e| e.text.to_lowercase())
            .collect();
        if wanted.is_empty() {
            return Ok(());
        }
        let pool = pool.min(ranked.len());
        let ids: Vec<MemoryId> = ranked[..pool].iter().map(|(id, _)| *id).collect();
        let memories: HashMap<MemoryId, Memory> = self
            .store
            .get(tenant, &ids)?
            .into_iter()
            .map(|m| (m.id, m))
            .collect();
        for (id, explain) in ranked[..pool].iter_mut() {
            let Some(m) = memories.get(id) else { continue };
            let named = memory_entities(m);
            let shared = wanted.iter().filter(|e| named.contains(*e)).count();
            explain.entities = entity_boost(shared, wanted.len());
            explain.combine();
        }
        ranked.sort_by(|(a_id, a), (b_id, b)| b.score.total_cmp(&a.score).then(b_id.cmp(a_id)));
        Ok(())
    }

    /// Ranked memories for a query; each one returned counts as an access.
    pub fn recall(&self, req: &RecallRequest) -> Result<Vec<Recalled>> {
        Ok(self.recall_reported(req)?.results)
    }

    /// [`Cairn::recall`], with how the reranking stage went.
    pub fn recall_reported(&self, req: &RecallRequest) -> Result<Found> {
        let found = self.search_reported(req)?;
        let ids: Vec<MemoryId> = found.results.iter().map(|r| r.memory.id).collect();
        if !ids.is_empty() {
            self.count_access(&req.filter.tenant, ids)?;
        }
        Ok(found)
    }
}

/// The entities a memory names, lowercased: those parsed when it was
/// logged, else those of its content.
fn memory_entities(m: &Memory) -> HashSet<String> {
    let parsed = m
        .metadata
        .get(crate::memory::PARSED_KEY)
        .and_then(|p| serde_json::from_value::<crate::analysis::Parsed>(p.clone()).ok());
    let entities = match parsed {
        Some(p) => p.entities,
        None => extract_entities(&m.content),
    };
    entities
        .into_iter()
        .map(|e| e.text.to_lowercase())
        .collect()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::conformance::LexicalEmbedder;
    use crate::engine::RememberRequest;
    use crate::MemoryStore;

    #[test]
    fn the_vault_profile_drops_unimportant_memories_and_weighs_importance() {
        let c = Cairn::new(Arc::new(MemoryStore::new()), Arc::new(LexicalEmbedder));
        for (text, importance) in [
            ("the deploy pipeline runs on fridays", 0.9),
            ("the deploy pipeline runs nightly", 0.1),
            ("lunch is at noon", 0.9),
        ] {
            let mut req = RememberRequest::new("t", text);
            req.importance = Some(importance);
            c.remember(req).unwrap();
        }
        let mut req = RecallRequest::new("t", "deploy pipeline");
        req.filter.now = c.now();
        req.profile = Profile::Vault;
        let found = c.search(&req).unwrap();
        let texts: Vec<&str> = found.iter().map(|r| r.memory.content.as_str()).collect();
        assert!(
            !texts.contains(&"the deploy pipeline runs nightly"),
            "{texts:?}"
        );
        assert_eq!(texts[0], "the deploy pipeline runs on fridays");
        let top = &found[0].explain;
        let cosine = top.cosine.unwrap();
        assert!((top.score - vault_score(cosine, 0.9)).abs() < 1e-12);
        // Sorted by the vault score.
        assert!(found
            .windows(2)
            .all(|w| w[0].explain.score >= w[1].explain.score));
        // Cairn's profile keeps the unimportant one.
        req.profile = Profile::Cairn;
        let texts: Vec<String> = c
            .search(&req)
            .unwrap()
            .into_iter()
            .map(|r| r.memory.content)
            .collect();
        assert!(texts.contains(&"the deploy pipeline runs nightly".to_string()));
        assert!("bogus".parse::<Profile>().is_err());
    }
}
