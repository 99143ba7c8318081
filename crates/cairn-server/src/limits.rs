//! Rate limits: a token bucket per API key and class of operation
//! (writes, recalls, other reads). A request over its limit gets 429 with
//! `Retry-After`; every limited answer carries `RateLimit-Limit`,
//! `RateLimit-Remaining` and `RateLimit-Reset`.
//!
//! A bucket holds a minute's allowance and refills continuously, so a
//! client may burst up to its per-minute rate and then goes at that rate
//! ([`cairn_core::shared::refill_and_take`]). The buckets live in the store
//! ([`cairn_core::shared::SharedState::take_token`], one statement a
//! request), so a key's rate holds across every server on one database
//! together, however a load balancer spreads its requests.
//! Every key has the server's rates unless it is given rates of its own.
//! Servers without keys (`--no-auth`, loopback) are not limited.

use std::collections::HashMap;

use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use cairn_core::api::Authenticated;
use cairn_core::shared::Take;
use cairn_core::{Cairn, Result};

use crate::{ApiError, AppState, Auth, MCP_PATH};

/// A class of operation, limited on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Class {
    /// Remember, update, forget, import, key management.
    Write,
    /// Recall and context: a query embedding each.
    Recall,
    /// Everything else: get, list, stats, MCP's protocol messages.
    Read,
}

/// Requests per minute for each class; 0 means unlimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimits {
    /// Writes per minute (default 100).
    pub writes: u32,
    /// Recalls per minute (default 200).
    pub recalls: u32,
    /// Other reads per minute (default 600).
    pub reads: u32,
}

impl Default for RateLimits {
    fn default() -> Self {
        RateLimits {
            writes: 100,
            recalls: 200,
            reads: 600,
        }
    }
}

impl Class {
    /// The class's name, as in messages and bucket names.
    pub fn name(self) -> &'static str {
        match self {
            Class::Write => "write",
            Class::Recall => "recall",
            Class::Read => "read",
        }
    }
}

impl RateLimits {
    /// The per-minute rate of `class`.
    pub fn of(&self, class: Class) -> u32 {
        match class {
            Class::Write => self.writes,
            Class::Recall => self.recalls,
            Class::Read => self.reads,
        }
    }
}

/// Every key's rates; the buckets are in the store.
#[derive(Debug)]
pub struct Limiter {
    limits: RateLimits,
    per_key: HashMap<String, RateLimits>,
}

impl Limiter {
    /// A limiter with `limits` for every key but those `per_key` names
    /// (by key id), which have their own.
    pub fn new(limits: RateLimits, per_key: HashMap<String, RateLimits>) -> Limiter {
        Limiter { limits, per_key }
    }

    /// The per-minute rate of `key` in `class` (0: unlimited).
    pub fn rate(&self, key: &str, class: Class) -> u32 {
        self.per_key.get(key).unwrap_or(&self.limits).of(class)
    }

    /// Take a token for `key` in `class` from the store's bucket; `None`
    /// when the class is unlimited. Blocks: call it off the async workers.
    pub fn take(&self, cairn: &Cairn, key: &str, class: Class) -> Result<Option<(u32, Take)>> {
        let per_minute = self.rate(key, class);
        if per_minute == 0 {
            return Ok(None);
        }
        let bucket = format!("rate {key} {}", class.name());
        let level = cairn
            .store()
            .shared()
            .take_token(&bucket, per_minute, cairn.now())?;
        Ok(Some((per_minute, Take::of(per_minute, level))))
    }
}

/// The class of a REST request.
fn rest_class(method: &Method, path: &str) -> Class {
    match (method, path) {
        (&Method::POST, "/v1/recall" | "/v1/context") => Class::Recall,
        (&Method::GET | &Method::HEAD | &Method::OPTIONS, _) => Class::Read,
        _ => Class::Write,
    }
}

/// The class of an MCP message: its tool's, for a tool call.
fn mcp_class(body: &[u8]) -> Class {
    #[derive(serde::Deserialize)]
    struct Message {
        method: Option<String>,
        params: Option<Params>,
    }
    #[derive(serde::Deserialize)]
    struct Params {
        name: Option<String>,
        arguments: Option<serde_json::Map<String, serde_json::Value>>,
    }
    let Ok(message) = serde_json::from_slice::<Message>(body) else {
        return Class::Read;
    };
    if message.method.as_deref() != Some("tools/call") {
        return Class::Read;
    }
    let Some(Params {
        name: Some(name),
        arguments,
    }) = message.params
    else {
        return Class::Read;
    };
    match name.as_str() {
        "recall" | "context" => Class::Recall,
        _ if cairn_mcp::CairnMcp::call_writes(&name, arguments.as_ref()) => Class::Write,
        _ => Class::Read,
    }
}

