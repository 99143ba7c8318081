//! `cairn import --from SYSTEM`: other memory systems' exports, dry runs,
//! redaction and bad files, through the real binary.

use std::path::PathBuf;

use serde_json::Value;

use crate::Env;

fn fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../cairn-importers/tests/fixtures")
        .join(name)
        .display()
        .to_string()
}

fn total(env: &Env) -> u64 {
    env.json(&["stats"])["total"].as_u64().unwrap()
}

#[test]
fn a_dry_run_writes_nothing_then_the_import_keeps_ids_and_reports_problems() {
    let env = Env::new();
    env.remember(&["something already here"]);
    let mem0 = fixture("mem0.json");
    let dry = env.json(&["import", &mem0, "--from", "mem0", "--dry-run"]);
    assert_eq!(dry["dry_run"], true);
    let n = dry["memories"].as_u64().unwrap();
    assert!(n >= 3, "{dry}");
    assert_eq!(dry["items"].as_array().unwrap().len() as u64, n);
    assert!(!dry["problems"].as_array().unwrap().is_empty(), "{dry}");
    assert_eq!(total(&env), 1, "a dry run writes nothing");

    let human = env.ok(&["import", &mem0, "--from", "mem0", "--dry-run"]);
    assert!(human.contains("nothing was written"), "{human}");
    assert!(human.contains("Is travelling to Paris in May"), "{human}");

    let done = env.json(&["import", &mem0, "--from", "mem0"]);
    assert_eq!(done["imported"].as_u64().unwrap(), n, "{done}");
    assert_eq!(total(&env), 1 + n);
    let kept = env.json(&["get", "f38b689d-6b24-45b7-bced-17fbb4d8bac7"]);
    assert_eq!(kept["content"], "Is travelling to Paris in May");
    assert_eq!(kept["source"], "import:mem0");

    // Run again: the ids it kept are not duplicated.
    let again = env.json(&["import", &mem0, "--from", "mem0"]);
    assert!(again["skipped_existing"].as_u64().unwrap() >= 2, "{again}");
    env.assert_healthy();
}

#[test]
fn chat_exports_become_conversations() {
    let env = Env::new();
    let done = env.json(&[
        "import",
        &fixture("chatgpt_conversations.json"),
        "--from",
        "chatgpt",
    ]);
    assert!(done["logged"].as_u64().unwrap() >= 2, "{done}");
    let listed = env.json(&["conversation", "list"]);
    let ids: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    for c in done["conversations"].as_array().unwrap() {
        assert!(ids.contains(&c.as_str().unwrap()), "{ids:?} {done}");
    }
    let claude = env.json(&[
        "import",
        &fixture("claude_conversations.json"),
        "--from",
        "claude",
    ]);
    assert!(claude["logged"].as_u64().unwrap() >= 2, "{claude}");
}

#[test]
fn secrets_in_an_export_are_redacted_and_shown_by_the_dry_run() {
    let env = Env::new();
    let file = env.dir.path().join("export.json");
    std::fs::write(
        &file,
        r#"[{"id": "0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9", "memory": "Reach the landlord at landlord.lisbon@example.com", "user_id": "alex"}]"#,
    )
    .unwrap();
    let file = file.display().to_string();
    let dry = env.json(&["import", &file, "--from", "mem0", "--dry-run"]);
    assert_eq!(dry["redacted"]["email"], 1, "{dry}");
    assert!(dry["items"][0]["text"]
        .as_str()
        .unwrap()
        .contains("[REDACTED:email]"));
    let done = env.json(&["import", &file, "--from", "mem0"]);
    assert_eq!(done["redacted"]["email"], 1, "{done}");
    let bytes: Vec<u8> = std::fs::read_dir(env.dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| !e.path().ends_with("export.json"))
        .flat_map(|e| std::fs::read(e.path()).unwrap_or_default())
        .collect();
    let needle = b"landlord.lisbon@example.com";
    assert!(!bytes.windows(needle.len()).any(|w| w == needle));
}

#[test]
fn a_wrong_file_or_system_is_refused_and_writes_nothing() {
    let env = Env::new();
    let out = env.run(&[
        "import",
        &fixture("claude_conversations.json"),
        "--from",
        "chatgpt",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("claude_conversations.json"), "{err}");

    let out = env.run(&["import", &fixture("mem0.json"), "--from", "zep"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("mem0, memori"), "{err}");

    let out = env.run(&["import", &fixture("mem0.json"), "--dry-run"]);
    assert_eq!(out.status.code(), Some(2), "--dry-run needs --from");

    let empty = tempfile::tempdir().unwrap();
    let out = env.run(&[
        "import",
        &empty.path().display().to_string(),
        "--from",
        "memcord",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no .json"));
    let stats: Value = env.json(&["stats"]);
    assert_eq!(stats["total"], 0);
}

#[test]
fn a_memcord_folder_is_imported_file_by_file() {
    let env = Env::new();
    let folder = tempfile::tempdir().unwrap();
    std::fs::copy(
        fixture("memcord_slot.json"),
        folder.path().join("alpha.json"),
    )
    .unwrap();
    std::fs::write(folder.path().join("notes.txt"), "not a slot").unwrap();
    let one = env.json(&[
        "import",
        &fixture("memcord_slot.json"),
        "--from",
        "memcord",
        "--dry-run",
    ]);
    let done = env.json(&[
        "import",
        &folder.path().display().to_string(),
        "--from",
        "memcord",
        "--project",
        "alpha",
    ]);
    assert_eq!(done["imported"], one["memories"], "{done}");
    assert!(done["imported"].as_u64().unwrap() >= 1);
    let listed = env.json(&["list", "--project", "alpha"]);
    assert_eq!(
        listed["memories"].as_array().unwrap().len() as u64,
        done["imported"].as_u64().unwrap(),
        "{listed}"
    );
}
