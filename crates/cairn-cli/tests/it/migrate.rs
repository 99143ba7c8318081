//! `cairn migrate` between SQLite and PostgreSQL with the real binary: a
//! round trip SQLite → PostgreSQL → SQLite gives a byte-identical export,
//! history, keys and slots; a migration killed (SIGKILL) part way and
//! run again copies the rest and nothing twice; stores of different
//! models are refused.
//!
//! They need `CAIRN_TEST_POSTGRES_URL` and fail without it, never skip.

use serde_json::Value;

use crate::pg::{url, Schema};
use crate::Env;

/// A deterministic 384-dimensional unit vector for record `i`.
fn vector(i: usize) -> Vec<f32> {
    let mut v: Vec<f32> = (0..384)
        .map(|d| (((i * 7919 + d * 104_729) % 1000) as f32 / 1000.0) - 0.5)
        .collect();
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter_mut().for_each(|x| *x /= n);
    v
}

/// `n` JSON Lines records with embeddings (no model needed to import
/// them), in a few projects, types and tenants' worth of variety.
fn records(n: usize) -> String {
    (0..n)
        .map(|i| {
            let kind = ["fact", "note", "decision"][i % 3];
            serde_json::json!({
                "content": format!("record {i}: the service number {i} runs in zone {}", i % 7),
                "type": kind,
                "project": if i % 4 == 0 { Value::Null } else { Value::from(format!("p{}", i % 5)) },
                "tags": [format!("t{}", i % 11)],
                "metadata": {"i": i, "who": "migration test ✓"},
                "importance": (i % 10) as f64 / 10.0,
                "created_at": format!("2026-0{}-1{}T10:00:0{}.123Z", 1 + i % 9, i % 10, i % 10),
                "embedding": vector(i),
            })
            .to_string()
                + "\n"
        })
        .collect()
}

/// A SQLite store with something of everything: imported memories, one
/// updated (two versions), one forgotten (a receipt), API keys of two
/// tenants (one revoked), a slot with an entry, an archived slot.
fn populated(n: usize) -> Env {
    let env = Env::new();
    let out = env.run_with(&["import", "-"], Some(&records(n)));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ids: Vec<String> = env
        .ok(&["export"])
        .lines()
        .take(2)
        .map(|line| {
            let record: Value = serde_json::from_str(line).unwrap();
            record["id"].as_str().unwrap().to_string()
        })
        .collect();
    env.ok(&["update", &ids[0], "--tag", "changed"]);
    env.ok(&["forget", &ids[1]]);
    env.ok(&["keys", "create", "--tenant", "alice", "--role", "write"]);
    let bob = env.json(&["keys", "create", "--tenant", "bob", "--role", "read"]);
    env.ok(&["keys", "revoke", bob["id"].as_str().unwrap()]);
    env.ok(&["slot", "create", "atlas-dev", "-d", "the atlas project"]);
    env.ok(&["slot", "save", "atlas-dev", "deploys go out on Tuesdays"]);
    // An archived slot whose long entry is kept compressed: it migrates
    // as its text.
    let long = "the retired gateway's runbook, step by step. ".repeat(60);
    env.ok(&["slot", "save", "old-gateway", &long]);
    env.ok(&["slot", "archive", "old-gateway", "--reason", "retired"]);
    env
}

