//! Ids a key names are its tenant's own: a message id or an imported
//! record's id that another tenant holds gets exactly the answers an
//! unknown id gets, on every route that takes an id (`POST /v1/messages`,
//! `POST /v1/conversations`, `POST /v1/import`) and every read after it.
//! (MCP's `observe` takes no message ids.)
//!
//! Each case runs twice on fresh stores with a fixed clock: once with
//! alice holding the ids bob names (written by the local user, who keeps
//! ids as given), once with nobody holding them. Everything bob is told
//! must be the same, byte for byte, but for his key's id.

use std::sync::Arc;

use axum::body::Body;
use axum::http::StatusCode;
use cairn_core::conformance::LexicalEmbedder;
use cairn_core::history::LOCAL_ACTOR;
use cairn_core::wire::MemoryRecord;
use cairn_core::Cairn;
use cairn_mcp::{CairnMcp, McpConfig};
use cairn_server::AppState;
use serde_json::{json, Value};

use crate::rest::Client;
use crate::{blocking, fresh_store, make_key};

/// The ids bob names: a message's, a transcript line's, an import's.
const IDS: [&str; 3] = [
    "0190a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b",
    "0190a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2c",
    "0190a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2d",
];

/// 2024-06-01T00:00:00Z in milliseconds.
const NOW: i64 = 1_717_200_000_000;

/// A fresh application at a fixed time; with `taken`, alice holds `IDS`.
/// Returns bob's client and his key's id.
fn world(taken: bool) -> (Client, String) {
    let cairn = Cairn::new(fresh_store(), Arc::new(LexicalEmbedder)).with_clock(Arc::new(|| NOW));
    if taken {
        let records = IDS.iter().enumerate().map(|(i, id)| {
            let line = json!({"id": id, "content": format!("alice's secret number {i}")});
            (
                i + 1,
                Ok(serde_json::from_value::<MemoryRecord>(line).unwrap()),
            )
        });
        let report = blocking(|| {
            cairn
                .import(
                    "alice",
                    records.collect::<Vec<_>>(),
                    true,
                    LOCAL_ACTOR,
                    &mut |_| (),
                )
                .unwrap()
        });
        assert_eq!(report.imported, 3, "{report:?}");
    }
    let key = make_key(&cairn, "bob", "write");
    let key_id = key.split('_').nth(1).unwrap().to_string();
    let state = AppState::new(CairnMcp::new(cairn, McpConfig::new("default")));
    (Client::new(state, None).with_key(&key), key_id)
}

/// Every answer bob gets for naming `IDS`, as text, his key's id blanked.
async fn what_bob_learns(taken: bool) -> Vec<String> {
    let (bob, key_id) = world(taken);
    let mut told = Vec::new();
    let mut note = |label: &str, status: StatusCode, body: &Value| {
        told.push(format!("{label}: {status} {body}").replace(&key_id, "BOB"));
    };
    let message = json!({"messages": [{
        "conversation": "chat", "session": "s1", "speaker": "bob",
        "text": "bob's message names an id", "at": "2024-05-08T10:00:00Z", "id": IDS[0],
    }]});
    let r = bob.post("/v1/messages", message.clone()).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    note("messages", r.status, &r.body);
    let logged = r.body["logged"][0]["id"].as_str().unwrap().to_string();
    let r = bob.post("/v1/messages", message).await;
    note("messages again", r.status, &r.body);

    let line = json!({"conversation": "trip", "session": "s2", "speaker": "bob",
        "text": "a transcript line naming an id", "at": "2024-05-08T11:00:00Z", "id": IDS[1]});
    let r = bob
        .raw("POST", "/v1/conversations", Body::from(format!("{line}\n")))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    note("conversations", r.status, &r.body);

    let record = json!({"id": IDS[2], "content": "bob's imported note"});
    let r = bob
        .raw("POST", "/v1/import", Body::from(format!("{record}\n")))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body["imported"], 1, "{}", r.body);
    note("import", r.status, &r.body);

    for uri in [
        format!("/v1/memories/{logged}"),
        format!("/v1/memories/{logged}/history"),
        "/v1/conversations/chat".to_string(),
        "/v1/conversations/trip".to_string(),
        "/v1/memories?limit=50".to_string(),
    ] {
        let r = bob.get(&uri).await;
        note(&uri, r.status, &r.body);
    }
    for id in IDS {
        for uri in [
            format!("/v1/memories/{id}"),
            format!("/v1/memories/{id}/history"),
        ] {
            let r = bob.get(&uri).await;
            assert_eq!(r.status, StatusCode::NOT_FOUND, "{uri}: {}", r.body);
            note(&uri, r.status, &r.body);
        }
    }
    let export = bob.export().await;
    assert_eq!(export.lines().count(), 3, "{export}");
    for id in IDS {
        assert!(!export.contains(id), "bob's ids are his own: {export}");
    }
    told.push(export.replace(&key_id, "BOB"));
    told
}

#[tokio::test]
async fn ids_another_tenant_holds_answer_as_unknown_ones() {
    let taken = what_bob_learns(true).await;
    let free = what_bob_learns(false).await;
    assert_eq!(taken.len(), free.len());
    for (a, b) in taken.iter().zip(&free) {
        assert_eq!(a, b, "bob can tell that alice holds an id");
    }
}

#[tokio::test]
async fn the_other_tenants_memories_stay_as_they_were() {
    let cairn = Cairn::new(fresh_store(), Arc::new(LexicalEmbedder));
    let record = json!({"id": IDS[0], "content": "alice's launch date is May 3"});
    let records = vec![(
        1,
        Ok(serde_json::from_value::<MemoryRecord>(record).unwrap()),
    )];
    blocking(|| {
        cairn
            .import("alice", records, true, LOCAL_ACTOR, &mut |_| ())
            .unwrap()
    });
    let bob = make_key(&cairn, "bob", "write");
    let state = AppState::new(CairnMcp::new(cairn.clone(), McpConfig::new("default")));
    let bob = Client::new(state, None).with_key(&bob);
    let r = bob
        .post(
            "/v1/messages",
            json!({"messages": [{"conversation": "c", "speaker": "bob", "text": "hi", "id": IDS[0]}]}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert_ne!(r.body["logged"][0]["id"], IDS[0], "{}", r.body);
    let id = IDS[0].parse().unwrap();
    let alice = blocking(|| cairn.store().get("alice", &[id]).unwrap());
    assert_eq!(alice[0].content, "alice's launch date is May 3");
    let history = blocking(|| cairn.store().histories("alice", &[id]).unwrap().remove(0));
    assert_eq!(history.len(), 1, "{history:?}");
    let r = bob.get("/v1/memories?limit=10").await;
    assert_eq!(r.body["total"], 1, "{}", r.body);
    assert!(!r.body.to_string().contains("launch"), "{}", r.body);
}
