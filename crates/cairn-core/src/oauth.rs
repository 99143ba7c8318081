//! OAuth 2.1 for remote MCP clients: registered clients, grants (what a
//! signed-in user allowed a client: one tenant, an optional default
//! project, a role), and the codes and tokens issued under a grant.
//!
//! This module holds the records, the [`OAuthStore`] trait every backend
//! implements, and the rules as pure functions: which redirect URIs a
//! client may register and how a presented one matches ([`check_redirect_uri`],
//! [`redirect_matches`]), PKCE with S256 only ([`verify_pkce`]), what a
//! user may grant ([`grantable`]), and when a code or token stops working
//! ([`OAuthToken::refusal`]). The operations built on them are in
//! [`crate::api::oauth`]; the HTTP endpoints in `cairn-server`.
//!
//! Like API keys, codes and tokens are random 256-bit secrets of which the
//! store keeps only the SHA-256 ([`token_hash`]); a token is found by its
//! hash. Each kind has its own prefix so a presented text says what it is.

mod memory;

pub use memory::MemoryOAuth;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::api::Authenticated;
use crate::keys::Role;
use crate::{Error, Result, Timestamp};

/// How long an authorization code can be exchanged (ms): long enough for a
/// client to receive its redirect and call the token endpoint, no more.
pub const CODE_TTL_MS: Timestamp = 120_000;
/// How long an access token works (ms): one hour; a client refreshes it.
pub const ACCESS_TTL_MS: Timestamp = 3_600_000;
/// How long a refresh token works (ms): 30 days. Each use replaces it.
pub const REFRESH_TTL_MS: Timestamp = 30 * 86_400_000;
/// Most redirect URIs one client may register.
pub const MAX_REDIRECT_URIS: usize = 10;
/// Longest redirect URI.
pub const MAX_URI_LEN: usize = 2_000;
/// Longest client name.
pub const MAX_CLIENT_NAME: usize = 200;

/// The path of the MCP endpoint a token is for: a resource indicator may
/// name it or the server it is on.
pub const MCP_PATH_SUFFIX: &str = "/mcp";

/// The prefix of an authorization code.
pub const CODE_PREFIX: &str = "cairn_code_";
/// The prefix of an access token.
pub const ACCESS_PREFIX: &str = "cairn_at_";
/// The prefix of a refresh token.
pub const REFRESH_PREFIX: &str = "cairn_rt_";

/// A client that registered itself (RFC 7591). Every client is public: it
/// has no secret, and proves itself with PKCE.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuthClient {
    /// The client id (32 hex digits).
    pub id: String,
    /// The name it gave, shown on the consent page.
    pub name: Option<String>,
    /// Where codes may be sent.
    pub redirect_uris: Vec<String>,
    /// When it registered.
    pub created_at: Timestamp,
}

/// What a signed-in user allowed a client: every token issued under it
/// acts for `tenant` with `role`, and calls that name no project use
/// `project`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuthGrant {
    /// The grant's id (12 hex digits).
    pub id: String,
    /// The client it was given to.
    pub client_id: String,
    /// The tenant its tokens act for.
    pub tenant: String,
    /// The default project of its calls.
    pub project: Option<String>,
    /// What its tokens may do (read or write).
    pub role: Role,
    /// The id of the API key the user was signed in with: the grant stops
    /// working when that key does.
    pub granted_by: String,
    /// When it was given.
    pub created_at: Timestamp,
    /// When a token of it was last used (at most once a minute).
    pub last_used_at: Option<Timestamp>,
    /// When it was revoked (every token of it stops at once).
    pub revoked_at: Option<Timestamp>,
}

/// What an issued secret is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TokenKind {
    /// An authorization code: exchanged once for tokens.
    Code,
    /// An access token: presented on `/mcp`.
    Access,
    /// A refresh token: exchanged once for new tokens.
    Refresh,
}

