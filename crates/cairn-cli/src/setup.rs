//! `cairn setup TOOL`: register Cairn's MCP server in an agent tool's
//! configuration and put the memory protocol into the project's agent
//! instructions file.
//!
//! Every change is an edit, never an overwrite: configuration files are
//! parsed (JSON, or TOML with `toml_edit`, which keeps formatting and
//! comments), only Cairn's own entry is added, and the original is kept
//! beside the file (`FILE.cairn-backup`, or an empty `FILE.cairn-absent`
//! when there was no file). Running setup twice changes nothing. `--undo`
//! restores the original byte for byte when the file was not edited since;
//! otherwise it removes only Cairn's entry.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _, Result};
use serde_json::{json, Map, Value};

/// The agent tools `setup` knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Tool {
    /// Claude Code: `.mcp.json`, a SessionStart hook in
    /// `.claude/settings.json`, and `CLAUDE.md`.
    ClaudeCode,
    /// Cursor: `.cursor/mcp.json` and `AGENTS.md`.
    Cursor,
    /// OpenAI Codex CLI: `~/.codex/config.toml` and `AGENTS.md`.
    Codex,
    /// Any other MCP client: `AGENTS.md`, and the server entry printed.
    Generic,
}

/// The name of Cairn's entry in MCP server lists.
pub const SERVER_NAME: &str = "cairn";
/// First line of the block written into instruction files.
pub const BLOCK_START: &str =
    "<!-- cairn:start (written by `cairn setup`; `cairn setup ... --undo` removes it) -->";
/// Last line of that block.
pub const BLOCK_END: &str = "<!-- cairn:end -->";

/// How to start the server, as an agent tool should.
#[derive(Debug, Clone)]
pub struct ServerCommand {
    /// The `cairn` executable.
    pub command: String,
    /// Extra environment (the store, when one was chosen explicitly).
    pub env: Vec<(String, String)>,
}

/// Where to write.
#[derive(Debug, Clone)]
pub struct Targets {
    /// The MCP server configuration file (none for `generic`).
    pub config: Option<PathBuf>,
    /// Claude Code's settings file holding the SessionStart hook.
    pub hooks: Option<PathBuf>,
    /// The agent instructions file.
    pub instructions: PathBuf,
}

impl Targets {
    /// The default files of `tool` for a project in `dir`; `config`
    /// overrides the MCP configuration file, `home` is where Codex keeps
    /// its configuration.
    pub fn for_tool(tool: Tool, dir: &Path, config: Option<PathBuf>, home: &Path) -> Self {
        match tool {
            Tool::ClaudeCode => Targets {
                config: Some(config.unwrap_or_else(|| dir.join(".mcp.json"))),
                hooks: Some(dir.join(".claude").join("settings.json")),
                instructions: dir.join("CLAUDE.md"),
            },
            Tool::Cursor => Targets {
                config: Some(config.unwrap_or_else(|| dir.join(".cursor").join("mcp.json"))),
                hooks: None,
                instructions: dir.join("AGENTS.md"),
            },
            Tool::Codex => Targets {
                config: Some(config.unwrap_or_else(|| {
                    std::env::var_os("CODEX_HOME")
                        .map(PathBuf::from)
                        .unwrap_or_else(|| home.join(".codex"))
                        .join("config.toml")
                })),
                hooks: None,
                instructions: dir.join("AGENTS.md"),
            },
            Tool::Generic => Targets {
                config,
                hooks: None,
                instructions: dir.join("AGENTS.md"),
            },
        }
    }
}

/// One file's edit: add Cairn's part to a text, or take it out.
trait Edit {
    /// The text with Cairn's part (unchanged if it is there already).
    fn add(&self, original: Option<&str>) -> Result<String>;
    /// The text without Cairn's part.
    fn remove(&self, current: &str) -> Result<String>;
}

/// The server entry as MCP clients' JSON configuration writes it.
fn server_json(cmd: &ServerCommand) -> Value {
    let mut entry = json!({"command": cmd.command, "args": ["mcp"]});
    if !cmd.env.is_empty() {
        let env: Map<String, Value> = cmd
            .env
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect();
        entry["env"] = Value::Object(env);
    }
    entry
}

