//! OAuth 2.1 for remote MCP over real HTTP: discovery, registration, the
//! consent page, tokens on `/mcp`, and the refusals: a wrong redirect URI,
//! a reused code, a PKCE mismatch, expired and revoked tokens, refresh
//! token reuse, and a token of one tenant against another's data.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use cairn_core::api::{self, Caller, RememberInput};
use cairn_core::conformance::LexicalEmbedder;
use cairn_core::oauth::pkce_challenge;
use cairn_core::Cairn;
use cairn_mcp::{CairnMcp, McpConfig};
use cairn_server::AppState;
use serde_json::Value;

use crate::browser::{header, request, status};
use crate::http::RawHttp;
use crate::{blocking, make_key};

const CB: &str = "http://127.0.0.1:9/callback";
const VERIFIER: &str = "this-is-the-pkce-verifier-of-the-test-client-0123456789";
const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

struct Server {
    http: RawHttp,
    host: String,
    cairn: Cairn,
    /// Milliseconds added to the engine's clock.
    skew: Arc<AtomicI64>,
}

fn form(pairs: &[(&str, &str)]) -> String {
    form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish()
}

fn body_json(reply: &str) -> Value {
    let body = reply.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {reply}"))
}

fn query_param(location: &str, name: &str) -> Option<String> {
    let query = location.split_once('?')?.1;
    form_urlencoded::parse(query.as_bytes())
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

impl Server {
    async fn start() -> Server {
        let skew = Arc::new(AtomicI64::new(0));
        let clock_skew = skew.clone();
        let cairn = Cairn::new(
            Arc::new(cairn_core::MemoryStore::new()),
            Arc::new(LexicalEmbedder),
        )
        .with_clock(Arc::new(move || {
            cairn_core::time::now() + clock_skew.load(Ordering::SeqCst)
        }));
        let state = AppState::new(CairnMcp::new(cairn.clone(), McpConfig::new("default")));
        let http = RawHttp::start_with(state, None).await;
        let host = format!("localhost:{}", http.addr.port());
        Server {
            http,
            host,
            cairn,
            skew,
        }
    }

    async fn send(&self, method: &str, path: &str, headers: &str, body: &str) -> String {
        self.http
            .exchange(&request(method, path, &self.host, headers, body))
            .await
    }

    async fn post_form(&self, path: &str, extra: &str, pairs: &[(&str, &str)]) -> String {
        let headers = format!("Content-Type: application/x-www-form-urlencoded\r\n{extra}");
        self.send("POST", path, &headers, &form(pairs)).await
    }

    async fn register(&self, redirect: &str) -> String {
        let body = serde_json::json!({"redirect_uris": [redirect], "client_name": "Test agent"});
        let reply = self
            .send(
                "POST",
                "/oauth/register",
                "Content-Type: application/json\r\n",
                &body.to_string(),
            )
            .await;
        assert_eq!(status(&reply), 201, "{reply}");
        body_json(&reply)["client_id"].as_str().unwrap().to_string()
    }

    async fn sign_in(&self, key: &str) -> String {
        let reply = self.post_form("/ui/login", "", &[("key", key)]).await;
        assert_eq!(status(&reply), 303, "{reply}");
        let set = header(&reply, "set-cookie").expect("a cookie");
        set.split(';').next().unwrap().to_string()
    }

    fn authorize_query(client_id: &str, redirect: &str) -> String {
        form(&[
            ("response_type", "code"),
            ("client_id", client_id),
            ("redirect_uri", redirect),
            ("code_challenge", &pkce_challenge(VERIFIER)),
            ("code_challenge_method", "S256"),
            ("state", "s1"),
        ])
    }

    /// Consent as `cookie`'s user to `tenant` with `role`: the reply to
    /// the form's POST.
    async fn consent(&self, cookie: &str, client_id: &str, tenant: &str, role: &str) -> String {
        let query = Self::authorize_query(client_id, CB);
        let cookie_line = format!("Cookie: {cookie}\r\n");
        let page = self
            .send(
                "GET",
                &format!("/ui/oauth/authorize?{query}"),
                &cookie_line,
                "",
            )
            .await;
        assert_eq!(status(&page), 200, "{page}");
        assert!(page.contains("Test agent"), "{page}");
        let csp = header(&page, "content-security-policy").unwrap();
        assert!(
            csp.contains("form-action 'self' http://127.0.0.1:9"),
            "{csp}"
        );
        let at = page.find(r#"name="csrf" value=""#).expect("a CSRF field") + 19;
        let csrf = page[at..at + 64].to_string();
        let mut pairs: Vec<(String, String)> = form_urlencoded::parse(query.as_bytes())
            .into_owned()
            .collect();
        for (k, v) in [
            ("csrf", csrf.as_str()),
            ("tenant", tenant),
            ("project", "web"),
            ("role", role),
            ("decision", "allow"),
        ] {
            pairs.push((k.into(), v.into()));
        }
        let pairs: Vec<(&str, &str)> = pairs
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        self.post_form("/ui/oauth/authorize", &cookie_line, &pairs)
            .await
    }

    /// A code for a new client, approved by a new key of `tenant`.
    async fn code(&self, tenant: &str, role: &str) -> (String, String) {
        let client_id = self.register(CB).await;
        let cookie = self.sign_in(&make_key(&self.cairn, tenant, "write")).await;
        let reply = self.consent(&cookie, &client_id, tenant, role).await;
        assert_eq!(status(&reply), 303, "{reply}");
        let location = header(&reply, "location").unwrap();
        assert!(location.starts_with(CB), "{location}");
        assert_eq!(query_param(location, "state").as_deref(), Some("s1"));
        (client_id, query_param(location, "code").unwrap())
    }

    async fn token(&self, pairs: &[(&str, &str)]) -> (u16, Value) {
        let reply = self.post_form("/oauth/token", "", pairs).await;
        (status(&reply), body_json(&reply))
    }

    async fn exchange(&self, client_id: &str, code: &str, verifier: &str) -> (u16, Value) {
        self.token(&[
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", CB),
            ("client_id", client_id),
            ("code_verifier", verifier),
        ])
        .await
    }

    /// Tokens for `tenant`: (client id, token response).
    async fn tokens(&self, tenant: &str, role: &str) -> (String, Value) {
        let (client_id, code) = self.code(tenant, role).await;
        let (s, tokens) = self.exchange(&client_id, &code, VERIFIER).await;
        assert_eq!(s, 200, "{tokens}");
        (client_id, tokens)
    }

    fn mcp_request(&self, token: &str, session: Option<&str>, extra: &str, body: &str) -> String {
        let session = session.map_or(String::new(), |s| format!("Mcp-Session-Id: {s}\r\n"));
        let headers = format!(
            "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
             Mcp-Protocol-Version: 2025-06-18\r\nAuthorization: Bearer {token}\r\n{session}{extra}"
        );
        request("POST", "/mcp", &self.host, &headers, body)
    }

    /// Open an MCP session with `token`: the reply to initialize, and the
    /// session id when it succeeded.
    async fn open(&self, token: &str) -> (String, Option<String>) {
        let reply = self
            .http
            .exchange(&self.mcp_request(token, None, "", INITIALIZE))
            .await;
        let Some(session) = header(&reply, "mcp-session-id").map(str::to_string) else {
            return (reply, None);
        };
        let ok = self
            .http
            .exchange(&self.mcp_request(token, Some(&session), "", INITIALIZED))
            .await;
        assert_eq!(status(&ok), 202, "{ok}");
        (reply, Some(session))
    }

    async fn call(&self, token: &str, session: &str, tool: &str, args: Value) -> String {
        let body = serde_json::json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": tool, "arguments": args}});
        self.http
            .exchange(&self.mcp_request(token, Some(session), "", &body.to_string()))
            .await
    }
}

#[tokio::test]
async fn discovery_metadata_and_the_401_challenge() {
    let s = Server::start().await;
    let base = format!("http://{}", s.host);
    for path in [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
    ] {
        let reply = s.send("GET", path, "", "").await;
        assert_eq!(status(&reply), 200, "{reply}");
        let meta = body_json(&reply);
        assert_eq!(meta["resource"], format!("{base}/mcp"));
        assert_eq!(meta["authorization_servers"][0], base);
    }
    let meta = body_json(
        &s.send("GET", "/.well-known/oauth-authorization-server", "", "")
            .await,
    );
    assert_eq!(meta["issuer"], base);
    assert_eq!(meta["token_endpoint"], format!("{base}/oauth/token"));
    assert_eq!(
        meta["registration_endpoint"],
        format!("{base}/oauth/register")
    );
    assert_eq!(
        meta["code_challenge_methods_supported"],
        serde_json::json!(["S256"])
    );

    let reply = s
        .send(
            "POST",
            "/mcp",
            "Content-Type: application/json\r\n",
            INITIALIZE,
        )
        .await;
    assert_eq!(status(&reply), 401, "{reply}");
    let challenge = header(&reply, "www-authenticate").unwrap();
    assert_eq!(
        challenge,
        format!("Bearer resource_metadata=\"{base}/.well-known/oauth-protected-resource/mcp\"")
    );
    s.http.stop().await;
}

#[tokio::test]
async fn a_granted_token_works_on_mcp_for_its_grant_and_nowhere_else() {
    let s = Server::start().await;
    let (_, tokens) = s.tokens("alice", "write").await;
    let access = tokens["access_token"].as_str().unwrap();
    assert_eq!(tokens["token_type"], "Bearer");
    assert_eq!(tokens["expires_in"], 3600);
    let (_, session) = s.open(access).await;
    let session = session.expect("a session");
    let reply = s
        .call(
            access,
            &session,
            "remember",
            serde_json::json!({"content": "alice keeps the release notes in the wiki"}),
        )
        .await;
    assert!(reply.contains("created"), "{reply}");
    let reply = s
        .call(access, &session, "stats", serde_json::json!({}))
        .await;
    assert!(
        reply.contains(r#"\"session_project\":\"web\""#)
            || reply.contains(r#""session_project":"web""#),
        "the grant's project: {reply}"
    );
    let stored = blocking(|| api::stats(&s.cairn, &Caller::new("alice")).unwrap().total);
    assert_eq!(stored, 1, "written to the grant's tenant");

    // REST is not the token's resource.
    let reply = s
        .send(
            "GET",
            "/v1/stats",
            &format!("Authorization: Bearer {access}\r\n"),
            "",
        )
        .await;
    assert_eq!(status(&reply), 401, "{reply}");
    // API keys keep working on /mcp.
    let key = make_key(&s.cairn, "alice", "read");
    assert!(s.open(&key).await.1.is_some());
    // Nothing stored is the token.
    assert!(blocking(|| api::oauth::authenticate_token(&s.cairn, access)).is_ok());
    s.http.stop().await;
}

#[tokio::test]
async fn a_token_of_one_tenant_never_reaches_another() {
    let s = Server::start().await;
    let bobs = blocking(|| {
        api::remember(
            &s.cairn,
            &Caller::new("bob"),
            RememberInput::new("bob's vault code is 4411 for the storage unit"),
        )
        .unwrap()
        .id
    });
    let (_, tokens) = s.tokens("alice", "write").await;
    let access = tokens["access_token"].as_str().unwrap();
    let (_, session) = s.open(access).await;
    let session = session.unwrap();
    let reply = s
        .call(access, &session, "get", serde_json::json!({"id": bobs}))
        .await;
    assert!(!reply.contains("4411"), "{reply}");
    let reply = s
        .call(
            access,
            &session,
            "recall",
            serde_json::json!({"query": "vault code storage unit"}),
        )
        .await;
    assert!(!reply.contains("4411"), "{reply}");
    // Naming another tenant is refused, even for a token of a grant.
    let reply = s
        .http
        .exchange(&s.mcp_request(access, None, "X-Cairn-Tenant: bob\r\n", INITIALIZE))
        .await;
    assert_eq!(status(&reply), 403, "{reply}");
    // A write user of alice cannot grant bob's tenant, nor admin.
    let client_id = s.register(CB).await;
    let cookie = s.sign_in(&make_key(&s.cairn, "alice", "write")).await;
    for (tenant, role) in [("bob", "read"), ("alice", "admin")] {
        let reply = s.consent(&cookie, &client_id, tenant, role).await;
        assert_eq!(status(&reply), 403, "{tenant} {role}: {reply}");
    }
    s.http.stop().await;
}

#[tokio::test]
async fn wrong_redirects_reused_codes_and_pkce_mismatches_are_refused() {
    let s = Server::start().await;
    // Registration: plain http only to loopback.
    let reply = s
        .send(
            "POST",
            "/oauth/register",
            "Content-Type: application/json\r\n",
            r#"{"redirect_uris":["http://client.example/cb"]}"#,
        )
        .await;
    assert_eq!(status(&reply), 400, "{reply}");
    assert_eq!(body_json(&reply)["error"], "invalid_redirect_uri");

    // A redirect URI the client did not register: shown, never followed.
    let client_id = s.register(CB).await;
    let query = Server::authorize_query(&client_id, "https://evil.example/cb");
    let reply = s
        .send("GET", &format!("/oauth/authorize?{query}"), "", "")
        .await;
    assert_eq!(status(&reply), 303, "{reply}");
    let consent = header(&reply, "location").unwrap().to_string();
    let reply = s.send("GET", &consent, "", "").await;
    assert_eq!(status(&reply), 400, "{reply}");
    assert!(header(&reply, "location").is_none());
    assert!(reply.contains("not one this client registered"), "{reply}");
    // A valid request without a session goes to sign-in and back.
    let query = Server::authorize_query(&client_id, CB);
    let reply = s
        .send("GET", &format!("/ui/oauth/authorize?{query}"), "", "")
        .await;
    assert_eq!(status(&reply), 303, "{reply}");
    assert!(header(&reply, "location")
        .unwrap()
        .starts_with("/ui/login?next=%2Fui%2Foauth%2Fauthorize%3F"));

    // PKCE mismatch: refused, and the code is spent.
    let (client_id, code) = s.code("alice", "read").await;
    let other = "another-verifier-that-is-long-enough-0123456789-abcdef";
    let (st, err) = s.exchange(&client_id, &code, other).await;
    assert_eq!(
        (st, err["error"].as_str()),
        (400, Some("invalid_grant")),
        "{err}"
    );
    assert!(err["error_description"].as_str().unwrap().contains("PKCE"));
    let (st, _) = s.exchange(&client_id, &code, VERIFIER).await;
    assert_eq!(st, 400);

    // A reused code: refused, and the tokens of the first exchange stop.
    let (client_id, code) = s.code("alice", "read").await;
    let (st, tokens) = s.exchange(&client_id, &code, VERIFIER).await;
    assert_eq!(st, 200, "{tokens}");
    let (st, err) = s.exchange(&client_id, &code, VERIFIER).await;
    assert_eq!(
        (st, err["error"].as_str()),
        (400, Some("invalid_grant")),
        "{err}"
    );
    let (reply, session) = s.open(tokens["access_token"].as_str().unwrap()).await;
    assert!(session.is_none());
    assert_eq!(status(&reply), 401, "{reply}");

    // A redirect URI that differs at the token endpoint.
    let (client_id, code) = s.code("alice", "read").await;
    let (st, err) = s
        .token(&[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("redirect_uri", "http://127.0.0.1:9/other"),
            ("client_id", &client_id),
            ("code_verifier", VERIFIER),
        ])
        .await;
    assert_eq!(
        (st, err["error"].as_str()),
        (400, Some("invalid_grant")),
        "{err}"
    );
    s.http.stop().await;
}

#[tokio::test]
async fn expired_revoked_and_reused_refresh_tokens_are_refused() {
    let s = Server::start().await;
    // Refresh rotates; the old refresh token's reuse revokes the grant.
    let (client_id, first) = s.tokens("alice", "write").await;
    let refresh = |t: &str| {
        [
            ("grant_type", "refresh_token".to_string()),
            ("refresh_token", t.to_string()),
            ("client_id", client_id.clone()),
        ]
    };
    let pairs = refresh(first["refresh_token"].as_str().unwrap());
    let pairs: Vec<(&str, &str)> = pairs.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let (st, second) = s.token(&pairs).await;
    assert_eq!(st, 200, "{second}");
    assert_ne!(second["refresh_token"], first["refresh_token"]);
    let access = second["access_token"].as_str().unwrap().to_string();
    assert!(s.open(&access).await.1.is_some());
    let (st, err) = s.token(&pairs).await;
    assert_eq!(
        (st, err["error"].as_str()),
        (400, Some("invalid_grant")),
        "{err}"
    );
    assert_eq!(
        status(&s.open(&access).await.0),
        401,
        "reuse revoked the grant"
    );

    // Expired: an hour later the access token is refused; refresh works.
    let (client_id, tokens) = s.tokens("alice", "write").await;
    let access = tokens["access_token"].as_str().unwrap().to_string();
    s.skew.store(3_600_001, Ordering::SeqCst);
    let (reply, _) = s.open(&access).await;
    assert_eq!(status(&reply), 401, "{reply}");
    assert!(reply.contains("expired"), "{reply}");
    let (st, fresh) = s
        .token(&[
            ("grant_type", "refresh_token"),
            ("refresh_token", tokens["refresh_token"].as_str().unwrap()),
            ("client_id", &client_id),
        ])
        .await;
    assert_eq!(st, 200, "{fresh}");
    s.skew.store(0, Ordering::SeqCst);

    // Revoked at /oauth/revoke.
    let fresh_access = fresh["access_token"].as_str().unwrap().to_string();
    assert!(s.open(&fresh_access).await.1.is_some());
    let reply = s
        .post_form("/oauth/revoke", "", &[("token", &fresh_access)])
        .await;
    assert_eq!(status(&reply), 200, "{reply}");
    assert_eq!(status(&s.open(&fresh_access).await.0), 401);

    // Revoked from the Keys page by an admin of the tenant.
    let (_, tokens) = s.tokens("carol", "read").await;
    let access = tokens["access_token"].as_str().unwrap();
    let cookie = s.sign_in(&make_key(&s.cairn, "carol", "admin")).await;
    let cookie_line = format!("Cookie: {cookie}\r\n");
    let page = s.send("GET", "/ui/keys", &cookie_line, "").await;
    assert_eq!(status(&page), 200, "{page}");
    assert!(page.contains("Test agent"), "{page}");
    let grant = blocking(|| api::oauth::list_grants(&s.cairn, "carol").unwrap())[0]
        .id
        .clone();
    let at = page.find(r#"name="csrf" value=""#).unwrap() + 19;
    let csrf = page[at..at + 64].to_string();
    let reply = s
        .post_form(
            &format!("/ui/keys/grants/{grant}/revoke"),
            &cookie_line,
            &[("csrf", &csrf)],
        )
        .await;
    assert_eq!(status(&reply), 303, "{reply}");
    assert_eq!(status(&s.open(access).await.0), 401);
    s.http.stop().await;
}

#[tokio::test]
async fn registrations_are_limited_per_client_address() {
    let s = Server::start().await;
    let body = format!(r#"{{"redirect_uris":["{CB}"]}}"#);
    let mut statuses = Vec::new();
    for _ in 0..25 {
        let reply = s
            .send(
                "POST",
                "/oauth/register",
                "Content-Type: application/json\r\n",
                &body,
            )
            .await;
        statuses.push(status(&reply));
    }
    assert_eq!(
        statuses.iter().filter(|s| **s == 201).count(),
        20,
        "{statuses:?}"
    );
    assert_eq!(statuses.last(), Some(&429));
    s.http.stop().await;
}
