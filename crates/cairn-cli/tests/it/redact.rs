//! Redaction end to end: secrets never reach the store file, the answer
//! says what was replaced, and the opt-outs and settings work.

use crate::Env;

/// Secrets of many kinds, each as it would appear in a note.
const SECRETS: &[&str] = &[
    "AKIAIOSFODNN7EXAMPLE",
    "ghp_1234567890abcdefghijABCDEFGHIJ123456",
    "sk-proj-abcdefghij0123456789XYZ",
    "glpat-abcdefghij0123456789",
    "xoxb-123456789012-abcdefghijkl",
    "ana.silva@example.com",
    "+44 20 7946 0958",
    "4111 1111 1111 1111",
    "GB82 WEST 1234 5698 7654 32",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk",
];

/// Whether any file of the store's directory (the database, its WAL and
/// shared memory) holds `needle`.
fn on_disk(env: &Env, needle: &str) -> bool {
    std::fs::read_dir(env.dir.path())
        .unwrap()
        .map(|e| std::fs::read(e.unwrap().path()).unwrap_or_default())
        .any(|bytes| bytes.windows(needle.len()).any(|w| w == needle.as_bytes()))
}

#[test]
fn secrets_are_redacted_before_they_reach_the_store_file() {
    let env = Env::new();
    let note = format!(
        "Atlas credentials: {}. The db URL is postgres://admin:hunter2secret@db.internal/app",
        SECRETS.join(", then ")
    );
    let out = env.json(&[
        "remember",
        &note,
        "--project",
        "atlas",
        "--meta",
        "owner=bo.ferreira@example.org",
    ]);
    let redacted = &out["redacted"];
    assert_eq!(redacted["email"], 2, "{out}");
    assert_eq!(redacted["url_password"], 1, "{out}");
    let total: u64 = redacted
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(total as usize, SECRETS.len() + 2, "{out}");

    // Recall finds the memory by its other words, redacted.
    let hits = env.json(&["recall", "Atlas credentials db URL", "--project", "atlas"]);
    let content = hits["results"][0]["content"].as_str().unwrap();
    assert!(content.contains("[REDACTED:aws_access_key]"), "{content}");
    assert!(content.contains("postgres://admin:[REDACTED:url_password]@db.internal/app"));

    // A transcript's messages are redacted too.
    let transcript = r#"{"conversation": "ops", "speaker": "Ana", "text": "the staging token is glpat-zyxwvutsrq9876543210 and my mail is ana.private@example.net"}"#;
    let out = env.run_with(&["--json", "conversation", "import", "-"], Some(transcript));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["redacted"]["gitlab_token"], 1, "{report}");

    // Human output says what was replaced.
    let human = env.ok(&["remember", "reach me at carla@example.com"]);
    assert!(human.contains("redacted 1 email"), "{human}");

    for secret in SECRETS.iter().chain(&[
        "hunter2secret",
        "bo.ferreira@example.org",
        "glpat-zyxwvutsrq9876543210",
        "ana.private@example.net",
        "carla@example.com",
    ]) {
        assert!(!on_disk(&env, secret), "`{secret}` is in the store's files");
    }
    env.assert_healthy();
}

#[test]
fn redaction_can_be_narrowed_or_turned_off_and_bad_settings_are_refused() {
    let env = Env::new();
    let kept = env.json(&["remember", "keep dev@example.com as given", "--no-redact"]);
    assert!(kept.get("redacted").is_none(), "{kept}");
    let listed = env.json(&["get", kept["id"].as_str().unwrap()]);
    assert_eq!(listed["content"], "keep dev@example.com as given");

    let off = env.json(&[
        "--redact",
        "off",
        "remember",
        "ops@example.com is the pager",
    ]);
    assert!(off.get("redacted").is_none(), "{off}");
    assert!(on_disk(&env, "ops@example.com"));

    let only_email = env.json(&[
        "--redact",
        "email",
        "remember",
        "call +44 20 7946 0958 or mail desk@example.com",
    ]);
    assert_eq!(only_email["redacted"], serde_json::json!({"email": 1}));

    let out = env.run(&["--redact", "emails", "remember", "x"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown redaction kind `emails`"), "{err}");
    assert!(err.contains("email"), "{err}");
}
