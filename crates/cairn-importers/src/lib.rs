//! # cairn-importers
//!
//! Other memory systems' exports as Cairn records: mem0, Memori,
//! mememory and memcord memories as [`MemoryRecord`]s, ChatGPT and Claude
//! conversations as [`MessageRecord`]s, ready for the import and the
//! conversation-import paths. [`Importers`] is the
//! [`cairn_core::foreign::Importer`] a binary gives its engine
//! (`api::EngineBuilder::importer`); the application layer's imports call
//! it, so front ends never do.
//!
//! This crate depends on `cairn-core` for the records it yields and the
//! checks an import makes; the core does not depend on it (it holds the
//! formats' names and the [`Parsed`] result only).
//!
//! [`parse`] is pure: it reads text and touches no store. Each record it
//! returns has already passed the checks an import makes
//! ([`MemoryRecord::into_memory`], [`MessageRecord::into_message`]) and
//! has an id no other record of the export has, so an import refuses none
//! of them (only the store can tell an id already stored). A bad item (a
//! memory without text, a time that is not one, a compressed memcord
//! entry, an id given twice) is skipped and reported as a [`Problem`]
//! naming it; a text that is not the format at all (not JSON, the wrong
//! shape) is an error that names the shape expected. What each format keeps, where, and what it
//! drops is in `docs/IMPORTERS.md`.
//!
//! Conventions common to every format:
//! - An id that is a UUID is kept (written in its hyphenated, lowercase
//!   form); any other id goes to the metadata as `foreign_id` and the
//!   import gives the record a new one.
//! - Times become RFC 3339 in UTC with milliseconds. A number is seconds
//!   since the Unix epoch; a text is RFC 3339, a date, or a date and time
//!   without an offset (read as UTC).
//! - Memories get `source` = `import:<format>`; a foreign type that is
//!   not a Cairn type name is kept in the metadata as `foreign_type`.
//! - Fields of a memory that no Cairn field takes are kept in its
//!   metadata under their own names (nulls left out); a key the importer
//!   sets replaces one of the same name from the foreign metadata.

#![warn(unreachable_pub)]

use std::collections::HashSet;
use std::fmt;

use serde_json::{Map, Value};

use cairn_core::memory::{normalize_thread_id, MemoryType, Timestamp, DEFAULT_TENANT};
use cairn_core::time::{format_timestamp, parse_timestamp};
use cairn_core::wire::{MemoryRecord, MessageRecord};
use cairn_core::{Error, Result};

pub use cairn_core::foreign::{Foreign, ForeignSlot, Importer, Parsed, Problem};

mod chatgpt;
mod claude;
#[cfg(test)]
mod engine_tests;
mod mem0;
#[cfg(test)]
mod mem0_released;
mod memcord;
#[cfg(test)]
mod memcord_released;
mod mememory;
mod memori;

/// The readers of every [`Foreign`] format, as an engine's [`Importer`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Importers;

impl Importer for Importers {
    fn parse(&self, from: Foreign, text: &str) -> Result<Parsed> {
        parse(from, text)
    }

    fn is_side_file(&self, from: Foreign, name: &str) -> bool {
        is_side_file(from, name)
    }
}

/// Whether a file of a folder of `from`'s is one the system keeps beside
/// its exports, to be passed over (memcord's `<slot>_config.json`
/// summariser settings and its `_storage_links.json`), judged by name.
pub fn is_side_file(from: Foreign, name: &str) -> bool {
    match from {
        Foreign::Memcord => memcord::is_side_file(name),
        _ => false,
    }
}

/// Read `text`, an export of `from`, as Cairn records. Bad items are
/// skipped and reported in [`Parsed::problems`]; a text that is not that
/// format at all is an [`Error::InvalidInput`] naming the shape expected.
pub fn parse(from: Foreign, text: &str) -> Result<Parsed> {
    match from {
        Foreign::Mem0 => mem0::parse(text),
        Foreign::Memori => memori::parse(text),
        Foreign::Mememory => mememory::parse(text),
        Foreign::Memcord => memcord::parse(text),
        Foreign::ChatGpt => chatgpt::parse(text),
        Foreign::Claude => claude::parse(text),
    }
}

