//! `cairn conversation`: a transcript imported, shown as topics, searched
//! by scope and time, its window and token totals — with the real model.

use serde_json::Value;

use crate::Env;

/// A conversation that changes subject twice (a database migration, a
/// holiday, a CSS build bug), over two days.
const TRANSCRIPT: &str = r#"{"conversation":"c1","speaker":"Ana","text":"We should migrate the production database to PostgreSQL 16 next sprint.","at":"2023-05-08T10:00:00Z","id":"0187facd-0000-7000-8000-000000000001"}
{"conversation":"c1","speaker":"Ben","text":"Agreed, and we keep pgvector for the embedding index on the new database.","at":"2023-05-08T10:01:00Z"}
{"conversation":"c1","speaker":"Ana","text":"The migration script must copy every table and compare the row counts.","at":"2023-05-08T10:02:00Z"}
{"conversation":"c1","speaker":"Ben","text":"We also need a rollback plan in case the database migration fails.","at":"2023-05-08T10:03:00Z"}
{"conversation":"c1","speaker":"Ben","text":"On another note, I booked a holiday in Lisbon for the first week of June.","at":"2023-05-08T10:04:00Z"}
{"conversation":"c1","speaker":"Ana","text":"Lovely! Portugal is beautiful in summer, and the beaches near Cascais are great.","at":"2023-05-08T10:05:00Z"}
{"conversation":"c1","speaker":"Ben","text":"We will also take the train to Porto and visit Sintra during the trip.","at":"2023-05-08T10:06:00Z"}
{"conversation":"c1","speaker":"Ana","text":"Yes, last Tuesday.","at":"2023-05-09T09:00:00Z"}
{"conversation":"c1","speaker":"Ben","text":"The CSS build broke this morning: webpack fails on the new Sass imports.","at":"2023-05-09T09:01:00Z"}
{"conversation":"c1","speaker":"Ana","text":"The stylesheet bundle needs the sass-loader upgraded to version 13.","at":"2023-05-09T09:02:00Z"}
{"conversation":"c1","speaker":"Ben","text":"After upgrading sass-loader the CSS bundle compiles again.","at":"2023-05-09T09:03:00Z"}
not a message
{"conversation":"c1","text":"who said this?"}
"#;

fn import(env: &Env) -> Value {
    let path = env.dir.path().join("t.jsonl");
    std::fs::write(&path, TRANSCRIPT).unwrap();
    env.json(&["conversation", "import", path.to_str().unwrap(), "--json"])
}