/// The middleware: runs after authentication, so a keyed request carries
/// its [`Authenticated`].
pub async fn limit(State(state): State<AppState>, req: Request, next: Next) -> Response {
    if state.auth == Auth::Open {
        return next.run(req).await;
    }
    let Some(key) = req
        .extensions()
        .get::<Authenticated>()
        .map(|a| a.key_id.clone())
    else {
        return next.run(req).await;
    };
    let path = req.uri().path().to_string();
    let (req, class) = if path == MCP_PATH && req.method() == Method::POST {
        let (parts, body) = req.into_parts();
        let bytes = match axum::body::to_bytes(body, crate::app::MAX_MCP_BODY).await {
            Ok(b) => b,
            Err(e) => return ApiError::body_too_large(e).into_response(),
        };
        let class = mcp_class(&bytes);
        (
            Request::from_parts(parts, axum::body::Body::from(bytes)),
            class,
        )
    } else {
        let class = rest_class(req.method(), &path);
        (req, class)
    };
    if state.limiter.rate(&key, class) == 0 {
        return next.run(req).await;
    }
    let limiter = state.limiter.clone();
    let taken = cairn_mcp::on_engine(&state.cairn, move |c| limiter.take(c, &key, class)).await;
    let (per_minute, take) = match taken {
        Ok(Some(taken)) => taken,
        Ok(None) => return next.run(req).await,
        Err(e) => return ApiError::from(e).into_response(),
    };
    let mut response = if take.allowed {
        next.run(req).await
    } else {
        tracing::info!(?class, "rate limit reached");
        state.metrics.rate_limited(class);
        let message = format!(
            "this key may make {per_minute} {} requests a minute; retry in {} s",
            class.name(),
            take.wait_secs
        );
        if crate::ui::is_ui(&path) {
            // A browser shows the answer: a page, not JSON.
            crate::ui::too_many(&message, take.wait_secs)
        } else {
            let mut r = ApiError::request(StatusCode::TOO_MANY_REQUESTS, "rate_limited", message)
                .into_response();
            r.headers_mut()
                .insert("retry-after", HeaderValue::from(take.wait_secs));
            r
        }
    };
    let headers = response.headers_mut();
    headers.insert("ratelimit-limit", HeaderValue::from(per_minute));
    headers.insert("ratelimit-remaining", HeaderValue::from(take.remaining));
    headers.insert("ratelimit-reset", HeaderValue::from(take.wait_secs));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_of_requests_and_tool_calls() {
        assert_eq!(rest_class(&Method::POST, "/v1/recall"), Class::Recall);
        assert_eq!(rest_class(&Method::POST, "/v1/memories"), Class::Write);
        assert_eq!(rest_class(&Method::GET, "/v1/memories"), Class::Read);
        assert_eq!(rest_class(&Method::DELETE, "/v1/memories/x"), Class::Write);
        let call = |name: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"{name}","arguments":{{}}}}}}"#
            )
        };
        assert_eq!(mcp_class(call("remember").as_bytes()), Class::Write);
        // Every tool that writes counts as a write, as over REST.
        for tool in ["update", "forget", "observe", "ingest"] {
            assert_eq!(mcp_class(call(tool).as_bytes()), Class::Write, "{tool}");
        }
        let slot = |action: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"slot","arguments":{{"action":"{action}","text":"x"}}}}}}"#
            )
        };
        for action in ["save", "save_progress", "archive", "restore", " Save "] {
            assert_eq!(mcp_class(slot(action).as_bytes()), Class::Write, "{action}");
        }
        for action in ["read", "list", "search", "use", "export"] {
            assert_eq!(mcp_class(slot(action).as_bytes()), Class::Read, "{action}");
        }
        assert_eq!(mcp_class(call("window").as_bytes()), Class::Read);
        assert_eq!(mcp_class(call("get").as_bytes()), Class::Read);
        assert_eq!(mcp_class(call("recall").as_bytes()), Class::Recall);
        assert_eq!(mcp_class(call("stats").as_bytes()), Class::Read);
        assert_eq!(
            mcp_class(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
            Class::Read
        );
        assert_eq!(mcp_class(b"not json"), Class::Read);
    }

    fn cairn() -> Cairn {
        Cairn::new(
            std::sync::Arc::new(cairn_core::MemoryStore::new()),
            std::sync::Arc::new(cairn_core::conformance::LexicalEmbedder),
        )
    }

    #[test]
    fn unlimited_classes_take_nothing_and_keys_are_apart() {
        let c = cairn();
        let l = Limiter::new(
            RateLimits {
                writes: 1,
                recalls: 0,
                reads: 5,
            },
            HashMap::new(),
        );
        assert!(l.take(&c, "a", Class::Recall).unwrap().is_none());
        assert!(l.take(&c, "a", Class::Write).unwrap().unwrap().1.allowed);
        assert!(!l.take(&c, "a", Class::Write).unwrap().unwrap().1.allowed);
        assert!(
            l.take(&c, "b", Class::Write).unwrap().unwrap().1.allowed,
            "another key"
        );
        assert!(
            l.take(&c, "a", Class::Read).unwrap().unwrap().1.allowed,
            "another class"
        );
    }

    #[test]
    fn a_key_with_rates_of_its_own_has_them() {
        let c = cairn();
        let own = RateLimits {
            writes: 3,
            recalls: 7,
            reads: 0,
        };
        let l = Limiter::new(
            RateLimits::default(),
            HashMap::from([("ci".to_string(), own)]),
        );
        let (limit, _) = l.take(&c, "ci", Class::Write).unwrap().unwrap();
        assert_eq!(limit, 3);
        assert_eq!(l.take(&c, "ci", Class::Recall).unwrap().unwrap().0, 7);
        assert!(
            l.take(&c, "ci", Class::Read).unwrap().is_none(),
            "0 is unlimited"
        );
        assert_eq!(l.take(&c, "other", Class::Write).unwrap().unwrap().0, 100);
        for _ in 0..2 {
            assert!(l.take(&c, "ci", Class::Write).unwrap().unwrap().1.allowed);
        }
        assert!(!l.take(&c, "ci", Class::Write).unwrap().unwrap().1.allowed);
    }
}