/// [`Parsed`] as it is filled: each record checked as an import would
/// check it, and each id taken once.
#[derive(Default)]
struct Collect {
    parsed: Parsed,
    ids: HashSet<String>,
}

impl Collect {
    /// Report `at` as skipped because of `message`.
    fn problem(&mut self, at: impl Into<String>, message: impl fmt::Display) {
        self.parsed.problems.push(Problem {
            at: at.into(),
            message: message.to_string(),
        });
    }

    /// Whether `id` is new to this export; the problem to report if not.
    fn first_use(&mut self, id: Option<&str>) -> std::result::Result<(), String> {
        match id {
            Some(id) if !self.ids.insert(id.to_string()) => Err(format!(
                "id {id} appears twice in the export; the first is kept"
            )),
            _ => Ok(()),
        }
    }

    /// Keep `record` if an import would take it, else report why not.
    fn memory(&mut self, at: String, record: ItemResult<MemoryRecord>) {
        let checked = record.and_then(|r| {
            r.clone()
                .into_memory(DEFAULT_TENANT, 0)
                .map_err(|e| e.to_string())?;
            self.first_use(r.id.as_deref())?;
            Ok(r)
        });
        match checked {
            Ok(r) => self.parsed.memories.push(r),
            Err(e) => self.problem(at, e),
        }
    }

    /// Keep `record` if a conversation import would take it, else report
    /// why not.
    fn message(&mut self, at: String, record: MessageRecord) {
        let checked = normalize_thread_id("conversation", &record.conversation)
            .and_then(|_| record.clone().into_message())
            .map_err(|e| e.to_string())
            .and_then(|_| self.first_use(record.id.as_deref()));
        match checked {
            Ok(()) => self.parsed.messages.push(record),
            Err(e) => self.problem(at, e),
        }
    }

    fn done(self) -> Parsed {
        self.parsed
    }
}

/// An item's problem, as reported.
type ItemResult<T> = std::result::Result<T, String>;

/// The whole text as JSON, or an error saying it is not a `what` export
/// and what one looks like.
fn json(text: &str, what: &str, shape: &str) -> Result<Value> {
    serde_json::from_str(text).map_err(|e| {
        Error::invalid(format!(
            "not a {what} export: the text is not JSON ({e}); expected {shape}"
        ))
    })
}

/// The error for JSON of the wrong shape.
fn wrong_shape(what: &str, shape: &str, found: &str) -> Error {
    Error::invalid(format!(
        "not a {what} export: expected {shape}, found {found}"
    ))
}

/// A short name for the kind of a JSON value, for error messages.
fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// The items of a list: `value` itself, or the list under `key` of an
/// object. `None` for any other shape.
fn list_or_under<'a>(value: &'a Value, key: &str) -> Option<&'a [Value]> {
    match value {
        Value::Array(items) => Some(items),
        Value::Object(o) => o.get(key).and_then(Value::as_array).map(Vec::as_slice),
        _ => None,
    }
}

/// Refuse a non-empty list in which no item is an object with `field`:
/// the file is some other format's.
fn expect_field(items: &[Value], field: &str, what: &str, shape: &str) -> Result<()> {
    let any = items
        .iter()
        .any(|v| v.as_object().is_some_and(|o| o.contains_key(field)));
    if items.is_empty() || any {
        Ok(())
    } else {
        Err(wrong_shape(
            what,
            shape,
            &format!("{}, none with `{field}`", counted(items.len(), "item")),
        ))
    }
}

/// `n` and the noun, plural unless `n` is 1: `1 item`, `3 items`.
fn counted(n: usize, noun: &str) -> String {
    match n {
        1 => format!("1 {noun}"),
        _ => format!("{n} {noun}s"),
    }
}

/// The item as an object, or why it is not one.
fn object(v: &Value) -> ItemResult<&Map<String, Value>> {
    v.as_object()
        .ok_or_else(|| format!("expected an object, found {}", kind_of(v)))
}

/// A field that is present and not null.
fn field<'a>(o: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    o.get(key).filter(|v| !v.is_null())
}

