//! The README's "Try it" block, run as written on a fresh store, so the
//! front page cannot drift from the product. The block runs in bash with the
//! built `cairn` first on `PATH`; only three things differ from a reader's
//! shell: the set-up line is skipped (the binary is already built), the
//! server listens on a free port instead of 7878, and the test waits for it
//! to be ready before the next line.

use std::net::TcpListener;
use std::path::Path;
use std::process::Command;

/// The lines between the `try-it` markers of README.md, without the fence.
fn try_it_block() -> String {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"))
            .expect("README.md");
    let start = readme
        .find("<!-- try-it")
        .expect("README.md has a <!-- try-it --> block");
    let end = readme.find("<!-- /try-it -->").expect("the block ends");
    let block = &readme[start..end];
    let body = block
        .split_once("```sh\n")
        .and_then(|(_, rest)| rest.rsplit_once("```"))
        .map(|(body, _)| body)
        .expect("a ```sh fence inside the try-it block");
    body.to_string()
}

#[test]
fn the_readme_try_it_block_runs_as_written() {
    let block = try_it_block();
    assert!(block.contains("cairn remember"), "{block}");
    assert!(block.contains("cairn serve &"), "{block}");
    assert!(block.contains("/v1/recall"), "{block}");

    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let wait = format!(
        "for _ in $(seq 300); do curl -sf 127.0.0.1:{port}/readyz >/dev/null && break; sleep 0.2; done"
    );
    let mut script =
        String::from("set -euo pipefail\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n");
    for line in block.lines() {
        let line = line.replace("7878", &port.to_string());
        if line.starts_with("scripts/quickstart.sh") {
            continue;
        }
        if line.starts_with("cairn serve &") {
            script.push_str(&line.replacen(
                "cairn serve &",
                &format!("cairn serve --listen 127.0.0.1:{port} &"),
                1,
            ));
            script.push('\n');
            script.push_str(&wait);
            script.push('\n');
            continue;
        }
        script.push_str(&line);
        script.push('\n');
    }

    let dir = tempfile::tempdir().unwrap();
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_cairn")).parent().unwrap();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap());
    let out = Command::new("bash")
        .arg("-c")
        .arg(&script)
        .current_dir(dir.path())
        .env("PATH", path)
        .env("CAIRN_DB", dir.path().join("cairn.db"))
        .env_remove("CAIRN_STORE")
        .env_remove("CAIRN_PROJECT")
        .env("NO_COLOR", "1")
        .output()
        .expect("bash");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the README's block failed:\n{script}\n--- stdout\n{stdout}\n--- stderr\n{stderr}"
    );
    // The REST recall, through a key made without --tenant, finds what
    // the CLI remembered.
    let at = stdout
        .find("{\"results\"")
        .unwrap_or_else(|| panic!("no REST answer in:\n{stdout}\n--- stderr\n{stderr}"));
    let answer: serde_json::Value = serde_json::Deserializer::from_str(&stdout[at..])
        .into_iter()
        .next()
        .expect("a JSON answer")
        .expect("valid JSON");
    let first = answer["results"][0]["content"].as_str().unwrap_or_default();
    assert!(
        first.contains("db-stage-2"),
        "the REST recall missed it: {answer}"
    );
    assert!(
        dir.path().join(".mcp.json").exists(),
        "setup wrote .mcp.json"
    );
}
