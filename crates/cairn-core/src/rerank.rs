//! The optional reranking stage of recall: the [`Reranker`] trait and
//! [`Mmr`], maximal marginal relevance, which needs no model.
//!
//! Recall ranks its candidates as usual; with a reranker configured
//! ([`crate::Cairn::with_reranker`]) the best [`RERANK_POOL`]`× limit` are
//! read whole and handed to it, and its order replaces theirs. A reranker
//! that fails leaves recall's own order (recall never fails because of
//! it), and the answer says so ([`Reranking`]). Off by default: see docs/BENCHMARKS.md for what each one does to
//! the benchmarks.
//!
//! Other implementations live in other crates (`cairn-providers` has a
//! `/rerank` endpoint client).

use crate::memory::MemoryId;
use crate::rank::mmr;
use crate::Result;

/// How many candidates per result a reranker sees.
pub const RERANK_POOL: usize = 3;

/// One candidate handed to a reranker.
#[derive(Debug, Clone, Copy)]
pub struct Candidate<'a> {
    /// The memory.
    pub id: MemoryId,
    /// Its content.
    pub text: &'a str,
    /// Recall's score (higher is better).
    pub score: f64,
    /// Its stored embedding (unit norm), when the store has it.
    pub vector: Option<&'a [f32]>,
}

/// How a recall's reranking stage went: which reranker was asked and, when
/// it failed, why (the results then keep recall's own order). Answers carry
/// it so that a failing reranker is seen, never silent.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Reranking {
    /// The reranker ([`Reranker::name`]).
    pub reranker: String,
    /// `true` when its order was taken; `false` when it failed and the
    /// results are in recall's own order.
    pub applied: bool,
    /// Its failure, when it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
}

impl Reranking {
    /// `reranker` ordered the results.
    pub fn applied(reranker: String) -> Self {
        Reranking {
            reranker,
            applied: true,
            failure: None,
        }
    }

    /// `reranker` failed with `error`; recall's own order stands.
    pub fn failed(reranker: String, error: &crate::Error) -> Self {
        Reranking {
            reranker,
            applied: false,
            failure: Some(error.to_string()),
        }
    }

    /// A sentence for text answers, when the reranker failed.
    pub fn warning(&self) -> Option<String> {
        let failure = self.failure.as_deref()?;
        Some(format!(
            "the reranker ({}) failed, so the results keep recall's own order: {failure}",
            self.reranker
        ))
    }
}

/// Reorders recall's best candidates. Object safe, `Send + Sync`, held as
/// `Arc<dyn Reranker>`; synchronous like every core trait.
pub trait Reranker: Send + Sync {
    /// A short name for status pages (`mmr`, `http:MODEL`).
    fn name(&self) -> String;

    /// The candidates' new order, best first, as indices into
    /// `candidates`; an index left out drops that candidate to the end.
    fn rerank(&self, query: &str, candidates: &[Candidate<'_>]) -> Result<Vec<usize>>;
}

/// Maximal marginal relevance (see [`crate::rank::mmr`]): relevance traded
/// against similarity to what is already picked, so near-duplicates do not
/// crowd out other answers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mmr {
    /// Relevance's share, 0–1 ([`Mmr::DEFAULT_LAMBDA`]).
    pub lambda: f64,
}

impl Mmr {
    /// The default relevance share.
    pub const DEFAULT_LAMBDA: f64 = 0.7;
}

impl Default for Mmr {
    fn default() -> Self {
        Mmr {
            lambda: Self::DEFAULT_LAMBDA,
        }
    }
}

fn dot(a: &[f32], b: &[f32]) -> f64 {
    a.iter().zip(b).map(|(x, y)| f64::from(x * y)).sum()
}

impl Reranker for Mmr {
    fn name(&self) -> String {
        format!("mmr (λ = {})", self.lambda)
    }

    fn rerank(&self, _query: &str, candidates: &[Candidate<'_>]) -> Result<Vec<usize>> {
        let relevance: Vec<f64> = candidates.iter().map(|c| c.score).collect();
        let similarity = |i: usize, j: usize| match (candidates[i].vector, candidates[j].vector) {
            (Some(a), Some(b)) => dot(a, b),
            _ => 0.0,
        };
        Ok(mmr(&relevance, similarity, self.lambda))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::conformance::LexicalEmbedder;
    use crate::{Cairn, Error, MemoryStore, RecallRequest, RememberRequest};

    /// Reverses the order, or fails.
    struct Reverse(bool);

    impl Reranker for Reverse {
        fn name(&self) -> String {
            "reverse".into()
        }
        fn rerank(&self, _: &str, candidates: &[Candidate<'_>]) -> Result<Vec<usize>> {
            if self.0 {
                return Err(Error::provider("down"));
            }
            assert!(candidates
                .iter()
                .all(|c| !c.text.is_empty() && c.vector.is_some()));
            Ok((0..candidates.len()).rev().collect())
        }
    }

    fn recalled(reranker: Option<Reverse>) -> (Vec<String>, Option<Reranking>) {
        let cairn = Cairn::new(Arc::new(MemoryStore::new()), Arc::new(LexicalEmbedder))
            .with_reranker(reranker.map(|r| Arc::new(r) as Arc<dyn Reranker>));
        for text in [
            "parrot parrot parrot Kiwi",
            "parrot parrot cage",
            "parrot seed",
        ] {
            let mut req = RememberRequest::new("t", text);
            req.dedup = false;
            cairn.remember(req).unwrap();
        }
        let mut req = RecallRequest::new("t", "parrot");
        req.limit = 3;
        let found = cairn.recall_reported(&req).unwrap();
        let texts = found.results.into_iter().map(|r| r.memory.content);
        (texts.collect(), found.reranking)
    }

    #[test]
    fn recall_takes_the_rerankers_order_and_reports_its_failures() {
        let (plain, none) = recalled(None);
        assert_eq!(plain.len(), 3);
        assert_eq!(none, None);
        let mut reversed = plain.clone();
        reversed.reverse();
        let (texts, outcome) = recalled(Some(Reverse(false)));
        assert_eq!(texts, reversed);
        assert_eq!(outcome, Some(Reranking::applied("reverse".into())));
        let (texts, outcome) = recalled(Some(Reverse(true)));
        assert_eq!(texts, plain);
        let outcome = outcome.unwrap();
        assert!(!outcome.applied);
        assert!(outcome.failure.as_deref().unwrap().contains("down"));
        assert!(outcome.warning().unwrap().contains("reverse"));
    }

    #[test]
    fn a_near_duplicate_gives_way_to_another_answer() {
        let id = MemoryId::new_at(0);
        let a = [1.0f32, 0.0];
        let b = [0.0f32, 1.0];
        let candidates = [
            Candidate {
                id,
                text: "Kiwi is a parrot.",
                score: 1.0,
                vector: Some(&a),
            },
            Candidate {
                id,
                text: "Kiwi is a parrot!",
                score: 0.95,
                vector: Some(&a),
            },
            Candidate {
                id,
                text: "Kiwi lives in Lisbon.",
                score: 0.8,
                vector: Some(&b),
            },
        ];
        assert_eq!(
            Mmr::default().rerank("kiwi", &candidates).unwrap(),
            [0, 2, 1]
        );
        // Relevance alone keeps recall's order.
        let relevance_only = Mmr { lambda: 1.0 };
        assert_eq!(
            relevance_only.rerank("kiwi", &candidates).unwrap(),
            [0, 1, 2]
        );
    }
}