/// The first of `keys` present and not null, with its name.
fn first<'a>(o: &'a Map<String, Value>, keys: &[&'a str]) -> Option<(&'a str, &'a Value)> {
    keys.iter().find_map(|k| field(o, k).map(|v| (*k, v)))
}

/// A text field, if present; an error if it is there but not text.
fn text<'a>(o: &'a Map<String, Value>, key: &str) -> ItemResult<Option<&'a str>> {
    match field(o, key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(v) => Err(format!("`{key}` is {}, not text", kind_of(v))),
    }
}

/// A text field that must be present.
fn required_text<'a>(o: &'a Map<String, Value>, key: &str) -> ItemResult<&'a str> {
    text(o, key)?.ok_or_else(|| format!("`{key}` is missing"))
}

/// A list of texts (tags, categories); absent is empty.
fn texts(o: &Map<String, Value>, key: &str) -> ItemResult<Vec<String>> {
    match field(o, key) {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| match v {
                Value::String(s) => Ok(s.clone()),
                other => Err(format!("`{key}` holds {}, not text", kind_of(other))),
            })
            .collect(),
        Some(v) => Err(format!("`{key}` is {}, not a list of texts", kind_of(v))),
    }
}

/// A number field, if present.
fn number(o: &Map<String, Value>, key: &str) -> ItemResult<Option<f64>> {
    match field(o, key) {
        None => Ok(None),
        Some(v) => v
            .as_f64()
            .map(Some)
            .ok_or_else(|| format!("`{key}` is {}, not a number", kind_of(v))),
    }
}

/// An object field (metadata), if present.
fn metadata_of(o: &Map<String, Value>, key: &str) -> ItemResult<Map<String, Value>> {
    match field(o, key) {
        None => Ok(Map::new()),
        Some(Value::Object(m)) => Ok(m.clone()),
        Some(v) => Err(format!("`{key}` is {}, not an object", kind_of(v))),
    }
}

/// Copy every field of `o` not in `taken` (and not null) into `metadata`.
fn keep_rest(o: &Map<String, Value>, taken: &[&str], metadata: &mut Map<String, Value>) {
    for (k, v) in o {
        if !v.is_null() && !taken.contains(&k.as_str()) {
            metadata.insert(k.clone(), v.clone());
        }
    }
}

/// `Some(metadata)`, or `None` when it is empty.
fn non_empty(metadata: Map<String, Value>) -> Option<Map<String, Value>> {
    (!metadata.is_empty()).then_some(metadata)
}

/// The id to give a record: a UUID as given (hyphenated, lowercase);
/// anything else is kept in `metadata` as `foreign_id` and `None` lets the
/// import make one.
fn id_of(v: Option<&Value>, metadata: &mut Map<String, Value>) -> Option<String> {
    match v? {
        Value::String(s) => match uuid::Uuid::parse_str(s.trim()) {
            Ok(u) => Some(u.hyphenated().to_string()),
            Err(_) => {
                metadata.insert("foreign_id".into(), Value::String(s.clone()));
                None
            }
        },
        Value::Null => None,
        other => {
            metadata.insert("foreign_id".into(), other.clone());
            None
        }
    }
}

/// A time field as milliseconds since the epoch: a number of seconds, or
/// a text (RFC 3339, a date, or a date and time without offset, read as
/// UTC).
fn millis(o: &Map<String, Value>, key: &str) -> ItemResult<Option<Timestamp>> {
    match field(o, key) {
        None => Ok(None),
        Some(Value::Number(n)) => {
            // 1e13 s is some 300,000 years: past any time a record can hold.
            let secs = n.as_f64().filter(|s| s.is_finite() && s.abs() < 1e13);
            secs.map(|s| Some((s * 1000.0).round() as Timestamp))
                .ok_or_else(|| format!("`{key}`: {n} is not a number of seconds since 1970"))
        }
        Some(Value::String(s)) => time_text(s).map(Some).map_err(|e| format!("`{key}`: {e}")),
        Some(v) => Err(format!("`{key}` is {}, not a time", kind_of(v))),
    }
}

/// A time field in Cairn's form (RFC 3339, UTC, milliseconds).
fn time(o: &Map<String, Value>, key: &str) -> ItemResult<Option<String>> {
    Ok(millis(o, key)?.map(format_timestamp))
}

