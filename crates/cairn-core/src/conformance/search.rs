//! Conformance checks of searching: keyword search and its BM25 scores,
//! vector search (approximate and exact), accesses, expiry, statistics,
//! the ranking factors of hits, and the recorded model.

#[allow(unused_imports)]
use super::*;

/// Keyword search: content, tags and metadata are searched, ranking favours
/// more matching terms, and no user text is ever query syntax.
pub fn check_keyword_search(store: Arc<dyn Store>) {
    let a = sample(
        1,
        "default",
        None,
        MemoryType::Fact,
        "the staging database runs on a Hetzner box in Falkenstein",
    );
    let b = sample(
        2,
        "default",
        None,
        MemoryType::Fact,
        "the production database is managed by the platform team",
    );
    let mut c = sample(
        3,
        "default",
        None,
        MemoryType::Fact,
        "coffee order: flat white",
    );
    c.tags = vec!["kitchen".into()];
    c.metadata = json!({"owner": "Grace Hopper"})
        .as_object()
        .cloned()
        .unwrap();
    insert(
        &*store,
        vec![
            (a.clone(), axis(1, DIM)),
            (b.clone(), axis(2, DIM)),
            (c.clone(), axis(3, DIM)),
        ],
    );
    // Document frequencies, where the backend counts them.
    if let Some(r) = store.keyword_rarity("database Falkenstein zzzqqq").unwrap() {
        assert_eq!(r.rows, 3.0);
        assert_eq!(r.terms, ["database", "falkenstein", "zzzqqq"]);
        assert_eq!(r.rows_with_term, vec![2.0, 1.0, 0.0]);
    }
    let f = filter_all("default");
    let top = |q: &str| {
        store
            .keyword_search(q, &f, 10)
            .unwrap()
            .first()
            .map(|h| h.id)
    };
    assert_eq!(top("staging database Falkenstein"), Some(a.id));
    assert_eq!(top("production database"), Some(b.id));
    assert_eq!(top("kitchen"), Some(c.id));
    assert_eq!(top("hopper"), Some(c.id));
    let hits = store.keyword_search("database", &f, 10).unwrap();
    assert_eq!(hits.len(), 2);
    assert!(hits[0].score >= hits[1].score && hits[1].score > 0.0);
    // Terms are OR-ed: one matching word is enough.
    assert_eq!(top("falkenstein zzzunknownzzz"), Some(a.id));
    for hostile in [
        "\"",
        "\"unbalanced",
        "pre-production",
        "AND",
        "OR",
        "NOT",
        "NEAR",
        "NEAR(a b)",
        "a AND OR b",
        "*",
        "data*",
        "content:staging",
        "(staging",
        "staging)",
        "🦀🦀",
        "?!.,;",
        "",
        "   ",
        "'",
        "\\",
        "^staging",
        "+-",
        "\"\"\"\"",
        "{staging}",
        "[x]",
        "a:b:c",
        "NEAR/2",
        "col1 : \"x",
    ] {
        let r = store.keyword_search(hostile, &f, 10);
        assert!(r.is_ok(), "query {hostile:?} failed: {r:?}");
    }
    assert_eq!(top("\"staging"), Some(a.id));
    assert_eq!(top("staging)"), Some(a.id));
    assert!(store.keyword_search("?!.,;", &f, 10).unwrap().is_empty());
}

/// Vector search returns the nearest memories first with their cosine.
pub fn check_vector_search(store: Arc<dyn Store>) {
    let mut items = Vec::new();
    for i in 0..30u32 {
        items.push((
            sample(i, "default", None, MemoryType::Note, &format!("note {i}")),
            axis(i as usize + 1, DIM),
        ));
    }
    insert(&*store, items.clone());
    let f = filter_all("default");
    for probe in [0usize, 7, 29] {
        let hits = store.vector_search(&items[probe].1, &f, 5).unwrap();
        assert_eq!(hits[0].id, items[probe].0.id, "probe {probe}");
        assert!((hits[0].score - 1.0).abs() < 0.02, "{}", hits[0].score);
        assert!(hits.windows(2).all(|w| w[0].score >= w[1].score));
        assert_eq!(hits.len(), 5);
    }
}

