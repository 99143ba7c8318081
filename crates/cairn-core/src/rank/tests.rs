use super::*;

#[test]
fn entity_boost_grows_with_the_share_of_query_entities() {
    assert_eq!(entity_boost(0, 0), 1.0);
    assert_eq!(entity_boost(0, 2), 1.0);
    assert!((entity_boost(1, 2) - 1.125).abs() < 1e-12);
    assert!((entity_boost(2, 2) - (1.0 + ENTITY_BOOST)).abs() < 1e-12);
    assert_eq!(entity_boost(5, 2), entity_boost(2, 2));
}

#[test]
fn mmr_trades_relevance_for_novelty() {
    // 0 and 1 say the same thing; 2 says something else.
    let sim = |i: usize, j: usize| {
        let group = |k: usize| if k < 2 { 0 } else { 1 };
        if group(i) == group(j) {
            1.0
        } else {
            0.0
        }
    };
    let rel = [1.0, 0.9, 0.6];
    assert_eq!(mmr(&rel, sim, 1.0), [0, 1, 2], "relevance only");
    assert_eq!(mmr(&rel, sim, 0.7), [0, 2, 1], "novelty counts");
    assert_eq!(mmr(&[], sim, 0.7), Vec::<usize>::new());
    // Ties go to the earlier candidate; zero relevance is fine.
    assert_eq!(mmr(&[0.0, 0.0], |_, _| 0.0, 0.5), [0, 1]);
}

#[test]
fn staleness_ramps_from_its_limit_to_the_floor() {
    let day = MS_PER_DAY as i64;
    let now = 1_000 * day;
    let s = Some(30.0);
    assert_eq!(staleness(None, now - 100 * day, now, None), 1.0, "off");
    assert_eq!(staleness(None, now - 100 * day, now, Some(0.0)), 1.0, "off");
    assert_eq!(staleness(None, now - 30 * day, now, s), 1.0);
    assert!((staleness(None, now - 45 * day, now, s) - 0.75).abs() < 1e-12);
    assert_eq!(staleness(None, now - 60 * day, now, s), STALE_FLOOR);
    assert_eq!(staleness(None, now - 900 * day, now, s), STALE_FLOOR);
    // An access makes an old memory fresh; the later of the two counts.
    assert_eq!(staleness(Some(now - day), now - 900 * day, now, s), 1.0);
    assert_eq!(staleness(Some(now - 900 * day), now - day, now, s), 1.0);
    // The future counts as now.
    assert_eq!(staleness(None, now + day, now, s), 1.0);
}

#[test]
fn exchange_importance_weighs_novelty_over_salience() {
    assert!((exchange_importance(1.0, 0.0) - 0.6).abs() < 1e-12);
    assert!((exchange_importance(0.0, 1.0) - 0.4).abs() < 1e-12);
    assert!((exchange_importance(2.0, -1.0) - 0.6).abs() < 1e-12);
    assert!(exchange_importance(0.9, 0.1) > exchange_importance(0.1, 0.9));
}

#[test]
fn rrf_sums_reciprocal_ranks() {
    let a = ["x", "y", "z"];
    let b = ["y", "w"];
    let fused = reciprocal_rank_fusion(&[(&a[..], 1.0), (&b[..], 1.0)], 60.0);
    // y: 1/62 + 1/61 beats x: 1/61.
    assert_eq!(fused[0].0, "y");
    assert!((fused[0].1 - (1.0 / 62.0 + 1.0 / 61.0)).abs() < 1e-12);
    assert_eq!(fused[1].0, "x");
    assert!((fused[1].1 - 1.0 / 61.0).abs() < 1e-12);
    // w (rank 2 of b) ties... no: w = 1/62, z = 1/63.
    assert_eq!(fused[2].0, "w");
    assert_eq!(fused[3].0, "z");
    assert_eq!(fused.len(), 4);
}

