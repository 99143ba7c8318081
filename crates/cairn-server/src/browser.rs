//! What a web page in the user's browser could be used for, refused on
//! every route (`/v1`, `/ui`, `/mcp`, `/docs`, `/metrics`, ...), and the
//! security headers every answer carries.
//!
//! - **DNS rebinding**: a page of `evil.example` whose name is made to
//!   point at 127.0.0.1 reaches the server with `Host: evil.example`. A
//!   request whose `Host` is not one the server is reached by (loopback
//!   names and `--allow-host`, [`crate::AppState::mcp_hosts`]) gets 403.
//!   A request without `Host` passes: browsers always send one. The
//!   probes `/healthz` and `/readyz` tell nothing and pass, so a load
//!   balancer may probe by address.
//! - **Cross-site requests**: a page may POST to any address without
//!   reading the answer. A request that changes something (any method but
//!   GET, HEAD and OPTIONS) whose `Origin` is not this server's own
//!   (scheme-less comparison of `host[:port]` with `Host`), or whose
//!   `Sec-Fetch-Site` says `cross-site` or `same-site`, gets 403. On a
//!   server without keys, a `/v1` write sent as `text/plain` (what an HTML
//!   form can send without the browser asking first) gets 415: JSON
//!   clients say `application/json`.
//! - **Headers**: `X-Content-Type-Options: nosniff` on every answer; every
//!   HTML answer (the web UI, `/docs`, error pages) also gets a
//!   Content-Security-Policy (the UI's, or [`DOCS_CSP`] for `/docs`),
//!   `X-Frame-Options: DENY` and `Referrer-Policy: same-origin`.

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::{ApiError, AppState, Auth};

/// The Content-Security-Policy of the `/docs` reference page: its scripts
/// come from the server (none inline); Swagger UI sets inline styles.
pub const DOCS_CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// A `Host` or origin authority, lowercased, without brackets or port.
fn host_name(authority: &str) -> Option<String> {
    let authority = authority.parse::<axum::http::uri::Authority>().ok()?;
    Some(
        authority
            .host()
            .trim_matches(['[', ']'])
            .to_ascii_lowercase(),
    )
}

/// Whether `host` (a `Host` header) is one of `allowed` (names, or
/// `name:port`); `None` allows every host.
pub fn host_allowed(host: &str, allowed: Option<&[String]>) -> bool {
    let Some(allowed) = allowed else {
        return true;
    };
    let Ok(authority) = host.parse::<axum::http::uri::Authority>() else {
        return false;
    };
    let name = authority
        .host()
        .trim_matches(['[', ']'])
        .to_ascii_lowercase();
    allowed
        .iter()
        .any(|a| match a.parse::<axum::http::uri::Authority>() {
            Ok(entry) if entry.port_u16().is_some() => {
                host_name(a).as_deref() == Some(name.as_str())
                    && entry.port_u16() == authority.port_u16()
            }
            _ => host_name(a).unwrap_or_else(|| a.to_ascii_lowercase()) == name,
        })
}

/// Why a request that changes something looks sent by another site's
/// page: its `Origin` is not `host`, or `Sec-Fetch-Site` says so.
pub fn cross_site(headers: &HeaderMap) -> Option<&'static str> {
    if let Some(origin) = headers.get(header::ORIGIN) {
        let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
        let origin = origin.to_str().unwrap_or_default();
        let bare = origin
            .strip_prefix("http://")
            .or_else(|| origin.strip_prefix("https://"));
        return match (bare, host) {
            (Some(o), Some(h)) if o.eq_ignore_ascii_case(h) => None,
            _ => Some("its Origin is another site"),
        };
    }
    match headers.get("sec-fetch-site").and_then(|v| v.to_str().ok()) {
        Some("cross-site" | "same-site") => Some("the browser says another site sent it"),
        _ => None,
    }
}

