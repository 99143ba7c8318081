//! Consolidation over REST (`POST /v1/consolidate`, admin keys) and as the
//! server's background job; `GET /v1/providers`.

use std::time::Duration;

use axum::http::StatusCode;
use cairn_core::engine::{Message, ObserveRequest};
use cairn_core::{Cairn, Filter, MemoryType};
use serde_json::{json, Map};
use tokio_util::sync::CancellationToken;

use crate::rest::{assert_error, Client};
use crate::{blocking, keyed_state, make_key};

const DAY: i64 = 86_400_000;

/// Three sessions (days) of `tenant`'s conversation, two messages each.
fn log(cairn: &Cairn, tenant: &str) {
    let start = cairn.now() - 10 * DAY;
    let texts = [
        "I adopted a parrot called Kiwi.",
        "My sister moved to Lisbon.",
        "I started learning the cello.",
    ];
    let messages: Vec<Message> = texts
        .iter()
        .enumerate()
        .flat_map(|(d, text)| {
            let at = start + d as i64 * DAY;
            [
                (text.to_string(), at),
                ("That is great news.".to_string(), at + 1000),
            ]
        })
        .enumerate()
        .map(|(i, (text, at))| Message {
            conversation: "c1".into(),
            session: None,
            speaker: if i % 2 == 0 { "Ana" } else { "Ben" }.into(),
            text,
            at: Some(at),
            id: None,
            metadata: Map::new(),
        })
        .collect();
    let req = ObserveRequest {
        tenant: tenant.into(),
        project: None,
        actor: "local".into(),
    };
    blocking(|| cairn.observe(&req, messages, &mut |_| ()).unwrap());
}

fn summaries(cairn: &Cairn, tenant: &str) -> usize {
    let mut f = Filter::new(tenant, cairn.now()).everything();
    f.types = vec![MemoryType::Summary];
    blocking(|| cairn.store().count(&f).unwrap())
}

#[tokio::test]
async fn an_admin_consolidates_a_tenant_and_others_may_not() {
    let state = keyed_state();
    let cairn = state.cairn.clone();
    log(&cairn, "alice");
    let base = Client::new(state, None);
    let admin = base
        .with_key(&make_key(&cairn, "ops", "admin"))
        .naming_tenant("alice");
    let writer = base.with_key(&make_key(&cairn, "alice", "write"));

    let r = writer.post("/v1/consolidate", json!({"keep": 1})).await;
    assert_error(&r, StatusCode::FORBIDDEN, "forbidden");

    let r = admin
        .post("/v1/consolidate", json!({"keep": 1, "dry_run": true}))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body["episodes"], 4);
    assert_eq!(summaries(&cairn, "alice"), 0);

    let r = admin.post("/v1/consolidate", json!({"keep": 1})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body["tenant"], "alice");
    assert_eq!(r.body["groups"].as_array().unwrap().len(), 2);
    assert_eq!(r.body["groups"][0]["summarised_by"]["by"], "extractive");
    assert_eq!(summaries(&cairn, "alice"), 2);

    // The summary answers for its sources; they come back when asked for.
    let found = writer
        .post(
            "/v1/recall",
            json!({"query": "Where did my sister move?", "limit": 3}),
        )
        .await;
    assert_eq!(found.status, StatusCode::OK, "{}", found.body);
    let first = &found.body["results"][0];
    assert_eq!(first["type"], "summary", "{}", found.body);
    let with = writer
        .post(
            "/v1/recall",
            json!({"query": "Where did my sister move?", "limit": 5, "include_consolidated": true}),
        )
        .await;
    assert!(with.body["results"]
        .as_array()
        .unwrap()
        .iter()
        .any(|m| m["type"] == "episode" && m["content"].as_str().unwrap().contains("Lisbon")));

    let r = admin.post("/v1/consolidate", json!({"kep": 1})).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.body);

    let p = admin.get("/v1/providers").await;
    assert_eq!(p.status, StatusCode::OK, "{}", p.body);
    assert!(p.body["chat"].is_null());
    assert!(p.body["embedder"]["dim"].as_u64().unwrap() > 0);
    assert_error(
        &writer.get("/v1/providers").await,
        StatusCode::FORBIDDEN,
        "forbidden",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_background_job_consolidates_every_tenant_and_stops() {
    let state = keyed_state();
    let cairn = state.cairn.clone();
    log(&cairn, "alice");
    log(&cairn, "bob");
    let stop = CancellationToken::new();
    let job = cairn_server::jobs::consolidate(&cairn, Duration::from_millis(50), 1, stop.clone());
    for _ in 0..100 {
        if summaries(&cairn, "alice") == 2 && summaries(&cairn, "bob") == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        (summaries(&cairn, "alice"), summaries(&cairn, "bob")),
        (2, 2)
    );
    stop.cancel();
    tokio::time::timeout(Duration::from_secs(5), job)
        .await
        .expect("the job stops")
        .unwrap();
    // Later runs found nothing more to do: no summaries of summaries.
    assert_eq!(summaries(&cairn, "alice"), 2);
}
