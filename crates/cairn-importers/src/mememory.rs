//! mememory: the admin API's JSON export (`POST /api/memories/export`, a
//! list of memories; `{"memories": [...]}` is read too), as memories.
//!
//! Each item: `id` (a UUID), `content`, `scope` (`global` or `project`),
//! `project`, `type` (`fact`, `rule`, `decision`, `feedback`, `context`;
//! `bootstrap` before delivery modes existed), `delivery` (`bootstrap`,
//! `on_demand`, `pinned`), `tags`, `weight` (0.1 once superseded),
//! `supersedes`, `created_at`, `updated_at` and `ttl` (the time it
//! expires). A hand-written file may give `ttl` as a duration (`24h`,
//! `7d`, as its `remember` tool takes it), counted from `created_at`, or
//! write `expires_at`.

use serde_json::{Map, Value};

use super::{
    cairn_type, expect_field, first, id_of, json, keep_rest, kind_of, list_or_under, memory_type,
    millis, non_empty, number, object, required_text, text, texts, time, wrong_shape, Collect,
    ItemResult, Parsed,
};
use cairn_core::time::{format_timestamp, parse_duration};
use cairn_core::wire::MemoryRecord;
use cairn_core::Result;

const WHAT: &str = "mememory";
const SHAPE: &str = "a list of memories, or `{\"memories\": [...]}`, each with `content`";

/// Fields a Cairn field takes; the rest (`delivery`, `persona`) go to the
/// metadata.
const TAKEN: &[&str] = &[
    "id",
    "content",
    "scope",
    "project",
    "type",
    "tags",
    "weight",
    "supersedes",
    "created_at",
    "updated_at",
    "ttl",
    "expires_at",
];

pub(super) fn parse(text: &str) -> Result<Parsed> {
    let value = json(text, WHAT, SHAPE)?;
    let items = list_or_under(&value, "memories").ok_or_else(|| {
        let found = match &value {
            Value::Object(_) => "an object without a `memories` list",
            other => kind_of(other),
        };
        wrong_shape(WHAT, SHAPE, found)
    })?;
    expect_field(items, "content", WHAT, SHAPE)?;
    let mut parsed = Collect::default();
    for (i, item) in items.iter().enumerate() {
        parsed.memory(format!("memories[{i}]"), memory(item));
    }
    Ok(parsed.done())
}

fn memory(item: &Value) -> ItemResult<MemoryRecord> {
    let o = object(item)?;
    let content = required_text(o, "content")?;
    let project = match (text(o, "scope")?, text(o, "project")?) {
        (Some("global"), _) => None,
        (Some("project"), Some(p)) | (None, Some(p)) => Some(p.to_string()),
        (Some("project"), None) => return Err("scope is `project` but `project` is missing".into()),
        (None, None) => None,
        (Some(other), _) => {
            return Err(format!(
                "unknown scope `{other}`: mememory's are `global` and `project`"
            ))
        }
    };
    let mut metadata = Map::new();
    keep_rest(o, TAKEN, &mut metadata);
    let kind = memory_type(text(o, "type")?, cairn_type, &mut metadata);
    let id = id_of(o.get("id"), &mut metadata);
    let supersedes = match text(o, "supersedes")? {
        None => None,
        Some(s) => match uuid::Uuid::parse_str(s.trim()) {
            Ok(u) => Some(u.hyphenated().to_string()),
            Err(_) => {
                metadata.insert("foreign_supersedes".into(), Value::String(s.to_string()));
                None
            }
        },
    };
    let created = millis(o, "created_at")?;
    Ok(MemoryRecord {
        id,
        content: content.to_string(),
        kind: Some(kind.as_str().to_string()),
        project,
        tags: texts(o, "tags")?,
        weight: number(o, "weight")?,
        source: Some("import:mememory".into()),
        created_at: created.map(format_timestamp),
        updated_at: time(o, "updated_at")?,
        expires_at: expiry(o, created)?,
        supersedes,
        metadata: non_empty(metadata),
        ..MemoryRecord::default()
    })
}

