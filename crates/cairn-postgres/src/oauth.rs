//! The OAuth clients, grants and tokens of a [`crate::PostgresStore`]:
//! [`OAuthStore`] on the `oauth_*` tables (migration 7).

use cairn_core::oauth::{OAuthClient, OAuthGrant, OAuthStore, OAuthToken, TokenKind};
use cairn_core::{Error, Result, Timestamp};

use crate::db::{Db, Scope};
use crate::sql::{get, is_unique_violation, pg_err};

/// The OAuth tables of a [`crate::PostgresStore`].
pub(crate) struct PgOAuth {
    pub(crate) db: Db,
}

const GRANT_COLUMNS: &str =
    "id, client_id, tenant, project, role, granted_by, created_at, last_used_at, revoked_at";
const TOKEN_COLUMNS: &str =
    "hash, kind, grant_id, created_at, expires_at, used_at, redirect_uri, challenge";

fn grant_from_row(row: &postgres::Row) -> Result<OAuthGrant> {
    let role: String = get(row, 4)?;
    Ok(OAuthGrant {
        id: get(row, 0)?,
        client_id: get(row, 1)?,
        tenant: get(row, 2)?,
        project: get(row, 3)?,
        role: role.parse()?,
        granted_by: get(row, 5)?,
        created_at: get(row, 6)?,
        last_used_at: get(row, 7)?,
        revoked_at: get(row, 8)?,
    })
}

fn token_from_row(row: &postgres::Row) -> Result<OAuthToken> {
    let hash: Vec<u8> = get(row, 0)?;
    let kind: String = get(row, 1)?;
    Ok(OAuthToken {
        hash: hash
            .try_into()
            .map_err(|_| Error::storage("a stored OAuth token hash is not 32 bytes"))?,
        kind: TokenKind::parse(&kind)?,
        grant_id: get(row, 2)?,
        created_at: get(row, 3)?,
        expires_at: get(row, 4)?,
        used_at: get(row, 5)?,
        redirect_uri: get(row, 6)?,
        challenge: get(row, 7)?,
    })
}

fn duplicate(what: String) -> impl FnOnce(postgres::Error) -> Error {
    move |e| {
        if is_unique_violation(&e) {
            Error::DuplicateId(what)
        } else {
            pg_err("storing an OAuth record", e)
        }
    }
}

impl OAuthStore for PgOAuth {
    fn insert_client(&self, c: &OAuthClient) -> Result<()> {
        let uris =
            serde_json::to_string(&c.redirect_uris).map_err(|e| Error::storage(e.to_string()))?;
        self.db.tx(Scope::Unscoped, |tx| {
            tx.execute(
                "INSERT INTO oauth_clients (id, name, redirect_uris, created_at) VALUES ($1, $2, $3, $4)",
                &[&c.id, &c.name, &uris, &c.created_at],
            )
            .map_err(duplicate(c.id.clone()))?;
            Ok(())
        })
    }

    fn client(&self, id: &str) -> Result<Option<OAuthClient>> {
        let row = self.db.tx(Scope::Unscoped, |tx| {
            tx.query_opt(
                "SELECT id, name, redirect_uris, created_at FROM oauth_clients WHERE id = $1",
                &[&id],
            )
            .map_err(|e| pg_err("reading an OAuth client", e))
        })?;
        row.map(|r| {
            let uris: String = get(&r, 2)?;
            Ok(OAuthClient {
                id: get(&r, 0)?,
                name: get(&r, 1)?,
                redirect_uris: serde_json::from_str(&uris)
                    .map_err(|e| Error::storage(format!("an OAuth client's redirect URIs: {e}")))?,
                created_at: get(&r, 3)?,
            })
        })
        .transpose()
    }

    fn insert_grant(&self, g: &OAuthGrant) -> Result<()> {
        self.db.tx(Scope::Unscoped, |tx| {
            tx.execute(
                &format!("INSERT INTO oauth_grants ({GRANT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"),
                &[
                    &g.id,
                    &g.client_id,
                    &g.tenant,
                    &g.project,
                    &g.role.as_str(),
                    &g.granted_by,
                    &g.created_at,
                    &g.last_used_at,
                    &g.revoked_at,
                ],
            )
            .map_err(duplicate(g.id.clone()))?;
            Ok(())
        })
    }

