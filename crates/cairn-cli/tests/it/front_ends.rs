//! The CLI, MCP and REST are one product: with every option left out,
//! `list`, `recall`, `context` and a slot read answer the same JSON on all
//! three (each front end leaves the defaults to the core), and zero mode
//! set through one is seen by the others (it is stored, not a session's).

use serde_json::{json, Value};

use crate::first_hour::Server;
use crate::same_json::{settled, McpProcess};
use crate::Env;

/// What `cairn keys create` answered: the key's secret.
fn write_key(env: &Env) -> String {
    let made = env.json(&["keys", "create", "--role", "write"]);
    made["key"].as_str().expect("key").to_string()
}

#[test]
fn cli_mcp_and_rest_answer_the_same_json_with_every_default_left_out() {
    let env = Env::new();
    // More than a page, in two projects and global, and a slot.
    let lines: String = (0..30)
        .map(|i| {
            let project = match i % 3 {
                0 => "\"project\":\"atlas\",",
                1 => "\"project\":\"borealis\",",
                _ => "",
            };
            format!(
                "{{{project}\"content\":\"harbour note {i}: crane {i} lifts the containers\"}}\n"
            )
        })
        .collect();
    let out = env.run_with(&["import", "-"], Some(&lines));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    env.ok(&[
        "slot",
        "save",
        "harbour",
        "the crane schedule moved to Mondays",
    ]);
    let key = write_key(&env);
    let server = Server::start(&env);
    let mut mcp = McpProcess::start_in(&env, None);

    let cli = env.json(&["list"]);
    let tool = mcp.tool("list", json!({}));
    let (status, rest) = server.call(&key, "GET", "/v1/memories", None);
    assert_eq!(status, 200, "{rest}");
    assert_eq!(cli, tool, "list: CLI and MCP differ");
    assert_eq!(cli, rest, "list: CLI and REST differ");
    // "No project" means global memories only, on every front end.
    let memories = cli["memories"].as_array().unwrap();
    assert!(!memories.is_empty());
    assert!(memories.iter().all(|m| m["project"].is_null()), "{cli}");

    let cli = env.json(&["slot", "read", "harbour"]);
    let tool = mcp.tool("slot", json!({"action": "read", "name": "harbour"}));
    let (status, rest) = server.call(&key, "GET", "/v1/slots/harbour", None);
    assert_eq!(status, 200, "{rest}");
    assert_eq!(settled(cli.clone()), settled(tool["result"].clone()));
    assert_eq!(settled(cli), settled(rest));

    let cli = env.json(&["context"]);
    let tool = mcp.tool("context", json!({}));
    let (status, rest) = server.call(&key, "POST", "/v1/context", Some(&json!({})));
    assert_eq!(status, 200, "{rest}");
    // The Markdown says how long ago each memory changed, a second apart.
    let items = |v: &Value| settled(v["items"].clone());
    assert!(!cli["items"].as_array().unwrap().is_empty(), "{cli}");
    assert_eq!(items(&cli), items(&tool), "context: CLI and MCP");
    assert_eq!(items(&cli), items(&rest), "context: CLI and REST");
    for key in ["budget", "tokens", "visible", "omitted", "project", "topic"] {
        assert_eq!(cli[key], tool[key], "context {key}: CLI and MCP");
        assert_eq!(cli[key], rest[key], "context {key}: CLI and REST");
    }

    let query = "which crane lifts the containers?";
    let cli = env.json(&["recall", query]);
    let tool = mcp.tool("recall", json!({ "query": query }));
    let (status, rest) = server.call(&key, "POST", "/v1/recall", Some(&json!({ "query": query })));
    assert_eq!(status, 200, "{rest}");
    let ids = |v: &Value| -> Vec<Value> {
        v["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].clone())
            .collect()
    };
    assert!(!ids(&cli).is_empty(), "{cli}");
    assert_eq!(ids(&cli), ids(&tool), "recall: CLI and MCP");
    assert_eq!(ids(&cli), ids(&rest), "recall: CLI and REST");
    assert_eq!(settled(cli.clone()), settled(tool));
    assert_eq!(settled(cli), settled(rest));
}

#[test]
fn zero_mode_set_through_one_front_end_holds_on_the_others() {
    let env = Env::new();
    env.ok(&["slot", "save", "notes", "kept before zero mode"]);
    let key = write_key(&env);
    let server = Server::start(&env);
    let mut mcp = McpProcess::start_in(&env, None);

    // MCP turns it on for every slot: the CLI and REST are refused.
    let on = mcp.tool("slot", json!({"action": "zero", "on": true}));
    assert_eq!(on["result"], json!({"zero": true, "slot": null}), "{on}");
    let out = env.run(&["slot", "save", "notes", "refused by the CLI"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("zero mode is on"));
    let (status, body) = server.call(
        &key,
        "POST",
        "/v1/slots/notes/entries",
        Some(&json!({"text": "refused over REST"})),
    );
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["error"]["code"], "invalid_input", "{body}");

    // REST turns it off: MCP saves again, and REST answers as the CLI does.
    let (status, off) = server.call(&key, "PUT", "/v1/zero-mode", Some(&json!({ "on": false })));
    assert_eq!(status, 200, "{off}");
    assert_eq!(off, env.json(&["slot", "zero", "off"]));
    mcp.tool(
        "slot",
        json!({"action": "save", "name": "notes", "text": "taken again"}),
    );

    // One slot's zero mode, through REST, refuses only that slot's saves.
    let (status, one) = server.call(
        &key,
        "PUT",
        "/v1/zero-mode",
        Some(&json!({"on": true, "slot": "notes"})),
    );
    assert_eq!(status, 200, "{one}");
    assert_eq!(one, json!({"zero": true, "slot": "notes"}));
    assert!(!env.run(&["slot", "save", "notes", "no"]).status.success());
    env.ok(&["slot", "save", "other", "another slot is not paused"]);
    let read = env.json(&["slot", "read", "notes"]);
    let texts: Vec<&str> = read["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["memory"]["content"].as_str().unwrap())
        .collect();
    assert_eq!(texts, ["kept before zero mode", "taken again"], "{read}");
}
