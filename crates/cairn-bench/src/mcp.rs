//! `cairn-bench mcp`: what the MCP layer adds to a recall.
//!
//! The same store (synthetic memories and embedder, so no model inference
//! blurs the figures) is asked the same queries three ways: through the
//! engine (`Cairn::recall`); through the MCP handler behind
//! `cairn_mcp::serve_lines` over byte pipes (exactly what `cairn mcp` runs
//! on stdin and stdout, but in-process: the real binary embeds with MiniLM,
//! whose per-query cost would drown the difference); and through the
//! real axum app over HTTP on loopback (`cairn serve`'s router, a keep-alive
//! HTTP/1.1 client, MCP session headers, SSE responses). The ways are
//! interleaved query by query, so that drift in the machine's speed weighs
//! on all of them alike. Finally the real `cairn serve` and `cairn mcp`
//! processes are started on the store and their idle resident memory is
//! read from /proc.

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use cairn_core::api::EngineBuilder;
use cairn_core::{RecallRequest, Store, StoreCaches};
use cairn_mcp::{CairnMcp, McpConfig};
use cairn_sqlite::SqliteStore;
use rmcp::model::CallToolRequestParams;
use rmcp::ServiceExt;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

use crate::synth::{Corpus, SyntheticEmbedder};
use crate::timing::ms;

