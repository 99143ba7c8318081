//! OAuth 2.1 for remote MCP clients, as the MCP authorization
//! specification asks: this server is both the protected resource (`/mcp`)
//! and its authorization server.
//!
//! - `/.well-known/oauth-protected-resource` (and `…/mcp`): RFC 9728
//!   metadata naming this server as the authorization server; a 401 from
//!   `/mcp` points at it (`WWW-Authenticate: Bearer resource_metadata=…`,
//!   [`challenge`]).
//! - `/.well-known/oauth-authorization-server`: RFC 8414 metadata.
//! - `POST /oauth/register`: dynamic client registration (RFC 7591),
//!   public clients only.
//! - `GET /oauth/authorize`: sends the browser to the consent page of the
//!   web UI (`/ui/oauth/authorize`, where the UI's session cookie is sent),
//!   which checks the request, signs the user in if needed and lets them
//!   choose the tenant, project and role.
//! - `POST /oauth/token`: `authorization_code` (PKCE S256) and
//!   `refresh_token` (rotated) grants; `POST /oauth/revoke` (RFC 7009).
//!
//! Every rule is in `cairn_core::api::oauth`; this module parses, renders
//! and maps error codes to statuses. The endpoints exist only on a server
//! with API keys ([`crate::Auth::Keys`]); they are not part of `/v1` or
//! the OpenAPI document. Their URLs are absolute, from
//! [`AppState::public_url`] or else the request's `Host`.

use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Form, Json, Router};
use cairn_core::api::oauth::{self as core, OAuthError};
use serde::Deserialize;
use serde_json::json;

use crate::{AppState, Auth, MCP_PATH};

/// The protected-resource metadata's path.
pub const RESOURCE_METADATA_PATH: &str = "/.well-known/oauth-protected-resource";
/// The authorization-server metadata's path.
pub const SERVER_METADATA_PATH: &str = "/.well-known/oauth-authorization-server";
/// The consent page in the web UI.
pub const CONSENT_PATH: &str = "/ui/oauth/authorize";

/// The OAuth routes (outside `/v1`).
pub fn routes() -> Router<AppState> {
    Router::new()
        .route(RESOURCE_METADATA_PATH, get(resource_metadata))
        .route(
            &format!("{RESOURCE_METADATA_PATH}{MCP_PATH}"),
            get(resource_metadata),
        )
        .route(SERVER_METADATA_PATH, get(server_metadata))
        .route("/oauth/register", post(register))
        .route("/oauth/authorize", get(authorize))
        .route("/oauth/token", post(token))
        .route("/oauth/revoke", post(revoke))
        .layer(axum::middleware::from_fn(cors))
}

/// Whether `path` is one of these endpoints, which a client's page on
/// another site may call (they use no cookie: PKCE and the tokens
/// themselves are the proof), so the cross-site guard lets them pass.
pub fn is_oauth_endpoint(path: &str) -> bool {
    path.starts_with("/oauth/") || path.starts_with("/.well-known/oauth-")
}

/// CORS for the endpoints a browser-based client calls: any origin, no
/// credentials; a preflight gets its answer here.
async fn cors(req: axum::extract::Request, next: axum::middleware::Next) -> Response {
    let mut response = if req.method() == Method::OPTIONS {
        StatusCode::NO_CONTENT.into_response()
    } else {
        next.run(req).await
    };
    let h = response.headers_mut();
    h.insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    h.insert(
        header::ACCESS_CONTROL_ALLOW_METHODS,
        HeaderValue::from_static("GET, POST, OPTIONS"),
    );
    h.insert(
        header::ACCESS_CONTROL_ALLOW_HEADERS,
        HeaderValue::from_static("content-type, authorization, mcp-protocol-version"),
    );
    response
}

/// This server's URL as clients reach it: [`AppState::public_url`], else
/// `http://` (or `https://` behind a proxy that says so in
/// `X-Forwarded-Proto`) and the request's `Host` (which the host guard of
/// [`crate::browser`] has checked).
pub fn base_url(state: &AppState, headers: &HeaderMap) -> String {
    if let Some(url) = &state.public_url {
        return url.trim_end_matches('/').to_string();
    }
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("localhost");
    let https = headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("https"));
    format!("{}://{host}", if https { "https" } else { "http" })
}

/// The resource a token is for: the MCP endpoint's URL.
pub fn resource_url(state: &AppState, headers: &HeaderMap) -> String {
    format!("{}{MCP_PATH}", base_url(state, headers))
}

/// The `WWW-Authenticate` value of a 401 from `/mcp` (RFC 9728 §5.1).
pub fn challenge(state: &AppState, headers: &HeaderMap) -> String {
    format!(
        "Bearer resource_metadata=\"{}{RESOURCE_METADATA_PATH}{MCP_PATH}\"",
        base_url(state, headers)
    )
}

fn not_offered() -> Response {
    crate::ApiError::request(
        StatusCode::NOT_FOUND,
        "not_found",
        "OAuth is offered only by a server with API keys (this one runs without authentication)",
    )
    .into_response()
}

fn json_no_store(status: StatusCode, body: serde_json::Value) -> Response {
    (
        status,
        [
            (header::CACHE_CONTROL, "no-store"),
            (header::PRAGMA, "no-cache"),
        ],
        Json(body),
    )
        .into_response()
}

