//! The REST API in-process: history and revert, prompts, ingest, slots,
//! bulk tags, sources and the supersede chain, within the tenant.

use axum::body::Body;
use axum::http::StatusCode;
use serde_json::{json, Value};

use crate::rest::{assert_error, Client};
use crate::{keyed_state, make_key};

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