/// A time written as text: what [`parse_timestamp`] reads, or an ISO 8601
/// date and time without an offset (Python's `datetime.isoformat()` of a
/// naive time), read as UTC.
fn time_text(s: &str) -> ItemResult<Timestamp> {
    parse_timestamp(s).or_else(|e| {
        ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%d %H:%M:%S%.f"]
            .iter()
            .find_map(|f| chrono::NaiveDateTime::parse_from_str(s.trim(), f).ok())
            .map(|t| t.and_utc().timestamp_millis())
            .ok_or_else(|| e.to_string())
    })
}

/// The Cairn type named `name` (any case), if there is one.
fn cairn_type(name: &str) -> Option<MemoryType> {
    name.parse().ok()
}

/// The type of a memory from a foreign type name: the Cairn type `mapped`
/// gives for its lowercase form, else `note`; a name other than the chosen
/// type's own is kept in `metadata` as `foreign_type`.
fn memory_type(
    name: Option<&str>,
    mapped: impl Fn(&str) -> Option<MemoryType>,
    metadata: &mut Map<String, Value>,
) -> MemoryType {
    let Some(name) = name else {
        return MemoryType::Note;
    };
    let lower = name.trim().to_ascii_lowercase();
    let kind = mapped(&lower).unwrap_or(MemoryType::Note);
    if kind.as_str() != lower {
        metadata.insert("foreign_type".into(), Value::String(name.to_string()));
    }
    kind
}

/// The text of a message's time: the item's own, else the time of the
/// message before it in the conversation.
fn carry_time(own: Option<Timestamp>, last: &mut Option<Timestamp>) -> Option<String> {
    if own.is_some() {
        *last = own;
    }
    last.map(format_timestamp)
}

