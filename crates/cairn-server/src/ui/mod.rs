//! The web UI under `/ui`: server-rendered HTML (maud) over the same
//! application layer as REST, with the assets (one CSS file, one own
//! script, vendored htmx) embedded in the binary.
//!
//! ## Invariants
//! - Every query and change goes through `cairn_core::api`, the calls the
//!   REST API makes; each action checks the role of the REST route it
//!   mirrors ([`crate::auth::may`]), so anything the UI does can be done
//!   over REST and a role allows the same things in both.
//! - The caller is decided by [`crate::auth`] (the session's key), never
//!   here; every page is confined to that key's tenant.
//! - Every state-changing request carries the session's CSRF token (a
//!   form field or the `x-csrf-token` header) and, when the browser sends
//!   one, an `Origin` of this server ([`guard`]).
//! - Pages run no inline script and no inline style: the
//!   Content-Security-Policy says `script-src 'self'`, `style-src 'self'`.
//!   Memory content is escaped (Markdown's raw HTML included).

mod assets;
mod pages;
mod render;
pub mod session;

use axum::body::Body;
use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::Router;
use cairn_core::api::{Authenticated, Caller};
use cairn_core::{Cairn, Error};

use crate::{ApiError, AppState};
use session::UiSession;

/// Where the UI lives.
pub const UI_PATH: &str = "/ui";

/// The header htmx requests carry the CSRF token in.
pub const CSRF_HEADER: &str = "x-csrf-token";

/// The form field other requests carry it in.
pub const CSRF_FIELD: &str = "csrf";

/// The Content-Security-Policy of every UI response.
pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// Largest form body the CSRF check reads.
const MAX_FORM: usize = 2 << 20;

/// Whether `path` is the UI's.
pub fn is_ui(path: &str) -> bool {
    path == UI_PATH || path.starts_with("/ui/")
}

/// The UI's routes, behind [`guard`].
pub fn routes(state: AppState) -> Router<AppState> {
    Router::new()
        .route("/", get(pages::overview))
        .route("/growth", get(pages::growth_page))
        .route("/login", get(pages::login_page).post(pages::login))
        .route("/logout", post(pages::logout))
        .route("/assets/{file}", get(assets::serve))
        .route("/memories", get(pages::browser))
        .route("/memories/bulk", post(pages::bulk))
        .route("/memories/{id}", get(pages::memory))
        .route("/memories/{id}/edit", post(pages::edit))
        .route("/memories/{id}/revert", post(pages::revert))
        .route("/memories/{id}/supersede", post(pages::supersede))
        .route("/memories/{id}/forget", post(pages::forget))
        .route("/activity", get(pages::activity))
        .route("/agent", get(pages::agent))
        .route("/transfer", get(pages::transfer))
        .route("/export", get(pages::export))
        .route(
            "/import",
            post(pages::import).layer(axum::extract::DefaultBodyLimit::disable()),
        )
        .route("/keys", get(pages::keys).post(pages::create_key))
        .route("/keys/{id}/revoke", post(pages::revoke_key))
        .route("/keys/grants/{id}/revoke", post(pages::revoke_grant))
        .route(
            "/oauth/authorize",
            get(pages::consent_page).post(pages::consent),
        )
        .fallback(pages::not_found)
        .layer(axum::middleware::from_fn_with_state(state, guard))
}

/// A signed-in request: its caller and CSRF token. A request without one
/// is sent to the sign-in page.
pub struct Ui {
    /// Who, as [`crate::auth`] decided.
    pub who: Authenticated,
    /// The session's CSRF token.
    pub csrf: String,
}

impl Ui {
    /// The application layer's caller (the same as REST's).
    pub fn caller(&self) -> Caller {
        crate::rest::Who(self.who.clone()).caller()
    }

    /// Whether the caller may do what `method` on the REST route
    /// `rest_path` does.
    pub fn may(&self, method: Method, rest_path: &str) -> bool {
        crate::auth::may(&self.who, &method, rest_path).is_ok()
    }

