//! The agent's views mark which side of a known conflict is current,
//! whatever the conflict policy: `cairn context`, `cairn prompt` and
//! `cairn conversation window`, with the real model.

use crate::Env;

const OLD: &str = "Dana Whitfield is the lead of the atlas platform team";
const NEW: &str = "Leadership changed: Sam Okafor is now the lead of the atlas platform team";
const QUESTION: &str = "who leads the atlas platform team?";

const TRANSCRIPT: &str = r#"{"conversation":"c1","session":"s1","speaker":"Priya","text":"I live in Boston, near the harbour, with my two cats.","at":"2026-03-01T10:00:00Z"}
{"conversation":"c1","session":"s1","speaker":"Omar","text":"Nice, Boston is a lovely city.","at":"2026-03-01T10:01:00Z"}
{"conversation":"c1","session":"s1","speaker":"Priya","text":"Big news: I moved to Denver last week.","at":"2026-03-01T10:02:00Z"}
"#;

/// Every line of `text` holding `needle` carries `note`; at least one does.
fn marked(text: &str, needle: &str, note: &str, what: &str) {
    let lines: Vec<&str> = text.lines().filter(|l| l.contains(needle)).collect();
    assert!(!lines.is_empty(), "{what}: no line with {needle}:\n{text}");
    for l in lines {
        assert!(l.contains(note), "{what}: {needle} unmarked:\n{text}");
    }
}

#[test]
fn context_prompt_and_window_mark_the_current_side_under_every_policy() {
    for policy in ["flag", "prefer-newer", "supersede"] {
        let env = Env::new();
        let old = env.remember(&["--type", "fact", OLD]);
        let new = env.json(&["remember", "--type", "fact", "--conflicts", policy, NEW]);
        assert_eq!(new["status"], "created", "{policy}: {new}");
        assert_eq!(new["conflicts"][0]["id"], old.as_str(), "{policy}: {new}");

        let context = env.ok(&["context", QUESTION]);
        marked(&context, "Sam Okafor", "; current: replaces", policy);
        if policy != "supersede" {
            marked(
                &context,
                "Dana Whitfield",
                "; outdated: contested by",
                policy,
            );
        }
        let prompt = env.ok(&["prompt", QUESTION]);
        marked(&prompt, "Sam Okafor", "(current: replaces", policy);
        if prompt.contains("Dana Whitfield") {
            marked(&prompt, "Dana Whitfield", "(outdated: contested by", policy);
        }

        let path = env.dir.path().join("t.jsonl");
        std::fs::write(&path, TRANSCRIPT).unwrap();
        let out = env
            .cmd()
            .env("CAIRN_CONFLICTS", policy)
            .args(["--json", "conversation", "import", path.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let window = env.ok(&[
            "conversation",
            "window",
            "--session",
            "s1",
            "where does Priya live?",
        ]);
        marked(&window, "Denver", "(current: replaces", policy);
        marked(&window, "Boston, near", "(outdated: contested by", policy);
    }
}
