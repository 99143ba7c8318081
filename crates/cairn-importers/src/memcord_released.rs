//! The memcord importer against a `memory_slots` folder written by
//! memcord's own released package (4.3.6, `scripts/memcord-fixtures.sh`):
//! slot files with their `<slot>_config.json` beside them.

use std::path::PathBuf;

use super::{is_side_file, memcord, parse, Foreign, ForeignSlot};

fn folder() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/memcord_slots")
}

fn read(name: &str) -> String {
    std::fs::read_to_string(folder().join(name)).unwrap()
}

#[test]
fn each_slot_file_gives_its_slot_and_entries_and_config_files_are_side_files() {
    let mut names: Vec<String> = std::fs::read_dir(folder())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let slot_files: Vec<&String> = names
        .iter()
        .filter(|n| !is_side_file(Foreign::Memcord, n))
        .collect();
    assert_eq!(slot_files, ["grocery_notes.json", "project_alpha.json"]);
    assert!(is_side_file(
        Foreign::Memcord,
        "memory_slots/project_alpha_config.json"
    ));
    assert!(is_side_file(Foreign::Memcord, "_storage_links.json"));
    assert!(!is_side_file(Foreign::Mem0, "project_alpha_config.json"));

    let alpha = parse(Foreign::Memcord, &read("project_alpha.json")).unwrap();
    assert_eq!(
        alpha.slots,
        vec![ForeignSlot {
            name: "project_alpha".into(),
            description: Some("Development discussions for Project Alpha".into()),
            tags: vec!["backend".into(), "urgent".into()],
            group: Some("projects/alpha".into()),
            priority: Some(1),
        }]
    );
    assert!(alpha.problems.is_empty(), "{:?}", alpha.problems);
    let kinds: Vec<&str> = alpha
        .memories
        .iter()
        .map(|m| m.kind.as_deref().unwrap())
        .collect();
    assert_eq!(kinds, ["note", "summary", "summary"]);
    assert!(alpha.memories[0]
        .content
        .starts_with("Alice: let's use JWT"));
    assert_eq!(alpha.memories[2].content, "Rate limiting on login is done.");
    for m in &alpha.memories {
        assert_eq!(m.slot.as_deref(), Some("project_alpha"));
        assert_eq!(m.tags, ["backend", "urgent"]);
        // memcord's offset-less local time, read as UTC.
        assert!(m.created_at.as_deref().unwrap().ends_with('Z'), "{m:?}");
    }
    let meta = alpha.memories[1].metadata.as_ref().unwrap();
    assert_eq!(meta["summary_type"], "progressive");
    assert_eq!(meta["original_length"], 900);

    let grocery = parse(Foreign::Memcord, &read("grocery_notes.json")).unwrap();
    assert_eq!(grocery.slots[0].name, "grocery_notes");
    assert_eq!(
        grocery.slots[0].priority,
        Some(3),
        "memcord's 0 is Cairn's default"
    );
    assert_eq!(grocery.slots[0].group, None);
    assert_eq!(grocery.memories.len(), 1);
}

#[test]
fn a_config_file_given_alone_is_refused_naming_what_to_import() {
    let err = parse(Foreign::Memcord, &read("project_alpha_config.json")).unwrap_err();
    assert!(
        err.to_string().contains("import the slot's `<slot>.json`"),
        "{err}"
    );
}

#[test]
fn memcord_priorities_map_onto_one_to_five() {
    let mapped: Vec<u8> = [-3, -1, 0, 1, 2]
        .into_iter()
        .map(memcord::priority)
        .collect();
    assert_eq!(mapped, [5, 5, 3, 1, 1]);
}
