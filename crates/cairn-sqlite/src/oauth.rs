//! OAuth clients, grants and tokens in the `oauth_*` tables (see
//! [`cairn_core::oauth`]); tokens are keyed by the SHA-256 of their text.

use cairn_core::keys::Role;
use cairn_core::oauth::{OAuthClient, OAuthGrant, OAuthStore, OAuthToken, TokenKind};
use cairn_core::{Error, Result, Timestamp};
use rusqlite::{params, OptionalExtension, Row};

use crate::sql::sql_err;
use crate::SqliteStore;

/// The migration that makes the tables (the 11th: [`crate::schema::MIGRATIONS`]).
pub(crate) const MIGRATION: &str = r#"
    CREATE TABLE oauth_clients (
        id            TEXT PRIMARY KEY,
        name          TEXT,
        redirect_uris TEXT NOT NULL,
        created_at    INTEGER NOT NULL
    );
    CREATE TABLE oauth_grants (
        id           TEXT PRIMARY KEY,
        client_id    TEXT NOT NULL,
        tenant       TEXT NOT NULL,
        project      TEXT,
        role         TEXT NOT NULL,
        granted_by   TEXT NOT NULL,
        created_at   INTEGER NOT NULL,
        last_used_at INTEGER,
        revoked_at   INTEGER
    );
    CREATE INDEX oauth_grants_tenant ON oauth_grants (tenant, created_at);
    CREATE TABLE oauth_tokens (
        hash         BLOB PRIMARY KEY,
        kind         TEXT NOT NULL,
        grant_id     TEXT NOT NULL,
        created_at   INTEGER NOT NULL,
        expires_at   INTEGER NOT NULL,
        used_at      INTEGER,
        redirect_uri TEXT,
        challenge    TEXT
    );
    CREATE INDEX oauth_tokens_expiry ON oauth_tokens (expires_at);
"#;

const GRANT_COLUMNS: &str =
    "id, client_id, tenant, project, role, granted_by, created_at, last_used_at, revoked_at";
const TOKEN_COLUMNS: &str =
    "hash, kind, grant_id, created_at, expires_at, used_at, redirect_uri, challenge";

fn grant_of(row: &Row<'_>) -> rusqlite::Result<Result<OAuthGrant>> {
    let role: String = row.get(4)?;
    let Ok(role) = role.parse::<Role>() else {
        return Ok(Err(Error::storage(format!(
            "OAuth grant: unknown role {role:?}"
        ))));
    };
    Ok(Ok(OAuthGrant {
        id: row.get(0)?,
        client_id: row.get(1)?,
        tenant: row.get(2)?,
        project: row.get(3)?,
        role,
        granted_by: row.get(5)?,
        created_at: row.get(6)?,
        last_used_at: row.get(7)?,
        revoked_at: row.get(8)?,
    }))
}

fn token_of(row: &Row<'_>) -> rusqlite::Result<Result<OAuthToken>> {
    let hash: Vec<u8> = row.get(0)?;
    let kind: String = row.get(1)?;
    let (Ok(hash), Ok(kind)) = (<[u8; 32]>::try_from(hash), TokenKind::parse(&kind)) else {
        return Ok(Err(Error::storage("a stored OAuth token is corrupt")));
    };
    Ok(Ok(OAuthToken {
        hash,
        kind,
        grant_id: row.get(2)?,
        created_at: row.get(3)?,
        expires_at: row.get(4)?,
        used_at: row.get(5)?,
        redirect_uri: row.get(6)?,
        challenge: row.get(7)?,
    }))
}

impl OAuthStore for SqliteStore {
    fn insert_client(&self, client: &OAuthClient) -> Result<()> {
        let uris = serde_json::to_string(&client.redirect_uris)
            .map_err(|e| Error::storage(e.to_string()))?;
        let n = self
            .conn()?
            .execute(
                "INSERT OR IGNORE INTO oauth_clients (id, name, redirect_uris, created_at) VALUES (?1, ?2, ?3, ?4)",
                params![client.id, client.name, uris, client.created_at],
            )
            .map_err(sql_err)?;
        if n == 0 {
            return Err(Error::DuplicateId(client.id.clone()));
        }
        Ok(())
    }

