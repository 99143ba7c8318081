//! Judging a recalled memory's relevance to the query
//! ([`crate::rank::relevance`]): the evidence is read here (the query's
//! terms and their rarity from the store, the share of them no memory
//! holds, the cosine of each memory's
//! vector), the score is computed by the rank module's pure functions.
//!
//! The evidence is the same on every backend: terms are matched on the
//! memory's text in the core, the rarity is
//! [`Reading::keyword_rarity`](crate::store::Reading::keyword_rarity) and the
//! cosine is computed from the stored vector when the vector search did not
//! give it.

use std::collections::HashMap;

use super::Cairn;
use crate::memory::{Memory, MemoryId};
use crate::rank::relevance::{
    term_idf, term_share, unknown_share, weighted_unknown_share, Evidence, RelevanceModel,
};
use crate::rank::{cosine, relevance_factor, ScoreBreakdown};
use crate::store::{keyword_terms, TermRarity};
use crate::{Error, Result};

/// Stored vectors by memory.
pub(super) type Vectors = HashMap<MemoryId, Vec<f32>>;

/// What a query brings to the judgement of its results.
pub(super) struct Judge {
    /// The query's keyword terms with their [`term_idf`].
    terms: Vec<(String, f64)>,
    /// The share of the query's information no memory holds, weighed by
    /// the store's size ([`weighted_unknown_share`]).
    unknown_share: f64,
    /// The query's vector, when it was embedded.
    vector: Option<Vec<f32>>,
    /// Results below this relevance are dropped.
    pub floor: f64,
    /// The coefficients of the relevance.
    model: RelevanceModel,
}

impl Cairn {
    /// The floor a request asks for, or the engine's default: an error
    /// naming the problem unless it is a number in 0–1.
    pub(super) fn relevance_floor(&self, asked: Option<f64>) -> Result<f64> {
        let floor = asked.unwrap_or(self.fusion.min_relevance);
        if !(0.0..=1.0).contains(&floor) {
            return Err(Error::invalid(format!(
                "min_relevance must be a number from 0 to 1 (0 turns the floor off), got {floor}"
            )));
        }
        Ok(floor)
    }

    /// Multiply the score of every candidate of `ranked` by its
    /// [`relevance_factor`] and sort again (best first, ties to the newer
    /// id, as recall sorts).
    pub(super) fn weigh_by_relevance(
        &self,
        judge: &Judge,
        tenant: &str,
        ranked: &mut [(MemoryId, ScoreBreakdown)],
    ) -> Result<()> {
        let (memories, vectors) = self.read_judged(judge, tenant, ranked)?;
        let mut judged: Vec<(&Memory, &mut ScoreBreakdown)> = ranked
            .iter_mut()
            .filter_map(|(id, e)| Some((memories.get(&*id)?, e)))
            .collect();
        judge.assess(&vectors, &mut judged);
        for (_, e) in ranked.iter_mut() {
            if let Some(r) = e.relevance {
                e.relevance_factor = Some(relevance_factor(r, self.fusion.relevance_weight));
                e.combine();
            }
        }
        ranked.sort_by(|(a_id, a), (b_id, b)| b.score.total_cmp(&a.score).then(b_id.cmp(a_id)));
        Ok(())
    }

    /// The memories of `ranked`, and the stored vectors of those whose
    /// cosine `judge` needs ([`Judge::vectors_needed`]): two reads, side by
    /// side when both are needed (a round trip fewer on a remote store).
    pub(super) fn read_judged(
        &self,
        judge: &Judge,
        tenant: &str,
        ranked: &[(MemoryId, ScoreBreakdown)],
    ) -> Result<(HashMap<MemoryId, Memory>, Vectors)> {
        let ids: Vec<MemoryId> = ranked.iter().map(|(id, _)| *id).collect();
        let needed = judge.vectors_needed(ranked);
        let memories = || self.store.get(tenant, &ids);
        let vectors = || -> Result<Vectors> {
            let read = self.store.embeddings(tenant, &needed)?;
            Ok((needed.iter().copied().zip(read))
                .filter_map(|(id, v)| Some((id, v?)))
                .collect())
        };
        let (memories, vectors) = match needed.is_empty() {
            true => (memories()?, HashMap::new()),
            false => std::thread::scope(|scope| {
                let vectors = scope.spawn(vectors);
                let memories = memories();
                let vectors = vectors
                    .join()
                    .unwrap_or_else(|_| Err(Error::storage("reading vectors panicked")));
                Ok::<_, Error>((memories?, vectors?))
            })?,
        };
        Ok((memories.into_iter().map(|m| (m.id, m)).collect(), vectors))
    }

