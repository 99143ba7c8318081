//! `cairn setup` and `cairn init` against sample configuration files: user
//! settings survive, a second run changes nothing, `--undo` restores every
//! file byte for byte.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::Env;

const USER_MCP_JSON: &str = r#"{
  "mcpServers": {
    "github": { "command": "gh-mcp", "args": ["--stdio"], "env": { "GH_TOKEN": "x" } }
  },
  "someUserSetting": [1, 2, 3]
}
"#;

const USER_CLAUDE_SETTINGS: &str = r#"{"permissions": {"allow": ["Bash(ls:*)"]}, "hooks": {"SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hi"}]}]}}"#;

const USER_CODEX_TOML: &str = "# my codex settings\nmodel = \"o3\" # the model I like\napproval_policy = \"on-request\"\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\nargs = [\"serve\"]\n";

const USER_CLAUDE_MD: &str = "# My project\n\nUse 4 spaces.\n";

fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p.clone());
                out.push((p.strip_prefix(dir).unwrap().display().to_string(), vec![]));
            } else {
                out.push((
                    p.strip_prefix(dir).unwrap().display().to_string(),
                    fs::read(&p).unwrap(),
                ));
            }
        }
    }
    out.sort();
    out
}

fn setup(env: &Env, dir: &Path, args: &[&str]) -> String {
    let mut all = vec!["setup"];
    all.extend_from_slice(args);
    let d = dir.display().to_string();
    all.extend_from_slice(&["--dir", &d, "--command", "cairn"]);
    env.ok(&all)
}

#[test]
fn claude_code_keeps_user_settings_is_idempotent_and_undoes_byte_for_byte() {
    let env = Env::new();
    let dir = env.dir.path().join("proj");
    fs::create_dir_all(dir.join(".claude")).unwrap();
    fs::write(dir.join(".mcp.json"), USER_MCP_JSON).unwrap();
    fs::write(dir.join(".claude/settings.json"), USER_CLAUDE_SETTINGS).unwrap();
    fs::write(dir.join("CLAUDE.md"), USER_CLAUDE_MD).unwrap();
    let before = snapshot(&dir);

    setup(&env, &dir, &["claude-code"]);
    let mcp: Value = serde_json::from_slice(&fs::read(dir.join(".mcp.json")).unwrap()).unwrap();
    assert_eq!(mcp["mcpServers"]["github"]["env"]["GH_TOKEN"], "x");
    assert_eq!(mcp["someUserSetting"], serde_json::json!([1, 2, 3]));
    assert_eq!(mcp["mcpServers"]["cairn"]["command"], "cairn");
    assert_eq!(
        mcp["mcpServers"]["cairn"]["args"],
        serde_json::json!(["mcp"])
    );
    let settings: Value =
        serde_json::from_slice(&fs::read(dir.join(".claude/settings.json")).unwrap()).unwrap();
    assert_eq!(settings["permissions"]["allow"][0], "Bash(ls:*)");
    let start = settings["hooks"]["SessionStart"].as_array().unwrap();
    assert_eq!(start.len(), 2, "{settings}");
    assert_eq!(start[0]["hooks"][0]["command"], "echo hi");
    assert!(start[1]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .contains("context --auto-project"));
    let md = fs::read_to_string(dir.join("CLAUDE.md")).unwrap();
    assert!(md.starts_with(USER_CLAUDE_MD), "{md}");
    assert!(md.contains("Recall before acting"), "{md}");

    // Twice changes nothing.
    let once = snapshot(&dir);
    let out = setup(&env, &dir, &["claude-code"]);
    assert!(out.contains("already set up"), "{out}");
    assert_eq!(snapshot(&dir), once);

    // --show changes nothing either.
    let shown = setup(&env, &dir, &["claude-code", "--show"]);
    assert!(shown.contains("mcpServers"), "{shown}");
    assert_eq!(snapshot(&dir), once);

    setup(&env, &dir, &["claude-code", "--undo"]);
    assert_eq!(
        snapshot(&dir),
        before,
        "undo must restore every file byte for byte"
    );
    // Undo twice is harmless.
    setup(&env, &dir, &["claude-code", "--undo"]);
    assert_eq!(snapshot(&dir), before);
}

#[test]
fn files_that_did_not_exist_are_removed_again() {
    let env = Env::new();
    let dir = env.dir.path().join("empty");
    fs::create_dir_all(&dir).unwrap();
    setup(&env, &dir, &["cursor"]);
    let cfg: Value =
        serde_json::from_slice(&fs::read(dir.join(".cursor/mcp.json")).unwrap()).unwrap();
    assert_eq!(cfg["mcpServers"]["cairn"]["args"][0], "mcp");
    assert!(fs::read_to_string(dir.join("AGENTS.md"))
        .unwrap()
        .contains("cairn:start"));
    setup(&env, &dir, &["cursor", "--undo"]);
    let left: Vec<String> = snapshot(&dir)
        .into_iter()
        .map(|(p, _)| p)
        .filter(|p| !p.ends_with(".cursor"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn codex_toml_keeps_comments_and_undo_survives_later_user_edits() {
    let env = Env::new();
    let dir = env.dir.path().join("proj");
    fs::create_dir_all(&dir).unwrap();
    let config = env.dir.path().join("codex/config.toml");
    fs::create_dir_all(config.parent().unwrap()).unwrap();
    fs::write(&config, USER_CODEX_TOML).unwrap();
    let c = config.display().to_string();
    setup(&env, &dir, &["codex", "--config", &c]);
    let text = fs::read_to_string(&config).unwrap();
    assert!(text.starts_with(USER_CODEX_TOML), "{text}");
    assert!(text.contains("[mcp_servers.cairn]"), "{text}");
    assert!(text.contains("args = [\"mcp\"]"), "{text}");
    setup(&env, &dir, &["codex", "--config", &c]);
    assert_eq!(fs::read_to_string(&config).unwrap(), text);
    // The user edits the file after setup: undo removes only cairn's table.
    let edited = text.replace(
        "approval_policy = \"on-request\"",
        "approval_policy = \"never\"",
    );
    fs::write(&config, &edited).unwrap();
    setup(&env, &dir, &["codex", "--config", &c, "--undo"]);
    let after = fs::read_to_string(&config).unwrap();
    assert_eq!(
        after,
        USER_CODEX_TOML.replace(
            "approval_policy = \"on-request\"",
            "approval_policy = \"never\""
        )
    );
}

#[test]
fn broken_config_is_refused_and_nothing_is_written() {
    let env = Env::new();
    let dir = env.dir.path().join("proj");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join(".mcp.json"), "{ not json").unwrap();
    let before = snapshot(&dir);
    let d = dir.display().to_string();
    let out = env.run(&["setup", "claude-code", "--dir", &d, "--command", "cairn"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not valid JSON"));
    assert_eq!(snapshot(&dir), before);
}

#[test]
fn init_writes_the_project_file_that_context_detects() {
    let env = Env::new();
    let dir = env.dir.path().join("work");
    fs::create_dir_all(dir.join("sub")).unwrap();
    let d = dir.display().to_string();
    env.ok(&["init", "--project", "atlas", "--dir", &d]);
    assert!(fs::read_to_string(dir.join(".cairn"))
        .unwrap()
        .contains("project = \"atlas\""));
    env.ok(&[
        "remember",
        "Atlas ships on Thursdays",
        "--type",
        "rule",
        "--project",
        "atlas",
    ]);
    let mut c = env.cmd();
    c.args(["context", "--auto-project"])
        .current_dir(dir.join("sub"));
    let out = c.output().unwrap();
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(md.contains("Atlas ships on Thursdays"), "{md}");
}
