//! OAuth 2.1 for remote MCP clients, as operations: register a client
//! (RFC 7591), check an authorization request, approve or deny it for a
//! signed-in user, exchange a code or a refresh token (rotated; a reused
//! one revokes its grant), tell who an access token is, revoke, and list
//! and revoke grants. The rules are [`crate::oauth`]'s pure functions;
//! the HTTP endpoints and the consent page only parse and render.
//!
//! Errors are [`OAuthError`]s carrying the RFC 6749 error code the
//! endpoint answers with (`invalid_grant`, `invalid_client`, …).

use serde::{Deserialize, Serialize};

use super::keys::{tenant_name, Authenticated};
use crate::keys::Role;
use crate::oauth::{
    self, check_challenge, check_redirect_uri, grantable, new_token, redirect_matches, token_hash,
    OAuthClient, OAuthGrant, OAuthToken, TokenKind, ACCESS_TTL_MS, CODE_TTL_MS, MAX_CLIENT_NAME,
    MAX_REDIRECT_URIS, REFRESH_TTL_MS,
};
use crate::time::format_timestamp;
use crate::{Cairn, Error, ErrorKind, Result, Timestamp};

/// An OAuth error: its RFC 6749 / RFC 7591 code and a description for
/// humans. A fault of the store is `server_error`, described vaguely
/// (the details are in [`OAuthError::cause`], for the server's log).
#[derive(Debug)]
pub struct OAuthError {
    /// `invalid_request`, `invalid_client`, `invalid_grant`, …
    pub code: &'static str,
    /// What went wrong.
    pub description: String,
    /// The store's error behind a `server_error`.
    pub cause: Option<Error>,
}

impl OAuthError {
    /// An error with this code and description.
    pub fn new(code: &'static str, description: impl Into<String>) -> Self {
        OAuthError {
            code,
            description: description.into(),
            cause: None,
        }
    }
}

impl From<Error> for OAuthError {
    fn from(e: Error) -> Self {
        match e.kind() {
            ErrorKind::InvalidInput => OAuthError::new("invalid_request", e.to_string()),
            ErrorKind::Forbidden => OAuthError::new("access_denied", e.to_string()),
            ErrorKind::Unauthenticated => OAuthError::new("invalid_grant", e.to_string()),
            _ => OAuthError {
                code: if e.kind() == ErrorKind::Unavailable {
                    "temporarily_unavailable"
                } else {
                    "server_error"
                },
                description: "the server could not answer; see its log".into(),
                cause: Some(e),
            },
        }
    }
}

type OResult<T> = std::result::Result<T, OAuthError>;

/// A client's registration request (RFC 7591 §2); other metadata is
/// ignored.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct RegisterClient {
    /// Where codes may be sent (at least one).
    #[serde(default)]
    pub redirect_uris: Vec<String>,
    /// A name to show on the consent page.
    pub client_name: Option<String>,
    /// Only `authorization_code` and `refresh_token` are offered.
    pub grant_types: Option<Vec<String>>,
    /// Only `code` is offered.
    pub response_types: Option<Vec<String>>,
}