    /// The judge of `query`'s results: its terms weighed by `rarity` (read
    /// from the store when not given), and its vector if embedded.
    pub(super) fn judge(
        &self,
        query: &str,
        rarity: Option<TermRarity>,
        vector: Option<Vec<f32>>,
        floor: f64,
    ) -> Result<Judge> {
        let rarity = match rarity {
            Some(r) => Some(r),
            None => self.store.keyword_rarity(query)?,
        };
        // Each term with its idf and the memories holding it.
        let counted: Vec<(String, f64, f64)> = keyword_terms(query)
            .into_iter()
            .map(|t| match &rarity {
                // A term the backend left out of its count is one common
                // enough to be pruned: as common as can be.
                Some(r) => {
                    let n = r
                        .terms
                        .iter()
                        .position(|x| *x == t)
                        .map_or(r.rows, |i| r.rows_with_term[i]);
                    (t, term_idf(r.rows, n), n)
                }
                None => (t, 1.0, 1.0),
            })
            .collect();
        let unknown = unknown_share(
            &counted
                .iter()
                .map(|(_, idf, n)| (*idf, *n))
                .collect::<Vec<_>>(),
        );
        let unknown_share = rarity
            .as_ref()
            .map_or(0.0, |r| weighted_unknown_share(unknown, r.rows));
        let terms = counted.into_iter().map(|(t, idf, _)| (t, idf)).collect();
        Ok(Judge {
            terms,
            unknown_share,
            vector,
            floor,
            model: self.fusion.relevance_model,
        })
    }
}

impl Judge {
    /// The memories of `ranked` whose cosine is to be computed from their
    /// stored vectors: not judged yet, and not found by the vector search
    /// (none without a query vector).
    pub(super) fn vectors_needed(&self, ranked: &[(MemoryId, ScoreBreakdown)]) -> Vec<MemoryId> {
        match &self.vector {
            Some(_) => ranked
                .iter()
                .filter(|(_, e)| e.cosine.is_none() && e.relevance.is_none())
                .map(|(id, _)| *id)
                .collect(),
            None => Vec::new(),
        }
    }

    /// Fill in the relevance of each memory not judged yet (its `cosine`,
    /// `term_share`, `matched_terms` and `relevance`); cosines the vector
    /// search did not give are computed from `vectors`, the stored vectors
    /// of [`Judge::vectors_needed`].
    pub(super) fn assess(&self, vectors: &Vectors, judged: &mut [(&Memory, &mut ScoreBreakdown)]) {
        for (memory, explain) in judged.iter_mut() {
            if explain.relevance.is_some() {
                continue;
            }
            if let (Some(query), None) = (&self.vector, explain.cosine) {
                explain.cosine = vectors.get(&memory.id).map(|v| f64::from(cosine(query, v)));
            }
            let words: Vec<String> = crate::memstore::field_terms(memory)
                .into_iter()
                .flatten()
                .collect();
            let (share, matched) = term_share(&self.terms, &words);
            let evidence = Evidence {
                // A memory without a vector has shown no closeness.
                cosine: self.vector.as_ref().map(|_| explain.cosine.unwrap_or(0.0)),
                term_share: share,
                unknown_share: self.unknown_share,
            };
            explain.term_share = Some(share);
            explain.unknown_share = Some(self.unknown_share);
            explain.matched_terms = matched;
            explain.relevance = Some(self.model.relevance(&evidence));
        }
    }

    /// Whether a judged result is relevant enough to return.
    pub(super) fn keeps(&self, explain: &ScoreBreakdown) -> bool {
        self.floor <= 0.0 || explain.relevance.is_none_or(|r| r >= self.floor)
    }
}
