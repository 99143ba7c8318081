//! API keys: making, listing and revoking them, and telling who a presented
//! key is (see [`crate::keys`] for the format and storage).

use serde::{Deserialize, Serialize};

use crate::keys::{self, ApiKey, Role};
use crate::time::{format_timestamp, parse_duration};
use crate::{Cairn, Error, Result, Timestamp};

/// A request for a new key.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateKeyInput {
    /// The tenant the key acts for; when left out, the store's default
    /// tenant ([`DEFAULT_TENANT`](crate::DEFAULT_TENANT)), the one a local
    /// user (the CLI, `cairn mcp`, `serve --no-auth`) reads and writes.
    pub tenant: Option<String>,
    /// `read`, `write` or `admin`.
    pub role: String,
    /// How long the key works (`90d`, `12h`); forever when left out.
    pub expires: Option<String>,
    /// A note for humans.
    pub label: Option<String>,
}

/// A key just made: the only time its text is shown.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct CreatedKey {
    /// The key's id.
    pub id: String,
    /// The key itself (`cairn_<id>_<secret>`): store it now, it is not
    /// kept.
    pub key: String,
    /// The tenant it acts for.
    pub tenant: String,
    /// What it may do.
    pub role: Role,
    /// When it stops working (RFC 3339), if ever.
    pub expires_at: Option<String>,
    /// The note for humans.
    pub label: Option<String>,
}

/// A stored key as listings show it (never its secret or hash).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct KeyView {
    /// The key's id.
    pub id: String,
    /// The tenant it acts for.
    pub tenant: String,
    /// What it may do.
    pub role: Role,
    /// The note for humans.
    pub label: Option<String>,
    /// `active`, `expired` or `revoked`.
    pub status: &'static str,
    /// When it was made (RFC 3339).
    pub created_at: String,
    /// When it stops working, if ever.
    pub expires_at: Option<String>,
    /// When it was last used (to the minute), if ever.
    pub last_used_at: Option<String>,
    /// When it was revoked.
    pub revoked_at: Option<String>,
}

impl KeyView {
    fn of(key: &ApiKey, now: Timestamp) -> Self {
        let status = if key.revoked_at.is_some() {
            "revoked"
        } else if key.refusal(now).is_some() {
            "expired"
        } else {
            "active"
        };
        KeyView {
            id: key.id.clone(),
            tenant: key.tenant.clone(),
            role: key.role,
            label: key.label.clone(),
            status,
            created_at: format_timestamp(key.created_at),
            expires_at: key.expires_at.map(format_timestamp),
            last_used_at: key.last_used_at.map(format_timestamp),
            revoked_at: key.revoked_at.map(format_timestamp),
        }
    }
}

/// Who a valid key acts for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Authenticated {
    /// The key's id (for logs and activity).
    pub key_id: String,
    /// The tenant every call of the request is confined to.
    pub tenant: String,
    /// What the key may do.
    pub role: Role,
}

impl Authenticated {
    /// [`Error::Forbidden`] unless the key may do what `needed` may.
    pub fn require(&self, needed: Role) -> Result<()> {
        if self.role.allows(needed) {
            Ok(())
        } else {
            Err(Error::Forbidden(format!(
                "this API key has the {} role; this needs {needed}",
                self.role
            )))
        }
    }
}

/// Longest tenant name.
const MAX_TENANT: usize = 128;

/// A tenant's name, trimmed, or an error naming what is wrong with it.
pub fn tenant_name(name: &str) -> Result<&str> {
    let tenant = name.trim();
    if tenant.is_empty() || tenant.len() > MAX_TENANT || tenant.chars().any(char::is_control) {
        return Err(Error::invalid(format!(
            "tenant {name:?} is not a valid name: give 1–{MAX_TENANT} printable characters"
        )));
    }
    Ok(tenant)
}

/// Make a key. Its text is in the answer and nowhere else.
pub fn create_key(cairn: &Cairn, input: CreateKeyInput) -> Result<CreatedKey> {
    let tenant = tenant_name(input.tenant.as_deref().unwrap_or(crate::DEFAULT_TENANT))?;
    let role: Role = input.role.parse()?;
    let now = cairn.now();
    let expires_at = match input.expires.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(text) => Some(now + parse_duration(text)?),
    };
    let label = input
        .label
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty());
    let new = keys::generate()?;
    cairn.store().key_store().insert_key(&ApiKey {
        id: new.id.clone(),
        tenant: tenant.to_string(),
        role,
        label: label.clone(),
        hash: new.hash,
        created_at: now,
        expires_at,
        last_used_at: None,
        revoked_at: None,
    })?;
    Ok(CreatedKey {
        id: new.id,
        key: new.text,
        tenant: tenant.to_string(),
        role,
        expires_at: expires_at.map(format_timestamp),
        label,
    })
}

/// Every key, or one tenant's, oldest first.
pub fn list_keys(cairn: &Cairn, tenant: Option<&str>) -> Result<Vec<KeyView>> {
    let now = cairn.now();
    let keys = cairn.store().key_store().keys(tenant)?;
    Ok(keys.iter().map(|k| KeyView::of(k, now)).collect())
}

/// Revoke a key by id; revoking a revoked key changes nothing.
pub fn revoke_key(cairn: &Cairn, id: &str) -> Result<KeyView> {
    // Anything but a key id's form (a NUL, which PostgreSQL refuses in
    // text, say) names no key.
    if !crate::keys::is_key_id(id) {
        return Err(Error::KeyNotFound(id.to_string()));
    }
    let store = cairn.store().key_store();
    let now = cairn.now();
    if !store.revoke_key(id, now)? {
        return Err(Error::KeyNotFound(id.to_string()));
    }
    let key = store
        .key(id)?
        .ok_or_else(|| Error::KeyNotFound(id.to_string()))?;
    Ok(KeyView::of(&key, now))
}

