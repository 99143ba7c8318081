//! Web UI sessions: a random id in an HTTP-only, `Secure`,
//! `SameSite=Strict` cookie scoped to `/ui`, and in the store
//! ([`cairn_core::shared::SharedState`]) only the id's SHA-256, the id of
//! the key the user signed in with and the session's expiry: every server
//! on the store knows every session, and signing out on one ends it on
//! all. The session's CSRF token is derived from its id (a keyed hash, so
//! neither gives away the other), so every server computes the same one
//! and none is stored.
//!
//! Every request is authenticated by the session's key as it stands
//! ([`cairn_core::api::authenticate_key_id`]): a revoked or expired key
//! ends its sessions at once, and the role and tenant are the key's, not a
//! copy taken at sign-in.
//!
//! Signing in is limited ([`SignInLimits`]): so many attempts a minute
//! per client address and per key (rate buckets in the store, so across
//! every server), so many sessions per key (a key's new session past it
//! ends that key's oldest), and so many in all (past it, sign-in is
//! refused until sessions expire): no key can sign out the users of
//! another.

use std::sync::OnceLock;
use std::time::Duration;

use axum::http::{header, HeaderMap};
use cairn_core::shared::{SessionCaps, Take, UiSessionRecord};
use cairn_core::Cairn;
use sha2::{Digest, Sha256};

/// The session cookie's name.
pub const COOKIE: &str = "cairn_session";

/// How long a session lasts after sign-in.
pub const SESSION_TTL: Duration = Duration::from_secs(12 * 3600);

/// How much signing in a server allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SignInLimits {
    /// Most sessions at once, across every server on the store (default
    /// 10,000); past it expired ones are dropped, and if none has expired
    /// sign-in is refused.
    pub max_sessions: usize,
    /// Most sessions of one key (default 100); a new one past it ends
    /// that key's oldest.
    pub per_key: usize,
    /// Sign-in attempts a minute per client address, and successful ones
    /// per key (default 20; 0 = unlimited).
    pub per_minute: u32,
}

impl Default for SignInLimits {
    fn default() -> Self {
        SignInLimits {
            max_sessions: 10_000,
            per_key: 100,
            per_minute: 20,
        }
    }
}

/// Why a session was not started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// Too many attempts: retry in so many seconds.
    TooFast(u64),
    /// The store holds as many sessions as it may.
    Full,
}

/// One signed-in browser.
#[derive(Clone, Debug)]
pub struct Session {
    /// The id of the API key signed in with.
    pub key_id: String,
    /// The token every state-changing request must carry.
    pub csrf: String,
}

/// What the UI's routes get of a session: its CSRF token (the caller
/// itself is the [`cairn_core::api::Authenticated`] beside it).
#[derive(Clone, Debug)]
pub struct UiSession {
    /// The session's CSRF token, for forms and `hx-headers`.
    pub csrf: String,
}

/// The server's sign-in rules over the sessions in its store. Its calls
/// block (they reach the store): call them off the async workers.
#[derive(Default)]
pub struct Sessions {
    open: OnceLock<String>,
    limits: SignInLimits,
}

/// 32 random bytes as hex.
pub fn random_token() -> String {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).expect("the operating system's random source failed");
    hex(&bytes)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// What the store keeps of a session id.
fn hash(id: &str) -> [u8; 32] {
    Sha256::digest(id.as_bytes()).into()
}

/// A session's CSRF token: SHA-256 of its id under a label of its own, so
/// that it is neither the id nor the stored hash.
fn csrf_of(id: &str) -> String {
    let mut h = Sha256::new();
    h.update(b"cairn web UI CSRF token\0");
    h.update(id.as_bytes());
    hex(&h.finalize())
}

