//! Memori: the JSON Lines of `memori export`, one memory a line, as
//! memories.
//!
//! A line: `id` (a UUID), `content`, `metadata` (free-form; Memori's
//! agent protocol puts the type in `metadata.type`: `debugging`,
//! `decision`, `architecture`, `pattern`, `preference`, `fact`, `roadmap`
//! or `temporary`), `created_at` and `updated_at` (seconds since the
//! epoch), `last_accessed` (0 when never), `access_count` and `vector`.
//! Hand-made files may also write `text` for `content`, a top-level
//! `type` or `category`, `tags`, `importance`, and times as RFC 3339.

use serde_json::{Map, Value};

use super::{
    cairn_type, counted, field, first, id_of, keep_rest, memory_type, metadata_of, millis,
    non_empty, number, object, text, texts, time, wrong_shape, Collect, ItemResult, Parsed,
};
use cairn_core::memory::MemoryType;
use cairn_core::time::format_timestamp;
use cairn_core::wire::MemoryRecord;
use cairn_core::Result;

const WHAT: &str = "Memori";
const SHAPE: &str = "JSON Lines: one memory object a line, each with `content`";

/// Fields a Cairn field takes, or that are dropped: `vector` (another
/// model's embedding; the import embeds the content again).
const TAKEN: &[&str] = &[
    "id",
    "content",
    "text",
    "metadata",
    "type",
    "category",
    "tags",
    "importance",
    "created_at",
    "updated_at",
    "last_accessed",
    "access_count",
    "vector",
];

pub(super) fn parse(text: &str) -> Result<Parsed> {
    if text.trim_start().starts_with('[') {
        return Err(wrong_shape(WHAT, SHAPE, "a JSON list"));
    }
    let mut parsed = Collect::default();
    let (mut lines, mut memories) = (0, 0);
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        lines += 1;
        let at = format!("line {}", i + 1);
        match serde_json::from_str::<Value>(line) {
            Ok(v) => {
                let looks_right = v
                    .as_object()
                    .is_some_and(|o| o.contains_key("content") || o.contains_key("text"));
                memories += usize::from(looks_right);
                parsed.memory(at, memory(&v));
            }
            Err(e) => parsed.problem(at, format!("not a JSON object: {e}")),
        }
    }
    if lines > 0 && memories == 0 {
        return Err(wrong_shape(
            WHAT,
            SHAPE,
            &format!("{}, none a memory with `content`", counted(lines, "line")),
        ));
    }
    Ok(parsed.done())
}

/// Memori's types as Cairn's: `debugging` and `architecture` are facts,
/// `pattern` a procedure, `roadmap` and `temporary` context; Cairn's own
/// names are themselves.
fn memori_type(name: &str) -> Option<MemoryType> {
    match name {
        "debugging" | "architecture" => Some(MemoryType::Fact),
        "pattern" => Some(MemoryType::Procedure),
        "roadmap" | "temporary" => Some(MemoryType::Context),
        other => cairn_type(other),
    }
}

/// A text of the metadata, if it is one.
fn meta_text(metadata: &Map<String, Value>, key: &str) -> Option<String> {
    metadata
        .get(key)
        .and_then(Value::as_str)
        .map(str::to_string)
}

