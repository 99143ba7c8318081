//! The server on a loopback port, spoken to in raw HTTP/1.1.

use cairn_server::{AppState, Jobs};

use crate::{blocking, keyed_state, make_key, state};

/// `cairn serve`'s router on a loopback port, spoken to in raw HTTP/1.1
/// (so that status codes and headers are exactly what a client sees).
pub(crate) struct RawHttp {
    pub(crate) addr: std::net::SocketAddr,
    /// The API key every request carries, if any.
    key: Option<String>,
    stop: tokio::sync::oneshot::Sender<()>,
    serving: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl RawHttp {
    async fn start() -> RawHttp {
        Self::start_with(state(), None).await
    }

    /// Serve `state`; every request carries `key`.
    pub(crate) async fn start_with(state: AppState, key: Option<String>) -> RawHttp {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let stopped = async {
            let _ = stopped.await;
        };
        let serving = tokio::spawn(cairn_server::serve(
            listener,
            state,
            Jobs::default(),
            stopped,
        ));
        RawHttp {
            addr,
            key,
            stop,
            serving,
        }
    }

    /// The whole reply (status line, headers, body) to `method /mcp`.
    async fn send(&self, method: &str, session: Option<&str>, body: &str) -> String {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut tcp = tokio::net::TcpStream::connect(self.addr).await.unwrap();
        let session = session.map_or(String::new(), |s| format!("Mcp-Session-Id: {s}\r\n"));
        let auth = self
            .key
            .as_ref()
            .map_or(String::new(), |k| format!("Authorization: Bearer {k}\r\n"));
        let req = format!(
            "{method} /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nMcp-Protocol-Version: 2025-06-18\r\n\
             {session}{auth}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        tcp.write_all(req.as_bytes()).await.unwrap();
        let mut reply = String::new();
        tcp.read_to_string(&mut reply).await.unwrap();
        reply
    }

    /// The whole reply to `request`, written as it is (it should say
    /// `Connection: close`).
    pub(crate) async fn exchange(&self, request: &str) -> String {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut tcp = tokio::net::TcpStream::connect(self.addr).await.unwrap();
        tcp.write_all(request.as_bytes()).await.unwrap();
        let mut reply = Vec::new();
        tcp.read_to_end(&mut reply).await.unwrap();
        String::from_utf8_lossy(&reply).into_owned()
    }

    pub(crate) async fn stop(self) {
        self.stop.send(()).unwrap();
        self.serving.await.unwrap().unwrap();
    }
}

const RAW_INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;

#[tokio::test]
async fn http_answers_a_body_that_is_not_json_with_a_parse_error() {
    let http = RawHttp::start().await;
    let reply = http
        .send("POST", None, "{\"jsonrpc\": \"2.0\", \"id\": 1,")
        .await;
    assert!(reply.starts_with("HTTP/1.1 400"), "{reply}");
    let body = reply.split("\r\n\r\n").nth(1).unwrap();
    let v: serde_json::Value = serde_json::from_str(body).unwrap();
    assert_eq!(v["error"]["code"], -32700, "{v}");
    assert!(v["id"].is_null());
    // A well-formed initialize still reaches the MCP service.
    let reply = http.send("POST", None, RAW_INITIALIZE).await;
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    assert!(reply.contains("serverInfo"), "{reply}");
    http.stop().await;
}

#[tokio::test]
async fn http_ends_a_session_on_delete_with_204() {
    let http = RawHttp::start().await;
    let reply = http.send("POST", None, RAW_INITIALIZE).await;
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    let session = session_of(&reply);
    let reply = http.send("DELETE", Some(&session), "").await;
    assert!(reply.starts_with("HTTP/1.1 204"), "{reply}");
    // The session is gone.
    let ping = r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;
    let reply = http.send("POST", Some(&session), ping).await;
    assert!(reply.starts_with("HTTP/1.1 404"), "{reply}");
    http.stop().await;
}

/// A tools/call (id 7, or a notification when `id` is `None`) whose
/// argument holds 200 arrays inside one another: deeper than the JSON
/// parser's limit of 128 levels.
fn deep_call(id: Option<u32>) -> String {
    let id = id.map_or(String::new(), |id| format!(r#""id":{id},"#));
    format!(
        r#"{{"jsonrpc":"2.0",{id}"method":"tools/call","params":{{"name":"remember","arguments":{{"content":"x","metadata":{{"a":{}{}}}}}}}}}"#,
        "[".repeat(200),
        "]".repeat(200)
    )
}

#[tokio::test]
async fn http_answers_a_body_nested_too_deeply_with_an_error_carrying_its_id() {
    let http = RawHttp::start().await;
    let reply = http.send("POST", None, RAW_INITIALIZE).await;
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    let session = session_of(&reply);
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let reply = http.send("POST", Some(&session), initialized).await;
    assert!(reply.starts_with("HTTP/1.1 202"), "{reply}");

    let json_body = |reply: &str| -> serde_json::Value {
        let body = reply.split("\r\n\r\n").nth(1).unwrap();
        serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {reply}"))
    };
    let reply = http.send("POST", Some(&session), &deep_call(Some(7))).await;
    assert!(reply.starts_with("HTTP/1.1 400"), "{reply}");
    let v = json_body(&reply);
    assert_eq!(v["id"], 7, "{v}");
    assert_eq!(v["error"]["code"], -32600, "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("nested 128 or more levels deep"),
        "{v}"
    );
    // A notification that deep is refused too, with no id to answer.
    let reply = http.send("POST", Some(&session), &deep_call(None)).await;
    assert!(reply.starts_with("HTTP/1.1 400"), "{reply}");
    assert!(json_body(&reply)["id"].is_null(), "{reply}");
    // The session still serves.
    let ping = r#"{"jsonrpc":"2.0","id":8,"method":"ping"}"#;
    let reply = http.send("POST", Some(&session), ping).await;
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    assert!(reply.contains(r#""id":8"#), "{reply}");
    http.stop().await;
}

/// The session id a reply to `initialize` carries.
fn session_of(reply: &str) -> String {
    reply
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("mcp-session-id")
                .then(|| value.trim().to_string())
        })
        .expect("a session id")
}

/// An MCP session over HTTP with `key`: initialized, ready for calls.
async fn session_with(state: AppState, key: &str) -> (RawHttp, String) {
    let http = RawHttp::start_with(state, Some(key.to_string())).await;
    let session = session_of(&http.send("POST", None, RAW_INITIALIZE).await);
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    http.send("POST", Some(&session), initialized).await;
    (http, session)
}

const REMEMBER: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"remember","arguments":{"content":"alice keeps her notes here"}}}"#;

#[tokio::test]
async fn each_request_acts_for_the_tenant_of_its_key() {
    let state = keyed_state();
    let cairn = state.cairn.clone();
    let key = make_key(&cairn, "alice", "write");
    let (http, session) = session_with(state, &key).await;
    let reply = http.send("POST", Some(&session), REMEMBER).await;
    assert!(reply.contains("remembered"), "{reply}");
    let stats = |tenant: &str| blocking(|| cairn.stats(tenant).unwrap().0.total);
    assert_eq!(stats("alice"), 1);
    assert_eq!(stats("default"), 0, "not the configured tenant");
    // The version names the key that wrote it.
    let versions = blocking(|| {
        let memory = cairn
            .list(&cairn.filter("alice"), Default::default(), 1, 0)
            .unwrap();
        cairn
            .store()
            .histories("alice", &[memory[0].id])
            .unwrap()
            .remove(0)
    });
    let key_id = key.split('_').nth(1).unwrap();
    assert_eq!(versions[0].actor, key_id);
    http.stop().await;
}

#[tokio::test]
async fn mcp_needs_a_key_and_a_read_key_cannot_write() {
    let state = keyed_state();
    let cairn = state.cairn.clone();
    let anonymous = RawHttp::start_with(state.clone(), None).await;
    let reply = anonymous.send("POST", None, RAW_INITIALIZE).await;
    assert!(reply.starts_with("HTTP/1.1 401"), "{reply}");
    assert!(reply.contains("unauthenticated"), "{reply}");
    anonymous.stop().await;

    let key = make_key(&cairn, "alice", "read");
    let (http, session) = session_with(state, &key).await;
    let reply = http.send("POST", Some(&session), REMEMBER).await;
    assert!(reply.contains("may only read"), "{reply}");
    let stats = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"stats","arguments":{}}}"#;
    let reply = http.send("POST", Some(&session), stats).await;
    assert!(
        reply.contains(r#"\"total\":0"#) || reply.contains("0 memories"),
        "{reply}"
    );
    assert_eq!(blocking(|| cairn.stats("alice").unwrap().0.total), 0);
    http.stop().await;
}
