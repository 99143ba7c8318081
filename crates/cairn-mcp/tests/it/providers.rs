//! Recall through MCP with a reranker behind the providers' mock server.

use serde_json::json;

use crate::mcp::DEPLOY_STEPS;
use crate::{call, call_raw, Env};

/// A `/rerank` endpoint (the providers' mock server) that fails: recall
/// answers in its own order and says the reranker failed, in its
/// structured content and its text.
#[test]
fn recall_reports_a_failing_reranker() {
    use cairn_providers::testing::{MockServer, Mode};
    use cairn_providers::{Endpoint, HttpReranker};

    let server = MockServer::start();
    server.always_on("/v1/rerank", Mode::ServerError);
    let mut endpoint = Endpoint::new(server.openai_url(), None);
    endpoint.retries = 0;
    let reranker = HttpReranker::new(endpoint, "mock-rerank");
    let mut env = Env::new();
    let reranker: std::sync::Arc<dyn cairn_core::rerank::Reranker> = std::sync::Arc::new(reranker);
    env.cairn = env.cairn.clone().with_reranker(Some(reranker));
    tokio::runtime::Runtime::new().unwrap().block_on(async {
        let client = env.client(None).await;
        for step in DEPLOY_STEPS {
            call(&client, "remember", json!({"content": step})).await;
        }
        let args = json!({"query": "deploy", "limit": 3});
        let out = call_raw(&client, "recall", args).await.unwrap();
        let structured = out.structured_content.clone().unwrap();
        assert_eq!(structured["results"].as_array().unwrap().len(), 3);
        assert_eq!(structured["rerank"]["applied"], false, "{structured}");
        let failure = structured["rerank"]["failure"].as_str().unwrap();
        assert!(failure.contains("500"), "{failure}");
        let text = crate::text(&out);
        assert!(text.contains("the reranker (http:mock-rerank"), "{text}");
        client.cancel().await.unwrap();
    });
}
