//! The providers against [`MockServer`], a local server that speaks their
//! protocols and misbehaves on request: retries, backoff, `Retry-After`,
//! timeouts, malformed answers, a model ignoring the JSON format, and the
//! engine's offline fallback. No test reaches beyond the loopback.

use std::sync::Arc;
use std::time::{Duration, Instant};

use cairn_core::chat::{self, ChatProvider};
use cairn_core::conformance::LexicalEmbedder;
use cairn_core::{Cairn, Embedder, Error, MemoryStore};
use cairn_providers::testing::{MockServer, Mode};
use cairn_providers::{EmbedApi, Endpoint, OpenAiChat, RemoteEmbedder};

mod ingest;
mod topics;

/// An endpoint that retries twice with short waits and a 1 s timeout.
fn endpoint(url: String) -> Endpoint {
    let mut e = Endpoint::new(url, Some("sk-test".into()));
    e.timeout = Duration::from_secs(1);
    e.retries = 2;
    e.backoff = Duration::from_millis(10);
    e
}

pub(crate) fn chat(server: &MockServer) -> OpenAiChat {
    OpenAiChat::new(endpoint(server.openai_url()), "mock-chat")
}

#[test]
fn chat_answers_and_sends_the_key_model_and_format() {
    let server = MockServer::start();
    let c = chat(&server);
    let s = chat::summarise(&c, "Alice moved to Lisbon.", 40).unwrap();
    assert_eq!(s, "Summary: Alice moved to Lisbon.");
    let facts = chat::extract_facts(&c, "Alice moved to Lisbon. Bob is 31.").unwrap();
    assert_eq!(facts, vec!["Alice moved to Lisbon", "Bob is 31"]);
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].1["model"], "mock-chat");
    assert!(requests[0].1.get("response_format").is_none());
    assert_eq!(requests[1].1["response_format"]["type"], "json_object");
}

#[test]
fn transient_failures_are_retried_until_an_answer() {
    let server = MockServer::start();
    server.script(&[Mode::ServerError, Mode::Malformed]);
    let c = chat(&server);
    assert!(chat::summarise(&c, "Text.", 40).is_ok());
    assert_eq!(server.requests().len(), 3);

    // A model that ignores the JSON format is a failure worth retrying.
    server.script(&[Mode::IgnoresJson]);
    assert!(chat::extract_facts(&c, "A fact.").is_ok());
    assert_eq!(server.requests().len(), 5);
}

#[test]
fn rate_limits_wait_for_retry_after() {
    let server = MockServer::start();
    server.script(&[Mode::RateLimited(1)]);
    let started = Instant::now();
    assert!(chat::title(&chat(&server), "Text.").is_ok());
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "Retry-After honoured"
    );
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn timeouts_are_retried_then_reported() {
    let server = MockServer::start();
    server.always(Mode::Slow(Duration::from_secs(3)));
    let started = Instant::now();
    let err = chat::summarise(&chat(&server), "Text.", 40).unwrap_err();
    assert!(matches!(err, Error::Provider { .. }), "{err}");
    assert!(err.to_string().contains("gave up after 3 tries"), "{err}");
    assert!(
        started.elapsed() < Duration::from_secs(6),
        "each try timed out at 1 s"
    );
}

#[test]
fn persistent_failures_give_up_with_the_last_reason() {
    for (mode, expect) in [
        (Mode::ServerError, "HTTP 500"),
        (Mode::Malformed, "malformed JSON"),
        (Mode::RateLimited(0), "HTTP 429"),
    ] {
        let server = MockServer::start();
        server.always(mode);
        let err = chat::summarise(&chat(&server), "Text.", 40).unwrap_err();
        assert!(err.to_string().contains(expect), "{mode:?}: {err}");
        assert_eq!(
            server.requests().len(),
            3,
            "{mode:?}: one try and two retries"
        );
    }
    let server = MockServer::start();
    server.always(Mode::IgnoresJson);
    let err = chat::extract_facts(&chat(&server), "A.").unwrap_err();
    assert!(err.to_string().contains("JSON object"), "{err}");
}

