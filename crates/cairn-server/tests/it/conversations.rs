//! `/v1/conversations`, `/v1/messages` and `/v1/sessions` in-process:
//! transcripts in, the hierarchy out, token totals, the window and working
//! memory, bad input, and tenants kept apart.

use axum::body::Body;
use axum::http::StatusCode;
use serde_json::json;

use crate::rest::{assert_error, Client};
use crate::{keyed_state, make_key};

/// A transcript of two sessions of one conversation.
const TRANSCRIPT: &str = concat!(
    r#"{"conversation": "trip", "session": "s1", "speaker": "Ana", "text": "I booked the flight to Lisbon for the conference.", "at": "2024-05-08T10:00:00Z"}"#,
    "\n",
    r#"{"conversation": "trip", "session": "s1", "speaker": "Ben", "text": "Great, which hotel did you pick near the venue?", "at": "2024-05-08T10:01:00Z"}"#,
    "\n",
    "{not a message\n",
    r#"{"conversation": "trip", "session": "s2", "role": "user", "text": "Remember that the talk slot is on Thursday at 14:00.", "at": "2024-05-09T09:00:00Z"}"#,
    "\n"
);

fn clients() -> (Client, Client) {
    let state = keyed_state();
    let cairn = state.cairn.clone();
    let base = Client::new(state, None);
    (
        base.with_key(&make_key(&cairn, "alice", "write")),
        base.with_key(&make_key(&cairn, "bob", "write")),
    )
}

#[tokio::test]
async fn a_transcript_imported_is_listed_shown_and_counted() {
    let (alice, _) = clients();
    let r = alice
        .raw("POST", "/v1/conversations", Body::from(TRANSCRIPT))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body["imported"], 3, "{}", r.body);
    assert_eq!(r.body["conversations"], json!(["trip"]));
    assert_eq!(r.body["errors"][0][0], 3, "the bad line: {}", r.body);

    // A strict import of a body with a bad line writes nothing.
    let r = alice
        .raw(
            "POST",
            "/v1/conversations?strict=true",
            Body::from(TRANSCRIPT),
        )
        .await;
    assert_error(&r, StatusCode::UNPROCESSABLE_ENTITY, "invalid_input");

    let list = alice.get("/v1/conversations").await;
    assert_eq!(list.status, StatusCode::OK, "{}", list.body);
    assert_eq!(list.body.as_array().unwrap().len(), 1, "{}", list.body);
    assert_eq!(list.body[0]["id"], "trip");
    assert_eq!(list.body[0]["messages"], 3);

    let tree = alice.get("/v1/conversations/trip").await;
    assert_eq!(tree.status, StatusCode::OK, "{}", tree.body);
    let shown: Vec<&str> = tree.body["topic_list"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["messages"].as_array().unwrap())
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(shown.len(), 3, "{}", tree.body);
    assert!(
        shown[0].starts_with("Ana: I booked the flight"),
        "{shown:?}"
    );
    assert!(shown[2].starts_with("user: Remember"), "{shown:?}");

    let stats = alice.get("/v1/conversations/trip/stats").await;
    assert_eq!(stats.status, StatusCode::OK, "{}", stats.body);
    assert_eq!(stats.body["tokenizer"], "cl100k_base");
    let totals = stats.body["totals"].as_array().unwrap();
    assert_eq!(totals[0]["level"], "conversation");
    assert_eq!(totals[0]["messages"], 3);
    let tokens = totals[0]["tokens"].as_u64().unwrap();
    // Exact counts, not characters ÷ 4: the three messages are 12 + 11 + 14
    // words of ordinary English, about one token a word.
    assert!((30..60).contains(&tokens), "{tokens}");
    let sessions: Vec<&str> = totals
        .iter()
        .filter(|t| t["level"] == "session")
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    assert_eq!(sessions, ["s1", "s2"]);
    let o200k = alice
        .get("/v1/conversations/trip/stats?tokenizer=o200k_base")
        .await;
    assert_eq!(o200k.body["tokenizer"], "o200k_base", "{}", o200k.body);

    let r = alice
        .get("/v1/conversations/trip/stats?tokenizer=words")
        .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.body);
    assert_error(
        &alice.get("/v1/conversations/nowhere").await,
        StatusCode::NOT_FOUND,
        "not_found",
    );
    assert_error(
        &alice.get("/v1/conversations/nowhere/stats").await,
        StatusCode::NOT_FOUND,
        "not_found",
    );
}

