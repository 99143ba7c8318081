//! A later message that changes a fact, end to end with the real model:
//! `conversation import` and `conversation log` name the earlier message
//! it conflicts with, and under `prefer-newer` the later one outranks it.

use serde_json::Value;

use crate::Env;

const TRANSCRIPT: &str = r#"{"conversation":"c1","speaker":"Priya","text":"I live in Boston, near the harbour, with my two cats.","at":"2026-03-01T10:00:00Z"}
{"conversation":"c1","speaker":"Omar","text":"Nice! I mostly write Python at work these days.","at":"2026-03-01T10:01:00Z"}
{"conversation":"c1","speaker":"Priya","text":"I'm reading Dune at the moment, it is long.","at":"2026-03-01T10:02:00Z"}
{"conversation":"c1","speaker":"Priya","text":"My phone number is 555-0142 if you need it.","at":"2026-03-01T10:03:00Z"}
{"conversation":"c1","speaker":"Priya","text":"Big news: I moved to Denver last week.","at":"2026-05-10T09:00:00Z"}
{"conversation":"c1","speaker":"Omar","text":"I switched to Rust full-time at work.","at":"2026-05-10T09:01:00Z"}
{"conversation":"c1","speaker":"Priya","text":"I'm reading 1984 now.","at":"2026-05-10T09:02:00Z"}
"#;

/// (question, the later message's words, the earlier message's words)
const QUESTIONS: &[(&str, &str, &str)] = &[
    ("where does Priya live?", "Denver", "Boston"),
    ("what language does Omar use at work?", "Rust", "Python"),
    ("what is Priya reading?", "1984", "Dune"),
];

fn import(env: &Env, policy: &str) -> Value {
    let path = env.dir.path().join("t.jsonl");
    std::fs::write(&path, TRANSCRIPT).unwrap();
    let out = env
        .cmd()
        .env("CAIRN_CONFLICTS", policy)
        .args(["--json", "conversation", "import", path.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

fn position(found: &Value, word: &str) -> Option<usize> {
    found["results"]
        .as_array()
        .unwrap()
        .iter()
        .position(|r| r["content"].as_str().unwrap_or_default().contains(word))
}

#[test]
fn an_import_names_each_changed_fact_and_the_later_message_outranks_it() {
    let env = Env::new();
    let report = import(&env, "prefer-newer");
    let conflicts = report["conflicts"].as_array().expect("conflicts");
    let olds: Vec<&str> = conflicts
        .iter()
        .map(|c| c["content"].as_str().unwrap())
        .collect();
    // Each change names its earlier message, and nothing else is named.
    assert_eq!(olds.len(), 3, "{report}");
    for (_, _, old) in QUESTIONS {
        assert!(olds.iter().any(|o| o.contains(old)), "{old}: {report}");
    }
    assert!(conflicts.iter().all(|c| c["action"] == "contested"));
    for (question, new, old) in QUESTIONS {
        let found = env.json(&["recall", question]);
        let n = position(&found, new).unwrap_or_else(|| panic!("{question}: {found}"));
        assert!(
            position(&found, old).is_none_or(|o| n < o),
            "{question}: {found}"
        );
    }
}

#[test]
fn a_logged_message_names_the_fact_it_changes() {
    let env = Env::new();
    import(&env, "flag");
    let logged = env.json(&[
        "conversation",
        "log",
        "--conversation",
        "c1",
        "--speaker",
        "Priya",
        "My new number is 555-0199.",
    ]);
    let conflicts = logged["logged"][0]["conflicts"]
        .as_array()
        .unwrap_or_else(|| panic!("{logged}"));
    assert_eq!(conflicts.len(), 1, "{logged}");
    assert!(conflicts[0]["content"]
        .as_str()
        .unwrap()
        .contains("555-0142"));
    assert_eq!(conflicts[0]["action"], "flagged");
}