impl TokenKind {
    /// The kind's name, as stored.
    pub fn as_str(self) -> &'static str {
        match self {
            TokenKind::Code => "code",
            TokenKind::Access => "access",
            TokenKind::Refresh => "refresh",
        }
    }

    /// The prefix of its text.
    pub fn prefix(self) -> &'static str {
        match self {
            TokenKind::Code => CODE_PREFIX,
            TokenKind::Access => ACCESS_PREFIX,
            TokenKind::Refresh => REFRESH_PREFIX,
        }
    }

    /// The kind a stored name stands for.
    pub fn parse(text: &str) -> Result<Self> {
        match text {
            "code" => Ok(TokenKind::Code),
            "access" => Ok(TokenKind::Access),
            "refresh" => Ok(TokenKind::Refresh),
            other => Err(Error::storage(format!(
                "unknown OAuth token kind {other:?}"
            ))),
        }
    }

    /// The kind a presented text has, by its prefix.
    pub fn of(text: &str) -> Option<Self> {
        [TokenKind::Code, TokenKind::Access, TokenKind::Refresh]
            .into_iter()
            .find(|k| text.starts_with(k.prefix()))
    }
}

/// An issued code or token: everything but its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuthToken {
    /// SHA-256 of its text.
    pub hash: [u8; 32],
    /// What it is.
    pub kind: TokenKind,
    /// The grant it was issued under.
    pub grant_id: String,
    /// When it was issued.
    pub created_at: Timestamp,
    /// When it stops working.
    pub expires_at: Timestamp,
    /// When a code or refresh token was exchanged (it works once).
    pub used_at: Option<Timestamp>,
    /// A code's redirect URI, which the exchange must repeat.
    pub redirect_uri: Option<String>,
    /// A code's PKCE challenge (S256).
    pub challenge: Option<String>,
}

impl OAuthToken {
    /// Why this token cannot be used at `now` as a `kind`, if it cannot
    /// (a code or refresh token already exchanged is refused here too).
    pub fn refusal(&self, kind: TokenKind, now: Timestamp) -> Option<&'static str> {
        if self.kind != kind {
            Some("this is not a token of that kind")
        } else if self.expires_at <= now {
            Some(match kind {
                TokenKind::Code => "the authorization code has expired",
                TokenKind::Access => "the access token has expired",
                TokenKind::Refresh => "the refresh token has expired",
            })
        } else if self.used_at.is_some() {
            Some(match kind {
                TokenKind::Code => "the authorization code was already used",
                _ => "the refresh token was already used",
            })
        } else {
            None
        }
    }
}

/// How backends store clients, grants and tokens. Ids and hashes are
/// unique across tenants (a token is looked up before its tenant is known).
pub trait OAuthStore: Send + Sync {
    /// Store a new client; [`Error::DuplicateId`] if its id is taken.
    fn insert_client(&self, client: &OAuthClient) -> Result<()>;
    /// The client with this id.
    fn client(&self, id: &str) -> Result<Option<OAuthClient>>;
    /// Store a new grant; [`Error::DuplicateId`] if its id is taken.
    fn insert_grant(&self, grant: &OAuthGrant) -> Result<()>;
    /// The grant with this id.
    fn grant(&self, id: &str) -> Result<Option<OAuthGrant>>;
    /// Every grant, or one tenant's, oldest first.
    fn grants(&self, tenant: Option<&str>) -> Result<Vec<OAuthGrant>>;
    /// Mark a grant revoked at `at`; `false` if there is no such grant. A
    /// revoked grant stays revoked (its first revocation time is kept).
    fn revoke_grant(&self, id: &str, at: Timestamp) -> Result<bool>;
    /// Record that a token of the grant was used at `at`.
    fn touch_grant(&self, id: &str, at: Timestamp) -> Result<()>;
    /// Store an issued code or token; [`Error::DuplicateId`] if its hash
    /// is taken.
    fn insert_token(&self, token: &OAuthToken) -> Result<()>;
    /// The code or token with this hash.
    fn token(&self, hash: &[u8; 32]) -> Result<Option<OAuthToken>>;
    /// Mark an unused code or token used at `at`, atomically: `true` for
    /// the one call that marked it, `false` if it was already used or is
    /// not stored. This is what makes a code or refresh token single-use
    /// when two exchanges race.
    fn use_token(&self, hash: &[u8; 32], at: Timestamp) -> Result<bool>;
    /// Delete every code and token that expired before `before`; how many.
    fn delete_expired_tokens(&self, before: Timestamp) -> Result<usize>;
}