#[test]
fn rrf_ties_are_deterministic() {
    let a = ["a"];
    let b = ["b"];
    let fused = reciprocal_rank_fusion(&[(&a[..], 1.0), (&b[..], 1.0)], RRF_K);
    assert_eq!(fused[0].0, "a");
    assert_eq!(fused[1].0, "b");
    assert_eq!(fused[0].1, fused[1].1);
}

#[test]
fn rrf_of_nothing_is_empty() {
    let empty: [&str; 0] = [];
    assert!(reciprocal_rank_fusion(&[(&empty[..], 1.0)], RRF_K).is_empty());
}

#[test]
fn rrf_weights_scale_each_list() {
    let a = ["x", "y"];
    let b = ["y", "x"];
    // Equal weights: x and y tie (1/61 + 1/62 each); x was seen first.
    let fused = reciprocal_rank_fusion(&[(&a[..], 1.0), (&b[..], 1.0)], 60.0);
    assert_eq!(fused[0].0, "x");
    assert!((fused[0].1 - fused[1].1).abs() < 1e-15);
    // Weighting b twice as much puts its first item first.
    let fused = reciprocal_rank_fusion(&[(&a[..], 1.0), (&b[..], 2.0)], 60.0);
    assert_eq!(fused[0].0, "y");
    assert!((fused[0].1 - (1.0 / 62.0 + 2.0 / 61.0)).abs() < 1e-12);
    // A zero weight ignores a list's order but keeps its items.
    let fused = reciprocal_rank_fusion(&[(&a[..], 0.0), (&b[..], 1.0)], 60.0);
    assert_eq!(fused[0].0, "y");
}

#[test]
fn keyword_confidence_is_the_matched_share_of_idf_mass() {
    let (rows, generic, rare) = (1000.0, 200.0, 3.0);
    let mass = bm25_idf(rows, generic) + 2.0 * bm25_idf(rows, rare);
    // A best hit scoring the whole mass (or more: repeats, a short row).
    let all = [generic, rare, rare];
    assert_eq!(keyword_confidence(Some(mass), rows, &all), 1.0);
    assert_eq!(keyword_confidence(Some(2.0 * mass), rows, &all), 1.0);
    // Only the generic word matched.
    let c = keyword_confidence(Some(bm25_idf(rows, generic)), rows, &all);
    assert!((c - bm25_idf(rows, generic) / mass).abs() < 1e-12, "{c}");
    assert!(c < 0.2, "{c}");
    // A term no memory holds does not count.
    let c2 = keyword_confidence(
        Some(bm25_idf(rows, generic)),
        rows,
        &[generic, rare, rare, 0.0],
    );
    assert_eq!(c, c2);
    // Nothing to measure.
    assert_eq!(keyword_confidence(None, rows, &all), 1.0);
    assert_eq!(keyword_confidence(Some(2.0), rows, &[]), 1.0);
    assert_eq!(keyword_confidence(Some(2.0), rows, &[0.0]), 1.0);
}

#[test]
fn weights_scale_the_keyword_side_by_its_confidence() {
    let f = Fusion::default();
    assert_eq!(f.weights(1.0, 1.0), (KEYWORD_WEIGHT, VECTOR_WEIGHT));
    let (k, v) = f.weights(0.25, 1.0);
    assert!((k - 0.25 * KEYWORD_WEIGHT).abs() < 1e-12);
    assert_eq!(v, VECTOR_WEIGHT);
    // Out-of-range confidences are clamped.
    assert_eq!(f.weights(3.0, 1.0).0, KEYWORD_WEIGHT);
    assert_eq!(f.weights(-1.0, 1.0).0, 0.0);
    // A generic-word keyword ranking lets the vectors' first place
    // beat its own first place.
    let (k, v) = f.weights(0.2, 1.0);
    assert!(v / (f.k + 1.0) > k / (f.k + 1.0));
    // ... only as far as the vectors are sure of theirs.
    assert_eq!(f.weights(0.2, 0.0).0, KEYWORD_WEIGHT);
    let (half, _) = f.weights(0.2, 0.5);
    assert!((half - 0.6 * KEYWORD_WEIGHT).abs() < 1e-12);
}

