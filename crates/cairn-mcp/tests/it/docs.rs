//! The tool lists the docs state, against the tools the server offers:
//! `docs/ARCHITECTURE.md`'s "MCP tools" line (names and count) and the
//! `help` tool's "tools" topic. A failure says which text to change.

use std::collections::BTreeSet;
use std::path::Path;

use crate::Env;

/// The words in backquotes of `text`.
fn quoted(text: &str) -> BTreeSet<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// What to add to and remove from a doc's list to make it `actual`.
fn difference(what: &str, documented: &BTreeSet<String>, actual: &BTreeSet<String>) -> String {
    let add: Vec<_> = actual.difference(documented).collect();
    let remove: Vec<_> = documented.difference(actual).collect();
    format!("{what}: add {add:?}, remove {remove:?}")
}

async fn offered_tools() -> BTreeSet<String> {
    let env = Env::new();
    let client = env.client(None).await;
    let tools = client.list_all_tools().await.unwrap();
    tools.iter().map(|t| t.name.to_string()).collect()
}

#[tokio::test]
async fn the_architecture_lists_every_tool_with_their_count() {
    let actual = offered_tools().await;
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/ARCHITECTURE.md");
    let doc = std::fs::read_to_string(path).expect("docs/ARCHITECTURE.md");
    let start = "- **MCP tools** (";
    let line = doc
        .lines()
        .skip_while(|l| !l.starts_with(start))
        .take(1)
        .chain(
            doc.lines()
                .skip_while(|l| !l.starts_with(start))
                .skip(1)
                .take_while(|l| l.starts_with("  ")),
        )
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        !line.is_empty(),
        "docs/ARCHITECTURE.md has no line starting with {start:?}"
    );
    // The tool names come before the first full stop.
    let names = line.split(". ").next().unwrap();
    let documented = quoted(names);
    assert_eq!(
        documented,
        actual,
        "{}",
        difference(
            "docs/ARCHITECTURE.md's \"- **MCP tools** (N):\" line disagrees with the server's tools",
            &documented,
            &actual
        )
    );
    let count: usize = line[start.len()..]
        .split(')')
        .next()
        .unwrap()
        .parse()
        .expect("a number after \"- **MCP tools** (\"");
    assert_eq!(
        count,
        actual.len(),
        "docs/ARCHITECTURE.md's \"- **MCP tools** ({count}):\" should say ({})",
        actual.len()
    );
}

#[tokio::test]
async fn the_help_topic_lists_every_tool() {
    let actual = offered_tools().await;
    let topic = cairn_mcp::help::topic("tools").expect("the tools topic");
    let documented: BTreeSet<String> = topic
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| tool"))
        .filter_map(|l| l.trim_start_matches("| ").split(" |").next())
        .map(str::to_string)
        .collect();
    assert_eq!(
        documented,
        actual,
        "{}",
        difference(
            "the table of crates/cairn-mcp/src/help.rs's TOOLS topic disagrees with the server's tools",
            &documented,
            &actual
        )
    );
}