/// Whether two secrets are equal, in time that does not depend on where
/// they differ.
pub fn same_secret(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

impl Sessions {
    /// The CSRF token of a server without authentication (one per
    /// process: there are no sessions, but a page of another site must
    /// still not be able to post to it).
    pub fn open_csrf(&self) -> &str {
        self.open.get_or_init(random_token)
    }

    /// Sessions under `limits`.
    pub fn with_limits(limits: SignInLimits) -> Self {
        Sessions {
            limits,
            ..Sessions::default()
        }
    }

    /// Take a sign-in attempt from the bucket of `who` (`client ADDR` or
    /// `key ID`), shared by every server on the store.
    pub fn attempt(&self, cairn: &Cairn, who: &str) -> cairn_core::Result<Result<(), Refused>> {
        let per_minute = self.limits.per_minute;
        if per_minute == 0 {
            return Ok(Ok(()));
        }
        let level = cairn.store().shared().take_token(
            &format!("sign-in {who}"),
            per_minute,
            cairn.now(),
        )?;
        let take = Take::of(per_minute, level);
        Ok(if take.allowed {
            Ok(())
        } else {
            Err(Refused::TooFast(take.wait_secs))
        })
    }

    /// Start a session for the key `key_id` (its secret checked): the id
    /// to put in the cookie.
    pub fn create(
        &self,
        cairn: &Cairn,
        key_id: &str,
    ) -> cairn_core::Result<Result<String, Refused>> {
        let id = random_token();
        let now = cairn.now();
        let record = UiSessionRecord {
            hash: hash(&id),
            key_id: key_id.to_string(),
            created_at: now,
            expires_at: now + SESSION_TTL.as_millis() as i64,
        };
        let caps = SessionCaps {
            max_sessions: self.limits.max_sessions,
            per_key: self.limits.per_key,
        };
        let started = cairn
            .store()
            .shared()
            .start_ui_session(&record, caps, now)?;
        Ok(if started { Ok(id) } else { Err(Refused::Full) })
    }

    /// The live session a cookie value names.
    pub fn get(&self, cairn: &Cairn, id: &str) -> cairn_core::Result<Option<Session>> {
        let found = cairn.store().shared().ui_session(&hash(id), cairn.now())?;
        Ok(found.map(|s| Session {
            key_id: s.key_id,
            csrf: csrf_of(id),
        }))
    }

    /// End the session a cookie value names, on every server.
    pub fn end(&self, cairn: &Cairn, id: &str) -> cairn_core::Result<()> {
        cairn.store().shared().end_ui_session(&hash(id))?;
        Ok(())
    }
}

/// The session id in a request's cookies.
pub fn cookie(headers: &HeaderMap) -> Option<&str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE)
        .map(|(_, value)| value.trim())
        .filter(|v| !v.is_empty())
}

/// The `Set-Cookie` value that starts a session.
pub fn set_cookie(id: &str) -> String {
    format!(
        "{COOKIE}={id}; HttpOnly; Secure; SameSite=Strict; Path=/ui; Max-Age={}",
        SESSION_TTL.as_secs()
    )
}

/// The `Set-Cookie` value that ends one.
pub fn clear_cookie() -> String {
    format!("{COOKIE}=; HttpOnly; Secure; SameSite=Strict; Path=/ui; Max-Age=0")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_are_found_by_their_id_only_until_ended() {
        let cairn = Cairn::new(
            std::sync::Arc::new(cairn_core::MemoryStore::new()),
            std::sync::Arc::new(cairn_core::conformance::LexicalEmbedder),
        );
        let s = Sessions::default();
        let id = s.create(&cairn, "k").unwrap().unwrap();
        assert_eq!(id.len(), 64);
        let got = s.get(&cairn, &id).unwrap().unwrap();
        assert_eq!(got.key_id, "k");
        assert_ne!(got.csrf, id);
        assert_ne!(
            got.csrf,
            hex(&hash(&id)),
            "the token is not the stored hash"
        );
        assert_eq!(got.csrf, s.get(&cairn, &id).unwrap().unwrap().csrf);
        assert!(s.get(&cairn, "nope").unwrap().is_none());
        s.end(&cairn, &id).unwrap();
        assert!(s.get(&cairn, &id).unwrap().is_none());
    }

    #[test]
    fn cookies_are_parsed_and_flagged() {
        let mut h = HeaderMap::new();
        h.insert(
            header::COOKIE,
            "a=1; cairn_session=abc ; b=2".parse().unwrap(),
        );
        assert_eq!(cookie(&h), Some("abc"));
        let c = set_cookie("abc");
        for flag in ["HttpOnly", "Secure", "SameSite=Strict", "Path=/ui"] {
            assert!(c.contains(flag), "{c}");
        }
        assert!(same_secret("abc", "abc") && !same_secret("abc", "abd") && !same_secret("a", "ab"));
    }
}
