//! ChatGPT: the data export's `conversations.json`, as conversation
//! messages.
//!
//! A conversation: `title`, `create_time` (seconds since the epoch),
//! `conversation_id` (or `id`), `current_node` and `mapping`, a tree of
//! nodes `{id, parent, children, message}`; a regenerated reply or an
//! edited prompt starts a branch. The messages kept are those on the path
//! from the root to `current_node` (the branch the user last saw), in
//! order. A message: `id`, `author.role`, `create_time`, `content`
//! (`content_type` and `parts`), `recipient`, `metadata` (`model_slug`,
//! `is_visually_hidden_from_conversation`).

use serde_json::{Map, Value};

use super::{
    carry_time, conversations, field, first, id_of, kind_of, millis, non_empty, object,
    required_text, text, Collect, ItemResult, Parsed,
};
use cairn_core::memory::Timestamp;
use cairn_core::wire::MessageRecord;
use cairn_core::Result;

const WHAT: &str = "ChatGPT";
const SHAPE: &str = "a list of conversations, each with `mapping` and `current_node`";

pub(super) fn parse(text: &str) -> Result<Parsed> {
    conversations(text, WHAT, SHAPE, "mapping", conversation)
}

/// The messages of conversation `i` on its current branch; an error
/// skips the whole conversation (and comes before any of its messages).
fn conversation(parsed: &mut Collect, i: usize, item: &Value) -> ItemResult<()> {
    let o = object(item)?;
    let id = match first(o, &["conversation_id", "id"]) {
        Some((_, Value::String(s))) => s.as_str(),
        Some((key, v)) => return Err(format!("`{key}` is {}, not text", kind_of(v))),
        None => return Err("`id` is missing".into()),
    };
    let title = text(o, "title")?.filter(|t| !t.trim().is_empty());
    let mapping = match field(o, "mapping") {
        Some(Value::Object(m)) => m,
        Some(v) => return Err(format!("`mapping` is {}, not an object", kind_of(v))),
        None => return Err("`mapping` is missing".into()),
    };
    let current = required_text(o, "current_node")?;
    let branch = branch(mapping, current)?;
    // A message without a time takes the time of the one before it; the
    // first, the conversation's.
    let mut last = millis(o, "create_time")?;
    for (node_id, node) in branch {
        let at = format!("conversations[{i}].mapping.{node_id}");
        match message(node, id, title, &mut last) {
            Ok(Some(record)) => parsed.message(at, record),
            Ok(None) => {}
            Err(e) => parsed.problem(at, e),
        }
    }
    Ok(())
}

/// The nodes from the root to `current`, following `parent` links.
fn branch<'a>(
    mapping: &'a Map<String, Value>,
    current: &'a str,
) -> ItemResult<Vec<(&'a str, &'a Map<String, Value>)>> {
    let mut path = Vec::new();
    let mut next = Some(current);
    while let Some(id) = next {
        if path.len() == mapping.len() {
            return Err(format!(
                "the `parent` links from `current_node` loop back on themselves (at `{id}`)"
            ));
        }
        let node = mapping
            .get(id)
            .ok_or_else(|| format!("node `{id}` of the current branch is not in `mapping`"))?;
        let node = object(node).map_err(|e| format!("node `{id}`: {e}"))?;
        next = text(node, "parent").map_err(|e| format!("node `{id}`: {e}"))?;
        path.push((id, node));
    }
    path.reverse();
    Ok(path)
}

