//! What a web page could make the user's browser do to a server, over
//! real HTTP: DNS rebinding (a foreign `Host`), cross-site writes (a
//! foreign `Origin`, `Sec-Fetch-Site`, `text/plain` bodies), and the
//! security headers of every answer.

use crate::http::RawHttp;
use crate::{blocking, state};

/// The status code of a raw reply.
pub(crate) fn status(reply: &str) -> u16 {
    reply
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status: {reply:?}"))
}

/// A header of a raw reply.
pub(crate) fn header<'a>(reply: &'a str, name: &str) -> Option<&'a str> {
    reply
        .split("\r\n\r\n")
        .next()?
        .lines()
        .filter_map(|l| l.split_once(':'))
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.trim())
}

/// A request with `extra` header lines (each ending in CRLF) and a body.
pub(crate) fn request(method: &str, path: &str, host: &str, extra: &str, body: &str) -> String {
    format!(
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

const ROUTES: [(&str, &str); 9] = [
    ("GET", "/v1/export"),
    ("GET", "/v1/memories"),
    ("GET", "/v1/stats"),
    ("GET", "/ui"),
    ("GET", "/ui/memories"),
    ("GET", "/docs"),
    ("GET", "/openapi.json"),
    ("GET", "/metrics"),
    ("GET", "/"),
];

#[tokio::test]
async fn a_server_without_keys_refuses_a_foreign_host_on_every_route() {
    let state = state();
    let cairn = state.cairn.clone();
    blocking(|| {
        cairn
            .remember(cairn_core::engine::RememberRequest::new(
                cairn_core::DEFAULT_TENANT,
                "the launch code is 1234",
            ))
            .unwrap()
    });
    let http = RawHttp::start_with(state, None).await;
    let local = format!("localhost:{}", http.addr.port());
    for (method, path) in ROUTES {
        for foreign in [
            "evil.example",
            "evil.example:7878",
            "127.0.0.1.evil.example",
        ] {
            let reply = http.exchange(&request(method, path, foreign, "", "")).await;
            assert_eq!(
                status(&reply),
                403,
                "{method} {path} Host {foreign}: {reply}"
            );
            assert!(!reply.contains("launch code"), "{reply}");
            assert!(reply.contains("forbidden_host"), "{reply}");
        }
        let reply = http.exchange(&request(method, path, &local, "", "")).await;
        assert!(
            status(&reply) < 400,
            "{method} {path} Host {local}: {reply}"
        );
    }
    let reply = http
        .exchange(&request("GET", "/v1/export", &local, "", ""))
        .await;
    assert!(reply.contains("launch code"), "{reply}");
    // The UI's CSRF token (in every page) is not readable either.
    let reply = http
        .exchange(&request("GET", "/ui/memories", "evil.example", "", ""))
        .await;
    assert!(!reply.contains("csrf"), "{reply}");
    // MCP (already guarded) still is.
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
    let mcp_headers =
        "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n";
    let reply = http
        .exchange(&request("POST", "/mcp", "evil.example", mcp_headers, init))
        .await;
    assert_eq!(status(&reply), 403, "{reply}");
    // The probes tell nothing and answer a load balancer by address.
    let reply = http
        .exchange(&request("GET", "/healthz", "10.1.2.3:7878", "", ""))
        .await;
    assert_eq!(status(&reply), 200, "{reply}");
    http.stop().await;
}

#[tokio::test]
async fn a_server_without_keys_refuses_cross_site_writes() {
    let state = state();
    let cairn = state.cairn.clone();
    let http = RawHttp::start_with(state, None).await;
    let local = format!("127.0.0.1:{}", http.addr.port());
    let body = r#"{"content":"planted by another site"}"#;
    let forged = [
        // An HTML form posting `enctype="text/plain"`, or fetch in no-cors mode.
        "Content-Type: text/plain\r\nOrigin: http://evil.example\r\n",
        "Content-Type: application/json\r\nOrigin: http://evil.example\r\n",
        "Content-Type: application/x-www-form-urlencoded\r\nOrigin: null\r\n",
        // Another local page (another port) is another site too.
        "Content-Type: text/plain\r\nOrigin: http://127.0.0.1:3000\r\n",
        "Content-Type: application/json\r\nSec-Fetch-Site: cross-site\r\n",
        // Without Origin (an older browser's form), text/plain is refused.
        "Content-Type: text/plain\r\n",
    ];
    for headers in forged {
        let reply = http
            .exchange(&request("POST", "/v1/memories", &local, headers, body))
            .await;
        assert!(matches!(status(&reply), 403 | 415), "{headers:?}: {reply}");
    }
    let reply = http
        .exchange(&request(
            "DELETE",
            "/v1/memories?confirm=true",
            &local,
            "Origin: http://evil.example\r\n",
            "",
        ))
        .await;
    assert_eq!(status(&reply), 403, "{reply}");
    let count = || blocking(|| cairn.stats(cairn_core::DEFAULT_TENANT).unwrap().0.total);
    assert_eq!(count(), 0, "no cross-site write reached the store");
    // This server's own pages and non-browser clients still write.
    let own = format!("Content-Type: application/json\r\nOrigin: http://{local}\r\n");
    let reply = http
        .exchange(&request("POST", "/v1/memories", &local, &own, body))
        .await;
    assert_eq!(status(&reply), 201, "{reply}");
    let curl = "Content-Type: application/x-www-form-urlencoded\r\n";
    let reply = http
        .exchange(&request(
            "POST",
            "/v1/memories",
            &local,
            curl,
            r#"{"content":"sent by curl -d"}"#,
        ))
        .await;
    assert_eq!(status(&reply), 201, "{reply}");
    assert_eq!(count(), 2);
    http.stop().await;
}

#[tokio::test]
async fn every_answer_says_nosniff_and_html_pages_cannot_be_framed() {
    let http = RawHttp::start_with(state(), None).await;
    let local = format!("localhost:{}", http.addr.port());
    for path in [
        "/v1/memories",
        "/v1/nowhere",
        "/openapi.json",
        "/metrics",
        "/docs",
        "/healthz",
        "/nowhere",
        "/ui",
    ] {
        let reply = http.exchange(&request("GET", path, &local, "", "")).await;
        assert_eq!(
            header(&reply, "x-content-type-options"),
            Some("nosniff"),
            "{path}: {reply}"
        );
    }
    let reply = http
        .exchange(&request("GET", "/docs", &local, "", ""))
        .await;
    assert_eq!(status(&reply), 200, "{reply}");
    let csp = header(&reply, "content-security-policy").expect("a CSP on /docs");
    assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
    assert!(
        csp.contains("script-src 'self'") && !csp.contains("script-src 'self' 'unsafe-inline'"),
        "{csp}"
    );
    assert_eq!(header(&reply, "x-frame-options"), Some("DENY"));
    // The page runs no inline script: every script has a source.
    let page = reply.split("\r\n\r\n").nth(1).unwrap();
    assert_eq!(
        page.matches("<script").count(),
        page.matches("<script src=").count(),
        "{page}"
    );
    assert!(page.contains("/docs/cairn-docs.js"), "{page}");
    let reply = http
        .exchange(&request("GET", "/docs/cairn-docs.js", &local, "", ""))
        .await;
    assert_eq!(status(&reply), 200, "{reply}");
    assert!(
        reply.contains("/openapi.json") && reply.contains("SwaggerUIBundle"),
        "{reply}"
    );
    http.stop().await;
}
