//! The MCP server over its transport: clients that disconnect, malformed
//! and deeply nested lines, ingestion and the slot tool.

use rmcp::model::{ReadResourceRequestParams, ResourceContents};
use serde_json::json;

use crate::{call, call_err, Env};

/// A client that goes away in the middle of a call leaves the server (and
/// the store) serving the others; the write is whole or absent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_disconnects_mid_call() {
    let env = Env::new();
    let server = env.server(None);
    let a = Env::connect(server.for_session()).await;
    let pending = tokio::spawn(async move {
        let _ = crate::call_raw(
            &a,
            "remember",
            json!({"content": "written by a client that hangs up"}),
        )
        .await;
    });
    tokio::task::yield_now().await;
    pending.abort();
    let _ = pending.await;
    let b = Env::connect(server.for_session()).await;
    call(
        &b,
        "remember",
        json!({"content": "the other client still works"}),
    )
    .await;
    // The abandoned call may still finish on the server meanwhile: its
    // memory is then there whole, or else not at all.
    let mut contents = Vec::new();
    env.cairn
        .export("default", false, &mut |r| {
            contents.push(r.content);
            Ok(())
        })
        .unwrap();
    contents.sort();
    assert!(
        contents == ["the other client still works"]
            || contents
                == [
                    "the other client still works",
                    "written by a client that hangs up"
                ],
        "{contents:?}"
    );
    env.cairn.store().maintenance().verify().unwrap();
}