/// Whether a method changes nothing (and so may come from anywhere).
fn safe(method: &Method) -> bool {
    matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

fn is_probe(path: &str) -> bool {
    matches!(path, "/healthz" | "/readyz")
}

fn refused(status: StatusCode, code: &'static str, message: String) -> Response {
    ApiError::request(status, code, message).into_response()
}

/// The middleware: refuse what [the module](self) says, then add the
/// headers to the answer.
pub async fn guard(State(state): State<AppState>, req: Request, next: Next) -> Response {
    if let Some(refusal) = check(&state, &req) {
        return with_headers(refusal, req.uri().path());
    }
    let path = req.uri().path().to_string();
    with_headers(next.run(req).await, &path)
}

fn check(state: &AppState, req: &Request) -> Option<Response> {
    let path = req.uri().path();
    let headers = req.headers();
    if let Some(host) = headers.get(header::HOST) {
        let host = host.to_str().unwrap_or_default();
        if !is_probe(path) && !host_allowed(host, state.mcp_hosts.as_deref()) {
            tracing::warn!(host, path, "refused a request for another host name");
            return Some(refused(
                StatusCode::FORBIDDEN,
                "forbidden_host",
                format!(
                    "this server is not reached by the name `{host}` (a guard against DNS rebinding); start it with --allow-host {host} if you mean it"
                ),
            ));
        }
    }
    if safe(req.method()) || crate::oauth::is_oauth_endpoint(path) {
        return None;
    }
    if let Some(why) = cross_site(headers) {
        tracing::warn!(path, why, "refused a cross-site request");
        return Some(refused(
            StatusCode::FORBIDDEN,
            "cross_site",
            format!("this request came from another site's page ({why}); it is refused"),
        ));
    }
    let plain_text = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.trim_start()
                .to_ascii_lowercase()
                .starts_with("text/plain")
        });
    if state.auth == Auth::Open && plain_text && (path == "/v1" || path.starts_with("/v1/")) {
        return Some(refused(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            "send the body as Content-Type: application/json (a server without keys refuses text/plain, which any web page can send)".into(),
        ));
    }
    None
}

/// The security headers of [the module](self).
fn with_headers(mut response: Response, path: &str) -> Response {
    let html = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/html"));
    let h = response.headers_mut();
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    if html {
        let csp = if path == crate::rest::openapi::DOCS_PATH || path.starts_with("/docs/") {
            DOCS_CSP
        } else {
            crate::ui::CSP
        };
        h.entry(header::CONTENT_SECURITY_POLICY)
            .or_insert(HeaderValue::from_static(csp));
        h.entry(header::X_FRAME_OPTIONS)
            .or_insert(HeaderValue::from_static("DENY"));
        h.entry(header::REFERRER_POLICY)
            .or_insert(HeaderValue::from_static("same-origin"));
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_compared_without_their_port_unless_the_entry_has_one() {
        let allowed: Vec<String> = ["localhost", "127.0.0.1", "::1", "cairn.example:8443"]
            .map(String::from)
            .to_vec();
        let ok = |h: &str| host_allowed(h, Some(&allowed));
        assert!(ok("localhost:7878") && ok("LOCALHOST") && ok("127.0.0.1:1"));
        assert!(ok("[::1]:7878"));
        assert!(ok("cairn.example:8443") && !ok("cairn.example:80"));
        assert!(!ok("evil.example") && !ok("evil.example:7878") && !ok("localhost.evil.example"));
        assert!(!ok("not a host"));
        assert!(host_allowed("evil.example", None));
    }

    #[test]
    fn origins_must_be_this_server() {
        let mut h = HeaderMap::new();
        h.insert(header::HOST, "127.0.0.1:7878".parse().unwrap());
        assert!(
            cross_site(&h).is_none(),
            "no Origin: not a browser's cross-site request"
        );
        h.insert(header::ORIGIN, "http://127.0.0.1:7878".parse().unwrap());
        assert!(cross_site(&h).is_none());
        for other in ["http://evil.example", "null", "http://127.0.0.1:3000"] {
            h.insert(header::ORIGIN, other.parse().unwrap());
            assert!(cross_site(&h).is_some(), "{other}");
        }
        h.remove(header::ORIGIN);
        h.insert("sec-fetch-site", "cross-site".parse().unwrap());
        assert!(cross_site(&h).is_some());
        h.insert("sec-fetch-site", "same-origin".parse().unwrap());
        assert!(cross_site(&h).is_none());
    }
}