/// A registered client (RFC 7591 §3.2.1). Every client is public
/// (`token_endpoint_auth_method: none`): it has no secret.
#[derive(Debug, Clone, Serialize)]
pub struct RegisteredClient {
    /// Its id.
    pub client_id: String,
    /// When it was issued (seconds since the epoch).
    pub client_id_issued_at: i64,
    /// Its name, if it gave one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_name: Option<String>,
    /// Its redirect URIs.
    pub redirect_uris: Vec<String>,
    /// Always `none`.
    pub token_endpoint_auth_method: &'static str,
    /// `authorization_code`, `refresh_token`.
    pub grant_types: [&'static str; 2],
    /// `code`.
    pub response_types: [&'static str; 1],
}

/// Register a public client.
pub fn register_client(cairn: &Cairn, req: RegisterClient) -> OResult<RegisteredClient> {
    let meta = |d: String| OAuthError::new("invalid_client_metadata", d);
    if req.redirect_uris.is_empty() || req.redirect_uris.len() > MAX_REDIRECT_URIS {
        return Err(OAuthError::new(
            "invalid_redirect_uri",
            format!("give 1–{MAX_REDIRECT_URIS} redirect_uris"),
        ));
    }
    for uri in &req.redirect_uris {
        check_redirect_uri(uri)
            .map_err(|e| OAuthError::new("invalid_redirect_uri", e.to_string()))?;
    }
    for g in req.grant_types.iter().flatten() {
        if g != "authorization_code" && g != "refresh_token" {
            return Err(meta(format!(
                "grant type {g:?} is not offered: use authorization_code and refresh_token"
            )));
        }
    }
    for r in req.response_types.iter().flatten() {
        if r != "code" {
            return Err(meta(format!(
                "response type {r:?} is not offered: use code"
            )));
        }
    }
    let name = req
        .client_name
        .map(|n| {
            n.trim()
                .chars()
                .filter(|c| !c.is_control())
                .collect::<String>()
        })
        .filter(|n| !n.is_empty());
    if name.as_ref().is_some_and(|n| n.len() > MAX_CLIENT_NAME) {
        return Err(meta(format!(
            "client_name is longer than {MAX_CLIENT_NAME} bytes"
        )));
    }
    let now = cairn.now();
    let client = OAuthClient {
        id: oauth::random_hex(16)?,
        name,
        redirect_uris: req.redirect_uris,
        created_at: now,
    };
    cairn.store().oauth_store().insert_client(&client)?;
    Ok(RegisteredClient {
        client_id: client.id,
        client_id_issued_at: now / 1000,
        client_name: client.name,
        redirect_uris: client.redirect_uris,
        token_endpoint_auth_method: "none",
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
    })
}

/// The query of an authorization request (RFC 6749 §4.1.1, RFC 7636,
/// RFC 8707's `resource`).
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
pub struct AuthorizationRequest {
    /// Must be `code`.
    pub response_type: Option<String>,
    /// The registered client.
    pub client_id: Option<String>,
    /// One of its redirect URIs (may be left out when it has one).
    pub redirect_uri: Option<String>,
    /// `BASE64URL(SHA256(verifier))`.
    pub code_challenge: Option<String>,
    /// Must be `S256`.
    pub code_challenge_method: Option<String>,
    /// Sent back with the code.
    pub state: Option<String>,
    /// The resource the token is for: this server's MCP endpoint.
    pub resource: Option<String>,
    /// Ignored: what a grant allows is chosen on the consent page.
    pub scope: Option<String>,
}

/// A checked authorization request, ready for the user's consent.
#[derive(Debug, Clone)]
pub struct Authorization {
    /// The client.
    pub client_id: String,
    /// Its name, if it gave one.
    pub client_name: Option<String>,
    /// Where the answer goes.
    pub redirect_uri: String,
    /// Whether the request named it (then the exchange must repeat it).
    pub redirect_uri_given: bool,
    /// Sent back with the answer.
    pub state: Option<String>,
    /// The PKCE challenge.
    pub challenge: String,
}

/// Why an authorization request was refused, and whether the answer may
/// go to the client (`redirect`: the request's client and redirect URI
/// were valid) or must be shown to the user (they were not: sending it
/// on could make this server an open redirector).
#[derive(Debug)]
pub struct AuthorizeRefusal {
    /// Where the error may be sent (with its `state`), if anywhere.
    pub redirect: Option<String>,
    /// The error.
    pub error: OAuthError,
}

/// Whether `given` names `resource` (the MCP endpoint's URL) or the
/// server itself, ignoring a final slash.
pub fn resource_matches(given: &str, resource: &str) -> bool {
    let given = given.trim_end_matches('/');
    let resource = resource.trim_end_matches('/');
    given == resource || Some(given) == resource.strip_suffix(crate::oauth::MCP_PATH_SUFFIX)
}

/// Check an authorization request for `resource` (this server's MCP URL).
pub fn check_authorization(
    cairn: &Cairn,
    req: &AuthorizationRequest,
    resource: &str,
) -> std::result::Result<Authorization, AuthorizeRefusal> {
    let to_user = |code, d: String| AuthorizeRefusal {
        redirect: None,
        error: OAuthError::new(code, d),
    };
    let client_id = req
        .client_id
        .as_deref()
        .ok_or_else(|| to_user("invalid_request", "client_id is missing".into()))?;
    let client = cairn
        .store()
        .oauth_store()
        .client(client_id)
        .map_err(|e| AuthorizeRefusal {
            redirect: None,
            error: e.into(),
        })?
        .ok_or_else(|| {
            to_user(
                "invalid_client",
                format!("no client {client_id:?} is registered"),
            )
        })?;
    let redirect_uri = match req.redirect_uri.as_deref() {
        Some(given) => {
            if !client
                .redirect_uris
                .iter()
                .any(|r| redirect_matches(r, given))
            {
                return Err(to_user(
                    "invalid_request",
                    format!("redirect_uri {given:?} is not one this client registered"),
                ));
            }
            given.to_string()
        }
        None if client.redirect_uris.len() == 1 => client.redirect_uris[0].clone(),
        None => {
            return Err(to_user(
                "invalid_request",
                "redirect_uri is missing (this client registered several)".into(),
            ))
        }
    };
    let back = |code, d: String| {
        let mut params = vec![("error", code), ("error_description", d.as_str())];
        if let Some(s) = req.state.as_deref() {
            params.push(("state", s));
        }
        AuthorizeRefusal {
            redirect: Some(oauth::with_query(&redirect_uri, &params)),
            error: OAuthError::new(code, d.clone()),
        }
    };
    if req.response_type.as_deref() != Some("code") {
        return Err(back(
            "unsupported_response_type",
            "response_type must be code".into(),
        ));
    }
    let challenge = check_challenge(
        req.code_challenge.as_deref(),
        req.code_challenge_method.as_deref(),
    )
    .map_err(|e| back("invalid_request", e.to_string()))?
    .to_string();
    if let Some(given) = req.resource.as_deref() {
        if !resource_matches(given, resource) {
            return Err(back(
                "invalid_target",
                format!("resource {given:?} is not this server ({resource})"),
            ));
        }
    }
    Ok(Authorization {
        client_id: client.id,
        client_name: client.name,
        redirect_uri_given: req.redirect_uri.is_some(),
        redirect_uri,
        state: req.state.clone(),
        challenge,
    })
}

/// What the user chose on the consent page.
#[derive(Debug, Clone)]
pub struct Consent {
    /// The tenant to grant.
    pub tenant: String,
    /// The default project of its calls (empty: none).
    pub project: Option<String>,
    /// `read` or `write`.
    pub role: Role,
}

/// The user `granter` approves `auth` with `consent`: a grant and a code
/// are stored; the answer is where to send the browser (the client's
/// redirect URI with the code and state).
pub fn approve(
    cairn: &Cairn,
    granter: &Authenticated,
    auth: &Authorization,
    consent: Consent,
) -> Result<String> {
    let tenant = tenant_name(&consent.tenant)?.to_string();
    grantable(granter, &tenant, consent.role)?;
    let project = consent
        .project
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty());
    if let Some(p) = &project {
        if p.len() > 256 || p.chars().any(char::is_control) {
            return Err(Error::invalid("the project name is not valid"));
        }
    }
    let store = cairn.store().oauth_store();
    let now = cairn.now();
    let grant = OAuthGrant {
        id: oauth::random_hex(6)?,
        client_id: auth.client_id.clone(),
        tenant,
        project,
        role: consent.role,
        granted_by: granter.key_id.clone(),
        created_at: now,
        last_used_at: None,
        revoked_at: None,
    };
    store.insert_grant(&grant)?;
    let (code, hash) = new_token(TokenKind::Code)?;
    store.insert_token(&OAuthToken {
        hash,
        kind: TokenKind::Code,
        grant_id: grant.id,
        created_at: now,
        expires_at: now + CODE_TTL_MS,
        used_at: None,
        redirect_uri: auth.redirect_uri_given.then(|| auth.redirect_uri.clone()),
        challenge: Some(auth.challenge.clone()),
    })?;
    let mut params = vec![("code", code.as_str())];
    if let Some(s) = auth.state.as_deref() {
        params.push(("state", s));
    }
    Ok(oauth::with_query(&auth.redirect_uri, &params))
}

/// Where to send the browser when the user denies `auth`.
pub fn deny(auth: &Authorization) -> String {
    let mut params = vec![("error", "access_denied")];
    if let Some(s) = auth.state.as_deref() {
        params.push(("state", s));
    }
    oauth::with_query(&auth.redirect_uri, &params)
}

/// A token request's form (RFC 6749 §4.1.3 and §6).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct TokenRequest {
    /// `authorization_code` or `refresh_token`.
    pub grant_type: Option<String>,
    /// The code (authorization_code).
    pub code: Option<String>,
    /// The redirect URI the authorization request named, if it named one.
    pub redirect_uri: Option<String>,
    /// The client.
    pub client_id: Option<String>,
    /// The PKCE verifier (authorization_code).
    pub code_verifier: Option<String>,
    /// The refresh token (refresh_token).
    pub refresh_token: Option<String>,
    /// The resource (checked like the authorization request's).
    pub resource: Option<String>,
}

