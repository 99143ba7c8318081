//! API keys: who may call a shared Cairn, for which tenant, with which role.
//!
//! A key is shown once, when it is made: `cairn_<id>_<secret>`, where `id`
//! is 12 lowercase hex digits naming the key and `secret` is 64 hex digits
//! (256 random bits). The store keeps the id and the SHA-256 of the secret,
//! never the secret; a presented key is looked up by its id and its hash
//! compared in constant time.
//!
//! Storage is behind [`KeyStore`], which every backend implements (the
//! conformance suite checks it); what a key may do is [`Role::allows`].

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::{Error, Result, Timestamp};

/// What a key may do. Each role includes the ones before it.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Read, list, search and export its tenant's memories.
    Read,
    /// Also write, update and forget them.
    Write,
    /// Also manage keys and act for any tenant.
    Admin,
}

impl Role {
    /// Every role, weakest first.
    pub const ALL: [Role; 3] = [Role::Read, Role::Write, Role::Admin];

    /// The role's name, as written in commands and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Read => "read",
            Role::Write => "write",
            Role::Admin => "admin",
        }
    }

    /// Whether this role may do what `needed` may.
    pub fn allows(self, needed: Role) -> bool {
        self >= needed
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Role {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        Role::ALL
            .into_iter()
            .find(|r| r.as_str() == s)
            .ok_or_else(|| Error::invalid(format!("unknown role {s:?}: use read, write or admin")))
    }
}

/// A stored key: everything but its secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiKey {
    /// The key's id (12 hex digits), shown in listings and logs.
    pub id: String,
    /// The tenant it acts for.
    pub tenant: String,
    /// What it may do.
    pub role: Role,
    /// A note for humans ("ci", "alice's laptop").
    pub label: Option<String>,
    /// SHA-256 of the secret.
    pub hash: [u8; 32],
    /// When it was made.
    pub created_at: Timestamp,
    /// When it stops working, if ever.
    pub expires_at: Option<Timestamp>,
    /// When it was last used (updated at most once a minute).
    pub last_used_at: Option<Timestamp>,
    /// When it was revoked.
    pub revoked_at: Option<Timestamp>,
}

impl ApiKey {
    /// Why this key cannot be used at `now`, if it cannot.
    pub fn refusal(&self, now: Timestamp) -> Option<&'static str> {
        if self.revoked_at.is_some() {
            Some("this API key was revoked")
        } else if self.expires_at.is_some_and(|t| t <= now) {
            Some("this API key has expired")
        } else {
            None
        }
    }
}

/// How backends store keys. Ids are unique across tenants.
pub trait KeyStore: Send + Sync {
    /// Store a new key; [`Error::DuplicateId`] if its id is taken.
    fn insert_key(&self, key: &ApiKey) -> Result<()>;
    /// The key with this id.
    fn key(&self, id: &str) -> Result<Option<ApiKey>>;
    /// Every key, or those of one tenant, oldest first.
    fn keys(&self, tenant: Option<&str>) -> Result<Vec<ApiKey>>;
    /// Mark a key revoked at `at`; `false` if there is no such key. A
    /// revoked key stays revoked (its first revocation time is kept).
    fn revoke_key(&self, id: &str, at: Timestamp) -> Result<bool>;
    /// Record that a key was used at `at`.
    fn touch_key(&self, id: &str, at: Timestamp) -> Result<()>;
}

/// The prefix of every key.
pub const KEY_PREFIX: &str = "cairn_";
const ID_HEX: usize = 12;
const SECRET_HEX: usize = 64;

/// A new key's id, its full text (shown once) and its secret's hash.
pub struct NewKey {
    /// The id.
    pub id: String,
    /// `cairn_<id>_<secret>`.
    pub text: String,
    /// SHA-256 of the secret.
    pub hash: [u8; 32],
}

/// Make a new key from the operating system's random source.
pub fn generate() -> Result<NewKey> {
    let mut bytes = [0u8; ID_HEX / 2 + SECRET_HEX / 2];
    getrandom::fill(&mut bytes)
        .map_err(|e| Error::storage(format!("no random numbers for a new key: {e}")))?;
    let (id, secret) = bytes.split_at(ID_HEX / 2);
    let (id, secret) = (hex(id), hex(secret));
    Ok(NewKey {
        text: format!("{KEY_PREFIX}{id}_{secret}"),
        hash: hash_secret(&secret),
        id,
    })
}

