//! Recall: keyword and vector candidates fused by RRF, then ranked by use,
//! recency, scope and weight (every factor kept for `--explain`).

use std::collections::HashMap;

use super::Cairn;
use crate::memory::{normalize_tags, Memory, MemoryId};
use crate::rank::{
    access_boost, keyword_confidence, recency_decay, reciprocal_rank_fusion, scope_weight,
    ScoreBreakdown,
};
use crate::store::{Filter, Hit};
use crate::{Error, Result};

/// The most results one recall may ask for.
pub const MAX_RECALL_LIMIT: usize = 1000;

/// How recall finds candidates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SearchMode {
    /// BM25 and vector candidates fused by RRF (default).
    #[default]
    Hybrid,
    /// BM25 only.
    Keyword,
    /// Vector similarity only.
    Semantic,
}

impl SearchMode {
    /// Every mode.
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
            _ => Err(Error::invalid(format!(
                "unknown search mode `{s}`; use hybrid, keyword or semantic"
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
    /// Hybrid, keyword or semantic.
    pub mode: SearchMode,
}

impl RecallRequest {
    /// A hybrid recall of 10 results among `tenant`'s global memories.
    pub fn new(tenant: impl Into<String>, query: impl Into<String>) -> Self {
        RecallRequest {
            query: query.into(),
            filter: Filter::new(tenant, 0),
            limit: 10,
            mode: SearchMode::Hybrid,
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
}

impl Cairn {
    /// Ranked memories for a query, without counting an access.
    pub fn search(&self, req: &RecallRequest) -> Result<Vec<Recalled>> {
        if req.limit == 0 || req.limit > MAX_RECALL_LIMIT {
            return Err(Error::invalid(format!(
                "limit must be between 1 and {MAX_RECALL_LIMIT}, got {}",
                req.limit
            )));
        }
        if req.query.trim().is_empty() {
            return Err(Error::invalid("the query is empty: say what to look for"));
        }
        let now = self.now();
        let mut filter = req.filter.clone();
        filter.now = now;
        filter.tags = normalize_tags(&filter.tags)?;
        let candidates = req.limit * self.fusion.candidates_per_result;
        if req.mode != SearchMode::Keyword {
            self.ensure_model()?;
        }
        let keyword_side = || self.store.keyword_search(&req.query, &filter, candidates);
        // With adaptive fusion, hybrid weighs the keyword ranking by how
        // much of the query's IDF mass its best hit matched.
        let keyword_and_rarity = || {
            let hits = keyword_side()?;
            let rarity = match hits.is_empty() || !self.fusion.adaptive_keyword {
                true => None,
                false => self.store.keyword_rarity(&req.query)?,
            };
            Ok::<_, Error>((hits, rarity))
        };
        let vector_side =
            |query_vector: Vec<f32>| self.store.vector_search(&query_vector, &filter, candidates);
        // The sides are independent: while this thread embeds the query,
        // another loads the vector index (the first search of a process) and
        // then, in hybrid mode, runs BM25.
        let ((keyword, rarity), vector) = match req.mode {
            SearchMode::Keyword => ((keyword_side()?, None), Vec::new()),
            mode => std::thread::scope(|scope| {
                let other = scope.spawn(|| {
                    if let Some(caches) = self.store.caches() {
                        caches.warm_up()?;
                    }
                    match mode {
                        SearchMode::Hybrid => keyword_and_rarity(),
                        _ => Ok((Vec::new(), None)),
                    }
                });
                let vector = self.embed_one(&req.query).and_then(vector_side);
                let keyword = other
                    .join()
                    .unwrap_or_else(|_| Err(Error::storage("keyword search panicked")));
                Ok::<_, Error>((keyword?, vector?))
            })?,
        };
        let keyword_ids: Vec<MemoryId> = keyword.iter().map(|h| h.id).collect();
        let vector_ids: Vec<MemoryId> = vector.iter().map(|h| h.id).collect();
        let top = keyword.first().map(|h| h.score);
        let confidence = rarity.map_or(1.0, |r| keyword_confidence(top, r.rows, &r.rows_with_term));
        let (keyword_weight, vector_weight) = self.fusion.weights(confidence);
        let fused = reciprocal_rank_fusion(
            &[(&keyword_ids, keyword_weight), (&vector_ids, vector_weight)],
            self.fusion.k,
        );
        // Every candidate is ranked on the factors its hit carries; only
        // the memories returned are read whole.
        let position = |hits: &[Hit], id: MemoryId| hits.iter().position(|h| h.id == id);
        let mut ranked: Vec<(MemoryId, ScoreBreakdown)> = fused
            .into_iter()
            .filter_map(|(id, rrf)| {
                let k = position(&keyword, id);
                let v = position(&vector, id);
                let f = k.map(|i| keyword[i]).or(v.map(|i| vector[i]))?.factors;
                let mut explain = ScoreBreakdown {
                    bm25_rank: k.map(|i| i + 1),
                    bm25_score: k.map(|i| keyword[i].score),
                    vector_rank: v.map(|i| i + 1),
                    cosine: v.map(|i| vector[i].score),
                    rrf,
                    boost: access_boost(f.access_count),
                    decay: recency_decay(f.last_accessed_at, now),
                    scope_weight: scope_weight(f.global),
                    weight: f.weight,
                    score: 0.0,
                };
                explain.combine();
                Some((id, explain))
            })
            .collect();
        ranked.sort_by(|(a_id, a), (b_id, b)| b.score.total_cmp(&a.score).then(b_id.cmp(a_id)));
        // Read the best `limit`; a memory deleted meanwhile by another
        // process is replaced by the next candidate.
        let mut results = Vec::with_capacity(req.limit);
        let mut next = ranked.into_iter();
        loop {
            let batch: Vec<(MemoryId, ScoreBreakdown)> =
                next.by_ref().take(req.limit - results.len()).collect();
            if batch.is_empty() {
                break;
            }
            let ids: Vec<MemoryId> = batch.iter().map(|(id, _)| *id).collect();
            let mut memories: HashMap<MemoryId, Memory> = self
                .store
                .get(&filter.tenant, &ids)?
                .into_iter()
                .map(|m| (m.id, m))
                .collect();
            results.extend(batch.into_iter().filter_map(|(id, explain)| {
                Some(Recalled {
                    memory: memories.remove(&id)?,
                    explain,
                })
            }));
        }
        Ok(results)
    }

    /// Ranked memories for a query; each one returned counts as an access.
    pub fn recall(&self, req: &RecallRequest) -> Result<Vec<Recalled>> {
        let results = self.search(req)?;
        let ids: Vec<MemoryId> = results.iter().map(|r| r.memory.id).collect();
        if !ids.is_empty() {
            self.store
                .record_access(&req.filter.tenant, &ids, self.now())?;
        }
        Ok(results)
    }
}