/// How often a key's last use is written (each request would otherwise
/// write to the store).
const TOUCH_EVERY_MS: Timestamp = 60_000;

/// Who `presented` (a key's full text) is, or [`Error::Unauthenticated`]
/// saying why not. Records the key's use at most once a minute.
pub fn authenticate(cairn: &Cairn, presented: &str) -> Result<Authenticated> {
    let (id, secret) = keys::parse(presented)?;
    let store = cairn.store().key_store();
    let unknown = || Error::Unauthenticated("unknown API key".into());
    let key = store.key(id)?.ok_or_else(unknown)?;
    if !keys::same_hash(&keys::hash_secret(secret), &key.hash) {
        return Err(unknown());
    }
    usable(cairn, key)
}

/// Who the key with id `key_id` is, when its secret was checked before
/// (a web UI session keeps only the key's id): [`Error::Unauthenticated`]
/// if it is gone, revoked or expired since. Records the key's use at most
/// once a minute.
pub fn authenticate_key_id(cairn: &Cairn, key_id: &str) -> Result<Authenticated> {
    if !keys::is_key_id(key_id) {
        return Err(Error::Unauthenticated("unknown API key".into()));
    }
    let key = cairn
        .store()
        .key_store()
        .key(key_id)?
        .ok_or_else(|| Error::Unauthenticated("unknown API key".into()))?;
    usable(cairn, key)
}

/// `key` as the caller, unless it is revoked or expired.
fn usable(cairn: &Cairn, key: ApiKey) -> Result<Authenticated> {
    let now = cairn.now();
    if let Some(why) = key.refusal(now) {
        return Err(Error::Unauthenticated(why.into()));
    }
    if key.last_used_at.is_none_or(|t| now - t >= TOUCH_EVERY_MS) {
        cairn.store().key_store().touch_key(&key.id, now)?;
    }
    Ok(Authenticated {
        key_id: key.id,
        tenant: key.tenant,
        role: key.role,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::LexicalEmbedder;
    use crate::ErrorKind;
    use std::sync::Arc;

    fn cairn() -> Cairn {
        Cairn::new(
            Arc::new(crate::MemoryStore::new()),
            Arc::new(LexicalEmbedder),
        )
    }

    fn input(tenant: &str, role: &str) -> CreateKeyInput {
        CreateKeyInput {
            tenant: Some(tenant.into()),
            role: role.into(),
            ..Default::default()
        }
    }

    #[test]
    fn a_created_key_authenticates_as_its_tenant_and_role() {
        let c = cairn();
        let made = create_key(&c, input("alice", "write")).unwrap();
        assert!(made.key.starts_with("cairn_") && made.key.contains(&made.id));
        let who = authenticate(&c, &made.key).unwrap();
        assert_eq!((who.tenant.as_str(), who.role), ("alice", Role::Write));
        assert!(who.require(Role::Read).is_ok() && who.require(Role::Write).is_ok());
        let err = who.require(Role::Admin).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Forbidden);
        assert!(err.to_string().contains("needs admin"), "{err}");
        let listed = list_keys(&c, Some("alice")).unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].status, "active");
        assert!(listed[0].last_used_at.is_some(), "use was recorded");
    }

    #[test]
    fn wrong_secrets_revoked_and_expired_keys_are_refused() {
        let c = cairn();
        let made = create_key(&c, input("alice", "read")).unwrap();
        // Same id, another secret.
        let last = made.key.chars().last().unwrap();
        let forged = format!(
            "{}{}",
            &made.key[..made.key.len() - 1],
            if last == '0' { '1' } else { '0' }
        );
        let err = authenticate(&c, &forged).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Unauthenticated);
        assert_eq!(err.to_string(), "unknown API key");

        let revoked = revoke_key(&c, &made.id).unwrap();
        assert_eq!(revoked.status, "revoked");
        let err = authenticate(&c, &made.key).unwrap_err();
        assert_eq!(err.to_string(), "this API key was revoked");
        assert_eq!(
            revoke_key(&c, "000000000000").unwrap_err().kind(),
            ErrorKind::NotFound
        );

        let short = create_key(
            &c,
            CreateKeyInput {
                expires: Some("1s".into()),
                ..input("bob", "admin")
            },
        )
        .unwrap();
        assert!(authenticate(&c, &short.key).is_ok());
        let later = c
            .clone()
            .with_clock(Arc::new(|| crate::time::now() + 2_000));
        let err = authenticate(&later, &short.key).unwrap_err();
        assert_eq!(err.to_string(), "this API key has expired");
        assert_eq!(list_keys(&later, Some("bob")).unwrap()[0].status, "expired");
    }

    #[test]
    fn bad_requests_name_the_problem() {
        let c = cairn();
        let err = create_key(&c, input("", "read")).unwrap_err();
        assert!(err.to_string().contains("not a valid name"), "{err}");
        let err = create_key(&c, input("alice", "owner")).unwrap_err();
        assert!(err.to_string().contains("read, write or admin"), "{err}");
        let err = create_key(
            &c,
            CreateKeyInput {
                expires: Some("soon".into()),
                ..input("alice", "read")
            },
        )
        .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
        assert!(
            list_keys(&c, None).unwrap().is_empty(),
            "nothing was stored"
        );
    }
}