/// Tokens issued (RFC 6749 §5.1).
#[derive(Debug, Clone, Serialize)]
pub struct TokenResponse {
    /// For `Authorization: Bearer` on `/mcp`.
    pub access_token: String,
    /// `Bearer`.
    pub token_type: &'static str,
    /// Seconds the access token works.
    pub expires_in: i64,
    /// Exchanged once for new tokens.
    pub refresh_token: String,
}

fn invalid_grant(d: impl Into<String>) -> OAuthError {
    OAuthError::new("invalid_grant", d)
}

/// Exchange a code or a refresh token for new tokens, for `resource`.
pub fn exchange(cairn: &Cairn, req: &TokenRequest, resource: &str) -> OResult<TokenResponse> {
    let client_id = req
        .client_id
        .as_deref()
        .ok_or_else(|| OAuthError::new("invalid_request", "client_id is missing"))?;
    let store = cairn.store().oauth_store();
    if store.client(client_id)?.is_none() {
        return Err(OAuthError::new(
            "invalid_client",
            format!("no client {client_id:?} is registered"),
        ));
    }
    if let Some(given) = req.resource.as_deref() {
        if !resource_matches(given, resource) {
            return Err(OAuthError::new(
                "invalid_target",
                format!("resource {given:?} is not this server"),
            ));
        }
    }
    let (kind, text) = match req.grant_type.as_deref() {
        Some("authorization_code") => (TokenKind::Code, req.code.as_deref()),
        Some("refresh_token") => (TokenKind::Refresh, req.refresh_token.as_deref()),
        Some(other) => {
            return Err(OAuthError::new(
                "unsupported_grant_type",
                format!(
                    "grant_type {other:?} is not offered: use authorization_code or refresh_token"
                ),
            ))
        }
        None => return Err(OAuthError::new("invalid_request", "grant_type is missing")),
    };
    let what = if kind == TokenKind::Code {
        "code"
    } else {
        "refresh_token"
    };
    let text =
        text.ok_or_else(|| OAuthError::new("invalid_request", format!("{what} is missing")))?;
    let hash = token_hash(text);
    let token = store
        .token(&hash)?
        .filter(|t| t.kind == kind)
        .ok_or_else(|| invalid_grant(format!("unknown {what}")))?;
    let grant = store
        .grant(&token.grant_id)?
        .ok_or_else(|| invalid_grant(format!("unknown {what}")))?;
    if grant.client_id != client_id {
        return Err(invalid_grant(format!(
            "this {what} was issued to another client"
        )));
    }
    let now = cairn.now();
    if token.expires_at <= now {
        return Err(invalid_grant(token.refusal(kind, now).unwrap_or("expired")));
    }
    if token.used_at.is_some() || !store.use_token(&hash, now)? {
        // A second use means the secret leaked (or a client replays it):
        // every token of the grant stops (RFC 9700 §4.14.2, §4.5).
        store.revoke_grant(&grant.id, now)?;
        return Err(invalid_grant(format!(
            "this {what} was already used; every token issued under it is revoked"
        )));
    }
    if kind == TokenKind::Code {
        if let Some(expected) = token.redirect_uri.as_deref() {
            if req.redirect_uri.as_deref() != Some(expected) {
                return Err(invalid_grant(
                    "redirect_uri differs from the authorization request's",
                ));
            }
        }
        let verified = match (req.code_verifier.as_deref(), token.challenge.as_deref()) {
            (Some(v), Some(c)) => oauth::verify_pkce(v, c),
            _ => false,
        };
        if !verified {
            return Err(invalid_grant(
                "PKCE verification failed: code_verifier does not match the code_challenge",
            ));
        }
    }
    if let Some(why) = grant_refusal(cairn, &grant, now)? {
        return Err(invalid_grant(why));
    }
    issue(cairn, &grant.id, now)
}

