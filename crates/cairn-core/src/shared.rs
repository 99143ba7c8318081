//! What the servers sharing one store share besides memories: web UI
//! sign-in sessions, rate-limit buckets and the leases that let one server
//! at a time run the background jobs. Behind [`SharedState`], which every
//! backend implements in its own database (the conformance suite checks
//! it) and hands out through [`crate::Store::shared`], so that any number
//! of servers on one database agree without talking to each other.
//!
//! Times are the callers' clocks ([`Timestamp`], milliseconds): servers on
//! one database need clocks that agree to well within a lease's duration
//! and a second of rate (NTP does).

use crate::{Result, Timestamp};

mod memory;
pub use memory::MemoryShared;

/// A web UI session as stored: never its id, only the id's SHA-256.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UiSessionRecord {
    /// SHA-256 of the session id the browser's cookie carries.
    pub hash: [u8; 32],
    /// The API key signed in with (its id; the secret is never stored).
    pub key_id: String,
    /// When the session started.
    pub created_at: Timestamp,
    /// When it ends, whatever happens.
    pub expires_at: Timestamp,
}

/// How many sessions a store keeps (see [`SharedState::start_ui_session`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionCaps {
    /// Live sessions in all; past it a new one is refused.
    pub max_sessions: usize,
    /// Live sessions of one key; a new one past it ends the key's oldest.
    pub per_key: usize,
}

/// What the store says of a token taken from a rate bucket: the bucket's
/// tokens after the take, and whether one was taken.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BucketLevel {
    /// Tokens left (fractional: the bucket refills continuously).
    pub tokens: f64,
    /// Whether a token was there to take.
    pub allowed: bool,
}

/// A rate bucket's answer to one request, for the response's headers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Take {
    /// Whether the request may go on.
    pub allowed: bool,
    /// Whole tokens left.
    pub remaining: u32,
    /// Seconds until one token is back (when refused) or the bucket is
    /// full again (when allowed), rounded up.
    pub wait_secs: u64,
}

/// Milliseconds after which an unused bucket is full again, whatever its
/// rate (it refills its whole capacity in a minute): a bucket idle for
/// longer is the same as none.
pub const BUCKET_IDLE_MS: Timestamp = 60_000;

/// Refill a token bucket and take one token from it: the one formula every
/// backend applies (in SQL or in Rust) and the conformance suite checks.
///
/// A bucket holds `per_minute` tokens at most and refills at
/// `per_minute / 60_000` tokens a millisecond since `at`, its last take
/// (time that runs backwards, a server whose clock is behind, refills
/// nothing). A token is taken when at least one is there.
/// Returns the level after the take.
pub fn refill_and_take(tokens: f64, at: Timestamp, per_minute: u32, now: Timestamp) -> BucketLevel {
    let capacity = f64::from(per_minute);
    let refilled = (tokens + (now - at).max(0) as f64 * capacity / 60_000.0).min(capacity);
    if refilled >= 1.0 {
        BucketLevel {
            tokens: refilled - 1.0,
            allowed: true,
        }
    } else {
        BucketLevel {
            tokens: refilled,
            allowed: false,
        }
    }
}

impl Take {
    /// The answer for a bucket of `per_minute` left at `level`.
    pub fn of(per_minute: u32, level: BucketLevel) -> Take {
        let capacity = f64::from(per_minute);
        let rate = capacity / 60.0;
        if level.allowed {
            Take {
                allowed: true,
                remaining: level.tokens.max(0.0).floor() as u32,
                wait_secs: ((capacity - level.tokens) / rate).ceil() as u64,
            }
        } else {
            Take {
                allowed: false,
                remaining: 0,
                wait_secs: ((1.0 - level.tokens) / rate).ceil().max(1.0) as u64,
            }
        }
    }
}

/// State the servers on one store share. Every call is one short
/// transaction (or statement) of its own.
pub trait SharedState: Send + Sync {
    /// Store a new session. First the expired sessions are dropped and, when
    /// its key already has `caps.per_key` live ones, the key's oldest are
    /// ended; then, if `caps.max_sessions` are live, nothing is stored and
    /// the answer is `false`. Atomic against other servers' sign-ins.
    fn start_ui_session(
        &self,
        session: &UiSessionRecord,
        caps: SessionCaps,
        now: Timestamp,
    ) -> Result<bool>;

    /// The session whose id hashes to `hash`, unless it has expired at
    /// `now` (or was ended).
    fn ui_session(&self, hash: &[u8; 32], now: Timestamp) -> Result<Option<UiSessionRecord>>;

    /// End a session; `false` if there was none.
    fn end_ui_session(&self, hash: &[u8; 32]) -> Result<bool>;

    /// Drop the sessions expired at `now` and the rate buckets unused since
    /// `now - BUCKET_IDLE_MS` (full again, the same as none); how many
    /// rows went.
    fn sweep_shared(&self, now: Timestamp) -> Result<usize>;

    /// Take a token from the bucket named `bucket` of `per_minute` tokens
    /// (a bucket not seen yet starts full), as [`refill_and_take`] says, in
    /// one atomic step however many servers take from it at once.
    fn take_token(&self, bucket: &str, per_minute: u32, now: Timestamp) -> Result<BucketLevel>;

    /// Hold the lease `name` for `holder` until `until`: taken when nobody
    /// holds it or its holder's time ran out at `now`, renewed when
    /// `holder` holds it. `false` when another holder's lease runs.
    fn hold_lease(
        &self,
        name: &str,
        holder: &str,
        now: Timestamp,
        until: Timestamp,
    ) -> Result<bool>;

    /// Give up the lease `name` if `holder` holds it, so that another
    /// takes it at once.
    fn release_lease(&self, name: &str, holder: &str) -> Result<()>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_bursts_its_minute_then_refills_at_its_rate() {
        let mut level = BucketLevel {
            tokens: 60.0,
            allowed: true,
        };
        let mut at = 0;
        let mut take = |now: Timestamp| {
            level = refill_and_take(level.tokens, at, 60, now);
            at = at.max(now);
            Take::of(60, level)
        };
        for left in (0..60).rev() {
            let t = take(0);
            assert!(t.allowed);
            assert_eq!(t.remaining, left);
        }
        let refused = take(0);
        assert!(!refused.allowed);
        assert_eq!(refused.wait_secs, 1, "one token a second at 60/min");
        assert!(!take(500).allowed, "half a token is not a token");
        assert!(take(1000).allowed);
        // A long pause refills to the capacity, no further.
        assert_eq!(take(1_000_000).remaining, 59);
    }

    #[test]
    fn slow_rates_wait_longer_and_time_running_back_refills_nothing() {
        let full = refill_and_take(2.0, 0, 2, 0);
        let empty = refill_and_take(full.tokens, 0, 2, 0);
        assert!(full.allowed && empty.allowed);
        let refused = refill_and_take(empty.tokens, 0, 2, 0);
        assert!(!refused.allowed);
        assert_eq!(Take::of(2, refused).wait_secs, 30);
        assert!(!refill_and_take(0.0, 10_000, 60, 5_000).allowed);
    }
}
