//! memcord: one slot file (`memory_slots/<slot>.json`), as one Cairn slot
//! ([`ForeignSlot`]) and one memory per entry, each naming the slot. A
//! folder of slots is read a file at a time; the `<slot>_config.json` and
//! `_storage_links.json` files memcord keeps beside them are passed over
//! ([`is_side_file`]), as memcord itself passes over them.
//!
//! A slot: `slot_name`, `tags`, `group_path`, `description`, `priority`
//! (memcord's: 1 high, 0 normal, -1 low), archive fields, times, and
//! `entries`. An entry: `type` (`manual_save`, `auto_summary`,
//! `rolled_summary`; the format notes also name `import` and `merge`),
//! `content`, `timestamp` (memcord writes its local time without an
//! offset), `original_length` and `summary_length` (summaries),
//! `metadata`, `compression_info` and, in some files, an `id`.

use serde_json::{Map, Value};

use super::{
    id_of, json, keep_rest, kind_of, metadata_of, non_empty, object, required_text, text, texts,
    time, wrong_shape, Collect, ForeignSlot, ItemResult, Parsed,
};
use cairn_core::memory::{normalize_slot_name, MemoryType};
use cairn_core::wire::MemoryRecord;
use cairn_core::Result;

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

/// Whether `name` (a path or a file name) is one memcord keeps beside its
/// slot files: `<slot>_config.json` or `_storage_links.json`.
pub(super) fn is_side_file(name: &str) -> bool {
    let file = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let lower = file.to_ascii_lowercase();
    lower.ends_with("_config.json") || lower == "_storage_links.json"
}

/// Cairn's priority (1 highest to 5, 3 the default) for memcord's (1
/// high, 0 normal, -1 low): `3 - 2p`, within 1 to 5.
pub(super) fn priority(memcord: i64) -> u8 {
    let p = 3_i64.saturating_sub(memcord.saturating_mul(2)).clamp(1, 5);
    p as u8
}

pub(super) fn parse(text: &str) -> Result<Parsed> {
    let value = json(text, WHAT, SHAPE)?;
    let Value::Object(o) = &value else {
        return Err(wrong_shape(WHAT, SHAPE, kind_of(&value)));
    };
    if !o.contains_key("slot_name") && o.contains_key("summarizer_backend") {
        return Err(wrong_shape(
            WHAT,
            SHAPE,
            "memcord's summariser settings of a slot (a `<slot>_config.json`); \
             import the slot's `<slot>.json`, or the whole `memory_slots` folder",
        ));
    }
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
    let mut parsed = parsed.done();
    parsed.slots.push(slot);
    Ok(parsed)
}

/// The slot's fields.
fn slot(name: &str, o: &Map<String, Value>) -> ItemResult<ForeignSlot> {
    let name = normalize_slot_name(name)
        .map_err(|e| format!("`slot_name` is not one Cairn takes: {e}"))?;
    let priority = match o.get("priority") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) if n.as_i64().is_some() => n.as_i64().map(priority),
        Some(v) => return Err(format!("`priority` is {}, not a whole number", kind_of(v))),
    };
    Ok(ForeignSlot {
        name,
        description: text(o, "description")?
            .filter(|d| !d.trim().is_empty())
            .map(str::to_string),
        tags: texts(o, "tags")?,
        group: text(o, "group_path")?
            .filter(|g| !g.trim().is_empty())
            .map(str::to_string),
        priority,
    })
}

/// One entry of `slot`: a `summary` for memcord's summaries, else a `note`.
fn memory(entry: &Value, slot: &ForeignSlot) -> ItemResult<MemoryRecord> {
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
    if let Some(t) = entry_type {
        metadata.insert("entry_type".into(), Value::String(t.to_string()));
    }
    let id = id_of(o.get("id"), &mut metadata);
    Ok(MemoryRecord {
        id,
        content: content.to_string(),
        kind: Some(kind.as_str().to_string()),
        tags: slot.tags.clone(),
        slot: Some(slot.name.clone()),
        source: Some("import:memcord".into()),
        created_at: time(o, "timestamp")?,
        metadata: non_empty(metadata),
        ..MemoryRecord::default()
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::{parse, Foreign, ForeignSlot, Problem};
    use cairn_core::wire::MemoryRecord;

    #[test]
    fn the_fixture_gives_one_memory_per_entry_and_reports_the_bad_ones() {
        let parsed = parse(
            Foreign::Memcord,
            include_str!("../tests/fixtures/memcord_slot.json"),
        )
        .unwrap();
        assert_eq!(
            parsed.slots,
            vec![ForeignSlot {
                name: "project_alpha".into(),
                description: Some("Development discussions for Project Alpha".into()),
                tags: vec!["backend".into(), "project".into(), "urgent".into()],
                group: Some("projects/alpha/development".into()),
                priority: Some(1),
            }]
        );
        let meta = |entry: serde_json::Value| Some(entry.as_object().unwrap().clone());
        let slot = Some("project_alpha".to_string());
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
                    slot: slot.clone(),
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
                    slot: slot.clone(),
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
                    slot,
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
