//! Ingestion respects a document's structure, on four documents of the
//! kinds a team writes (tests/fixtures/runbooks: a deploy runbook, a
//! postmortem, onboarding notes, an architecture decision record):
//! headings travel as each chunk's section, never in its text, and a
//! section headed Rules, Procedure, Decision(s), Preferences or Facts
//! routes everything under it to that type.

use serde_json::Value;

use crate::Env;

/// Each document, and the type every chunk of a named section must have.
const EXPECTED: &[(&str, &[(&str, &str)])] = &[
    (
        "deploy.md",
        &[("Rules", "rule"), ("Procedure", "procedure")],
    ),
    ("postmortem.md", &[("Decisions", "decision")]),
    (
        "onboarding.md",
        &[("Preferences", "preference"), ("Facts", "fact")],
    ),
    ("adr.md", &[("Decision", "decision")]),
];

#[test]
fn sections_route_their_chunks_and_headings_stay_out_of_the_text() {
    let env = Env::new();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/runbooks");
    for (file, sections) in EXPECTED {
        let path = dir.join(file).display().to_string();
        let receipt = env.json(&["ingest", &path, "--dry-run"]);
        let chunks = receipt["chunks"].as_array().expect("chunks");
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        let headings = text.lines().filter(|l| l.starts_with('#')).count();
        // A chunk never spans two sections: at least one per section
        // that has text under it (the title's own section has none).
        assert!(chunks.len() >= headings - 1, "{file}: {receipt}");
        for c in chunks {
            let body = c["text"].as_str().unwrap();
            assert!(
                !body.lines().any(|l| l.trim_start().starts_with('#')),
                "{file}: a heading in the text: {body:?}"
            );
            assert!(
                c["section"].as_array().is_some_and(|s| !s.is_empty()),
                "{file}: a chunk without its section: {c}"
            );
        }
        for (heading, kind) in *sections {
            let under: Vec<&Value> = chunks
                .iter()
                .filter(|c| c["section"].as_array().unwrap().last() == Some(&Value::from(*heading)))
                .collect();
            assert!(
                !under.is_empty(),
                "{file}: no chunk under {heading}: {receipt}"
            );
            for c in under {
                assert_eq!(c["type"], *kind, "{file} / {heading}: {c}");
            }
        }
    }
}
