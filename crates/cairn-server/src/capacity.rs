//! What one server takes on at once: at most `max_concurrent` REST
//! requests in progress (more wait their turn, for at most `queue_wait`,
//! then get 503 with `Retry-After`), and each REST request done
//! within the timeout (a client that sends its body too slowly gets 408
//! and lets go of its worker). Streams are exempt from the timeout: MCP's
//! event streams live as long as their sessions, imports and exports as
//! long as their data; an import's body is cut off instead past
//! `max_import_bytes` or when no data comes for the timeout.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use tokio::sync::Semaphore;

use crate::{ApiError, AppState};

/// The limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CapacityLimits {
    /// Longest a REST request may take, body included (default 30 s).
    pub request_timeout: Duration,
    /// Most REST requests in progress at once (default 64).
    pub max_concurrent: usize,
    /// Longest a request waits for its turn when that many are in
    /// progress (default 5 s).
    pub queue_wait: Duration,
    /// Largest import body (default 256 MiB).
    pub max_import_bytes: u64,
    /// Longest a connection may take to send a request's head (request
    /// line and headers), or stay idle between requests (default 10 s;
    /// see [`crate::conn`]).
    pub header_timeout: Duration,
    /// Most connections open at once (default 512; see [`crate::conn`]).
    pub max_connections: usize,
}

impl Default for CapacityLimits {
    fn default() -> Self {
        CapacityLimits {
            request_timeout: Duration::from_secs(30),
            max_concurrent: 64,
            queue_wait: Duration::from_secs(5),
            max_import_bytes: 256 << 20,
            header_timeout: Duration::from_secs(10),
            max_connections: 512,
        }
    }
}

/// The limits and the permits of requests in progress.
#[derive(Debug)]
pub struct Capacity {
    limits: CapacityLimits,
    permits: Arc<Semaphore>,
}

impl Capacity {
    /// Capacity under `limits`.
    pub fn new(limits: CapacityLimits) -> Self {
        Capacity {
            limits,
            permits: Arc::new(Semaphore::new(limits.max_concurrent.max(1))),
        }
    }

    /// The limits.
    pub fn limits(&self) -> CapacityLimits {
        self.limits
    }
}

/// Whether `path` is a REST request the limits apply to.
fn limited(path: &str) -> bool {
    path.starts_with("/v1/")
}

/// Whether the timeout spares `path` (it streams for as long as its data).
fn streams(path: &str) -> bool {
    matches!(path, "/v1/import" | "/v1/export")
}

/// The middleware.
pub async fn guard(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let path = req.uri().path();
    if !limited(path) {
        return next.run(req).await;
    }
    let streaming = streams(path);
    let capacity = &state.capacity;
    let timeout = capacity.limits.request_timeout;
    let permit = tokio::time::timeout(
        capacity.limits.queue_wait,
        capacity.permits.clone().acquire_owned(),
    )
    .await;
    let Ok(Ok(_permit)) = permit else {
        let mut r = ApiError::request(
            StatusCode::SERVICE_UNAVAILABLE,
            "overloaded",
            "the server has too many requests in progress; retry shortly",
        )
        .into_response();
        r.headers_mut()
            .insert("retry-after", HeaderValue::from_static("1"));
        return r;
    };
    if streaming {
        return next.run(req).await;
    }
    match tokio::time::timeout(timeout, next.run(req)).await {
        Ok(response) => response,
        Err(_) => ApiError::request(
            StatusCode::REQUEST_TIMEOUT,
            "request_timeout",
            format!(
                "the request took longer than {} s (a body sent too slowly?)",
                timeout.as_secs_f64()
            ),
        )
        .into_response(),
    }
}