/// When the memory expires: `ttl` (or `expires_at`) as a time, or as a
/// duration counted from `created`.
fn expiry(o: &Map<String, Value>, created: Option<i64>) -> ItemResult<Option<String>> {
    let Some((key, v)) = first(o, &["ttl", "expires_at"]) else {
        return Ok(None);
    };
    if let Some(d) = v.as_str().and_then(|s| parse_duration(s).ok()) {
        let from = created.ok_or_else(|| {
            format!("`{key}` is a duration ({v}) but there is no `created_at` to count it from")
        })?;
        return Ok(Some(format_timestamp(from + d)));
    }
    time(o, key)
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
        let parsed = parse(
            Foreign::Mememory,
            include_str!("../tests/fixtures/mememory.json"),
        )
        .unwrap();
        let source = Some("import:mememory".to_string());
        let id = |n: u8| Some(format!("a1b2c3d4-0000-4000-8000-00000000000{n}"));
        assert_eq!(
            parsed.memories,
            vec![
                MemoryRecord {
                    id: id(1),
                    content: "Never commit .env files".into(),
                    kind: Some("rule".into()),
                    tags: vec!["security".into()],
                    weight: Some(1.0),
                    metadata: meta(json!({"delivery": "bootstrap"})),
                    source: source.clone(),
                    created_at: Some("2025-01-15T10:30:00.000Z".into()),
                    updated_at: Some("2025-01-15T10:30:00.000Z".into()),
                    ..MemoryRecord::default()
                },
                MemoryRecord {
                    id: id(2),
                    content: "The API listens on port 8080".into(),
                    kind: Some("fact".into()),
                    project: Some("match".into()),
                    weight: Some(0.1),
                    metadata: meta(json!({"delivery": "on_demand"})),
                    source: source.clone(),
                    created_at: Some("2025-02-01T09:00:00.123Z".into()),
                    updated_at: Some("2025-02-03T09:00:00.000Z".into()),
                    ..MemoryRecord::default()
                },
                MemoryRecord {
                    id: id(3),
                    content: "The API listens on port 9090".into(),
                    kind: Some("fact".into()),
                    project: Some("match".into()),
                    weight: Some(1.0),
                    supersedes: id(2),
                    metadata: meta(json!({"delivery": "on_demand"})),
                    source: source.clone(),
                    created_at: Some("2025-02-03T09:00:00.000Z".into()),
                    updated_at: Some("2025-02-03T09:00:00.000Z".into()),
                    ..MemoryRecord::default()
                },
                MemoryRecord {
                    id: id(4),
                    content: "Deploy freeze until the audit ends".into(),
                    kind: Some("context".into()),
                    project: Some("match".into()),
                    tags: vec!["release".into(), "audit".into()],
                    weight: Some(1.0),
                    metadata: meta(json!({"delivery": "pinned"})),
                    source: source.clone(),
                    created_at: Some("2025-03-01T10:00:00.000Z".into()),
                    updated_at: Some("2025-03-01T10:00:00.000Z".into()),
                    expires_at: Some("2025-03-08T10:00:00.000Z".into()),
                    ..MemoryRecord::default()
                },
                MemoryRecord {
                    id: id(5),
                    content: "Greet the user by name at the start of a session".into(),
                    kind: Some("note".into()),
                    weight: Some(1.0),
                    metadata: meta(json!({"delivery": "bootstrap", "foreign_type": "bootstrap"})),
                    source,
                    created_at: Some("2024-12-01T08:00:00.000Z".into()),
                    updated_at: Some("2024-12-01T08:00:00.000Z".into()),
                    ..MemoryRecord::default()
                },
            ]
        );
        assert_eq!(
            parsed.problems,
            vec![
                Problem {
                    at: "memories[5]".into(),
                    message: "scope is `project` but `project` is missing".into(),
                },
                Problem {
                    at: "memories[6]".into(),
                    message: "`ttl` is a duration (\"24h\") but there is no `created_at` to \
                              count it from"
                        .into(),
                },
            ]
        );
    }

    #[test]
    fn a_wrapped_list_and_a_ttl_duration_are_read() {
        let parsed = parse(
            Foreign::Mememory,
            r#"{"memories": [{"content": "Standup moved", "scope": "team"},
                {"content": "Standup at ten", "created_at": "2025-01-01T09:00:00Z", "ttl": "24h",
                 "supersedes": "old-7"}]}"#,
        )
        .unwrap();
        assert_eq!(
            parsed.problems,
            vec![Problem {
                at: "memories[0]".into(),
                message: "unknown scope `team`: mememory's are `global` and `project`".into(),
            }]
        );
        let m = &parsed.memories[0];
        assert_eq!(m.expires_at.as_deref(), Some("2025-01-02T09:00:00.000Z"));
        assert_eq!(m.supersedes, None);
        assert_eq!(m.metadata, meta(json!({"foreign_supersedes": "old-7"})));
        let err = parse(Foreign::Mememory, r#"{"results": []}"#).unwrap_err();
        assert!(
            err.to_string()
                .ends_with("found an object without a `memories` list"),
            "{err}"
        );
    }
}