fn parse_json_object(text: Option<&str>) -> Result<Map<String, Value>> {
    match text.map(str::trim) {
        None | Some("") => Ok(Map::new()),
        Some(t) => match serde_json::from_str::<Value>(t) {
            Ok(Value::Object(o)) => Ok(o),
            Ok(_) => bail!("not a JSON object; fix or move the file, then run setup again"),
            Err(e) => bail!("not valid JSON ({e}); fix or move the file, then run setup again"),
        },
    }
}

fn json_text(v: &Map<String, Value>) -> Result<String> {
    Ok(serde_json::to_string_pretty(v)? + "\n")
}

/// `{"mcpServers": {"cairn": {...}}}` in a JSON file.
struct JsonServer(Value);

impl Edit for JsonServer {
    fn add(&self, original: Option<&str>) -> Result<String> {
        let mut root = parse_json_object(original)?;
        let servers = root
            .entry("mcpServers")
            .or_insert_with(|| Value::Object(Map::new()));
        let Value::Object(servers) = servers else {
            bail!("`mcpServers` is not an object");
        };
        if servers.get(SERVER_NAME) == Some(&self.0) {
            return Ok(original.unwrap_or_default().to_string());
        }
        servers.insert(SERVER_NAME.into(), self.0.clone());
        json_text(&root)
    }

    fn remove(&self, current: &str) -> Result<String> {
        let mut root = parse_json_object(Some(current))?;
        if let Some(Value::Object(servers)) = root.get_mut("mcpServers") {
            if servers.remove(SERVER_NAME).is_none() {
                return Ok(current.to_string());
            }
            if servers.is_empty() {
                root.remove("mcpServers");
            }
        } else {
            return Ok(current.to_string());
        }
        json_text(&root)
    }
}

/// Claude Code's SessionStart hook that injects `cairn context`.
struct ClaudeHook(String);

impl ClaudeHook {
    fn entry(&self) -> Value {
        json!({"matcher": "startup|resume|clear|compact", "hooks": [{"type": "command", "command": self.0}]})
    }

    fn is_ours(&self, v: &Value) -> bool {
        v.get("hooks").and_then(Value::as_array).is_some_and(|hs| {
            hs.iter().any(|h| {
                h.get("command")
                    .and_then(Value::as_str)
                    .is_some_and(|c| c == self.0)
            })
        })
    }
}

impl Edit for ClaudeHook {
    fn add(&self, original: Option<&str>) -> Result<String> {
        let mut root = parse_json_object(original)?;
        let hooks = root
            .entry("hooks")
            .or_insert_with(|| Value::Object(Map::new()));
        let Value::Object(hooks) = hooks else {
            bail!("`hooks` is not an object");
        };
        let start = hooks
            .entry("SessionStart")
            .or_insert_with(|| Value::Array(Vec::new()));
        let Value::Array(start) = start else {
            bail!("`hooks.SessionStart` is not an array");
        };
        if start.iter().any(|v| self.is_ours(v)) {
            return Ok(original.unwrap_or_default().to_string());
        }
        start.push(self.entry());
        json_text(&root)
    }

    fn remove(&self, current: &str) -> Result<String> {
        let mut root = parse_json_object(Some(current))?;
        let Some(Value::Object(hooks)) = root.get_mut("hooks") else {
            return Ok(current.to_string());
        };
        let Some(Value::Array(start)) = hooks.get_mut("SessionStart") else {
            return Ok(current.to_string());
        };
        let before = start.len();
        start.retain(|v| !self.is_ours(v));
        if start.len() == before {
            return Ok(current.to_string());
        }
        if start.is_empty() {
            hooks.remove("SessionStart");
        }
        if hooks.is_empty() {
            root.remove("hooks");
        }
        json_text(&root)
    }
}

/// `[mcp_servers.cairn]` in Codex's `config.toml`, edited with `toml_edit`
/// so that the user's comments and layout stay as they are.
struct TomlServer(ServerCommand);

