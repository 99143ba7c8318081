//! [`OAuthStore`] in RAM, for [`crate::MemoryStore`].

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard};

use super::{OAuthClient, OAuthGrant, OAuthStore, OAuthToken};
use crate::{Error, Result, Timestamp};

#[derive(Default)]
struct Tables {
    clients: BTreeMap<String, OAuthClient>,
    grants: BTreeMap<String, OAuthGrant>,
    tokens: BTreeMap<[u8; 32], OAuthToken>,
}

/// Clients, grants and tokens in RAM.
#[derive(Default)]
pub struct MemoryOAuth(Mutex<Tables>);

impl MemoryOAuth {
    fn lock(&self) -> Result<MutexGuard<'_, Tables>> {
        self.0
            .lock()
            .map_err(|_| Error::storage("the OAuth tables' lock is poisoned"))
    }
}

impl OAuthStore for MemoryOAuth {
    fn insert_client(&self, client: &OAuthClient) -> Result<()> {
        let mut t = self.lock()?;
        if t.clients.contains_key(&client.id) {
            return Err(Error::DuplicateId(client.id.clone()));
        }
        t.clients.insert(client.id.clone(), client.clone());
        Ok(())
    }

    fn client(&self, id: &str) -> Result<Option<OAuthClient>> {
        Ok(self.lock()?.clients.get(id).cloned())
    }

    fn insert_grant(&self, grant: &OAuthGrant) -> Result<()> {
        let mut t = self.lock()?;
        if t.grants.contains_key(&grant.id) {
            return Err(Error::DuplicateId(grant.id.clone()));
        }
        t.grants.insert(grant.id.clone(), grant.clone());
        Ok(())
    }

    fn grant(&self, id: &str) -> Result<Option<OAuthGrant>> {
        Ok(self.lock()?.grants.get(id).cloned())
    }

    fn grants(&self, tenant: Option<&str>) -> Result<Vec<OAuthGrant>> {
        let mut out: Vec<OAuthGrant> = self
            .lock()?
            .grants
            .values()
            .filter(|g| tenant.is_none_or(|t| g.tenant == t))
            .cloned()
            .collect();
        out.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        Ok(out)
    }

    fn revoke_grant(&self, id: &str, at: Timestamp) -> Result<bool> {
        Ok(match self.lock()?.grants.get_mut(id) {
            Some(g) => {
                g.revoked_at.get_or_insert(at);
                true
            }
            None => false,
        })
    }

    fn touch_grant(&self, id: &str, at: Timestamp) -> Result<()> {
        if let Some(g) = self.lock()?.grants.get_mut(id) {
            g.last_used_at = Some(at);
        }
        Ok(())
    }

    fn insert_token(&self, token: &OAuthToken) -> Result<()> {
        let mut t = self.lock()?;
        if t.tokens.contains_key(&token.hash) {
            return Err(Error::DuplicateId("an OAuth token".into()));
        }
        t.tokens.insert(token.hash, token.clone());
        Ok(())
    }

    fn token(&self, hash: &[u8; 32]) -> Result<Option<OAuthToken>> {
        Ok(self.lock()?.tokens.get(hash).cloned())
    }

    fn use_token(&self, hash: &[u8; 32], at: Timestamp) -> Result<bool> {
        Ok(match self.lock()?.tokens.get_mut(hash) {
            Some(t) if t.used_at.is_none() => {
                t.used_at = Some(at);
                true
            }
            _ => false,
        })
    }

    fn delete_expired_tokens(&self, before: Timestamp) -> Result<usize> {
        let mut t = self.lock()?;
        let n = t.tokens.len();
        t.tokens.retain(|_, tok| tok.expires_at >= before);
        Ok(n - t.tokens.len())
    }
}
