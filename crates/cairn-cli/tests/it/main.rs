//! End-to-end tests of the `cairn` binary: each test runs the real
//! executable as a subprocess against its own temporary SQLite file, with
//! the real all-MiniLM-L6-v2 model (fetched beforehand by
//! `scripts/fetch-model.sh`, as `.ci/run` does).

#![allow(missing_docs)]

mod backup;
mod backup_forget;
mod cli;
mod concurrent_start;
mod conflict_settings;
mod conflicts;
mod conversation;
mod conversation_conflicts;
mod corrections;
mod crash;
mod current_side;
mod defaults;
mod docs;
mod first_hour;
mod foreign;
mod front_ends;
mod ingest;
mod ingest_structure;
mod keys;
mod memcord;
mod migrate;
mod model_dir;
mod multi_server;
mod newer_first;
mod pg;
mod plain_words;
mod private_files;
mod providers;
mod readme;
mod redact;
mod redact_personal;
mod relevance;
mod same_json;
mod setup;
mod setup_show;
mod shape;
mod slot;
mod wal;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use serde_json::Value;

/// The ids of a `recall --json` answer's results, in order.
pub fn result_ids(out: &Value) -> Vec<String> {
    out["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| r["id"].as_str().expect("a result's id").to_string())
        .collect()
}

/// One temporary store and helpers to run `cairn` against it: a SQLite
/// file in a temporary directory, or ([`Env::postgres`]) a schema of its
/// own in the test database.
pub struct Env {
    pub dir: tempfile::TempDir,
    /// The PostgreSQL schema, when the store is one.
    pg: Option<pg::Schema>,
}

impl Default for Env {
    fn default() -> Self {
        Self::new()
    }
}

impl Env {
    pub fn new() -> Self {
        Env {
            dir: tempfile::tempdir().expect("tempdir"),
            pg: None,
        }
    }

    /// A store in a fresh schema of the test database
    /// (`CAIRN_TEST_POSTGRES_URL`, required), dropped when done.
    pub fn postgres() -> Self {
        Env {
            dir: tempfile::tempdir().expect("tempdir"),
            pg: Some(pg::Schema::new()),
        }
    }

    pub fn db(&self) -> PathBuf {
        self.dir.path().join("cairn.db")
    }

    pub fn cmd(&self) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_cairn"));
        match &self.pg {
            Some(schema) => c
                .env("CAIRN_STORE", schema.url(&pg::url()))
                .env_remove("CAIRN_DB"),
            None => c.env("CAIRN_DB", self.db()).env_remove("CAIRN_STORE"),
        };
        c.env_remove("CAIRN_PROJECT").env("NO_COLOR", "1");
        c
    }

    /// Run with arguments and optional stdin.
    pub fn run_with(&self, args: &[&str], stdin: Option<&str>) -> Output {
        let mut c = self.cmd();
        c.args(args).stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        });
        c.stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = c.spawn().expect("spawn cairn");
        if let Some(input) = stdin {
            use std::io::Write;
            child
                .stdin
                .take()
                .unwrap()
                .write_all(input.as_bytes())
                .unwrap();
        }
        child.wait_with_output().expect("wait")
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.run_with(args, None)
    }

    /// Run and require success; returns stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "cairn {args:?} failed ({:?}):\n{}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("utf-8 stdout")
    }

    /// Run with `--json` and parse stdout.
    pub fn json(&self, args: &[&str]) -> Value {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        let out = self.ok(&all);
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("bad JSON from {args:?}: {e}\n{out}"))
    }

    /// Remember and return the new id.
    pub fn remember(&self, args: &[&str]) -> String {
        let mut all = vec!["remember"];
        all.extend_from_slice(args);
        self.json(&all)["id"].as_str().expect("id").to_string()
    }

    /// `PRAGMA integrity_check` on the store file; on PostgreSQL, that
    /// the store opens and counts.
    pub fn assert_healthy(&self) {
        match &self.pg {
            Some(_) => {
                self.ok(&["stats"]);
            }
            None => assert_healthy(&self.db()),
        }
    }
}

/// Where `cairn backup FILE` writes until the backup is complete.
pub fn backup_partial(file: &Path) -> PathBuf {
    cairn_core::api::partial_path(file)
}

pub fn assert_healthy(path: &Path) {
    use cairn_core::Store;
    let store = cairn_sqlite::SqliteStore::open(path).expect("open");
    store.maintenance().verify().expect("integrity_check");
}

/// One HTTP/1.1 request on its own connection: (status, head in
/// lowercase, body), or `None` if the connection failed or was cut (the
/// server died).
pub fn http(addr: &str, method: &str, path: &str, body: &str) -> Option<(u16, String, String)> {
    let mut tcp = TcpStream::connect(addr).ok()?;
    tcp.set_read_timeout(Some(Duration::from_secs(60))).ok()?;
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    tcp.write_all(req.as_bytes()).ok()?;
    let mut reply = String::new();
    tcp.read_to_string(&mut reply).ok()?;
    let status = reply.split(' ').nth(1)?.parse().ok()?;
    let (head, body) = reply.split_once("\r\n\r\n")?;
    Some((status, head.to_ascii_lowercase(), body.to_string()))
}

/// The address `cairn serve` printed on its first line of stdout.
pub fn served_address(child: &mut std::process::Child) -> String {
    use std::io::{BufRead, BufReader};
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout is piped"))
        .read_line(&mut line)
        .unwrap();
    line.split("http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .unwrap_or_else(|| panic!("cairn serve printed {line:?}"))
        .to_string()
}