/// A chat export: a list of conversations (or one conversation, an object
/// holding `key`), each read by `conversation`; a conversation that fails
/// is reported as `conversations[i]` and skipped whole.
fn conversations(
    text: &str,
    what: &str,
    shape: &str,
    key: &str,
    conversation: fn(&mut Collect, usize, &Value) -> ItemResult<()>,
) -> Result<Parsed> {
    let value = json(text, what, shape)?;
    let items = match &value {
        Value::Array(items) => items.as_slice(),
        Value::Object(o) if o.contains_key(key) => std::slice::from_ref(&value),
        other => return Err(wrong_shape(what, shape, kind_of(other))),
    };
    expect_field(items, key, what, shape)?;
    let mut parsed = Collect::default();
    for (i, item) in items.iter().enumerate() {
        if let Err(e) = conversation(&mut parsed, i, item) {
            parsed.problem(format!("conversations[{i}]"), e);
        }
    }
    Ok(parsed.done())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_seconds_rfc3339_dates_and_naive_times() {
        let o = serde_json::json!({
            "secs": 1700000000.5,
            "rfc": "2024-07-25T23:57:00.108367-07:00",
            "date": "2024-01-02",
            "naive": "2024-01-01T12:00:00.250000",
            "naive_space": "2024-01-01 12:00:00",
            "bad": "last tuesday",
            "list": [1],
        });
        let o = o.as_object().unwrap();
        let t = |k| time(o, k);
        assert_eq!(t("secs").unwrap().unwrap(), "2023-11-14T22:13:20.500Z");
        assert_eq!(t("rfc").unwrap().unwrap(), "2024-07-26T06:57:00.108Z");
        assert_eq!(t("date").unwrap().unwrap(), "2024-01-02T00:00:00.000Z");
        assert_eq!(t("naive").unwrap().unwrap(), "2024-01-01T12:00:00.250Z");
        assert_eq!(
            t("naive_space").unwrap().unwrap(),
            "2024-01-01T12:00:00.000Z"
        );
        assert_eq!(t("missing").unwrap(), None);
        assert!(t("bad")
            .unwrap_err()
            .starts_with("`bad`: `last tuesday` is not a time"));
        assert_eq!(t("list").unwrap_err(), "`list` is a list, not a time");
    }

    #[test]
    fn uuids_are_kept_and_other_ids_become_foreign_ids() {
        let mut m = Map::new();
        let v = Value::from("F38B689D-6B24-45B7-BCED-17FBB4D8BAC7");
        assert_eq!(
            id_of(Some(&v), &mut m).unwrap(),
            "f38b689d-6b24-45b7-bced-17fbb4d8bac7"
        );
        assert!(m.is_empty());
        assert_eq!(id_of(Some(&Value::from("mem-42")), &mut m), None);
        assert_eq!(id_of(Some(&Value::from(7)), &mut Map::new()), None);
        assert_eq!(m["foreign_id"], "mem-42");
    }

    /// Every fixture's records go through the import and the conversation
    /// import as they are: none is refused.
    #[test]
    fn what_the_fixtures_give_imports_whole() {
        use std::sync::Arc;

        use cairn_core::conformance::LexicalEmbedder;
        use cairn_core::engine::ObserveRequest;
        use cairn_core::{Cairn, MemoryId, MemoryStore};

        let cairn = Cairn::new(Arc::new(MemoryStore::new()), Arc::new(LexicalEmbedder));
        let fixtures = [
            (Foreign::Mem0, include_str!("../tests/fixtures/mem0.json")),
            (
                Foreign::Memori,
                include_str!("../tests/fixtures/memori.jsonl"),
            ),
            (
                Foreign::Mememory,
                include_str!("../tests/fixtures/mememory.json"),
            ),
            (
                Foreign::Memcord,
                include_str!("../tests/fixtures/memcord_slot.json"),
            ),
            (
                Foreign::ChatGpt,
                include_str!("../tests/fixtures/chatgpt_conversations.json"),
            ),
            (
                Foreign::Claude,
                include_str!("../tests/fixtures/claude_conversations.json"),
            ),
        ];
        for (from, text) in fixtures {
            let parsed = parse(from, text).unwrap();
            let n = parsed.memories.len();
            let records = parsed.memories.into_iter().map(Ok).enumerate();
            let report = cairn
                .import("t", records, true, "local", &mut |_| {})
                .unwrap();
            assert_eq!((report.imported, report.errors.len()), (n, 0), "{from}");
            let n = parsed.messages.len();
            let messages: Vec<_> = parsed
                .messages
                .into_iter()
                .map(|m| m.into_message().unwrap())
                .collect();
            let req = ObserveRequest {
                tenant: "t".into(),
                project: None,
                actor: "local".into(),
            };
            let report = cairn.observe(&req, messages, &mut |_| {}).unwrap();
            assert_eq!(report.logged.len(), n, "{from}");
        }
        // mememory's supersession holds in Cairn.
        let old: MemoryId = "a1b2c3d4-0000-4000-8000-000000000002".parse().unwrap();
        let new: MemoryId = "a1b2c3d4-0000-4000-8000-000000000003".parse().unwrap();
        let stored = cairn.store().get("t", &[old]).unwrap();
        assert_eq!(stored[0].superseded_by, Some(new));
    }

    #[test]
    fn an_id_given_twice_keeps_the_first() {
        let id = "f38b689d-6b24-45b7-bced-17fbb4d8bac7";
        let text = format!(
            r#"[{{"id": "{id}", "memory": "first"}}, {{"id": "{}", "memory": "second"}}]"#,
            id.to_uppercase()
        );
        let parsed = parse(Foreign::Mem0, &text).unwrap();
        assert_eq!(parsed.memories.len(), 1);
        assert_eq!(parsed.memories[0].content, "first");
        assert_eq!(
            parsed.problems,
            vec![Problem {
                at: "memories[1]".into(),
                message: format!("id {id} appears twice in the export; the first is kept"),
            }]
        );
    }

    #[test]
    fn wrong_shapes_name_the_expected_one() {
        for f in Foreign::ALL {
            let err = parse(*f, "{\"hello\": 1}").unwrap_err().to_string();
            let named = err
                .to_lowercase()
                .starts_with(&format!("not a {f} export: expected "));
            assert!(named, "{f}: {err}");
        }
        let err = parse(Foreign::Mem0, "not json").unwrap_err().to_string();
        assert!(
            err.starts_with("not a mem0 export: the text is not JSON"),
            "{err}"
        );
    }
}
