//! memcord: one slot file (`memory_slots/<slot>.json`), as one memory per
//! entry. A folder of slots is read a file at a time.
//!
//! A slot: `slot_name`, `tags`, `group_path`, `description`, `priority`,
//! archive fields, times, and `entries`. An entry: `type`
//! (`manual_save`, `auto_summary`, `rolled_summary`; the format notes also
//! name `import` and `merge`), `content`, `timestamp` (memcord writes its
//! local time without an offset), `original_length` and `summary_length`
//! (summaries), `metadata`, `compression_info` and, in some files, an `id`.

use serde_json::{Map, Value};

use super::{
    id_of, json, keep_rest, kind_of, metadata_of, non_empty, object, required_text, text, texts,
    time, wrong_shape, Collect, ItemResult, Parsed,
};
use crate::memory::MemoryType;
use crate::wire::MemoryRecord;
use crate::Result;

const WHAT: &str = "memcord";
const SHAPE: &str = "a memcord slot: an object with `slot_name` and `entries`";

/// Entry fields a Cairn field takes, or that are dropped:
/// `compression_info` (how memcord stores the content).
const TAKEN: &[&str] = &[
    "id",
    "type",
    "content",
    "timestamp",
    "metadata",
    "compression_info",
];

/// What every entry of the slot carries.
struct Slot {
    tags: Vec<String>,
    metadata: Map<String, Value>,
}

pub(super) fn parse(text: &str) -> Result<Parsed> {
    let value = json(text, WHAT, SHAPE)?;
    let Value::Object(o) = &value else {
        return Err(wrong_shape(WHAT, SHAPE, kind_of(&value)));
    };
    let (Some(Value::String(name)), Some(Value::Array(entries))) =
        (o.get("slot_name"), o.get("entries"))
    else {
        return Err(wrong_shape(
            WHAT,
            SHAPE,
            "an object without a `slot_name` text and an `entries` list",
        ));
    };
    let slot = slot(name, o).map_err(|e| wrong_shape(WHAT, SHAPE, &format!("a slot whose {e}")))?;
    let mut parsed = Collect::default();
    for (i, entry) in entries.iter().enumerate() {
        parsed.memory(format!("entries[{i}]"), memory(entry, &slot));
    }
    Ok(parsed.done())
}

/// The slot's tags, and the metadata its entries share: `slot`,
/// `group_path` and `slot_description`.
fn slot(name: &str, o: &Map<String, Value>) -> ItemResult<Slot> {
    let mut metadata = Map::new();
    metadata.insert("slot".into(), Value::String(name.to_string()));
    if let Some(g) = text(o, "group_path")? {
        metadata.insert("group_path".into(), Value::String(g.to_string()));
    }
    if let Some(d) = text(o, "description")?.filter(|d| !d.trim().is_empty()) {
        metadata.insert("slot_description".into(), Value::String(d.to_string()));
    }
    Ok(Slot {
        tags: texts(o, "tags")?,
        metadata,
    })
}

