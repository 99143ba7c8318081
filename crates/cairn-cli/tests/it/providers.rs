//! `cairn consolidate` and the optional providers, end to end: the real
//! binary against its own store, with `MockServer` standing in for a chat
//! model and an embedding endpoint (it speaks their protocols on the
//! loopback and misbehaves on request).

use std::process::{Output, Stdio};

use cairn_providers::testing::{MockServer, Mode};
use serde_json::Value;

use crate::Env;

const CHAT: &str = "/v1/chat/completions";

/// Three sessions (days) of one conversation; each day's facts are said
/// only that day.
const TRANSCRIPT: &str = r#"{"conversation":"c1","speaker":"Ana","text":"I booked a holiday in Lisbon for the first week of June.","at":"2023-05-08T10:00:00Z"}
{"conversation":"c1","speaker":"Ben","text":"Lovely, the beaches near Cascais are great.","at":"2023-05-08T10:01:00Z"}
{"conversation":"c1","speaker":"Ana","text":"The CSS build broke: webpack fails on the Sass imports.","at":"2023-05-09T09:00:00Z"}
{"conversation":"c1","speaker":"Ben","text":"Upgrading sass-loader to version 13 fixed the bundle.","at":"2023-05-09T09:01:00Z"}
{"conversation":"c1","speaker":"Ana","text":"My daughter starts violin lessons on Thursday.","at":"2023-05-10T18:00:00Z"}
{"conversation":"c1","speaker":"Ben","text":"Violin is a great choice for her.","at":"2023-05-10T18:01:00Z"}
"#;

fn run(env: &Env, vars: &[(&str, String)], args: &[&str]) -> Output {
    let mut c = env.cmd();
    c.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in vars {
        c.env(k, v);
    }
    c.output().expect("run cairn")
}

