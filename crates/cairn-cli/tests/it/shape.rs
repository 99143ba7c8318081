//! The workspace's shape limits, checked so that a goal met once stays met:
//! no Rust file over 900 lines (tests included), no function over 150
//! lines unless its doc comment says why (it mentions "150 lines"),
//! `docs/ARCHITECTURE.md` at most 300 lines and `docs/BENCHMARKS.md` at
//! most 16 KB.

use std::path::{Path, PathBuf};

const MAX_FILE_LINES: usize = 900;
const MAX_FN_LINES: usize = 150;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every `.rs` file under `dir`, build output and dependencies aside.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy();
        if path.is_dir() {
            if !matches!(name.as_ref(), "target" | "node_modules" | ".venv")
                && !name.starts_with('.')
            {
                rust_files(&path, out);
            }
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

/// Whether `line` opens a function (`fn`, with any visibility and
/// qualifiers before it).
fn opens_fn(line: &str) -> bool {
    let mut words = line.split_whitespace();
    for word in words.by_ref() {
        match word {
            "fn" => return true,
            "pub" | "async" | "const" | "unsafe" | "extern" | "default" => {}
            w if w.starts_with("pub(") || w.starts_with('"') => {}
            _ => return false,
        }
    }
    false
}

/// The functions of `text` longer than [`MAX_FN_LINES`], as (first line,
/// length), skipping those whose doc comment gives the reason. A body ends
/// at the first line that is a `}` at the indentation of its `fn`.
fn long_functions(text: &str) -> Vec<(usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut long = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if !opens_fn(line) {
            continue;
        }
        // A signature that ends in `;` before any `{` (a trait's required
        // method) has no body.
        let signature_end = lines[i..]
            .iter()
            .find(|l| l.contains('{') || l.trim_end().ends_with(';'));
        let Some(signature_end) = signature_end.filter(|l| l.contains('{')) else {
            continue;
        };
        // A body closed on its own line (`fn id(&self) -> u64 { self.id }`).
        if signature_end.matches('{').count() == signature_end.matches('}').count() {
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        let close = format!("{}}}", " ".repeat(indent));
        let Some(len) = lines[i..].iter().position(|l| *l == close) else {
            continue;
        };
        let reasoned = lines[..i]
            .iter()
            .rev()
            .take_while(|l| l.trim_start().starts_with("///") || l.trim_start().starts_with("#["))
            .any(|l| l.contains("150 lines"));
        if len + 1 > MAX_FN_LINES && !reasoned {
            long.push((i + 1, len + 1));
        }
    }
    long
}

#[test]
fn no_rust_file_or_function_outgrows_its_limit() {
    let root = root();
    let mut files = Vec::new();
    rust_files(&root.join("crates"), &mut files);
    assert!(files.len() > 100, "found only {} Rust files", files.len());
    let mut over = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let shown = path.strip_prefix(&root).unwrap().display().to_string();
        let lines = text.lines().count();
        if lines > MAX_FILE_LINES {
            over.push(format!("{shown}: {lines} lines (limit {MAX_FILE_LINES})"));
        }
        for (at, len) in long_functions(&text) {
            over.push(format!(
                "{shown}:{at}: a function of {len} lines (limit {MAX_FN_LINES})"
            ));
        }
    }
    assert!(over.is_empty(), "split these:\n{}", over.join("\n"));
}

#[test]
fn the_docs_stay_within_their_size() {
    let root = root();
    let architecture = std::fs::read_to_string(root.join("docs/ARCHITECTURE.md")).unwrap();
    let lines = architecture.lines().count();
    assert!(
        lines <= 300,
        "docs/ARCHITECTURE.md has {lines} lines (limit 300)"
    );
    let benchmarks = std::fs::metadata(root.join("docs/BENCHMARKS.md"))
        .unwrap()
        .len();
    assert!(
        benchmarks <= 16 * 1024,
        "docs/BENCHMARKS.md is {benchmarks} bytes (limit 16 KB)"
    );
}

#[test]
fn the_function_measure_finds_a_long_body_and_spares_a_reasoned_one() {
    let body = "    let x = 1;\n".repeat(MAX_FN_LINES);
    let long = format!("pub(crate) async fn f() {{\n{body}}}\n");
    assert_eq!(long_functions(&long), vec![(1, MAX_FN_LINES + 2)]);
    let reasoned = format!("/// Longer than the 150 lines: a table.\n{long}");
    assert!(long_functions(&reasoned).is_empty());
    let short = "fn g() {\n    1\n}\n";
    assert!(long_functions(short).is_empty());
    let one_line = format!("impl S {{\n    fn id(&self) -> u64 {{ 1 }}\n{body}    }}\n}}\n");
    assert!(long_functions(&one_line).is_empty());
    let required = format!("trait T {{\n    fn h(&self);\n{body}}}\n");
    assert!(long_functions(&required).is_empty());
}
