//! The REST API in-process: every route, its errors, keys and roles, and
//! tenant isolation.

use axum::body::Body;
use axum::http::{HeaderMap, Request, StatusCode};
use cairn_server::{router, AppState};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

use crate::{keyed_state, make_key, state};

/// Requests to one application, with one key (or none).
#[derive(Clone)]
pub(crate) struct Client {
    app: axum::Router,
    key: Option<String>,
    tenant: Option<String>,
}

pub(crate) struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Value,
}

impl Client {
    pub(crate) fn new(state: AppState, key: Option<String>) -> Client {
        Client {
            app: router(state, CancellationToken::new()),
            key,
            tenant: None,
        }
    }

    pub(crate) fn with_key(&self, key: &str) -> Client {
        Client {
            key: Some(key.to_string()),
            ..self.clone()
        }
    }

    pub(crate) fn naming_tenant(&self, tenant: &str) -> Client {
        Client {
            tenant: Some(tenant.to_string()),
            ..self.clone()
        }
    }

    pub(crate) async fn raw(&self, method: &str, uri: &str, body: Body) -> Reply {
        let (status, headers, text) = self.text(method, uri, body).await;
        let body = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{method} {uri}: {status} not JSON ({e}): {text:?}"));
        Reply {
            status,
            headers,
            body,
        }
    }

    /// A request whose answer is text (JSON Lines, say).
    pub(crate) async fn text(
        &self,
        method: &str,
        uri: &str,
        body: Body,
    ) -> (StatusCode, HeaderMap, String) {
        let mut req = Request::builder().method(method).uri(uri);
        if let Some(k) = &self.key {
            req = req.header("authorization", format!("Bearer {k}"));
        }
        if let Some(t) = &self.tenant {
            req = req.header("x-cairn-tenant", t);
        }
        let response = self
            .app
            .clone()
            .oneshot(req.body(body).unwrap())
            .await
            .unwrap();
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = http_body_util::BodyExt::collect(response.into_body())
            .await
            .unwrap()
            .to_bytes();
        (status, headers, String::from_utf8(bytes.to_vec()).unwrap())
    }

    pub(crate) async fn call(&self, method: &str, uri: &str, body: Option<Value>) -> Reply {
        let body = body.map_or(Body::empty(), |b| Body::from(b.to_string()));
        self.raw(method, uri, body).await
    }

    pub(crate) async fn get(&self, uri: &str) -> Reply {
        self.call("GET", uri, None).await
    }

    pub(crate) async fn post(&self, uri: &str, body: Value) -> Reply {
        self.call("POST", uri, Some(body)).await
    }

    /// `GET /v1/export`'s JSON Lines.
    async fn export(&self) -> String {
        let (status, headers, text) = self.text("GET", "/v1/export", Body::empty()).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(headers["content-type"], "application/x-ndjson");
        text
    }

    async fn remember(&self, content: &str, project: &str) -> String {
        let r = self
            .post(
                "/v1/memories",
                json!({"content": content, "project": project, "type": "fact"}),
            )
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
        r.body["id"].as_str().unwrap().to_string()
    }
}

/// The one error shape, with its code.
pub(crate) fn assert_error(r: &Reply, status: StatusCode, code: &str) {
    assert_eq!(r.status, status, "{}", r.body);
    assert_eq!(r.body["error"]["code"], code, "{}", r.body);
    assert!(r.body["error"]["message"]
        .as_str()
        .is_some_and(|m| !m.is_empty()));
    assert!(r.body["error"].get("details").is_some(), "{}", r.body);
}