/// Everything the CLI shows of a store, for comparing two.
fn snapshot(env: &Env, store: &str) -> Vec<String> {
    let run = |args: &[&str]| {
        let mut cmd = env.cmd();
        cmd.env_remove("CAIRN_DB")
            .arg("--store")
            .arg(store)
            .args(args);
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "cairn {args:?} on {store}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let export = run(&["export", "--embeddings"]);
    let first: Value = serde_json::from_str(export.lines().next().unwrap()).unwrap();
    let id = first["id"].as_str().unwrap().to_string();
    vec![
        export,
        run(&["--json", "history", &id, "--full"]),
        run(&["--json", "keys", "list"]),
        run(&["--json", "slot", "list", "--include-archived"]),
        run(&["--json", "slot", "read", "old-gateway"]),
        run(&["--json", "list", "--sort", "oldest", "--limit", "20"]),
    ]
}

fn migrate(env: &Env, from: &str, to: &str, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["migrate", "--from", from, "--to", to];
    args.extend_from_slice(extra);
    let mut cmd = env.cmd();
    cmd.env_remove("CAIRN_DB").args(&args);
    cmd.output().expect("run cairn migrate")
}

fn ok(out: std::process::Output) -> String {
    assert!(
        out.status.success(),
        "cairn migrate failed ({:?}):\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `cairn migrate` from `from` into `schema`, killed (SIGKILL) once the
/// destination holds at least `rows` memories; how many it held just
/// after.
fn migrate_killed(env: &Env, from: &str, schema: &Schema, rows: usize) -> usize {
    let mut cmd = env.cmd();
    cmd.env_remove("CAIRN_DB")
        .args(["migrate", "--from", from, "--to", &schema.url(&url())])
        .args(["--batch", "100"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut child = cmd.spawn().expect("run cairn migrate");
    let mut db = postgres::Client::connect(&url(), postgres::NoTls).unwrap();
    // No table yet (the migration has not made the schema) counts as 0.
    let held = |db: &mut postgres::Client| -> usize {
        db.query_one(
            &format!("SELECT count(*) FROM {}.memories", schema.name),
            &[],
        )
        .map(|row| row.get::<_, i64>(0) as usize)
        .unwrap_or(0)
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while held(&mut db) < rows {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the migration ended before it could be killed: give it more to copy"
        );
        assert!(std::time::Instant::now() < deadline, "no rows appeared");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    // Child::kill is SIGKILL: no cleanup, a transaction perhaps half sent.
    child.kill().unwrap();
    child.wait().unwrap();
    // A commit already on its way lands within moments.
    std::thread::sleep(std::time::Duration::from_millis(500));
    held(&mut db)
}

#[test]
fn a_round_trip_through_postgres_is_byte_identical_and_resumes_after_a_kill() {
    let env = populated(5000);
    let source = format!("sqlite:{}", env.db().display());
    let schema = Schema::new();
    let pg = schema.url(&url());

    // Killed part way, then run again: the rest is copied, nothing twice.
    let copied = migrate_killed(&env, &source, &schema, 1000);
    assert!(
        (1000..5001).contains(&copied),
        "{copied} copied when killed"
    );
    let done = ok(migrate(&env, &source, &pg, &["--batch", "700"]));
    assert!(
        done.contains(&format!("{copied} memories already there")),
        "{done}"
    );
    assert!(!done.contains("DIFFERENT"), "{done}");
    assert_eq!(
        schema.ids().len(),
        5001,
        "5000 imported, one forgotten, two slot entries"
    );
    // A third run copies nothing and still agrees.
    let again = ok(migrate(&env, &source, &pg, &["--json"]));
    let report: Value = serde_json::from_str(&again).unwrap();
    assert_eq!(report["report"]["memories"], 0);
    assert_eq!(report["identical"], true);
    let tables: Vec<(String, u64)> = report["source"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["table"].as_str().unwrap().to_string(),
                t["count"].as_u64().unwrap(),
            )
        })
        .collect();
    let count = |name: &str| tables.iter().find(|(t, _)| t == name).unwrap().1;
    assert_eq!(count("memories"), 5001, "4999 and the slots' two entries");
    assert_eq!(count("receipts"), 1);
    assert_eq!(count("keys"), 2);
    assert!(count("versions") >= 5002);
    assert!(count("collections") >= 1);

    // And back into a new SQLite file: the same store, byte for byte.
    let back = env.dir.path().join("back.db");
    let back = format!("sqlite:{}", back.display());
    ok(migrate(&env, &pg, &back, &[]));
    assert_eq!(snapshot(&env, &source), snapshot(&env, &back));
    // PostgreSQL shows the same too.
    assert_eq!(snapshot(&env, &source), snapshot(&env, &pg));
}

#[test]
fn stores_of_different_models_are_refused() {
    let env = populated(10);
    let schema = Schema::new();
    let pg = schema.url(&url());
    // A PostgreSQL store recorded with another model.
    ok(migrate(
        &env,
        &format!("sqlite:{}", env.db().display()),
        &pg,
        &[],
    ));
    let mut client = postgres::Client::connect(&url(), postgres::NoTls).unwrap();
    client
        .batch_execute(&format!(
            "UPDATE {}.meta SET value = '512' WHERE key = 'model_dim'",
            schema.name
        ))
        .unwrap();
    let other = Env::new();
    other.run_with(&["import", "-"], Some(&records(3)));
    let out = migrate(
        &other,
        &format!("sqlite:{}", other.db().display()),
        &pg,
        &[],
    );
    assert_eq!(out.status.code(), Some(2), "bad input");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("different embedding models"), "{err}");
    assert!(err.contains("512 dimensions"), "{err}");
    // An empty or missing source is refused too.
    let missing = migrate(&env, "sqlite:/nonexistent/cairn.db", &pg, &[]);
    assert!(!missing.status.success());
}