    fn grant(&self, id: &str) -> Result<Option<OAuthGrant>> {
        let row = self.db.tx(Scope::Unscoped, |tx| {
            tx.query_opt(
                &format!("SELECT {GRANT_COLUMNS} FROM oauth_grants WHERE id = $1"),
                &[&id],
            )
            .map_err(|e| pg_err("reading an OAuth grant", e))
        })?;
        row.as_ref().map(grant_from_row).transpose()
    }

    fn grants(&self, tenant: Option<&str>) -> Result<Vec<OAuthGrant>> {
        let rows = self.db.tx(Scope::Unscoped, |tx| {
            tx.query(
                &format!(
                    "SELECT {GRANT_COLUMNS} FROM oauth_grants WHERE $1::text IS NULL OR tenant = $1 \
                     ORDER BY created_at, id COLLATE \"C\""
                ),
                &[&tenant],
            )
            .map_err(|e| pg_err("listing OAuth grants", e))
        })?;
        rows.iter().map(grant_from_row).collect()
    }

    fn revoke_grant(&self, id: &str, at: Timestamp) -> Result<bool> {
        let n = self.db.tx(Scope::Unscoped, |tx| {
            tx.execute(
                "UPDATE oauth_grants SET revoked_at = coalesce(revoked_at, $2) WHERE id = $1",
                &[&id, &at],
            )
            .map_err(|e| pg_err("revoking an OAuth grant", e))
        })?;
        Ok(n > 0)
    }

    fn touch_grant(&self, id: &str, at: Timestamp) -> Result<()> {
        self.db.tx(Scope::Unscoped, |tx| {
            tx.execute(
                "UPDATE oauth_grants SET last_used_at = $2 WHERE id = $1",
                &[&id, &at],
            )
            .map_err(|e| pg_err("recording an OAuth grant's use", e))?;
            Ok(())
        })
    }

    fn insert_token(&self, t: &OAuthToken) -> Result<()> {
        self.db.tx(Scope::Unscoped, |tx| {
            tx.execute(
                &format!("INSERT INTO oauth_tokens ({TOKEN_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"),
                &[
                    &t.hash.as_slice(),
                    &t.kind.as_str(),
                    &t.grant_id,
                    &t.created_at,
                    &t.expires_at,
                    &t.used_at,
                    &t.redirect_uri,
                    &t.challenge,
                ],
            )
            .map_err(duplicate("an OAuth token".into()))?;
            Ok(())
        })
    }

    fn token(&self, hash: &[u8; 32]) -> Result<Option<OAuthToken>> {
        let row = self.db.tx(Scope::Unscoped, |tx| {
            tx.query_opt(
                &format!("SELECT {TOKEN_COLUMNS} FROM oauth_tokens WHERE hash = $1"),
                &[&hash.as_slice()],
            )
            .map_err(|e| pg_err("reading an OAuth token", e))
        })?;
        row.as_ref().map(token_from_row).transpose()
    }

    fn use_token(&self, hash: &[u8; 32], at: Timestamp) -> Result<bool> {
        let n = self.db.tx(Scope::Unscoped, |tx| {
            tx.execute(
                "UPDATE oauth_tokens SET used_at = $2 WHERE hash = $1 AND used_at IS NULL",
                &[&hash.as_slice(), &at],
            )
            .map_err(|e| pg_err("using an OAuth token", e))
        })?;
        Ok(n == 1)
    }

    fn delete_expired_tokens(&self, before: Timestamp) -> Result<usize> {
        let n = self.db.tx(Scope::Unscoped, |tx| {
            tx.execute("DELETE FROM oauth_tokens WHERE expires_at < $1", &[&before])
                .map_err(|e| pg_err("deleting expired OAuth tokens", e))
        })?;
        Ok(n as usize)
    }
}
