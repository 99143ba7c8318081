//! A CLI flag left out means the core's default: `cairn list` and the MCP
//! `list` tool with no limit, offset or order answer the same page (the CLI
//! once paged 50 where the core, MCP and REST page 20), and so do `cairn
//! recall` and the `recall` tool with no limit.

use serde_json::json;

use crate::same_json::McpProcess;
use crate::Env;

#[test]
fn list_and_recall_with_every_default_left_out_answer_as_mcp_does() {
    let env = Env::new();
    // More memories than any page size a front end might pick.
    let lines: String = (0..60)
        .map(|i| format!("{{\"content\":\"harbour note number {i} about crane {i}\"}}\n"))
        .collect();
    let out = env.run_with(&["import", "-"], Some(&lines));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut mcp = McpProcess::start_in(&env, None);

    let cli = env.json(&["list"]);
    let tool = mcp.tool("list", json!({}));
    assert_eq!(
        cli["memories"].as_array().unwrap().len(),
        tool["memories"].as_array().unwrap().len(),
        "cairn list and the MCP list tool page differently"
    );
    assert_eq!(cli, tool);
    assert!(cli["memories"].as_array().unwrap().len() < 60, "{cli}");

    let cli = env.json(&["recall", "harbour crane", "--mode", "keyword"]);
    let tool = mcp.tool(
        "recall",
        json!({"query": "harbour crane", "mode": "keyword"}),
    );
    assert_eq!(
        cli["results"].as_array().unwrap().len(),
        tool["results"].as_array().unwrap().len(),
        "cairn recall and the MCP recall tool return different numbers of results"
    );
}