/// An OAuth error as its endpoint answers it: `invalid_client` is 401,
/// a fault of the server 500 or 503 (logged), anything else 400.
fn error_response(e: OAuthError) -> Response {
    let status = match e.code {
        "invalid_client" => StatusCode::UNAUTHORIZED,
        "server_error" => StatusCode::INTERNAL_SERVER_ERROR,
        "temporarily_unavailable" => StatusCode::SERVICE_UNAVAILABLE,
        _ => StatusCode::BAD_REQUEST,
    };
    if let Some(cause) = &e.cause {
        tracing::error!(error = %cause, "an OAuth request failed");
    }
    json_no_store(
        status,
        json!({"error": e.code, "error_description": e.description}),
    )
}

async fn on_engine<T: Send + 'static>(
    state: &AppState,
    f: impl FnOnce(&cairn_core::Cairn) -> Result<T, OAuthError> + Send + 'static,
) -> Result<T, OAuthError> {
    let result = cairn_mcp::on_engine(&state.cairn, move |c| Ok(f(c))).await;
    result.map_err(OAuthError::from)?
}

/// `GET /.well-known/oauth-protected-resource[/mcp]` (RFC 9728).
async fn resource_metadata(State(state): State<AppState>, headers: HeaderMap) -> Response {
    if state.auth == Auth::Open {
        return not_offered();
    }
    let base = base_url(&state, &headers);
    Json(json!({
        "resource": format!("{base}{MCP_PATH}"),
        "authorization_servers": [base],
        "bearer_methods_supported": ["header"],
        "resource_name": "Cairn memory (MCP)",
    }))
    .into_response()
}

/// `GET /.well-known/oauth-authorization-server` (RFC 8414).
async fn server_metadata(State(state): State<AppState>, headers: HeaderMap) -> Response {
    if state.auth == Auth::Open {
        return not_offered();
    }
    let base = base_url(&state, &headers);
    Json(json!({
        "issuer": base,
        "authorization_endpoint": format!("{base}/oauth/authorize"),
        "token_endpoint": format!("{base}/oauth/token"),
        "registration_endpoint": format!("{base}/oauth/register"),
        "revocation_endpoint": format!("{base}/oauth/revoke"),
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none"],
        "revocation_endpoint_auth_methods_supported": ["none"],
    }))
    .into_response()
}

/// `POST /oauth/register` (RFC 7591): 201 with the client's id. Anyone
/// may register, so registrations are limited per client address like
/// sign-in attempts ([`crate::ui::session::SignInLimits::per_minute`]).
async fn register(
    State(state): State<AppState>,
    extensions: axum::http::Extensions,
    body: axum::body::Bytes,
) -> Response {
    if state.auth == Auth::Open {
        return not_offered();
    }
    let client = extensions
        .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
        .map_or_else(|| "unknown".to_string(), |c| c.0.ip().to_string());
    let (sessions, who) = (state.sessions.clone(), format!("register {client}"));
    let attempt = cairn_mcp::on_engine(&state.cairn, move |c| sessions.attempt(c, &who)).await;
    if let Ok(Err(crate::ui::session::Refused::TooFast(wait))) = attempt {
        let mut r = json_no_store(
            StatusCode::TOO_MANY_REQUESTS,
            json!({"error": "slow_down", "error_description": format!("too many registrations; try again in {wait} s")}),
        );
        r.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(wait));
        return r;
    }
    let req: core::RegisterClient = match serde_json::from_slice(&body) {
        Ok(r) => r,
        Err(e) => {
            return error_response(OAuthError::new(
                "invalid_client_metadata",
                format!("the body is not a client's metadata as JSON: {e}"),
            ))
        }
    };
    match on_engine(&state, move |c| core::register_client(c, req)).await {
        Ok(client) => json_no_store(StatusCode::CREATED, json!(client)),
        Err(e) => error_response(e),
    }
}

/// `GET /oauth/authorize`: the consent page, with the same query.
async fn authorize(State(state): State<AppState>, uri: axum::http::Uri) -> Response {
    if state.auth == Auth::Open {
        return not_offered();
    }
    let to = match uri.query() {
        Some(q) => format!("{CONSENT_PATH}?{q}"),
        None => CONSENT_PATH.to_string(),
    };
    Redirect::to(&to).into_response()
}

/// `POST /oauth/token`.
async fn token(
    State(state): State<AppState>,
    headers: HeaderMap,
    form: Result<Form<core::TokenRequest>, axum::extract::rejection::FormRejection>,
) -> Response {
    if state.auth == Auth::Open {
        return not_offered();
    }
    let Ok(Form(req)) = form else {
        return error_response(OAuthError::new(
            "invalid_request",
            "send the token request as application/x-www-form-urlencoded",
        ));
    };
    let resource = resource_url(&state, &headers);
    match on_engine(&state, move |c| core::exchange(c, &req, &resource)).await {
        Ok(tokens) => json_no_store(StatusCode::OK, json!(tokens)),
        Err(e) => error_response(e),
    }
}

/// The form of `POST /oauth/revoke`.
#[derive(Deserialize)]
struct RevokeForm {
    token: Option<String>,
}

/// `POST /oauth/revoke` (RFC 7009): the grant of the token stops; 200
/// whether or not the token was known.
async fn revoke(
    State(state): State<AppState>,
    form: Result<Form<RevokeForm>, axum::extract::rejection::FormRejection>,
) -> Response {
    if state.auth == Auth::Open {
        return not_offered();
    }
    let Some(text) = form.ok().and_then(|f| f.0.token) else {
        return error_response(OAuthError::new("invalid_request", "token is missing"));
    };
    match on_engine(&state, move |c| Ok(core::revoke_token(c, &text)?)).await {
        Ok(()) => StatusCode::OK.into_response(),
        Err(e) => error_response(e),
    }
}
