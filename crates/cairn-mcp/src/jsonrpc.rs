//! The check every incoming message passes before rmcp sees it, on both
//! transports (stdio lines and HTTP bodies), and the JSON-RPC errors that
//! answer the messages it stops.
//!
//! rmcp parses a message into its typed form with `serde_json`, which
//! refuses anything nested [`MAX_DEPTH`] levels deep or more. rmcp then
//! drops such a line on stdio without a word (it reads the depth error as
//! "not JSON"), leaving the client waiting forever, and answers it over
//! HTTP with a bare 415. So a message is [`classify`]ed here first:
//!
//! - [`Incoming::Message`]: JSON within the depth limit; it goes to rmcp
//!   unchanged.
//! - [`Incoming::NotJson`]: answered with the parse error ([`parse_error`],
//!   -32700, `id: null`).
//! - [`Incoming::TooDeep`]: valid JSON nested too deeply; a request is
//!   answered with Invalid Request ([`too_deep_error`], -32600) carrying its
//!   own `id`; a notification gets no reply, as JSON-RPC asks.
//!
//! The common case costs one pass over the message, which allocates
//! nothing and stops at the same depth as rmcp's parse (it is the same
//! `serde_json` limit). Only a message that fails it is read again.
//!
//! This module never answers anything itself: the transports decide how an
//! answer travels (a line on stdout, an HTTP 400 body).

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// The nesting depth (arrays and objects inside one another, the outermost
/// counting as 1) at which `serde_json`, and so rmcp, refuses a message:
/// its fixed recursion limit of 128 leaves 127 usable levels.
pub const MAX_DEPTH: usize = 128;

/// What an incoming message is, as far as the transports care.
#[derive(Debug)]
pub enum Incoming {
    /// JSON within the depth limit: hand it to rmcp unchanged.
    Message,
    /// Not JSON (or not UTF-8): the parser's complaint.
    NotJson(serde_json::Error),
    /// Valid JSON nested [`MAX_DEPTH`] levels deep or more.
    TooDeep(TooDeep),
}

/// A message nested too deeply, and who should hear about it.
#[derive(Debug, Clone, PartialEq)]
pub enum TooDeep {
    /// A request: answer with this id (`null` when it could not be read,
    /// or when the message has no `method` and so is no request whose id
    /// the client is waiting on).
    Request {
        /// The `id` to answer with.
        id: Value,
    },
    /// A notification (a `method` and no `id`): JSON-RPC forbids a reply.
    Notification {
        /// Its `method`, for the log (`None` when not a string).
        method: Option<String>,
    },
}

/// Classify one message (a stdio line or an HTTP body).
pub fn classify(message: &[u8]) -> Incoming {
    let Err(e) = serde_json::from_slice::<DepthChecked>(message) else {
        return Incoming::Message;
    };
    if !is_depth_error(&e) {
        return Incoming::NotJson(e);
    }
    // The depth limit can strike before a syntax error further on.
    // `IgnoredAny` skips values without the limit: if it fails, the message
    // is not JSON at all, and its error names the real fault.
    match serde_json::from_slice::<IgnoredAny>(message) {
        Err(e) => Incoming::NotJson(e),
        Ok(_) => Incoming::TooDeep(too_deep(message)),
    }
}

/// Whether `serde_json` stopped at its recursion limit. Its error has no
/// public code, only this text; the unit tests below fail if it changes.
fn is_depth_error(e: &serde_json::Error) -> bool {
    e.classify() == serde_json::error::Category::Syntax
        && e.to_string().starts_with("recursion limit exceeded")
}

/// Who sent a message that is valid JSON but too deep (see [`TooDeep`]).
fn too_deep(message: &[u8]) -> TooDeep {
    match serde_json::from_slice::<Envelope>(message) {
        Ok(Envelope {
            id: None,
            method: Some(method),
        }) => TooDeep::Notification {
            method: method.as_str().map(str::to_string),
        },
        Ok(Envelope {
            id: Some(id),
            method: Some(_),
        }) => TooDeep::Request { id },
        // A response, a batch, or an id nested too deeply itself.
        Ok(_) | Err(_) => TooDeep::Request { id: Value::Null },
    }
}

/// The top of a JSON-RPC message; every other member, however deep, is
/// skipped with `IgnoredAny`, which has no depth limit.
#[derive(serde::Deserialize)]
struct Envelope {
    /// `None` when absent; `Some(Value::Null)` for `"id": null`.
    #[serde(default, deserialize_with = "present")]
    id: Option<Value>,
    /// Any JSON value: only its presence makes a request or notification.
    #[serde(default, deserialize_with = "present")]
    method: Option<Value>,
}

fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// Reads any JSON value and keeps nothing, but (unlike `IgnoredAny`) goes
/// through `deserialize_any` at every level, where `serde_json` applies its
/// recursion limit.
struct DepthChecked;

impl<'de> Deserialize<'de> for DepthChecked {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(DepthChecked)
    }
}

