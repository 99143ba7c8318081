//! Providers that fail, behind the providers' mock server: a reranker
//! (REST recall answers in recall's own order and says so, and the OpenAPI
//! document describes the report) and an embedding endpoint (logged
//! messages are accepted, kept pending, and logged when it answers).

use std::sync::Arc;

use cairn_core::conformance::LexicalEmbedder;
use cairn_core::rerank::Reranker;
use cairn_core::Cairn;
use cairn_mcp::{CairnMcp, McpConfig};
use cairn_providers::testing::{MockServer, Mode};
use cairn_providers::{EmbedApi, Endpoint, HttpReranker, RemoteEmbedder};
use cairn_server::{AppState, Auth};
use serde_json::{json, Value};

use crate::rest::Client;

fn ids(body: &Value) -> Vec<String> {
    body["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn rest_recall_reports_a_failing_reranker_and_keeps_its_own_order() {
    let server = MockServer::start();
    let mut endpoint = Endpoint::new(server.openai_url(), None);
    endpoint.retries = 0;
    let reranker: Arc<dyn Reranker> = Arc::new(HttpReranker::new(endpoint, "mock-rerank"));
    let plain = Cairn::new(crate::fresh_store(), Arc::new(LexicalEmbedder));
    let reranking = plain.clone().with_reranker(Some(reranker));
    let client = |cairn: Cairn| {
        let state = AppState::new(CairnMcp::new(cairn, McpConfig::new("default")));
        Client::new(state.with_auth(Auth::Open), None)
    };
    let (plain, reranking) = (client(plain), client(reranking));
    tokio::runtime::Runtime::new().unwrap().block_on(async {
        for text in [
            "The deploy script lives in ops/deploy.sh",
            "The deploy runs on Fridays",
            "Deploy keys rotate monthly",
        ] {
            let r = plain.post("/v1/memories", json!({"content": text})).await;
            assert!(r.status.is_success(), "{}", r.body);
        }
        let query = json!({"query": "deploy script", "limit": 3});
        let before = plain.post("/v1/recall", query.clone()).await;
        assert!(before.body.get("rerank").is_none(), "{}", before.body);
        let applied = reranking.post("/v1/recall", query.clone()).await;
        assert_eq!(applied.body["rerank"]["applied"], true, "{}", applied.body);

        server.always_on("/v1/rerank", Mode::ServerError);
        let failed = reranking.post("/v1/recall", query).await;
        assert_eq!(failed.status, 200, "{}", failed.body);
        assert_eq!(ids(&failed.body), ids(&before.body), "recall's own order");
        let report = &failed.body["rerank"];
        assert_eq!(report["applied"], false, "{report}");
        assert!(
            report["failure"].as_str().unwrap().contains("500"),
            "{report}"
        );

        let doc = plain.get("/openapi.json").await.body;
        let schema = &doc["components"]["schemas"]["RecallOutput"]["properties"]["rerank"];
        assert!(!schema.is_null(), "the OpenAPI document describes it");
    });
}

#[test]
fn rest_messages_are_accepted_pending_while_the_embedding_endpoint_fails() {
    let server = MockServer::start();
    let mut endpoint = Endpoint::new(server.openai_url(), None);
    endpoint.retries = 0;
    let embedder = RemoteEmbedder::connect(endpoint, EmbedApi::OpenAi, "mock-embed", None).unwrap();
    let cairn = Cairn::new(crate::fresh_store(), Arc::new(embedder));
    let state = AppState::new(CairnMcp::new(cairn.clone(), McpConfig::new("default")));
    let client = Client::new(state.with_auth(Auth::Open), None);
    let exchange =
        |text: &str| json!({"messages": [{"conversation": "c1", "speaker": "Ana", "text": text}]});
    tokio::runtime::Runtime::new().unwrap().block_on(async {
        let r = client
            .post("/v1/messages", exchange("Where do backups go?"))
            .await;
        assert_eq!(r.status, 201, "{}", r.body);

        server.always_on("/v1/embeddings", Mode::ServerError);
        let r = client
            .post("/v1/messages", exchange("To the cold bucket."))
            .await;
        assert_eq!(r.status, 202, "{}", r.body);
        assert!(r.body.get("logged").unwrap().as_array().unwrap().is_empty());
        let id = r.body["pending"][0]["id"].as_str().unwrap().to_string();
        assert!(r.body["pending_reason"]
            .as_str()
            .unwrap()
            .contains("pending"));

        server.always_on("/v1/embeddings", Mode::Ok);
        let report = crate::blocking(|| cairn.embed_pending().unwrap());
        assert_eq!((report.embedded, report.remaining), (1, 0));
        let shown = client.get("/v1/conversations/c1").await;
        assert_eq!(shown.body["messages"], 2, "{}", shown.body);
        let last = &shown.body["topic_list"][0]["messages"][1];
        assert_eq!(last["id"], id.as_str(), "{}", shown.body);
    });
}