fn json(env: &Env, vars: &[(&str, String)], args: &[&str]) -> Value {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let out = run(env, vars, &all);
    assert!(
        out.status.success(),
        "cairn {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

/// The mock server as the embedding endpoint (no local model needed) and,
/// with `chat`, as the chat model; one retry, short timeouts.
fn vars(server: &MockServer, chat: bool) -> Vec<(&'static str, String)> {
    let mut v = vec![
        ("CAIRN_EMBED_URL", server.openai_url()),
        ("CAIRN_EMBED_MODEL", "mock-embed".to_string()),
        ("CAIRN_PROVIDER_RETRIES", "1".to_string()),
        ("CAIRN_PROVIDER_TIMEOUT", "2".to_string()),
    ];
    if chat {
        v.push(("CAIRN_CHAT_URL", server.openai_url()));
        v.push(("CAIRN_CHAT_MODEL", "mock-chat".to_string()));
    }
    v
}

fn import(env: &Env, vars: &[(&str, String)]) {
    let path = env.dir.path().join("t.jsonl");
    std::fs::write(&path, TRANSCRIPT).unwrap();
    let report = json(
        env,
        vars,
        &["conversation", "import", path.to_str().unwrap()],
    );
    assert_eq!(report["imported"], 6);
}

fn recall_types(env: &Env, vars: &[(&str, String)], args: &[&str]) -> Vec<(String, String)> {
    let mut all = vec!["recall"];
    all.extend_from_slice(args);
    let out = json(env, vars, &all);
    out["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            let m = if r.get("memory").is_some() {
                &r["memory"]
            } else {
                r
            };
            (
                m["type"].as_str().unwrap_or_default().to_string(),
                m["content"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

#[test]
fn old_sessions_are_consolidated_into_recallable_summaries() {
    let server = MockServer::start();
    let env = Env::new();
    let v = vars(&server, false);
    import(&env, &v);

    let dry = json(&env, &v, &["consolidate", "--keep", "1", "--dry-run"]);
    assert_eq!(dry["dry_run"], true);
    assert_eq!(dry["episodes"], 4);
    let report = json(&env, &v, &["consolidate", "--keep", "1"]);
    let groups = report["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 2);
    assert_eq!(groups[0]["group"], "session:c1@2023-05-08");
    assert_eq!(groups[0]["summarised_by"]["by"], "extractive");
    let summary_id = groups[0]["summary_id"].as_str().unwrap().to_string();

    // Only the summary answers for the first day by default…
    let found = recall_types(&env, &v, &["Where is the holiday?", "--limit", "3"]);
    assert_eq!(found[0].0, "summary", "{found:?}");
    assert!(found[0].1.contains("Lisbon"));
    assert!(
        !found
            .iter()
            .any(|(t, c)| t == "episode" && c.contains("Lisbon")),
        "{found:?}"
    );
    // …its episodes come back with the flag, and the summary names them.
    let with = recall_types(
        &env,
        &v,
        &[
            "Where is the holiday?",
            "--limit",
            "5",
            "--include-consolidated",
        ],
    );
    assert!(
        with.iter()
            .any(|(t, c)| t == "episode" && c.contains("Lisbon")),
        "{with:?}"
    );
    let got = json(&env, &v, &["get", &summary_id]);
    let got = if got.get("memory").is_some() {
        &got["memory"]
    } else {
        &got
    };
    assert_eq!(
        got["metadata"]["consolidated_from"]
            .as_array()
            .unwrap()
            .len(),
        2
    );

    // Nothing left over the limit; summaries are never summarised again.
    let again = json(&env, &v, &["consolidate", "--keep", "1"]);
    assert_eq!(again["groups"].as_array().unwrap().len(), 0);
}

#[test]
fn the_chat_model_writes_summaries_and_its_failures_fall_back() {
    let server = MockServer::start();
    let env = Env::new();
    let v = vars(&server, true);
    import(&env, &v);
    let report = json(&env, &v, &["consolidate", "--keep", "2"]);
    let g = &report["groups"][0];
    assert_eq!(g["summarised_by"]["by"], "llm");
    assert_eq!(g["summarised_by"]["model"], "mock-chat");
    assert!(g["summary"].as_str().unwrap().starts_with("Summary: "));

    // The chat model fails (500, then malformed): the summary is
    // extractive, the memory is kept, the receipt says why.
    server.script_on(CHAT, &[Mode::ServerError, Mode::Malformed]);
    let report = json(&env, &v, &["consolidate", "--keep", "1"]);
    let g = &report["groups"][0];
    assert_eq!(g["summarised_by"]["by"], "extractive");
    let why = g["summarised_by"]["fallback"].as_str().unwrap();
    assert!(
        why.contains("malformed JSON") && why.contains("2 tries"),
        "{why}"
    );
    assert!(g["summary"].as_str().unwrap().contains("Sass"));
}

#[test]
fn a_slot_progress_summary_uses_the_chat_model_or_falls_back() {
    let server = MockServer::start();
    let env = Env::new();
    let v = vars(&server, true);
    let text = "We chose PostgreSQL for the store. The migration runs on Friday. Ana owns the rollback plan.";
    let saved = json(
        &env,
        &v,
        &["slot", "save-progress", "notes", text, "--ratio", "0.5"],
    );
    assert_eq!(saved["summarised_by"]["by"], "llm", "{saved}");
    server.script_on(CHAT, &[Mode::Unauthorized]);
    let saved = json(
        &env,
        &v,
        &["slot", "save-progress", "notes", text, "--ratio", "0.5"],
    );
    assert_eq!(saved["summarised_by"]["by"], "extractive");
    assert!(saved["summarised_by"]["fallback"]
        .as_str()
        .unwrap()
        .contains("HTTP 401"));
}

#[test]
fn providers_are_listed_and_checked() {
    let server = MockServer::start();
    let env = Env::new();
    let v = vars(&server, true);
    let status = json(&env, &v, &["providers", "--check"]);
    assert_eq!(status["chat"]["model"], "mock-chat");
    assert_eq!(status["chat"]["check"]["ok"], true);
    assert_eq!(status["embedder"]["model"], "openai:mock-embed");
    assert_eq!(status["embedder"]["dim"], MockServer::DIM);
    assert_eq!(status["embedder"]["check"]["ok"], true);

    server.always_on(CHAT, Mode::ServerError);
    let out = run(&env, &v, &["providers", "--check"]);
    assert!(!out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("failing") && text.contains("HTTP 500"),
        "{text}"
    );

    // Without providers: extractive, and the local model's name.
    let out = run(&env, &[], &["--json", "providers"]);
    let status: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(status["chat"].is_null());
    assert_eq!(status["embedder"]["model"], "all-MiniLM-L6-v2");
}

#[test]
fn a_store_embedded_by_an_endpoint_refuses_another_model_until_reindexed() {
    let server = MockServer::start();
    let env = Env::new();
    let v = vars(&server, false);
    json(
        &env,
        &v,
        &["remember", "The deploy script lives in ops/deploy.sh"],
    );
    let stats = json(&env, &v, &["stats"]);
    assert!(stats.to_string().contains("openai:mock-embed"), "{stats}");
    // The same store with the Ollama protocol is another model.
    let mut ollama = v.clone();
    ollama[0].1 = server.ollama_url();
    ollama.push(("CAIRN_EMBED_API", "ollama".into()));
    let out = run(
        &env,
        &ollama,
        &["recall", "deploy script", "--mode", "semantic"],
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cairn reindex"));
    json(&env, &ollama, &["reindex"]);
    let found = recall_types(&env, &ollama, &["deploy script"]);
    assert!(found[0].1.contains("ops/deploy.sh"));
}

#[test]
fn providers_come_from_the_configuration_file_under_the_environment() {
    let server = MockServer::start();
    let env = Env::new();
    let config = env.dir.path().join("cairn.toml");
    std::fs::write(
        &config,
        format!(
            "[providers.chat]\nurl = \"{url}\"\nmodel = \"file-chat\"\nkey_env = \"MOCK_CHAT_KEY\"\n\
             retries = 1\ntimeout = \"2s\"\n\n[providers.embed]\nurl = \"{url}\"\nmodel = \"mock-embed\"\n",
            url = server.openai_url()
        ),
    )
    .unwrap();
    let mut v = vec![
        ("CAIRN_CONFIG", config.to_str().unwrap().to_string()),
        ("MOCK_CHAT_KEY", "sk-from-the-env".to_string()),
    ];
    let status = json(&env, &v, &["providers"]);
    assert_eq!(status["chat"]["model"], "file-chat");
    assert_eq!(status["embedder"]["model"], "openai:mock-embed");
    let source = |status: &Value, name: &str| {
        status["settings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .map(|s| s["source"].as_str().unwrap().to_string())
    };
    assert_eq!(
        source(&status, "chat.model").as_deref(),
        Some("file providers.chat.model")
    );
    assert_eq!(
        source(&status, "chat.key").as_deref(),
        Some("env MOCK_CHAT_KEY (providers.chat.key_env)")
    );
    assert!(!status.to_string().contains("sk-from-the-env"));

    // The variable wins over the file.
    v.push(("CAIRN_CHAT_MODEL", "env-chat".to_string()));
    let status = json(&env, &v, &["providers"]);
    assert_eq!(status["chat"]["model"], "env-chat");
    assert_eq!(
        source(&status, "chat.model").as_deref(),
        Some("env CAIRN_CHAT_MODEL")
    );

    // Ingestion asks the configured model for facts; the key is sent.
    let text = "Ana moved to Lisbon in May 2023. Ben prefers tea over coffee.";
    let out = json(&env, &v, &["ingest", "--facts", "--threshold", "0", text]);
    assert!(out["facts"].as_u64().unwrap() >= 2, "{out}");
    assert_eq!(out["titled_by"]["model"], "env-chat");
    let chat_request = server
        .requests()
        .into_iter()
        .find(|(path, _)| path == CHAT)
        .unwrap();
    assert_eq!(chat_request.1["model"], "env-chat");

    // A key written in the file is refused, naming where keys go.
    std::fs::write(
        &config,
        "[providers.chat]\nurl = \"http://localhost:1/v1\"\nmodel = \"m\"\nkey = \"sk-1\"\n",
    )
    .unwrap();
    let out = run(&env, &v, &["providers"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("providers.chat.key") && err.contains("key_env"),
        "{err}"
    );
}

#[test]
fn writes_wait_for_a_failing_embedding_endpoint_and_are_stored_when_it_answers() {
    let server = MockServer::start();
    let env = Env::new();
    let v = vars(&server, false);
    json(
        &env,
        &v,
        &["remember", "The deploy script lives in ops/deploy.sh"],
    );

    // The endpoint fails: the write is kept, with the id it will have.
    server.always_on("/v1/embeddings", Mode::ServerError);
    let kept = json(&env, &v, &["remember", "Backups run nightly at 02:00 UTC"]);
    assert_eq!(kept["status"], "pending");
    let id = kept["id"].as_str().unwrap().to_string();
    let out = run(&env, &v, &["reindex", "--pending"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("still fails"));

    // It answers again: the write is stored, found by recall, once.
    server.always_on("/v1/embeddings", Mode::Ok);
    let report = json(&env, &v, &["reindex", "--pending"]);
    assert_eq!(
        (report["embedded"].as_u64(), report["remaining"].as_u64()),
        (Some(1), Some(0))
    );
    let found = json(&env, &v, &["recall", "when do backups run"]);
    assert_eq!(
        found["results"][0]["id"].as_str(),
        Some(id.as_str()),
        "{found}"
    );
    let again = json(&env, &v, &["reindex", "--pending"]);
    assert_eq!(again["embedded"], 0);
}

#[test]
fn a_failing_reranker_is_reported_and_recall_keeps_its_own_order() {
    let server = MockServer::start();
    let env = Env::new();
    let mut v = vars(&server, false);
    for text in [
        "The deploy script lives in ops/deploy.sh",
        "The deploy runs on Fridays",
        "Deploy keys rotate monthly",
    ] {
        json(&env, &v, &["remember", text]);
    }
    let plain = json(&env, &v, &["recall", "deploy script"]);
    assert!(plain.get("rerank").is_none(), "no reranker: {plain}");
    v.push(("CAIRN_RERANK_URL", server.openai_url()));
    v.push(("CAIRN_RERANK_MODEL", "mock-rerank".to_string()));
    let reranked = json(&env, &v, &["recall", "deploy script"]);
    assert_eq!(reranked["rerank"]["applied"], true, "{reranked}");

    server.always_on("/v1/rerank", Mode::ServerError);
    let failed = json(&env, &v, &["recall", "deploy script"]);
    let ids = |out: &Value| -> Vec<String> {
        out["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(ids(&failed), ids(&plain), "recall's own order");
    assert_eq!(failed["rerank"]["applied"], false, "{failed}");
    assert!(failed["rerank"]["reranker"]
        .as_str()
        .unwrap()
        .starts_with("http:mock-rerank"));
    let failure = failed["rerank"]["failure"].as_str().unwrap();
    assert!(failure.contains("500"), "{failure}");
    let text = run(&env, &v, &["recall", "deploy script"]);
    assert!(text.status.success());
    let stderr = String::from_utf8_lossy(&text.stderr);
    assert!(
        stderr.contains("warning:") && stderr.contains("reranker"),
        "{stderr}"
    );
}

#[test]
fn logged_messages_wait_for_a_failing_embedding_endpoint_and_land_in_their_conversation() {
    let server = MockServer::start();
    let env = Env::new();
    let v = vars(&server, false);
    let log = |speaker: &str, text: &str| {
        let args = [
            "conversation",
            "log",
            "--conversation",
            "c1",
            "--speaker",
            speaker,
            text,
        ];
        json(&env, &v, &args)
    };
    log("Ana", "Where do the nightly backups go?");

    server.always_on("/v1/embeddings", Mode::ServerError);
    let kept = log("Ben", "The nightly backups go to the cold-storage bucket.");
    assert_eq!(kept["logged"], serde_json::json!([]), "{kept}");
    let id = kept["pending"][0]["id"].as_str().unwrap().to_string();
    assert_eq!(kept["pending"][0]["conversation"], "c1");
    assert!(kept["pending_reason"].as_str().unwrap().contains("pending"));
    let text = run(
        &env,
        &v,
        &[
            "conversation",
            "log",
            "--conversation",
            "c1",
            "--speaker",
            "Ana",
            "Thanks!",
        ],
    );
    assert!(text.status.success());
    assert!(String::from_utf8_lossy(&text.stdout).contains("kept pending"));

    server.always_on("/v1/embeddings", Mode::Ok);
    let report = json(&env, &v, &["reindex", "--pending"]);
    assert_eq!(
        (report["embedded"].as_u64(), report["remaining"].as_u64()),
        (Some(2), Some(0)),
        "{report}"
    );
    let shown = json(&env, &v, &["conversation", "show", "c1"]);
    assert_eq!(shown["messages"], 3, "{shown}");
    let messages: Vec<&Value> = shown["topic_list"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["messages"].as_array().unwrap())
        .collect();
    let contents: Vec<&str> = messages
        .iter()
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(
        contents,
        [
            "Ana: Where do the nightly backups go?",
            "Ben: The nightly backups go to the cold-storage bucket.",
            "Ana: Thanks!"
        ]
    );
    assert_eq!(messages[1]["id"], id.as_str());
}
