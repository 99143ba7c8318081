//! Who a request is: the API key in its `Authorization: Bearer` header,
//! checked on every `/v1` and `/mcp` request, or the local user when the
//! server runs without authentication (`--no-auth`, loopback only).
//!
//! The middleware puts an [`Authenticated`] into the request's extensions
//! (and, for MCP, the tenant as [`RequestCaller`] and a read-only key's
//! [`ReadOnly`] mark); routes read the caller from there and nowhere else.
//! The open paths (`/healthz`, `/readyz`) carry no caller.
//!
//! The web UI (`/ui`) is identified here too: by the key its session
//! cookie stands for ([`crate::ui::session`]), checked by the same
//! [`api::authenticate`] on every request, so a revoked key signs its
//! browsers out at once. A UI page without a caller sends the browser to
//! sign in; each UI action asks [`may`] with the REST route it mirrors, so
//! a role allows the same things in both.

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use cairn_core::api::{self, Authenticated};
use cairn_core::keys::Role;
use cairn_core::{Cairn, Error, DEFAULT_TENANT};
use cairn_mcp::{ReadOnly, RequestCaller};

use crate::ui::session;
use crate::{ApiError, AppState, MCP_PATH};

/// How a server decides who a request is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Auth {
    /// Every `/v1` and `/mcp` request needs an API key.
    #[default]
    Keys,
    /// No keys: every request is the local user (tenant `default`, admin).
    /// Only for servers on a loopback address.
    Open,
}

/// The header an admin key names another tenant with.
pub const TENANT_HEADER: &str = "x-cairn-tenant";

/// The local user of a server without authentication.
pub fn local_user() -> Authenticated {
    Authenticated {
        key_id: "local".into(),
        tenant: DEFAULT_TENANT.into(),
        role: Role::Admin,
    }
}

/// Whether `path` needs a caller.
fn guarded(path: &str) -> bool {
    is_mcp(path) || path == "/v1" || path.starts_with("/v1/")
}

/// The role a REST request needs: reading for GET and for the searches
/// sent as POST, administering for `/v1/keys`, `/v1/consolidate`,
/// `/v1/providers` and changing `/v1/settings`, writing for the rest. MCP
/// requests need only a key: its tools check [`ReadOnly`] themselves.
fn needed(method: &Method, path: &str) -> Role {
    if path == "/v1/keys"
        || path.starts_with("/v1/keys/")
        || path == "/v1/consolidate"
        || path == "/v1/providers"
        || (path == "/v1/settings" && *method != Method::GET && *method != Method::HEAD)
    {
        return Role::Admin;
    }
    if path == MCP_PATH || path.starts_with("/mcp/") {
        return Role::Read;
    }
    match *method {
        Method::GET | Method::HEAD | Method::OPTIONS => Role::Read,
        Method::POST if is_search(path) => Role::Read,
        _ => Role::Write,
    }
}

/// Whether `who` may do what `method` on the REST route `rest_path` (under
/// `/v1`) does: the web UI asks this before each of its actions, every one
/// of which is a REST operation.
pub fn may(who: &Authenticated, method: &Method, rest_path: &str) -> Result<(), Error> {
    who.require(needed(method, rest_path))
}

/// Whether a POST only reads: recall, the session-start context, a
/// prompt's memory block and a session's window.
fn is_search(path: &str) -> bool {
    matches!(
        path,
        "/v1/recall" | "/v1/context" | "/v1/prompt" | "/v1/slot-search"
    ) || path
        .strip_prefix("/v1/sessions/")
        .and_then(|rest| rest.strip_suffix("/window"))
        .is_some_and(|session| !session.is_empty() && !session.contains('/'))
}

