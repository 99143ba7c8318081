//! Which key opened each MCP session: a session answers only the key that
//! opened it. Another key that sends its id (to call tools in it, to
//! listen to its stream, or to `DELETE` it) gets 404, as for a session
//! that does not exist, so that a session id is worth nothing to anyone
//! but its owner.

use std::collections::HashMap;
use std::sync::Mutex;

use axum::extract::{Request, State};
use axum::http::{Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use cairn_core::api::Authenticated;

use crate::{ApiError, AppState, MCP_PATH};

/// The header MCP's streamable HTTP transport names a session in.
const SESSION_HEADER: &str = "mcp-session-id";

/// The key id that opened each live session.
#[derive(Debug, Default)]
pub struct McpOwners {
    by_session: Mutex<HashMap<String, String>>,
}

impl McpOwners {
    fn owner(&self, session: &str) -> Option<String> {
        self.lock().get(session).cloned()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, String>> {
        self.by_session.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The middleware, after authentication: refuse a session of another
/// key; note who opens a session; forget a session once it is ended or
/// unknown to the transport.
pub async fn bind(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let path = req.uri().path();
    if path != MCP_PATH && !path.starts_with("/mcp/") {
        return next.run(req).await;
    }
    let Some(key) = req
        .extensions()
        .get::<Authenticated>()
        .map(|a| a.key_id.clone())
    else {
        return next.run(req).await;
    };
    let session = req
        .headers()
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let owners = &state.mcp_owners;
    if let Some(id) = &session {
        if owners.owner(id).is_some_and(|owner| owner != key) {
            tracing::warn!(key = %key, "refused an MCP session opened by another key");
            return ApiError::request(
                StatusCode::NOT_FOUND,
                "not_found",
                "Session not found: this key opened no MCP session of that id",
            )
            .into_response();
        }
    }
    let delete = req.method() == Method::DELETE;
    let response = next.run(req).await;
    match session {
        None => {
            let opened = response
                .headers()
                .get(SESSION_HEADER)
                .and_then(|v| v.to_str().ok());
            if let Some(id) = opened {
                owners.lock().insert(id.to_string(), key);
            }
        }
        Some(id) => {
            let ended = delete && response.status().is_success();
            if ended || response.status() == StatusCode::NOT_FOUND {
                owners.lock().remove(&id);
            }
        }
    }
    response
}
