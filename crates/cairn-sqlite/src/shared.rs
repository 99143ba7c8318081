//! What the servers on one SQLite file share ([`SharedState`]): web UI
//! sessions, rate buckets and job leases, each call one statement or one
//! `BEGIN IMMEDIATE` transaction on the writing connection.
//!
//! A rate bucket is one `INSERT … ON CONFLICT DO UPDATE … RETURNING`: the
//! refill and the take of [`cairn_core::shared::refill_and_take`] in SQL,
//! atomic against every other process on the file.

use cairn_core::shared::{BucketLevel, SessionCaps, SharedState, UiSessionRecord, BUCKET_IDLE_MS};
use cairn_core::{Result, Timestamp};
use rusqlite::{params, OptionalExtension, TransactionBehavior};

use crate::sql::sql_err;
use crate::SqliteStore;

/// The refill of a bucket named `?1` of `?2` tokens a minute at `?3`
/// (milliseconds): the tokens before the take.
const REFILLED: &str = "min(?2, b.tokens + max(?3 - b.at, 0) * ?2 / 60000.0)";

impl SharedState for SqliteStore {
    fn start_ui_session(
        &self,
        session: &UiSessionRecord,
        caps: SessionCaps,
        now: Timestamp,
    ) -> Result<bool> {
        let mut conn = self.conn()?;
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql_err)?;
        tx.execute("DELETE FROM ui_sessions WHERE expires_at <= ?1", [now])
            .map_err(sql_err)?;
        let per_key = caps.per_key.max(1) as i64;
        tx.execute(
            "DELETE FROM ui_sessions WHERE hash IN (SELECT hash FROM ui_sessions \
             WHERE key_id = ?1 ORDER BY created_at, hash \
             LIMIT max(0, (SELECT count(*) FROM ui_sessions WHERE key_id = ?1) - ?2 + 1))",
            params![session.key_id, per_key],
        )
        .map_err(sql_err)?;
        let live: i64 = tx
            .query_row("SELECT count(*) FROM ui_sessions", [], |r| r.get(0))
            .map_err(sql_err)?;
        if live >= caps.max_sessions as i64 {
            return Ok(false);
        }
        tx.execute(
            "INSERT INTO ui_sessions (hash, key_id, created_at, expires_at) VALUES (?1, ?2, ?3, ?4)",
            params![
                session.hash.as_slice(),
                session.key_id,
                session.created_at,
                session.expires_at
            ],
        )
        .map_err(sql_err)?;
        tx.commit().map_err(sql_err)?;
        Ok(true)
    }

    fn ui_session(&self, hash: &[u8; 32], now: Timestamp) -> Result<Option<UiSessionRecord>> {
        self.reader()?
            .prepare_cached(
                "SELECT key_id, created_at, expires_at FROM ui_sessions \
                 WHERE hash = ?1 AND expires_at > ?2",
            )
            .and_then(|mut s| {
                s.query_row(params![hash.as_slice(), now], |r| {
                    Ok(UiSessionRecord {
                        hash: *hash,
                        key_id: r.get(0)?,
                        created_at: r.get(1)?,
                        expires_at: r.get(2)?,
                    })
                })
                .optional()
            })
            .map_err(sql_err)
    }

    fn end_ui_session(&self, hash: &[u8; 32]) -> Result<bool> {
        let n = self
            .conn()?
            .execute("DELETE FROM ui_sessions WHERE hash = ?1", [hash.as_slice()])
            .map_err(sql_err)?;
        Ok(n > 0)
    }

    fn sweep_shared(&self, now: Timestamp) -> Result<usize> {
        let mut conn = self.conn()?;
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql_err)?;
        let sessions = tx
            .execute("DELETE FROM ui_sessions WHERE expires_at <= ?1", [now])
            .map_err(sql_err)?;
        let buckets = tx
            .execute(
                "DELETE FROM rate_buckets WHERE at <= ?1",
                [now - BUCKET_IDLE_MS],
            )
            .map_err(sql_err)?;
        tx.commit().map_err(sql_err)?;
        Ok(sessions + buckets)
    }

    fn take_token(&self, bucket: &str, per_minute: u32, now: Timestamp) -> Result<BucketLevel> {
        let (tokens, allowed) = self
            .conn()?
            .prepare_cached(&format!(
                "INSERT INTO rate_buckets AS b (bucket, tokens, at, allowed) \
                 VALUES (?1, ?2 - 1.0, ?3, 1) \
                 ON CONFLICT (bucket) DO UPDATE SET \
                 tokens = CASE WHEN {REFILLED} >= 1.0 THEN {REFILLED} - 1.0 ELSE {REFILLED} END, \
                 allowed = {REFILLED} >= 1.0, \
                 at = max(b.at, ?3) \
                 RETURNING tokens, allowed"
            ))
            .and_then(|mut s| {
                s.query_row(params![bucket, f64::from(per_minute), now], |r| {
                    Ok((r.get::<_, f64>(0)?, r.get::<_, bool>(1)?))
                })
            })
            .map_err(sql_err)?;
        Ok(BucketLevel { tokens, allowed })
    }

    fn hold_lease(
        &self,
        name: &str,
        holder: &str,
        now: Timestamp,
        until: Timestamp,
    ) -> Result<bool> {
        let held = self
            .conn()?
            .prepare_cached(
                "INSERT INTO leases AS l (name, holder, expires_at) VALUES (?1, ?2, ?4) \
                 ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, \
                 expires_at = excluded.expires_at \
                 WHERE l.holder = excluded.holder OR l.expires_at <= ?3 \
                 RETURNING holder",
            )
            .and_then(|mut s| {
                s.query_row(params![name, holder, now, until], |r| r.get::<_, String>(0))
                    .optional()
            })
            .map_err(sql_err)?;
        Ok(held.is_some())
    }

    fn release_lease(&self, name: &str, holder: &str) -> Result<()> {
        self.conn()?
            .execute(
                "DELETE FROM leases WHERE name = ?1 AND holder = ?2",
                params![name, holder],
            )
            .map_err(sql_err)?;
        Ok(())
    }
}
