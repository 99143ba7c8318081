//! The REST API under `/v1`: JSON over HTTP, one handler per operation of
//! `cairn_core::api`, nothing more. Every handler takes the caller the
//! authentication put into the request ([`crate::auth`]), parses its input
//! ([`input`]), runs the operation on the engine and answers its output;
//! every error has the one shape of [`crate::error`].

mod input;
mod keys;
mod memories;
mod search;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::StatusCode;
use axum::routing::{delete, get, post};
use axum::Router;
use cairn_core::api::{Authenticated, Caller};
use cairn_core::{Cairn, Result};

use crate::{ApiError, AppState};

pub use input::{JsonBody, QueryParams};

/// The routes under `/v1`.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route(
            "/memories",
            post(memories::create)
                .get(memories::list)
                .delete(memories::forget_matching),
        )
        .route(
            "/memories/{id}",
            get(memories::get)
                .patch(memories::update)
                .delete(memories::forget_one),
        )
        .route("/recall", post(search::recall))
        .route("/context", post(search::context))
        .route("/stats", get(search::stats))
        .route("/keys", post(keys::create).get(keys::list))
        .route("/keys/{id}", delete(keys::revoke))
        .fallback(no_route)
        .method_not_allowed_fallback(method_not_allowed)
}

/// The caller of a request, as its authentication decided.
pub struct Who(pub Authenticated);

impl Who {
    /// The application layer's caller: the tenant, no default project.
    pub fn caller(&self) -> Caller {
        Caller::new(self.0.tenant.clone())
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Who {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> std::result::Result<Self, ApiError> {
        parts
            .extensions
            .get::<Authenticated>()
            .cloned()
            .map(Who)
            .ok_or_else(|| {
                // The router always runs the authentication first.
                ApiError::from(cairn_core::Error::storage(
                    "a /v1 request reached its route without a caller",
                ))
            })
    }
}

/// Run `f` on the engine for `who`.
pub async fn run<T, F>(state: &AppState, who: &Who, f: F) -> std::result::Result<T, ApiError>
where
    T: Send + 'static,
    F: FnOnce(&Cairn, &Caller) -> Result<T> + Send + 'static,
{
    let caller = who.caller();
    Ok(cairn_mcp::on_engine(&state.cairn, move |c| f(c, &caller)).await?)
}

async fn no_route(uri: axum::http::Uri) -> ApiError {
    ApiError::request(
        StatusCode::NOT_FOUND,
        "no_route",
        format!(
            "no route {}; see the REST API in the README (/v1/memories, /v1/recall, /v1/context, /v1/stats, /v1/keys)",
            uri.path()
        ),
    )
}

async fn method_not_allowed(method: axum::http::Method, uri: axum::http::Uri) -> ApiError {
    ApiError::request(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        format!("{} does not answer {method}", uri.path()),
    )
}
