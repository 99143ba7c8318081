//! Web UI sessions: a random id in an HTTP-only, `Secure`,
//! `SameSite=Strict` cookie scoped to `/ui`, and on the server only the
//! id's SHA-256, the key the user signed in with and the session's CSRF
//! token, in memory, until the session expires or the user signs out.
//!
//! The key is kept (server-side, never sent back) so that every request
//! is authenticated by the same code as a REST request with that key
//! ([`crate::auth`]): a revoked or expired key ends its sessions at once,
//! and the role and tenant are the key's, not a copy taken at sign-in.
//!
//! Signing in is limited ([`SignInLimits`]): so many attempts a minute
//! per client address and per key, so many sessions per key (a key's
//! new session past it ends that key's oldest), and so many in all (past
//! it, sign-in is refused until sessions expire): no key can sign out the
//! users of another.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use axum::http::{header, HeaderMap};
use sha2::{Digest, Sha256};

/// The session cookie's name.
pub const COOKIE: &str = "cairn_session";

/// How long a session lasts after sign-in.
pub const SESSION_TTL: Duration = Duration::from_secs(12 * 3600);

/// How much signing in a server allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SignInLimits {
    /// Most sessions at once (default 10,000); past it expired ones are
    /// dropped, and if none has expired sign-in is refused.
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

/// Sign-in buckets kept before idle ones are dropped.
const MAX_BUCKETS: usize = 10_000;

/// Why a session was not started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// Too many attempts: retry in so many seconds.
    TooFast(u64),
    /// The server holds as many sessions as it may.
    Full,
}

/// One signed-in browser.
#[derive(Clone)]
pub struct Session {
    /// The API key signed in with (never leaves the server).
    pub key: String,
    /// That key's id.
    key_id: String,
    /// The token every state-changing request must carry.
    pub csrf: String,
    expires: Instant,
}

/// What the UI's routes get of a session: its CSRF token (the caller
/// itself is the [`cairn_core::api::Authenticated`] beside it).
#[derive(Clone, Debug)]
pub struct UiSession {
    /// The session's CSRF token, for forms and `hx-headers`.
    pub csrf: String,
}

/// Every session, by the SHA-256 of its id.
#[derive(Default)]
pub struct Sessions {
    by_hash: Mutex<HashMap<[u8; 32], Session>>,
    open: OnceLock<String>,
    limits: SignInLimits,
    /// Sign-in buckets by client address or key id, with when each was
    /// last used (seconds since `start`).
    buckets: Mutex<HashMap<String, (crate::limits::Bucket, f64)>>,
    start: OnceLock<Instant>,
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

fn hash(id: &str) -> [u8; 32] {
    Sha256::digest(id.as_bytes()).into()
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
    /// `key ID`).
    pub fn attempt(&self, who: &str) -> Result<(), Refused> {
        let per_minute = self.limits.per_minute;
        if per_minute == 0 {
            return Ok(());
        }
        let now = self.start.get_or_init(Instant::now).elapsed().as_secs_f64();
        let mut buckets = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        if buckets.len() >= MAX_BUCKETS {
            // A bucket unused for a minute is full again: as if new.
            buckets.retain(|_, (_, used)| now - *used < 60.0);
        }
        let (bucket, used) = buckets
            .entry(who.to_string())
            .or_insert_with(|| (crate::limits::Bucket::full(per_minute, now), now));
        *used = now;
        let take = bucket.take(per_minute, now);
        if take.allowed {
            Ok(())
        } else {
            Err(Refused::TooFast(take.wait_secs))
        }
    }

    /// Start a session for `key` (whose id is `key_id`): the id to put in
    /// the cookie.
    pub fn create(&self, key: String, key_id: &str) -> Result<String, Refused> {
        let id = random_token();
        let session = Session {
            key,
            key_id: key_id.to_string(),
            csrf: random_token(),
            expires: Instant::now() + SESSION_TTL,
        };
        let mut map = self.by_hash.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        let mut own: Vec<([u8; 32], Instant)> = map
            .iter()
            .filter(|(_, s)| s.key_id == key_id)
            .map(|(h, s)| (*h, s.expires))
            .collect();
        if own.len() >= self.limits.per_key.max(1) {
            own.sort_by_key(|(_, expires)| *expires);
            let excess = own.len() + 1 - self.limits.per_key.max(1);
            for (h, _) in own.into_iter().take(excess) {
                map.remove(&h);
            }
        }
        if map.len() >= self.limits.max_sessions {
            map.retain(|_, s| s.expires > now);
            if map.len() >= self.limits.max_sessions {
                return Err(Refused::Full);
            }
        }
        map.insert(hash(&id), session);
        Ok(id)
    }

    /// The live session a cookie value names.
    pub fn get(&self, id: &str) -> Option<Session> {
        let mut map = self.by_hash.lock().unwrap_or_else(|e| e.into_inner());
        let h = hash(id);
        match map.get(&h) {
            Some(s) if s.expires > Instant::now() => Some(s.clone()),
            Some(_) => {
                map.remove(&h);
                None
            }
            None => None,
        }
    }

    /// End the session a cookie value names.
    pub fn end(&self, id: &str) {
        let mut map = self.by_hash.lock().unwrap_or_else(|e| e.into_inner());
        map.remove(&hash(id));
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
        let s = Sessions::default();
        let id = s.create("cairn_k_secret".into(), "k").unwrap();
        assert_eq!(id.len(), 64);
        let got = s.get(&id).unwrap();
        assert_eq!(got.key, "cairn_k_secret");
        assert_ne!(got.csrf, id);
        assert!(s.get("nope").is_none());
        s.end(&id);
        assert!(s.get(&id).is_none());
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
