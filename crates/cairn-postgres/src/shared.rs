//! What the servers on one schema share ([`SharedState`]): web UI
//! sessions, rate buckets and job leases, in tables without tenants.
//!
//! A rate bucket is one `INSERT … ON CONFLICT DO UPDATE … RETURNING`
//! outside any explicit transaction (one round trip): the refill and the
//! take of [`cairn_core::shared::refill_and_take`] in SQL, atomic against
//! every other server (a row lock orders concurrent takes of one bucket).
//! A lease is the same statement, updating only when the lease is free or
//! already the caller's.

use cairn_core::shared::{BucketLevel, SessionCaps, SharedState, UiSessionRecord, BUCKET_IDLE_MS};
use cairn_core::{Result, Timestamp};

use crate::db::{Db, Scope};
use crate::sql::{get, pg_err};

/// The shared state of a [`crate::PostgresStore`].
pub(crate) struct PgShared {
    pub(crate) db: Db,
}

/// The refill of bucket `$1` of `$2` tokens a minute at `$3`
/// (milliseconds): the tokens before the take.
const REFILLED: &str =
    "least($2::float8, b.tokens + greatest($3::bigint - b.at, 0) * $2::float8 / 60000.0)";

impl SharedState for PgShared {
    fn start_ui_session(
        &self,
        session: &UiSessionRecord,
        caps: SessionCaps,
        now: Timestamp,
    ) -> Result<bool> {
        let per_key = caps.per_key.max(1) as i64;
        let max = caps.max_sessions as i64;
        self.db.tx(Scope::Unscoped, |tx| {
            let err = |e| pg_err("starting a web UI session", e);
            // One sign-in at a time, so that the caps hold across servers.
            tx.batch_execute("SELECT pg_advisory_xact_lock(hashtext('cairn.ui_sessions'))")
                .map_err(err)?;
            tx.execute("DELETE FROM ui_sessions WHERE expires_at <= $1", &[&now])
                .map_err(err)?;
            tx.execute(
                "DELETE FROM ui_sessions WHERE hash IN (SELECT hash FROM ui_sessions \
                 WHERE key_id = $1 ORDER BY created_at, hash \
                 LIMIT greatest(0, (SELECT count(*) FROM ui_sessions WHERE key_id = $1) - $2 + 1))",
                &[&session.key_id, &per_key],
            )
            .map_err(err)?;
            let live: i64 = tx
                .query_one("SELECT count(*) FROM ui_sessions", &[])
                .map_err(err)
                .and_then(|r| get(&r, 0))?;
            if live >= max {
                return Ok(false);
            }
            tx.execute(
                "INSERT INTO ui_sessions (hash, key_id, created_at, expires_at) \
                 VALUES ($1, $2, $3, $4)",
                &[
                    &session.hash.as_slice(),
                    &session.key_id,
                    &session.created_at,
                    &session.expires_at,
                ],
            )
            .map_err(err)?;
            Ok(true)
        })
    }

    fn ui_session(&self, hash: &[u8; 32], now: Timestamp) -> Result<Option<UiSessionRecord>> {
        let row = self.db.client(|c| {
            c.query_opt(
                "SELECT key_id, created_at, expires_at FROM ui_sessions \
                 WHERE hash = $1 AND expires_at > $2",
                &[&hash.as_slice(), &now],
            )
            .map_err(|e| pg_err("reading a web UI session", e))
        })?;
        row.map(|r| {
            Ok(UiSessionRecord {
                hash: *hash,
                key_id: get(&r, 0)?,
                created_at: get(&r, 1)?,
                expires_at: get(&r, 2)?,
            })
        })
        .transpose()
    }

    fn end_ui_session(&self, hash: &[u8; 32]) -> Result<bool> {
        let n = self.db.client(|c| {
            c.execute(
                "DELETE FROM ui_sessions WHERE hash = $1",
                &[&hash.as_slice()],
            )
            .map_err(|e| pg_err("ending a web UI session", e))
        })?;
        Ok(n > 0)
    }

    fn sweep_shared(&self, now: Timestamp) -> Result<usize> {
        let idle = now - BUCKET_IDLE_MS;
        self.db.tx(Scope::Unscoped, |tx| {
            let err = |e| pg_err("dropping expired sessions and idle rate buckets", e);
            let sessions = tx
                .execute("DELETE FROM ui_sessions WHERE expires_at <= $1", &[&now])
                .map_err(err)?;
            let buckets = tx
                .execute("DELETE FROM rate_buckets WHERE at <= $1", &[&idle])
                .map_err(err)?;
            Ok((sessions + buckets) as usize)
        })
    }

    fn take_token(&self, bucket: &str, per_minute: u32, now: Timestamp) -> Result<BucketLevel> {
        let capacity = f64::from(per_minute);
        let row = self.db.client(|c| {
            let sql = format!(
                "INSERT INTO rate_buckets AS b (bucket, tokens, at, allowed) \
                 VALUES ($1, $2::float8 - 1.0, $3::bigint, true) \
                 ON CONFLICT (bucket) DO UPDATE SET \
                 tokens = CASE WHEN {REFILLED} >= 1.0 THEN {REFILLED} - 1.0 ELSE {REFILLED} END, \
                 allowed = {REFILLED} >= 1.0, \
                 at = greatest(b.at, $3::bigint) \
                 RETURNING tokens, allowed"
            );
            c.query_one(&sql, &[&bucket, &capacity, &now])
                .map_err(|e| pg_err("taking a rate-limit token", e))
        })?;
        Ok(BucketLevel {
            tokens: get(&row, 0)?,
            allowed: get(&row, 1)?,
        })
    }

    fn hold_lease(
        &self,
        name: &str,
        holder: &str,
        now: Timestamp,
        until: Timestamp,
    ) -> Result<bool> {
        let row = self.db.client(|c| {
            c.query_opt(
                "INSERT INTO leases AS l (name, holder, expires_at) VALUES ($1, $2, $4) \
                 ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, \
                 expires_at = excluded.expires_at \
                 WHERE l.holder = excluded.holder OR l.expires_at <= $3 \
                 RETURNING holder",
                &[&name, &holder, &now, &until],
            )
            .map_err(|e| pg_err(format!("holding the lease {name}"), e))
        })?;
        Ok(row.is_some())
    }

    fn release_lease(&self, name: &str, holder: &str) -> Result<()> {
        self.db.client(|c| {
            c.execute(
                "DELETE FROM leases WHERE name = $1 AND holder = $2",
                &[&name, &holder],
            )
            .map_err(|e| pg_err(format!("releasing the lease {name}"), e))
        })?;
        Ok(())
    }
}