fn memory(item: &Value) -> ItemResult<MemoryRecord> {
    let o = object(item)?;
    let content = match first(o, &["content", "text"]) {
        Some((_, Value::String(s))) => s.clone(),
        Some((key, v)) => return Err(format!("`{key}` is {}, not text", super::kind_of(v))),
        None => return Err("`content` is missing".into()),
    };
    let mut metadata = metadata_of(o, "metadata")?;
    // The type: a top-level one is kept as `foreign_type` when Cairn has
    // no such type; one in the metadata stays there as it is.
    let own_type = match text(o, "type")? {
        Some(t) => Some(t),
        None => text(o, "category")?,
    };
    let (type_name, in_metadata) = match own_type {
        Some(t) => (Some(t.to_string()), false),
        None => (
            meta_text(&metadata, "type").or_else(|| meta_text(&metadata, "category")),
            true,
        ),
    };
    let importance = match number(o, "importance")? {
        Some(i) => Some(i),
        None => metadata
            .get("importance")
            .and_then(Value::as_f64)
            .filter(|i| (0.0..=1.0).contains(i)),
    };
    let project = meta_text(&metadata, "project");
    keep_rest(o, TAKEN, &mut metadata);
    let kind = if in_metadata {
        memory_type(type_name.as_deref(), memori_type, &mut Map::new())
    } else {
        memory_type(type_name.as_deref(), memori_type, &mut metadata)
    };
    let id = id_of(o.get("id"), &mut metadata);
    let access_count = match field(o, "access_count") {
        None => None,
        Some(v) => Some(
            v.as_u64()
                .ok_or_else(|| format!("`access_count` is {v}, not a whole number of accesses"))?,
        ),
    };
    // Memori writes 0 for a memory never accessed.
    let last_accessed_at = millis(o, "last_accessed")?
        .filter(|t| *t > 0)
        .map(format_timestamp);
    Ok(MemoryRecord {
        id,
        content,
        kind: Some(kind.as_str().to_string()),
        project,
        tags: texts(o, "tags")?,
        importance,
        source: Some("import:memori".into()),
        created_at: time(o, "created_at")?,
        updated_at: time(o, "updated_at")?,
        last_accessed_at,
        access_count: access_count.filter(|n| *n > 0),
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
    fn the_fixture_gives_its_memories_and_reports_the_bad_lines() {
        let parsed = parse(
            Foreign::Memori,
            include_str!("../tests/fixtures/memori.jsonl"),
        )
        .unwrap();
        let source = Some("import:memori".to_string());
        assert_eq!(
            parsed.memories,
            vec![
                MemoryRecord {
                    id: Some("0b6c1f9e-3f0a-4c1e-9a57-2f4d3c2b1a00".into()),
                    content: "The flaky auth test fails because the token clock is not mocked"
                        .into(),
                    kind: Some("fact".into()),
                    metadata: meta(json!({"type": "debugging", "topic": "auth"})),
                    source: source.clone(),
                    created_at: Some("2024-06-10T06:13:20.250Z".into()),
                    updated_at: Some("2024-06-10T07:13:20.500Z".into()),
                    last_accessed_at: Some("2024-06-11T07:13:20.000Z".into()),
                    access_count: Some(3),
                    ..MemoryRecord::default()
                },
                MemoryRecord {
                    id: Some("5e1d2c3b-4a59-4687-8766-554433221100".into()),
                    content: "Chose SQLite over Postgres for the local store: one file, no daemon"
                        .into(),
                    kind: Some("decision".into()),
                    project: Some("cairn".into()),
                    importance: Some(0.9),
                    metadata: meta(json!({
                        "type": "decision", "project": "cairn", "importance": 0.9
                    })),
                    source: source.clone(),
                    created_at: Some("2024-06-11T10:00:00.000Z".into()),
                    updated_at: Some("2024-06-11T10:00:00.000Z".into()),
                    ..MemoryRecord::default()
                },
                MemoryRecord {
                    id: Some("9f8e7d6c-5b4a-4938-a271-605f4e3d2c1b".into()),
                    content: "When a migration adds a column, backfill it before adding NOT NULL"
                        .into(),
                    kind: Some("procedure".into()),
                    metadata: meta(json!({"type": "pattern"})),
                    source: source.clone(),
                    created_at: Some("2024-06-12T13:46:40.000Z".into()),
                    updated_at: Some("2024-06-12T13:46:40.000Z".into()),
                    ..MemoryRecord::default()
                },
                MemoryRecord {
                    id: None,
                    content: "Rotate the staging keys on Friday".into(),
                    kind: Some("context".into()),
                    importance: Some(0.4),
                    metadata: meta(json!({
                        "foreign_id": "rotate-keys", "foreign_type": "temporary"
                    })),
                    source,
                    created_at: Some("2024-06-12T10:00:00.000Z".into()),
                    ..MemoryRecord::default()
                },
            ]
        );
        assert_eq!(parsed.problems.len(), 2, "{:?}", parsed.problems);
        assert_eq!(parsed.problems[0].at, "line 5");
        assert!(
            parsed.problems[0]
                .message
                .starts_with("not a JSON object: EOF while parsing a string"),
            "{:?}",
            parsed.problems[0]
        );
        assert_eq!(
            parsed.problems[1],
            Problem {
                at: "line 6".into(),
                message: "`content` is missing".into(),
            }
        );
    }

    #[test]
    fn other_shapes_are_refused() {
        let err = parse(Foreign::Memori, "[{\"content\": \"x\"}]").unwrap_err();
        assert_eq!(
            err.to_string(),
            "not a Memori export: expected JSON Lines: one memory object a line, each with \
             `content`, found a JSON list"
        );
        let err = parse(Foreign::Memori, "{\n  \"content\": \"pretty-printed\"\n}\n").unwrap_err();
        assert!(err
            .to_string()
            .ends_with("found 3 lines, none a memory with `content`"));
        assert_eq!(parse(Foreign::Memori, "\n").unwrap(), Default::default());
    }

    #[test]
    fn an_importance_out_of_range_is_a_problem_but_one_in_the_metadata_is_only_kept() {
        let parsed = parse(
            Foreign::Memori,
            "{\"content\": \"a\", \"importance\": 7}\n{\"content\": \"b\", \"metadata\": {\"importance\": 7}}\n",
        )
        .unwrap();
        assert_eq!(parsed.problems[0].at, "line 1");
        assert_eq!(
            parsed.problems[0].message,
            "importance must be between 0 and 1, got 7"
        );
        assert_eq!(parsed.memories.len(), 1);
        assert_eq!(parsed.memories[0].importance, None);
    }
}