impl TomlServer {
    fn table(&self) -> toml_edit::Table {
        let mut t = toml_edit::Table::new();
        t["command"] = toml_edit::value(self.0.command.clone());
        let mut args = toml_edit::Array::new();
        args.push("mcp");
        t["args"] = toml_edit::value(args);
        if !self.0.env.is_empty() {
            let mut env = toml_edit::InlineTable::new();
            for (k, v) in &self.0.env {
                env.insert(k, v.as_str().into());
            }
            t["env"] = toml_edit::value(env);
        }
        t
    }
}

fn parse_toml(text: &str) -> Result<toml_edit::DocumentMut> {
    text.parse::<toml_edit::DocumentMut>()
        .map_err(|e| anyhow::anyhow!("not valid TOML ({e}); fix the file, then run setup again"))
}

impl Edit for TomlServer {
    fn add(&self, original: Option<&str>) -> Result<String> {
        let text = original.unwrap_or_default();
        let mut doc = parse_toml(text)?;
        let wanted = self.table();
        if doc
            .get("mcp_servers")
            .and_then(|s| s.get(SERVER_NAME))
            .and_then(|t| t.as_table())
            .is_some_and(|t| t.to_string() == wanted.to_string())
        {
            return Ok(text.to_string());
        }
        if doc.get("mcp_servers").is_none() {
            let mut servers = toml_edit::Table::new();
            servers.set_implicit(true);
            doc["mcp_servers"] = toml_edit::Item::Table(servers);
        }
        let Some(servers) = doc["mcp_servers"].as_table_mut() else {
            bail!("`mcp_servers` is not a table");
        };
        servers.insert(SERVER_NAME, toml_edit::Item::Table(wanted));
        let mut out = doc.to_string();
        if !text.is_empty() && !text.ends_with('\n') {
            out.insert(text.len(), '\n');
        }
        Ok(out)
    }

    fn remove(&self, current: &str) -> Result<String> {
        let mut doc = parse_toml(current)?;
        let Some(servers) = doc.get_mut("mcp_servers").and_then(|s| s.as_table_mut()) else {
            return Ok(current.to_string());
        };
        if servers.remove(SERVER_NAME).is_none() {
            return Ok(current.to_string());
        }
        if servers.is_empty() && servers.is_implicit() {
            doc.remove("mcp_servers");
        }
        Ok(doc.to_string())
    }
}

/// The memory protocol between markers at the end of a Markdown file.
struct InstructionsBlock;

fn block() -> String {
    format!(
        "{BLOCK_START}\n{}\n{BLOCK_END}\n",
        cairn_mcp::help::PROTOCOL.trim_end()
    )
}

impl Edit for InstructionsBlock {
    fn add(&self, original: Option<&str>) -> Result<String> {
        let text = original.unwrap_or_default();
        if let Some(start) = text.find(BLOCK_START) {
            // Replace an older version of the block in place.
            let end = text[start..]
                .find(BLOCK_END)
                .map(|e| start + e + BLOCK_END.len())
                .context("the cairn block in the instructions file has no end marker")?;
            let end = if text[end..].starts_with('\n') {
                end + 1
            } else {
                end
            };
            return Ok(format!("{}{}{}", &text[..start], block(), &text[end..]));
        }
        let sep = match text {
            "" => "",
            t if t.ends_with("\n\n") => "",
            t if t.ends_with('\n') => "\n",
            _ => "\n\n",
        };
        Ok(format!("{text}{sep}{}", block()))
    }

    fn remove(&self, current: &str) -> Result<String> {
        let Some(start) = current.find(BLOCK_START) else {
            return Ok(current.to_string());
        };
        let end = current[start..]
            .find(BLOCK_END)
            .map(|e| start + e + BLOCK_END.len())
            .context("the cairn block in the instructions file has no end marker")?;
        let end = if current[end..].starts_with('\n') {
            end + 1
        } else {
            end
        };
        let head = current[..start].trim_end_matches('\n');
        let tail = &current[end..];
        Ok(match (head.is_empty(), tail.is_empty()) {
            (true, _) => tail.to_string(),
            (false, true) => format!("{head}\n"),
            (false, false) => format!("{head}\n\n{tail}"),
        })
    }
}