/// New access and refresh tokens under grant `grant_id`.
fn issue(cairn: &Cairn, grant_id: &str, now: Timestamp) -> OResult<TokenResponse> {
    let store = cairn.store().oauth_store();
    let mut out = [String::new(), String::new()];
    for (i, (kind, ttl)) in [
        (TokenKind::Access, ACCESS_TTL_MS),
        (TokenKind::Refresh, REFRESH_TTL_MS),
    ]
    .into_iter()
    .enumerate()
    {
        let (text, hash) = new_token(kind)?;
        store.insert_token(&OAuthToken {
            hash,
            kind,
            grant_id: grant_id.to_string(),
            created_at: now,
            expires_at: now + ttl,
            used_at: None,
            redirect_uri: None,
            challenge: None,
        })?;
        out[i] = text;
    }
    let [access_token, refresh_token] = out;
    Ok(TokenResponse {
        access_token,
        token_type: "Bearer",
        expires_in: ACCESS_TTL_MS / 1000,
        refresh_token,
    })
}

/// Why a grant's tokens cannot be used, if they cannot: it was revoked,
/// or the API key of the user who gave it no longer works.
fn grant_refusal(
    cairn: &Cairn,
    grant: &OAuthGrant,
    now: Timestamp,
) -> Result<Option<&'static str>> {
    if grant.revoked_at.is_some() {
        return Ok(Some("this access was revoked"));
    }
    let key = cairn.store().key_store().key(&grant.granted_by)?;
    Ok(match key {
        Some(k) if k.refusal(now).is_none() => None,
        _ => Some("the API key that granted this access no longer works"),
    })
}

