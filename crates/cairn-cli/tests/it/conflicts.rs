//! Writes that keep the truth, end to end with the real model: a changed
//! value is a new memory that names the one it conflicts with, recall puts
//! the newer first, and `--as-of` gives what was believed before.

use serde_json::Value;

use crate::Env;

const OLD: &str = "The atlas production database is PostgreSQL 16 on db-prod-3";
const NEW: &str = "The atlas production database is PostgreSQL 17 on db-prod-5";
const QUESTION: &str = "which database does atlas production run?";

fn first_content(out: &Value) -> &str {
    out["results"][0]["content"].as_str().expect("a result")
}

#[test]
fn a_changed_value_is_a_new_memory_naming_the_old_and_as_of_gives_the_old() {
    let env = Env::new();
    let old = env.json(&["remember", OLD]);
    assert_eq!(old["status"], "created");
    let old_id = old["id"].as_str().unwrap().to_string();
    let shown = env.json(&["get", &old_id]);
    let written = shown["created_at"]
        .as_str()
        .expect("created_at")
        .to_string();

    let new = env.json(&["remember", NEW]);
    assert_eq!(new["status"], "created", "{new}");
    assert_ne!(new["id"], old["id"]);
    let conflict = &new["conflicts"][0];
    assert_eq!(conflict["id"], old_id.as_str(), "{new}");
    assert_eq!(
        conflict["action"], "flagged",
        "the default policy only names it"
    );
    let reason = conflict["reason"].as_str().unwrap();
    assert!(reason.contains("16") && reason.contains("17"), "{reason}");

    let now = env.json(&["recall", QUESTION]);
    assert_eq!(first_content(&now), NEW, "{now}");
    let then = env.json(&["recall", QUESTION, "--as-of", &written]);
    assert_eq!(first_content(&then), OLD, "{then}");
    assert!(
        then["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["content"] != NEW),
        "{then}"
    );

    // With prefer-newer, the older keeps its text, is marked, and its
    // history says why.
    let newest = env.json(&[
        "remember",
        "The atlas production database is PostgreSQL 18 on db-prod-7",
        "--conflicts",
        "prefer-newer",
    ]);
    let new_id = new["id"].as_str().unwrap();
    let contested = newest["conflicts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == new_id)
        .unwrap_or_else(|| panic!("{newest}"));
    assert_eq!(contested["action"], "contested");
    let older = env.json(&["get", new_id]);
    assert_eq!(older["content"], NEW);
    assert_eq!(older["metadata"]["contested_by"], newest["id"]);
    assert!(older["valid_to"].is_string(), "{older}");
    let history = env.ok(&["history", new_id]);
    assert!(history.contains("contested by"), "{history}");
}

#[test]
fn a_restatement_still_merges_and_the_flag_policy_changes_nothing() {
    let env = Env::new();
    let first = env.remember(&["We deploy atlas with Kamal from GitHub Actions"]);
    let again = env.json(&[
        "remember",
        "We deploy atlas with Kamal from GitHub Actions.",
    ]);
    assert_eq!(again["status"], "deduplicated");
    assert_eq!(again["id"], first.as_str());

    let old = env.remember(&["The atlas API listens on port 8080"]);
    let new = env.json(&[
        "remember",
        "The atlas API listens on port 9090",
        "--conflicts",
        "flag",
    ]);
    assert_eq!(new["status"], "created");
    assert_eq!(new["conflicts"][0]["id"], old.as_str());
    assert_eq!(new["conflicts"][0]["action"], "flagged");
    let older = env.json(&["get", &old]);
    assert!(older["valid_to"].is_null(), "{older}");

    let bad = env.run(&["remember", "x port 1", "--conflicts", "merge"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("prefer-newer"));
}

#[test]
fn supersede_hides_the_older_until_as_of_asks_for_its_time() {
    let env = Env::new();
    let old = env.remember(&["Maria Lopez is the lead of the payments team"]);
    let written = env.json(&["get", &old])["created_at"]
        .as_str()
        .unwrap()
        .to_string();
    let new = env.json(&[
        "remember",
        "Leadership changed: Tomas Berg is now the lead of the payments team",
        "--conflicts",
        "supersede",
    ]);
    assert_eq!(new["conflicts"][0]["id"], old.as_str(), "{new}");
    assert_eq!(new["conflicts"][0]["action"], "superseded");
    let now = env.json(&["recall", "who leads the payments team?"]);
    assert!(first_content(&now).contains("Tomas"), "{now}");
    assert!(now["results"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["id"] != old.as_str()));
    let then = env.json(&[
        "recall",
        "who leads the payments team?",
        "--as-of",
        &written,
    ]);
    assert!(first_content(&then).contains("Maria"), "{then}");
}

/// The team's own pairs (`eval/pairs.jsonl`): no changed value is merged,
/// every restatement the cosine alone would merge (≥ 0.92) still is, and
/// the changed values are named as conflicts. Prints the counts.
#[test]
fn restatements_merge_and_changed_values_never_do_on_the_teams_pairs() {
    let env = Env::new();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../eval/pairs.jsonl");
    let text = std::fs::read_to_string(path).unwrap();
    let (mut restated, mut merged, mut by_cosine) = (0, 0, 0);
    let (mut changed, mut named) = (0, 0);
    for (i, line) in text.lines().filter(|l| !l.trim().is_empty()).enumerate() {
        let pair: Value = serde_json::from_str(line).unwrap();
        let project = format!("pair{i}");
        let write = |text: &str| {
            env.json(&[
                "remember",
                text,
                "--type",
                "fact",
                "--project",
                &project,
                "--conflicts",
                "flag",
            ])
        };
        let old = write(pair["old"].as_str().unwrap());
        let new = write(pair["new"].as_str().unwrap());
        let old_id = &old["id"];
        let similarity = match &new["dedup"]["similarity"] {
            Value::Null => ["similar", "conflicts"]
                .iter()
                .flat_map(|k| new[*k].as_array().cloned().unwrap_or_default())
                .find(|s| &s["id"] == old_id)
                .and_then(|s| s["similarity"].as_f64())
                .unwrap_or(0.0),
            s => s.as_f64().unwrap(),
        };
        let was_merged = new["status"] == "deduplicated";
        let conflicts = new["conflicts"].as_array().unwrap();
        match pair["kind"].as_str().unwrap() {
            "restatement" => {
                restated += 1;
                merged += usize::from(was_merged);
                by_cosine += usize::from(similarity >= 0.92);
                assert!(conflicts.is_empty(), "a restatement flagged: {line}\n{new}");
            }
            _ => {
                changed += 1;
                assert!(!was_merged, "a changed value merged: {line}\n{new}");
                named += usize::from(conflicts.iter().any(|c| &c["id"] == old_id));
            }
        }
    }
    eprintln!(
        "restatements merged {merged}/{restated} (by cosine alone {by_cosine}); \
         changed values merged 0/{changed}, named as conflicts {named}/{changed}"
    );
    assert!(restated >= 20 && changed >= 20);
    assert!(merged >= by_cosine, "{merged} < {by_cosine}");
    assert!(
        named * 4 >= changed * 3,
        "{named}/{changed} conflicts named"
    );
}