fn backup_path(file: &Path) -> PathBuf {
    let mut name = file.file_name().unwrap_or_default().to_os_string();
    name.push(".cairn-backup");
    file.with_file_name(name)
}

fn absent_marker(file: &Path) -> PathBuf {
    let mut name = file.file_name().unwrap_or_default().to_os_string();
    name.push(".cairn-absent");
    file.with_file_name(name)
}

fn read(file: &Path) -> Result<Option<String>> {
    match fs::read_to_string(file) {
        Ok(t) => Ok(Some(t)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("reading {}", file.display())),
    }
}

/// Write by temporary file and rename, so a crash never leaves half a file.
fn write(file: &Path, text: &str) -> Result<()> {
    if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let mut tmp_name = file.file_name().unwrap_or_default().to_os_string();
    tmp_name.push(format!(".cairn-tmp-{}", std::process::id()));
    let tmp = file.with_file_name(tmp_name);
    fs::write(&tmp, text).with_context(|| format!("writing {}", tmp.display()))?;
    fs::rename(&tmp, file).with_context(|| format!("writing {}", file.display()))
}

/// What happened to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// It already had Cairn's part (setup) or had none (undo).
    Unchanged,
    /// Written.
    Written,
    /// Restored exactly as it was before setup.
    Restored,
    /// Cairn's part removed (the file had been edited since setup).
    Removed,
    /// Deleted (setup had created it).
    Deleted,
}

fn apply(file: &Path, edit: &dyn Edit) -> Result<Change> {
    let original = read(file)?;
    let new = edit
        .add(original.as_deref())
        .with_context(|| format!("editing {}", file.display()))?;
    if original.as_deref() == Some(new.as_str()) {
        return Ok(Change::Unchanged);
    }
    if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let (backup, absent) = (backup_path(file), absent_marker(file));
    if !backup.exists() && !absent.exists() {
        match &original {
            Some(t) => fs::write(&backup, t),
            None => fs::write(&absent, ""),
        }
        .with_context(|| format!("keeping a backup of {}", file.display()))?;
    }
    write(file, &new)?;
    Ok(Change::Written)
}

fn undo(file: &Path, edit: &dyn Edit) -> Result<Change> {
    let Some(current) = read(file)? else {
        let _ = fs::remove_file(absent_marker(file));
        return Ok(Change::Unchanged);
    };
    let (backup, absent) = (backup_path(file), absent_marker(file));
    if absent.exists() && edit.add(None)? == current {
        fs::remove_file(file)?;
        fs::remove_file(&absent)?;
        return Ok(Change::Deleted);
    }
    if let Some(orig) = read(&backup)? {
        if edit.add(Some(&orig))? == current {
            write(file, &orig)?;
            fs::remove_file(&backup)?;
            return Ok(Change::Restored);
        }
    }
    let new = edit
        .remove(&current)
        .with_context(|| format!("editing {}", file.display()))?;
    if new == current {
        return Ok(Change::Unchanged);
    }
    write(file, &new)?;
    Ok(Change::Removed)
}

/// The command of Claude Code's SessionStart hook.
pub fn hook_command(cmd: &ServerCommand) -> String {
    let mut s = String::new();
    for (k, v) in &cmd.env {
        s += &format!("{k}={} ", shell_quote(v));
    }
    s + &format!(
        "{} context --auto-project --budget 1500",
        shell_quote(&cmd.command)
    )
}

