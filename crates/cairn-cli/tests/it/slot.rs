//! `cairn slot` through the real binary: the stable CLI contract, export
//! formats against fixtures, archive and recall, zero mode, bad names.

use crate::Env;

/// An export with its times (`2026-11-25T18:07:52.885Z`) replaced by
/// `<T>`: they change every run.
fn without_times(text: &str) -> String {
    const LEN: usize = "2026-11-25T18:07:52.885Z".len();
    let is_time = |w: &[u8]| {
        w.len() == LEN
            && w.iter().enumerate().all(|(i, c)| match i {
                4 | 7 => *c == b'-',
                10 => *c == b'T',
                13 | 16 => *c == b':',
                19 => *c == b'.',
                23 => *c == b'Z',
                _ => c.is_ascii_digit(),
            })
    };
    let bytes = text.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    while i < bytes.len() {
        if i + LEN <= bytes.len() && is_time(&bytes[i..i + LEN]) {
            out.push_str("<T>");
            i += LEN;
        } else {
            let c = text[i..].chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/slots")
            .join(name),
    )
    .unwrap()
}

#[test]
fn the_slot_contract_and_its_exports() {
    let env = Env::new();
    env.ok(&[
        "slot",
        "create",
        "atlas-dev",
        "--description",
        "Development of Atlas",
        "--group",
        "projects/atlas",
        "--tag",
        "infra",
    ]);
    let saved = env.json(&[
        "slot",
        "save",
        "atlas-dev",
        "Decided to move the queue to NATS after the load test.",
    ]);
    assert_eq!(saved["entry"]["index"], 1, "{saved}");
    env.run_with(
        &["slot", "save", "atlas-dev", "-"],
        Some("The staging database moved to fra1 on Tuesday.\n"),
    );
    let progress = env.json(&[
        "slot",
        "save-progress",
        "atlas-dev",
        "We planned the release. The release ships on Friday after the smoke tests pass. Ana writes the migration plan by Wednesday. Lunch took a while. The API freeze starts Thursday at noon.",
        "--ratio",
        "0.3",
    ]);
    let entry = &progress["entry"];
    assert_eq!(entry["entry_type"], "auto_summary", "{progress}");
    assert!(entry["summary_length"].as_u64().unwrap() < entry["original_length"].as_u64().unwrap());

    let read = env.json(&["slot", "read", "atlas-dev"]);
    assert_eq!(read["total"], 3);
    assert_eq!(
        read["entries"][1]["memory"]["content"],
        "The staging database moved to fra1 on Tuesday."
    );
    let last = env.json(&["slot", "select", "atlas-dev", "-1"]);
    assert_eq!(last["entry"]["index"], 3);
    let first = env.json(&["slot", "select", "atlas-dev", "2nd", "latest"]);
    assert_eq!(first["entry"]["index"], 2);

    // Export formats, times aside, are the fixtures.
    for (format, file) in [("md", "atlas-dev.md"), ("txt", "atlas-dev.txt")] {
        let text = env.ok(&["slot", "export", "atlas-dev", "--format", format]);
        let e = &read["entries"][2];
        let (o, n) = (
            e["original_length"].as_u64().unwrap(),
            e["summary_length"].as_u64().unwrap(),
        );
        let want = fixture(file)
            .replace("{summary}", e["memory"]["content"].as_str().unwrap())
            .replace("{pct}", &((n * 100 + o / 2) / o).to_string())
            .replace("{original}", &o.to_string())
            .replace("{short}", &n.to_string());
        assert_eq!(without_times(&text), want, "{format}");
    }
    let out = env.dir.path().join("slot.json");
    env.ok(&[
        "slot",
        "export",
        "atlas-dev",
        "--format",
        "json",
        "-o",
        &out.display().to_string(),
    ]);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(json["slot_name"], "atlas-dev");
    assert_eq!(json["group_path"], "projects/atlas");
    assert_eq!(json["entries"].as_array().unwrap().len(), 3);
    assert_eq!(json["metadata"]["total_entries"], 3);

    let list = env.json(&["slot", "list"]);
    assert_eq!(list[0]["name"], "atlas-dev");
    assert_eq!(list[0]["entries"], 3);
    let tree = env.json(&["slot", "tree"]);
    assert_eq!(tree["groups"][0]["name"], "projects");
}

#[test]
fn archived_slots_leave_recall_and_zero_mode_writes_nothing() {
    let env = Env::new();
    env.ok(&[
        "slot",
        "save",
        "trip",
        "Booked the night train from Lisbon to Madrid for the conference.",
    ]);
    let hits = env.json(&["recall", "night train to Madrid"]);
    assert_eq!(hits["results"][0]["slot"], "trip", "{hits}");
    env.ok(&["slot", "archive", "trip", "--reason", "trip is over"]);
    let hits = env.json(&["recall", "night train to Madrid"]);
    assert_eq!(hits["results"], serde_json::json!([]), "{hits}");
    let hits = env.json(&["recall", "night train to Madrid", "--include-archived"]);
    assert_eq!(hits["results"][0]["slot"], "trip");
    let archived = env.json(&["slot", "list", "--archived"]);
    assert_eq!(archived[0]["archive_reason"], "trip is over");
    env.ok(&["slot", "restore", "trip"]);
    let hits = env.json(&["recall", "night train to Madrid"]);
    assert_eq!(hits["results"][0]["slot"], "trip");

    env.ok(&["slot", "zero", "on"]);
    let before = std::fs::metadata(env.db()).unwrap().len();
    let out = env.run(&["slot", "save", "trip", "a private note"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("zero mode is on") && err.contains("cairn slot zero off"),
        "{err}"
    );
    assert_eq!(env.json(&["slot", "read", "trip"])["total"], 1);
    assert_eq!(std::fs::metadata(env.db()).unwrap().len(), before);
    env.ok(&["slot", "zero", "off"]);
    env.ok(&["slot", "save", "trip", "a note after zero mode"]);

    for bad in ["../x", "a b", &"n".repeat(300)] {
        let out = env.run(&["slot", "save", bad, "text"]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("slot name"));
    }
    let out = env.run(&["slot", "read", "nowhere"]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn files_and_folders_import_into_a_slot_and_a_json_export_round_trips() {
    let env = Env::new();
    let dir = env.dir.path().join("docs");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(
        dir.join("a-plan.md"),
        "# Plan\nShip on Friday.\n\n# Risks\nThe migration may run long.\n",
    )
    .unwrap();
    std::fs::write(dir.join("b-broken.json"), "{not json").unwrap();
    std::fs::write(dir.join("c-notes.txt"), "One plain note.\n").unwrap();
    std::fs::write(dir.join("ignored.png"), "not text").unwrap();
    let docs = dir.display().to_string();

    env.ok(&[
        "slot",
        "create",
        "docs",
        "--description",
        "Design documents",
        "--group",
        "projects/atlas",
        "--tag",
        "design",
        "--priority",
        "2",
    ]);
    let dry = env.json(&["slot", "import", "docs", &docs, "--dry-run"]);
    assert_eq!(dry["entries"], 3, "{dry}");
    assert_eq!(
        env.json(&["slot", "read", "docs"])["total"],
        0,
        "a dry run writes nothing"
    );
    let done = env.json(&["slot", "import", "docs", &docs]);
    assert_eq!(done["entries"], 3);
    assert!(done["files"][1]["error"].is_string(), "{done}");
    let read = env.json(&["slot", "read", "docs"]);
    let texts: Vec<&str> = read["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["memory"]["content"].as_str().unwrap())
        .collect();
    assert_eq!(
        texts,
        [
            "# Plan\nShip on Friday.",
            "# Risks\nThe migration may run long.",
            "One plain note."
        ]
    );

    // A JSON export imports back with the same entries in the same order.
    let out = env.dir.path().join("docs.json");
    env.ok(&[
        "slot",
        "export",
        "docs",
        "--format",
        "json",
        "-o",
        &out.display().to_string(),
    ]);
    let path = out.display().to_string();
    // Into another store: every field of every entry, ids and times too.
    let other = Env::new();
    let done = other.json(&["slot", "import", "docs", &path]);
    assert_eq!(done["entries"], 3, "{done}");
    let entries = |env: &Env| {
        let mut all = env.json(&["slot", "read", "docs"])["entries"].clone();
        for e in all.as_array_mut().unwrap() {
            // What reading (not the entry) changes.
            for k in ["access_count", "last_accessed_at"] {
                e["memory"].as_object_mut().unwrap().remove(k);
            }
        }
        all
    };
    assert_eq!(entries(&other), entries(&env));
    let slot = |env: &Env| env.json(&["slot", "read", "docs"])["slot"].clone();
    for k in ["description", "tags", "group", "priority"] {
        assert_eq!(slot(&other)[k], slot(&env)[k], "{k}");
    }
    // Again: the ids are stored, nothing is duplicated, and it says so.
    let again = other.json(&["slot", "import", "docs", &path]);
    assert_eq!(again["entries"], 0, "{again}");
    assert!(again["files"][0]["error"]
        .as_str()
        .unwrap()
        .contains("3 entries skipped"));
    assert_eq!(other.json(&["slot", "read", "docs"])["total"], 3);

    // Into another slot of the same store: the ids are taken, so nothing
    // is written twice.
    let copy = env.json(&["slot", "import", "copy", &path]);
    assert_eq!(copy["entries"], 0, "{copy}");
    // A memcord slot file (no records) imports its entries' texts.
    let memcord = serde_json::json!({
        "slot_name": "m",
        "entries": [{"type": "manual_save", "content": "from memcord", "timestamp": "2025-01-02T03:04:05Z"}]
    });
    let file = env.dir.path().join("memcord.json");
    std::fs::write(&file, memcord.to_string()).unwrap();
    env.json(&["slot", "import", "m", &file.display().to_string()]);
    let read = env.json(&["slot", "read", "m"]);
    assert_eq!(read["entries"][0]["memory"]["content"], "from memcord");
}

#[test]
fn archiving_compresses_long_entries_and_restoring_gives_back_every_byte() {
    let env = Env::new();
    // 1 MiB exactly (the largest entry there is), a long Unicode entry and
    // a short one; through stdin, as a command line cannot carry 1 MiB.
    let words =
        "Grüße aus Zürich — 日本語のメモ — the quarterly roadmap review moved to Thursday; ";
    let mut mib: String = words.repeat((1 << 20) / words.len() + 1);
    mib.truncate(
        (1..=4)
            .map(|k| (1 << 20) - k)
            .find(|&n| mib.is_char_boundary(n))
            .unwrap(),
    );
    mib.push_str(&"z".repeat((1 << 20) - mib.len()));
    assert_eq!(mib.len(), 1 << 20);
    let unicode = "Ünïcödé ✓ 🚂 नमस्ते مرحبا — a travelling note. ".repeat(40);
    for text in [mib.as_str(), unicode.as_str(), "a short entry"] {
        let out = env.run_with(&["slot", "save", "vault", "-"], Some(text));
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // A 0-byte entry cannot be saved: it is refused, and nothing is written.
    let out = env.run_with(&["slot", "save", "vault", "-"], Some(""));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("the text is empty"));

    // Each entry's id and text (an access count changes with recall).
    let read = |env: &Env| -> Vec<(String, String)> {
        env.json(&["slot", "read", "vault", "--json", "--limit", "10"])["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                let m = &e["memory"];
                (
                    m["id"].as_str().unwrap().into(),
                    m["content"].as_str().unwrap().into(),
                )
            })
            .collect()
    };
    let before = read(&env);
    let entries = &before;
    assert_eq!(entries.len(), 3);
    // Each version's number, change, time, actor and text (the latest
    // shows the current access count, which recall changes).
    let history = |id: &str| -> Vec<[serde_json::Value; 5]> {
        env.json(&["history", id, "--json"])["versions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| {
                ["version", "change", "at", "actor"]
                    .map(|k| v[k].clone())
                    .into_iter()
                    .chain([v["memory"]["content"].clone()])
                    .collect::<Vec<_>>()
                    .try_into()
                    .unwrap()
            })
            .collect()
    };
    let histories: Vec<_> = entries.iter().map(|(id, _)| history(id)).collect();

    let archived = env.json(&["slot", "archive", "vault", "--reason", "done", "--json"]);
    let c = &archived["compression"];
    assert_eq!(c["algorithm"], "zstd", "{archived}");
    assert_eq!(c["entries"], 2, "the two entries over 1 KiB: {archived}");
    let original = c["original_bytes"].as_u64().unwrap();
    assert_eq!(original as usize, mib.len() + unicode.len());
    assert!(c["stored_bytes"].as_u64().unwrap() * 10 < original, "{c}");
    assert!(c["saved_bytes"].as_u64().unwrap() > original / 2);
    // The archive index lists it with its sizes and last access.
    let index = env.json(&["slot", "list", "--archived"]);
    assert_eq!(index[0]["compression"], *c);
    assert!(index[0]["last_access"].is_string());
    // Still found by naming it, byte for byte.
    assert!(
        read(&env) == before,
        "archived entries read back differently"
    );
    let hits = env.json(&["recall", "quarterly roadmap review", "--include-archived"]);
    assert_eq!(hits["results"][0]["slot"], "vault", "{hits}");

    let restored = env.json(&["slot", "restore", "vault", "--json"]);
    assert!(restored["compression"].is_null(), "{restored}");
    let after = read(&env);
    assert!(after == before, "restored entries differ in id or bytes");
    let contents: Vec<&str> = after.iter().map(|(_, c)| c.as_str()).collect();
    assert!(contents == [mib.as_str(), unicode.as_str(), "a short entry"]);
    for ((id, _), before) in after.iter().zip(&histories) {
        assert!(history(id) == *before, "the history of {id} changed");
    }
    env.assert_healthy();
}

#[test]
fn a_slot_bound_to_a_directory_is_the_one_dot_and_mcp_use() {
    let env = Env::new();
    let project = env.dir.path().join("atlas");
    let inner = project.join("src/deep");
    std::fs::create_dir_all(&inner).unwrap();
    let in_dir = |dir: &std::path::Path, args: &[&str]| {
        let out = env.cmd().current_dir(dir).args(args).output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    env.ok(&["slot", "create", "elsewhere"]);
    // No binding yet: `.` says how to make one.
    let (code, _, err) = in_dir(&inner, &["slot", "read", "."]);
    assert_eq!(code, Some(2));
    assert!(err.contains("cairn slot bind NAME"), "{err}");

    in_dir(&project, &["init", "--project", "atlas"]);
    let file = project.join(".cairn");
    let before = std::fs::read_to_string(&file).unwrap();
    assert_eq!(in_dir(&project, &["slot", "bind", "atlas-dev"]).0, Some(0));
    let bound = std::fs::read_to_string(&file).unwrap();
    assert!(
        bound.starts_with(&before) && bound.contains("slot = \"atlas-dev\""),
        "{bound}"
    );
    let (code, _, err) = in_dir(&project, &["slot", "bind", "../x"]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        bound,
        "a bad name changes nothing"
    );

    // From a subdirectory, `.` is the bound slot.
    assert_eq!(
        in_dir(&inner, &["slot", "save", ".", "the build uses zig cc"]).0,
        Some(0)
    );
    let (_, read, _) = in_dir(&inner, &["slot", "read", ".", "--json"]);
    let read: serde_json::Value = serde_json::from_str(&read).unwrap();
    assert_eq!(read["slot"]["name"], "atlas-dev");
    assert_eq!(
        read["entries"][0]["memory"]["content"],
        "the build uses zig cc"
    );

    // `cairn mcp` started there saves to it when a call names no slot.
    let mut mcp = crate::same_json::McpProcess::start_in(&env, Some(&inner));
    mcp.tool(
        "slot",
        serde_json::json!({"action": "save", "text": "saved over MCP"}),
    );
    drop(mcp);
    assert_eq!(env.json(&["slot", "read", "atlas-dev"])["total"], 2);

    assert_eq!(in_dir(&inner, &["slot", "unbind"]).0, Some(0));
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        before,
        "the file as it was"
    );
    let (code, _, err) = in_dir(&inner, &["slot", "unbind"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("no slot is bound"), "{err}");
}
