use std::thread;

use serde_json::Value;

use crate::{result_ids, Env};

#[test]
fn the_quick_start_finds_the_right_memory() {
    the_quick_start_finds_the_right_memory_on(Env::new());
}

#[test]
fn the_quick_start_finds_the_right_memory_on_postgres() {
    the_quick_start_finds_the_right_memory_on(Env::postgres());
}

fn the_quick_start_finds_the_right_memory_on(env: Env) {
    let hetzner = env.remember(&[
        "atlas staging DB runs on a Hetzner box in Falkenstein",
        "--type",
        "fact",
        "--project",
        "atlas",
        "--tag",
        "infra",
    ]);
    env.remember(&[
        "We deploy atlas with GitHub Actions on every merge to main",
        "--type",
        "decision",
        "--project",
        "atlas",
    ]);
    env.remember(&[
        "Always run migrations before deploying atlas",
        "--type",
        "rule",
        "--project",
        "atlas",
    ]);
    env.remember(&[
        "The user prefers concise answers without emojis",
        "--type",
        "preference",
    ]);
    let rds = env.remember(&[
        "borealis production database is on AWS RDS in eu-west-1",
        "--type",
        "fact",
        "--project",
        "borealis",
    ]);
    // Every match (no relevance floor), so the global memory's shape is
    // seen too.
    let r = env.json(&[
        "recall",
        "where does the pre-production database live?",
        "--project",
        "atlas",
        "--min-relevance",
        "0",
    ]);
    let got = result_ids(&r);
    assert_eq!(got[0], hetzner, "{r:#}");
    assert!(
        !got.contains(&rds),
        "another project's memory leaked into recall"
    );
    // The machine contract.
    let first = &r["results"][0];
    for key in ["id", "content", "type", "project", "tags", "score"] {
        assert!(first.get(key).is_some(), "missing {key}: {first}");
    }
    assert_eq!(first["project"], "atlas");
    assert_eq!(first["tags"], serde_json::json!(["infra"]));
    let global = r["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["type"] == "preference")
        .unwrap();
    assert!(global["project"].is_null());
    // Context: Markdown within the budget, with the fact in it.
    let md = env.ok(&[
        "context",
        "database",
        "--project",
        "atlas",
        "--budget",
        "1500",
    ]);
    assert!(md.contains("Hetzner"), "{md}");
    assert!(md.contains("## Rules"), "{md}");
    // Every id shown in the context can be typed back.
    for line in md.lines().filter(|l| l.starts_with("- [")) {
        let short = &line[3..line.find(']').unwrap()];
        let out = env.run(&["get", short]);
        assert!(
            out.status.success(),
            "context id {short} does not resolve: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let pack = env.json(&[
        "context",
        "database",
        "--project",
        "atlas",
        "--budget",
        "1500",
    ]);
    let tokens = pack["tokens"].as_u64().unwrap();
    assert!(tokens <= 1500 && tokens > 20);
    assert!(pack["markdown"]
        .as_str()
        .unwrap()
        .contains(&format!("{tokens} tokens")));
    env.assert_healthy();
}

#[test]
fn explain_shows_every_factor() {
    explain_shows_every_factor_on(Env::new());
}

#[test]
fn explain_shows_every_factor_on_postgres() {
    explain_shows_every_factor_on(Env::postgres());
}

fn explain_shows_every_factor_on(env: Env) {
    env.remember(&["the billing service retries failed payments three times"]);
    let out = env.ok(&["recall", "billing retries", "--explain"]);
    for col in [
        "BM25#", "VEC#", "COSINE", "RRF", "BOOST", "DECAY", "SCOPE", "WEIGHT", "SCORE",
    ] {
        assert!(out.contains(col), "{col} missing:\n{out}");
    }
    let r = env.json(&["recall", "billing retries", "--explain"]);
    let e = &r["results"][0]["explain"];
    for key in [
        "bm25_rank",
        "bm25_score",
        "vector_rank",
        "cosine",
        "rrf",
        "boost",
        "decay",
        "scope_weight",
        "weight",
        "score",
    ] {
        assert!(e.get(key).is_some(), "{key} missing: {e}");
    }
    assert_eq!(e["bm25_rank"], 1);
    assert_eq!(e["vector_rank"], 1);
}

#[test]
fn hostile_queries_never_error() {
    hostile_queries_never_error_on(Env::new());
}

#[test]
fn hostile_queries_never_error_on_postgres() {
    hostile_queries_never_error_on(Env::postgres());
}

fn hostile_queries_never_error_on(env: Env) {
    env.remember(&["pre-production database \"quoted\" (parenthesised) emoji 🦀 AND OR NEAR"]);
    for q in [
        "\"",
        "\"unbalanced",
        "pre-production",
        "AND",
        "OR",
        "NEAR",
        "NOT",
        "*",
        "data*",
        "col:val",
        "(x",
        "x)",
        "🦀",
        "?!?",
        "'",
        "\\",
        "^",
        "a AND (b OR",
        "NEAR(a b, 2)",
        "\"\"",
    ] {
        for mode in ["keyword", "hybrid", "semantic"] {
            let out = env.run(&["--json", "recall", q, "--mode", mode]);
            assert!(
                out.status.success(),
                "query {q:?} mode {mode}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
    let r = env.json(&["recall", "\"pre-production", "--mode", "keyword"]);
    assert_eq!(r["results"].as_array().unwrap().len(), 1);
    env.assert_healthy();
}

#[test]
fn id_prefixes_errors_and_exit_codes() {
    id_prefixes_errors_and_exit_codes_on(Env::new());
}

#[test]
fn id_prefixes_errors_and_exit_codes_on_postgres() {
    id_prefixes_errors_and_exit_codes_on(Env::postgres());
}

fn id_prefixes_errors_and_exit_codes_on(env: Env) {
    // Two ids that share their first 8 characters. (Ids made a second apart
    // share them only when no 65.5 s boundary of the UUIDv7 clock falls
    // between, so the test brings its own.)
    let (a, b) = (
        "0190f5a2-1111-7000-8000-000000000001",
        "0190f5a2-2222-7000-8000-000000000002",
    );
    let lines = format!(
        "{{\"id\":\"{a}\",\"content\":\"first memory about tomatoes\"}}\n\
         {{\"id\":\"{b}\",\"content\":\"second memory about cucumbers\"}}\n"
    );
    let out = env.run_with(&["import", "-"], Some(&lines));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = env.run(&["get", &a[..8]]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("ambiguous") && err.contains(a) && err.contains(b),
        "{err}"
    );
    // The shortest unique prefix shown in lists works.
    let listing = env.ok(&["list"]);
    let short_a = listing
        .lines()
        .find(|l| l.contains("tomatoes"))
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .to_string();
    assert!(a.starts_with(&short_a) && short_a.len() >= 8);
    assert!(env.ok(&["get", &short_a]).contains("tomatoes"));
    // Not found: exit 1; JSON errors on stderr.
    let out = env.run(&["--json", "get", "ffffffff"]);
    assert_eq!(out.status.code(), Some(1));
    let e: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(e["error"]["code"], "not_found");
    assert!(out.stdout.is_empty());
    // Bad input: exit 2 with a clear message.
    for (args, needle) in [
        (vec!["get", "abc"], "at least 4"),
        (
            vec!["remember", "x", "--type", "bogus"],
            "unknown memory type",
        ),
        (vec!["remember", "x", "--ttl", "7"], "not a duration"),
        (
            vec!["remember", "x", "--importance", "3"],
            "between 0 and 1",
        ),
        (vec!["remember", "   "], "empty"),
        (vec!["recall", "x", "--limit", "0"], "limit"),
        (vec!["remember", "x", "--metadata", "[1]"], "JSON object"),
        (vec!["forget"], "nothing to forget"),
    ] {
        let out = env.run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "one clear line: {err}");
    }
    // Content over 1 MiB is refused and nothing is stored.
    let big = "x".repeat((1 << 20) + 1);
    let out = env.run_with(&["remember", "-"], Some(&big));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("1 MiB"));
    assert_eq!(env.json(&["stats"])["total"], 2);
    env.assert_healthy();
}

#[test]
fn dedup_contradictions_supersede_ttl_and_forget() {
    dedup_contradictions_supersede_ttl_and_forget_on(Env::new());
}

#[test]
fn dedup_contradictions_supersede_ttl_and_forget_on_postgres() {
    dedup_contradictions_supersede_ttl_and_forget_on(Env::postgres());
}

fn dedup_contradictions_supersede_ttl_and_forget_on(env: Env) {
    let first = env.json(&[
        "remember",
        "The API server listens on port 8080",
        "--type",
        "fact",
        "--tag",
        "api",
    ]);
    assert_eq!(first["status"], "created");
    let again = env.json(&[
        "remember",
        "The API server listens on port 8080.",
        "--type",
        "fact",
        "--tag",
        "net",
    ]);
    assert_eq!(again["status"], "deduplicated");
    assert_eq!(again["id"], first["id"]);
    let id = first["id"].as_str().unwrap();
    let got = env.json(&["get", id]);
    assert_eq!(got["tags"], serde_json::json!(["api", "net"]));
    let no_dedup = env.json(&[
        "remember",
        "The API server listens on port 8080",
        "--type",
        "fact",
        "--no-dedup",
    ]);
    assert_eq!(no_dedup["status"], "created");
    env.ok(&["forget", no_dedup["id"].as_str().unwrap()]);
    // A changed value is stored, and the memory it conflicts with is named.
    let related = env.json(&[
        "remember",
        "The API server listens on port 9090 now",
        "--type",
        "fact",
    ]);
    assert_eq!(related["status"], "created");
    // A changed value (8080 → 9090) is a conflict, named with its reason.
    let similar: Vec<&str> = related["conflicts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert!(similar.contains(&id), "{related}");
    // Supersede: the old one leaves recall.
    let newer = env.json(&[
        "supersede",
        id,
        "The API server listens on port 9443 since the TLS migration",
    ]);
    assert_eq!(newer["superseded"], id);
    let old = env.json(&["get", id]);
    assert_eq!(old["weight"], 0.1);
    assert_eq!(old["superseded_by"], newer["id"]);
    assert!(old["valid_to"].is_string());
    let r = env.json(&["recall", "API server port"]);
    assert!(!result_ids(&r).contains(&id.to_string()));
    let r = env.json(&["recall", "API server port", "--include-superseded"]);
    assert!(result_ids(&r).contains(&id.to_string()));
    // TTL: an expired memory leaves recall at once; gc deletes it.
    let temp = env.remember(&["temporary on-call phone number is 555-0100", "--ttl", "1s"]);
    std::thread::sleep(std::time::Duration::from_millis(1100));
    assert!(!result_ids(&env.json(&["recall", "on-call phone number"])).contains(&temp));
    assert_eq!(env.json(&["gc"])["deleted"], 1);
    assert_eq!(env.run(&["get", &temp]).status.code(), Some(1));
    // Forget by filter: counts first, deletes only with --yes.
    env.remember(&["scratch one", "--project", "tmp"]);
    env.remember(&["scratch two", "--project", "tmp"]);
    let dry = env.json(&["forget", "--project", "tmp"]);
    assert_eq!(
        dry["would_forget"], 2,
        "only project tmp's own memories: {dry}"
    );
    assert_eq!(dry["forgotten"], 0);
    let before = env.json(&["stats"])["total"].as_u64().unwrap();
    let done = env.json(&["forget", "--project", "tmp", "--yes"]);
    assert_eq!(done["forgotten"], 2);
    assert_eq!(env.json(&["stats"])["total"].as_u64().unwrap(), before - 2);
    env.assert_healthy();
}

#[test]
fn update_reembeds_and_tags() {
    update_reembeds_and_tags_on(Env::new());
}

#[test]
fn update_reembeds_and_tags_on_postgres() {
    update_reembeds_and_tags_on(Env::postgres());
}

fn update_reembeds_and_tags_on(env: Env) {
    let id = env.remember(&["the cat sleeps on the sofa"]);
    env.remember(&["quarterly revenue grew by twelve percent"]);
    env.ok(&[
        "update",
        &id,
        "--content",
        "kubernetes cluster upgrade scheduled for friday",
    ]);
    let r = env.json(&[
        "recall",
        "container orchestration maintenance",
        "--mode",
        "semantic",
        "--limit",
        "1",
    ]);
    assert_eq!(result_ids(&r), vec![id.clone()]);
    env.ok(&["tag", &id, "Ops", "k8s"]);
    env.ok(&["tag", &id, "-ops"]);
    assert_eq!(env.json(&["get", &id])["tags"], serde_json::json!(["k8s"]));
    let r = env.json(&["recall", "k8s", "--mode", "keyword"]);
    assert_eq!(result_ids(&r), vec![id.clone()]);
    env.ok(&["update", &id, "--meta", "owner=Grace"]);
    assert_eq!(
        result_ids(&env.json(&["recall", "grace", "--mode", "keyword"])),
        vec![id.clone()]
    );
    env.ok(&["update", &id, "--meta", "owner="]);
    assert!(result_ids(&env.json(&["recall", "grace", "--mode", "keyword"])).is_empty());
}

#[test]
fn history_revert_and_the_receipt_of_a_forgotten_memory() {
    history_revert_and_the_receipt_of_a_forgotten_memory_on(Env::new());
}

#[test]
fn history_revert_and_the_receipt_of_a_forgotten_memory_on_postgres() {
    history_revert_and_the_receipt_of_a_forgotten_memory_on(Env::postgres());
}

fn history_revert_and_the_receipt_of_a_forgotten_memory_on(env: Env) {
    let id = env.remember(&["the staging database lives on db-3", "--tag", "infra"]);
    env.ok(&[
        "update",
        &id,
        "--content",
        "the staging database moved to db-7",
    ]);
    let text = env.ok(&["history", &id]);
    assert!(text.contains("v1 created"), "{text}");
    assert!(text.contains("v2 updated"), "{text}");
    assert!(text.contains("by local: content"), "{text}");
    assert!(text.contains("db-3") && text.contains("db-7"), "{text}");

    let out = env.json(&["revert", &id, "1"]);
    assert_eq!(
        (out["restored"].as_u64(), out["version"].as_u64()),
        (Some(1), Some(3))
    );
    assert_eq!(
        out["memory"]["content"],
        "the staging database lives on db-3"
    );
    let bad = env.run(&["revert", &id, "9"]);
    assert_eq!(bad.status.code(), Some(2), "bad input");
    assert!(String::from_utf8_lossy(&bad.stderr).contains("no version 9"));

    let h = env.json(&["history", &id]);
    let changes: Vec<&str> = h["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["change"].as_str().unwrap())
        .collect();
    assert_eq!(changes, vec!["created", "updated", "reverted"]);

    env.ok(&["forget", &id]);
    let h = env.json(&["history", &id]);
    assert_eq!(h["versions"], serde_json::json!([]));
    assert_eq!(h["deleted"]["versions"], 3);
    assert!(env.ok(&["history", &id]).contains("3 versions erased"));
    // The export ends with the receipt, and importing it again skips it.
    let lines = export(&env);
    assert!(
        lines.lines().last().unwrap().starts_with(r#"{"deleted":"#),
        "{lines}"
    );
    assert!(!lines.contains("db-3"), "{lines}");
    let report = env.run_with(&["--json", "import", "-", "--strict"], Some(&lines));
    assert!(report.status.success(), "{report:?}");
}

fn export(env: &Env) -> String {
    env.ok(&["export"])
}

#[test]
fn import_export_round_trip_and_bad_lines() {
    import_export_round_trip_and_bad_lines_on(Env::new());
}

#[test]
fn import_export_round_trip_and_bad_lines_on_postgres() {
    import_export_round_trip_and_bad_lines_on(Env::postgres());
}

fn import_export_round_trip_and_bad_lines_on(env: Env) {
    let input = [
        r#"{"content":"imported fact about the lighthouse keeper","type":"fact","project":"coast","tags":["Sea","sea"],"created_at":"2024-03-01T10:00:00Z","metadata":{"speaker":"Ada"}}"#,
        r#"{"id":"0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b","content":"a rule with a fixed id","type":"rule","importance":0.9}"#,
        r#"{"content":"replacement of the rule","supersedes":"0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b","created_at":"2024-05-01T00:00:00Z"}"#,
        r#"{"content":"expires later","expires_at":"2099-01-01T00:00:00Z"}"#,
    ]
    .join("\n");
    let report = env.run_with(&["--json", "import", "-"], Some(&input));
    assert!(
        report.status.success(),
        "{}",
        String::from_utf8_lossy(&report.stderr)
    );
    let first = export(&env);
    assert_eq!(first.lines().count(), 4);
    let rule: Value =
        serde_json::from_str(first.lines().find(|l| l.contains("fixed id")).unwrap()).unwrap();
    assert_eq!(rule["id"], "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b");
    assert_eq!(rule["weight"], 0.1);
    assert_eq!(rule["valid_to"], "2024-05-01T00:00:00.000Z");
    assert!(first.contains("\"created_at\":\"2024-03-01T10:00:00.000Z\""));
    assert!(first.contains("\"tags\":[\"sea\"]"));
    // Export → import into an empty file → export: identical.
    let other = Env::new();
    let out = other.run_with(&["import", "-"], Some(&first));
    assert!(out.status.success());
    assert_eq!(export(&other), first);
    // With embeddings: also identical, and nothing is re-embedded.
    let with_vectors = env.ok(&["export", "--embeddings"]);
    let third = Env::new();
    let report: Value = serde_json::from_slice(
        &third
            .run_with(&["--json", "import", "-"], Some(&with_vectors))
            .stdout,
    )
    .unwrap();
    assert_eq!(report["embedded"], 0);
    assert_eq!(third.ok(&["export", "--embeddings"]), with_vectors);
    // Bad lines: reported with their number and skipped...
    let overflowing = format!(
        "{{\"content\":\"huge\",\"embedding\":[1e50{}]}}",
        ",0.1".repeat(383)
    );
    let bad = format!("{{\"content\":\"good one\"}}\n{{not json\n{{\"content\":\"x\",\"type\":\"nope\"}}\n{{\"contnet\":\"typo\"}}\n{{\"content\":\"good two\"}}\n{overflowing}\n");
    let bad = bad.as_str();
    let out = env.run_with(&["import", "-"], Some(bad));
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    for n in ["line 2", "line 3", "line 4", "line 6"] {
        assert!(err.contains(n), "{n}: {err}");
    }
    assert!(err.contains("contnet") && err.contains("nope"), "{err}");
    // (an f32 past its range: refused by the JSON parser itself)
    assert!(
        err.contains("line 6: not a valid memory record: number out of range"),
        "{err}"
    );
    assert_eq!(export(&env).lines().count(), 6);
    // ...or, with --strict, the whole file is refused and nothing written.
    let out = env.run_with(&["import", "--strict", "-"], Some(bad));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("line 2"));
    assert_eq!(export(&env).lines().count(), 6);
    // A file that is not there.
    let out = env.run(&["import", "/nonexistent/file.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    // A directory, named as one.
    let dir = tempfile::tempdir().unwrap();
    let out = env.run(&["import", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is a directory"), "{err}");
    assert_eq!(export(&env).lines().count(), 6);
    env.assert_healthy();
}

#[test]
fn two_processes_writing_at_once_lose_nothing() {
    let env = Env::new();
    env.remember(&["warm up the store file"]);
    let lines = |w: usize| -> String {
        (0..100).map(|i| format!("{{\"content\":\"writer {w} line {i} unique words {w}x{i}\",\"type\":\"episode\"}}\n")).collect()
    };
    let handles: Vec<_> = (0..2)
        .map(|w| {
            let input = lines(w);
            let env_db = env.db();
            thread::spawn(move || {
                let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_cairn"));
                c.env("CAIRN_DB", env_db).args(["import", "-"]);
                c.stdin(std::process::Stdio::piped())
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped());
                let mut child = c.spawn().unwrap();
                use std::io::Write;
                child
                    .stdin
                    .take()
                    .unwrap()
                    .write_all(input.as_bytes())
                    .unwrap();
                child.wait_with_output().unwrap()
            })
        })
        .collect();
    // A third process reads while they write.
    for _ in 0..5 {
        let out = env.run(&["--json", "recall", "writer line", "--mode", "keyword"]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    for h in handles {
        let out = h.join().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!String::from_utf8_lossy(&out.stderr).contains("locked"));
    }
    assert_eq!(env.json(&["stats"])["total"], 201);
    // Each writer's memories are found by a process started afterwards.
    let r = env.json(&["recall", "1x99", "--mode", "keyword"]);
    assert!(r["results"][0]["content"]
        .as_str()
        .unwrap()
        .contains("writer 1 line 99"));
    env.assert_healthy();
}

#[test]
fn another_model_is_refused_until_reindex() {
    let env = Env::new();
    env.remember(&["a memory embedded by MiniLM"]);
    {
        use cairn_core::store::Writing;
        let store = cairn_sqlite::SqliteStore::open(env.db()).unwrap();
        store
            .set_model(&cairn_core::ModelInfo {
                name: "some-other-model".into(),
                dim: 384,
            })
            .unwrap();
    }
    let out = env.run(&["remember", "another"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cairn reindex"));
    // Keyword recall and listing still work.
    assert!(env
        .ok(&["recall", "memory", "--mode", "keyword"])
        .contains("MiniLM"));
    assert_eq!(env.json(&["reindex"])["reindexed"], 1);
    env.remember(&["another"]);
}

#[test]
fn help_teaches() {
    let env = Env::new();
    let help = env.ok(&["--help"]);
    for needle in ["remember", "recall", "context", "Examples", "Exit codes"] {
        assert!(help.contains(needle), "{needle}");
    }
    let sub = env.ok(&["remember", "--help"]);
    assert!(sub.contains("--ttl") && sub.contains("30m, 24h, 7d, 2w"));
}