/// SHA-256 of a code's or token's text: what the store keeps.
pub fn token_hash(text: &str) -> [u8; 32] {
    Sha256::digest(text.as_bytes()).into()
}

/// A new secret of `kind`: its text (shown once) and hash.
pub fn new_token(kind: TokenKind) -> Result<(String, [u8; 32])> {
    let text = format!("{}{}", kind.prefix(), random_hex(32)?);
    let hash = token_hash(&text);
    Ok((text, hash))
}

/// `bytes` random bytes as lowercase hex.
pub fn random_hex(bytes: usize) -> Result<String> {
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf)
        .map_err(|e| Error::storage(format!("no random numbers for an OAuth secret: {e}")))?;
    Ok(buf.iter().map(|b| format!("{b:02x}")).collect())
}

/// Whether `text` has the form of a grant id (12 hex digits).
pub fn is_grant_id(text: &str) -> bool {
    text.len() == 12 && text.bytes().all(|b| b.is_ascii_hexdigit())
}

/// A URI split into what redirect matching compares.
struct UriParts<'a> {
    https: bool,
    host: &'a str,
    rest: &'a str,
}

fn split_uri(uri: &str) -> Option<UriParts<'_>> {
    let (https, after) = if let Some(a) = uri.strip_prefix("https://") {
        (true, a)
    } else {
        (false, uri.strip_prefix("http://")?)
    };
    let end = after.find(['/', '?']).unwrap_or(after.len());
    let (authority, rest) = after.split_at(end);
    let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
        let close = v6.find(']')?;
        let host = &authority[..close + 2];
        match &v6[close + 1..] {
            "" => (host, None),
            p => (host, Some(p.strip_prefix(':')?)),
        }
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (authority, None),
        }
    };
    if host.is_empty()
        || port.is_some_and(|p| p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()))
    {
        return None;
    }
    Some(UriParts { https, host, rest })
}

fn is_loopback(host: &str) -> bool {
    matches!(
        host.to_ascii_lowercase().as_str(),
        "localhost" | "127.0.0.1" | "[::1]"
    )
}

/// Whether a client may register `uri` as a redirect URI: an absolute
/// `https` URI, or `http` on a loopback host (a native app's local
/// listener, RFC 8252); no fragment, no user info, no spaces or control
/// characters, at most [`MAX_URI_LEN`] bytes.
pub fn check_redirect_uri(uri: &str) -> Result<()> {
    let bad = |why: &str| Err(Error::invalid(format!("redirect URI {uri:?} {why}")));
    if uri.len() > MAX_URI_LEN {
        return bad(&format!("is longer than {MAX_URI_LEN} bytes"));
    }
    if !uri.is_ascii() || uri.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return bad("contains spaces, control or non-ASCII characters (percent-encode them)");
    }
    if uri.contains('#') {
        return bad("has a fragment (#), which redirect URIs may not have");
    }
    let Some(parts) = split_uri(uri) else {
        return bad("is not an absolute http(s) URI with a host");
    };
    if parts.host.contains('@') {
        return bad("has user information, which redirect URIs may not have");
    }
    let host_chars =
        |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'[' | b']' | b':');
    if !parts.host.bytes().all(host_chars) {
        return bad("has a host name with characters a host name cannot have");
    }
    if !parts.https && !is_loopback(parts.host) {
        return bad("must use https (plain http only to localhost, 127.0.0.1 or [::1])");
    }
    Ok(())
}