/// A node's message, if it is one to keep: said by the user or the
/// assistant to the other (not to a tool), shown in the conversation,
/// with text. System and tool messages, code sent to tools, hidden
/// messages, images, and messages of no text give `None`.
fn message(
    node: &Map<String, Value>,
    conversation: &str,
    title: Option<&str>,
    last: &mut Option<Timestamp>,
) -> ItemResult<Option<MessageRecord>> {
    let Some(m) = field(node, "message") else {
        return Ok(None);
    };
    let m = object(m)?;
    let author = field(m, "author").ok_or("`author` is missing")?;
    let role = required_text(object(author)?, "role")?;
    let at = carry_time(millis(m, "create_time")?, last);
    let meta = field(m, "metadata").and_then(Value::as_object);
    let hidden = meta
        .and_then(|x| x.get("is_visually_hidden_from_conversation"))
        .and_then(Value::as_bool)
        == Some(true);
    let to_a_tool = text(m, "recipient")?.is_some_and(|r| r != "all");
    if !matches!(role, "user" | "assistant") || hidden || to_a_tool {
        return Ok(None);
    }
    let content = object(field(m, "content").ok_or("`content` is missing")?)?;
    if !matches!(
        required_text(content, "content_type")?,
        "text" | "multimodal_text"
    ) {
        return Ok(None);
    }
    // Parts that are not text are attachments (images, files).
    let parts: Vec<&str> = match field(content, "parts") {
        Some(Value::Array(parts)) => parts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let said = parts.join("\n");
    if said.trim().is_empty() {
        return Ok(None);
    }
    let mut metadata = Map::new();
    if let Some(t) = title {
        metadata.insert("title".into(), Value::String(t.to_string()));
    }
    if let Some(model) = meta
        .and_then(|x| x.get("model_slug"))
        .filter(|v| v.is_string())
    {
        metadata.insert("model".into(), model.clone());
    }
    let id = id_of(m.get("id"), &mut metadata);
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::{parse, Foreign, Problem};
    use cairn_core::wire::MessageRecord;

    fn meta(v: serde_json::Value) -> Option<serde_json::Map<String, serde_json::Value>> {
        v.as_object().cloned()
    }

    #[test]
    fn the_current_branch_is_taken_in_order_and_bad_items_are_reported() {
        let parsed = parse(
            Foreign::ChatGpt,
            include_str!("../tests/fixtures/chatgpt_conversations.json"),
        )
        .unwrap();
        let first = "67a1f0e2-8c3d-8000-9e1f-0a1b2c3d4e5f";
        let second = "67a1f0e2-9d4e-8000-aaaa-111111111111";
        let message = |conversation: &str, role: &str, text: &str, at: &str| MessageRecord {
            conversation: conversation.into(),
            role: Some(role.into()),
            text: text.into(),
            at: Some(at.into()),
            ..MessageRecord::default()
        };
        assert_eq!(
            parsed.messages,
            vec![
                MessageRecord {
                    id: Some("aaa21b4c-1d2e-4f30-8a41-5b6c7d8e9f00".into()),
                    metadata: meta(json!({"title": "Reversing a list"})),
                    ..message(
                        first,
                        "user",
                        "How do I reverse a list in Python?",
                        "2023-11-14T22:13:20.500Z"
                    )
                },
                // The regenerated reply (…0002), not the first one (…0001).
                MessageRecord {
                    id: Some("e1b2c3d4-1111-4aaa-8bbb-000000000002".into()),
                    metadata: meta(json!({"title": "Reversing a list", "model": "gpt-4o"})),
                    ..message(
                        first,
                        "assistant",
                        "Call my_list.reverse() to reverse it in place, or use my_list[::-1] \
                         for a reversed copy.",
                        "2023-11-14T22:13:50.000Z"
                    )
                },
                MessageRecord {
                    id: Some("aaa2c3d4-2222-4bbb-8ccc-000000000003".into()),
                    metadata: meta(json!({"title": "Reversing a list"})),
                    ..message(
                        first,
                        "user",
                        "And for a string, like the one in this screenshot?",
                        "2023-11-14T22:15:00.000Z"
                    )
                },
                MessageRecord {
                    id: Some("e1b2c3d4-1111-4aaa-8bbb-000000000006".into()),
                    metadata: meta(json!({"title": "Reversing a list", "model": "gpt-4o"})),
                    ..message(
                        first,
                        "assistant",
                        "Strings have no reverse(), but slicing works: s[::-1].",
                        "2023-11-14T22:15:10.250Z"
                    )
                },
                // No time: the conversation's.
                MessageRecord {
                    metadata: meta(json!({"title": "Naming a cat", "foreign_id": "b-u1"})),
                    ..message(
                        second,
                        "user",
                        "Suggest a name for a grey cat",
                        "2023-11-16T02:00:00.000Z"
                    )
                },
                // No time: the one of the empty reply before it.
                MessageRecord {
                    metadata: meta(json!({"title": "Naming a cat", "foreign_id": "b-a3"})),
                    ..message(
                        second,
                        "assistant",
                        "How about Ash?",
                        "2023-11-16T02:00:04.000Z"
                    )
                },
            ]
        );
        assert!(parsed.memories.is_empty());
        assert_eq!(
            parsed.problems,
            vec![
                Problem {
                    at: "conversations[1].mapping.b-a2".into(),
                    message: "`author` is missing".into(),
                },
                Problem {
                    at: "conversations[2]".into(),
                    message: "`mapping` is missing".into(),
                },
                Problem {
                    at: "conversations[3]".into(),
                    message: "node `gone` of the current branch is not in `mapping`".into(),
                },
            ]
        );
    }

    #[test]
    fn one_conversation_is_read_a_loop_is_reported_and_other_shapes_refused() {
        let looped = json!({
            "id": "c1", "current_node": "a",
            "mapping": {"a": {"parent": "b"}, "b": {"parent": "a"}}
        });
        let parsed = parse(Foreign::ChatGpt, &looped.to_string()).unwrap();
        assert_eq!(
            parsed.problems,
            vec![Problem {
                at: "conversations[0]".into(),
                message: "the `parent` links from `current_node` loop back on themselves \
                          (at `a`)"
                    .into(),
            }]
        );
        let err = parse(
            Foreign::ChatGpt,
            include_str!("../tests/fixtures/claude_conversations.json"),
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "not a ChatGPT export: expected a list of conversations, each with `mapping` and \
             `current_node`, found 3 items, none with `mapping`"
        );
    }
}