#[test]
fn vector_confidence_is_the_first_cosines_margin() {
    let mut cos: Vec<f64> = (0..20).map(|i| 0.5 - 0.001 * f64::from(i)).collect();
    // Flat: the first place is barely ahead of the tenth.
    assert!(vector_confidence(&cos, 0.1) < 0.1);
    // A clear first place.
    cos[0] = 0.8;
    assert_eq!(vector_confidence(&cos, 0.1), 1.0);
    let c = vector_confidence(&cos, 0.5);
    assert!((c - (0.8 - 0.491) / 0.5).abs() < 1e-9, "{c}");
    // Fewer than ten: against the last.
    assert!((vector_confidence(&[0.6, 0.55], 0.1) - 0.5).abs() < 1e-9);
    // Nothing to measure.
    assert_eq!(vector_confidence(&[0.9], 0.1), 0.0);
    assert_eq!(vector_confidence(&cos, 0.0), 0.0);
}

#[test]
fn idf_floors_common_terms() {
    assert_eq!(bm25_idf(100.0, 90.0), 1e-6);
    assert!((bm25_idf(1000.0, 10.0) - (990.5f64 / 10.5).ln()).abs() < 1e-12);
}

#[test]
fn boost_formula() {
    assert_eq!(access_boost(0), 1.0);
    assert!((access_boost(10) - (1.0 + 0.1 * 11f64.ln())).abs() < 1e-12);
    assert!(access_boost(100) > access_boost(10));
}

#[test]
fn decay_is_one_when_never_accessed_and_halves_in_69_days() {
    let now = 1_000_000_000_000;
    assert_eq!(recency_decay(None, now), 1.0);
    assert_eq!(recency_decay(Some(now), now), 1.0);
    let half_life_ms = (std::f64::consts::LN_2 / DECAY_PER_DAY * MS_PER_DAY) as i64;
    let d = recency_decay(Some(now - half_life_ms), now);
    assert!((d - 0.5).abs() < 1e-6, "{d}");
    // Future access (clock skew) is not a boost.
    assert_eq!(recency_decay(Some(now + 5_000), now), 1.0);
}

#[test]
fn scope_weights() {
    assert_eq!(scope_weight(false), 1.0);
    assert_eq!(scope_weight(true), 0.8);
}

#[test]
fn breakdown_multiplies_all_factors() {
    let mut b = ScoreBreakdown {
        bm25_rank: Some(1),
        bm25_score: Some(3.0),
        vector_rank: None,
        feedback_rank: None,
        cosine: None,
        rrf: 0.5,
        boost: 2.0,
        decay: 0.5,
        scope_weight: 0.8,
        weight: 0.1,
        entities: 1.25,
        time: 1.5,
        relevance: Some(0.9),
        term_share: Some(1.0),
        unknown_share: None,
        matched_terms: vec![],
        relevance_factor: Some(0.5),
        score: 0.0,
    };
    b.combine();
    assert!((b.score - 0.5 * 2.0 * 0.5 * 0.8 * 0.1 * 1.25 * 1.5 * 0.5).abs() < 1e-12);
    assert_eq!(relevance_factor(0.3, 0.0), 1.0, "off");
    assert!((relevance_factor(0.25, 0.5) - 0.5).abs() < 1e-12);
    assert!(relevance_factor(0.0, 1.0) > 0.0, "never zero");
    assert!(relevance_factor(0.9, 1.0) > relevance_factor(0.2, 1.0));
}

