//! `GET` / `PATCH /v1/settings`: a tenant's redaction of personal data,
//! changed by its admin key only, and no other tenant's.

use axum::http::StatusCode;
use serde_json::json;

use crate::rest::{assert_error, Client};
use crate::{keyed_state, make_key};

const NOTE: &str =
    "reach me at marcus.chen@example.com, deploy key ghp_1234567890abcdefghijABCDEFGHIJ123456";

#[tokio::test]
async fn a_tenant_that_keeps_personal_data_gets_its_email_back_and_others_do_not() {
    let state = keyed_state();
    let cairn = state.cairn.clone();
    let c = Client::new(state, None);
    let alice_admin = c.with_key(&make_key(&cairn, "alice", "admin"));
    let alice = c.with_key(&make_key(&cairn, "alice", "write"));
    let bob = c.with_key(&make_key(&cairn, "bob", "write"));

    let r = alice.get("/v1/settings").await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(
        r.body,
        json!({"tenant": "alice", "redact_personal": true, "conflicts": "flag", "conflicts_set": false})
    );
    let refused = alice
        .call(
            "PATCH",
            "/v1/settings",
            Some(json!({"redact_personal": false})),
        )
        .await;
    assert_error(&refused, StatusCode::FORBIDDEN, "forbidden");
    let r = alice_admin
        .call(
            "PATCH",
            "/v1/settings",
            Some(json!({"redact_personal": false})),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body["redact_personal"], false);
    let bad = alice_admin
        .call(
            "PATCH",
            "/v1/settings",
            Some(json!({"redact_email": false})),
        )
        .await;
    assert_error(&bad, StatusCode::UNPROCESSABLE_ENTITY, "invalid_body");

    let kept = alice.post("/v1/memories", json!({"content": NOTE})).await;
    assert_eq!(kept.status, StatusCode::CREATED, "{}", kept.body);
    assert_eq!(kept.body["redacted"], json!({"github_token": 1}));
    let id = kept.body["id"].as_str().unwrap();
    let got = alice.get(&format!("/v1/memories/{id}")).await;
    let content = got.body["content"].as_str().unwrap().to_string();
    assert!(
        content.contains("reach me at marcus.chen@example.com"),
        "{content}"
    );
    assert!(content.contains("[REDACTED:github_token]"), "{content}");

    let other = bob.post("/v1/memories", json!({"content": NOTE})).await;
    assert_eq!(
        other.body["redacted"],
        json!({"email": 1, "github_token": 1}),
        "bob's tenant keeps the default"
    );
    assert_eq!(bob.get("/v1/settings").await.body["redact_personal"], true);
}
