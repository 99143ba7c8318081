//! The CLI's `--json` and the MCP server's structured content for the same
//! operation on the same store are the same JSON: both come from
//! `cairn_core::api`.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};

use serde_json::{json, Value};

use crate::Env;

/// `cairn mcp` on the test's store, spoken to in JSON-RPC lines.
pub(crate) struct McpProcess {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl McpProcess {
    fn start(env: &Env) -> McpProcess {
        McpProcess::start_in(env, None)
    }

    /// `cairn mcp` started in `dir` (it detects the project and bound slot
    /// there), or with detection off.
    pub(crate) fn start_in(env: &Env, dir: Option<&std::path::Path>) -> McpProcess {
        let mut cmd = env.cmd();
        match dir {
            Some(d) => cmd.arg("mcp").current_dir(d),
            None => cmd.args(["mcp", "--no-detect"]),
        };
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn cairn mcp");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut mcp = McpProcess {
            child,
            stdin,
            stdout,
            next_id: 1,
        };
        mcp.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}),
        );
        mcp.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        mcp
    }

    fn send(&mut self, message: Value) {
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "server ended"
            );
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == json!(id) {
                return message["result"].clone();
            }
        }
    }

    /// A tool's structured content.
    pub(crate) fn tool(&mut self, name: &str, arguments: Value) -> Value {
        let result = self.request("tools/call", json!({"name": name, "arguments": arguments}));
        assert_ne!(result["isError"], json!(true), "{name}: {result}");
        result["structuredContent"].clone()
    }
}

impl Drop for McpProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The answer without what a read itself changes (each get or recall
/// counts an access, and the access boost moves scores).
pub(crate) fn settled(mut v: Value) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(map) => {
                for key in ["access_count", "last_accessed_at", "last_access", "score"] {
                    map.remove(key);
                }
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut v);
    v
}

#[test]
fn cli_json_and_mcp_structured_content_are_the_same() {
    let env = Env::new();
    let id = env.remember(&[
        "atlas staging DB runs on a Hetzner box in Falkenstein",
        "--type",
        "fact",
        "--project",
        "atlas",
        "--tag",
        "infra",
        "--meta",
        "owner=ops",
    ]);
    env.remember(&["deploys go out on Tuesdays", "--type", "rule"]);
    env.remember(&["the staging database is backed up nightly", "--ttl", "7d"]);
    let mut mcp = McpProcess::start(&env);

    // list: nothing in it changes between the two calls.
    let cli = env.json(&["list", "--all-projects", "--limit", "2"]);
    let tool = mcp.tool("list", json!({"all_projects": true, "limit": 2}));
    assert_eq!(cli, tool);
    assert_eq!(cli["memories"].as_array().unwrap().len(), 2);
    assert!(cli["next_cursor"].is_string(), "{cli}");

    // get: the same memory, every field.
    let cli = env.json(&["get", &id[..13]]);
    let tool = mcp.tool("get", json!({"id": &id[..13]}));
    assert_eq!(settled(cli.clone()), settled(tool));
    assert_eq!(cli["id"], json!(id));
    assert_eq!(cli["metadata"]["owner"], "ops");

    // recall: the same results in the same order, with the same budget
    // accounting.
    let cli = env.json(&["recall", "staging database", "--all-projects"]);
    let tool = mcp.tool(
        "recall",
        json!({"query": "staging database", "all_projects": true}),
    );
    assert_eq!(settled(cli.clone()), settled(tool));
    assert!(cli["results"].as_array().unwrap().len() >= 2, "{cli}");
    assert!(cli["tokens"].as_u64().unwrap() > 0);
}