/// Whether a presented redirect URI matches a registered one: exactly,
/// or (RFC 8252 §7.3) both `http` on the same loopback host with the
/// same path and query, on any port, since a native app's listener gets
/// whatever port is free.
pub fn redirect_matches(registered: &str, given: &str) -> bool {
    if registered == given {
        return true;
    }
    match (split_uri(registered), split_uri(given)) {
        (Some(r), Some(g)) => {
            !r.https
                && !g.https
                && is_loopback(r.host)
                && r.host.eq_ignore_ascii_case(g.host)
                && r.rest == g.rest
        }
        _ => false,
    }
}

/// Base64url without padding (RFC 4648 §5), as PKCE writes a challenge.
pub fn base64url(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, b)| acc | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..=chunk.len() {
            out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    out
}

/// The S256 challenge of a PKCE verifier: `BASE64URL(SHA256(verifier))`.
pub fn pkce_challenge(verifier: &str) -> String {
    base64url(&Sha256::digest(verifier.as_bytes()))
}

fn pkce_chars(text: &str) -> bool {
    text.bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'))
}

/// Whether an authorization request's PKCE challenge is one Cairn takes:
/// method `S256` (the only one; `plain` is refused) and a challenge of 43
/// base64url characters (a SHA-256).
pub fn check_challenge<'a>(challenge: Option<&'a str>, method: Option<&str>) -> Result<&'a str> {
    let challenge = challenge.filter(|c| !c.is_empty()).ok_or_else(|| {
        Error::invalid("code_challenge is required: this server needs PKCE with S256")
    })?;
    if method != Some("S256") {
        return Err(Error::invalid(format!(
            "code_challenge_method must be S256 (given: {})",
            method.unwrap_or("none")
        )));
    }
    if challenge.len() != 43 || !pkce_chars(challenge) {
        return Err(Error::invalid(
            "code_challenge must be 43 base64url characters (the S256 of the verifier)",
        ));
    }
    Ok(challenge)
}

/// Whether `verifier` (43–128 unreserved characters, RFC 7636 §4.1) is
/// the one whose S256 is `challenge`, compared in constant time.
pub fn verify_pkce(verifier: &str, challenge: &str) -> bool {
    if !(43..=128).contains(&verifier.len()) || !pkce_chars(verifier) {
        return false;
    }
    crate::keys::same_hash(
        &Sha256::digest(pkce_challenge(verifier).as_bytes()).into(),
        &Sha256::digest(challenge.as_bytes()).into(),
    )
}

/// Whether `granter` (the signed-in user) may give a client `role` on
/// `tenant`: only read or write (a grant acts within one tenant, which
/// is what admin adds to write), never more than the granter's own role,
/// and only the granter's own tenant unless the granter is an admin.
pub fn grantable(granter: &Authenticated, tenant: &str, role: Role) -> Result<()> {
    if role == Role::Admin {
        return Err(Error::Forbidden(
            "an OAuth grant may read or write one tenant's memories; it cannot be admin".into(),
        ));
    }
    granter.require(role).map_err(|_| {
        Error::Forbidden(format!(
            "you are signed in with the {} role and cannot grant {role}",
            granter.role
        ))
    })?;
    if tenant != granter.tenant && granter.role != Role::Admin {
        return Err(Error::Forbidden(format!(
            "you may grant access to your own tenant ({}) only",
            granter.tenant
        )));
    }
    Ok(())
}

/// Percent-encode a query component (everything but unreserved characters).
pub fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `uri` with `params` added to its query.
pub fn with_query(uri: &str, params: &[(&str, &str)]) -> String {
    let mut out = uri.to_string();
    let mut sep = if uri.contains('?') { '&' } else { '?' };
    for (k, v) in params {
        out.push(sep);
        out.push_str(&percent_encode(k));
        out.push('=');
        out.push_str(&percent_encode(v));
        sep = '&';
    }
    out
}

#[cfg(test)]
mod tests;