/// Who an access token acts for, and the default project of its calls.
#[derive(Debug, Clone)]
pub struct TokenCaller {
    /// The grant's tenant and role; `key_id` is `oauth-<grant id>`.
    pub who: Authenticated,
    /// The grant's project.
    pub project: Option<String>,
}

/// How often a grant's last use is written.
const TOUCH_EVERY_MS: Timestamp = 60_000;

/// Who `presented` (an access token's text) is, or
/// [`Error::Unauthenticated`] saying why not.
pub fn authenticate_token(cairn: &Cairn, presented: &str) -> Result<TokenCaller> {
    let store = cairn.store().oauth_store();
    let unknown = || Error::Unauthenticated("unknown access token".into());
    let token = store.token(&token_hash(presented))?.ok_or_else(unknown)?;
    let now = cairn.now();
    if let Some(why) = token.refusal(TokenKind::Access, now) {
        return Err(Error::Unauthenticated(why.into()));
    }
    let grant = store.grant(&token.grant_id)?.ok_or_else(unknown)?;
    if let Some(why) = grant_refusal(cairn, &grant, now)? {
        return Err(Error::Unauthenticated(why.into()));
    }
    if grant.last_used_at.is_none_or(|t| now - t >= TOUCH_EVERY_MS) {
        store.touch_grant(&grant.id, now)?;
    }
    Ok(TokenCaller {
        who: Authenticated {
            key_id: format!("oauth-{}", grant.id),
            tenant: grant.tenant,
            role: grant.role,
        },
        project: grant.project,
    })
}

