-- OAuth clients, grants and tokens (cairn_core::oauth). Looked up by id or
-- by a token's hash before the tenant is known, so, like api_keys, not
-- behind row-level security. Tokens keep only the SHA-256 of their text.
CREATE TABLE oauth_clients (
    id            text PRIMARY KEY,
    name          text,
    redirect_uris text NOT NULL,
    created_at    bigint NOT NULL
);

CREATE TABLE oauth_grants (
    id           text PRIMARY KEY,
    client_id    text NOT NULL,
    tenant       text NOT NULL,
    project      text,
    role         text NOT NULL,
    granted_by   text NOT NULL,
    created_at   bigint NOT NULL,
    last_used_at bigint,
    revoked_at   bigint
);
CREATE INDEX oauth_grants_tenant ON oauth_grants (tenant, created_at);

CREATE TABLE oauth_tokens (
    hash         bytea PRIMARY KEY,
    kind         text NOT NULL,
    grant_id     text NOT NULL,
    created_at   bigint NOT NULL,
    expires_at   bigint NOT NULL,
    used_at      bigint,
    redirect_uri text,
    challenge    text
);
CREATE INDEX oauth_tokens_expiry ON oauth_tokens (expires_at);
