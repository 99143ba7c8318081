//! Rate limits: a token bucket per API key and class of operation
//! (writes, recalls, other reads). A request over its limit gets 429 with
//! `Retry-After`; every limited answer carries `RateLimit-Limit`,
//! `RateLimit-Remaining` and `RateLimit-Reset`.
//!
//! A bucket holds a minute's allowance and refills continuously, so a
//! client may burst up to its per-minute rate and then goes at that rate.
//! Every key has the server's rates unless it is given rates of its own.
//! Servers without keys (`--no-auth`, loopback) are not limited.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Instant;

use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use cairn_core::api::Authenticated;

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

/// A token bucket: `tokens` left at `at`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bucket {
    tokens: f64,
    at: f64,
}

/// What taking a token from a bucket gave.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Take {
    /// Whether the request may go on.
    pub allowed: bool,
    /// Whole tokens left.
    pub remaining: u32,
    /// Seconds until one token is back (when refused) or the bucket is
    /// full again (when allowed), rounded up.
    pub wait_secs: u64,
}

impl Bucket {
    /// A full bucket at time `now` (seconds).
    pub fn full(per_minute: u32, now: f64) -> Bucket {
        Bucket {
            tokens: f64::from(per_minute),
            at: now,
        }
    }

    /// Refill for the time since the last take (at `per_minute / 60` tokens
    /// a second, up to `per_minute`), then take one token if there is one.
    pub fn take(&mut self, per_minute: u32, now: f64) -> Take {
        let capacity = f64::from(per_minute);
        let rate = capacity / 60.0;
        let elapsed = (now - self.at).max(0.0);
        self.tokens = (self.tokens + elapsed * rate).min(capacity);
        self.at = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            Take {
                allowed: true,
                remaining: self.tokens.floor() as u32,
                wait_secs: ((capacity - self.tokens) / rate).ceil() as u64,
            }
        } else {
            Take {
                allowed: false,
                remaining: 0,
                wait_secs: ((1.0 - self.tokens) / rate).ceil().max(1.0) as u64,
            }
        }
    }
}

/// Every key's buckets.
#[derive(Debug)]
pub struct Limiter {
    limits: RateLimits,
    per_key: HashMap<String, RateLimits>,
    start: Instant,
    buckets: Mutex<HashMap<(String, Class), Bucket>>,
}

impl Limiter {
    /// A limiter with `limits` for every key but those `per_key` names
    /// (by key id), which have their own.
    pub fn new(limits: RateLimits, per_key: HashMap<String, RateLimits>) -> Limiter {
        Limiter {
            limits,
            per_key,
            start: Instant::now(),
            buckets: Mutex::default(),
        }
    }

    /// Take a token for `key` in `class`; `None` when the class is
    /// unlimited.
    pub fn take(&self, key: &str, class: Class) -> Option<(u32, Take)> {
        let per_minute = self.per_key.get(key).unwrap_or(&self.limits).of(class);
        if per_minute == 0 {
            return None;
        }
        let now = self.start.elapsed().as_secs_f64();
        let mut buckets = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        let bucket = buckets
            .entry((key.to_string(), class))
            .or_insert_with(|| Bucket::full(per_minute, now));
        Some((per_minute, bucket.take(per_minute, now)))
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
    let Some((per_minute, take)) = state.limiter.take(&key, class) else {
        return next.run(req).await;
    };
    let mut response = if take.allowed {
        next.run(req).await
    } else {
        tracing::info!(key = %key, ?class, "rate limit reached");
        state.metrics.rate_limited(class);
        let message = format!(
            "this key may make {per_minute} {} requests a minute; retry in {} s",
            match class {
                Class::Write => "write",
                Class::Recall => "recall",
                Class::Read => "read",
            },
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
    fn a_bucket_bursts_its_minute_then_refills_at_its_rate() {
        let mut b = Bucket::full(60, 0.0);
        for left in (0..60).rev() {
            let t = b.take(60, 0.0);
            assert!(t.allowed);
            assert_eq!(t.remaining, left);
        }
        let refused = b.take(60, 0.0);
        assert!(!refused.allowed);
        assert_eq!(refused.wait_secs, 1, "one token a second at 60/min");
        assert!(!b.take(60, 0.5).allowed, "half a token is not a token");
        assert!(b.take(60, 1.0).allowed);
        // A long pause refills to the capacity, no further.
        let t = b.take(60, 1000.0);
        assert_eq!(t.remaining, 59);
    }

    #[test]
    fn slow_rates_wait_longer() {
        let mut b = Bucket::full(2, 0.0);
        assert!(b.take(2, 0.0).allowed && b.take(2, 0.0).allowed);
        let t = b.take(2, 0.0);
        assert!(!t.allowed);
        assert_eq!(t.wait_secs, 30);
    }

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

    #[test]
    fn unlimited_classes_take_nothing_and_keys_are_apart() {
        let l = Limiter::new(
            RateLimits {
                writes: 1,
                recalls: 0,
                reads: 5,
            },
            HashMap::new(),
        );
        assert!(l.take("a", Class::Recall).is_none());
        assert!(l.take("a", Class::Write).unwrap().1.allowed);
        assert!(!l.take("a", Class::Write).unwrap().1.allowed);
        assert!(l.take("b", Class::Write).unwrap().1.allowed, "another key");
        assert!(l.take("a", Class::Read).unwrap().1.allowed, "another class");
    }

    #[test]
    fn a_key_with_rates_of_its_own_has_them() {
        let own = RateLimits {
            writes: 3,
            recalls: 7,
            reads: 0,
        };
        let l = Limiter::new(
            RateLimits::default(),
            HashMap::from([("ci".to_string(), own)]),
        );
        let (limit, _) = l.take("ci", Class::Write).unwrap();
        assert_eq!(limit, 3);
        assert_eq!(l.take("ci", Class::Recall).unwrap().0, 7);
        assert!(l.take("ci", Class::Read).is_none(), "0 is unlimited");
        assert_eq!(l.take("other", Class::Write).unwrap().0, 100);
        for _ in 0..2 {
            assert!(l.take("ci", Class::Write).unwrap().1.allowed);
        }
        assert!(!l.take("ci", Class::Write).unwrap().1.allowed);
    }
}
