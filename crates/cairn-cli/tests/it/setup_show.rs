//! `cairn setup generic --show` prints the server entry asked for, not the
//! instructions file before it.

use crate::Env;

#[test]
fn setup_generic_show_prints_only_the_server_entry() {
    let env = Env::new();
    let dir = env.dir.path().join("proj");
    std::fs::create_dir_all(&dir).unwrap();
    let d = dir.display().to_string();
    let out = env.ok(&[
        "setup",
        "generic",
        "--show",
        "--dir",
        &d,
        "--command",
        "cairn",
    ]);
    assert!(out.contains("\"mcpServers\""), "{out}");
    assert!(
        !out.contains("Recall before acting"),
        "the protocol printed:\n{out}"
    );
    assert!(!out.contains("==>"), "{out}");
    assert!(
        out.lines().count() <= 15,
        "{} lines:\n{out}",
        out.lines().count()
    );
    assert!(
        out.contains("AGENTS.md"),
        "says what else setup writes: {out}"
    );
    assert!(!dir.join("AGENTS.md").exists(), "--show writes nothing");
}
