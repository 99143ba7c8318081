//! `GET /v1/conversations` counts the messages stored now: once every
//! message of a conversation is forgotten, its count is 0, and forgetting
//! one of two leaves 1.

use axum::body::Body;
use axum::http::StatusCode;

use crate::rest::Client;
use crate::{keyed_state, make_key};

const TWO: &str = concat!(
    r#"{"conversation": "trip", "session": "s1", "speaker": "Ana", "text": "I booked the flight to Lisbon for the conference.", "at": "2024-05-08T10:00:00Z"}"#,
    "\n",
    r#"{"conversation": "trip", "session": "s1", "speaker": "Ben", "text": "Which hotel did you pick near the venue?", "at": "2024-05-08T10:01:00Z"}"#,
    "\n",
);

async fn message_ids(c: &Client) -> Vec<String> {
    let tree = c.get("/v1/conversations/trip").await;
    assert_eq!(tree.status, StatusCode::OK, "{}", tree.body);
    tree.body["topic_list"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["messages"].as_array().unwrap())
        .map(|m| m["id"].as_str().unwrap().to_string())
        .collect()
}

async fn listed_count(c: &Client) -> serde_json::Value {
    let list = c.get("/v1/conversations").await;
    assert_eq!(list.status, StatusCode::OK, "{}", list.body);
    assert_eq!(list.body[0]["id"], "trip", "{}", list.body);
    list.body[0]["messages"].clone()
}

#[tokio::test]
async fn forgotten_messages_leave_the_conversation_count() {
    let state = keyed_state();
    let cairn = state.cairn.clone();
    let c = Client::new(state, None).with_key(&make_key(&cairn, "alice", "write"));
    let r = c.raw("POST", "/v1/conversations", Body::from(TWO)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(listed_count(&c).await, 2);

    let ids = message_ids(&c).await;
    assert_eq!(ids.len(), 2);
    let r = c
        .call("DELETE", &format!("/v1/memories/{}", ids[0]), None)
        .await;
    assert!(r.status.is_success(), "{} {}", r.status, r.body);
    assert_eq!(listed_count(&c).await, 1);

    let r = c
        .call("DELETE", &format!("/v1/memories/{}", ids[1]), None)
        .await;
    assert!(r.status.is_success(), "{} {}", r.status, r.body);
    assert_eq!(listed_count(&c).await, 0, "every message was forgotten");
}