/// Run the benchmark and print its table.
pub fn run(memories: usize, queries: usize, cairn_bin: &Path) -> Result<()> {
    let tmp = tempfile::tempdir()?;
    let path = tmp.path().join("mcp-bench.db");
    let corpus = Corpus::new(42);
    let embedder = Arc::new(SyntheticEmbedder::new(corpus.clone()));
    let sqlite = Arc::new(SqliteStore::open(&path)?);
    let store: Arc<dyn Store> = sqlite.clone();
    let cairn = EngineBuilder::new(store.clone(), embedder.clone()).build()?;
    crate::store::fill(
        &cairn,
        Some(&sqlite),
        &corpus,
        &embedder,
        memories,
        tmp.path(),
    )?;
    // What `cairn serve` and `cairn mcp` do at start.
    sqlite.preload()?;
    let texts: Vec<String> = (0..queries)
        .map(|q| corpus.query_text(q as u64 + 1))
        .collect();

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let server = CairnMcp::new(cairn.clone(), McpConfig::new("default"));

    // The paths are measured interleaved, query by query, so that a slow
    // stretch of a shared machine weighs on all of them alike.
    let mut core = Vec::with_capacity(queries);
    let mut tool_work = Vec::with_capacity(queries);
    let mut pipe = Vec::with_capacity(queries);
    let mut http = Vec::with_capacity(queries);
    rt.block_on(async {
        // MCP over two pipes through `serve_lines`: what `cairn mcp` runs
        // on stdin and stdout.
        let (client_out, server_in) = tokio::io::duplex(1 << 20);
        let (server_out, client_in) = tokio::io::duplex(1 << 20);
        tokio::spawn(cairn_mcp::serve_lines(
            server.for_session(),
            server_in,
            server_out,
        ));
        let client = ().serve((client_in, client_out)).await?;
        let call = |q: &str| {
            let args = json!({"query": q, "limit": 10});
            let Value::Object(args) = args else {
                unreachable!()
            };
            CallToolRequestParams::new("recall").with_arguments(args)
        };

        // MCP over streamable HTTP on loopback, the `cairn serve` router.
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let jobs = cairn_server::Jobs {
            sweep_every: Duration::from_secs(3600),
            save_caches_every: Duration::from_secs(3600),
            consolidate_every: None,
            ..Default::default()
        };
        let serving = tokio::spawn(cairn_server::serve(
            listener,
            // Without keys: the protocol's overhead alone.
            cairn_server::AppState::new(server.clone()).with_auth(cairn_server::Auth::Open),
            jobs,
            async move {
                let _ = stop_rx.await;
            },
        ));
        let mut web = HttpClient::connect(&addr.to_string()).await?;
        web.initialize().await?;

        // Warm up every path once.
        let first = corpus.query_text(0);
        cairn.recall(&RecallRequest::new("default", first.clone()))?;
        client.call_tool(call(&first)).await?;
        web.recall(&first).await?;

        for q in &texts {
            let mut req = RecallRequest::new("default", q.clone());
            req.limit = 10;

            // 1. The engine alone.
            let t = Instant::now();
            std::hint::black_box(cairn.recall(&req)?);
            core.push(t.elapsed().as_secs_f64() * 1000.0);

            // 2. The engine plus the work the `recall` tool adds to it:
            // short ids of 13+ characters and a token count per line.
            let t = Instant::now();
            for r in cairn.recall(&req)? {
                let short = cairn.short_id_at_least("default", r.memory.id, 13)?;
                std::hint::black_box(cairn_core::tokens::count_tokens(&format!(
                    "- {short} {}",
                    r.memory.content
                )));
            }
            tool_work.push(t.elapsed().as_secs_f64() * 1000.0);

            // 3. Through MCP over the pipe.
            let t = Instant::now();
            let r = client.call_tool(call(q)).await?;
            pipe.push(t.elapsed().as_secs_f64() * 1000.0);
            if r.is_error == Some(true) {
                bail!("recall failed: {:?}", r.content);
            }

            // 4. Through MCP over HTTP.
            let t = Instant::now();
            web.recall(q).await?;
            http.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        client.cancel().await?;
        drop(web);
        let _ = stop_tx.send(());
        serving.await??;
        anyhow::Ok(())
    })?;

    // Idle memory of the real server processes on this store.
    store.set_model(&cairn_embed::model_info())?;
    let serve_rss = idle_rss(
        cairn_bin,
        &path,
        &["serve", "--listen", "127.0.0.1:0"],
        Stdio::null(),
    );
    let mcp_rss = idle_rss(cairn_bin, &path, &["mcp", "--no-detect"], Stdio::piped());

    print_table(
        [&mut core, &mut tool_work, &mut pipe, &mut http],
        [serve_rss, mcp_rss],
        memories,
        queries,
    );
    Ok(())
}

/// The table of latencies (engine, engine + tool work, pipe, HTTP; in ms)
/// and idle memory (`cairn serve`, `cairn mcp`; KiB).
fn print_table(
    timings: [&mut Vec<f64>; 4],
    rss: [Option<u64>; 2],
    memories: usize,
    queries: usize,
) {
    let [core, tool_work, pipe, http] = timings;
    let (c50, c95) = ms(core);
    let (p50, p95) = ms(pipe);
    let (h50, h95) = ms(http);
    println!("| path | p50 | p95 | overhead p50 | overhead p95 |");
    println!("|---|---:|---:|---:|---:|");
    let (t50, t95) = ms(tool_work);
    println!("| engine `Cairn::recall` | {c50:.2} ms | {c95:.2} ms | – | – |");
    println!(
        "| engine + the tool's own work (short ids, token counts without its memo), no protocol | {t50:.2} ms | {t95:.2} ms | {:.2} ms | {:.2} ms |",
        t50 - c50,
        t95 - c95
    );
    println!(
        "| MCP `recall`, stdio framing (pipe) | {p50:.2} ms | {p95:.2} ms | {:.2} ms | {:.2} ms |",
        p50 - c50,
        p95 - c95
    );
    println!(
        "| MCP `recall`, streamable HTTP (loopback) | {h50:.2} ms | {h95:.2} ms | {:.2} ms | {:.2} ms |",
        h50 - c50,
        h95 - c95
    );
    println!();
    println!("| process (idle, on this store) | resident memory |");
    println!("|---|---:|");
    println!("| `cairn serve` | {} |", fmt_rss(rss[0]));
    println!("| `cairn mcp` | {} |", fmt_rss(rss[1]));
    println!(
        "\n{memories} synthetic memories, {queries} hybrid queries (k = 10) with the synthetic embedder, one warm process; overhead = MCP − engine at the same percentile. Idle memory: VmRSS 3 s after start (the MiniLM model is loaded at start-up)."
    );
}

fn fmt_rss(kib: Option<u64>) -> String {
    kib.map_or("n/a (binary not found)".into(), |k| {
        format!("{:.0} MiB", k as f64 / 1024.0)
    })
}

/// VmRSS (KiB) of `cairn ARGS` on `db`, 3 s after start.
fn idle_rss(bin: &Path, db: &Path, args: &[&str], stdin: Stdio) -> Option<u64> {
    if !bin.is_file() {
        return None;
    }
    let mut child = Command::new(bin)
        .args(args)
        .env("CAIRN_DB", db)
        .stdin(stdin)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    std::thread::sleep(Duration::from_secs(3));
    let rss = std::fs::read_to_string(format!("/proc/{}/status", child.id()))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        });
    let _ = child.kill();
    let _ = child.wait();
    rss
}

