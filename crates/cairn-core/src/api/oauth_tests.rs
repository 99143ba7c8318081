use std::sync::Arc;

use super::*;
use crate::api::{create_key, revoke_key, CreateKeyInput};
use crate::conformance::LexicalEmbedder;
use crate::oauth::pkce_challenge;

const RESOURCE: &str = "https://cairn.example/mcp";
const CB: &str = "https://client.example/cb";
const VERIFIER: &str = "a-verifier-of-more-than-forty-three-characters-0123456789";

fn cairn() -> Cairn {
    Cairn::new(
        Arc::new(crate::MemoryStore::new()),
        Arc::new(LexicalEmbedder),
    )
}

fn user(c: &Cairn, tenant: &str, role: &str) -> (Authenticated, String) {
    let made = create_key(
        c,
        CreateKeyInput {
            tenant: Some(tenant.into()),
            role: role.into(),
            ..Default::default()
        },
    )
    .unwrap();
    (crate::api::authenticate(c, &made.key).unwrap(), made.id)
}

fn client(c: &Cairn) -> String {
    register_client(
        c,
        RegisterClient {
            redirect_uris: vec![CB.into()],
            client_name: Some("Test client".into()),
            ..Default::default()
        },
    )
    .unwrap()
    .client_id
}

fn request(client_id: &str) -> AuthorizationRequest {
    AuthorizationRequest {
        response_type: Some("code".into()),
        client_id: Some(client_id.into()),
        redirect_uri: Some(CB.into()),
        code_challenge: Some(pkce_challenge(VERIFIER)),
        code_challenge_method: Some("S256".into()),
        state: Some("st&1".into()),
        resource: Some(RESOURCE.into()),
        scope: None,
    }
}

fn code_of(location: &str) -> String {
    let query = location.split_once('?').unwrap().1;
    query
        .split('&')
        .find_map(|p| p.strip_prefix("code="))
        .unwrap()
        .to_string()
}

/// A code approved by a write user of `alice` for a new client.
fn approved(c: &Cairn) -> (String, String, String) {
    let (who, key_id) = user(c, "alice", "write");
    let client_id = client(c);
    let auth = check_authorization(c, &request(&client_id), RESOURCE).unwrap();
    assert_eq!(auth.client_name.as_deref(), Some("Test client"));
    let consent = Consent {
        tenant: "alice".into(),
        project: Some("web".into()),
        role: Role::Write,
    };
    let location = approve(c, &who, &auth, consent).unwrap();
    assert!(
        location.starts_with(CB) && location.ends_with("&state=st%261"),
        "{location}"
    );
    (client_id, code_of(&location), key_id)
}

fn code_request(client_id: &str, code: &str) -> TokenRequest {
    TokenRequest {
        grant_type: Some("authorization_code".into()),
        code: Some(code.into()),
        redirect_uri: Some(CB.into()),
        client_id: Some(client_id.into()),
        code_verifier: Some(VERIFIER.into()),
        refresh_token: None,
        resource: Some(RESOURCE.into()),
    }
}

fn refresh_request(client_id: &str, refresh: &str) -> TokenRequest {
    TokenRequest {
        grant_type: Some("refresh_token".into()),
        refresh_token: Some(refresh.into()),
        client_id: Some(client_id.into()),
        ..Default::default()
    }
}

#[test]
fn a_code_becomes_tokens_bound_to_the_grant() {
    let c = cairn();
    let (client_id, code, _) = approved(&c);
    let tokens = exchange(&c, &code_request(&client_id, &code), RESOURCE).unwrap();
    assert!(tokens.access_token.starts_with(crate::oauth::ACCESS_PREFIX));
    assert_eq!((tokens.token_type, tokens.expires_in), ("Bearer", 3600));
    let caller = authenticate_token(&c, &tokens.access_token).unwrap();
    assert_eq!(
        (caller.who.tenant.as_str(), caller.who.role),
        ("alice", Role::Write)
    );
    assert_eq!(caller.project.as_deref(), Some("web"));
    assert!(caller.who.key_id.starts_with("oauth-"));
    let grants = list_grants(&c, "alice").unwrap();
    assert_eq!(grants.len(), 1);
    assert_eq!(grants[0].client_name.as_deref(), Some("Test client"));
    assert!(grants[0].last_used_at.is_some());
    assert!(list_grants(&c, "bob").unwrap().is_empty());
    // Nothing stored holds a token's text.
    let store = c.store().oauth_store();
    assert!(store
        .token(&token_hash(&tokens.access_token))
        .unwrap()
        .is_some());
}