fn shell_quote(s: &str) -> String {
    if s.chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+=:,".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

fn edits(tool: Tool, targets: &Targets, cmd: &ServerCommand) -> Vec<(PathBuf, Box<dyn Edit>)> {
    let mut out: Vec<(PathBuf, Box<dyn Edit>)> = Vec::new();
    if let Some(config) = &targets.config {
        let edit: Box<dyn Edit> = match tool {
            Tool::Codex => Box::new(TomlServer(cmd.clone())),
            _ if config.extension().is_some_and(|e| e == "toml") => {
                Box::new(TomlServer(cmd.clone()))
            }
            _ => Box::new(JsonServer(server_json(cmd))),
        };
        out.push((config.clone(), edit));
    }
    if let Some(hooks) = &targets.hooks {
        out.push((hooks.clone(), Box::new(ClaudeHook(hook_command(cmd)))));
    }
    out.push((targets.instructions.clone(), Box::new(InstructionsBlock)));
    out
}

/// Set up (or with `undo`, take out) Cairn for `tool`; returns each file
/// and what happened to it.
pub fn run(
    tool: Tool,
    targets: &Targets,
    cmd: &ServerCommand,
    undo_it: bool,
) -> Result<Vec<(PathBuf, Change)>> {
    let edits = edits(tool, targets, cmd);
    // Check every file first, so that a bad one changes nothing.
    for (file, edit) in &edits {
        let text = read(file)?;
        if undo_it {
            if let Some(t) = &text {
                edit.remove(t)
                    .with_context(|| format!("reading {}", file.display()))?;
            }
        } else {
            edit.add(text.as_deref())
                .with_context(|| format!("reading {}", file.display()))?;
        }
    }
    edits
        .iter()
        .map(|(file, edit)| {
            let change = if undo_it {
                undo(file, edit.as_ref())?
            } else {
                apply(file, edit.as_ref())?
            };
            Ok((file.clone(), change))
        })
        .collect()
}

/// What setup would write, for `--show`: each file and its new text.
pub fn show(tool: Tool, targets: &Targets, cmd: &ServerCommand) -> Result<Vec<(PathBuf, String)>> {
    let mut out = Vec::new();
    for (file, edit) in edits(tool, targets, cmd) {
        let text = read(&file)?;
        out.push((file, edit.add(text.as_deref())?));
    }
    if tool == Tool::Generic && targets.config.is_none() {
        let mut servers = Map::new();
        servers.insert(SERVER_NAME.into(), server_json(cmd));
        out.push((
            PathBuf::from("(your MCP client's configuration)"),
            serde_json::to_string_pretty(&json!({ "mcpServers": servers }))? + "\n",
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd() -> ServerCommand {
        ServerCommand {
            command: "cairn".into(),
            env: vec![],
        }
    }

    #[test]
    fn toml_keeps_comments_and_undo_removes_only_ours() {
        let original =
            "# my settings\nmodel = \"o3\"  # keep\n\n[mcp_servers.other]\ncommand = \"x\"\n";
        let e = TomlServer(cmd());
        let added = e.add(Some(original)).unwrap();
        assert!(added.starts_with(original), "{added}");
        assert!(added.contains("[mcp_servers.cairn]"), "{added}");
        assert_eq!(e.add(Some(&added)).unwrap(), added);
        assert_eq!(e.remove(&added).unwrap(), original);
    }

    #[test]
    fn instructions_block_round_trips() {
        for original in ["", "# Project\n", "# Project\n\nText", "x\n\n"] {
            let added = InstructionsBlock.add(Some(original)).unwrap();
            assert!(added.contains(BLOCK_START));
            assert_eq!(InstructionsBlock.add(Some(&added)).unwrap(), added);
            let removed = InstructionsBlock.remove(&added).unwrap();
            assert_eq!(removed.trim_end(), original.trim_end(), "{original:?}");
        }
    }

    #[test]
    fn json_keeps_other_servers() {
        let original = r#"{"mcpServers": {"other": {"command": "x"}}, "theme": "dark"}"#;
        let e = JsonServer(server_json(&cmd()));
        let added = e.add(Some(original)).unwrap();
        let v: Value = serde_json::from_str(&added).unwrap();
        assert_eq!(v["mcpServers"]["other"]["command"], "x");
        assert_eq!(v["theme"], "dark");
        assert_eq!(v["mcpServers"]["cairn"]["args"][0], "mcp");
        let removed: Value = serde_json::from_str(&e.remove(&added).unwrap()).unwrap();
        assert_eq!(removed, serde_json::from_str::<Value>(original).unwrap());
    }

    #[test]
    fn bad_json_is_refused() {
        assert!(JsonServer(server_json(&cmd())).add(Some("{oops")).is_err());
    }
}