#[tokio::test]
async fn a_line_that_is_not_json_gets_a_parse_error_and_serving_goes_on() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    let env = Env::new();
    let (mut to_server, server_in) = tokio::io::duplex(1 << 16);
    let (server_out, from_server) = tokio::io::duplex(1 << 16);
    let serving = tokio::spawn(cairn_mcp::serve_lines(
        env.server(None).for_session(),
        server_in,
        server_out,
    ));
    let mut replies = BufReader::new(from_server).lines();
    let mut next = async |line: &[u8]| -> serde_json::Value {
        to_server.write_all(line).await.unwrap();
        to_server.write_all(b"\n").await.unwrap();
        let reply = replies.next_line().await.unwrap().expect("a reply line");
        serde_json::from_str(&reply).expect("replies are JSON")
    };
    let bad = next(b"{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": ").await;
    assert_eq!(bad["error"]["code"], -32700, "{bad}");
    assert!(bad["id"].is_null());
    assert!(bad["error"]["message"]
        .as_str()
        .unwrap()
        .contains("not JSON"));
    let init = next(
        br#"{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#,
    )
    .await;
    assert_eq!(init["id"], 7, "{init}");
    assert!(init["result"]["serverInfo"].is_object(), "{init}");
    let again = next(b"garbage").await;
    assert_eq!(again["error"]["code"], -32700);
    // A line that is not UTF-8 is not JSON either; serving goes on.
    let invalid = next(b"{\"id\": \"\xff\xfe\"}").await;
    assert_eq!(invalid["error"]["code"], -32700, "{invalid}");
    let ping = next(br#"{"jsonrpc":"2.0","id":8,"method":"ping"}"#).await;
    assert_eq!(ping["id"], 8, "{ping}");
    drop(to_server);
    serving.await.unwrap().unwrap();
}

const RAW_INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;

/// A tools/call (id 7, or a notification when `id` is `None`) whose
/// argument holds 200 arrays inside one another: deeper than the JSON
/// parser's limit of 128 levels.
fn deep_call(id: Option<u32>) -> String {
    let id = id.map_or(String::new(), |id| format!(r#""id":{id},"#));
    format!(
        r#"{{"jsonrpc":"2.0",{id}"method":"tools/call","params":{{"name":"remember","arguments":{{"content":"x","metadata":{{"a":{}{}}}}}}}}}"#,
        "[".repeat(200),
        "]".repeat(200)
    )
}

#[tokio::test]
async fn a_line_nested_too_deeply_gets_an_error_with_its_id_and_serving_goes_on() {
    use std::time::Duration;
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    let env = Env::new();
    let (mut to_server, server_in) = tokio::io::duplex(1 << 16);
    let (server_out, from_server) = tokio::io::duplex(1 << 16);
    let serving = tokio::spawn(cairn_mcp::serve_lines(
        env.server(None).for_session(),
        server_in,
        server_out,
    ));
    let mut replies = BufReader::new(from_server).lines();
    let mut send = async |line: &str| {
        to_server.write_all(line.as_bytes()).await.unwrap();
        to_server.write_all(b"\n").await.unwrap();
    };
    let mut next = async || -> serde_json::Value {
        let reply = tokio::time::timeout(Duration::from_secs(5), replies.next_line())
            .await
            .expect("a reply within 5 s")
            .unwrap()
            .expect("a reply line");
        serde_json::from_str(&reply).expect("replies are JSON")
    };
    send(&RAW_INITIALIZE.replace(r#""id":1"#, r#""id":6"#)).await;
    let init = next().await;
    assert_eq!(init["id"], 6, "{init}");
    send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).await;

    send(&deep_call(Some(7))).await;
    let deep = next().await;
    assert_eq!(deep["id"], 7, "{deep}");
    assert_eq!(deep["error"]["code"], -32600, "{deep}");
    assert!(
        deep["error"]["message"]
            .as_str()
            .unwrap()
            .contains("nested 128 or more levels deep"),
        "{deep}"
    );
    // A notification that deep gets no reply: the next reply is the ping's.
    send(&deep_call(None)).await;
    send(r#"{"jsonrpc":"2.0","id":8,"method":"ping"}"#).await;
    let ping = next().await;
    assert_eq!(ping["id"], 8, "{ping}");
    assert!(ping["result"].is_object(), "{ping}");
    drop(to_server);
    serving.await.unwrap().unwrap();
}

#[tokio::test]
async fn ingest_cuts_a_text_into_typed_memories_with_a_receipt() {
    let env = Env::new();
    let client = env.client(None).await;
    let text = "Always run the database migrations before deploying the API, and never deploy on a Friday afternoon. Every deploy must have a written rollback plan, reviewed by a second engineer, before the first server is touched.\n\nAna prefers short status updates in the team channel, with the ticket number first and the next step last. She reads them in the morning, so updates written late in the day wait until then.";
    let dry = call(&client, "ingest", json!({"text": text, "dry_run": true})).await;
    assert_eq!(dry["dry_run"], true);
    let chunks = dry["chunks"].as_array().unwrap().len();
    assert!(chunks >= 1, "{dry}");
    let stats = call(&client, "stats", json!({})).await;
    assert_eq!(stats["total"], 0, "a dry run writes nothing: {stats}");
    let done = call(
        &client,
        "ingest",
        json!({"text": text, "tags": ["runbook"]}),
    )
    .await;
    assert_eq!(done["chunks"].as_array().unwrap().len(), chunks);
    let stored = done["stored"].as_u64().unwrap();
    assert!(stored >= 1, "{done}");
    let listed = call(&client, "list", json!({"tags": ["runbook"]})).await;
    assert_eq!(listed["total"].as_u64().unwrap(), stored, "{listed}");
    let bad = call_err(&client, "ingest", json!({"text": "  "})).await;
    assert!(bad.contains("empty"), "{bad}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_slot_tool_saves_reads_selects_searches_and_honours_zero_mode() {
    let env = Env::new();
    let client = env.client(None).await;
    let bad = call_err(
        &client,
        "slot",
        json!({"action": "save", "text": "no slot yet"}),
    )
    .await;
    assert!(bad.contains("needs a slot"), "{bad}");
    call(
        &client,
        "slot",
        json!({"action": "use", "name": "atlas-dev"}),
    )
    .await;
    let saved = call(
        &client,
        "slot",
        json!({"action": "save", "text": "Decided to move the queue to NATS after the load test."}),
    )
    .await;
    assert_eq!(saved["result"]["entry"]["index"], 1, "{saved}");
    call(
        &client,
        "slot",
        json!({"action": "save", "text": "The staging database moved to fra1."}),
    )
    .await;
    let read = call(&client, "slot", json!({"action": "read"})).await;
    assert_eq!(read["result"]["total"], 2, "{read}");
    let last = call(&client, "slot", json!({"action": "select", "which": "-1"})).await;
    assert!(last["result"]["entry"]["memory"]["content"]
        .as_str()
        .unwrap()
        .contains("fra1"));
    let found = call(
        &client,
        "slot",
        json!({"action": "search", "query": "NATS queue"}),
    )
    .await;
    assert!(found["result"]["results"][0]["content"]
        .as_str()
        .unwrap()
        .contains("NATS"));
    assert_eq!(
        found["result"]["results"][0]["highlight"]["terms"],
        json!(["nats", "queue"]),
        "{found}"
    );

    // Zero mode for the session: a save is refused and writes nothing.
    call(&client, "slot", json!({"action": "zero", "on": true})).await;
    let refused = call_err(
        &client,
        "slot",
        json!({"action": "save", "text": "secret plans"}),
    )
    .await;
    assert!(refused.contains("zero mode is on"), "{refused}");
    let stats = call(&client, "stats", json!({})).await;
    assert_eq!(stats["total"], 2, "{stats}");
    call(&client, "slot", json!({"action": "zero", "on": false})).await;

    // The slot as a resource, and archived out of recall.
    let md = client
        .read_resource(ReadResourceRequestParams::new("cairn://slot/atlas-dev.md"))
        .await
        .unwrap();
    let ResourceContents::TextResourceContents { text, .. } = &md.contents[0] else {
        panic!("not text")
    };
    assert!(text.starts_with("# Memory Slot: atlas-dev"), "{text}");
    let resources = client.list_all_resources().await.unwrap();
    let json_resource = resources
        .iter()
        .find(|r| r.uri == "cairn://slot/atlas-dev.json")
        .expect("the slot's JSON resource");
    assert!(json_resource.size.is_some_and(|s| s > 0));
    assert!(json_resource
        .annotations
        .as_ref()
        .and_then(|a| a.last_modified.as_ref())
        .is_some());

    call(
        &client,
        "slot",
        json!({"action": "archive", "reason": "done"}),
    )
    .await;
    let hits = call(&client, "recall", json!({"query": "NATS queue"})).await;
    assert_eq!(hits["results"], json!([]), "{hits}");
    // The templates' argument completes to slot names.
    call(
        &client,
        "slot",
        json!({"action": "save", "name": "atlas-ops", "text": "pager rota"}),
    )
    .await;
    call(
        &client,
        "slot",
        json!({"action": "save", "name": "beta", "text": "beta notes"}),
    )
    .await;
    let complete = |typed: &'static str| {
        let client = &client;
        async move {
            client
                .complete_resource_argument("cairn://slot/{name}.md", "name", typed, None)
                .await
                .unwrap()
                .values
        }
    };
    assert_eq!(complete("atl").await, ["atlas-dev", "atlas-ops"]);
    assert_eq!(complete("").await.len(), 3);
    assert!(complete("zzz").await.is_empty());
    let bad = call_err(&client, "slot", json!({"action": "fly"})).await;
    assert!(bad.contains("unknown slot action"), "{bad}");
    client.cancel().await.unwrap();
}