#[tokio::test]
async fn messages_logged_are_in_the_window_and_the_working_memory() {
    let (alice, _) = clients();
    let r = alice
        .post(
            "/v1/messages",
            json!({"messages": [
                {"conversation": "chat", "session": "s9", "role": "user", "text": "Our deploy target is the fra1 cluster."},
                {"conversation": "chat", "session": "s9", "role": "assistant", "text": "Noted: deploys go to fra1."}
            ]}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let logged = r.body["logged"].as_array().unwrap();
    assert_eq!(logged.len(), 2);
    assert_eq!(logged[0]["session"], "s9");
    assert_eq!(logged[1]["conversation"], "chat");

    let w = alice
        .post(
            "/v1/sessions/s9/window",
            json!({"message": "where do we deploy?", "budget": 200}),
        )
        .await;
    assert_eq!(w.status, StatusCode::OK, "{}", w.body);
    assert!(
        w.body["total_tokens"].as_u64().unwrap() <= 200,
        "{}",
        w.body
    );
    assert!(
        w.body["text"].as_str().unwrap().contains("fra1 cluster"),
        "{}",
        w.body
    );
    let json_window = alice
        .post("/v1/sessions/s9/window", json!({"format": "json"}))
        .await;
    assert_eq!(json_window.body["format"], "json", "{}", json_window.body);
    serde_json::from_str::<serde_json::Value>(json_window.body["text"].as_str().unwrap())
        .expect("a JSON window's text is JSON");

    let working = alice.get("/v1/sessions/s9/working-memory").await;
    assert_eq!(working.status, StatusCode::OK, "{}", working.body);
    assert!(working.body["text"]
        .as_str()
        .unwrap()
        .contains("Noted: deploys go to fra1."));

    // Bad input is named, and nothing is written.
    let r = alice
        .post("/v1/sessions/s9/window", json!({"session": "other"}))
        .await;
    assert_error(&r, StatusCode::UNPROCESSABLE_ENTITY, "invalid_input");
    assert!(r.body["error"]["message"]
        .as_str()
        .unwrap()
        .contains("`other`"));
    let r = alice
        .post(
            "/v1/sessions/s9/window",
            json!({"budget": 100, "tone": "x"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.body);
    let r = alice
        .post(
            "/v1/messages",
            json!({"messages": [{"conversation": "chat", "text": "no speaker"}]}),
        )
        .await;
    assert_error(&r, StatusCode::UNPROCESSABLE_ENTITY, "invalid_input");
    let r = alice.post("/v1/messages", json!({"messages": []})).await;
    assert_error(&r, StatusCode::UNPROCESSABLE_ENTITY, "invalid_input");
    let list = alice.get("/v1/conversations").await;
    assert_eq!(list.body[0]["messages"], 2, "{}", list.body);
}

#[tokio::test]
async fn conversations_are_confined_to_their_tenant() {
    let (alice, bob) = clients();
    let r = alice
        .raw("POST", "/v1/conversations", Body::from(TRANSCRIPT))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);

    assert_eq!(bob.get("/v1/conversations").await.body, json!([]));
    assert_error(
        &bob.get("/v1/conversations/trip").await,
        StatusCode::NOT_FOUND,
        "not_found",
    );
    assert_error(
        &bob.get("/v1/conversations/trip/stats").await,
        StatusCode::NOT_FOUND,
        "not_found",
    );
    let w = bob
        .post(
            "/v1/sessions/s1/window",
            json!({"message": "Lisbon flight"}),
        )
        .await;
    assert_eq!(w.status, StatusCode::OK, "{}", w.body);
    assert!(
        !w.body["text"].as_str().unwrap().contains("Lisbon"),
        "{}",
        w.body
    );
    let recall = bob
        .post(
            "/v1/recall",
            json!({"query": "Lisbon flight", "conversation": "trip"}),
        )
        .await;
    assert_eq!(recall.body["results"], json!([]), "{}", recall.body);

    // Alice finds it in the conversation's scope, searched as `recall` does.
    let recall = alice
        .post(
            "/v1/recall",
            json!({"query": "Lisbon flight", "conversation": "trip"}),
        )
        .await;
    assert_eq!(recall.status, StatusCode::OK, "{}", recall.body);
    assert!(
        recall.body["results"][0]["content"]
            .as_str()
            .is_some_and(|c| c.contains("Lisbon")),
        "{}",
        recall.body
    );
}

#[tokio::test]
async fn a_read_key_cannot_log_or_import() {
    let state = keyed_state();
    let cairn = state.cairn.clone();
    let reader = Client::new(state, None).with_key(&make_key(&cairn, "alice", "read"));
    let r = reader
        .post(
            "/v1/messages",
            json!({"messages": [{"conversation": "c", "role": "user", "text": "hi"}]}),
        )
        .await;
    assert_error(&r, StatusCode::FORBIDDEN, "forbidden");
    let r = reader
        .raw("POST", "/v1/conversations", Body::from(TRANSCRIPT))
        .await;
    assert_error(&r, StatusCode::FORBIDDEN, "forbidden");
    assert_eq!(reader.get("/v1/conversations").await.body, json!([]));
}
