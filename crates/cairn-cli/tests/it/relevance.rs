//! The relevance floor end to end, with the real model: a question about
//! something never stored gets an empty answer, and says so; a related one
//! still finds its memory, with a relevance a person can read.

use super::Env;

fn remember_unrelated_facts(env: &Env) -> String {
    env.remember(&[
        "The user prefers concise answers without emojis",
        "--type",
        "preference",
    ]);
    env.remember(&["Deploys of the billing service happen on Tuesdays after the standup"]);
    env.remember(&["The atlas production database is PostgreSQL 16 on db-prod-3"])
}

#[test]
fn an_unrelated_question_gets_nothing_and_a_related_one_its_memory() {
    let env = Env::new();
    let database = remember_unrelated_facts(&env);

    let r = env.json(&["recall", "when does the cafeteria close?"]);
    assert_eq!(r["results"], serde_json::json!([]), "{r:#}");
    let text = env.ok(&["recall", "when does the cafeteria close?"]);
    assert!(text.contains("nothing relevant is stored"), "{text}");

    // The floor off: every memory comes back, each less relevant than the
    // default floor asks.
    let all = env.json(&[
        "recall",
        "when does the cafeteria close?",
        "--min-relevance",
        "0",
    ]);
    let results = all["results"].as_array().unwrap();
    assert_eq!(results.len(), 3, "{all:#}");
    let mut unrelated = 0.0f64;
    for hit in results {
        let rel = hit["relevance"].as_f64().unwrap();
        assert!((0.0..0.01).contains(&rel), "{hit:#}");
        unrelated = unrelated.max(rel);
    }

    let r = env.json(&["recall", "which database does production use?", "--explain"]);
    let first = &r["results"][0];
    assert_eq!(first["id"], database, "{r:#}");
    let rel = first["relevance"].as_f64().unwrap();
    assert!(
        rel > 0.01 && rel > 3.0 * unrelated && rel <= 1.0,
        "{first:#}"
    );
    let explain = &first["explain"];
    assert_eq!(explain["relevance"], first["relevance"]);
    assert!(explain["cosine"].as_f64().unwrap() > 0.3, "{explain:#}");
    assert!(explain["term_share"].as_f64().unwrap() > 0.0, "{explain:#}");
    let matched = explain["matched_terms"].as_array().unwrap();
    assert!(matched.contains(&"database".into()), "{explain:#}");

    // A floor outside 0–1 is a clear error naming the option.
    let out = env.run(&["recall", "database", "--min-relevance", "2"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("min_relevance"), "{err}");
}

/// A store of three memories is too small for a word it lacks to say the
/// question is about something else: a paraphrase, whose words the store
/// does not hold, still finds its memory.
#[test]
fn a_small_store_still_finds_a_paraphrase() {
    let env = Env::new();
    remember_unrelated_facts(&env);
    let r = env.json(&[
        "recall",
        "what day do we ship the invoicing software?",
        "--explain",
    ]);
    let first = &r["results"][0];
    let content = first["content"].as_str().unwrap_or_default();
    assert!(
        content.starts_with("Deploys of the billing service"),
        "{r:#}"
    );
    assert_eq!(first["explain"]["unknown_share"], 0.0, "{r:#}");
}