/// The key text of an `Authorization: Bearer` header.
pub(crate) fn bearer(headers: &HeaderMap) -> Result<&str, Error> {
    let value = headers.get(header::AUTHORIZATION).ok_or_else(|| {
        Error::Unauthenticated(
            "this server needs an API key: send `Authorization: Bearer <key>` (make one with `cairn keys create`)".into(),
        )
    })?;
    let text = value
        .to_str()
        .map_err(|_| Error::Unauthenticated("the Authorization header is not text".into()))?;
    match text.split_once(' ') {
        Some((scheme, key)) if scheme.eq_ignore_ascii_case("bearer") => Ok(key.trim()),
        _ => Err(Error::Unauthenticated(
            "the Authorization header must be `Bearer <key>`".into(),
        )),
    }
}

/// Who the request for `path` is, under `auth`, and the default project
/// its credential names (an OAuth grant's). An OAuth access token works
/// on `/mcp` only (the resource it was issued for) and never acts for
/// another tenant than its grant's.
fn identify(
    cairn: &Cairn,
    auth: Auth,
    headers: &HeaderMap,
    path: &str,
) -> Result<(Authenticated, Option<String>), Error> {
    let presented = match auth {
        Auth::Open => None,
        Auth::Keys => Some(bearer(headers)?),
    };
    if let Some(text) = presented.filter(|t| t.starts_with(cairn_core::oauth::ACCESS_PREFIX)) {
        if !is_mcp(path) {
            return Err(Error::Unauthenticated(format!(
                "an OAuth access token is for {MCP_PATH} only; use an API key here"
            )));
        }
        let caller = api::oauth::authenticate_token(cairn, text)?;
        if let Some(named) = headers.get(TENANT_HEADER) {
            let named = named.to_str().ok().and_then(|n| api::tenant_name(n).ok());
            if named != Some(caller.who.tenant.as_str()) {
                return Err(Error::Forbidden(format!(
                    "an OAuth access token acts for its grant's tenant only; leave out {TENANT_HEADER}"
                )));
            }
        }
        return Ok((caller.who, caller.project));
    }
    let mut who = match presented {
        None => local_user(),
        Some(key) => api::authenticate(cairn, key)?,
    };
    if let Some(named) = headers.get(TENANT_HEADER) {
        let named = named
            .to_str()
            .map_err(|_| Error::invalid(format!("the {TENANT_HEADER} header is not text")))?;
        let named = api::tenant_name(named)?;
        if named != who.tenant {
            who.require(Role::Admin).map_err(|_| {
                Error::Forbidden(format!(
                    "only an admin key may name a tenant in {TENANT_HEADER}; this key acts for its own"
                ))
            })?;
            who.tenant = named.to_string();
        }
    }
    Ok((who, None))
}

fn is_mcp(path: &str) -> bool {
    path == MCP_PATH || path.starts_with("/mcp/")
}

/// The middleware: identify every guarded request, check its role, and
/// hand the caller to the routes.
pub async fn authenticate(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    let path = req.uri().path().to_string();
    if crate::ui::is_ui(&path) {
        return ui_request(state, req, next).await;
    }
    if !guarded(&path) {
        return next.run(req).await;
    }
    let auth = state.auth;
    let headers = req.headers().clone();
    let for_path = path.clone();
    let who = cairn_mcp::on_engine(&state.cairn, move |c| {
        identify(c, auth, &headers, &for_path)
    })
    .await
    .and_then(|who| who.0.require(needed(req.method(), &path)).map(|()| who));
    let (who, project) = match who {
        Ok(who) => who,
        Err(e) => {
            let unauthenticated = e.kind() == cairn_core::ErrorKind::Unauthenticated;
            let mut response = ApiError::from(e).into_response();
            if unauthenticated && auth == Auth::Keys && is_mcp(&path) {
                // RFC 9728 §5.1: where an MCP client learns how to sign in.
                let value = crate::oauth::challenge(&state, req.headers());
                if let Ok(value) = axum::http::HeaderValue::from_str(&value) {
                    response
                        .headers_mut()
                        .insert(header::WWW_AUTHENTICATE, value);
                }
            }
            return response;
        }
    };
    let ext = req.extensions_mut();
    if let Some(project) = project {
        ext.insert(cairn_mcp::RequestProject(project));
    }
    ext.insert(RequestCaller {
        tenant: who.tenant.clone(),
        actor: who.key_id.clone(),
    });
    if !who.role.allows(Role::Write) {
        ext.insert(ReadOnly);
    }
    ext.insert(who);
    next.run(req).await
}