/// `vector_search_exact` finds the nearest memory however an index would
/// rank it: here the nearest (cosine ≈ 0.84) has the opposite sign to the
/// query on every coordinate but one, while 1,100 others (cosine ≈ 0.1)
/// share the query's signs everywhere, so a sign-sketch or graph index
/// has every reason to pass it over.
pub fn check_exact_vector_search(store: Arc<dyn Store>) {
    let a = 0.015f32;
    let along = |sign: f32, axis: usize| {
        let mut v = vec![sign * a; DIM];
        v[axis] = 1.0;
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter_mut().for_each(|x| *x /= n);
        v
    };
    let query = along(1.0, 0);
    let nearest = sample(0, "default", None, MemoryType::Note, "the nearest");
    let mut items = vec![(nearest.clone(), along(-1.0, 0))];
    for i in 1..=1100u32 {
        let m = sample(i, "default", None, MemoryType::Note, &format!("far {i}"));
        items.push((m, along(1.0, 1 + i as usize % (DIM - 1))));
    }
    insert(&*store, items);
    let f = filter_all("default");
    let hits = store.vector_search_exact(&query, &f, 8).unwrap();
    assert_eq!(hits.len(), 8);
    assert_eq!(hits[0].id, nearest.id, "the nearest memory was left out");
    // 0.841 exactly; an index may keep its cosines approximately.
    assert!((hits[0].score - 0.841).abs() < 0.03, "{}", hits[0].score);
    assert!(hits[1].score < 0.2, "{}", hits[1].score);
}

/// Accesses are counted; expired memories are collected; stats add up.
pub fn check_access_expiry_stats(store: Arc<dyn Store>) {
    let a = sample(1, "default", Some("atlas"), MemoryType::Fact, "a");
    let mut b = sample(2, "default", None, MemoryType::Rule, "b");
    b.expires_at = Some(T0 + 10);
    let c = sample(3, "other", None, MemoryType::Rule, "c");
    insert(
        &*store,
        vec![
            (a.clone(), axis(1, DIM)),
            (b.clone(), axis(2, DIM)),
            (c.clone(), axis(3, DIM)),
        ],
    );
    store
        .record_access("default", &[a.id, a.id], T0 + 77)
        .unwrap();
    store.record_access("other", &[a.id], T0 + 99).unwrap();
    let got = &store.get("default", &[a.id]).unwrap()[0];
    assert_eq!(got.access_count, 2);
    assert_eq!(got.last_accessed_at, Some(T0 + 77));
    let s = store.stats("default", T0 + 20).unwrap();
    assert_eq!(s.total, 2);
    assert_eq!(s.expired, 1);
    assert_eq!(
        s.by_type,
        vec![("fact".to_string(), 1), ("rule".to_string(), 1)]
    );
    assert_eq!(
        s.by_project,
        vec![(None, 1), (Some("atlas".to_string()), 1)]
    );
    assert_eq!(
        store.tenants(crate::TenantsWith::Memories).unwrap(),
        vec!["default".to_string(), "other".to_string()]
    );
    assert_eq!(store.maintenance().delete_expired(T0 + 5).unwrap(), 0);
    assert_eq!(store.maintenance().delete_expired(T0 + 20).unwrap(), 1);
    assert!(store.get("default", &[b.id]).unwrap().is_empty());
    assert_eq!(store.stats("other", T0).unwrap().total, 1);
}

/// Search hits carry each memory's ranking factors as they are now:
/// weight, scope, and accesses recorded after the memory was written.
pub fn check_hit_factors(store: Arc<dyn Store>) {
    let mut a = sample(
        1,
        "default",
        Some("atlas"),
        MemoryType::Fact,
        "granite ridge",
    );
    a.weight = 0.5;
    let b = sample(2, "default", None, MemoryType::Fact, "granite valley");
    insert(
        &*store,
        vec![(a.clone(), axis(1, DIM)), (b.clone(), axis(2, DIM))],
    );
    let filter = filter_all("default");
    let factors_of = |hits: Vec<Hit>, id: MemoryId| {
        hits.into_iter()
            .find(|h| h.id == id)
            .map(|h| h.factors)
            .expect("the memory is a hit")
    };
    let both = |id: MemoryId, vector: &[f32]| {
        let keyword = factors_of(store.keyword_search("granite", &filter, 10).unwrap(), id);
        let semantic = factors_of(store.vector_search(vector, &filter, 10).unwrap(), id);
        assert_eq!(keyword, semantic, "both sides agree");
        let whole = &store.get("default", &[id]).unwrap()[0];
        assert_eq!(keyword, RankFactors::of(whole), "hits agree with get");
        keyword
    };
    let untouched = RankFactors {
        access_count: 0,
        last_accessed_at: None,
        global: false,
        weight: 0.5,
    };
    assert_eq!(both(a.id, &axis(1, DIM)), untouched);
    store
        .record_access("default", &[b.id, b.id], T0 + 50)
        .unwrap();
    let accessed = RankFactors {
        access_count: 2,
        last_accessed_at: Some(T0 + 50),
        global: true,
        weight: 1.0,
    };
    assert_eq!(both(b.id, &axis(2, DIM)), accessed);
    assert_eq!(both(a.id, &axis(1, DIM)), untouched);
}

