//! Topic segmentation with the real model: the scripted conversations that
//! set `cairn_core::analysis::segment::THRESHOLD`.

use cairn_core::analysis::segment::{boundaries, SegmentConfig, TopicTracker, THRESHOLD};
use cairn_core::Embedder;

use super::model;

/// A conversation that changes subject twice: at message 6 (a database
/// migration → a holiday in Portugal) and at message 12 (→ a bug in the
/// CSS build).
const THREE_SUBJECTS: &[&str] = &[
    "We need to plan the migration of the orders database from MySQL to PostgreSQL.",
    "The orders table has about 40 million rows, so a dump and restore would take hours.",
    "Could we use logical replication to keep both databases in sync during the switch?",
    "Yes, and we should freeze schema changes on the orders service until the cutover.",
    "Let's run the migration rehearsal on the staging database next Tuesday.",
    "I'll write the rollback plan in case the replication lag grows too large.",
    "Anyway, I'm off to Portugal next month for a two-week holiday.",
    "Lovely! Are you staying in Lisbon or travelling around the country?",
    "Three days in Lisbon, then we drive down to the beaches of the Algarve.",
    "You must try the pastéis de nata in Belém and the grilled sardines.",
    "We also booked a day trip to Sintra to see the palaces.",
    "Sounds wonderful, the weather in Portugal should be warm and sunny then.",
    "By the way, the CSS build broke on the main branch this morning.",
    "The stylesheet bundler fails with an error about an unknown at-rule in tailwind.css.",
    "It started after someone upgraded PostCSS and the Tailwind plugin.",
    "Pinning postcss to the previous version makes the CSS compile again.",
    "We should add the CSS build to the CI pipeline so it fails before merging.",
    "I'll open a pull request that pins the version and fixes the stylesheet import.",
];

/// Where [`THREE_SUBJECTS`] changes subject.
const CHANGES: [usize; 2] = [6, 12];

/// A conversation on one subject throughout (the database migration), with
/// the short replies a real one has.
const ONE_SUBJECT: &[&str] = &[
    "We need to plan the migration of the orders database from MySQL to PostgreSQL.",
    "How big is the orders database right now?",
    "About 40 million rows in the orders table and a few smaller tables around it.",
    "A plain dump and restore of the database would take several hours of downtime.",
    "Could we use logical replication to keep MySQL and PostgreSQL in sync?",
    "Yes, a replication tool can stream the changes while the old database stays live.",
    "Then we switch the orders service to PostgreSQL once the replication lag is near zero.",
    "We should freeze schema changes on the orders database until the cutover.",
    "What about the stored procedures in MySQL? They need rewriting for PostgreSQL.",
    "There are only three stored procedures; I can port them to PL/pgSQL this week.",
    "Let's rehearse the database migration on staging next Tuesday.",
    "I'll write the rollback plan in case the replication falls behind.",
    "We also need to check the indexes on the orders table after the migration.",
    "Good point, PostgreSQL may need different indexes for the order queries.",
    "I'll compare the query plans of the slowest order queries on both databases.",
    "After the rehearsal we pick a date for the production database migration.",
];

fn embed(texts: &[&str]) -> Vec<Vec<f32>> {
    model().embed_batch(texts).expect("embed")
}

/// Each message's similarity to the running topic, printed for whoever
/// tunes the threshold.
fn trace(name: &str, texts: &[&str], vectors: &[Vec<f32>]) {
    let mut tracker = TopicTracker::new(SegmentConfig::default());
    for (i, (t, v)) in texts.iter().zip(vectors).enumerate() {
        let step = tracker.push(v);
        eprintln!(
            "{name} {i:2} sim {:.3} {} {}",
            step.similarity,
            step.boundary
                .map_or(String::new(), |b| format!("NEW TOPIC at {b}")),
            t.chars().take(50).collect::<String>()
        );
    }
}

#[test]
fn finds_the_two_changes_of_subject() {
    let vectors = embed(THREE_SUBJECTS);
    trace("three", THREE_SUBJECTS, &vectors);
    let found = boundaries(&vectors, SegmentConfig::default());
    assert_eq!(found.len(), 2, "boundaries {found:?}");
    for (got, want) in found.iter().zip(CHANGES) {
        assert!(got.abs_diff(want) <= 1, "boundary {got}, expected {want}");
    }
}

#[test]
fn one_subject_has_no_boundary() {
    let vectors = embed(ONE_SUBJECT);
    trace("one", ONE_SUBJECT, &vectors);
    assert_eq!(
        boundaries(&vectors, SegmentConfig::default()),
        Vec::<usize>::new()
    );
}

/// The threshold has room on both sides: every threshold within 0.05 of it
/// finds the two changes and keeps the single subject whole. The range of
/// thresholds that do is printed.
#[test]
fn the_threshold_has_a_margin() {
    let three = embed(THREE_SUBJECTS);
    let one = embed(ONE_SUBJECT);
    let works = |threshold: f32| {
        let config = SegmentConfig {
            threshold,
            ..SegmentConfig::default()
        };
        let found = boundaries(&three, config);
        found.len() == 2
            && found.iter().zip(CHANGES).all(|(f, c)| f.abs_diff(c) <= 1)
            && boundaries(&one, config).is_empty()
    };
    let working: Vec<f32> = (0..=40)
        .map(|k| k as f32 * 0.0125)
        .filter(|t| works(*t))
        .collect();
    eprintln!(
        "thresholds that work: {:.4} to {:.4} ({working:?})",
        working.first().copied().unwrap_or(f32::NAN),
        working.last().copied().unwrap_or(f32::NAN)
    );
    for t in [THRESHOLD - 0.05, THRESHOLD, THRESHOLD + 0.05] {
        assert!(works(t), "threshold {t}");
    }
}
