//! The lists `docs/ARCHITECTURE.md` states that the code also knows: the
//! CLI's commands (against `cairn --help`), the workspace's crates and the
//! workspace crates each depends on (against `crates/*/Cargo.toml`), and
//! `cairn-core`'s own dependencies. A failure says which line to change.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn architecture() -> String {
    std::fs::read_to_string(root().join("docs/ARCHITECTURE.md")).expect("docs/ARCHITECTURE.md")
}

/// The words in backquotes of `text`.
fn quoted(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// The Markdown list item that starts with `start`, continuation lines
/// included.
fn list_item(doc: &str, start: &str) -> String {
    let mut lines = doc.lines().skip_while(|l| !l.starts_with(start));
    let first = lines
        .next()
        .unwrap_or_else(|| panic!("docs/ARCHITECTURE.md has no line starting with {start:?}"));
    let mut item = first.to_string();
    for l in lines.take_while(|l| l.starts_with("  ")) {
        item.push(' ');
        item.push_str(l.trim());
    }
    item
}

/// What to add to and remove from a doc's list to make it `actual`.
fn difference(what: &str, documented: &BTreeSet<String>, actual: &BTreeSet<String>) -> String {
    let add: Vec<_> = actual.difference(documented).collect();
    let remove: Vec<_> = documented.difference(actual).collect();
    format!("{what}: add {add:?}, remove {remove:?}")
}

/// The subcommands `cairn --help` lists (clap's `help` aside).
fn cli_commands() -> BTreeSet<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_cairn"))
        .arg("--help")
        .env("COLUMNS", "200")
        .output()
        .expect("cairn --help runs");
    assert!(out.status.success(), "cairn --help failed");
    let help = String::from_utf8(out.stdout).unwrap();
    let section = help
        .split("Commands:\n")
        .nth(1)
        .expect("cairn --help has a Commands: section");
    section
        .lines()
        .take_while(|l| !l.trim().is_empty())
        // A command's line is indented two spaces; wrapped descriptions more.
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_string)
        .collect()
}

#[test]
fn the_architecture_lists_every_cli_command() {
    let item = list_item(&architecture(), "- **CLI commands**");
    let documented: BTreeSet<String> = quoted(&item)
        .into_iter()
        .filter(|c| c != "cairn --help")
        .collect();
    let actual = cli_commands();
    assert!(actual.len() > 10, "too few commands parsed: {actual:?}");
    assert_eq!(
        documented,
        actual,
        "{}",
        difference(
            "docs/ARCHITECTURE.md's \"- **CLI commands**\" line disagrees with `cairn --help`",
            &documented,
            &actual
        )
    );
}

/// The `[dependencies]` of a Cargo.toml: each name.
fn dependencies(manifest: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(manifest).expect("Cargo.toml");
    let mut names = BTreeSet::new();
    let mut in_deps = false;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_deps = line == "[dependencies]";
            continue;
        }
        if in_deps && !line.is_empty() && !line.starts_with('#') {
            let name = line.split(['=', '.', ' ']).next().unwrap().trim();
            names.insert(name.to_string());
        }
    }
    names
}

/// The workspace's crates: the directories under `crates/` with a manifest.
fn workspace_crates() -> BTreeSet<String> {
    std::fs::read_dir(root().join("crates"))
        .expect("crates/")
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("Cargo.toml").is_file())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect()
}

/// The code map's rows: each crate with the workspace crates its last
/// column names (`core` for `cairn-core`; "(feature)" marks an optional one).
fn code_map(doc: &str) -> Vec<(String, BTreeSet<String>)> {
    let start = doc
        .find("## Crates (code map)")
        .expect("docs/ARCHITECTURE.md has a \"## Crates (code map)\" section");
    doc[start..]
        .lines()
        .skip_while(|l| !l.starts_with("| `"))
        .take_while(|l| l.starts_with('|'))
        .map(|row| {
            let cells: Vec<&str> = row.trim_matches('|').split('|').map(str::trim).collect();
            let name = quoted(cells[0]).remove(0);
            let deps = cells
                .last()
                .unwrap()
                .split(',')
                .map(|d| d.split('(').next().unwrap().trim())
                .filter(|d| !d.is_empty() && *d != "—")
                .map(|d| format!("cairn-{d}"))
                .collect();
            (name, deps)
        })
        .collect()
}

#[test]
fn the_architecture_lists_every_crate_and_its_workspace_dependencies() {
    let doc = architecture();
    let rows = code_map(&doc);
    let documented: BTreeSet<String> = rows.iter().map(|(n, _)| n.clone()).collect();
    let actual = workspace_crates();
    assert_eq!(
        documented,
        actual,
        "{}",
        difference(
            "docs/ARCHITECTURE.md's code map (\"## Crates (code map)\") disagrees with crates/",
            &documented,
            &actual
        )
    );
    for (name, documented) in rows {
        let actual: BTreeSet<String> =
            dependencies(&root().join("crates").join(&name).join("Cargo.toml"))
                .into_iter()
                .filter(|d| d.starts_with("cairn-"))
                .collect();
        assert_eq!(
            documented,
            actual,
            "{}",
            difference(
                &format!(
                    "docs/ARCHITECTURE.md's code map row for `{name}` (last column, without \
                     the `cairn-` prefix) disagrees with crates/{name}/Cargo.toml's [dependencies]"
                ),
                &documented,
                &actual
            )
        );
    }
}

#[test]
fn the_architecture_lists_the_cores_dependencies() {
    let doc = architecture();
    let start = doc
        .find("`cairn-core`'s own dependencies:")
        .expect("docs/ARCHITECTURE.md has a \"`cairn-core`'s own dependencies:\" paragraph");
    let paragraph = doc[start..].split("\n\n").next().unwrap();
    let list = paragraph
        .split_once("dependencies:")
        .unwrap()
        .1
        .split(". ")
        .next()
        .unwrap();
    let list = list.split_whitespace().collect::<Vec<_>>().join(" ");
    let documented: BTreeSet<String> = list
        .replace(" and ", ", ")
        .split(',')
        .map(|d| d.split('(').next().unwrap().trim().to_string())
        .filter(|d| !d.is_empty())
        .collect();
    let actual = dependencies(&root().join("crates/cairn-core/Cargo.toml"));
    assert_eq!(
        documented,
        actual,
        "{}",
        difference(
            "docs/ARCHITECTURE.md's \"`cairn-core`'s own dependencies:\" paragraph disagrees \
             with crates/cairn-core/Cargo.toml's [dependencies]",
            &documented,
            &actual
        )
    );
}
