//! The [`crate::oauth::OAuthStore`] contract: clients, grants and tokens
//! round-trip; ids and hashes are unique; `use_token` marks a token used
//! once, even when many threads race; revocation keeps its first time;
//! expired tokens are deleted.

use std::sync::Arc;

use crate::keys::Role;
use crate::oauth::{OAuthClient, OAuthGrant, OAuthToken, TokenKind};
use crate::{ErrorKind, Store};

fn grant(id: &str, tenant: &str, created_at: i64) -> OAuthGrant {
    OAuthGrant {
        id: id.into(),
        client_id: "c1".into(),
        tenant: tenant.into(),
        project: (tenant == "alice").then(|| "web".into()),
        role: Role::Write,
        granted_by: "0123456789ab".into(),
        created_at,
        last_used_at: None,
        revoked_at: None,
    }
}

fn token(byte: u8, kind: TokenKind, expires_at: i64) -> OAuthToken {
    OAuthToken {
        hash: [byte; 32],
        kind,
        grant_id: "aaaaaaaaaaaa".into(),
        created_at: 1,
        expires_at,
        used_at: None,
        redirect_uri: (kind == TokenKind::Code).then(|| "https://c.example/cb".into()),
        challenge: (kind == TokenKind::Code).then(|| "x".repeat(43)),
    }
}

/// Run the [`crate::oauth::OAuthStore`] checks on `store`.
pub fn check_oauth(store: Arc<dyn Store>) {
    let o = store.oauth_store();
    let client = OAuthClient {
        id: "c1".into(),
        name: Some("Client ü".into()),
        redirect_uris: vec!["https://c.example/cb".into(), "http://127.0.0.1/cb".into()],
        created_at: 5,
    };
    o.insert_client(&client).unwrap();
    assert_eq!(o.client("c1").unwrap(), Some(client.clone()));
    assert_eq!(o.client("c2").unwrap(), None);
    let err = o.insert_client(&client).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Conflict);

    let a = grant("aaaaaaaaaaaa", "alice", 10);
    let b = grant("bbbbbbbbbbbb", "bob", 5);
    o.insert_grant(&a).unwrap();
    o.insert_grant(&b).unwrap();
    assert_eq!(o.insert_grant(&a).unwrap_err().kind(), ErrorKind::Conflict);
    assert_eq!(o.grant(&a.id).unwrap(), Some(a.clone()));
    let all: Vec<String> = o.grants(None).unwrap().into_iter().map(|g| g.id).collect();
    assert_eq!(all, [b.id.clone(), a.id.clone()], "oldest first");
    assert_eq!(o.grants(Some("alice")).unwrap(), vec![a.clone()]);
    o.touch_grant(&a.id, 20).unwrap();
    assert!(o.revoke_grant(&a.id, 30).unwrap());
    assert!(o.revoke_grant(&a.id, 40).unwrap());
    assert!(!o.revoke_grant("cccccccccccc", 40).unwrap());
    let got = o.grant(&a.id).unwrap().unwrap();
    assert_eq!((got.last_used_at, got.revoked_at), (Some(20), Some(30)));

    let code = token(1, TokenKind::Code, 100);
    o.insert_token(&code).unwrap();
    o.insert_token(&token(2, TokenKind::Access, 1_000)).unwrap();
    o.insert_token(&token(3, TokenKind::Refresh, 10_000))
        .unwrap();
    assert_eq!(
        o.insert_token(&code).unwrap_err().kind(),
        ErrorKind::Conflict
    );
    assert_eq!(o.token(&[1; 32]).unwrap(), Some(code.clone()));
    assert_eq!(o.token(&[9; 32]).unwrap(), None);

    // Many threads race to use one refresh token: exactly one wins.
    let winners: usize = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|_| {
                let store = store.clone();
                s.spawn(move || usize::from(store.oauth_store().use_token(&[3; 32], 50).unwrap()))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).sum()
    });
    assert_eq!(winners, 1);
    assert_eq!(o.token(&[3; 32]).unwrap().unwrap().used_at, Some(50));
    assert!(!o.use_token(&[9; 32], 50).unwrap(), "an unknown token");

    assert_eq!(o.delete_expired_tokens(1_000).unwrap(), 1, "the code");
    assert!(o.token(&[1; 32]).unwrap().is_none());
    assert!(o.token(&[2; 32]).unwrap().is_some());
}
