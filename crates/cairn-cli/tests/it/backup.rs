//! `cairn backup` / `cairn restore`: everything comes back (versions,
//! slots, conversations, keys), into SQLite and PostgreSQL; a backup taken
//! while a server writes is consistent; a backup killed midway is never
//! taken for a good one.

use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use crate::first_hour::Server;
use crate::Env;

/// A store with versions, a slot, a conversation and a key; the id of the
/// memory with three versions.
fn furnished(env: &Env) -> String {
    let id = env.remember(&["the queue runs on RabbitMQ", "--tag", "infra"]);
    env.ok(&["update", &id, "--content", "the queue runs on NATS"]);
    env.ok(&[
        "update",
        &id,
        "--content",
        "the queue runs on NATS JetStream",
    ]);
    env.ok(&[
        "slot",
        "save",
        "atlas-dev",
        "Decided to move the queue to NATS",
    ]);
    env.ok(&[
        "slot",
        "save",
        "atlas-dev",
        "Benchmarked JetStream: 40k msg/s",
    ]);
    env.ok(&[
        "conversation",
        "log",
        "--conversation",
        "standup",
        "--speaker",
        "user",
        "we ship the NATS migration on Thursday",
    ]);
    env.ok(&["keys", "create", "--role", "read"]);
    id
}

/// What a user sees of `env`'s store, for comparison.
fn views(env: &Env, id: &str) -> Vec<Value> {
    vec![
        env.json(&["history", id]),
        env.json(&["slot", "list"]),
        env.json(&["conversation", "list"]),
        env.json(&["keys", "list"]),
        env.json(&["list", "--all-projects", "--sort", "id"]),
    ]
}

fn backup(env: &Env, file: &Path) -> Value {
    env.json(&["backup", file.to_str().unwrap()])
}

#[test]
fn a_backup_restores_everything_into_sqlite() {
    let env = Env::new();
    let id = furnished(&env);
    let file = env.dir.path().join("cairn.backup");
    let made = backup(&env, &file);
    assert_eq!(made["method"], "snapshot", "{made}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "the backup is its owner's only");
    }
    assert!(!crate::backup_partial(&file).exists());
    let history = env.json(&["history", &id]);
    assert!(
        history["versions"].as_array().map_or(0, Vec::len) >= 3,
        "{history}"
    );

    let restored = Env::new();
    let out = restored.json(&["restore", file.to_str().unwrap()]);
    assert_eq!(out["checksums"], made["checksums"], "{out}");
    assert_eq!(views(&restored, &id), views(&env, &id));
    restored.assert_healthy();

    // Not into a store that holds anything.
    let again = restored.run(&["restore", file.to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("not empty"));
}

#[test]
fn a_backup_restores_everything_into_postgres() {
    let env = Env::new();
    let id = furnished(&env);
    let file = env.dir.path().join("cairn.backup");
    let made = backup(&env, &file);
    let pg = Env::postgres();
    let out = pg.json(&["restore", file.to_str().unwrap()]);
    assert_eq!(out["checksums"], made["checksums"], "{out}");
    assert_eq!(views(&pg, &id), views(&env, &id));
}

#[test]
fn damaged_or_foreign_files_are_refused() {
    let env = Env::new();
    furnished(&env);
    let target = Env::new();
    let restore = |file: &Path| {
        let out = target.run(&["restore", file.to_str().unwrap()]);
        assert!(!out.status.success());
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    // A store file is not a backup: it has no manifest.
    assert!(restore(&env.db()).contains("not a complete Cairn backup"));
    let text = env.dir.path().join("notes.txt");
    std::fs::write(&text, "hello").unwrap();
    assert!(restore(&text).contains("not a Cairn backup"));
    assert!(restore(&env.dir.path().join("missing")).contains("no backup file"));
    // Records changed after the backup was made no longer match its sums.
    let file = env.dir.path().join("cairn.backup");
    backup(&env, &file);
    let first = env.json(&["list", "--all-projects"])["memories"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let mut edit = env.cmd();
    edit.env("CAIRN_DB", &file)
        .args(["tag", &first, "edited-after-the-backup"]);
    assert!(edit.output().unwrap().status.success());
    assert!(restore(&file).contains("checksums"));
    assert!(target.json(&["list"])["memories"]
        .as_array()
        .unwrap()
        .is_empty());
}

#[test]
fn a_backup_during_concurrent_writes_is_consistent() {
    let env = Env::new();
    env.remember(&["the first memory makes the store"]);
    let key = env.json(&["keys", "create", "--role", "write"])["key"]
        .as_str()
        .unwrap()
        .to_string();
    let server = Arc::new(Server::start(&env));
    let stop = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicUsize::new(0));
    let writer = {
        let (server, stop, key, done) = (server.clone(), stop.clone(), key.clone(), done.clone());
        std::thread::spawn(move || {
            let mut n = 0;
            while !stop.load(Ordering::Relaxed) {
                let body = json!({ "content": format!("write number {n} during the backup") });
                let (status, reply) = server.post(&key, "/v1/memories", &body);
                assert!(status == 200 || status == 201, "{reply}");
                n += 1;
                done.store(n, Ordering::Relaxed);
            }
            n
        })
    };
    // Let writes start before and go on during the backups.
    while done.load(Ordering::Relaxed) < 3 {
        std::thread::sleep(Duration::from_millis(50));
    }
    let mut files = Vec::new();
    for i in 0..3 {
        let file = env.dir.path().join(format!("during-{i}.backup"));
        backup(&env, &file);
        files.push(file);
    }
    stop.store(true, Ordering::Relaxed);
    let written = writer.join().unwrap();
    assert!(written > 0);
    let mut counts = Vec::new();
    for file in &files {
        let restored = Env::new();
        // Restore checks the copy against the manifest's checksums.
        restored.json(&["restore", file.to_str().unwrap()]);
        restored.assert_healthy();
        let listed = restored.json(&["list", "--all-projects", "--limit", "1000"]);
        counts.push(listed["total"].as_u64().unwrap());
    }
    assert!(counts.windows(2).all(|w| w[0] <= w[1]), "{counts:?}");
    env.assert_healthy();
}

#[test]
fn a_backup_killed_midway_is_never_taken_for_a_good_one() {
    let env = Env::new();
    furnished(&env);
    let lines: String = (0..300)
        .map(|i| {
            format!(
                "{{\"content\": \"filler memory number {i} about topic {}\"}}\n",
                i % 7
            )
        })
        .collect();
    let out = env.run_with(&["import", "-"], Some(&lines));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let file = env.dir.path().join("killed.backup");
    let (mut cut, mut complete) = (0, 0);
    for delay in (0..400).step_by(8) {
        let _ = std::fs::remove_file(&file);
        let mut child = env
            .cmd()
            .args(["backup", file.to_str().unwrap()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let target = Env::new();
        if file.exists() {
            target.json(&["restore", file.to_str().unwrap()]);
            complete += 1;
        } else {
            cut += 1;
            let partial = crate::backup_partial(&file);
            if partial.exists() {
                // Refused, unless the kill came after the manifest was
                // written and its checksums verify: then it is whole.
                let out = target.run(&["restore", partial.to_str().unwrap()]);
                if out.status.success() {
                    assert_eq!(
                        target.ok(&["export"]).lines().count(),
                        env.ok(&["export"]).lines().count(),
                        "an unfinished backup was restored"
                    );
                }
            }
        }
        if cut > 0 && complete > 2 {
            break;
        }
    }
    assert!(cut > 0 && complete > 0, "cut {cut}, complete {complete}");
    env.assert_healthy();
}
