//! mem0: the answer of `Memory.get_all` / the platform's list of memories
//! (`{"results": [...]}`, or a bare list from older versions), as
//! memories.
//!
//! Each item: `id`, `memory` (the text), `hash`, `metadata`,
//! `categories` (platform), `created_at`, `updated_at`, the ids it belongs
//! to (`user_id`, `agent_id`, `run_id`, `actor_id`, `app_id`), `role`, and
//! on the platform `expiration_date` and `immutable`.

use serde_json::Value;

use super::{
    expect_field, id_of, json, keep_rest, kind_of, metadata_of, non_empty, object, required_text,
    texts, time, wrong_shape, Collect, ItemResult, Parsed,
};
use cairn_core::memory::MemoryType;
use cairn_core::wire::MemoryRecord;
use cairn_core::Result;

const WHAT: &str = "mem0";
const SHAPE: &str = "`{\"results\": [...]}` or a list of memories, each with `memory`";

/// Fields a Cairn field takes, or that are dropped: `score` ranks a
/// search answer, `structured_attributes` restates `created_at`.
const TAKEN: &[&str] = &[
    "id",
    "memory",
    "metadata",
    "categories",
    "created_at",
    "updated_at",
    "expiration_date",
    "score",
    "structured_attributes",
];

pub(super) fn parse(text: &str) -> Result<Parsed> {
    let value = json(text, WHAT, SHAPE)?;
    let (items, path) = match &value {
        Value::Array(items) => (items.as_slice(), "memories"),
        Value::Object(o) => match o.get("results") {
            Some(Value::Array(items)) => (items.as_slice(), "results"),
            _ => {
                return Err(wrong_shape(
                    WHAT,
                    SHAPE,
                    "an object without a `results` list",
                ))
            }
        },
        other => return Err(wrong_shape(WHAT, SHAPE, kind_of(other))),
    };
    expect_field(items, "memory", WHAT, SHAPE)?;
    let mut parsed = Collect::default();
    for (i, item) in items.iter().enumerate() {
        parsed.memory(format!("{path}[{i}]"), memory(item));
    }
    Ok(parsed.done())
}

/// One mem0 memory: a `fact` (what mem0 extracts), or a `procedure` when
/// its metadata says `memory_type: procedural_memory`.
fn memory(item: &Value) -> ItemResult<MemoryRecord> {
    let o = object(item)?;
    let content = required_text(o, "memory")?;
    let mut metadata = metadata_of(o, "metadata")?;
    keep_rest(o, TAKEN, &mut metadata);
    let id = id_of(o.get("id"), &mut metadata);
    let procedural =
        metadata.get("memory_type").and_then(Value::as_str) == Some("procedural_memory");
    let kind = if procedural {
        MemoryType::Procedure
    } else {
        MemoryType::Fact
    };
    Ok(MemoryRecord {
        id,
        content: content.to_string(),
        kind: Some(kind.as_str().to_string()),
        tags: texts(o, "categories")?,
        source: Some("import:mem0".into()),
        created_at: time(o, "created_at")?,
        updated_at: time(o, "updated_at")?,
        expires_at: time(o, "expiration_date")?,
        metadata: non_empty(metadata),
        ..MemoryRecord::default()
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::{parse, Foreign, Problem};
    use cairn_core::wire::MemoryRecord;

    fn meta(v: serde_json::Value) -> Option<serde_json::Map<String, serde_json::Value>> {
        v.as_object().cloned()
    }

    #[test]
    fn the_fixture_gives_its_memories_and_reports_the_bad_ones() {
        let parsed = parse(Foreign::Mem0, include_str!("../tests/fixtures/mem0.json")).unwrap();
        let source = Some("import:mem0".to_string());
        assert_eq!(
            parsed.memories,
            vec![
                MemoryRecord {
                    id: Some("f38b689d-6b24-45b7-bced-17fbb4d8bac7".into()),
                    content: "Is travelling to Paris in May".into(),
                    kind: Some("fact".into()),
                    tags: vec!["travel".into(), "Plans".into()],
                    metadata: meta(json!({
                        "confidence": "high",
                        "hash": "62bc074f56d1f909f1b4c2b639f56f6a",
                        "user_id": "alex",
                        "run_id": "trip-planning",
                    })),
                    source: source.clone(),
                    created_at: Some("2024-02-26T06:57:00.108Z".into()),
                    updated_at: Some("2024-07-26T06:57:00.108Z".into()),
                    ..MemoryRecord::default()
                },
                MemoryRecord {
                    id: None,
                    content: "Prefers a window seat on long flights".into(),
                    kind: Some("fact".into()),
                    metadata: meta(json!({
                        "foreign_id": "mem-42",
                        "hash": "0d5c8c3a1b1f4e0e9f7a6b5c4d3e2f10",
                        "user_id": "alex",
                        "agent_id": "travel-agent",
                    })),
                    source: source.clone(),
                    created_at: Some("2024-03-01T08:00:00.000Z".into()),
                    ..MemoryRecord::default()
                },
                MemoryRecord {
                    id: Some("c1d2e3f4-0a1b-4c2d-8e3f-405162738495".into()),
                    content: "Book flights before hotels, then confirm both by email".into(),
                    kind: Some("procedure".into()),
                    metadata: meta(json!({
                        "memory_type": "procedural_memory",
                        "hash": "7f0e1d2c3b4a59687766554433221100",
                        "agent_id": "travel-agent",
                    })),
                    source,
                    created_at: Some("2024-03-03T09:30:00.500Z".into()),
                    updated_at: Some("2024-03-03T09:30:00.500Z".into()),
                    ..MemoryRecord::default()
                },
            ]
        );
        assert!(parsed.messages.is_empty());
        assert_eq!(
            parsed.problems,
            vec![
                Problem {
                    at: "results[2]".into(),
                    message: "content is empty: a memory needs some text".into(),
                },
                Problem {
                    at: "results[4]".into(),
                    message: "`created_at`: `last tuesday` is not a time: use RFC 3339 \
                              (2026-11-22T09:48:35Z) or a date (2026-11-22)"
                        .into(),
                },
            ]
        );
    }

    #[test]
    fn a_bare_list_is_read_and_other_shapes_are_refused() {
        let parsed = parse(
            Foreign::Mem0,
            r#"[{"memory": "Likes tea", "expiration_date": "2030-01-01"}, {"memory": 3}]"#,
        )
        .unwrap();
        assert_eq!(parsed.memories.len(), 1);
        assert_eq!(
            parsed.memories[0].expires_at.as_deref(),
            Some("2030-01-01T00:00:00.000Z")
        );
        assert_eq!(
            parsed.problems,
            vec![Problem {
                at: "memories[1]".into(),
                message: "`memory` is a number, not text".into(),
            }]
        );
        let err = parse(Foreign::Mem0, r#"[{"content": "a mememory export"}]"#).unwrap_err();
        assert_eq!(
            err.to_string(),
            "not a mem0 export: expected `{\"results\": [...]}` or a list of memories, each \
             with `memory`, found 1 item, none with `memory`"
        );
        let err = parse(Foreign::Mem0, r#""text""#).unwrap_err();
        assert!(err.to_string().ends_with("found a string"), "{err}");
    }
}
