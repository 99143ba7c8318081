//! The relevance floor for questions about what the store never mentions,
//! with the real model: their nearest memories are close enough by vector
//! (a question about a website's font beside billing facts), but the
//! question's own words appear in no memory, and that lowers every result
//! below the floor (`rank::relevance::unknown_share`).

use super::Env;

#[test]
fn a_question_whose_words_no_memory_holds_gets_nothing() {
    let env = Env::new();
    env.remember(&[
        "The user prefers concise answers without emojis",
        "--type",
        "preference",
    ]);
    let billing =
        env.remember(&["Deploys of the billing service happen on Tuesdays after the standup"]);
    env.remember(&["The atlas production database is PostgreSQL 16 on db-prod-3"]);

    for question in [
        "Which translation vendor localises the atlas app into Japanese?",
        "What font does the billing website use?",
    ] {
        let r = env.json(&["recall", question]);
        assert_eq!(r["results"], serde_json::json!([]), "{question}: {r:#}");
        // The floor off: the nearest memories come back, the query's
        // unknown words weighing on each.
        let all = env.json(&["recall", question, "--min-relevance", "0", "--explain"]);
        let results = all["results"].as_array().unwrap();
        assert_eq!(results.len(), 3, "{all:#}");
        let top = &results[0]["explain"];
        assert!(top["cosine"].as_f64().unwrap() > 0.3, "{top:#}");
    }

    // A question in the store's own words still finds its memory.
    let r = env.json(&["recall", "what day do we ship billing?"]);
    assert_eq!(r["results"][0]["id"], billing, "{r:#}");
}