/// One entry: a `summary` for memcord's summaries, else a `note`.
fn memory(entry: &Value, slot: &Slot) -> ItemResult<MemoryRecord> {
    let o = object(entry)?;
    let compression = o.get("compression_info").and_then(Value::as_object);
    if compression.and_then(|c| c.get("is_compressed")) == Some(&Value::Bool(true)) {
        let algorithm = compression
            .and_then(|c| c.get("algorithm"))
            .and_then(Value::as_str)
            .unwrap_or("unknown");
        return Err(format!(
            "the content is compressed ({algorithm}); decompress the slot in memcord first \
             (memcord_compress action=decompress, or restore it from the archive)"
        ));
    }
    let content = required_text(o, "content")?;
    let entry_type = text(o, "type")?;
    let kind = match entry_type {
        Some("auto_summary" | "rolled_summary") => MemoryType::Summary,
        _ => MemoryType::Note,
    };
    let mut metadata = metadata_of(o, "metadata")?;
    keep_rest(o, TAKEN, &mut metadata);
    metadata.extend(slot.metadata.clone());
    if let Some(t) = entry_type {
        metadata.insert("entry_type".into(), Value::String(t.to_string()));
    }
    let id = id_of(o.get("id"), &mut metadata);
    Ok(MemoryRecord {
        id,
        content: content.to_string(),
        kind: Some(kind.as_str().to_string()),
        tags: slot.tags.clone(),
        source: Some("import:memcord".into()),
        created_at: time(o, "timestamp")?,
        metadata: non_empty(metadata),
        ..MemoryRecord::default()
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::{parse, Foreign, Problem};
    use crate::wire::MemoryRecord;

    #[test]
    fn the_fixture_gives_one_memory_per_entry_and_reports_the_bad_ones() {
        let parsed = parse(
            Foreign::Memcord,
            include_str!("../../tests/fixtures/importers/memcord_slot.json"),
        )
        .unwrap();
        let slot = json!({
            "slot": "project_alpha",
            "group_path": "projects/alpha/development",
            "slot_description": "Development discussions for Project Alpha",
        });
        let meta = |entry: serde_json::Value| {
            let mut m = slot.as_object().unwrap().clone();
            m.extend(entry.as_object().unwrap().clone());
            Some(m)
        };
        let tags: Vec<String> = vec!["backend".into(), "project".into(), "urgent".into()];
        let source = Some("import:memcord".to_string());
        assert_eq!(
            parsed.memories,
            vec![
                MemoryRecord {
                    content: "Alice: let's use JWT tokens with a 15 minute expiry.\nBob: agreed, \
                              and rate-limit the login endpoint."
                        .into(),
                    kind: Some("note".into()),
                    tags: tags.clone(),
                    metadata: meta(json!({
                        "entry_type": "manual_save",
                        "word_count": 18,
                        "topics": ["authentication"],
                    })),
                    source: source.clone(),
                    created_at: Some("2024-01-01T12:00:00.250Z".into()),
                    ..MemoryRecord::default()
                },
                MemoryRecord {
                    content: "Decided: JWT with 15 minute expiry; next: rate limiting on login."
                        .into(),
                    kind: Some("summary".into()),
                    tags: tags.clone(),
                    metadata: meta(json!({
                        "entry_type": "auto_summary",
                        "foreign_id": "entry_002",
                        "summary_type": "progressive",
                        "original_length": 5000,
                        "summary_length": 750,
                    })),
                    source: source.clone(),
                    created_at: Some("2024-01-01T12:30:00.000Z".into()),
                    ..MemoryRecord::default()
                },
                MemoryRecord {
                    content: "[2024-01-01 12:30]\nJWT chosen.\n\n---\n\n[2024-01-01 15:00]\nRate \
                              limiting done."
                        .into(),
                    kind: Some("summary".into()),
                    tags,
                    metadata: meta(json!({
                        "entry_type": "rolled_summary",
                        "consolidated_from": 2,
                    })),
                    source,
                    created_at: Some("2024-01-01T15:00:00.000Z".into()),
                    ..MemoryRecord::default()
                },
            ]
        );
        assert_eq!(
            parsed.problems,
            vec![
                Problem {
                    at: "entries[2]".into(),
                    message: "the content is compressed (gzip); decompress the slot in memcord \
                              first (memcord_compress action=decompress, or restore it from the \
                              archive)"
                        .into(),
                },
                Problem {
                    at: "entries[3]".into(),
                    message: "content is empty: a memory needs some text".into(),
                },
            ]
        );
    }

    #[test]
    fn other_shapes_are_refused() {
        let err = parse(Foreign::Memcord, "[]").unwrap_err();
        assert_eq!(
            err.to_string(),
            "not a memcord export: expected a memcord slot: an object with `slot_name` and \
             `entries`, found a list"
        );
        let err = parse(
            Foreign::Memcord,
            r#"{"slot_name": "s", "entries": [], "tags": "a,b"}"#,
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .ends_with("found a slot whose `tags` is a string, not a list of texts"),
            "{err}"
        );
    }
}
