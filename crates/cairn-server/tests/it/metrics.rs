//! `/metrics` against what an unauthenticated client can do to it: grow
//! its series with made-up methods and paths, or read tenants' names.

use crate::browser::{header, request, status};
use crate::http::RawHttp;
use crate::{blocking, keyed_state, make_key};

/// The `cairn_http_requests_total` series of a `/metrics` reply.
fn series(reply: &str) -> Vec<String> {
    reply
        .lines()
        .filter(|l| l.starts_with("cairn_http_requests_total{"))
        .map(|l| l.rsplit_once(' ').unwrap().0.to_string())
        .collect()
}

#[tokio::test]
async fn made_up_methods_and_paths_add_no_series() {
    let http = RawHttp::start_with(keyed_state(), None).await;
    let host = format!("localhost:{}", http.addr.port());
    let metrics = || request("GET", "/metrics", &host, "", "");
    // Each kind of request once, so that its series exists.
    for (method, path) in [
        ("CUSTOM0", "/healthz"),
        ("GET", "/made/up/0"),
        ("CUSTOM0", "/v1/made-up-0"),
        ("GET", "/v1/memories/0"),
    ] {
        http.exchange(&request(method, path, &host, "", "")).await;
    }
    let before = series(&http.exchange(&metrics()).await);
    for i in 1..=40 {
        for (method, path) in [
            (format!("CUSTOM{i}"), "/healthz".to_string()),
            ("GET".to_string(), format!("/made/up/{i}")),
            (format!("CUSTOM{i}"), format!("/v1/made-up-{i}")),
            ("GET".to_string(), format!("/v1/memories/{i}")),
        ] {
            let reply = http.exchange(&request(&method, &path, &host, "", "")).await;
            assert!(status(&reply) >= 400, "{method} {path}: {reply}");
        }
    }
    let reply = http.exchange(&metrics()).await;
    let after = series(&reply);
    // Only /metrics' own series may be new.
    let new: Vec<&String> = after.iter().filter(|s| !before.contains(s)).collect();
    assert!(
        new.iter().all(|s| s.contains(r#"route="/metrics""#)),
        "new series: {new:?}"
    );
    assert!(
        !reply.contains("CUSTOM") && !reply.contains("made-up"),
        "{reply}"
    );
    assert!(reply.contains(r#"method="other""#), "{reply}");
    http.stop().await;
}

#[tokio::test]
async fn tenant_names_in_metrics_need_an_admin_key() {
    let state = keyed_state();
    let cairn = state.cairn.clone();
    blocking(|| {
        cairn
            .remember(cairn_core::engine::RememberRequest::new(
                "acme-corp",
                "acme renews in May",
            ))
            .unwrap()
    });
    let admin = make_key(&cairn, "ops", "admin");
    let writer = make_key(&cairn, "acme-corp", "write");
    let http = RawHttp::start_with(state, None).await;
    let host = format!("localhost:{}", http.addr.port());
    let with = |key: Option<&str>| {
        let auth = key.map_or(String::new(), |k| format!("Authorization: Bearer {k}\r\n"));
        request("GET", "/metrics", &host, &auth, "")
    };
    let open = http.exchange(&with(None)).await;
    assert_eq!(status(&open), 200, "{open}");
    assert!(open.contains("cairn_http_requests_total"), "{open}");
    assert!(
        !open.contains("acme"),
        "no tenant names without a key: {open}"
    );
    let reply = http.exchange(&with(Some(&writer))).await;
    assert_eq!(status(&reply), 403, "{reply}");
    assert!(!reply.contains("acme-corp\""), "{reply}");
    let reply = http.exchange(&with(Some("cairn_nope_nope"))).await;
    assert_eq!(status(&reply), 401, "{reply}");
    let reply = http.exchange(&with(Some(&admin))).await;
    assert_eq!(status(&reply), 200, "{reply}");
    assert!(
        reply.contains(r#"cairn_memories{tenant="acme-corp"} 1"#),
        "{reply}"
    );
    assert!(header(&reply, "content-type").is_some_and(|t| t.starts_with("text/plain")));
    http.stop().await;
}
