//! Corrections in other words, end to end with the real model: the write
//! of the correction names what it corrects, the correction comes first
//! for the question under the policies that rank, and facts that only
//! share a subject are left alone.

use serde_json::Value;

use crate::Env;

fn contents(out: &Value) -> Vec<String> {
    out["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| r["content"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// (older, correction, question, a word only the correction's answer has)
const CORRECTIONS: &[(&str, &str, &str, &str)] = &[
    (
        "Dana is the lead of atlas",
        "Leadership changed. Sam is now the lead of atlas",
        "who is the lead of atlas?",
        "Sam",
    ),
    (
        "I live at 12 Oak Street",
        "I moved. My new address is 4 Pine Road",
        "where do I live?",
        "Pine",
    ),
];

#[test]
fn a_reworded_correction_names_what_it_corrects_and_comes_first() {
    for policy in ["flag", "prefer-newer", "supersede"] {
        let env = Env::new();
        for (old, new, question, answer) in CORRECTIONS {
            let old_id = env.remember(&[old, "--conflicts", policy]);
            let written = env.json(&["remember", new, "--conflicts", policy]);
            assert_eq!(written["status"], "created", "{written}");
            let named = written["conflicts"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["id"] == old_id.as_str())
                .unwrap_or_else(|| panic!("{policy}: {new} does not name {old}: {written}"));
            let reason = named["reason"].as_str().unwrap();
            assert!(reason.contains("same attribute"), "{reason}");
            if policy == "flag" {
                continue;
            }
            let found = env.json(&["recall", question]);
            let first = contents(&found);
            assert!(
                first.first().is_some_and(|c| c.contains(answer)),
                "{policy}: {question} → {first:?}"
            );
        }
    }
}

#[test]
fn unrelated_facts_about_one_subject_do_not_conflict() {
    let env = Env::new();
    for text in [
        "atlas uses Rust",
        "atlas deploys on Fridays",
        "atlas is owned by the platform team",
        "atlas keeps its logs for 30 days",
    ] {
        let out = env.json(&["remember", text, "--conflicts", "prefer-newer"]);
        assert_eq!(out["status"], "created", "{out}");
        assert_eq!(out["conflicts"], Value::Array(Vec::new()), "{text}: {out}");
    }
    // Nothing was contested.
    let listed = env.json(&["list"]);
    let text = listed.to_string();
    assert!(!text.contains("contested_by"), "{text}");
}
