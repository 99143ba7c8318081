//! `cairn import --from memcord` on a `memory_slots` folder written by
//! memcord's own released package (4.3.6; `scripts/memcord-fixtures.sh`):
//! each memcord slot becomes a Cairn slot with its entries, tags, group,
//! description and priority; memcord's `<slot>_config.json` files are
//! passed over.

use std::path::PathBuf;

use serde_json::Value;

use crate::Env;

fn memory_slots() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../cairn-importers/tests/fixtures/memcord_slots")
}

fn slot<'a>(list: &'a Value, name: &str) -> &'a Value {
    list.as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no slot {name} in {list}"))
}

#[test]
fn a_memory_slots_folder_becomes_one_cairn_slot_per_memcord_slot() {
    let env = Env::new();
    let dir = memory_slots().display().to_string();
    let done = env.json(&["import", "--from", "memcord", &dir]);
    assert_eq!(done["imported"], 4, "{done}");
    assert_eq!(done["passed_over"], 2, "the two _config.json files: {done}");
    assert_eq!(
        done["slots"],
        serde_json::json!(["grocery_notes", "project_alpha"])
    );
    assert!(done["problems"].as_array().unwrap().is_empty(), "{done}");

    let list = env.json(&["slot", "list"]);
    assert_eq!(list.as_array().unwrap().len(), 2, "{list}");
    let alpha = slot(&list, "project_alpha");
    assert_eq!(alpha["entries"], 3, "{alpha}");
    assert_eq!(alpha["tags"], serde_json::json!(["backend", "urgent"]));
    assert_eq!(alpha["group"], "projects/alpha");
    assert_eq!(
        alpha["description"],
        "Development discussions for Project Alpha"
    );
    assert_eq!(alpha["priority"], 1, "memcord's high priority");
    let grocery = slot(&list, "grocery_notes");
    assert_eq!(grocery["entries"], 1);
    assert_eq!(grocery["priority"], 3);

    let read = env.json(&["slot", "read", "project_alpha"]);
    assert_eq!(read["total"], 3, "{read}");
    let texts: Vec<&str> = read["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["memory"]["content"].as_str().unwrap())
        .collect();
    assert!(
        texts.iter().any(|t| t.starts_with("Alice: let's use JWT")),
        "{texts:?}"
    );
    assert!(
        texts.contains(&"Rate limiting on login is done."),
        "{texts:?}"
    );
}

#[test]
fn one_slot_file_gives_one_slot_and_a_config_file_alone_is_refused() {
    let env = Env::new();
    let file = memory_slots()
        .join("project_alpha.json")
        .display()
        .to_string();
    let done = env.json(&["import", "--from", "memcord", &file]);
    assert_eq!(done["imported"], 3, "{done}");
    let list = env.json(&["slot", "list"]);
    assert_eq!(list.as_array().unwrap().len(), 1, "{list}");
    assert_eq!(slot(&list, "project_alpha")["group"], "projects/alpha");

    let config = memory_slots()
        .join("project_alpha_config.json")
        .display()
        .to_string();
    let out = env.run(&["import", "--from", "memcord", &config]);
    assert_ne!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("import the slot's `<slot>.json`"), "{err}");
    assert_eq!(env.json(&["slot", "read", "project_alpha"])["total"], 3);
}

#[test]
fn slot_import_of_a_memcord_file_keeps_its_tags_group_and_priority() {
    let env = Env::new();
    let file = memory_slots()
        .join("project_alpha.json")
        .display()
        .to_string();
    let done = env.json(&["slot", "import", "alpha", &file]);
    assert_eq!(done["entries"], 3, "{done}");
    let list = env.json(&["slot", "list"]);
    let alpha = slot(&list, "alpha");
    assert_eq!(alpha["tags"], serde_json::json!(["backend", "urgent"]));
    assert_eq!(alpha["group"], "projects/alpha");
    assert_eq!(alpha["priority"], 1);
}