    /// [`Ui::may`], as an error page when not.
    pub fn require(&self, method: Method, rest_path: &str) -> Result<(), UiError> {
        crate::auth::may(&self.who, &method, rest_path).map_err(UiError::from)
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Ui {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Response> {
        let who = parts.extensions.get::<Authenticated>().cloned();
        let csrf = parts.extensions.get::<UiSession>().cloned();
        match (who, csrf) {
            (Some(who), Some(s)) => Ok(Ui { who, csrf: s.csrf }),
            _ => Err(to_sign_in(&parts.headers)),
        }
    }
}

/// The sign-in page, as a redirect (htmx gets `HX-Redirect`).
fn to_sign_in(headers: &HeaderMap) -> Response {
    if headers.contains_key("hx-request") {
        return (
            StatusCode::UNAUTHORIZED,
            [("hx-redirect", "/ui/login")],
            "sign in",
        )
            .into_response();
    }
    Redirect::to("/ui/login").into_response()
}

/// An error on its way to the browser: a page saying what went wrong,
/// with the status REST would answer.
#[derive(Debug)]
pub struct UiError(pub ApiError);

impl From<Error> for UiError {
    fn from(e: Error) -> Self {
        UiError(ApiError::from(e))
    }
}

impl From<ApiError> for UiError {
    fn from(e: ApiError) -> Self {
        UiError(e)
    }
}

impl IntoResponse for UiError {
    fn into_response(self) -> Response {
        let (status, message) = match &self.0 {
            ApiError::Engine(e) => {
                let status = crate::error::status(e.kind());
                let message = if status == StatusCode::INTERNAL_SERVER_ERROR {
                    tracing::error!(error = %e, "a web UI request failed");
                    "something went wrong inside Cairn; see the server's log".to_string()
                } else {
                    e.to_string()
                };
                (status, message)
            }
            ApiError::Request {
                status, message, ..
            } => (*status, message.clone()),
        };
        (status, render::error_page(status, &message)).into_response()
    }
}

/// A 429 page saying `message`, with `Retry-After: wait` seconds.
pub fn too_many(message: &str, wait: u64) -> Response {
    let mut r = (
        StatusCode::TOO_MANY_REQUESTS,
        render::error_page(StatusCode::TOO_MANY_REQUESTS, message),
    )
        .into_response();
    r.headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(wait));
    r
}

/// Run `f` on the engine for the signed-in caller.
pub async fn run<T, F>(state: &AppState, ui: &Ui, f: F) -> Result<T, UiError>
where
    T: Send + 'static,
    F: FnOnce(&Cairn, &Caller) -> cairn_core::Result<T> + Send + 'static,
{
    let caller = ui.caller();
    Ok(cairn_mcp::on_engine(&state.cairn, move |c| f(c, &caller)).await?)
}

/// What every UI response gets: the security headers; and what every
/// state-changing request must pass: an `Origin` of this server (when the
/// browser sends one) and the session's CSRF token (but for signing in,
/// which has no session yet).
pub async fn guard(State(_): State<AppState>, req: Request, next: Next) -> Response {
    let req = match check_csrf(req).await {
        Ok(req) => req,
        Err(response) => return with_headers(response),
    };
    with_headers(next.run(req).await)
}

fn forbidden(message: &str) -> Response {
    (
        StatusCode::FORBIDDEN,
        render::error_page(StatusCode::FORBIDDEN, message),
    )
        .into_response()
}

async fn check_csrf(req: Request) -> Result<Request, Response> {
    if matches!(*req.method(), Method::GET | Method::HEAD) {
        return Ok(req);
    }
    if !same_origin(req.headers()) {
        return Err(forbidden(
            "this request came from another site (its Origin is not this server)",
        ));
    }
    // Nested under `/ui`, the router sees the path without the prefix.
    if matches!(req.uri().path(), "/login" | "/ui/login") {
        return Ok(req);
    }
    let Some(expected) = req.extensions().get::<UiSession>().map(|s| s.csrf.clone()) else {
        return Err(to_sign_in(req.headers()));
    };
    if let Some(sent) = req.headers().get(CSRF_HEADER) {
        return match sent.to_str() {
            Ok(sent) if session::same_secret(sent, &expected) => Ok(req),
            _ => Err(forbidden(
                "the form's security token is wrong: reload the page",
            )),
        };
    }
    let form = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/x-www-form-urlencoded"));
    if !form {
        return Err(forbidden(
            "the request carries no security token: reload the page",
        ));
    }
    let (parts, body) = req.into_parts();
    let bytes = axum::body::to_bytes(body, MAX_FORM)
        .await
        .map_err(|e| UiError(ApiError::body_too_large(e)).into_response())?;
    let sent = form_urlencoded::parse(&bytes)
        .find(|(k, _)| k == CSRF_FIELD)
        .map(|(_, v)| v.into_owned());
    match sent {
        Some(sent) if session::same_secret(&sent, &expected) => {
            Ok(Request::from_parts(parts, Body::from(bytes)))
        }
        _ => Err(forbidden(
            "the form's security token is missing or wrong: reload the page",
        )),
    }
}

/// Whether the request's `Origin` (or, without one, its `Sec-Fetch-Site`)
/// says it came from a page of this server. Neither header: not a browser
/// request from another site (browsers send `Origin` on every cross-site
/// POST).
fn same_origin(headers: &HeaderMap) -> bool {
    if let Some(origin) = headers.get(header::ORIGIN) {
        let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
        let origin = origin.to_str().unwrap_or_default();
        let bare = origin
            .strip_prefix("http://")
            .or_else(|| origin.strip_prefix("https://"));
        return matches!((bare, host), (Some(o), Some(h)) if o.eq_ignore_ascii_case(h));
    }
    match headers.get("sec-fetch-site").and_then(|v| v.to_str().ok()) {
        Some(site) => site == "same-origin" || site == "none",
        None => true,
    }
}

fn with_headers(mut response: Response) -> Response {
    let h = response.headers_mut();
    // A page may widen it (the consent page's form-action).
    h.entry(header::CONTENT_SECURITY_POLICY)
        .or_insert(HeaderValue::from_static(CSP));
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    // Not `no-referrer`: under it browsers send `Origin: null` with a
    // form's POST, and the Origin check could not tell this site's forms
    // from another's.
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.entry(header::CACHE_CONTROL)
        .or_insert(HeaderValue::from_static("no-store"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_must_be_this_server() {
        let mut h = HeaderMap::new();
        h.insert(header::HOST, "127.0.0.1:8080".parse().unwrap());
        assert!(
            same_origin(&h),
            "no Origin: not a cross-site browser request"
        );
        h.insert(header::ORIGIN, "http://127.0.0.1:8080".parse().unwrap());
        assert!(same_origin(&h));
        h.insert(header::ORIGIN, "http://evil.example".parse().unwrap());
        assert!(!same_origin(&h));
        h.insert(header::ORIGIN, "null".parse().unwrap());
        assert!(!same_origin(&h));
        h.remove(header::ORIGIN);
        h.insert("sec-fetch-site", "cross-site".parse().unwrap());
        assert!(!same_origin(&h));
    }
}