    fn client(&self, id: &str) -> Result<Option<OAuthClient>> {
        let row = self
            .reader()?
            .query_row(
                "SELECT id, name, redirect_uris, created_at FROM oauth_clients WHERE id = ?1",
                [id],
                |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, Option<String>>(1)?,
                        r.get::<_, String>(2)?,
                        r.get::<_, i64>(3)?,
                    ))
                },
            )
            .optional()
            .map_err(sql_err)?;
        row.map(|(id, name, uris, created_at)| {
            let redirect_uris = serde_json::from_str(&uris)
                .map_err(|e| Error::storage(format!("OAuth client {id}: {e}")))?;
            Ok(OAuthClient {
                id,
                name,
                redirect_uris,
                created_at,
            })
        })
        .transpose()
    }

    fn insert_grant(&self, g: &OAuthGrant) -> Result<()> {
        let n = self
            .conn()?
            .execute(
                &format!("INSERT OR IGNORE INTO oauth_grants ({GRANT_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"),
                params![
                    g.id,
                    g.client_id,
                    g.tenant,
                    g.project,
                    g.role.as_str(),
                    g.granted_by,
                    g.created_at,
                    g.last_used_at,
                    g.revoked_at
                ],
            )
            .map_err(sql_err)?;
        if n == 0 {
            return Err(Error::DuplicateId(g.id.clone()));
        }
        Ok(())
    }

    fn grant(&self, id: &str) -> Result<Option<OAuthGrant>> {
        self.reader()?
            .query_row(
                &format!("SELECT {GRANT_COLUMNS} FROM oauth_grants WHERE id = ?1"),
                [id],
                grant_of,
            )
            .optional()
            .map_err(sql_err)?
            .transpose()
    }

    fn grants(&self, tenant: Option<&str>) -> Result<Vec<OAuthGrant>> {
        let conn = self.reader()?;
        let mut stmt = conn
            .prepare(&format!(
                "SELECT {GRANT_COLUMNS} FROM oauth_grants WHERE ?1 IS NULL OR tenant = ?1 ORDER BY created_at, id"
            ))
            .map_err(sql_err)?;
        let rows = stmt.query_map([tenant], grant_of).map_err(sql_err)?;
        rows.map(|r| r.map_err(sql_err)?).collect()
    }

    fn revoke_grant(&self, id: &str, at: Timestamp) -> Result<bool> {
        let n = self
            .conn()?
            .execute(
                "UPDATE oauth_grants SET revoked_at = coalesce(revoked_at, ?2) WHERE id = ?1",
                params![id, at],
            )
            .map_err(sql_err)?;
        Ok(n > 0)
    }

    fn touch_grant(&self, id: &str, at: Timestamp) -> Result<()> {
        self.conn()?
            .execute(
                "UPDATE oauth_grants SET last_used_at = ?2 WHERE id = ?1",
                params![id, at],
            )
            .map_err(sql_err)?;
        Ok(())
    }

    fn insert_token(&self, t: &OAuthToken) -> Result<()> {
        let n = self
            .conn()?
            .execute(
                &format!("INSERT OR IGNORE INTO oauth_tokens ({TOKEN_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"),
                params![
                    &t.hash[..],
                    t.kind.as_str(),
                    t.grant_id,
                    t.created_at,
                    t.expires_at,
                    t.used_at,
                    t.redirect_uri,
                    t.challenge
                ],
            )
            .map_err(sql_err)?;
        if n == 0 {
            return Err(Error::DuplicateId("an OAuth token".into()));
        }
        Ok(())
    }

    fn token(&self, hash: &[u8; 32]) -> Result<Option<OAuthToken>> {
        self.reader()?
            .query_row(
                &format!("SELECT {TOKEN_COLUMNS} FROM oauth_tokens WHERE hash = ?1"),
                [&hash[..]],
                token_of,
            )
            .optional()
            .map_err(sql_err)?
            .transpose()
    }

    fn use_token(&self, hash: &[u8; 32], at: Timestamp) -> Result<bool> {
        let n = self
            .conn()?
            .execute(
                "UPDATE oauth_tokens SET used_at = ?2 WHERE hash = ?1 AND used_at IS NULL",
                params![&hash[..], at],
            )
            .map_err(sql_err)?;
        Ok(n == 1)
    }

    fn delete_expired_tokens(&self, before: Timestamp) -> Result<usize> {
        self.conn()?
            .execute("DELETE FROM oauth_tokens WHERE expires_at < ?1", [before])
            .map_err(sql_err)
    }
}
