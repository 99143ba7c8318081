//! The mem0 importer against the answers of mem0's own released package
//! (2.2.1, run offline by `scripts/mem0-fixtures.sh`): `get_all` of a
//! user and of an agent, and a `search` with its scores.

use serde_json::Value;

use super::{parse, Foreign};

fn read(name: &str) -> String {
    let dir =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mem0_released");
    std::fs::read_to_string(dir.join(name)).unwrap()
}

/// Each item of a mem0 answer: (id, text, user, agent).
fn items(answer: &str) -> Vec<(String, String, Option<String>, Option<String>)> {
    let value: Value = serde_json::from_str(answer).unwrap();
    let text = |m: &Value, k: &str| m[k].as_str().map(str::to_string);
    value["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let id = text(m, "id").unwrap();
            (
                id,
                text(m, "memory").unwrap(),
                text(m, "user_id"),
                text(m, "agent_id"),
            )
        })
        .collect()
}

#[test]
fn every_answer_of_the_released_package_imports_whole() {
    for name in [
        "get_all_alice.json",
        "get_all_ops_bot.json",
        "search_alice.json",
    ] {
        let answer = read(name);
        let parsed = parse(Foreign::Mem0, &answer).unwrap();
        assert!(parsed.problems.is_empty(), "{name}: {:?}", parsed.problems);
        let expected = items(&answer);
        assert!(!expected.is_empty(), "{name}");
        assert_eq!(parsed.memories.len(), expected.len(), "{name}");
        for (record, (id, text, user, agent)) in parsed.memories.iter().zip(&expected) {
            assert_eq!(record.id.as_deref(), Some(id.as_str()), "{name}");
            assert_eq!(&record.content, text, "{name}");
            assert_eq!(record.kind.as_deref(), Some("fact"));
            assert_eq!(record.source.as_deref(), Some("import:mem0"));
            assert!(record.created_at.is_some() && record.updated_at.is_some());
            let meta = record.metadata.clone().unwrap_or_default();
            let field = |k: &str| meta.get(k).and_then(Value::as_str).map(str::to_string);
            assert_eq!(
                field("user_id"),
                *user,
                "{name}: the user it belongs to is kept"
            );
            assert_eq!(
                field("agent_id"),
                *agent,
                "{name}: the agent it belongs to is kept"
            );
            // A search's score ranked its answer; it is no memory's field.
            assert!(!meta.contains_key("score"), "{name}: {meta:?}");
        }
    }
}

#[test]
fn an_updated_memory_imports_with_its_new_text_and_its_own_metadata() {
    let parsed = parse(Foreign::Mem0, &read("get_all_alice.json")).unwrap();
    let texts: Vec<&str> = parsed.memories.iter().map(|m| m.content.as_str()).collect();
    assert!(
        texts.contains(&"Prefers dark mode in every editor and terminal"),
        "{texts:?}"
    );
    assert!(
        !texts.contains(&"Prefers dark mode in every editor"),
        "{texts:?}"
    );
    let dark = parsed
        .memories
        .iter()
        .find(|m| m.content.starts_with("Prefers dark mode"))
        .unwrap();
    let meta = dark.metadata.clone().unwrap();
    assert_eq!(meta["source"], "settings", "{meta:?}");
    assert!(dark.updated_at > dark.created_at, "{dark:?}");
}