#[test]
fn a_transcript_becomes_topics_searchable_by_scope_and_time() {
    let env = Env::new();
    let report = import(&env);
    assert_eq!(report["imported"], 11);
    let errors = report["errors"].as_array().unwrap();
    let lines: Vec<u64> = errors.iter().map(|e| e[0].as_u64().unwrap()).collect();
    assert_eq!(
        lines,
        [12, 13],
        "bad lines are reported by number: {errors:?}"
    );
    assert!(errors[1][1].as_str().unwrap().contains("speaker"));

    // Topics start by themselves at the two changes of subject.
    let tree = env.json(&["conversation", "show", "c1", "--json"]);
    let topics = tree["topic_list"].as_array().unwrap();
    let sizes: Vec<usize> = topics
        .iter()
        .map(|t| t["messages"].as_array().unwrap().len())
        .collect();
    assert_eq!(topics.len(), 3, "topics: {sizes:?}");
    assert!(topics[1]["messages"][0]["content"]
        .as_str()
        .unwrap()
        .contains("Lisbon"));
    assert!(topics[2]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .any(|m| m["content"].as_str().unwrap().contains("CSS build")));
    assert!(!topics[1]["title"].as_str().unwrap().is_empty());

    // The id given is kept; recall --json returns the message with it.
    let found = env.json(&["recall", "migrate production database PostgreSQL", "--json"]);
    assert_eq!(
        found["results"][0]["id"],
        "0187facd-0000-7000-8000-000000000001"
    );
    assert_eq!(found["results"][0]["conversation"], "c1");

    // A short reply is found by what it answers (its neighbours).
    let reply = env.json(&[
        "recall",
        "booked holiday Lisbon",
        "--mode",
        "keyword",
        "--json",
    ]);
    let contents: Vec<&str> = reply["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["content"].as_str().unwrap())
        .collect();
    assert!(contents.contains(
        &"Ben: On another note, I booked a holiday in Lisbon for the first week of June."
    ));

    // Scopes: the topic of the holiday holds no message about CSS.
    let holiday = topics[1]["id"].as_str().unwrap();
    let in_topic = env.json(&["recall", "CSS build webpack", "--topic", holiday, "--json"]);
    assert!(in_topic["results"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["topic"] == holiday));

    // Temporal: "yesterday" relative to 10 May is 9 May: the CSS messages.
    let yesterday = env.json(&[
        "conversation",
        "search",
        "--conversation",
        "c1",
        "--match",
        "temporal",
        "--reference",
        "2023-05-10T12:00:00Z",
        "what broke yesterday",
        "--json",
    ]);
    let results = yesterday["results"].as_array().unwrap();
    assert!(!results.is_empty());
    assert!(results
        .iter()
        .all(|r| r["match"] == "temporal"
            && r["created_at"].as_str().unwrap().starts_with("2023-05-09")));

    // Entities: listed per conversation, and a filter of recall.
    let entities = tree["entities"].as_array().unwrap();
    assert!(entities.iter().any(|e| e == "Porto"), "{entities:?}");
    let porto = env.json(&["recall", "trip entity:Porto", "--json"]);
    let results = porto["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{porto}");
    assert!(results[0]["content"].as_str().unwrap().contains("Porto"));

    // Re-importing skips every message whose id is stored.
    let again = import(&env);
    assert_eq!(again["skipped_existing"], 1);
}

#[test]
fn the_window_stays_within_its_budget_and_stats_count_exactly() {
    let env = Env::new();
    import(&env);
    env.remember(&[
        "--type",
        "rule",
        "Never run a migration without a verified backup",
    ]);
    let session = "c1@2023-05-09";
    for budget in [60, 200, 1000] {
        let budget_text = budget.to_string();
        let w = env.json(&[
            "conversation",
            "window",
            "--session",
            session,
            "--budget",
            &budget_text,
            "how do we migrate the database safely",
            "--json",
        ]);
        assert!(w["total_tokens"].as_u64().unwrap() <= budget, "{w}");
        assert_eq!(w["items"][0]["section"], "procedural", "rules first: {w}");
    }
    let memory_block = env.ok(&[
        "conversation",
        "window",
        "--session",
        session,
        "--format",
        "memory",
        "--tokenizer",
        "o200k_base",
        "css",
    ]);
    assert!(
        memory_block.starts_with("<memory>\n[Procedural]"),
        "{memory_block}"
    );
    let bad = env.run(&[
        "conversation",
        "window",
        "--session",
        session,
        "--tokenizer",
        "gpt2",
        "x",
    ]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("o200k_base"));

    let stats = env.json(&["conversation", "stats", "--json"]);
    let totals = stats["totals"].as_array().unwrap();
    let conversation = totals
        .iter()
        .find(|t| t["level"] == "conversation")
        .unwrap();
    assert_eq!(conversation["messages"], 11);
    let sessions: u64 = totals
        .iter()
        .filter(|t| t["level"] == "session")
        .map(|t| t["tokens"].as_u64().unwrap())
        .sum();
    assert_eq!(sessions, conversation["tokens"].as_u64().unwrap());

    let logged = env.json(&[
        "conversation",
        "log",
        "--conversation",
        "c1",
        "--speaker",
        "Ana",
        "--session",
        session,
        "Remember: the backup bucket is s3://cairn-backups/prod",
        "--json",
    ]);
    assert_eq!(logged["logged"][0]["session"], session);
    let missing = env.run(&["conversation", "show", "nope"]);
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("nope"));
}