/// The model is recorded and read back.
pub fn check_model(store: Arc<dyn Store>) {
    assert_eq!(store.model().unwrap(), None);
    let m = ModelInfo {
        name: "x".into(),
        dim: DIM,
    };
    store.set_model(&m).unwrap();
    assert_eq!(store.model().unwrap(), Some(m));
}

/// Keyword search scores exactly `rank::bm25_term` over the corpus's own
/// counts (content, tags and metadata weighted 1, 1 and 0.5; the row count
/// and average length over every stored memory, all tenants): so every
/// backend ranks this corpus identically. The words are ones a Porter
/// stemmer leaves as they are (SQLite stems; the in-memory store does not).
pub fn check_bm25_matches_the_formula(store: Arc<dyn Store>) {
    let corpus: [(&str, &str, &[&str], &str); 8] = [
        ("default", "red fox and red box", &["fox"], "map"),
        ("default", "blue box on a red cart", &["cart"], "red"),
        (
            "default",
            "the owl sat on the tree",
            &["owl", "tree"],
            "sun",
        ),
        ("default", "a cup and a pen", &[], "fox fox"),
        ("default", "sun sun sun over the sea", &["sea"], ""),
        ("default", "fox", &[], ""),
        ("other", "red fox of another tenant", &["fox"], "red"),
        ("default", "nothing to see here at all", &["misc"], "box"),
    ];
    let mut memories = Vec::new();
    for (i, (tenant, content, tags, meta)) in corpus.iter().enumerate() {
        let mut m = sample(i as u32, tenant, None, MemoryType::Note, content);
        m.tags = tags.iter().map(|t| t.to_string()).collect();
        m.metadata = json!({ "about": meta })
            .as_object()
            .cloned()
            .unwrap_or_default();
        memories.push((m, axis(i + 1, DIM)));
    }
    insert(&*store, memories.clone());
    let words = |m: &Memory| -> [Vec<String>; 3] {
        let split = |t: &str| crate::store::query_terms(t);
        [
            split(&m.content),
            split(&m.tags.join(" ")),
            split(&m.keyword_context()),
        ]
    };
    let rows = memories.len() as f64;
    let len = |f: &[Vec<String>; 3]| f.iter().map(Vec::len).sum::<usize>() as f64;
    let avgdl = memories.iter().map(|(m, _)| len(&words(m))).sum::<f64>() / rows;
    for query in ["red fox", "box", "sun tree", "fox cart"] {
        let terms = crate::store::keyword_terms(query);
        let mut expected: Vec<(MemoryId, f64)> = memories
            .iter()
            .filter(|(m, _)| m.tenant == "default")
            .filter_map(|(m, _)| {
                let f = words(m);
                let mut score = 0.0;
                let mut matched = false;
                for t in &terms {
                    let n = memories
                        .iter()
                        .filter(|(o, _)| words(o).iter().flatten().any(|w| w == t))
                        .count() as f64;
                    let freq: f64 = f
                        .iter()
                        .zip(crate::rank::BM25_FIELD_WEIGHTS)
                        .map(|(ws, w)| w * ws.iter().filter(|x| *x == t).count() as f64)
                        .sum();
                    if freq > 0.0 {
                        matched = true;
                        score += crate::rank::bm25_term(rows, n, freq, len(&f), avgdl);
                    }
                }
                matched.then_some((m.id, score))
            })
            .collect();
        expected.sort_by(|a, b| b.1.total_cmp(&a.1).then(b.0.cmp(&a.0)));
        let hits = store
            .keyword_search(query, &filter_all("default"), 20)
            .unwrap();
        let got: Vec<MemoryId> = hits.iter().map(|h| h.id).collect();
        let want: Vec<MemoryId> = expected.iter().map(|e| e.0).collect();
        assert_eq!(got, want, "{query}");
        for (hit, (_, score)) in hits.iter().zip(&expected) {
            let error = (hit.score - score).abs() / score.abs().max(1e-12);
            assert!(error < 1e-9, "{query}: {} against {score}", hit.score);
        }
    }
}