#[test]
fn codes_work_once_and_a_second_use_revokes_the_grant() {
    let c = cairn();
    let (client_id, code, _) = approved(&c);
    let tokens = exchange(&c, &code_request(&client_id, &code), RESOURCE).unwrap();
    let err = exchange(&c, &code_request(&client_id, &code), RESOURCE).unwrap_err();
    assert_eq!(err.code, "invalid_grant");
    assert!(
        err.description.contains("already used"),
        "{}",
        err.description
    );
    let err = authenticate_token(&c, &tokens.access_token).unwrap_err();
    assert_eq!(err.to_string(), "this access was revoked");
}

#[test]
fn exchanges_check_pkce_redirect_client_and_expiry() {
    let c = cairn();
    let (client_id, code, _) = approved(&c);
    let wrong = TokenRequest {
        code_verifier: Some(VERIFIER.replace('a', "b")),
        ..code_request(&client_id, &code)
    };
    let err = exchange(&c, &wrong, RESOURCE).unwrap_err();
    assert!(err.description.contains("PKCE"), "{}", err.description);
    let err = exchange(&c, &code_request(&client_id, &code), RESOURCE).unwrap_err();
    assert!(
        err.description.contains("already used"),
        "a failed exchange spends the code"
    );

    let (client_id, code, _) = approved(&c);
    let moved = TokenRequest {
        redirect_uri: Some("https://client.example/other".into()),
        ..code_request(&client_id, &code)
    };
    assert!(exchange(&c, &moved, RESOURCE)
        .unwrap_err()
        .description
        .contains("redirect_uri"));

    let (_, code, _) = approved(&c);
    let other = client(&c);
    let err = exchange(&c, &code_request(&other, &code), RESOURCE).unwrap_err();
    assert!(
        err.description.contains("another client"),
        "{}",
        err.description
    );

    let (client_id, code, _) = approved(&c);
    let later = c
        .clone()
        .with_clock(Arc::new(|| crate::time::now() + CODE_TTL_MS + 1));
    let err = exchange(&later, &code_request(&client_id, &code), RESOURCE).unwrap_err();
    assert!(err.description.contains("expired"), "{}", err.description);

    let err = exchange(&c, &code_request("nobody", "x"), RESOURCE).unwrap_err();
    assert_eq!(err.code, "invalid_client");
    let err = exchange(
        &c,
        &TokenRequest {
            grant_type: Some("password".into()),
            ..code_request(&client_id, "x")
        },
        RESOURCE,
    )
    .unwrap_err();
    assert_eq!(err.code, "unsupported_grant_type");
}

#[test]
fn refresh_tokens_rotate_and_a_reused_one_revokes_the_grant() {
    let c = cairn();
    let (client_id, code, _) = approved(&c);
    let first = exchange(&c, &code_request(&client_id, &code), RESOURCE).unwrap();
    let second = exchange(
        &c,
        &refresh_request(&client_id, &first.refresh_token),
        RESOURCE,
    )
    .unwrap();
    assert_ne!(second.refresh_token, first.refresh_token);
    assert!(authenticate_token(&c, &second.access_token).is_ok());
    let err = exchange(
        &c,
        &refresh_request(&client_id, &first.refresh_token),
        RESOURCE,
    )
    .unwrap_err();
    assert!(
        err.description.contains("already used"),
        "{}",
        err.description
    );
    assert!(authenticate_token(&c, &second.access_token).is_err());
    assert!(exchange(
        &c,
        &refresh_request(&client_id, &second.refresh_token),
        RESOURCE
    )
    .is_err());
}

#[test]
fn access_tokens_expire_and_stop_with_their_grant_or_granter() {
    let c = cairn();
    let (client_id, code, key_id) = approved(&c);
    let tokens = exchange(&c, &code_request(&client_id, &code), RESOURCE).unwrap();
    let later = c
        .clone()
        .with_clock(Arc::new(|| crate::time::now() + ACCESS_TTL_MS + 1));
    let err = authenticate_token(&later, &tokens.access_token).unwrap_err();
    assert_eq!(err.to_string(), "the access token has expired");
    assert!(
        authenticate_token(&c, &tokens.refresh_token).is_err(),
        "a refresh token is not an access token"
    );

    revoke_key(&c, &key_id).unwrap();
    let err = authenticate_token(&c, &tokens.access_token).unwrap_err();
    assert!(err.to_string().contains("API key that granted"), "{err}");

    let (client_id, code, _) = approved(&c);
    let tokens = exchange(&c, &code_request(&client_id, &code), RESOURCE).unwrap();
    revoke_token(&c, &tokens.refresh_token).unwrap();
    assert!(authenticate_token(&c, &tokens.access_token).is_err());
    revoke_token(&c, "cairn_at_unknown").unwrap();
}