#[test]
fn feedback_prefers_rare_terms_the_seeds_share() {
    let words = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
    let query = words("restore customer data");
    let seeds = [
        words("nightly pg_dump backups atlas"),
        words("pg_dump snapshots kept atlas"),
        words("customer the restore"),
    ];
    // `atlas` is in two seeds but common; `pg_dump` in two and rare.
    let idf = |t: &str| match t {
        "atlas" => Some(0.1),
        "pg_dump" => Some(3.0),
        "nightly" | "backups" | "snapshots" | "kept" => Some(2.0),
        _ => None,
    };
    let terms = feedback_terms(&query, &seeds, idf, 3);
    assert_eq!(terms, ["pg_dump", "nightly", "backups"]);
    // Query terms, short words and terms no memory holds never come back.
    let all = feedback_terms(&query, &seeds, idf, 100);
    assert!(!all.iter().any(|t| query.contains(t) || t == "the"));
    assert_eq!(all.len(), 6);
    assert!(feedback_terms(&query, &[], idf, 5).is_empty());
}

#[test]
fn feedback_counts_a_term_once_per_seed() {
    let seeds = [
        vec!["deploy".to_string(), "deploy".to_string()],
        vec!["rollback".to_string()],
    ];
    let terms = feedback_terms(
        &[],
        &seeds,
        |t| Some(if t == "deploy" { 1.0 } else { 1.5 }),
        2,
    );
    assert_eq!(terms, ["rollback", "deploy"]);
}

#[test]
fn time_match_raises_only_memories_written_within() {
    assert_eq!(time_match(true, 0.5), 1.5);
    assert_eq!(time_match(false, 0.5), 1.0);
    // Off, and never a penalty.
    assert_eq!(time_match(true, 0.0), 1.0);
    assert_eq!(time_match(true, -1.0), 1.0);
}

#[test]
fn cosine_basics() {
    assert!((cosine(&[1.0, 0.0], &[1.0, 0.0]) - 1.0).abs() < 1e-6);
    assert!(cosine(&[1.0, 0.0], &[0.0, 1.0]).abs() < 1e-6);
    assert_eq!(cosine(&[0.0, 0.0], &[1.0, 0.0]), 0.0);
}

#[test]
fn similarity_thresholds() {
    assert_eq!(classify_similarity(0.92), Similarity::Duplicate);
    assert_eq!(classify_similarity(0.9199), Similarity::Related);
    assert_eq!(classify_similarity(0.75), Similarity::Related);
    assert_eq!(classify_similarity(0.7499), Similarity::Unrelated);
}

#[test]
fn bm25_rewards_rare_terms_and_short_rows() {
    // Same frequency and length: the rarer term scores higher.
    assert!(bm25_term(1000.0, 10.0, 1.0, 10.0, 10.0) > bm25_term(1000.0, 100.0, 1.0, 10.0, 10.0));
    // Same term: a shorter row scores higher, more occurrences too.
    assert!(bm25_term(1000.0, 10.0, 1.0, 5.0, 10.0) > bm25_term(1000.0, 10.0, 1.0, 20.0, 10.0));
    assert!(bm25_term(1000.0, 10.0, 2.0, 10.0, 10.0) > bm25_term(1000.0, 10.0, 1.0, 10.0, 10.0));
    // A term in most rows still counts a little, never negatively.
    let common = bm25_term(100.0, 90.0, 1.0, 10.0, 10.0);
    assert!(common > 0.0 && common < 1e-5, "{common}");
    // At average length, f = 1: idf · (k1 + 1) / (1 + k1).
    let idf = (990.5f64 / 10.5).ln();
    assert!((bm25_term(1000.0, 10.0, 1.0, 10.0, 10.0) - idf).abs() < 1e-12);
}

#[test]
fn vault_score_weighs_similarity_over_importance() {
    assert!((vault_score(1.0, 1.0) - 1.0).abs() < 1e-12);
    assert!((vault_score(0.5, 0.0) - 0.4).abs() < 1e-12);
    assert!((vault_score(0.0, 1.0) - 0.2).abs() < 1e-12);
    // A small edge in similarity outweighs a larger one in importance.
    assert!(vault_score(0.80, 0.2) > vault_score(0.70, 0.5));
    assert!(vault_score(0.80, 0.2) < vault_score(0.70, 0.8));
}