#[test]
fn a_wrong_key_is_not_retried() {
    let server = MockServer::start();
    server.always(Mode::Unauthorized);
    let err = chat::summarise(&chat(&server), "Text.", 40).unwrap_err();
    assert!(err.to_string().contains("HTTP 401"), "{err}");
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn the_engine_falls_back_to_extractive_and_keeps_the_memory() {
    let server = MockServer::start();
    server.always(Mode::ServerError);
    let cairn = Cairn::new(Arc::new(MemoryStore::new()), Arc::new(LexicalEmbedder))
        .with_chat(Some(Arc::new(chat(&server)) as Arc<dyn ChatProvider>));
    let text = "Alice moved to Lisbon in May. She works on billing. Bob visited in June.";
    let (summary, by) = cairn.summary_by_ratio(text, 0.5).unwrap();
    assert!(
        summary
            .split_inclusive('.')
            .all(|s| text.contains(s.trim())),
        "{summary}"
    );
    assert_eq!(by.by, "extractive");
    assert!(by.fallback.unwrap().contains("HTTP 500"));

    server.always(Mode::Ok);
    let (summary, by) = cairn.summary_by_ratio(text, 0.5).unwrap();
    assert!(summary.starts_with("Summary: "));
    assert_eq!(by.model.as_deref(), Some("mock-chat"));
}

#[test]
fn embeddings_probe_their_dimension_and_are_normalised() {
    let server = MockServer::start();
    for (api, url) in [
        (EmbedApi::OpenAi, server.openai_url()),
        (EmbedApi::Ollama, server.ollama_url()),
    ] {
        let e = RemoteEmbedder::connect(endpoint(url), api, "mock-embed", None).unwrap();
        let model = e.model();
        assert_eq!(model.dim, MockServer::DIM);
        assert_eq!(model.name, format!("{}:mock-embed", api.as_str()));
        let texts: Vec<String> = (0..70).map(|i| format!("text number {i}")).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let vectors = e.embed_batch(&refs).unwrap();
        assert_eq!(vectors.len(), 70, "{api:?}: batches of 64 joined in order");
        for (t, v) in refs.iter().zip(&vectors) {
            let norm: f32 = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            assert!((norm - 1.0).abs() < 1e-5);
            let raw = cairn_providers::testing::embedding(t);
            let raw_norm: f32 = raw.iter().map(|x| x * x).sum::<f32>().sqrt();
            assert!((v[0] - raw[0] / raw_norm).abs() < 1e-6);
        }
    }
    let paths: Vec<String> = server.requests().into_iter().map(|(p, _)| p).collect();
    assert!(paths.contains(&"/v1/embeddings".to_string()));
    assert!(paths.contains(&"/api/embed".to_string()));
}

#[test]
fn embedding_failures_are_retried_then_an_unavailable_error() {
    let server = MockServer::start();
    let e = RemoteEmbedder::connect(
        endpoint(server.openai_url()),
        EmbedApi::OpenAi,
        "m",
        Some(16),
    )
    .unwrap();
    assert!(
        server.requests().is_empty(),
        "a given dimension is not probed"
    );
    server.script(&[Mode::RateLimited(0), Mode::ServerError]);
    assert_eq!(e.embed("hello").unwrap().len(), 16);
    server.always(Mode::Malformed);
    let err = e.embed("hello").unwrap_err();
    assert_eq!(err.kind(), cairn_core::ErrorKind::Unavailable);
    // A probe that fails is an error when the embedder is made.
    assert!(
        RemoteEmbedder::connect(endpoint(server.openai_url()), EmbedApi::OpenAi, "m", None)
            .is_err()
    );
}

#[test]
fn an_unreachable_endpoint_is_a_provider_error() {
    // A port just released: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let c = OpenAiChat::new(endpoint(format!("http://127.0.0.1:{port}/v1")), "m");
    let err = chat::summarise(&c, "Text.", 40).unwrap_err();
    assert!(matches!(err, Error::Provider { .. }), "{err}");
}

#[test]
fn a_rerank_endpoint_orders_recall_and_its_failures_leave_recalls_order() {
    use cairn_core::rerank::Reranker;
    use cairn_core::{RecallRequest, RememberRequest};
    use cairn_providers::HttpReranker;

    let server = MockServer::start();
    let reranker = HttpReranker::new(endpoint(server.openai_url()), "mock-rerank");
    let cairn = Cairn::new(Arc::new(MemoryStore::new()), Arc::new(LexicalEmbedder))
        .with_reranker(Some(Arc::new(reranker) as Arc<dyn Reranker>));
    for text in [
        "kiwi kiwi kiwi kiwi",
        "kiwi parrot lives in lisbon",
        "kiwi fruit",
    ] {
        let mut req = RememberRequest::new("t", text);
        req.dedup = false;
        cairn.remember(req).unwrap();
    }
    let ask = |q: &str| -> Vec<String> {
        let mut req = RecallRequest::new("t", q);
        req.limit = 3;
        cairn
            .recall(&req)
            .unwrap()
            .into_iter()
            .map(|r| r.memory.content)
            .collect()
    };
    // The mock scores by the query words a document holds.
    let found = ask("kiwi parrot lisbon");
    assert_eq!(found[0], "kiwi parrot lives in lisbon");
    let mut req = RecallRequest::new("t", "kiwi parrot lisbon");
    req.limit = 3;
    let outcome = cairn.search_reported(&req).unwrap().reranking.unwrap();
    assert!(outcome.applied && outcome.failure.is_none(), "{outcome:?}");
    let (path, body) = server.requests().pop().unwrap();
    assert_eq!(path, "/v1/rerank");
    assert_eq!(body["model"], "mock-rerank");
    assert_eq!(body["documents"].as_array().unwrap().len(), 3);

    server.always(Mode::ServerError);
    let without = Cairn::new(cairn.store().clone(), Arc::new(LexicalEmbedder));
    let plain: Vec<String> = without
        .recall(&req)
        .unwrap()
        .into_iter()
        .map(|r| r.memory.content)
        .collect();
    assert_eq!(
        ask("kiwi parrot lisbon"),
        plain,
        "a failing reranker changes nothing"
    );
    // …and the answer says it failed.
    let outcome = cairn.recall_reported(&req).unwrap().reranking.unwrap();
    assert!(outcome.reranker.starts_with("http:mock-rerank at "));
    assert!(!outcome.applied);
    let failure = outcome.failure.unwrap();
    assert!(failure.contains("gave up after 3 tries"), "{failure}");
}
