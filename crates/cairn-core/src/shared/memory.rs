//! [`SharedState`] in RAM, for [`crate::MemoryStore`]: shared by whatever
//! shares that store, which is one process.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use super::{
    refill_and_take, BucketLevel, SessionCaps, SharedState, UiSessionRecord, BUCKET_IDLE_MS,
};
use crate::{Error, Result, Timestamp};

#[derive(Default)]
struct Tables {
    sessions: HashMap<[u8; 32], UiSessionRecord>,
    /// Tokens and the time of the last take, by bucket.
    buckets: HashMap<String, (f64, Timestamp)>,
    /// Holder and end, by lease.
    leases: HashMap<String, (String, Timestamp)>,
}

/// Sessions, rate buckets and leases in RAM.
#[derive(Default)]
pub struct MemoryShared(Mutex<Tables>);

impl MemoryShared {
    fn lock(&self) -> Result<MutexGuard<'_, Tables>> {
        self.0
            .lock()
            .map_err(|_| Error::storage("the shared state's lock is poisoned"))
    }
}

impl SharedState for MemoryShared {
    fn start_ui_session(
        &self,
        session: &UiSessionRecord,
        caps: SessionCaps,
        now: Timestamp,
    ) -> Result<bool> {
        let mut t = self.lock()?;
        t.sessions.retain(|_, s| s.expires_at > now);
        let mut own: Vec<([u8; 32], Timestamp)> = t
            .sessions
            .iter()
            .filter(|(_, s)| s.key_id == session.key_id)
            .map(|(h, s)| (*h, s.created_at))
            .collect();
        let per_key = caps.per_key.max(1);
        if own.len() >= per_key {
            own.sort_by_key(|(h, created)| (*created, *h));
            for (h, _) in own.iter().take(own.len() + 1 - per_key) {
                t.sessions.remove(h);
            }
        }
        if t.sessions.len() >= caps.max_sessions {
            return Ok(false);
        }
        t.sessions.insert(session.hash, session.clone());
        Ok(true)
    }

    fn ui_session(&self, hash: &[u8; 32], now: Timestamp) -> Result<Option<UiSessionRecord>> {
        Ok(self
            .lock()?
            .sessions
            .get(hash)
            .filter(|s| s.expires_at > now)
            .cloned())
    }

    fn end_ui_session(&self, hash: &[u8; 32]) -> Result<bool> {
        Ok(self.lock()?.sessions.remove(hash).is_some())
    }

    fn sweep_shared(&self, now: Timestamp) -> Result<usize> {
        let mut t = self.lock()?;
        let before = t.sessions.len() + t.buckets.len();
        t.sessions.retain(|_, s| s.expires_at > now);
        t.buckets.retain(|_, (_, at)| *at > now - BUCKET_IDLE_MS);
        Ok(before - t.sessions.len() - t.buckets.len())
    }

    fn take_token(&self, bucket: &str, per_minute: u32, now: Timestamp) -> Result<BucketLevel> {
        let mut t = self.lock()?;
        let (tokens, at) = t
            .buckets
            .entry(bucket.to_string())
            .or_insert((f64::from(per_minute), now));
        let level = refill_and_take(*tokens, *at, per_minute, now);
        *tokens = level.tokens;
        *at = (*at).max(now);
        Ok(level)
    }

    fn hold_lease(
        &self,
        name: &str,
        holder: &str,
        now: Timestamp,
        until: Timestamp,
    ) -> Result<bool> {
        let mut t = self.lock()?;
        match t.leases.get(name) {
            Some((other, end)) if other != holder && *end > now => Ok(false),
            _ => {
                t.leases
                    .insert(name.to_string(), (holder.to_string(), until));
                Ok(true)
            }
        }
    }

    fn release_lease(&self, name: &str, holder: &str) -> Result<()> {
        let mut t = self.lock()?;
        if t.leases.get(name).is_some_and(|(h, _)| h == holder) {
            t.leases.remove(name);
        }
        Ok(())
    }
}
