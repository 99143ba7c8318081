//! The REST API in-process under load and limits: rate limits, metrics,
//! import and export with their limits, and stalled clients.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::{json, Value};
use tower::ServiceExt;

use crate::rest::{assert_error, Client};
use crate::{keyed_state, make_key, state};

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
