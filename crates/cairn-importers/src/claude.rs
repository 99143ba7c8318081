//! Claude: the data export's `conversations.json`, as conversation
//! messages.
//!
//! A conversation: `uuid`, `name`, `created_at`, `updated_at` and
//! `chat_messages`, in the order they were said. A message: `uuid`,
//! `sender` (`human` or `assistant`), `text`, `content` (blocks: `text`,
//! `tool_use`, `tool_result`, `thinking`…), `created_at`, `attachments`
//! (`file_name`, `extracted_content`…) and `files` (`file_name`).

use serde_json::{Map, Value};

use super::{
    carry_time, conversations, field, id_of, kind_of, millis, non_empty, object, required_text,
    text, Collect, ItemResult, Parsed,
};
use cairn_core::memory::Timestamp;
use cairn_core::wire::MessageRecord;
use cairn_core::Result;

const WHAT: &str = "Claude";
const SHAPE: &str = "a list of conversations, each with `uuid` and `chat_messages`";

pub(super) fn parse(text: &str) -> Result<Parsed> {
    conversations(text, WHAT, SHAPE, "chat_messages", conversation)
}

/// The messages of conversation `i`; an error skips the whole
/// conversation (and comes before any of its messages).
fn conversation(parsed: &mut Collect, i: usize, item: &Value) -> ItemResult<()> {
    let o = object(item)?;
    let id = required_text(o, "uuid")?;
    let title = text(o, "name")?.filter(|t| !t.trim().is_empty());
    let messages = match field(o, "chat_messages") {
        Some(Value::Array(m)) => m,
        Some(v) => return Err(format!("`chat_messages` is {}, not a list", kind_of(v))),
        None => return Err("`chat_messages` is missing".into()),
    };
    // A message without a time takes the time of the one before it; the
    // first, the conversation's.
    let mut last = millis(o, "created_at")?;
    for (j, m) in messages.iter().enumerate() {
        let at = format!("conversations[{i}].chat_messages[{j}]");
        match message(m, id, title, &mut last) {
            Ok(Some(record)) => parsed.message(at, record),
            Ok(None) => {}
            Err(e) => parsed.problem(at, e),
        }
    }
    Ok(())
}

/// A message, unless it has no text (a turn of tool use only).
///
/// The text is that of the `text` blocks of `content`, a blank line
/// between blocks (tool use, tool results and thinking left out), else the
/// message's `text`.
fn message(
    item: &Value,
    conversation: &str,
    title: Option<&str>,
    last: &mut Option<Timestamp>,
) -> ItemResult<Option<MessageRecord>> {
    let o = object(item)?;
    let sender = required_text(o, "sender")?;
    let role = match sender.to_ascii_lowercase().as_str() {
        "human" | "user" => "user",
        "assistant" => "assistant",
        _ => {
            return Err(format!(
                "unknown sender `{sender}`: expected `human` or `assistant`"
            ))
        }
    };
    let at = carry_time(millis(o, "created_at")?, last);
    let blocks: Vec<&str> = match field(o, "content") {
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .filter(|t| !t.trim().is_empty())
            .collect(),
        _ => Vec::new(),
    };
    let said = if blocks.is_empty() {
        text(o, "text")?.unwrap_or_default().to_string()
    } else {
        blocks.join("\n\n")
    };
    if said.trim().is_empty() {
        return Ok(None);
    }
    let mut metadata = Map::new();
    if let Some(t) = title {
        metadata.insert("title".into(), Value::String(t.to_string()));
    }
    let files = attachments(o);
    if !files.is_empty() {
        metadata.insert("attachments".into(), files.into());
    }
    let id = id_of(o.get("uuid"), &mut metadata);
    Ok(Some(MessageRecord {
        conversation: conversation.to_string(),
        role: Some(role.to_string()),
        text: said,
        at,
        id,
        metadata: non_empty(metadata),
        ..MessageRecord::default()
    }))
}

