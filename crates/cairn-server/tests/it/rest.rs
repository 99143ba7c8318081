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
    pub(crate) app: axum::Router,
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
    pub(crate) async fn export(&self) -> String {
        let (status, headers, text) = self.text("GET", "/v1/export", Body::empty()).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(headers["content-type"], "application/x-ndjson");
        text
    }

    pub(crate) async fn remember(&self, content: &str, project: &str) -> String {
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
            json!({"query": "alice deploys Fridays staging", "all_projects": true, "min_relevance": 0}),
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
