//! Conformance of recall's relevance judgement
//! ([`crate::rank::relevance`]): every backend gives the evidence it is
//! computed from (the terms' rarity, each memory's vector) alike, so the
//! same memories get the same relevance, and the floor drops the same
//! results, on every backend.

use std::sync::Arc;

use super::{engine, LexicalEmbedder};
use crate::engine::{RecallRequest, RememberRequest, SearchMode};
use crate::rank::relevance::{relevance, term_idf, term_share, Evidence, RelevanceModel};
use crate::rank::{cosine, Fusion};
use crate::store::{keyword_terms, Store};
use crate::{Embedder, Error};

const DATABASE: &str = "the atlas production database runs postgres 16 on db-prod-3";

/// A question about something never stored gets an empty answer by
/// default and every match with the floor off; a related question finds
/// its memory with the relevance the rank module computes from the
/// backend's counts and the stored vector; a floor outside 0–1 is a clear
/// error.
pub fn engine_relevance_floor(store: Arc<dyn Store>) {
    let cairn = engine(store.clone()).with_fusion(Fusion::default());
    let texts = [
        DATABASE,
        "deploys happen on tuesdays after the standup",
        "the user prefers short answers without a preamble",
    ];
    for text in texts {
        cairn
            .remember(RememberRequest::new("default", text))
            .unwrap();
    }
    let ask = |query: &str, mode: SearchMode, floor: Option<f64>| {
        let mut q = RecallRequest::new("default", query);
        q.mode = mode;
        q.min_relevance = floor;
        cairn.search(&q)
    };

    for mode in [
        SearchMode::Hybrid,
        SearchMode::Semantic,
        SearchMode::Keyword,
    ] {
        let unrelated = ask("when does the cafeteria close?", mode, None).unwrap();
        assert!(unrelated.is_empty(), "{mode:?}: {unrelated:?}");
    }
    let all = ask(
        "when does the cafeteria close?",
        SearchMode::Semantic,
        Some(0.0),
    )
    .unwrap();
    assert_eq!(all.len(), texts.len(), "the floor off returns every match");
    for r in &all {
        let rel = r.explain.relevance.unwrap();
        assert!(
            (0.0..Fusion::default().min_relevance).contains(&rel),
            "{rel}"
        );
        assert!(r.explain.cosine.is_some(), "judged with a cosine");
    }

    let query = "which database does atlas production use";
    for mode in [SearchMode::Hybrid, SearchMode::Semantic] {
        let found = ask(query, mode, None).unwrap();
        assert_eq!(found.len(), 1, "{mode:?}: {found:?}");
        let top = &found[0];
        assert_eq!(top.memory.content, DATABASE);
        let e = &top.explain;
        assert_eq!(e.matched_terms, ["database", "atlas", "production"]);
        // The share from the backend's counts: three memories, each
        // matched term in one, "use" in none.
        let idf: Vec<(String, f64)> = keyword_terms(query)
            .into_iter()
            .map(|t| {
                let n = match e.matched_terms.contains(&t) {
                    true => 1.0,
                    false => 0.0,
                };
                (t, term_idf(3.0, n))
            })
            .collect();
        let (expected_share, _) = term_share(&idf, &crate::store::query_terms(DATABASE));
        assert!((e.term_share.unwrap() - expected_share).abs() < 1e-9);
        // The cosine of the stored vector.
        let stored = store
            .embeddings("default", &[top.memory.id])
            .unwrap()
            .remove(0)
            .unwrap();
        let q = LexicalEmbedder.embed(query).unwrap();
        let cos = f64::from(cosine(&q, &stored));
        // (An index may store its vectors quantised.)
        assert!((e.cosine.unwrap() - cos).abs() < 1e-2, "{e:?} vs {cos}");
        let expected = relevance(&Evidence {
            cosine: e.cosine,
            term_share: expected_share,
            // Three memories: too few for a word they lack to count.
            unknown_share: 0.0,
        });
        assert_eq!(e.unknown_share, Some(0.0));
        assert!((e.relevance.unwrap() - expected).abs() < 1e-9);
        assert!(e.relevance.unwrap() >= Fusion::default().min_relevance);
    }
    // Keyword mode judges by the terms alone.
    let found = ask(query, SearchMode::Keyword, None).unwrap();
    assert_eq!(found[0].memory.content, DATABASE);
    assert_eq!(found[0].explain.cosine, None);

    for bad in [-0.1, 1.5, f64::NAN] {
        let err = ask(query, SearchMode::Hybrid, Some(bad)).unwrap_err();
        assert!(
            matches!(&err, Error::InvalidInput(m) if m.contains("min_relevance")),
            "{err:?}"
        );
    }
}

/// In a store of 300 memories, a question made mostly of words no memory
/// holds gets an empty answer, though one memory shares two of its words
/// (and so some of its vector): the unknown share
/// ([`crate::rank::relevance::unknown_share`]) weighs it down, and without
/// that weight the memory comes back. A question in the store's own words
/// still finds its memory.
pub fn engine_relevance_unknown_words(store: Arc<dyn Store>) {
    let cairn = engine(store.clone()).with_fusion(Fusion::default());
    let mut n = 0;
    for service in ["atlas", "billing", "search", "gateway", "ledger", "orbit"] {
        for job in ["deploys", "backups", "alerts", "migrations", "releases"] {
            for day in ["monday", "tuesday", "wednesday", "thursday", "friday"] {
                for region in ["europe", "america"] {
                    n += 1;
                    let text =
                        format!("the {service} {job} run on {day} in {region} see runbook{n}");
                    cairn
                        .remember(RememberRequest::new("default", &text))
                        .unwrap();
                }
            }
        }
    }
    let ask = |query: &str, model: Option<RelevanceModel>| {
        let mut fusion = Fusion::default();
        if let Some(m) = model {
            fusion.relevance_model = m;
        }
        let mut q = RecallRequest::new("default", query);
        q.mode = SearchMode::Hybrid;
        engine(store.clone())
            .with_fusion(fusion)
            .search(&q)
            .unwrap()
    };

    let unrelated = "do the atlas deploys need the ios mobile app";
    assert!(ask(unrelated, None).is_empty());
    let without = RelevanceModel {
        unknown: 0.0,
        ..RelevanceModel::default()
    };
    let found = ask(unrelated, Some(without));
    // The atlas deploys memories tie on the query's words: which of them
    // (or their neighbours) comes first depends on the backend's vectors.
    assert!(
        found
            .iter()
            .any(|r| r.memory.content.starts_with("the atlas deploys")),
        "the model without the unknown share"
    );

    let found = ask("when do the atlas deploys run", None);
    assert!(!found.is_empty());
    assert!(found[0].memory.content.starts_with("the atlas deploys"));
    assert_eq!(
        found[0].explain.unknown_share,
        Some(0.0),
        "every word known"
    );
}
