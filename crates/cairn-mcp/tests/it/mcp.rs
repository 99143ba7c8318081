use rmcp::model::{GetPromptRequestParams, ReadResourceRequestParams, ResourceContents};
use rmcp::{ServiceError, ServiceExt};
use serde_json::json;

use crate::{call, call_err, call_raw, Env};

const TOOLS: &[&str] = &[
    "remember", "recall", "context", "get", "update", "forget", "list", "stats", "help", "observe",
    "window", "ingest", "slot",
];

#[tokio::test]
async fn every_tool_has_schemas_annotations_and_a_description() {
    let env = Env::new();
    let client = env.client(None).await;
    let tools = client.list_all_tools().await.unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    names.sort();
    let mut want = TOOLS.to_vec();
    want.sort();
    assert_eq!(names, want);
    for t in &tools {
        let d = t.description.as_deref().unwrap_or("");
        assert!(d.len() > 60, "{}: description too short: {d}", t.name);
        assert_eq!(
            t.input_schema.get("type"),
            Some(&json!("object")),
            "{}",
            t.name
        );
        assert!(t.output_schema.is_some(), "{}: no output schema", t.name);
        let a = t.annotations.as_ref().expect("annotations");
        let read_only = a.read_only_hint == Some(true);
        let expected_read_only = !matches!(
            t.name.as_ref(),
            "remember" | "update" | "forget" | "observe" | "ingest" | "slot"
        );
        assert_eq!(read_only, expected_read_only, "{}", t.name);
        if matches!(t.name.as_ref(), "update" | "forget") {
            assert_eq!(a.destructive_hint, Some(true), "{}", t.name);
        }
        assert!(a.idempotent_hint.is_some() && a.open_world_hint == Some(false));
    }
    let remember = tools.iter().find(|t| t.name == "remember").unwrap();
    let schema = serde_json::to_string(&remember.input_schema).unwrap();
    for field in ["content", "type", "tags", "ttl", "supersedes", "importance"] {
        assert!(schema.contains(field), "remember schema lacks {field}");
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn remember_dedup_contradiction_supersede_and_recall() {
    let env = Env::new();
    let client = env.client(Some("atlas")).await;
    let first = call(
        &client,
        "remember",
        json!({"content": "The API server listens on port 8080", "type": "fact", "tags": ["api"]}),
    )
    .await;
    assert_eq!(first["status"], "created");
    assert_eq!(first["project"], "atlas", "the session's project is used");
    let id = first["id"].as_str().unwrap().to_string();
    let again = call(
        &client,
        "remember",
        json!({"content": "The API server listens on port 8080.", "type": "fact", "tags": ["net"]}),
    )
    .await;
    assert_eq!(again["status"], "deduplicated");
    assert_eq!(again["id"], first["id"]);
    let related = call(
        &client,
        "remember",
        json!({"content": "The API server listens on port 9090 now", "type": "fact"}),
    )
    .await;
    assert_eq!(related["status"], "created");
    // A changed value (8080 → 9090) is a conflict, named with its reason.
    let similar: Vec<&str> = related["conflicts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert!(similar.contains(&id.as_str()), "{related}");
    // Supersede: the old one leaves recall.
    let newer = call(
        &client,
        "remember",
        json!({"content": "The API server listens on port 9443 with TLS", "type": "fact", "supersedes": &id[..13]}),
    )
    .await;
    assert_eq!(newer["superseded"], json!(id));
    let found = call(
        &client,
        "recall",
        json!({"query": "which port does the API server listen on?", "explain": true}),
    )
    .await;
    let ids: Vec<&str> = found["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert!(
        !ids.contains(&id.as_str()),
        "superseded memory recalled: {found}"
    );
    assert!(ids.contains(&newer["id"].as_str().unwrap()), "{found}");
    assert!(found["results"][0]["explain"]["rrf"].is_number(), "{found}");
    assert_eq!(found["scope"], "atlas");
    // A global memory is seen from the project, a project memory not from global.
    call(
        &client,
        "remember",
        json!({"content": "The user prefers tabs over spaces in Go code", "type": "preference", "global": true}),
    )
    .await;
    let global = call(
        &client,
        "recall",
        json!({"query": "tabs or spaces in Go code?", "project": "other-project"}),
    )
    .await;
    assert_eq!(global["results"].as_array().unwrap().len(), 1, "{global}");
    client.cancel().await.unwrap();
}

pub(crate) const DEPLOY_STEPS: [&str; 6] = [
    "Deploy: first run the database migration with the ops account",
    "Deploy: the frontend bundle is uploaded to the CDN bucket by CI",
    "Deploy: rotate the feature flags in LaunchDarkly before the migration",
    "Deploy: page the on-call engineer if the health check fails twice",
    "Deploy: blue-green switch happens in the load balancer console",
    "Deploy: after deploy, watch the error dashboards for fifteen minutes",
];

#[tokio::test]
async fn recall_respects_the_token_budget_and_filters() {
    let env = Env::new();
    let client = env.client(None).await;
    for step in DEPLOY_STEPS {
        call(
            &client,
            "remember",
            json!({"content": step, "type": "procedure", "tags": ["deploy"]}),
        )
        .await;
    }
    call(
        &client,
        "remember",
        json!({"content": "Deploys happen on Tuesdays", "type": "rule"}),
    )
    .await;
    let all = call(
        &client,
        "recall",
        json!({"query": "deploy", "limit": 10, "mode": "keyword"}),
    )
    .await;
    assert_eq!(all["results"].as_array().unwrap().len(), 7, "{all}");
    let small = call(
        &client,
        "recall",
        json!({"query": "deploy", "limit": 10, "mode": "keyword", "budget": 60}),
    )
    .await;
    let kept = small["results"].as_array().unwrap().len();
    assert!((1..7).contains(&kept), "{small}");
    assert_eq!(small["omitted"].as_u64().unwrap() as usize, 7 - kept);
    assert!(small["tokens"].as_u64().unwrap() <= 60);
    let rules = call(
        &client,
        "recall",
        json!({"query": "deploy", "types": ["rule"], "mode": "keyword"}),
    )
    .await;
    assert_eq!(rules["results"].as_array().unwrap().len(), 1, "{rules}");
    let tagged = call(
        &client,
        "recall",
        json!({"query": "deploy", "tags": ["deploy"], "limit": 3}),
    )
    .await;
    assert_eq!(tagged["results"].as_array().unwrap().len(), 3);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn context_get_update_list_stats_help() {
    let env = Env::new();
    let client = env.client(Some("atlas")).await;
    let m = call(
        &client,
        "remember",
        json!({"content": "Never force-push to main", "type": "rule", "metadata": {"source": "team"}}),
    )
    .await;
    call(
        &client,
        "remember",
        json!({"content": "Atlas uses PostgreSQL 16 for the audit log", "type": "decision"}),
    )
    .await;
    let ctx = call(
        &client,
        "context",
        json!({"topic": "git workflow", "budget": 500}),
    )
    .await;
    let md = ctx["markdown"].as_str().unwrap();
    assert!(md.contains("Never force-push to main"), "{md}");
    assert!(ctx["tokens"].as_u64().unwrap() <= 500);
    assert_eq!(ctx["project"], "atlas");
    let too_small = call_err(&client, "context", json!({"budget": 10})).await;
    assert!(too_small.contains("at least 50"), "{too_small}");

    // Short ids shown at write time can become ambiguous as memories are
    // added close in time (like git's); the full id always works.
    let short = m["id"].as_str().unwrap();
    let got = call(&client, "get", json!({"id": short})).await;
    assert_eq!(got["content"], "Never force-push to main");
    assert_eq!(got["metadata"]["source"], "team");
    let updated = call(
        &client,
        "update",
        json!({"id": short, "add_tags": ["git"], "importance": 0.9, "ttl": "7d"}),
    )
    .await;
    assert_eq!(updated["memory"]["tags"], json!(["git"]));
    assert_eq!(updated["memory"]["importance"], 0.9);
    assert!(updated["memory"]["expires_at"].is_string());
    assert!(got.get("history").is_none(), "only when asked for");
    let with_history = call(&client, "get", json!({"id": short, "history": true})).await;
    let versions = with_history["history"].as_array().unwrap();
    assert_eq!(versions.len(), 2, "{with_history}");
    assert_eq!(versions[0]["change"], "created");
    assert_eq!(versions[0]["actor"], "local");
    assert_eq!(versions[1]["reason"], "tags, importance, expires_at");
    assert!(versions[0]["memory"]["tags"].as_array().unwrap().is_empty());

    let page = call(&client, "list", json!({"limit": 1, "sort": "oldest"})).await;
    assert_eq!(page["total"], 2);
    assert_eq!(page["memories"][0]["content"], "Never force-push to main");
    assert_eq!(page["next_offset"], 1);
    let next = call(
        &client,
        "list",
        json!({"limit": 1, "offset": 1, "sort": "oldest"}),
    )
    .await;
    assert!(next.get("next_offset").is_none(), "{next}");
    let bad_sort = call_err(&client, "list", json!({"sort": "sideways"})).await;
    assert!(bad_sort.contains("newest, oldest"), "{bad_sort}");

    let stats = call(&client, "stats", json!({})).await;
    assert_eq!(stats["total"], 2);
    assert_eq!(stats["by_project"]["atlas"], 2);
    assert_eq!(stats["session_project"], "atlas");

    let help = call(&client, "help", json!({})).await;
    assert!(help["text"].as_str().unwrap().contains("recall"));
    let protocol = call(&client, "help", json!({"topic": "protocol"})).await;
    assert_eq!(protocol["text"], cairn_mcp::help::PROTOCOL);
    let none = call_err(&client, "help", json!({"topic": "astrology"})).await;
    assert!(none.contains("topics:"), "{none}");
    client.cancel().await.unwrap();
}

const BILLING_NOTES: [&str; 3] = [
    "Invoice numbering restarts every fiscal year",
    "Stripe webhooks are verified with the signing secret in Vault",
    "Refunds over 500 EUR need approval from finance",
];

#[tokio::test]
async fn forget_by_id_and_by_filter_with_confirmation() {
    let env = Env::new();
    let client = env.client(None).await;
    let a = call(
        &client,
        "remember",
        json!({"content": "Sprint 14 goal: ship the billing export", "type": "context", "project": "billing"}),
    )
    .await;
    for note in BILLING_NOTES {
        call(
            &client,
            "remember",
            json!({"content": note, "project": "billing", "tags": ["old"]}),
        )
        .await;
    }
    call(
        &client,
        "remember",
        json!({"content": "Global fact: the office is in Lyon", "type": "fact"}),
    )
    .await;
    let nothing = call_err(&client, "forget", json!({})).await;
    assert!(nothing.contains("give ids, or a filter"), "{nothing}");
    let both = call_err(&client, "forget", json!({"id": "abcd", "tags": ["old"]})).await;
    assert!(both.contains("not both"), "{both}");
    let dry = call(
        &client,
        "forget",
        json!({"project": "billing", "tags": ["old"]}),
    )
    .await;
    assert_eq!(dry["would_forget"], 3);
    assert_eq!(dry["forgotten"], 0);
    assert_eq!(call(&client, "stats", json!({})).await["total"], 5);
    let done = call(
        &client,
        "forget",
        json!({"project": "billing", "tags": ["old"], "confirm": true}),
    )
    .await;
    assert_eq!(done["forgotten"], 3);
    let one = call(&client, "forget", json!({"id": a["short_id"]})).await;
    assert_eq!(one["forgotten"], 1);
    let again = call_err(&client, "forget", json!({"id": a["id"]})).await;
    assert!(
        again.contains("not_found") && again.contains("recall"),
        "{again}"
    );
    assert_eq!(call(&client, "stats", json!({})).await["total"], 1);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn bad_input_gets_protocol_correct_errors_and_the_server_keeps_serving() {
    let env = Env::new();
    let client = env.client(None).await;
    // Unknown tool: a JSON-RPC error.
    match call_raw(&client, "teleport", json!({})).await {
        Err(ServiceError::McpError(e)) => {
            assert!(e.code.0 == -32602 || e.code.0 == -32601, "{e:?}");
            assert!(
                e.message.contains("teleport") && e.message.contains("recall"),
                "{e:?}"
            );
        }
        other => panic!("unknown tool: expected a JSON-RPC error, got {other:?}"),
    }
    // Missing, wrong-typed or unknown arguments: rejected before the tool
    // runs, as a JSON-RPC invalid-params error or (what the current protocol
    // asks of input validation) a tool error the model can read and fix.
    for (tool, args, names) in [
        ("remember", json!({}), "content"),
        ("remember", json!({"content": 42}), "string"),
        ("recall", json!({"query": "x", "limit": "ten"}), "ten"),
        (
            "remember",
            json!({"content": "x", "contnet": "typo"}),
            "contnet",
        ),
    ] {
        match call_raw(&client, tool, args.clone()).await {
            Err(ServiceError::McpError(e)) => {
                assert_eq!(e.code.0, -32602, "{tool} {args}: {e:?}");
            }
            Ok(r) => {
                assert_eq!(r.is_error, Some(true), "{tool} {args}: {r:?}");
                assert!(crate::text(&r).contains(names), "{tool} {args}: {r:?}");
            }
            Err(other) => panic!("{tool} {args}: {other:?}"),
        }
    }
    // Engine errors: tool results with isError and a hint.
    let unknown = call_err(&client, "get", json!({"id": "ffffffff"})).await;
    assert!(unknown.contains("no memory with id ffffffff"), "{unknown}");
    let bad_type = call_err(
        &client,
        "remember",
        json!({"content": "x", "type": "gossip"}),
    )
    .await;
    assert!(bad_type.contains("gossip"), "{bad_type}");
    let bad_ttl = call_err(&client, "remember", json!({"content": "x", "ttl": "soon"})).await;
    assert!(bad_ttl.contains("soon"), "{bad_ttl}");
    let huge = "x".repeat(cairn_core::MAX_CONTENT_BYTES + 1);
    let too_big = call_err(&client, "remember", json!({"content": huge})).await;
    assert!(
        too_big.contains("limit") && too_big.contains("split"),
        "{too_big}"
    );
    let a = call(
        &client,
        "remember",
        json!({"content": "Ambiguity test one about llamas"}),
    )
    .await;
    call(
        &client,
        "remember",
        json!({"content": "Ambiguity test two about volcanoes"}),
    )
    .await;
    let prefix = &a["id"].as_str().unwrap()[..5];
    let ambiguous = call_err(&client, "get", json!({"id": prefix})).await;
    assert!(
        ambiguous.contains("ambiguous") && ambiguous.contains("more characters"),
        "{ambiguous}"
    );
    let limit = call_err(&client, "recall", json!({"query": "x", "limit": 0})).await;
    assert!(limit.contains("between 1 and"), "{limit}");
    // Nothing partial was written, and the server still answers.
    assert_eq!(call(&client, "stats", json!({})).await["total"], 2);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn resources_and_templates() {
    let env = Env::new();
    let client = env.client(Some("atlas")).await;
    let m = call(
        &client,
        "remember",
        json!({"content": "Atlas deploys from the release branch only", "type": "rule"}),
    )
    .await;
    let resources = client.list_all_resources().await.unwrap();
    let uris: Vec<&str> = resources.iter().map(|r| r.uri.as_str()).collect();
    assert!(uris.contains(&"cairn://context"), "{uris:?}");
    assert!(uris.contains(&"cairn://context/atlas"), "{uris:?}");
    let templates = client.list_all_resource_templates().await.unwrap();
    let t: Vec<&str> = templates.iter().map(|t| t.uri_template.as_str()).collect();
    assert_eq!(
        t,
        [
            "cairn://context/{project}",
            "cairn://slot/{name}.md",
            "cairn://slot/{name}.txt",
            "cairn://slot/{name}.json",
            "cairn://memory/{id}",
            "cairn://session/{id}/working-memory"
        ]
    );

    let read = |uri: String| {
        let client = &client;
        async move {
            let r = client
                .read_resource(ReadResourceRequestParams::new(uri))
                .await?;
            Ok::<_, ServiceError>(match &r.contents[0] {
                ResourceContents::TextResourceContents { text, .. } => text.clone(),
                other => panic!("{other:?}"),
            })
        }
    };
    let ctx = read("cairn://context".into()).await.unwrap();
    assert!(ctx.contains("release branch"), "{ctx}");
    let ctx = read("cairn://context/atlas".into()).await.unwrap();
    assert!(ctx.contains("release branch"), "{ctx}");
    let other = read("cairn://context/elsewhere".into()).await.unwrap();
    assert!(!other.contains("release branch"), "{other}");
    let mem = read(format!(
        "cairn://memory/{}",
        m["short_id"].as_str().unwrap()
    ))
    .await
    .unwrap();
    let v: serde_json::Value = serde_json::from_str(&mem).unwrap();
    assert_eq!(v["id"], m["id"]);
    for bad in [
        "cairn://memory/ffffffff",
        "cairn://nothing",
        "https://example.com",
    ] {
        match read(bad.into()).await {
            Err(ServiceError::McpError(e)) => {
                assert!(e.code.0 == -32002 || e.code.0 == -32602, "{bad}: {e:?}")
            }
            other => panic!("{bad}: {other:?}"),
        }
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn observe_then_recall_in_the_conversation_and_get_its_window() {
    let env = Env::new();
    let client = env.client(None).await;
    let logged = call(
        &client,
        "observe",
        json!({"conversation": "chat-1", "messages": [
            {"speaker": "user", "text": "Our staging database runs on host db-stage-7.", "session": "s1", "at": "2026-01-05T10:00:00Z"},
            {"role": "assistant", "text": "Noted: staging database on db-stage-7.", "session": "s1", "at": "2026-01-05T10:00:05Z"}
        ]}),
    )
    .await;
    let messages = logged["logged"].as_array().unwrap();
    assert_eq!(messages.len(), 2);
    assert_eq!(messages[0]["topic"], "chat-1#1");
    assert_eq!(messages[0]["new_topic"], true);
    // A message without text is refused, naming the problem.
    let bad = call_err(
        &client,
        "observe",
        json!({"conversation": "chat-1", "messages": [{"speaker": "user", "text": " "}]}),
    )
    .await;
    assert!(bad.contains("empty"), "{bad}");

    let found = call(
        &client,
        "recall",
        json!({"query": "which host is staging on", "conversation": "chat-1"}),
    )
    .await;
    let results = found["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    assert!(results.iter().all(|r| r["conversation"] == "chat-1"));
    let elsewhere = call(
        &client,
        "recall",
        json!({"query": "which host is staging on", "conversation": "chat-2"}),
    )
    .await;
    assert!(elsewhere["results"].as_array().unwrap().is_empty());

    let window = call(
        &client,
        "window",
        json!({"session": "s1", "message": "where is staging?", "budget": 200, "format": "memory"}),
    )
    .await;
    let text = window["text"].as_str().unwrap();
    assert!(
        text.starts_with("<memory>") && text.contains("db-stage-7"),
        "{text}"
    );
    assert!(window["total_tokens"].as_u64().unwrap() <= 200);

    let working = client
        .read_resource(ReadResourceRequestParams::new(
            "cairn://session/s1/working-memory",
        ))
        .await
        .unwrap();
    let ResourceContents::TextResourceContents { text, .. } = &working.contents[0] else {
        panic!("not text");
    };
    assert!(
        text.contains("## Working memory") && text.contains("db-stage-7"),
        "{text}"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_memory_protocol_prompt() {
    let env = Env::new();
    let client = env.client(Some("atlas")).await;
    let prompts = client.list_all_prompts().await.unwrap();
    let names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["memory-protocol", "memory-block"]);
    let p = client
        .get_prompt(GetPromptRequestParams::new("memory-protocol"))
        .await
        .unwrap();
    let body = serde_json::to_string(&p.messages[0]).unwrap();
    assert!(body.contains("Recall before acting"), "{body}");
    assert!(body.contains("project is `atlas`"), "{body}");
    assert!(matches!(
        client.get_prompt(GetPromptRequestParams::new("nope")).await,
        Err(ServiceError::McpError(_))
    ));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_memory_block_prompt_carries_rules_first_within_its_budget() {
    let env = Env::new();
    let client = env.client(Some("atlas")).await;
    call(
        &client,
        "remember",
        json!({"content": "Always run the migrations before deploying the API.", "type": "rule"}),
    )
    .await;
    call(
        &client,
        "remember",
        json!({"content": "The API is deployed with the deploy script in ops/.", "type": "fact"}),
    )
    .await;
    let mut params = GetPromptRequestParams::new("memory-block");
    params.arguments = Some(
        json!({"query": "deploy the API", "budget": "200"})
            .as_object()
            .unwrap()
            .clone(),
    );
    let p = client.get_prompt(params).await.unwrap();
    let body = serde_json::to_string(&p.messages[0]).unwrap();
    assert!(body.contains("<memory>"), "{body}");
    let rule = body
        .find("[Procedural] Always run the migrations")
        .expect("the rule");
    let fact = body
        .find("[Semantic] The API is deployed")
        .expect("the fact");
    assert!(rule < fact, "{body}");
    assert!(p.description.unwrap().contains("of 200 tokens"));
    // A query is required.
    assert!(matches!(
        client
            .get_prompt(GetPromptRequestParams::new("memory-block"))
            .await,
        Err(ServiceError::McpError(_))
    ));
    client.cancel().await.unwrap();
}

/// Several clients on one server, and another engine (as the CLI in another
/// process would be) on the same database file, all writing at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn several_clients_and_another_process_share_one_store() {
    let env = Env::new();
    let server = env.server(None);
    let a = Env::connect(server.for_session()).await;
    let b = Env::connect(server.for_session()).await;
    let other = Env::engine_at(&env.dir.path().join("cairn.db"));
    let writes = |client: crate::Client, who: &'static str| async move {
        for i in 0..8 {
            call(
                &client,
                "remember",
                json!({"content": format!("{who} wrote memory {i} about topic {}", i * 7 + who.len()), "type": "episode"}),
            )
            .await;
        }
        client
    };
    let cli = tokio::task::spawn_blocking(move || {
        for i in 0..8 {
            let mut req = cairn_core::RememberRequest::new(
                cairn_core::DEFAULT_TENANT,
                format!("the cli wrote memory {i} about topic {}", i * 13),
            );
            req.kind = cairn_core::MemoryType::Episode;
            other.remember(req).unwrap();
        }
    });
    let (a, b, cli) = tokio::join!(writes(a, "alice"), writes(b, "bob"), cli);
    cli.unwrap();
    for client in [&a, &b] {
        assert_eq!(call(client, "stats", json!({})).await["total"], 24);
    }
    let found = call(
        &a,
        "recall",
        json!({"query": "the cli wrote memory", "mode": "keyword", "limit": 20}),
    )
    .await;
    assert!(found["results"].as_array().unwrap().len() >= 8, "{found}");
    // One client going away leaves the other served.
    drop(b);
    assert_eq!(call(&a, "stats", json!({})).await["total"], 24);
}

/// A client that offers MCP roots (on the 2025-11-25 protocol, which has
/// them): the project comes from a `.cairn` file in its root.
#[derive(Clone)]
struct RootsClient {
    root: String,
}

#[allow(deprecated)]
impl rmcp::ClientHandler for RootsClient {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        let mut info = rmcp::model::ClientConfig::new(
            rmcp::model::ClientCapabilities::builder()
                .enable_roots()
                .build(),
            rmcp::model::Implementation::new("roots-test", "0"),
        );
        info.protocol_version = rmcp::model::ProtocolVersion::V_2025_11_25;
        info
    }

    async fn list_roots(
        &self,
        _context: rmcp::service::RequestContext<rmcp::RoleClient>,
    ) -> Result<rmcp::model::ListRootsResult, rmcp::ErrorData> {
        Ok(rmcp::model::ListRootsResult::new(vec![
            rmcp::model::Root::new(self.root.clone()),
        ]))
    }
}

#[tokio::test]
async fn the_project_comes_from_the_clients_roots() {
    let env = Env::new();
    let work = env.dir.path().join("client-work");
    std::fs::create_dir_all(&work).unwrap();
    std::fs::write(
        work.join(".cairn"),
        cairn_core::project::project_file_text("from-roots"),
    )
    .unwrap();
    let server = env.server(Some("configured")).for_session();
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let client = RootsClient {
        root: format!("file://{}", work.display()),
    }
    .serve(client_io)
    .await
    .unwrap();
    // The server asks for roots after the handshake, so the answer comes
    // in the background; up to 10 s on a busy machine.
    let mut project = serde_json::Value::Null;
    for _ in 0..500 {
        let r = client
            .call_tool(rmcp::model::CallToolRequestParams::new("stats"))
            .await
            .unwrap();
        project = r.structured_content.unwrap()["session_project"].clone();
        if project == "from-roots" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(project, "from-roots");
}
