-- What the servers on one schema share (cairn_core::shared): web UI
-- sessions by the SHA-256 of their id, rate-limit buckets, and the leases
-- that let one server at a time run the background jobs. No tenant
-- column, so no row-level security: only the servers' own code reads them.
CREATE TABLE ui_sessions (
    hash       bytea PRIMARY KEY,
    key_id     text NOT NULL,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL
);
CREATE INDEX ui_sessions_key ON ui_sessions (key_id, created_at);
CREATE INDEX ui_sessions_expires ON ui_sessions (expires_at);

-- Unlogged: a take is a write per request, and after a crash of the
-- database every bucket starts full again, which only forgives a minute.
-- Room left on each page so that the update of a row stays on it (HOT).
CREATE UNLOGGED TABLE rate_buckets (
    bucket  text PRIMARY KEY,
    tokens  double precision NOT NULL,
    at      bigint NOT NULL,
    allowed boolean NOT NULL
) WITH (fillfactor = 50);

CREATE TABLE leases (
    name       text PRIMARY KEY,
    holder     text NOT NULL,
    expires_at bigint NOT NULL
);
