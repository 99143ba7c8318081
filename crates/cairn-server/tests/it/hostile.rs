//! One tenant's hostile input never fails another tenant's reads over
//! REST: tenant `mallory` writes tokens past every index's limit, every
//! Unicode plane, control characters, 1 MiB single words and JSON with
//! invalid surrogate escapes; every read route of tenant `default` still
//! answers 200 (the searches after each write, every route after the
//! last), on SQLite (with the in-memory keyword index a server
//! preloads) and on the suite's store (in-memory or PostgreSQL).

use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use cairn_core::conformance::{hostile_texts, LexicalEmbedder};
use cairn_core::keys::Role;
use cairn_core::{Cairn, Store, StoreCaches};
use cairn_mcp::{CairnMcp, McpConfig};
use cairn_server::rest::operations;
use cairn_server::{router, AppState};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

use crate::{blocking, fresh_store, make_key};

struct Tenant {
    app: axum::Router,
    key: String,
}

impl Tenant {
    async fn send(&self, method: &str, uri: &str, body: Option<String>) -> (StatusCode, String) {
        let mut req = Request::builder()
            .method(method)
            .uri(uri)
            .header("authorization", format!("Bearer {}", self.key));
        if body.is_some() {
            req = req.header("content-type", "application/json");
        }
        let body = body.map_or(Body::empty(), Body::from);
        let response = self
            .app
            .clone()
            .oneshot(req.body(body).unwrap())
            .await
            .unwrap();
        let status = response.status();
        let bytes = http_body_util::BodyExt::collect(response.into_body())
            .await
            .unwrap()
            .to_bytes();
        (status, String::from_utf8_lossy(&bytes).into_owned())
    }
}

/// Every read route of `reader` answers 200: each `GET` of the REST API a
/// key that is not an admin's may call (a memory's `{id}` is `id`, other
/// ids are left out), and recall, context and prompt in each mode.
async fn every_read_answers(reader: &Tenant, id: &str, context: &str) {
    every_get_answers(reader, id, context).await;
    searches_answer(reader, id, context).await;
}

/// Each `GET` of the REST API that `reader` may call answers 200, export
/// included.
async fn every_get_answers(reader: &Tenant, id: &str, context: &str) {
    for op in operations() {
        if op.method != axum::http::Method::GET || op.role == Role::Admin {
            continue;
        }
        let path = match op.path.strip_prefix("/memories/{id}") {
            Some(rest) => format!("/memories/{id}{rest}"),
            None => op.path.to_string(),
        };
        if path.contains('{') || path == "/export" {
            continue; // another kind of id; the export is checked below
        }
        let uri = format!("/v1{path}");
        let (status, body) = reader.send("GET", &uri, None).await;
        assert!(
            status == StatusCode::OK,
            "{context}: GET {uri} answered {status}: {body:.300}"
        );
    }
    let (status, _) = reader.send("GET", "/v1/export", None).await;
    assert_eq!(status, StatusCode::OK, "{context}: export");
}

/// Recall in each mode, context and prompt answer 200 for `reader`, and
/// keyword recall still finds memory `id`.
async fn searches_answer(reader: &Tenant, id: &str, context: &str) {
    let mut asks: Vec<(&str, serde_json::Value)> = ["hybrid", "keyword", "semantic"]
        .into_iter()
        .map(|mode| {
            (
                "/v1/recall",
                json!({"query": "staging database", "mode": mode}),
            )
        })
        .collect();
    asks.push(("/v1/context", json!({"topic": "staging database"})));
    asks.push(("/v1/prompt", json!({"query": "staging database"})));
    for (route, body) in asks {
        let (status, text) = reader.send("POST", route, Some(body.to_string())).await;
        assert_eq!(
            status,
            StatusCode::OK,
            "{context}: {route} {body}: {text:.300}"
        );
    }
    let body =
        json!({"query": "staging database", "mode": "keyword", "min_relevance": 0}).to_string();
    let (_, text) = reader.send("POST", "/v1/recall", Some(body)).await;
    assert!(
        text.contains(id),
        "{context}: keyword recall lost the memory: {text:.300}"
    );
}

async fn hostile_input_stays_with_its_tenant(store: Arc<dyn Store>) {
    let cairn = Cairn::new(store, Arc::new(LexicalEmbedder));
    let (victim, mallory) = (
        make_key(&cairn, "default", "write"),
        make_key(&cairn, "mallory", "write"),
    );
    // Unlimited rates: the test reads every route after every hostile write.
    let unlimited = cairn_server::RateLimits {
        writes: 0,
        recalls: 0,
        reads: 0,
    };
    let app = router(
        AppState::new(CairnMcp::new(cairn, McpConfig::new("default")))
            .with_rate_limits(unlimited, Default::default()),
        CancellationToken::new(),
    );
    let victim = Tenant {
        app: app.clone(),
        key: victim,
    };
    let mallory = Tenant { app, key: mallory };
    let body = json!({"content": "the staging database runs in Falkenstein"}).to_string();
    let (status, text) = victim.send("POST", "/v1/memories", Some(body)).await;
    assert_eq!(status, StatusCode::CREATED, "{text}");
    let id = serde_json::from_str::<Value>(&text).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    every_read_answers(&victim, &id, "before").await;

    let mut bodies: Vec<(String, String)> =
        hostile_texts()
            .into_iter()
            .flat_map(|(label, text)| {
                let short: String = text.chars().take(2_000).collect();
                [
                (label.clone(), json!({"content": text, "dedup": false}).to_string()),
                (
                    format!("{label} in metadata"),
                    json!({"content": "m", "metadata": {short.clone(): text}}).to_string(),
                ),
                (
                    format!("{label} as a message"),
                    json!({"messages": [{"conversation": "c", "speaker": short, "text": text}]})
                        .to_string(),
                ),
            ]
            })
            .collect();
    // Escapes JSON allows and UTF-8 cannot hold: lone and reversed
    // surrogates, and NUL.
    for escape in [r"\ud800", r"\udfff", r"\udc00\ud800", r"x\u0000y"] {
        let raw = format!(r#"{{"content": "bad {escape} text"}}"#);
        bodies.push((format!("escape {escape}"), raw));
    }
    for (label, body) in bodies {
        let route = if label.ends_with("as a message") {
            "/v1/messages"
        } else {
            "/v1/memories"
        };
        let (status, text) = mallory.send("POST", route, Some(body)).await;
        assert!(
            status.is_success() || status.is_client_error(),
            "{label}: {route} answered {status}: {text:.300}"
        );
        // The searches after every write (a poisoned index broke them for
        // every tenant); every route once, after the last.
        searches_answer(&victim, &id, &label).await;
    }
    every_read_answers(&victim, &id, "after every hostile write").await;
    let (status, text) = mallory.send("GET", "/v1/memories?limit=100", None).await;
    assert_eq!(status, StatusCode::OK, "{text:.300}");
}

#[tokio::test]
async fn hostile_input_stays_with_its_tenant_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let store = cairn_sqlite::SqliteStore::open(dir.path().join("cairn.db")).unwrap();
    store.preload().unwrap();
    hostile_input_stays_with_its_tenant(Arc::new(store)).await;
}

#[tokio::test]
async fn hostile_input_stays_with_its_tenant_on_the_suite_store() {
    hostile_input_stays_with_its_tenant(blocking(fresh_store)).await;
}