#[test]
fn grants_are_revoked_within_their_tenant_only() {
    let c = cairn();
    let (client_id, code, _) = approved(&c);
    let tokens = exchange(&c, &code_request(&client_id, &code), RESOURCE).unwrap();
    let id = list_grants(&c, "alice").unwrap()[0].id.clone();
    assert!(revoke_grant(&c, "bob", &id).is_err());
    assert!(authenticate_token(&c, &tokens.access_token).is_ok());
    revoke_grant(&c, "alice", &id).unwrap();
    assert_eq!(list_grants(&c, "alice").unwrap()[0].status, "revoked");
    assert!(authenticate_token(&c, &tokens.access_token).is_err());
}

#[test]
fn bad_authorization_requests_go_to_the_user_or_back_to_the_client() {
    let c = cairn();
    let client_id = client(&c);
    let to_user = [
        AuthorizationRequest {
            client_id: None,
            ..request(&client_id)
        },
        AuthorizationRequest {
            client_id: Some("unknown".into()),
            ..request(&client_id)
        },
        AuthorizationRequest {
            redirect_uri: Some("https://evil.example/cb".into()),
            ..request(&client_id)
        },
    ];
    for req in to_user {
        let refusal = check_authorization(&c, &req, RESOURCE).unwrap_err();
        assert!(refusal.redirect.is_none(), "{req:?}");
    }
    for (req, code) in [
        (
            AuthorizationRequest {
                code_challenge_method: Some("plain".into()),
                ..request(&client_id)
            },
            "invalid_request",
        ),
        (
            AuthorizationRequest {
                response_type: Some("token".into()),
                ..request(&client_id)
            },
            "unsupported_response_type",
        ),
        (
            AuthorizationRequest {
                resource: Some("https://other.example/mcp".into()),
                ..request(&client_id)
            },
            "invalid_target",
        ),
    ] {
        let refusal = check_authorization(&c, &req, RESOURCE).unwrap_err();
        assert_eq!(refusal.error.code, code);
        let to = refusal.redirect.unwrap();
        assert!(
            to.starts_with(CB) && to.contains(&format!("error={code}")),
            "{to}"
        );
    }
    let auth = check_authorization(
        &c,
        &AuthorizationRequest {
            redirect_uri: None,
            resource: Some("https://cairn.example/".into()),
            ..request(&client_id)
        },
        RESOURCE,
    )
    .unwrap();
    assert_eq!(auth.redirect_uri, CB);
    assert!(deny(&auth).contains("error=access_denied"));
}

#[test]
fn users_cannot_grant_more_than_they_have() {
    let c = cairn();
    let (reader, _) = user(&c, "alice", "read");
    let client_id = client(&c);
    let auth = check_authorization(&c, &request(&client_id), RESOURCE).unwrap();
    for (tenant, role) in [
        ("alice", Role::Write),
        ("bob", Role::Read),
        ("alice", Role::Admin),
    ] {
        let consent = Consent {
            tenant: tenant.into(),
            project: None,
            role,
        };
        let err = approve(&c, &reader, &auth, consent).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Forbidden, "{tenant} {role}");
    }
    assert!(
        list_grants(&c, "alice").unwrap().is_empty(),
        "nothing was granted"
    );
}

#[test]
fn registration_checks_redirect_uris_and_metadata() {
    let c = cairn();
    for (req, code) in [
        (RegisterClient::default(), "invalid_redirect_uri"),
        (
            RegisterClient {
                redirect_uris: vec!["http://client.example/cb".into()],
                ..Default::default()
            },
            "invalid_redirect_uri",
        ),
        (
            RegisterClient {
                redirect_uris: vec![CB.into()],
                grant_types: Some(vec!["client_credentials".into()]),
                ..Default::default()
            },
            "invalid_client_metadata",
        ),
    ] {
        assert_eq!(register_client(&c, req).unwrap_err().code, code);
    }
    let made = register_client(
        &c,
        RegisterClient {
            redirect_uris: vec!["http://127.0.0.1:3030/cb".into()],
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(made.token_endpoint_auth_method, "none");
    assert_eq!(made.client_id.len(), 32);
}

#[test]
fn expired_tokens_are_swept() {
    let c = cairn();
    let (client_id, code, _) = approved(&c);
    exchange(&c, &code_request(&client_id, &code), RESOURCE).unwrap();
    assert_eq!(sweep_tokens(&c).unwrap(), 0);
    let much_later = c.clone().with_clock(Arc::new(|| {
        crate::time::now() + REFRESH_TTL_MS + 2 * 86_400_000
    }));
    assert_eq!(
        sweep_tokens(&much_later).unwrap(),
        3,
        "code, access and refresh"
    );
}