fn is_hex(s: &str, n: usize) -> bool {
    s.len() == n && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Whether `text` has the form of a key's id (12 hex digits).
pub fn is_key_id(text: &str) -> bool {
    is_hex(text, ID_HEX)
}

/// The id and secret of a presented key, or why it is not one.
pub fn parse(text: &str) -> Result<(&str, &str)> {
    let malformed =
        || Error::Unauthenticated("malformed API key: expected cairn_<id>_<secret>".into());
    let rest = text.strip_prefix(KEY_PREFIX).ok_or_else(malformed)?;
    let (id, secret) = rest.split_once('_').ok_or_else(malformed)?;
    if !is_key_id(id) || !is_hex(secret, SECRET_HEX) {
        return Err(malformed());
    }
    Ok((id, secret))
}

/// SHA-256 of a secret's text.
pub fn hash_secret(secret: &str) -> [u8; 32] {
    Sha256::digest(secret.as_bytes()).into()
}

/// Whether two hashes are equal, in time that does not depend on where
/// they differ.
pub fn same_hash(a: &[u8; 32], b: &[u8; 32]) -> bool {
    let diff = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    // Keep the comparison from being turned into an early-exit loop.
    std::hint::black_box(diff) == 0
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_key_parses_back_to_its_id_and_hash() {
        let key = generate().unwrap();
        let (id, secret) = parse(&key.text).unwrap();
        assert_eq!(id, key.id);
        assert_eq!(id.len(), ID_HEX);
        assert!(same_hash(&hash_secret(secret), &key.hash));
        assert!(
            !key.text.contains(&hex(&key.hash)),
            "the hash is not the key"
        );
    }

    #[test]
    fn keys_are_random() {
        let (a, b) = (generate().unwrap(), generate().unwrap());
        assert_ne!(a.id, b.id);
        assert_ne!(a.hash, b.hash);
    }

    #[test]
    fn malformed_keys_are_refused_as_unauthenticated() {
        let good = generate().unwrap().text;
        for bad in [
            "",
            "Bearer x",
            &good[KEY_PREFIX.len()..],
            &good[..good.len() - 1],
            &good.replace('_', "-"),
            &format!("{good}0"),
            &good.to_uppercase(),
        ] {
            let err = parse(bad).unwrap_err();
            assert_eq!(err.kind(), crate::ErrorKind::Unauthenticated, "{bad:?}");
        }
    }

    #[test]
    fn hashes_compare_exactly() {
        let a = hash_secret("one");
        let mut b = a;
        assert!(same_hash(&a, &b));
        b[31] ^= 1;
        assert!(!same_hash(&a, &b));
        b = a;
        b[0] ^= 0x80;
        assert!(!same_hash(&a, &b));
    }

    #[test]
    fn roles_include_the_weaker_ones() {
        assert!(Role::Admin.allows(Role::Write) && Role::Admin.allows(Role::Read));
        assert!(Role::Write.allows(Role::Read) && !Role::Write.allows(Role::Admin));
        assert!(!Role::Read.allows(Role::Write));
        assert_eq!("write".parse::<Role>().unwrap(), Role::Write);
        assert!("root"
            .parse::<Role>()
            .unwrap_err()
            .to_string()
            .contains("read, write or admin"));
    }

    #[test]
    fn revoked_and_expired_keys_are_refused() {
        let key = ApiKey {
            id: "0123456789ab".into(),
            tenant: "alice".into(),
            role: Role::Read,
            label: None,
            hash: [0; 32],
            created_at: 10,
            expires_at: Some(100),
            last_used_at: None,
            revoked_at: None,
        };
        assert_eq!(key.refusal(99), None);
        assert_eq!(key.refusal(100), Some("this API key has expired"));
        let revoked = ApiKey {
            revoked_at: Some(50),
            ..key
        };
        assert_eq!(revoked.refusal(20), Some("this API key was revoked"));
    }
}
