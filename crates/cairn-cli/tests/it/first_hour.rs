//! A new user's first hour, end to end with the real binary and a real
//! server: what the CLI writes, a key made without `--tenant` finds over
//! REST; named tenants stay apart; the start-up line names every surface.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

use crate::Env;

/// A running `cairn serve` (killed when dropped) and its first line.
pub struct Server {
    child: Child,
    /// `host:port`.
    pub addr: String,
    /// The start-up line.
    pub line: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// `cairn serve` on a free loopback port over `env`'s store, with keys
    /// required.
    pub fn start(env: &Env) -> Server {
        let mut child = env
            .cmd()
            .args(["serve", "--listen", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn cairn serve");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("piped"))
            .read_line(&mut line)
            .expect("start-up line");
        let addr = line
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
            .unwrap_or_else(|| panic!("cairn serve printed {line:?}"))
            .to_string();
        Server { child, addr, line }
    }

    /// `POST path` with `key`: (status, JSON body).
    pub fn post(&self, key: &str, path: &str, body: &Value) -> (u16, Value) {
        self.call(key, "POST", path, Some(body))
    }

    /// `method path` with `key` and a JSON body: (status, JSON body).
    pub fn call(&self, key: &str, method: &str, path: &str, body: Option<&Value>) -> (u16, Value) {
        let body = body.map(Value::to_string).unwrap_or_default();
        let mut tcp = TcpStream::connect(&self.addr).expect("connect");
        tcp.set_read_timeout(Some(Duration::from_secs(120)))
            .unwrap();
        let req = format!(
            "{method} {path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer {key}\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        tcp.write_all(req.as_bytes()).unwrap();
        let mut reply = String::new();
        tcp.read_to_string(&mut reply).unwrap();
        let status = reply.split(' ').nth(1).unwrap().parse().unwrap();
        let (_, body) = reply.split_once("\r\n\r\n").unwrap();
        let body = body.trim();
        // A chunked body: its one chunk between the size line and the end.
        let text = match body.split_once("\r\n") {
            Some((size, rest)) if u64::from_str_radix(size, 16).is_ok() => {
                rest.rsplit_once("\r\n0").map_or(rest, |(chunk, _)| chunk)
            }
            _ => body,
        };
        let value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"));
        (status, value)
    }

    /// The ids `POST /v1/recall` finds for `query` with `key`.
    pub fn recall(&self, key: &str, query: &str) -> Vec<String> {
        let (status, body) = self.post(key, "/v1/recall", &json!({ "query": query }));
        assert_eq!(status, 200, "{body}");
        body["results"]
            .as_array()
            .expect("results")
            .iter()
            .map(|r| r["id"].as_str().expect("id").to_string())
            .collect()
    }
}

#[test]
fn a_key_made_without_tenant_finds_what_the_cli_remembered() {
    let env = Env::new();
    let id = env.remember(&["the deploy window for atlas is Tuesday 10:00 UTC"]);
    let made = env.json(&["keys", "create", "--role", "read"]);
    assert_eq!(made["tenant"], "default", "{made}");
    let key = made["key"].as_str().expect("key").to_string();

    let server = Server::start(&env);
    let found = server.recall(&key, "when is the atlas deploy window?");
    assert_eq!(found.first(), Some(&id), "the CLI's memory over REST");
}

#[test]
fn named_tenants_stay_apart_and_the_cli_addresses_them() {
    let env = Env::new();
    let mine = env.remember(&["the staging database lives in Falkenstein"]);
    let alices = env.json(&[
        "--tenant",
        "alice",
        "remember",
        "alice keeps the staging database password in the vault",
    ])["id"]
        .as_str()
        .unwrap()
        .to_string();

    // The CLI sees one tenant at a time.
    let listed = |args: &[&str]| -> Vec<String> {
        let mut all = args.to_vec();
        all.extend(["list", "--all-projects"]);
        env.json(&all)["memories"]
            .as_array()
            .expect("memories")
            .iter()
            .map(|m| m["id"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(listed(&[]), vec![mine.clone()]);
    assert_eq!(listed(&["--tenant", "alice"]), vec![alices.clone()]);
    let out = env.run(&["--tenant", "alice", "get", &mine]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "another tenant's memory is not found"
    );

    let key_of = |args: &[&str]| -> String {
        let mut all = args.to_vec();
        all.extend(["keys", "create", "--role", "read"]);
        env.json(&all)["key"].as_str().unwrap().to_string()
    };
    let default_key = key_of(&[]);
    let alice_key = key_of(&["--tenant", "alice"]);
    let server = Server::start(&env);
    let query = "staging database";
    assert_eq!(server.recall(&default_key, query), vec![mine]);
    assert_eq!(server.recall(&alice_key, query), vec![alices]);
}

#[test]
fn the_start_up_line_names_every_surface() {
    let env = Env::new();
    env.remember(&["a first memory makes the store"]);
    let server = Server::start(&env);
    let addr = &server.addr;
    for path in ["/ui", "/docs", "/mcp", "/v1", "/healthz", "/openapi.json"] {
        assert!(
            server.line.contains(&format!("http://{addr}{path}")),
            "{path} missing from {:?}",
            server.line
        );
    }
    assert!(server.line.contains("Authorization"), "{}", server.line);
    // The UI the line names answers.
    let (status, _, _) = crate::http(addr, "GET", "/docs", "").expect("docs");
    assert_eq!(status, 200);
}

#[test]
fn list_says_why_project_memories_are_not_shown() {
    let env = Env::new();
    env.remember(&["a global note about coffee"]);
    env.remember(&["atlas runs on NATS", "--project", "atlas"]);
    env.remember(&["atlas ships on Thursday", "--project", "atlas"]);
    let text = env.ok(&["list"]);
    assert!(
        text.contains("global memories only: 2 in projects"),
        "{text}"
    );
    let all = env.ok(&["list", "--all-projects"]);
    assert!(!all.contains("global memories only"), "{all}");
}

#[test]
fn a_slot_export_leaves_out_what_the_slot_has_not() {
    let env = Env::new();
    env.ok(&["slot", "save", "plain", "an entry without tags or group"]);
    let md = env.ok(&["slot", "export", "plain", "--format", "md"]);
    assert!(md.contains("# Memory Slot: plain"), "{md}");
    for empty in ["**Tags:**", "**Group:**", "## Description"] {
        assert!(!md.contains(empty), "{empty} in {md}");
    }
    assert!(md.contains("an entry without tags or group"), "{md}");
}

#[test]
fn subcommand_examples_keep_their_lines() {
    let env = Env::new();
    for (args, line) in [
        (
            ["ingest", "--help"],
            "\n  cairn ingest - --tag web < page.html",
        ),
        (["slot", "--help"], "\n  cairn slot read atlas-dev\n"),
        (["backup", "--help"], "\n  cairn backup "),
    ] {
        let help = env.ok(&args);
        assert!(help.contains("Examples:\n  cairn "), "{help}");
        assert!(
            help.contains(line),
            "{line:?} not on its own line in {help}"
        );
    }
}