/// The smallest MCP client over streamable HTTP: one keep-alive HTTP/1.1
/// connection, the session id header, SSE or JSON responses.
struct HttpClient {
    stream: BufReader<TcpStream>,
    host: String,
    session: Option<String>,
    next_id: u64,
}

impl HttpClient {
    async fn connect(addr: &str) -> Result<Self> {
        let stream = TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        Ok(HttpClient {
            stream: BufReader::new(stream),
            host: addr.to_string(),
            session: None,
            next_id: 1,
        })
    }

    async fn post(&mut self, body: &Value) -> Result<(Vec<(String, String)>, String)> {
        let body = body.to_string();
        let mut req = format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\nContent-Length: {}\r\n",
            self.host,
            body.len()
        );
        if let Some(s) = &self.session {
            req += &format!("Mcp-Session-Id: {s}\r\n");
        }
        req += "\r\n";
        req += &body;
        self.stream.get_mut().write_all(req.as_bytes()).await?;
        let mut status = String::new();
        self.stream.read_line(&mut status).await?;
        if !status.contains(" 200 ") && !status.contains(" 202 ") {
            bail!("HTTP {status}");
        }
        let mut headers = Vec::new();
        loop {
            let mut line = String::new();
            self.stream.read_line(&mut line).await?;
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some((k, v)) = line.split_once(':') {
                headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
            }
        }
        let header = |name: &str| {
            headers
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        };
        let mut body = Vec::new();
        if header("transfer-encoding").is_some_and(|v| v.contains("chunked")) {
            loop {
                let mut size = String::new();
                self.stream.read_line(&mut size).await?;
                let n = usize::from_str_radix(size.trim(), 16).context("chunk size")?;
                let mut chunk = vec![0; n + 2];
                self.stream.read_exact(&mut chunk).await?;
                if n == 0 {
                    break;
                }
                body.extend_from_slice(&chunk[..n]);
            }
        } else if let Some(n) = header("content-length").and_then(|v| v.parse().ok()) {
            body = vec![0; n];
            self.stream.read_exact(&mut body).await?;
        }
        Ok((headers, String::from_utf8(body)?))
    }

    /// The JSON-RPC response in a JSON or SSE body.
    fn response(body: &str) -> Result<Value> {
        let json = body
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .map(str::trim)
            .find(|d| d.contains("\"id\""))
            .unwrap_or(body.trim());
        Ok(serde_json::from_str(json)?)
    }

    async fn initialize(&mut self) -> Result<()> {
        let (headers, _) = self
            .post(
                &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "cairn-bench", "version": "0"}}}),
            )
            .await?;
        self.session = headers
            .into_iter()
            .find(|(k, _)| k == "mcp-session-id")
            .map(|(_, v)| v);
        self.post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await?;
        Ok(())
    }

    async fn recall(&mut self, query: &str) -> Result<()> {
        self.next_id += 1;
        let (_, body) = self
            .post(
                &json!({"jsonrpc": "2.0", "id": self.next_id, "method": "tools/call",
                "params": {"name": "recall", "arguments": {"query": query, "limit": 10}}}),
            )
            .await?;
        let v = Self::response(&body)?;
        if v["result"]["isError"] == json!(true) || v.get("error").is_some() {
            bail!("recall failed: {v}");
        }
        Ok(())
    }
}
