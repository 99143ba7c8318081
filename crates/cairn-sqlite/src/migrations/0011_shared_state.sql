-- 11: what the servers on one store share (cairn_core::shared): web UI
-- sessions by the SHA-256 of their id, rate-limit buckets, and the
-- leases that let one server at a time run the background jobs.
CREATE TABLE ui_sessions (
    hash       BLOB PRIMARY KEY,
    key_id     TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
);
CREATE INDEX ui_sessions_key ON ui_sessions (key_id, created_at);
CREATE INDEX ui_sessions_expires ON ui_sessions (expires_at);

CREATE TABLE rate_buckets (
    bucket  TEXT PRIMARY KEY,
    tokens  REAL NOT NULL,
    at      INTEGER NOT NULL,
    allowed INTEGER NOT NULL
);

CREATE TABLE leases (
    name       TEXT PRIMARY KEY,
    holder     TEXT NOT NULL,
    expires_at INTEGER NOT NULL
);
