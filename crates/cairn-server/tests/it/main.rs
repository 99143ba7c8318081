//! The application in-process (`tower::ServiceExt::oneshot`, no port)
//! with the conformance suite's small deterministic embedder (no model),
//! over an in-memory store, or over PostgreSQL when `CAIRN_TEST_STORE` is
//! `postgres` (`scripts/test.sh` runs the suite both ways).
//!
//! On PostgreSQL each state's store has a schema of its own in the
//! database `CAIRN_TEST_POSTGRES_URL` names (without it every test fails,
//! never skips); a schema is dropped once its store is (see
//! [`pg::store`]). The store's client blocks on a runtime of its own, so,
//! as in the server, the tests call the engine off the async runtime's
//! thread ([`blocking`]).

#![allow(missing_docs)]

use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use cairn_core::conformance::LexicalEmbedder;
use cairn_core::{Cairn, MemoryStore, Store};
use cairn_mcp::{CairnMcp, McpConfig};
use cairn_server::{router, AppState, Auth, MCP_PATH};
use http_body_util::BodyExt;
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

mod browser;
mod conflict_settings;
mod consolidate;
mod conversation_counts;
mod conversations;
mod hostile;
mod http;
mod job_lease;
mod mcp_sessions;
mod metrics;
mod oauth;
mod openapi;
mod parsers_fuzz;
mod pg;
mod providers;
mod rest;
mod rest_history;
mod rest_limits;
mod settings;
mod sign_in;
mod slow_clients;
mod tenant_ids;
mod ui;
mod ui_words;

/// Run `f` on a thread of its own and wait for it: how a test calls the
/// engine from async code (a PostgreSQL store must not be used on the
/// runtime's thread).
pub fn blocking<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|s| {
        s.spawn(f)
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// A fresh, empty store of the kind `CAIRN_TEST_STORE` names: `memory`
/// (or unset) or `postgres`.
fn fresh_store() -> Arc<dyn Store> {
    match std::env::var("CAIRN_TEST_STORE").as_deref() {
        Err(_) | Ok("" | "memory") => Arc::new(MemoryStore::new()),
        Ok("postgres") => blocking(pg::store),
        Ok(other) => panic!("CAIRN_TEST_STORE={other}: give memory or postgres"),
    }
}

/// Fresh state: a fresh store, the deterministic embedder, API keys
/// required.
pub fn keyed_state() -> AppState {
    let cairn = Cairn::new(fresh_store(), Arc::new(LexicalEmbedder));
    AppState::new(CairnMcp::new(cairn, McpConfig::new("default")))
}

/// Fresh state without authentication (every request is the local user).
pub fn state() -> AppState {
    keyed_state().with_auth(Auth::Open)
}

/// A new API key's text.
pub fn make_key(cairn: &Cairn, tenant: &str, role: &str) -> String {
    blocking(|| {
        cairn_core::api::create_key(
            cairn,
            cairn_core::api::CreateKeyInput {
                tenant: Some(tenant.into()),
                role: role.into(),
                ..Default::default()
            },
        )
        .unwrap()
        .key
    })
}

fn app() -> axum::Router {
    router(state(), CancellationToken::new())
}

async fn json(response: axum::response::Response) -> Value {
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{e}: {bytes:?}"))
}

#[tokio::test]
async fn healthz_reports_ok_and_the_version() {
    let response = app()
        .oneshot(Request::get("/healthz").body(Body::empty()).unwrap())
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let body = json(response).await;
    assert_eq!(body["status"], "ok");
    assert_eq!(body["version"], env!("CARGO_PKG_VERSION"));
}

#[tokio::test]
async fn a_body_that_is_not_json_gets_the_json_rpc_parse_error() {
    let response = app()
        .oneshot(
            Request::post(MCP_PATH)
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .body(Body::from("{not json"))
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let body = json(response).await;
    assert_eq!(body["error"]["code"], -32700);
    assert_eq!(body["id"], Value::Null);
}

#[tokio::test]
async fn unknown_routes_are_404() {
    let response = app()
        .oneshot(Request::get("/nowhere").body(Body::empty()).unwrap())
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn readyz_is_open_and_names_the_model_even_with_keys_required() {
    let app = router(keyed_state(), CancellationToken::new());
    let response = app
        .oneshot(Request::get("/readyz").body(Body::empty()).unwrap())
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let body = json(response).await;
    assert_eq!(body["status"], "ready");
    assert!(
        body["model"].as_str().is_some_and(|m| !m.is_empty()),
        "{body}"
    );
}