/// The names of the files attached to a message (`attachments` and
/// `files`), each once, in order.
fn attachments(o: &Map<String, Value>) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for key in ["attachments", "files"] {
        let Some(Value::Array(files)) = o.get(key) else {
            continue;
        };
        for name in files
            .iter()
            .filter_map(|f| f.get("file_name").and_then(Value::as_str))
        {
            if !names.iter().any(|n| n == name) {
                names.push(name.to_string());
            }
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::{parse, Foreign, Problem};
    use cairn_core::wire::MessageRecord;

    fn meta(v: serde_json::Value) -> Option<serde_json::Map<String, serde_json::Value>> {
        v.as_object().cloned()
    }

    #[test]
    fn the_fixture_gives_its_messages_in_order_and_reports_the_bad_ones() {
        let parsed = parse(
            Foreign::Claude,
            include_str!("../tests/fixtures/claude_conversations.json"),
        )
        .unwrap();
        let trip = "3f1e2d3c-4b5a-4697-8887-766554433221";
        let message = |id: &str, role: &str, text: &str, at: &str| MessageRecord {
            conversation: trip.into(),
            role: Some(role.into()),
            text: text.into(),
            at: Some(at.into()),
            id: Some(format!("11111111-aaaa-4bbb-8ccc-00000000000{id}")),
            metadata: meta(json!({"title": "Trip planning"})),
            ..MessageRecord::default()
        };
        assert_eq!(
            parsed.messages,
            vec![
                message(
                    "1",
                    "user",
                    "Plan a 3-day trip to Lisbon",
                    "2024-05-01T09:00:01.123Z"
                ),
                message(
                    "2",
                    "assistant",
                    "Let me check the weather first.\n\nDay 1: Alfama and the castle. Day 2: \
                     Belém. Day 3: Sintra.",
                    "2024-05-01T09:00:20.500Z"
                ),
                MessageRecord {
                    metadata: meta(json!({
                        "title": "Trip planning", "attachments": ["budget.csv"]
                    })),
                    ..message("3", "user", "Here is my budget", "2024-05-01T09:05:00.000Z")
                },
                // …0004 is tool use only.
                message(
                    "5",
                    "assistant",
                    "With 300 euros for the hotel, stay in Baixa.",
                    "2024-05-01T09:05:30.000Z"
                ),
                MessageRecord {
                    conversation: "4a5b6c7d-8e9f-4a0b-9c1d-2e3f4a5b6c7d".into(),
                    role: Some("user".into()),
                    text: "Is the picnic still on?".into(),
                    at: Some("2024-06-01T10:00:00.000Z".into()),
                    id: None,
                    metadata: meta(json!({"foreign_id": "msg-3"})),
                    ..MessageRecord::default()
                },
            ]
        );
        assert!(parsed.memories.is_empty());
        assert_eq!(
            parsed.problems,
            vec![
                Problem {
                    at: "conversations[1].chat_messages[0]".into(),
                    message: "unknown sender `robot`: expected `human` or `assistant`".into(),
                },
                Problem {
                    at: "conversations[1].chat_messages[1]".into(),
                    message: "`created_at`: `soon` is not a time: use RFC 3339 \
                              (2026-11-22T09:48:35Z) or a date (2026-11-22)"
                        .into(),
                },
                Problem {
                    at: "conversations[2]".into(),
                    message: "`uuid` is missing".into(),
                },
            ]
        );
    }

    #[test]
    fn one_conversation_is_read_and_other_shapes_are_refused() {
        let one = json!({
            "uuid": "c-1",
            "chat_messages": [{"sender": "assistant", "text": "Hi", "created_at": "2024-01-01"}]
        });
        let parsed = parse(Foreign::Claude, &one.to_string()).unwrap();
        assert_eq!(parsed.messages.len(), 1);
        assert_eq!(parsed.messages[0].conversation, "c-1");
        let bad_id = json!([{"uuid": "a/b", "chat_messages": [{"sender": "human", "text": "x"}]}]);
        let parsed = parse(Foreign::Claude, &bad_id.to_string()).unwrap();
        assert_eq!(
            parsed.problems,
            vec![Problem {
                at: "conversations[0].chat_messages[0]".into(),
                message: "conversation id `a/b` is invalid: use at most 128 printable \
                          characters, without `/`"
                    .into(),
            }]
        );
        let err = parse(
            Foreign::Claude,
            include_str!("../tests/fixtures/chatgpt_conversations.json"),
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .ends_with("found 4 items, none with `chat_messages`"),
            "{err}"
        );
    }
}
