//! The application: an axum router with the MCP endpoint (streamable HTTP)
//! at `/mcp`, the REST API at `/v1` ([`crate::rest`]) with its OpenAPI
//! document (`/openapi.json`) and reference page (`/docs`), `/healthz`,
//! `/readyz` and `/metrics`, and the web UI at `/ui` ([`crate::ui`]), behind
//! the authentication of [`crate::auth`], over the same [`AppState`].

use std::sync::Arc;

use axum::extract::DefaultBodyLimit;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::{Json, Router};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use cairn_mcp::jsonrpc::{self, Incoming, TooDeep};

use crate::rest::openapi;
use crate::AppState;

/// The path of the MCP endpoint.
pub const MCP_PATH: &str = "/mcp";

/// Every surface a person or a client opens, by name, with its path: what
/// a server's start-up line lists.
pub const SURFACES: [(&str, &str); 7] = [
    ("web UI", crate::ui::UI_PATH),
    ("MCP", MCP_PATH),
    ("REST", "/v1"),
    ("API docs", openapi::DOCS_PATH),
    ("OpenAPI", openapi::OPENAPI_PATH),
    ("health", "/healthz"),
    ("metrics", "/metrics"),
];

/// Largest REST request body.
pub const MAX_REST_BODY: usize = 2 << 20;

/// The application: `/mcp` (each MCP session gets its own handler over the
/// shared engine), `/v1`, `/healthz` and `/readyz`. `shutdown` ends open
/// MCP sessions.
pub fn router(state: AppState, shutdown: CancellationToken) -> Router {
    let config = StreamableHttpServerConfig::default()
        .with_sse_retry(None)
        .with_cancellation_token(shutdown);
    let config = match &state.mcp_hosts {
        Some(hosts) => config.with_allowed_hosts(hosts.to_vec()),
        None => config.disable_allowed_hosts(),
    };
    let factory = state.mcp.clone();
    let mcp = StreamableHttpService::new(
        move || Ok(factory.for_session()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    Router::new()
        .nest_service(MCP_PATH, mcp)
        .nest(
            "/v1",
            crate::rest::routes().layer(DefaultBodyLimit::max(MAX_REST_BODY)),
        )
        .nest(crate::ui::UI_PATH, crate::ui::routes(state.clone()))
        .merge(crate::oauth::routes())
        .route(
            "/",
            get(|| async { axum::response::Redirect::to(crate::ui::UI_PATH) }),
        )
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/metrics", get(crate::metrics::serve))
        .route(openapi::OPENAPI_PATH, get(openapi::serve_document))
        .route(openapi::DOCS_PATH, get(openapi::reference_page))
        .route("/docs/{file}", get(openapi::reference_file))
        .layer(axum::middleware::from_fn(parse_errors))
        .layer(axum::middleware::from_fn(session_end))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            crate::mcp_owners::bind,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            crate::capacity::guard,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            crate::limits::limit,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            crate::auth::authenticate,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            crate::browser::guard,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            crate::metrics::observe,
        ))
        .with_state(state)
}

/// Largest MCP request body read (content is limited to 1 MiB; JSON
/// escaping can double it).
pub const MAX_MCP_BODY: usize = 4 << 20;

/// A POST to `/mcp` whose body is not JSON gets the JSON-RPC parse error
/// (`-32700`, `id: null`) with HTTP 400, as JSON-RPC asks; rmcp alone
/// answers such a body with a bare HTTP 415. So does a body nested deeper
/// than rmcp's parser accepts, which gets Invalid Request (`-32600`) with
/// the request's own id instead (`id: null` for a notification, which the
/// streamable HTTP transport still answers with an HTTP error status).
/// See [`crate::jsonrpc`].
async fn parse_errors(
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    if req.method() != axum::http::Method::POST || req.uri().path() != MCP_PATH {
        return next.run(req).await;
    }
    let (parts, body) = req.into_parts();
    let bytes = match axum::body::to_bytes(body, MAX_MCP_BODY).await {
        Ok(b) => b,
        Err(e) => return crate::ApiError::body_too_large(e).into_response(),
    };
    let error = match jsonrpc::classify(&bytes) {
        Incoming::Message => None,
        Incoming::NotJson(e) => Some(jsonrpc::parse_error(&e.to_string())),
        Incoming::TooDeep(TooDeep::Request { id }) => {
            tracing::warn!(%id, "a request nested too deeply");
            Some(jsonrpc::too_deep_error(id))
        }
        Incoming::TooDeep(TooDeep::Notification { method }) => {
            tracing::warn!(?method, "a notification nested too deeply");
            Some(jsonrpc::too_deep_error(serde_json::Value::Null))
        }
    };
    if let Some(body) = error {
        return (StatusCode::BAD_REQUEST, Json(body)).into_response();
    }
    next.run(axum::extract::Request::from_parts(
        parts,
        axum::body::Body::from(bytes),
    ))
    .await
}

/// A DELETE of `/mcp` ends the session. rmcp closes it and answers 202
/// Accepted, which reads as "not done yet"; clients expect 200 or 204 for
/// a finished termination (the Python SDK logs "Session termination failed:
/// 202"), so it becomes 204 No Content.
async fn session_end(
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let delete = req.method() == axum::http::Method::DELETE && req.uri().path() == MCP_PATH;
    let response = next.run(req).await;
    if delete && response.status() == StatusCode::ACCEPTED {
        return StatusCode::NO_CONTENT.into_response();
    }
    response
}

/// `/healthz`: the process is up and answering. It asks nothing of the
/// store or the model (that is `/readyz`), so a liveness probe never
/// restarts a healthy server while its database is away.
async fn healthz() -> impl IntoResponse {
    Json(serde_json::json!({"status": "ok", "version": env!("CARGO_PKG_VERSION")}))
}

/// 503 for a failed readiness check: the error's code, which part is not
/// ready (`store` or `model`), the details in the server's log only, and
/// `Retry-After` as every 503 has.
fn unavailable(part: &str, e: &cairn_core::Error) -> axum::response::Response {
    tracing::warn!(error = %e, part, "not ready");
    let what = match part {
        "store" => "the store does not answer",
        _ => "the embedding model is not loaded",
    };
    (
        StatusCode::SERVICE_UNAVAILABLE,
        [(
            axum::http::header::RETRY_AFTER,
            axum::http::HeaderValue::from(crate::error::RETRY_AFTER_SECS),
        )],
        Json(serde_json::json!({
            "status": "unavailable",
            "error": {
                "code": e.code(),
                "message": format!("{what}; see the server's log"),
                "details": {"part": part}
            }
        })),
    )
        .into_response()
}

/// `/readyz`: 200 once the store answers and the embedding model is
/// loaded (loading it if it is not yet), else 503 naming which is not.
async fn readyz(axum::extract::State(state): axum::extract::State<AppState>) -> impl IntoResponse {
    let ready = cairn_mcp::on_engine(&state.cairn, |c| {
        if let Err(e) = c.stats(cairn_core::DEFAULT_TENANT) {
            return Ok(Err(("store", e)));
        }
        Ok(match c.embedder().embed("ready") {
            Ok(_) => Ok(c.embedder().model()),
            Err(e) => Err(("model", e)),
        })
    })
    .await;
    match ready.unwrap_or_else(|e| Err(("store", e))) {
        Ok(model) => (
            StatusCode::OK,
            Json(serde_json::json!({"status": "ready", "model": model.to_string()})),
        )
            .into_response(),
        Err((part, e)) => unavailable(part, &e),
    }
}
