use super::*;
use crate::ErrorKind;

#[test]
fn redirect_uris_must_be_https_or_loopback_http() {
    for ok in [
        "https://client.example/callback",
        "https://client.example:8443/cb?x=1",
        "http://localhost:3030/callback",
        "http://127.0.0.1/cb",
        "http://[::1]:9000/cb",
    ] {
        assert!(check_redirect_uri(ok).is_ok(), "{ok}");
    }
    for (bad, why) in [
        ("http://client.example/callback", "must use https"),
        ("https://client.example/cb#frag", "fragment"),
        ("ftp://client.example/cb", "absolute http(s)"),
        ("/callback", "absolute http(s)"),
        ("https:///cb", "absolute http(s)"),
        ("https://user@client.example/cb", "user information"),
        ("https://client.example/c b", "spaces"),
        ("http://localhost.evil.example/cb", "must use https"),
        ("https://client.example:x/cb", "absolute http(s)"),
        ("https://a.example;script-src*/cb", "host name"),
        ("https://clïent.example/cb", "non-ASCII"),
    ] {
        let err = check_redirect_uri(bad).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{bad}");
        assert!(err.to_string().contains(why), "{bad}: {err}");
    }
    let long = format!("https://client.example/{}", "a".repeat(MAX_URI_LEN));
    assert!(check_redirect_uri(&long).is_err());
}

#[test]
fn redirects_match_exactly_but_loopback_ports_may_vary() {
    let cb = "https://client.example/callback";
    assert!(redirect_matches(cb, cb));
    assert!(!redirect_matches(cb, "https://client.example/callback/"));
    assert!(!redirect_matches(cb, "https://client.example/callback?x=1"));
    assert!(!redirect_matches(cb, "https://client.example:444/callback"));
    assert!(!redirect_matches(cb, "https://evil.example/callback"));
    let local = "http://127.0.0.1:3030/cb";
    assert!(redirect_matches(local, "http://127.0.0.1:49152/cb"));
    assert!(redirect_matches(local, "http://127.0.0.1/cb"));
    assert!(!redirect_matches(local, "http://127.0.0.1:3030/other"));
    assert!(!redirect_matches(local, "http://localhost:3030/cb"));
    assert!(!redirect_matches(
        "https://client.example:1/cb",
        "https://client.example:2/cb"
    ));
}

#[test]
fn pkce_s256_matches_rfc_7636_appendix_b() {
    let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
    let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
    assert_eq!(pkce_challenge(verifier), challenge);
    assert!(verify_pkce(verifier, challenge));
    assert!(!verify_pkce(&verifier.replace('d', "e"), challenge));
    assert!(!verify_pkce("short", &pkce_challenge("short")));
    assert!(!verify_pkce(challenge, challenge), "plain is not accepted");
    assert_eq!(base64url(b""), "");
    assert_eq!(base64url(b"f"), "Zg");
    assert_eq!(base64url(b"fo"), "Zm8");
    assert_eq!(base64url(b"foo"), "Zm9v");
    assert_eq!(base64url(&[0xfb, 0xff]), "-_8");
}

#[test]
fn challenges_must_be_s256() {
    let c = pkce_challenge(&"v".repeat(50));
    assert_eq!(check_challenge(Some(&c), Some("S256")).unwrap(), c);
    for (challenge, method) in [
        (None, Some("S256")),
        (Some(c.as_str()), None),
        (Some(c.as_str()), Some("plain")),
        (Some("short"), Some("S256")),
    ] {
        let err = check_challenge(challenge, method).unwrap_err();
        assert_eq!(
            err.kind(),
            ErrorKind::InvalidInput,
            "{challenge:?} {method:?}"
        );
    }
}

fn who(tenant: &str, role: Role) -> Authenticated {
    Authenticated {
        key_id: "k".into(),
        tenant: tenant.into(),
        role,
    }
}

#[test]
fn users_grant_no_more_than_they_have() {
    assert!(grantable(&who("alice", Role::Write), "alice", Role::Write).is_ok());
    assert!(grantable(&who("alice", Role::Write), "alice", Role::Read).is_ok());
    assert!(grantable(&who("root", Role::Admin), "bob", Role::Write).is_ok());
    for (granter, tenant, role, why) in [
        (
            who("alice", Role::Read),
            "alice",
            Role::Write,
            "cannot grant write",
        ),
        (who("alice", Role::Write), "bob", Role::Read, "own tenant"),
        (
            who("root", Role::Admin),
            "root",
            Role::Admin,
            "cannot be admin",
        ),
    ] {
        let err = grantable(&granter, tenant, role).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Forbidden);
        assert!(err.to_string().contains(why), "{err}");
    }
}

fn token(kind: TokenKind, expires_at: Timestamp, used_at: Option<Timestamp>) -> OAuthToken {
    OAuthToken {
        hash: [0; 32],
        kind,
        grant_id: "g".into(),
        created_at: 0,
        expires_at,
        used_at,
        redirect_uri: None,
        challenge: None,
    }
}

#[test]
fn tokens_expire_and_codes_work_once() {
    let live = token(TokenKind::Access, 1_000, None);
    assert_eq!(live.refusal(TokenKind::Access, 999), None);
    assert!(live
        .refusal(TokenKind::Access, 1_000)
        .unwrap()
        .contains("expired"));
    assert!(live
        .refusal(TokenKind::Refresh, 0)
        .unwrap()
        .contains("not a token"));
    let used = token(TokenKind::Code, 1_000, Some(5));
    assert!(used
        .refusal(TokenKind::Code, 10)
        .unwrap()
        .contains("already used"));
    let refresh = token(TokenKind::Refresh, 1_000, Some(5));
    assert!(refresh
        .refusal(TokenKind::Refresh, 10)
        .unwrap()
        .contains("already used"));
}

#[test]
fn new_tokens_say_their_kind_and_hash_their_text() {
    for kind in [TokenKind::Code, TokenKind::Access, TokenKind::Refresh] {
        let (text, hash) = new_token(kind).unwrap();
        assert_eq!(TokenKind::of(&text), Some(kind));
        assert_eq!(TokenKind::parse(kind.as_str()).unwrap(), kind);
        assert_eq!(token_hash(&text), hash);
        assert_eq!(text.len(), kind.prefix().len() + 64);
    }
    assert_eq!(TokenKind::of("cairn_0123456789ab_00"), None);
    assert_ne!(
        new_token(TokenKind::Access).unwrap().0,
        new_token(TokenKind::Access).unwrap().0
    );
}

#[test]
fn queries_are_encoded() {
    assert_eq!(
        with_query(
            "https://c.example/cb",
            &[("code", "a b"), ("state", "x&y=z")]
        ),
        "https://c.example/cb?code=a%20b&state=x%26y%3Dz"
    );
    assert_eq!(
        with_query("https://c.example/cb?k=1", &[("code", "c")]),
        "https://c.example/cb?k=1&code=c"
    );
}