/// A web UI request: its caller (the session's key, or the local user of
/// a server without authentication) and its CSRF token go into the
/// request's extensions when it has them; the UI's routes decide what a
/// request without them gets (the sign-in page).
async fn ui_request(state: AppState, mut req: Request, next: Next) -> Response {
    let (who, csrf) = match state.auth {
        Auth::Open => (
            Some(local_user()),
            Some(state.sessions.open_csrf().to_string()),
        ),
        Auth::Keys => match session::cookie(req.headers()) {
            Some(id) => {
                let id = id.to_string();
                let sessions = state.sessions.clone();
                let found = cairn_mcp::on_engine(&state.cairn, move |c| {
                    let Some(s) = sessions.get(c, &id)? else {
                        return Ok(None);
                    };
                    match api::authenticate_key_id(c, &s.key_id) {
                        Ok(who) => Ok(Some((who, s.csrf))),
                        // Its key was revoked or expired: the session ends.
                        Err(e) if e.kind() == cairn_core::ErrorKind::Unauthenticated => {
                            sessions.end(c, &id)?;
                            Ok(None)
                        }
                        Err(e) => Err(e),
                    }
                })
                .await;
                match found {
                    Ok(Some((who, csrf))) => (Some(who), Some(csrf)),
                    Ok(None) => (None, None),
                    Err(e) => return ApiError::from(e).into_response(),
                }
            }
            None => (None, None),
        },
    };
    let ext = req.extensions_mut();
    if let (Some(who), Some(csrf)) = (who, csrf) {
        ext.insert(RequestCaller {
            tenant: who.tenant.clone(),
            actor: who.key_id.clone(),
        });
        ext.insert(session::UiSession { csrf });
        ext.insert(who);
    }
    next.run(req).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_by_route() {
        assert_eq!(needed(&Method::GET, "/v1/memories"), Role::Read);
        assert_eq!(needed(&Method::POST, "/v1/recall"), Role::Read);
        assert_eq!(needed(&Method::POST, "/v1/prompt"), Role::Read);
        assert_eq!(needed(&Method::POST, "/v1/sessions/s1/window"), Role::Read);
        assert_eq!(
            needed(&Method::POST, "/v1/sessions/a/b/window"),
            Role::Write
        );
        assert_eq!(needed(&Method::POST, "/v1/messages"), Role::Write);
        assert_eq!(needed(&Method::POST, "/v1/memories"), Role::Write);
        assert_eq!(needed(&Method::DELETE, "/v1/memories/abcd"), Role::Write);
        assert_eq!(needed(&Method::PATCH, "/v1/memories/abcd"), Role::Write);
        assert_eq!(needed(&Method::GET, "/v1/keys"), Role::Admin);
        assert_eq!(needed(&Method::POST, "/v1/consolidate"), Role::Admin);
        assert_eq!(needed(&Method::GET, "/v1/providers"), Role::Admin);
        assert_eq!(needed(&Method::GET, "/v1/settings"), Role::Read);
        assert_eq!(needed(&Method::PATCH, "/v1/settings"), Role::Admin);
        assert_eq!(needed(&Method::POST, MCP_PATH), Role::Read);
        assert!(guarded("/v1/stats") && guarded("/mcp") && guarded("/v1"));
        assert!(!guarded("/healthz") && !guarded("/readyz") && !guarded("/v1x"));
    }

    #[test]
    fn bearer_headers() {
        let mut h = HeaderMap::new();
        assert_eq!(
            bearer(&h).unwrap_err().kind(),
            cairn_core::ErrorKind::Unauthenticated
        );
        h.insert(header::AUTHORIZATION, "Basic abc".parse().unwrap());
        assert!(bearer(&h).is_err());
        h.insert(header::AUTHORIZATION, "bearer  cairn_x_y ".parse().unwrap());
        assert_eq!(bearer(&h).unwrap(), "cairn_x_y");
    }
}
