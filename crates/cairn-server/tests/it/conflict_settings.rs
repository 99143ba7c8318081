//! `PATCH /v1/settings` with `conflicts`: a tenant's conflict policy,
//! which its writes follow unless a request names its own, and no other
//! tenant's.

use axum::http::StatusCode;
use serde_json::json;

use crate::rest::{assert_error, Client};
use crate::{keyed_state, make_key};

const OLD: &str = "Dana is the lead of atlas";
const NEW: &str = "Leadership changed. Sam is now the lead of atlas";

#[tokio::test]
async fn a_tenant_policy_applies_to_its_writes_below_the_request_and_nowhere_else() {
    let state = keyed_state();
    let cairn = state.cairn.clone();
    let c = Client::new(state, None);
    let alice_admin = c.with_key(&make_key(&cairn, "alice", "admin"));
    let alice = c.with_key(&make_key(&cairn, "alice", "write"));
    let bob = c.with_key(&make_key(&cairn, "bob", "write"));

    let set = |policy: &'static str| {
        let admin = alice_admin.clone();
        async move {
            admin
                .call(
                    "PATCH",
                    "/v1/settings",
                    Some(json!({ "conflicts": policy })),
                )
                .await
        }
    };
    let r = set("prefer-newer").await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(
        (&r.body["conflicts"], &r.body["conflicts_set"]),
        (&json!("prefer-newer"), &json!(true))
    );
    let bad = set("merge").await;
    assert_error(&bad, StatusCode::UNPROCESSABLE_ENTITY, "invalid_input");
    assert_eq!(
        alice.get("/v1/settings").await.body["conflicts"],
        "prefer-newer"
    );
    assert_eq!(bob.get("/v1/settings").await.body["conflicts"], "flag");

    let write = |client: &Client, body: serde_json::Value| {
        let client = client.clone();
        async move {
            let r = client.post("/v1/memories", body).await;
            assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
            r.body
        }
    };
    for who in [&alice, &bob] {
        write(who, json!({ "content": OLD })).await;
    }
    let a = write(&alice, json!({ "content": NEW })).await;
    assert_eq!(a["conflicts"][0]["action"], "contested", "{a}");
    let b = write(&bob, json!({ "content": NEW })).await;
    assert_eq!(b["conflicts"][0]["action"], "flagged", "{b}");
    let given = write(
        &alice,
        json!({ "content": "Leadership changed again. Kim is now the lead of atlas", "conflicts": "supersede" }),
    )
    .await;
    assert_eq!(given["conflicts"][0]["action"], "superseded", "{given}");

    let r = set("default").await;
    assert_eq!(
        (&r.body["conflicts"], &r.body["conflicts_set"]),
        (&json!("flag"), &json!(false))
    );
}