#[tokio::test]
async fn memories_round_trip_with_what_happened_and_why() {
    let c = Client::new(state(), None);
    let r = c
        .post(
            "/v1/memories",
            json!({"content": "atlas staging database runs on a Hetzner box", "project": "atlas",
                   "type": "fact", "tags": ["infra"], "importance": 0.8}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert_eq!(r.body["status"], "created");
    let id = r.body["id"].as_str().unwrap().to_string();
    assert_eq!(r.headers["location"], format!("/v1/memories/{id}").as_str());

    // The same text again merges into it: 200, and the answer says why.
    let r = c
        .post(
            "/v1/memories",
            json!({"content": "atlas staging database runs on a Hetzner box", "project": "atlas", "type": "fact"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body["status"], "deduplicated");
    assert_eq!(r.body["id"], id.as_str());
    assert!(
        r.body["dedup"]["similarity"].as_f64().unwrap()
            >= r.body["dedup"]["threshold"].as_f64().unwrap()
    );

    // Supersede: the answer names the memory replaced.
    let r = c
        .post(
            "/v1/memories",
            json!({"content": "atlas staging moved to AWS in eu-west-1", "supersedes": &id[..24]}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert_eq!(r.body["superseded"], id.as_str());
    assert_eq!(r.body["project"], "atlas", "inherits the project");
    let newer = r.body["id"].as_str().unwrap().to_string();

    // Get by prefix, patch, list, recall, context, stats.
    let r = c.get(&format!("/v1/memories/{}", &newer[..24])).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body["id"], newer.as_str());
    let r = c
        .call(
            "PATCH",
            &format!("/v1/memories/{newer}"),
            Some(json!({"add_tags": ["cloud"], "importance": 0.9})),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert!(
        r.body["memory"]["tags"].to_string().contains("cloud"),
        "{}",
        r.body
    );
    let r = c
        .get("/v1/memories?project=atlas&include_superseded=true&limit=1&sort=id")
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body["total"], 2);
    let cursor = r.body["next_cursor"]
        .as_str()
        .expect("a next page")
        .to_string();
    let r = c
        .get(&format!(
            "/v1/memories?project=atlas&include_superseded=true&limit=1&sort=id&cursor={cursor}"
        ))
        .await;
    assert_eq!(r.body["memories"].as_array().unwrap().len(), 1);
    assert!(r.body.get("next_cursor").is_none(), "{}", r.body);
    let r = c
        .post(
            "/v1/recall",
            json!({"query": "where is atlas staging?", "project": "atlas", "explain": true}),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body["results"][0]["id"], newer.as_str(), "{}", r.body);
    assert!(r.body["results"][0]["explain"].is_object());
    let r = c
        .post("/v1/context", json!({"project": "atlas", "budget": 500}))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert!(r.body.to_string().contains("eu-west-1"), "{}", r.body);
    let r = c.get("/v1/stats").await;
    assert_eq!(r.body["total"], 2, "{}", r.body);

    // Bulk forget: a dry run unless confirmed.
    let r = c.call("DELETE", "/v1/memories?project=atlas", None).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body["would_forget"], 2);
    assert_eq!(
        c.get("/v1/stats").await.body["total"],
        2,
        "a dry run deletes nothing"
    );
    let r = c
        .call("DELETE", &format!("/v1/memories/{newer}"), None)
        .await;
    assert_eq!(r.body["forgotten"], 1, "{}", r.body);
    let r = c
        .call("DELETE", "/v1/memories?project=atlas&confirm=true", None)
        .await;
    assert_eq!(r.body["forgotten"], 1, "{}", r.body);
    assert_error(
        &c.get(&format!("/v1/memories/{id}")).await,
        StatusCode::NOT_FOUND,
        "not_found",
    );
}

#[tokio::test]
async fn bad_requests_get_one_error_shape_naming_the_problem() {
    let c = Client::new(state(), None);
    let r = c.raw("POST", "/v1/memories", Body::from("{not json")).await;
    assert_error(&r, StatusCode::BAD_REQUEST, "malformed_json");
    let r = c
        .post("/v1/memories", json!({"content": "x", "tpye": "fact"}))
        .await;
    assert_error(&r, StatusCode::UNPROCESSABLE_ENTITY, "invalid_body");
    assert!(r.body["error"]["message"]
        .as_str()
        .unwrap()
        .contains("`tpye`"));
    let r = c
        .post(
            "/v1/memories",
            json!({"content": "x", "importance": "high"}),
        )
        .await;
    assert_error(&r, StatusCode::UNPROCESSABLE_ENTITY, "invalid_body");
    let r = c.post("/v1/memories", json!(["a list"])).await;
    assert_error(&r, StatusCode::UNPROCESSABLE_ENTITY, "invalid_body");
    let r = c
        .post("/v1/memories", json!({"content": "x", "type": "feeling"}))
        .await;
    assert_error(&r, StatusCode::UNPROCESSABLE_ENTITY, "invalid_input");
    let r = c.post("/v1/memories", json!({"content": "   "})).await;
    assert_error(&r, StatusCode::UNPROCESSABLE_ENTITY, "invalid_input");
    let r = c.get("/v1/memories?limt=5").await;
    assert_error(&r, StatusCode::BAD_REQUEST, "invalid_query");
    let r = c.get("/v1/memories?limit=5000").await;
    assert_error(&r, StatusCode::UNPROCESSABLE_ENTITY, "invalid_input");
    let r = c.get("/v1/stats?verbose=1").await;
    assert_error(&r, StatusCode::BAD_REQUEST, "invalid_query");
    let r = c.get("/v1/nowhere").await;
    assert_error(&r, StatusCode::NOT_FOUND, "no_route");
    let r = c.call("PUT", "/v1/recall", None).await;
    assert_error(&r, StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed");
    let r = c.call("DELETE", "/v1/memories", None).await;
    assert_error(&r, StatusCode::UNPROCESSABLE_ENTITY, "invalid_input");
    let big = "x".repeat(cairn_server::app::MAX_REST_BODY + 1);
    let r = c
        .raw(
            "POST",
            "/v1/memories",
            Body::from(json!({ "content": big }).to_string()),
        )
        .await;
    assert_error(&r, StatusCode::PAYLOAD_TOO_LARGE, "body_too_large");
    let r = c.get("/v1/memories/0000").await;
    assert_error(&r, StatusCode::NOT_FOUND, "not_found");
    assert_eq!(
        c.get("/v1/stats").await.body["total"],
        0,
        "nothing was written"
    );
}

#[tokio::test]
async fn keys_roles_and_revocation() {
    let state = keyed_state();
    let cairn = state.cairn.clone();
    let anonymous = Client::new(state, None);
    let r = anonymous.get("/v1/stats").await;
    assert_error(&r, StatusCode::UNAUTHORIZED, "unauthenticated");
    assert!(r.headers["www-authenticate"]
        .to_str()
        .unwrap()
        .starts_with("Bearer"));
    let r = anonymous
        .with_key("cairn_000000000000_00")
        .get("/v1/stats")
        .await;
    assert_error(&r, StatusCode::UNAUTHORIZED, "unauthenticated");
    let made = make_key(&cairn, "alice", "read");
    let forged = format!("{}{}", &made[..made.len() - 4], "0000");
    let r = anonymous.with_key(&forged).get("/v1/stats").await;
    assert_error(&r, StatusCode::UNAUTHORIZED, "unauthenticated");
    assert_eq!(
        anonymous.get("/healthz").await.status,
        StatusCode::OK,
        "health is open"
    );

    let reader = anonymous.with_key(&made);
    assert_eq!(reader.get("/v1/stats").await.status, StatusCode::OK);
    assert_eq!(
        reader
            .post("/v1/recall", json!({"query": "x"}))
            .await
            .status,
        StatusCode::OK
    );
    let r = reader
        .post("/v1/memories", json!({"content": "a read key writes"}))
        .await;
    assert_error(&r, StatusCode::FORBIDDEN, "forbidden");
    assert_error(
        &reader.get("/v1/keys").await,
        StatusCode::FORBIDDEN,
        "forbidden",
    );

    // An admin manages keys over REST; a revoked key stops at once.
    let admin = anonymous.with_key(&make_key(&cairn, "ops", "admin"));
    let r = admin
        .post(
            "/v1/keys",
            json!({"tenant": "bob", "role": "write", "label": "ci"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let bob = anonymous.with_key(r.body["key"].as_str().unwrap());
    let bob_id = r.body["id"].as_str().unwrap().to_string();
    bob.remember("bob's first memory", "p").await;
    let r = admin.get("/v1/keys?tenant=bob").await;
    assert_eq!(r.body.as_array().unwrap().len(), 1);
    assert!(
        !r.body.to_string().contains(bob.key.as_deref().unwrap()),
        "no secrets listed"
    );
    let r = admin
        .call("DELETE", &format!("/v1/keys/{bob_id}"), None)
        .await;
    assert_eq!(r.body["status"], "revoked", "{}", r.body);
    assert_error(
        &bob.get("/v1/stats").await,
        StatusCode::UNAUTHORIZED,
        "unauthenticated",
    );
    let r = admin.call("DELETE", "/v1/keys/0123456789ab", None).await;
    assert_error(&r, StatusCode::NOT_FOUND, "not_found");
}

#[tokio::test]
async fn a_key_sees_only_its_tenant() {
    let state = keyed_state();
    let cairn = state.cairn.clone();
    let base = Client::new(state, None);
    let alice = base.with_key(&make_key(&cairn, "alice", "write"));
    let bob = base.with_key(&make_key(&cairn, "bob", "write"));
    let text = "the staging database password rotates every Monday";
    let a1 = alice.remember(text, "shared").await;
    let a2 = alice.remember("alice deploys on Fridays", "shared").await;
    let b1 = bob.remember(text, "shared").await;
    assert_ne!(a1, b1, "the same text in two tenants is two memories");

    for id in [&a1, &a2] {
        for uri in [
            format!("/v1/memories/{id}"),
            format!("/v1/memories/{}", &id[..8]),
        ] {
            let r = bob.get(&uri).await;
            // A prefix shared by both tenants resolves to bob's own memory.
            if r.status == StatusCode::OK {
                assert_eq!(r.body["id"], b1.as_str(), "{uri}");
            } else {
                assert_error(&r, StatusCode::NOT_FOUND, "not_found");
            }
        }
        let r = bob
            .call(
                "PATCH",
                &format!("/v1/memories/{id}"),
                Some(json!({"importance": 0.1})),
            )
            .await;
        assert_error(&r, StatusCode::NOT_FOUND, "not_found");
        assert!(!r.body.to_string().contains("alice"), "{}", r.body);
        let r = bob
            .call("DELETE", &format!("/v1/memories/{id}"), None)
            .await;
        assert_error(&r, StatusCode::NOT_FOUND, "not_found");
        let r = bob
            .post("/v1/memories", json!({"content": "x", "supersedes": id}))
            .await;
        assert_error(&r, StatusCode::NOT_FOUND, "not_found");
        let r = bob.get(&format!("/v1/memories/{id}/history")).await;
        assert_error(&r, StatusCode::NOT_FOUND, "not_found");
        let r = bob
            .post(&format!("/v1/memories/{id}/revert"), json!({"version": 1}))
            .await;
        assert_error(&r, StatusCode::NOT_FOUND, "not_found");
    }
    let r = bob
        .get("/v1/memories?all_projects=true&include_superseded=true&include_expired=true")
        .await;
    assert_eq!(r.body["total"], 1, "{}", r.body);
    assert_eq!(bob.get("/v1/stats").await.body["total"], 1);
    let r = bob
        .post(
            "/v1/recall",
            json!({"query": "alice deploys Fridays staging", "all_projects": true}),
        )
        .await;
    let ids: Vec<&str> = r.body["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, vec![b1.as_str()], "{}", r.body);
    let r = bob
        .post(
            "/v1/context",
            json!({"topic": "deploys", "project": "shared"}),
        )
        .await;
    assert!(!r.body.to_string().contains("Fridays"), "{}", r.body);
    let r = bob
        .call("DELETE", "/v1/memories?all_projects=true", None)
        .await;
    assert_eq!(r.body["would_forget"], 1, "{}", r.body);
    let r = bob
        .call(
            "DELETE",
            "/v1/memories?all_projects=true&confirm=true",
            None,
        )
        .await;
    assert_eq!(r.body["forgotten"], 1);
    assert_eq!(
        alice.get("/v1/stats").await.body["total"],
        2,
        "alice's memories untouched"
    );
    // Bob's deletion receipt is bob's alone.
    let r = bob.get(&format!("/v1/memories/{b1}/history")).await;
    assert_eq!(r.body["deleted"]["id"], b1.as_str(), "{}", r.body);
    let r = alice.get(&format!("/v1/memories/{b1}/history")).await;
    assert_error(&r, StatusCode::NOT_FOUND, "not_found");
    assert!(!alice.export().await.contains(&b1));
    assert!(bob.export().await.contains(&b1), "bob's receipt");

    // Only an admin may name another tenant.
    let r = bob.naming_tenant("alice").get("/v1/stats").await;
    assert_error(&r, StatusCode::FORBIDDEN, "forbidden");
    assert_eq!(
        bob.naming_tenant("bob").get("/v1/stats").await.status,
        StatusCode::OK
    );
    let admin = base.with_key(&make_key(&cairn, "ops", "admin"));
    assert_eq!(
        admin.get("/v1/stats").await.body["total"],
        0,
        "an admin's own tenant"
    );
    assert_eq!(
        admin.naming_tenant("alice").get("/v1/stats").await.body["total"],
        2
    );
}

#[tokio::test]
async fn a_key_over_its_rate_is_told_when_to_retry() {
    let state = keyed_state();
    let cairn = state.cairn.clone();
    let alice_key = make_key(&cairn, "alice", "write");
    let bob_key = make_key(&cairn, "bob", "write");
    let ci_key = make_key(&cairn, "ci", "write");
    let ci_rates = cairn_server::RateLimits {
        writes: 5,
        recalls: 0,
        reads: 100,
    };
    // The key text is `cairn_<id>_<secret>`; rates of its own go by id.
    let ci_id = ci_key.split('_').nth(1).unwrap().to_string();
    let state = state.with_rate_limits(
        cairn_server::RateLimits {
            writes: 2,
            recalls: 0,
            reads: 100,
        },
        std::collections::HashMap::from([(ci_id, ci_rates)]),
    );
    let base = Client::new(state, None);
    let alice = base.with_key(&alice_key);
    let bob = base.with_key(&bob_key);
    let ci = base.with_key(&ci_key);
    let r = alice
        .post("/v1/memories", json!({"content": "first"}))
        .await;
    assert_eq!(r.headers["ratelimit-limit"], "2");
    assert_eq!(r.headers["ratelimit-remaining"], "1");
    alice
        .post("/v1/memories", json!({"content": "second"}))
        .await;
    let r = alice
        .post("/v1/memories", json!({"content": "third"}))
        .await;
    assert_error(&r, StatusCode::TOO_MANY_REQUESTS, "rate_limited");
    assert_eq!(r.headers["retry-after"], "30");
    assert_eq!(r.headers["ratelimit-remaining"], "0");
    assert_eq!(
        alice.get("/v1/stats").await.body["total"],
        2,
        "the refused write did not happen"
    );
    for _ in 0..5 {
        let r = alice.post("/v1/recall", json!({"query": "first"})).await;
        assert_eq!(r.status, StatusCode::OK, "recalls are unlimited here");
        assert!(r.headers.get("ratelimit-limit").is_none());
    }
    let r = bob
        .post("/v1/memories", json!({"content": "bob's own allowance"}))
        .await;
    assert_eq!(
        r.status,
        StatusCode::CREATED,
        "another key has its own bucket"
    );
    for n in 0..5 {
        let r = ci
            .post("/v1/memories", json!({"content": format!("ci write {n}")}))
            .await;
        assert_eq!(
            r.status,
            StatusCode::CREATED,
            "write {n} within ci's own rate"
        );
        assert_eq!(r.headers["ratelimit-limit"], "5");
    }
    let r = ci
        .post("/v1/memories", json!({"content": "ci write 6"}))
        .await;
    assert_error(&r, StatusCode::TOO_MANY_REQUESTS, "rate_limited");
}

#[tokio::test]
async fn metrics_count_requests_by_route_pattern_without_content() {
    let state = keyed_state().with_rate_limits(
        cairn_server::RateLimits {
            writes: 1,
            recalls: 0,
            reads: 0,
        },
        Default::default(),
    );
    let cairn = state.cairn.clone();
    let base = Client::new(state, None);
    let alice = base.with_key(&make_key(&cairn, "alice", "write"));
    let id = alice
        .remember("the secret launch date is in March", "p")
        .await;
    alice
        .post("/v1/memories", json!({"content": "over the limit"}))
        .await;
    alice.get(&format!("/v1/memories/{id}")).await;
    base.get("/v1/stats").await;
    let response = base
        .app
        .clone()
        .oneshot(Request::get("/metrics").body(Body::empty()).unwrap())
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK, "metrics are open");
    let bytes = http_body_util::BodyExt::collect(response.into_body())
        .await
        .unwrap()
        .to_bytes();
    let text = String::from_utf8(bytes.to_vec()).unwrap();
    for line in [
        r#"cairn_http_requests_total{route="/v1/memories",method="POST",status="201"} 1"#,
        r#"cairn_http_requests_total{route="/v1/memories",method="POST",status="429"} 1"#,
        r#"cairn_http_requests_total{route="/v1/memories/{id}",method="GET",status="200"} 1"#,
        r#"cairn_http_requests_total{route="/v1/stats",method="GET",status="401"} 1"#,
        r#"cairn_rate_limited_total{class="write"} 1"#,
        r#"cairn_memories{tenant="alice"} 1"#,
    ] {
        assert!(text.contains(line), "no {line} in\n{text}");
    }
    assert!(
        !text.contains(&id) && !text.contains("March"),
        "no ids or content: {text}"
    );
}

#[tokio::test]
async fn import_and_export_stream_json_lines_within_the_tenant() {
    let state = keyed_state();
    let cairn = state.cairn.clone();
    let base = Client::new(state, None);
    let alice = base.with_key(&make_key(&cairn, "alice", "write"));
    let bob = base.with_key(&make_key(&cairn, "bob", "write"));
    let text = concat!(
        r#"{"content": "imported over REST", "type": "fact", "project": "atlas"}"#,
        "\n",
        "{not a record\n",
        "\n",
        r#"{"content": "the second good line"}"#,
        "\n"
    );
    let r = alice.raw("POST", "/v1/import", Body::from(text)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body["imported"], 2, "{}", r.body);
    assert_eq!(
        r.body["errors"][0][0], 2,
        "the bad line's number: {}",
        r.body
    );
    let r = alice
        .raw("POST", "/v1/import?strict=true", Body::from(text))
        .await;
    assert_error(&r, StatusCode::UNPROCESSABLE_ENTITY, "invalid_input");
    assert_eq!(
        alice.get("/v1/stats").await.body["total"],
        2,
        "strict wrote nothing"
    );

    let lines = alice.export().await;
    assert_eq!(lines.lines().count(), 2, "{lines}");
    assert!(lines.contains("imported over REST"));
    assert_eq!(bob.export().await, "", "bob exports nothing of alice's");

    // Bob importing alice's export gets copies in his own tenant; alice's
    // memories are neither touched nor revealed.
    let r = bob
        .raw("POST", "/v1/import", Body::from(lines.clone()))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(bob.get("/v1/stats").await.body["total"], 2, "{}", r.body);
    assert_eq!(alice.get("/v1/stats").await.body["total"], 2);
    let again = bob.raw("POST", "/v1/import", Body::from(lines)).await;
    assert_eq!(again.body["skipped_existing"], 2, "{}", again.body);
}

/// JSON Lines of `n` memories, "`label` memory 0", "`label` memory 1", …
fn memory_lines(label: &str, n: usize) -> String {
    (0..n)
        .map(|i| format!("{{\"content\": \"{label} memory {i}\"}}\n"))
        .collect()
}

#[tokio::test]
async fn an_import_reports_progress_and_is_cut_off_past_its_limit_or_when_it_stalls() {
    use futures_util::StreamExt as _;
    let limits = cairn_server::CapacityLimits {
        request_timeout: std::time::Duration::from_millis(300),
        max_import_bytes: 64 << 10,
        ..Default::default()
    };
    let c = Client::new(state().with_capacity(limits), None);

    // Progress: the body comes in two parts 1.2 s apart (the stall limit
    // is per chunk), so a progress line is sent between them.
    let first = memory_lines("early", 300);
    let second = memory_lines("late", 300);
    let parts = futures_util::stream::iter([first, second])
        .enumerate()
        .then(|(i, part)| async move {
            if i == 1 {
                for _ in 0..6 {
                    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
                }
            }
            Ok::<_, std::io::Error>(axum::body::Bytes::from(part))
        });
    let c2 = Client::new(
        state().with_capacity(cairn_server::CapacityLimits {
            request_timeout: std::time::Duration::from_secs(5),
            ..limits
        }),
        None,
    );
    let (status, headers, text) = c2
        .text("POST", "/v1/import?progress=true", Body::from_stream(parts))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers["content-type"], "application/x-ndjson");
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let (last, progress) = lines.split_last().unwrap();
    assert_eq!(last["report"]["imported"], 600, "{text}");
    assert!(!progress.is_empty(), "no progress line: {text}");
    assert!(
        progress[0]["progress"]["imported"].as_u64().unwrap() > 0,
        "{text}"
    );
    assert!(
        progress[0]["progress"]["bytes"].as_u64().unwrap() > 0,
        "{text}"
    );

    // Over the limit: 413, and what came before it stays imported.
    let big = memory_lines("bulk", 3000);
    assert!(big.len() > 64 << 10);
    let r = c.raw("POST", "/v1/import", Body::from(big)).await;
    assert_error(&r, StatusCode::PAYLOAD_TOO_LARGE, "body_too_large");
    let message = r.body["error"]["message"].as_str().unwrap();
    assert!(message.contains("65536 bytes"), "{message}");
    let stored = c.get("/v1/stats").await.body["total"].as_u64().unwrap();
    assert!(stored < 3000, "{stored}");

    // A body that stops coming: 408, also as the last line of a progress
    // stream.
    let r = c.raw("POST", "/v1/import", stalled_body()).await;
    assert_error(&r, StatusCode::REQUEST_TIMEOUT, "request_timeout");
    let (status, _, text) = c
        .text("POST", "/v1/import?progress=true", stalled_body())
        .await;
    assert_eq!(status, StatusCode::OK, "the stream had begun");
    let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(last["error"]["code"], "request_timeout", "{text}");
}

/// A body that sends its first bytes and then nothing.
fn stalled_body() -> Body {
    let first = futures_util::stream::once(async {
        Ok::<_, std::io::Error>(axum::body::Bytes::from_static(b"{\"content\": \"sl"))
    });
    Body::from_stream(futures_util::StreamExt::chain(
        first,
        futures_util::stream::pending(),
    ))
}

#[tokio::test]
async fn a_stalled_client_lets_go_and_a_full_server_says_so() {
    let state = state().with_capacity(cairn_server::CapacityLimits {
        request_timeout: std::time::Duration::from_millis(500),
        max_concurrent: 1,
        queue_wait: std::time::Duration::from_millis(100),
        ..Default::default()
    });
    let c = Client::new(state, None);
    let r = c.raw("POST", "/v1/memories", stalled_body()).await;
    assert_error(&r, StatusCode::REQUEST_TIMEOUT, "request_timeout");

    // One stalled request holds the only permit; the next one waits, then
    // is told to come back.
    let holder = {
        let c = c.clone();
        tokio::spawn(async move { c.raw("POST", "/v1/memories", stalled_body()).await })
    };
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    assert!(!holder.is_finished(), "the holder waits for its body");
    let r = c.get("/v1/stats").await;
    assert_error(&r, StatusCode::SERVICE_UNAVAILABLE, "overloaded");
    assert_eq!(r.headers["retry-after"], "1");
    assert_eq!(holder.await.unwrap().status, StatusCode::REQUEST_TIMEOUT);
    assert_eq!(
        c.get("/v1/stats").await.status,
        StatusCode::OK,
        "free again"
    );
}

#[tokio::test]
async fn history_names_the_key_and_revert_restores_a_version() {
    let state = keyed_state();
    let cairn = state.cairn.clone();
    let base = Client::new(state, None);
    let writer_key = make_key(&cairn, "alice", "write");
    let key_id = writer_key.split('_').nth(1).unwrap().to_string();
    let alice = base.with_key(&writer_key);
    let reader = base.with_key(&make_key(&cairn, "alice", "read"));
    let id = alice
        .remember("the release train leaves on Thursdays", "ops")
        .await;
    let r = alice
        .call(
            "PATCH",
            &format!("/v1/memories/{id}"),
            Some(json!({"content": "the release train leaves on Wednesdays", "add_tags": ["release"]})),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);

    let r = reader
        .get(&format!("/v1/memories/{}/history", &id[..13]))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let versions = r.body["versions"].as_array().unwrap();
    assert_eq!(versions.len(), 2);
    assert_eq!(versions[0]["change"], "created");
    assert_eq!(versions[0]["actor"], key_id.as_str());
    assert_eq!(versions[1]["change"], "updated");
    assert_eq!(versions[1]["reason"], "content, tags");
    assert_eq!(
        versions[0]["memory"]["content"],
        "the release train leaves on Thursdays"
    );
    assert!(r.body["deleted"].is_null());

    // A read key may look but not revert.
    let r = reader
        .post(&format!("/v1/memories/{id}/revert"), json!({"version": 1}))
        .await;
    assert_error(&r, StatusCode::FORBIDDEN, "forbidden");
    for (body, code) in [
        (json!({"version": 7}), "invalid_input"),
        (json!({"version": 1, "why": "x"}), "invalid_body"),
        (json!({}), "invalid_body"),
    ] {
        let r = alice.post(&format!("/v1/memories/{id}/revert"), body).await;
        assert_error(&r, StatusCode::UNPROCESSABLE_ENTITY, code);
    }
    let r = alice
        .post(&format!("/v1/memories/{id}/revert"), json!({"version": 1}))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(
        (r.body["restored"].as_u64(), r.body["version"].as_u64()),
        (Some(1), Some(3))
    );
    assert_eq!(
        r.body["memory"]["content"],
        "the release train leaves on Thursdays"
    );
    assert_eq!(r.body["memory"]["tags"], json!([]));

    // Forgetting leaves a receipt naming the key, and the export carries it.
    let r = alice
        .call("DELETE", &format!("/v1/memories/{id}"), None)
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let r = reader.get(&format!("/v1/memories/{id}/history")).await;
    assert_eq!(r.body["versions"], json!([]), "{}", r.body);
    assert_eq!(r.body["deleted"]["actor"], key_id.as_str());
    assert_eq!(r.body["deleted"]["versions"], 3);
    assert_eq!(r.body["deleted"]["reason"], "forgotten");
    let lines = alice.export().await;
    let receipt: Value = serde_json::from_str(lines.lines().last().unwrap()).unwrap();
    assert_eq!(receipt["deleted"]["id"], id.as_str(), "{lines}");
    assert!(!lines.contains("release train"), "{lines}");
    // An import skips receipts: they are the history of the store exported.
    let bob = base.with_key(&make_key(&cairn, "bob", "write"));
    let r = bob.raw("POST", "/v1/import", Body::from(lines)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(
        (r.body["imported"].as_u64(), r.body["errors"].clone()),
        (Some(0), json!([]))
    );
}

#[tokio::test]
async fn a_prompt_carries_rules_first_within_its_budget() {
    let state = keyed_state();
    let cairn = state.cairn.clone();
    let base = Client::new(state, None);
    let alice = base.with_key(&make_key(&cairn, "alice", "write"));
    let reader = base.with_key(&make_key(&cairn, "alice", "read"));
    let r = alice
        .post(
            "/v1/memories",
            json!({"content": "Always run the migrations before deploying the API", "type": "rule", "project": "atlas"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    alice
        .remember("The API deploys to the fra1 cluster", "atlas")
        .await;
    alice
        .remember("The API of billing is frozen", "billing")
        .await;

    let r = reader
        .post(
            "/v1/prompt",
            json!({"query": "deploy the API", "project": "atlas", "budget": 300}),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let text = r.body["text"].as_str().unwrap();
    assert!(
        text.starts_with("<memory>\n[Procedural] Always run the migrations"),
        "{text}"
    );
    assert!(text.contains("[Semantic] The API deploys to the fra1 cluster"));
    assert!(!text.contains("billing"), "{text}");
    assert!(r.body["total_tokens"].as_u64().unwrap() <= 300);
    assert!(r.body["budget_used"].as_f64().unwrap() > 0.0);

    let r = reader
        .post("/v1/prompt", json!({"query": "deploy", "format": "html"}))
        .await;
    assert_error(&r, StatusCode::UNPROCESSABLE_ENTITY, "invalid_input");
    let r = reader
        .post("/v1/prompt", json!({"query": "deploy", "budget": 0}))
        .await;
    assert_error(&r, StatusCode::UNPROCESSABLE_ENTITY, "invalid_input");
}

#[tokio::test]
async fn ingest_answers_a_receipt_and_a_read_key_cannot_ingest() {
    let state = keyed_state();
    let cairn = state.cairn.clone();
    let base = Client::new(state, None);
    let alice = base.with_key(&make_key(&cairn, "alice", "write"));
    let reader = base.with_key(&make_key(&cairn, "alice", "read"));
    let text = "<p>Always run the migrations before deploying the API. Write to ana@example.com first.</p>";
    let r = alice
        .post(
            "/v1/ingest",
            json!({"text": text, "project": "atlas", "dry_run": true}),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body["dry_run"], true);
    assert_eq!(alice.get("/v1/stats").await.body["total"], 0);
    let r = alice
        .post(
            "/v1/ingest",
            json!({"text": text, "project": "atlas", "threshold": 0.0}),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body["stored"], 1, "{}", r.body);
    assert_eq!(r.body["redacted"]["email"], 1, "{}", r.body);
    let chunk = &r.body["chunks"][0];
    assert_eq!(chunk["type"], "rule", "{chunk}");
    assert!(!chunk["text"].as_str().unwrap().contains('<'));
    assert_eq!(alice.get("/v1/stats").await.body["total"], 1);

    let r = reader.post("/v1/ingest", json!({"text": text})).await;
    assert_error(&r, StatusCode::FORBIDDEN, "forbidden");
    let r = alice
        .post("/v1/ingest", json!({"text": text, "threshold": 3}))
        .await;
    assert_error(&r, StatusCode::UNPROCESSABLE_ENTITY, "invalid_input");
    let r = alice.post("/v1/ingest", json!({"txt": text})).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.body);
}

#[tokio::test]
async fn slots_over_rest_within_the_tenant() {
    let state = keyed_state();
    let cairn = state.cairn.clone();
    let base = Client::new(state, None);
    let alice = base.with_key(&make_key(&cairn, "alice", "write"));
    let bob = base.with_key(&make_key(&cairn, "bob", "write"));
    let r = alice
        .post(
            "/v1/slots",
            json!({"name": "atlas-dev", "description": "Atlas development", "group": "projects/atlas", "add_tags": ["infra"]}),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let r = alice
        .post(
            "/v1/slots/atlas-dev/entries",
            json!({"text": "Decided to move the queue to NATS after the load test."}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert_eq!(r.body["entry"]["index"], 1);
    let r = alice.get("/v1/slots/atlas-dev").await;
    assert_eq!(r.body["total"], 1, "{}", r.body);
    assert_eq!(r.body["slot"]["group"], "projects/atlas");
    let (status, headers, md) = alice
        .text("GET", "/v1/slots/atlas-dev/export?format=md", Body::empty())
        .await;
    assert_eq!(status, StatusCode::OK);
    assert!(headers["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/markdown"));
    assert!(md.starts_with("# Memory Slot: atlas-dev"), "{md}");

    // Recall sees the entry until the slot is archived; naming it still does.
    let found = alice
        .post("/v1/recall", json!({"query": "NATS queue"}))
        .await;
    assert_eq!(
        found.body["results"].as_array().unwrap().len(),
        1,
        "{}",
        found.body
    );
    let r = alice
        .post("/v1/slots/atlas-dev/archive", json!({"reason": "shipped"}))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let found = alice
        .post("/v1/recall", json!({"query": "NATS queue"}))
        .await;
    assert_eq!(found.body["results"], json!([]), "{}", found.body);
    let found = alice
        .post(
            "/v1/recall",
            json!({"query": "NATS queue", "slots": ["atlas-dev"]}),
        )
        .await;
    assert_eq!(found.body["results"].as_array().unwrap().len(), 1);
    let r = alice.post("/v1/slots/atlas-dev/restore", json!({})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);

    // Slot search marks the query's words; a tag filter that admits no
    // slot is an error naming it.
    let found = alice
        .post(
            "/v1/slot-search",
            json!({"query": "queue load tests", "tags": ["infra"]}),
        )
        .await;
    assert_eq!(found.status, StatusCode::OK, "{}", found.body);
    let hit = &found.body["results"][0]["highlight"];
    assert_eq!(hit["terms"], json!(["queue", "load", "tests"]), "{hit}");
    assert_eq!(hit["spans"][0], json!([20, 25]), "{hit}");
    assert!(
        hit["snippet"]
            .as_str()
            .unwrap()
            .contains("**load** **test**"),
        "{hit}"
    );
    let none = alice
        .post(
            "/v1/slot-search",
            json!({"query": "queue", "tags": ["nope"]}),
        )
        .await;
    assert_error(&none, StatusCode::UNPROCESSABLE_ENTITY, "invalid_input");

    // Bob sees none of it.
    assert_eq!(bob.get("/v1/slots").await.body, json!([]));
    let r = bob
        .post(
            "/v1/slot-search",
            json!({"query": "NATS queue", "slots": ["atlas-dev"]}),
        )
        .await;
    assert_eq!(r.body["results"], json!([]), "{}", r.body);
    assert_error(
        &bob.get("/v1/slots/atlas-dev").await,
        StatusCode::NOT_FOUND,
        "not_found",
    );
    let r = bob.post("/v1/slots/../entries", json!({"text": "x"})).await;
    assert!(r.status.is_client_error(), "{}", r.body);
    let r = alice
        .post("/v1/slots/bad%20name/entries", json!({"text": "x"}))
        .await;
    assert_error(&r, StatusCode::UNPROCESSABLE_ENTITY, "invalid_input");
}

#[tokio::test]
async fn bulk_tags_sources_and_the_supersede_chain_within_the_tenant() {
    let state = keyed_state();
    let alice = Client::new(
        state.clone(),
        Some(make_key(&state.cairn, "alice", "write")),
    );
    let bob = alice.with_key(&make_key(&state.cairn, "bob", "write"));
    let reader = alice.with_key(&make_key(&state.cairn, "alice", "read"));
    let a = alice.remember("atlas uses MySQL", "atlas").await;
    let b = alice.remember("zeus runs on Fridays", "zeus").await;
    let theirs = bob.remember("bob's own note", "atlas").await;

    // One call tags many; another tenant's id changes nothing.
    let tag = |ids: Vec<&str>| json!({"ids": ids, "add_tags": ["Reviewed"]});
    let r = alice
        .call("PATCH", "/v1/memories", Some(tag(vec![&a, &theirs])))
        .await;
    assert_error(&r, StatusCode::NOT_FOUND, "not_found");
    let r = alice
        .call("PATCH", "/v1/memories", Some(tag(vec![&a, &b])))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(
        (&r.body["tagged"], &r.body["unchanged"]),
        (&json!(2), &json!(0))
    );
    let listed = alice
        .get("/v1/memories?all_projects=true&tags=reviewed")
        .await;
    assert_eq!(listed.body["total"], 2, "{}", listed.body);
    let r = reader
        .call("PATCH", "/v1/memories", Some(tag(vec![&a])))
        .await;
    assert_eq!(r.status, StatusCode::FORBIDDEN, "{}", r.body);
    assert!(
        bob.get(&format!("/v1/memories/{theirs}")).await.body["tags"]
            .as_array()
            .unwrap()
            .is_empty()
    );

    // Sources: REST memories are `manual`, imported ones `import`.
    let (status, _, _) = alice
        .text(
            "POST",
            "/v1/import",
            Body::from("{\"content\":\"an imported fact\",\"project\":\"atlas\"}\n"),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let imported = alice
        .get("/v1/memories?all_projects=true&sources=import")
        .await;
    assert_eq!(imported.body["total"], 1, "{}", imported.body);
    let either = alice
        .get("/v1/memories?all_projects=true&sources=import,manual")
        .await;
    assert_eq!(either.body["total"], 3, "{}", either.body);

    // The chain, both ways, from any of its memories; not across tenants.
    let c = alice
        .post(
            "/v1/memories",
            json!({"content": "atlas uses PostgreSQL", "supersedes": a}),
        )
        .await
        .body["id"]
        .as_str()
        .unwrap()
        .to_string();
    let d = alice
        .post(
            "/v1/memories",
            json!({"content": "atlas uses PostgreSQL 17", "supersedes": c}),
        )
        .await
        .body["id"]
        .as_str()
        .unwrap()
        .to_string();
    let chain = alice.get(&format!("/v1/memories/{c}/chain")).await;
    assert_eq!(chain.status, StatusCode::OK, "{}", chain.body);
    let ids: Vec<&str> = chain.body["chain"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [a.as_str(), c.as_str(), d.as_str()]);
    assert_eq!(chain.body["position"], 1);
    let only = alice
        .get("/v1/memories?all_projects=true&only_superseded=true")
        .await;
    assert_eq!(only.body["total"], 2, "{}", only.body);
    let r = bob.get(&format!("/v1/memories/{c}/chain")).await;
    assert_error(&r, StatusCode::NOT_FOUND, "not_found");
    let expiring = alice
        .get("/v1/memories?all_projects=true&sort=expiring")
        .await;
    assert_eq!(expiring.status, StatusCode::OK, "{}", expiring.body);
}
