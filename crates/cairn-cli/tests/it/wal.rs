//! Forgotten text leaves the store's files, the write-ahead log included:
//! after `forget` (CLI or REST), after a clean stop of `cairn serve`, and
//! after `cairn serve` is killed with SIGKILL, the raw bytes of the
//! database, its `-wal` and its `-shm` never hold the text, and a process
//! that ends leaves no log behind.

use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use crate::{http, served_address, Env};

/// The files of the store at `env` that hold `needle`, byte for byte.
fn files_holding(env: &Env, needle: &str) -> Vec<String> {
    let db = env.db();
    ["", "-wal", "-shm"]
        .iter()
        .map(|suffix| format!("{}{suffix}", db.display()))
        .filter(|path| {
            std::fs::read(path)
                .is_ok_and(|bytes| bytes.windows(needle.len()).any(|w| w == needle.as_bytes()))
        })
        .collect()
}

/// The `-wal` file's size (0 when there is none).
fn wal_len(env: &Env) -> u64 {
    std::fs::metadata(format!("{}-wal", env.db().display())).map_or(0, |m| m.len())
}

fn start(env: &Env) -> (Child, String) {
    let mut child = env
        .cmd()
        .args(["serve", "--listen", "127.0.0.1:0", "--no-auth"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn cairn serve");
    let addr = served_address(&mut child);
    let deadline = Instant::now() + Duration::from_secs(60);
    while http(&addr, "GET", "/readyz", "").map(|r| r.0) != Some(200) {
        assert!(Instant::now() < deadline, "cairn serve never became ready");
        std::thread::sleep(Duration::from_millis(20));
    }
    (child, addr)
}

/// Remember `content` over REST; its id.
fn remember(addr: &str, content: &str) -> String {
    let body = serde_json::json!({ "content": content }).to_string();
    let (status, _, text) = http(addr, "POST", "/v1/memories", &body).expect("answer");
    assert_eq!(status, 201, "{text}");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["id"].as_str().unwrap().to_string()
}

#[test]
fn the_cli_leaves_no_log_and_forgetting_erases_every_file() {
    let env = Env::new();
    let id = env.remember(&["the locker code is ploverquartzcli"]);
    env.remember(&["an unrelated note about lunch"]);
    assert_eq!(wal_len(&env), 0, "a CLI command that ended left a log");
    assert!(
        !files_holding(&env, "ploverquartzcli").is_empty(),
        "nothing to erase"
    );
    env.ok(&["forget", &id]);
    assert_eq!(files_holding(&env, "ploverquartzcli"), Vec::<String>::new());
    assert_eq!(wal_len(&env), 0);
}

#[test]
fn forgetting_over_rest_erases_the_log_and_a_clean_stop_leaves_none() {
    let env = Env::new();
    let (mut child, addr) = start(&env);
    let id = remember(&addr, "the locker code is ploverquartzrest");
    for i in 0..5 {
        remember(&addr, &format!("filler note number {i} about the weather"));
    }
    assert!(
        !files_holding(&env, "ploverquartzrest").is_empty(),
        "nothing to erase"
    );
    let (status, _, text) = http(&addr, "DELETE", &format!("/v1/memories/{id}"), "").unwrap();
    assert!((200..300).contains(&status), "{status} {text}");
    // While the server still runs.
    assert_eq!(
        files_holding(&env, "ploverquartzrest"),
        Vec::<String>::new()
    );
    remember(&addr, "one more note after the deletion");
    let pid = child.id().to_string();
    let term = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap();
    assert!(term.success());
    let status = child.wait().unwrap();
    assert!(status.success(), "cairn serve stopped with {status:?}");
    assert_eq!(wal_len(&env), 0, "a clean stop left a log");
    assert_eq!(
        files_holding(&env, "ploverquartzrest"),
        Vec::<String>::new()
    );
}

#[test]
fn after_kill_9_the_next_process_empties_the_log_and_forgets_for_good() {
    let env = Env::new();
    let (mut child, addr) = start(&env);
    let id = remember(&addr, "the locker code is ploverquartzkill");
    for i in 0..5 {
        remember(&addr, &format!("filler note number {i} about the weather"));
    }
    child.kill().expect("SIGKILL");
    child.wait().unwrap();
    assert!(
        wal_len(&env) > 0,
        "the killed server left no log to recover"
    );
    env.ok(&["stats"]);
    assert_eq!(wal_len(&env), 0, "the next process left the log as it was");
    env.ok(&["forget", &id]);
    assert_eq!(
        files_holding(&env, "ploverquartzkill"),
        Vec::<String>::new()
    );
    assert_eq!(wal_len(&env), 0);
}

#[test]
fn durability_is_checked_and_applies_to_every_command() {
    let env = Env::new();
    let out = env.run(&["--durability", "fsync", "stats"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("durability `fsync` is unknown"), "{err}");
    let out = env
        .cmd()
        .env("CAIRN_DURABILITY", "full")
        .args(["remember", "durable note"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
