//! `cairn ingest` with the real model: a document in, a receipt of every
//! chunk out, the chunks recalled, secrets never stored, a dry run that
//! writes nothing.

use crate::Env;

const NOTES: &str = "# Atlas runbook

Always run the database migrations before deploying the API, and never deploy on a Friday afternoon. Every deploy must have a written rollback plan, reviewed by a second engineer, and the on-call engineer must be told before the first server is touched. Feature flags stay off until the smoke tests pass in production.

The staging cluster moved to the fra1 region on 3 March 2024 after a storage outage that lasted six hours. Its database backups are kept for fourteen days in a separate bucket, and a restore is rehearsed on the first Monday of every month so that nobody learns the procedure during an incident.

Ana prefers short status updates in the team channel, with the ticket number first and the next step last. She reads them in the morning, so updates written late in the day wait until then. Questions about access go to ops.lead@atlas.example rather than to her directly.
";

#[test]
fn a_document_becomes_typed_memories_with_a_receipt() {
    let env = Env::new();
    let file = env.dir.path().join("runbook.md");
    std::fs::write(&file, NOTES).unwrap();
    let file = file.display().to_string();

    let dry = env.json(&["ingest", &file, "--project", "atlas", "--dry-run"]);
    assert_eq!(dry["dry_run"], true);
    let chunks = dry["chunks"].as_array().unwrap();
    assert!(chunks.len() >= 2, "{dry}");
    let out = env.run(&["stats"]);
    assert!(
        !out.status.success() || String::from_utf8_lossy(&out.stdout).contains('0'),
        "a dry run writes nothing"
    );

    let done = env.json(&["ingest", &file, "--project", "atlas"]);
    let chunks = done["chunks"].as_array().unwrap();
    assert_eq!(
        done["stored"].as_u64().unwrap()
            + done["merged"].as_u64().unwrap()
            + done["skipped"].as_u64().unwrap(),
        chunks.len() as u64
    );
    assert!(done["stored"].as_u64().unwrap() >= 2, "{done}");
    assert!(
        chunks.iter().any(|c| c["type"] == "rule"),
        "the runbook's rules are routed as rules: {done}"
    );
    assert_eq!(done["redacted"]["email"], 1, "{done}");
    for c in chunks {
        assert!(c["reason"].as_str().is_some_and(|r| !r.is_empty()), "{c}");
        let text = c["text"].as_str().unwrap();
        assert!(
            text.trim_end().ends_with(['.', '!', '?']),
            "never mid-sentence: {text:?}"
        );
        assert!(c["importance"].as_f64().unwrap() >= 0.0);
    }
    let stats = env.json(&["stats"]);
    assert_eq!(stats["total"], done["stored"], "{stats}");

    // The chunks are found by recall, typed by what they say.
    let found = env.json(&[
        "recall",
        "what must happen before deploying?",
        "--project",
        "atlas",
    ]);
    assert!(found["results"][0]["content"]
        .as_str()
        .unwrap()
        .contains("migrations"));
    assert!(!std::fs::read(env.db())
        .unwrap()
        .windows(b"ops.lead@atlas.example".len())
        .any(|w| w == b"ops.lead@atlas.example"));

    // The same text again adds nothing new: every chunk is skipped or
    // merged, and the receipt says why.
    let again = env.json(&["ingest", &file, "--project", "atlas"]);
    assert_eq!(again["stored"], 0, "{again}");
    let human = env.ok(&["ingest", &file, "--project", "atlas", "--dry-run"]);
    assert!(human.contains("dry run: nothing written"), "{human}");
    assert!(
        human.contains("below the threshold") || human.contains("would merge"),
        "{human}"
    );
}

#[test]
fn ingest_refuses_empty_text_and_a_bad_threshold() {
    let env = Env::new();
    let out = env.run_with(&["ingest", "-"], Some("   \n  "));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("empty"));
    let out = env.run(&["ingest", "some text", "--threshold", "2"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("threshold"));
}
