//! Every backend ranks a fixed set as the in-memory store does: the same
//! memories in the same order for keyword and hybrid recall, with fixed
//! vectors. Run against SQLite and PostgreSQL, this makes the two rank
//! alike wherever the data is the same.

use std::sync::Arc;

use serde_json::json;

use super::{engine, insert, lexical_vector, sample, scattered, LexicalEmbedder, DIM};
use crate::engine::{RecallRequest, SearchMode};
use crate::memory::{EmbedRecipe, Memory, MemoryType};
use crate::memstore::MemoryStore;
use crate::store::{ScopeFilter, Store};
use crate::Embedder;

/// The words of the fixed set: a few common ones and a tail of rarer
/// ones, so that queries mix terms held by most memories with terms held
/// by a few.
const WORDS: [&str; 24] = [
    "the",
    "deploy",
    "server",
    "backup",
    "database",
    "staging",
    "token",
    "rotate",
    "weekly",
    "cache",
    "latency",
    "alert",
    "billing",
    "invoice",
    "customer",
    "schema",
    "migration",
    "replica",
    "failover",
    "certificate",
    "renewal",
    "quota",
    "dashboard",
    "incident",
];

/// The queries asked in both modes.
const QUERIES: [&str; 7] = [
    "database backup",
    "rotate the token weekly",
    "staging server latency alert",
    "the",
    "certificate renewal failover replica",
    "billing invoice customer quota",
    "schema migration on the staging database",
];

/// A fixed pseudo-random sequence (a linear congruential generator).
struct Sequence(u64);

impl Sequence {
    fn next(&mut self, below: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) % below as u64) as usize
    }

    /// A word, the first ones far likelier (roughly Zipf).
    fn word(&mut self) -> &'static str {
        let a = self.next(WORDS.len());
        let b = self.next(WORDS.len());
        WORDS[a.min(b)]
    }
}

/// The fixed set: 90 memories of 3–12 words, some tagged, some with
/// metadata, each with a fixed vector near the lexical embedding of its
/// content.
fn fixed_set() -> Vec<(Memory, Vec<f32>)> {
    let mut seq = Sequence(33);
    (0..90u32)
        .map(|i| {
            let words = 3 + seq.next(10);
            let content: Vec<&str> = (0..words).map(|_| seq.word()).collect();
            let content = format!("{} note {i}", content.join(" "));
            let mut m = sample(i, "default", None, MemoryType::Note, &content);
            m.tags = match seq.next(3) {
                0 => Vec::new(),
                _ => vec![seq.word().to_string()],
            };
            m.metadata = match seq.next(4) {
                0 => json!({ "about": seq.word() }),
                _ => json!({}),
            }
            .as_object()
            .cloned()
            .unwrap_or_default();
            // Its words' vector, moved a little off it so that no two
            // memories are equally near a query.
            let words = lexical_vector(&m.content, DIM);
            let noise = scattered(i, DIM);
            let mut vector: Vec<f32> = words.iter().zip(&noise).map(|(w, n)| w + 0.3 * n).collect();
            let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
            vector.iter_mut().for_each(|x| *x /= norm);
            (m, vector)
        })
        .collect()
}

/// Whether `store`'s vector search of `query` ranks as `reference`'s,
/// asserting that its cosines are at least within the int8 error of the
/// exact ones.
fn same_vector_side(store: &Arc<dyn Store>, reference: &Arc<dyn Store>, query: &str) -> bool {
    let vector = lexical_vector(query, DIM);
    let filter = crate::store::Filter::new("default", super::T0).scope(ScopeFilter::All);
    let ranked = |s: &Arc<dyn Store>| {
        let mut hits = s
            .vector_search(&vector, &filter, 50)
            .expect("vector search");
        crate::rank::ties::order_vector_hits(&mut hits);
        hits
    };
    let (got, want) = (ranked(store), ranked(reference));
    assert_eq!(got.len(), want.len(), "{query:?}");
    for h in &got {
        let exact = want.iter().find(|w| w.id == h.id).map(|w| w.score);
        if let Some(exact) = exact {
            assert!(
                (h.score - exact).abs() < 0.005,
                "{query:?}: {} against {exact}",
                h.score
            );
        }
    }
    got.iter().map(|h| h.id).eq(want.iter().map(|h| h.id))
}

/// Keyword and hybrid recall of [`QUERIES`] over the fixed set return
/// the same memories in the same order from `store` as from the
/// in-memory store, with the same BM25 scores.
pub fn engine_ranks_the_fixed_set_as_the_reference(store: Arc<dyn Store>) {
    let reference: Arc<dyn Store> = Arc::new(MemoryStore::new());
    // The model the engine records (the vectors are given, not embedded).
    let model = EmbedRecipe::NAMES.model(LexicalEmbedder.model());
    // One set, the same ids in both (ties are broken by id).
    let set = fixed_set();
    for s in [&store, &reference] {
        s.set_model(&model).expect("set_model");
        insert(s.as_ref(), set.clone());
    }
    let (tested, expected) = (engine(store.clone()), engine(reference.clone()));
    for mode in [SearchMode::Keyword, SearchMode::Hybrid] {
        for query in QUERIES {
            let mut req = RecallRequest::new("default", query);
            req.mode = mode;
            req.limit = 10;
            req.filter = req.filter.scope(ScopeFilter::All);
            if mode == SearchMode::Hybrid && !same_vector_side(&store, &reference, query) {
                // A backend whose cosines are approximate (SQLite's int8
                // codes) may order neighbours closer than its error
                // otherwise: the fusion is then compared where the sides
                // agree only.
                continue;
            }
            let got = tested.search(&req).expect("search the backend");
            let want = expected.search(&req).expect("search the reference");
            let ids = |r: &[crate::engine::Recalled]| -> Vec<String> {
                r.iter().map(|r| r.memory.content.clone()).collect()
            };
            let why = |r: &[crate::engine::Recalled]| -> Vec<String> {
                r.iter()
                    .map(|r| {
                        let e = &r.explain;
                        format!(
                            "{:?} bm25 {:?}/{:?} vector {:?}/{:?} feedback {:?} score {}",
                            r.memory.content.rsplit(' ').next(),
                            e.bm25_rank,
                            e.bm25_score,
                            e.vector_rank,
                            e.cosine,
                            e.feedback_rank,
                            e.score
                        )
                    })
                    .collect()
            };
            assert_eq!(
                ids(&got),
                ids(&want),
                "{mode:?} {query:?}\n{:#?}\n{:#?}",
                why(&got),
                why(&want)
            );
            assert!(!want.is_empty(), "{mode:?} {query:?} finds something");
            for (g, w) in got.iter().zip(&want) {
                let (g, w) = (g.explain.bm25_score, w.explain.bm25_score);
                assert_eq!(g.is_some(), w.is_some(), "{mode:?} {query:?}");
                if let (Some(g), Some(w)) = (g, w) {
                    assert!(
                        (g - w).abs() <= 1e-9 * w.abs().max(1.0),
                        "{mode:?} {query:?}: BM25 {g} against {w}"
                    );
                }
            }
        }
    }
}