impl<'de> Visitor<'de> for DepthChecked {
    type Value = DepthChecked;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Self, E> {
        Ok(self)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self, E> {
        Ok(self)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self, E> {
        Ok(self)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self, E> {
        Ok(self)
    }
    fn visit_str<E>(self, _: &str) -> Result<Self, E> {
        Ok(self)
    }
    fn visit_unit<E>(self) -> Result<Self, E> {
        Ok(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self, A::Error> {
        while seq.next_element::<DepthChecked>()?.is_some() {}
        Ok(self)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self, A::Error> {
        while map.next_key::<IgnoredAny>()?.is_some() {
            map.next_value::<DepthChecked>()?;
        }
        Ok(self)
    }
}

/// The JSON-RPC 2.0 parse error for a message that is not JSON.
pub fn parse_error(problem: &str) -> Value {
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {
            "code": -32700,
            "message": format!("Parse error: the message is not JSON ({problem}); send one JSON-RPC message"),
        },
    })
}

/// The JSON-RPC 2.0 Invalid Request error for a request nested too deeply.
pub fn too_deep_error(id: Value) -> Value {
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {
            "code": -32600,
            "message": format!(
                "Invalid Request: the message is nested {MAX_DEPTH} or more levels deep \
                 (arrays and objects inside one another), more than the server's JSON parser \
                 accepts; flatten the arguments"
            ),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `depth` arrays inside one another.
    fn nested(depth: usize) -> String {
        format!("{}{}", "[".repeat(depth), "]".repeat(depth))
    }

    /// A tools/call whose argument holds `nested(depth)`; its own objects
    /// (message, params, arguments, metadata) add 4 levels. `id` is the
    /// `"id":…,` member, or empty for a notification.
    fn call(id: &str, depth: usize) -> String {
        format!(
            r#"{{"jsonrpc":"2.0",{id}"method":"tools/call","params":{{"name":"remember","arguments":{{"content":"x","metadata":{{"a":{}}}}}}}}}"#,
            nested(depth)
        )
    }

    #[test]
    fn ordinary_messages_pass() {
        for m in [
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"a":[1,-2,3.5,"s\"",true,false,null,{"b":{}}]}"#,
            "  [] ",
            "\"just a string\"",
        ] {
            assert!(matches!(classify(m.as_bytes()), Incoming::Message), "{m}");
        }
    }

    #[test]
    fn the_limit_is_serde_json_s_own() {
        // What rmcp's typed parse accepts is exactly what passes here.
        for depth in [MAX_DEPTH - 2, MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1, 200] {
            let m = nested(depth);
            let serde_ok = serde_json::from_str::<Value>(&m).is_ok();
            assert_eq!(serde_ok, depth < MAX_DEPTH, "depth {depth}");
            match classify(m.as_bytes()) {
                Incoming::Message => assert!(serde_ok, "depth {depth}"),
                Incoming::TooDeep(TooDeep::Request { id: Value::Null }) => {
                    assert!(!serde_ok, "depth {depth}")
                }
                other => panic!("depth {depth}: {other:?}"),
            }
        }
    }

    #[test]
    fn a_deep_request_keeps_its_id() {
        for (id, want) in [
            (r#""id":7,"#, serde_json::json!(7)),
            (r#""id":"abc","#, serde_json::json!("abc")),
            (r#""id":null,"#, Value::Null),
        ] {
            match classify(call(id, 200).as_bytes()) {
                Incoming::TooDeep(TooDeep::Request { id }) => assert_eq!(id, want),
                other => panic!("{id}: {other:?}"),
            }
        }
        // The id may come after the deep part.
        let late = format!(r#"{{"params":{},"method":"x","id":9}}"#, nested(300));
        match classify(late.as_bytes()) {
            Incoming::TooDeep(TooDeep::Request { id }) => assert_eq!(id, 9),
            other => panic!("{other:?}"),
        }
        // 4 levels of objects + 124 arrays = 128: one too many.
        assert!(matches!(
            classify(call(r#""id":1,"#, MAX_DEPTH - 4).as_bytes()),
            Incoming::TooDeep(_)
        ));
        assert!(matches!(
            classify(call(r#""id":1,"#, MAX_DEPTH - 5).as_bytes()),
            Incoming::Message
        ));
    }

    #[test]
    fn a_deep_notification_is_told_apart() {
        match classify(call("", 200).as_bytes()) {
            Incoming::TooDeep(TooDeep::Notification { method }) => {
                assert_eq!(method.as_deref(), Some("tools/call"))
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_deep_message_that_is_no_request_gets_a_null_id() {
        for m in [
            // A response: its id is the server's own, not one the client awaits.
            format!(r#"{{"jsonrpc":"2.0","id":3,"result":{}}}"#, nested(200)),
            // The id itself is too deep to read.
            format!(r#"{{"jsonrpc":"2.0","id":{},"method":"x"}}"#, nested(200)),
            nested(200),
        ] {
            match classify(m.as_bytes()) {
                Incoming::TooDeep(TooDeep::Request { id }) => assert!(id.is_null(), "{m}"),
                other => panic!("{m}: {other:?}"),
            }
        }
    }

    #[test]
    fn broken_json_is_not_json_even_when_deep() {
        for m in [
            "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": ".to_string(),
            "garbage".to_string(),
            String::new(),
            format!("{}x{}", "[".repeat(200), "]".repeat(200)),
            format!("{}{}", "[".repeat(200), "]".repeat(199)),
        ] {
            match classify(m.as_bytes()) {
                Incoming::NotJson(e) => {
                    assert!(!e.to_string().contains("recursion"), "{m}: {e}")
                }
                other => panic!("{m}: {other:?}"),
            }
        }
        // Faults that `IgnoredAny` lets through are still not JSON.
        for m in [&b"\"\xff\""[..], b"[1e400]", br#"["\ud800"]"#] {
            assert!(
                matches!(classify(m), Incoming::NotJson(_)),
                "{}",
                String::from_utf8_lossy(m)
            );
        }
    }

    #[test]
    fn the_errors_are_json_rpc() {
        let e = too_deep_error(serde_json::json!(7));
        assert_eq!(e["jsonrpc"], "2.0");
        assert_eq!(e["id"], 7);
        assert_eq!(e["error"]["code"], -32600);
        let msg = e["error"]["message"].as_str().unwrap();
        assert!(msg.contains("nested 128 or more levels deep"), "{msg}");
        let p = parse_error("eof");
        assert_eq!(p["error"]["code"], -32700);
        assert!(p["id"].is_null());
    }
}
