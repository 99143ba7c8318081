//! An MCP session answers only the key that opened it, over real HTTP.

use crate::browser::{header, request, status};
use crate::http::RawHttp;
use crate::{keyed_state, make_key};

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
const PING: &str = r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;
const STATS: &str =
    r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"stats","arguments":{}}}"#;

/// `method /mcp` with `key`, in `session` when given.
fn mcp(http: &RawHttp, method: &str, key: &str, session: Option<&str>, body: &str) -> String {
    let session = session.map_or(String::new(), |s| format!("Mcp-Session-Id: {s}\r\n"));
    let headers = format!(
        "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         Mcp-Protocol-Version: 2025-06-18\r\nAuthorization: Bearer {key}\r\n{session}"
    );
    request(
        method,
        "/mcp",
        &format!("localhost:{}", http.addr.port()),
        &headers,
        body,
    )
}

#[tokio::test]
async fn another_key_can_neither_use_nor_end_a_session() {
    let state = keyed_state();
    let cairn = state.cairn.clone();
    let alice = make_key(&cairn, "alice", "write");
    let bob = make_key(&cairn, "bob", "admin");
    let alice_too = make_key(&cairn, "alice", "write");
    let http = RawHttp::start_with(state, None).await;
    let reply = http
        .exchange(&mcp(&http, "POST", &alice, None, INITIALIZE))
        .await;
    assert_eq!(status(&reply), 200, "{reply}");
    let session = header(&reply, "mcp-session-id")
        .expect("a session")
        .to_string();
    let reply = http
        .exchange(&mcp(&http, "POST", &alice, Some(&session), INITIALIZED))
        .await;
    assert_eq!(status(&reply), 202, "{reply}");

    // Another tenant's key, even an admin's, and another key of the same
    // tenant, get "not found" whatever they send in the session.
    for other in [&bob, &alice_too] {
        for (method, body) in [("POST", PING), ("POST", STATS), ("DELETE", "")] {
            let reply = http
                .exchange(&mcp(&http, method, other, Some(&session), body))
                .await;
            assert_eq!(status(&reply), 404, "{method} {body}: {reply}");
            assert!(!reply.contains("\"total\""), "{reply}");
        }
    }
    // The owner's session is untouched.
    let reply = http
        .exchange(&mcp(&http, "POST", &alice, Some(&session), PING))
        .await;
    assert_eq!(status(&reply), 200, "{reply}");
    assert!(reply.contains(r#""id":2"#), "{reply}");
    let reply = http
        .exchange(&mcp(&http, "DELETE", &alice, Some(&session), ""))
        .await;
    assert_eq!(status(&reply), 204, "{reply}");
    let reply = http
        .exchange(&mcp(&http, "POST", &alice, Some(&session), PING))
        .await;
    assert_eq!(status(&reply), 404, "ended: {reply}");
    http.stop().await;
}
