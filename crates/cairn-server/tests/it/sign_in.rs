//! Signing in to the web UI over real HTTP: attempts are limited per
//! client, a key's sessions are capped per key so that no key can sign out
//! another's users, and a rate-limited UI request gets a page.

use cairn_server::ui::session::SignInLimits;
use cairn_server::RateLimits;

use crate::browser::{header, request, status};
use crate::http::RawHttp;
use crate::{keyed_state, make_key};

/// Sign in with `key`: the raw reply.
async fn sign_in(http: &RawHttp, key: &str) -> String {
    let body: String = form_urlencoded::Serializer::new(String::new())
        .append_pair("key", key)
        .finish();
    let host = format!("localhost:{}", http.addr.port());
    let headers = "Content-Type: application/x-www-form-urlencoded\r\n";
    http.exchange(&request("POST", "/ui/login", &host, headers, &body))
        .await
}

/// The session cookie (`name=value`) a sign-in reply sets.
fn cookie(reply: &str) -> String {
    assert_eq!(status(reply), 303, "{reply}");
    let set = header(reply, "set-cookie").expect("a cookie");
    set.split(';').next().unwrap().to_string()
}

/// Whether `cookie` is a live session: `/ui` answers its page, not the
/// way to the sign-in page.
async fn signed_in(http: &RawHttp, cookie: &str) -> bool {
    let host = format!("localhost:{}", http.addr.port());
    let reply = http
        .exchange(&request(
            "GET",
            "/ui",
            &host,
            &format!("Cookie: {cookie}\r\n"),
            "",
        ))
        .await;
    match status(&reply) {
        200 => true,
        303 => false,
        _ => panic!("{reply}"),
    }
}

#[tokio::test]
async fn no_key_can_sign_out_the_users_of_another() {
    let state = keyed_state().with_sign_in(SignInLimits {
        max_sessions: 6,
        per_key: 2,
        per_minute: 0,
    });
    let cairn = state.cairn.clone();
    let victim = make_key(&cairn, "alice", "write");
    let attacker = make_key(&cairn, "bob", "read");
    let http = RawHttp::start_with(state, None).await;
    let alice = cookie(&sign_in(&http, &victim).await);
    // Twenty sign-ins with another tenant's read key end only its own
    // older sessions.
    let mut bobs = Vec::new();
    for _ in 0..20 {
        bobs.push(cookie(&sign_in(&http, &attacker).await));
    }
    assert!(
        signed_in(&http, &alice).await,
        "the victim is still signed in"
    );
    assert!(!signed_in(&http, &bobs[0]).await, "the key's oldest ended");
    assert!(signed_in(&http, &bobs[19]).await);
    // Sessions up to the limit in all: then sign-in is refused, and still
    // nobody else is signed out.
    let carol = make_key(&cairn, "carol", "read");
    let dave = make_key(&cairn, "dave", "read");
    cookie(&sign_in(&http, &carol).await);
    cookie(&sign_in(&http, &carol).await);
    cookie(&sign_in(&http, &dave).await);
    let full = sign_in(&http, &dave).await;
    assert_eq!(status(&full), 503, "{full}");
    assert!(header(&full, "content-type").is_some_and(|t| t.starts_with("text/html")));
    assert!(
        signed_in(&http, &alice).await,
        "the victim is still signed in"
    );
    http.stop().await;
}

#[tokio::test]
async fn sign_in_attempts_are_limited_per_client() {
    let state = keyed_state().with_sign_in(SignInLimits {
        per_minute: 3,
        ..Default::default()
    });
    let cairn = state.cairn.clone();
    let good = make_key(&cairn, "alice", "read");
    let http = RawHttp::start_with(state, None).await;
    for i in 0..3 {
        let reply = sign_in(&http, &format!("cairn_guess{i}_nope")).await;
        assert_eq!(status(&reply), 401, "{reply}");
    }
    for key in ["cairn_guess4_nope", good.as_str()] {
        let reply = sign_in(&http, key).await;
        assert_eq!(status(&reply), 429, "{reply}");
        assert!(header(&reply, "retry-after").is_some_and(|s| s.parse::<u64>().unwrap() >= 1));
        assert!(header(&reply, "content-type").is_some_and(|t| t.starts_with("text/html")));
        assert!(reply.contains("Too many sign-in attempts"), "{reply}");
        assert!(header(&reply, "set-cookie").is_none());
    }
    http.stop().await;
}

#[tokio::test]
async fn a_rate_limited_ui_request_answers_a_page() {
    let state = keyed_state()
        .with_rate_limits(
            RateLimits {
                writes: 0,
                recalls: 0,
                reads: 2,
            },
            Default::default(),
        )
        .with_sign_in(SignInLimits {
            per_minute: 0,
            ..Default::default()
        });
    let cairn = state.cairn.clone();
    let key = make_key(&cairn, "alice", "write");
    let http = RawHttp::start_with(state, None).await;
    let session = cookie(&sign_in(&http, &key).await);
    let host = format!("localhost:{}", http.addr.port());
    let get = || {
        request(
            "GET",
            "/ui/memories",
            &host,
            &format!("Cookie: {session}\r\n"),
            "",
        )
    };
    let mut last = String::new();
    for _ in 0..3 {
        last = http.exchange(&get()).await;
    }
    assert_eq!(status(&last), 429, "{last}");
    assert!(
        header(&last, "content-type").is_some_and(|t| t.starts_with("text/html")),
        "{last}"
    );
    let body = last.split("\r\n\r\n").nth(1).unwrap();
    assert!(
        body.contains("<html") || body.contains("<!DOCTYPE"),
        "{body}"
    );
    assert!(!body.trim_start().starts_with('{'), "not JSON: {body}");
    assert!(header(&last, "retry-after").is_some());
    assert!(header(&last, "content-security-policy").is_some());
    http.stop().await;
}