/// Revoke the grant a presented code or token belongs to (RFC 7009: an
/// unknown token is not an error).
pub fn revoke_token(cairn: &Cairn, presented: &str) -> Result<()> {
    let store = cairn.store().oauth_store();
    if let Some(t) = store.token(&token_hash(presented))? {
        store.revoke_grant(&t.grant_id, cairn.now())?;
    }
    Ok(())
}

/// A grant as listings show it.
#[derive(Debug, Clone, Serialize)]
pub struct GrantView {
    /// The grant's id.
    pub id: String,
    /// The client's id.
    pub client_id: String,
    /// The client's name, if it gave one.
    pub client_name: Option<String>,
    /// The tenant its tokens act for.
    pub tenant: String,
    /// Its default project.
    pub project: Option<String>,
    /// What its tokens may do.
    pub role: Role,
    /// The key id of the user who gave it.
    pub granted_by: String,
    /// `active` or `revoked`.
    pub status: &'static str,
    /// When it was given.
    pub created_at: String,
    /// When a token of it was last used.
    pub last_used_at: Option<String>,
}

/// Every grant of `tenant`, oldest first.
pub fn list_grants(cairn: &Cairn, tenant: &str) -> Result<Vec<GrantView>> {
    let store = cairn.store().oauth_store();
    store
        .grants(Some(tenant))?
        .into_iter()
        .map(|g| {
            let client_name = store.client(&g.client_id)?.and_then(|c| c.name);
            Ok(GrantView {
                status: if g.revoked_at.is_some() {
                    "revoked"
                } else {
                    "active"
                },
                id: g.id,
                client_id: g.client_id,
                client_name,
                tenant: g.tenant,
                project: g.project,
                role: g.role,
                granted_by: g.granted_by,
                created_at: format_timestamp(g.created_at),
                last_used_at: g.last_used_at.map(format_timestamp),
            })
        })
        .collect()
}

/// Revoke grant `id` of `tenant`: every token of it stops at once.
pub fn revoke_grant(cairn: &Cairn, tenant: &str, id: &str) -> Result<()> {
    let store = cairn.store().oauth_store();
    let found = oauth::is_grant_id(id) && store.grant(id)?.is_some_and(|g| g.tenant == tenant);
    if !found {
        return Err(Error::invalid(format!(
            "no OAuth grant {id:?} in this tenant"
        )));
    }
    store.revoke_grant(id, cairn.now())?;
    Ok(())
}

/// Delete the codes and tokens that expired over a day ago (the
/// server's sweep): what lived past its time proves nothing any more.
pub fn sweep_tokens(cairn: &Cairn) -> Result<usize> {
    cairn
        .store()
        .oauth_store()
        .delete_expired_tokens(cairn.now() - 86_400_000)
}

#[cfg(test)]
#[path = "oauth_tests.rs"]
mod tests;
