//! MCP over newline-delimited JSON-RPC (the stdio transport), with JSON-RPC
//! parse errors answered.
//!
//! rmcp's own line transport drops a line that is not JSON without a word,
//! which leaves a client waiting forever. Here every input line is checked
//! first: one that does not parse gets the JSON-RPC 2.0 parse error
//! (`-32700`, `id: null`) and the server keeps serving; the others go to
//! rmcp unchanged. Output lines are written whole, one at a time, so that a
//! parse error never lands inside a server message.

use std::sync::Arc;

use rmcp::ServiceExt;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

use crate::server::CairnMcp;

/// The JSON-RPC 2.0 parse error for a message that is not JSON.
pub fn parse_error(problem: &str) -> serde_json::Value {
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {
            "code": -32700,
            "message": format!("Parse error: the message is not JSON ({problem}); send one JSON-RPC message"),
        },
    })
}

/// Serve `server` over newline-delimited JSON-RPC read from `input` and
/// written to `output`, until `input` ends.
pub async fn serve_lines<R, W>(server: CairnMcp, input: R, output: W) -> anyhow::Result<()>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (server_side, proxy_side) = tokio::io::duplex(1 << 20);
    let (from_server, mut to_server) = tokio::io::split(proxy_side);
    let output = Arc::new(Mutex::new(output));

    let out = output.clone();
    let reader = tokio::spawn(async move {
        let mut lines = BufReader::new(input).lines();
        while let Some(line) = lines.next_line().await? {
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<serde::de::IgnoredAny>(&line) {
                Ok(_) => {
                    to_server.write_all(line.as_bytes()).await?;
                    to_server.write_all(b"\n").await?;
                }
                Err(e) => {
                    tracing::debug!(error = %e, "a line that is not JSON");
                    let mut out = out.lock().await;
                    let reply = format!("{}\n", parse_error(&e.to_string()));
                    out.write_all(reply.as_bytes()).await?;
                    out.flush().await?;
                }
            }
        }
        to_server.shutdown().await
    });
    let writer = tokio::spawn(async move {
        let mut lines = BufReader::new(from_server).lines();
        while let Some(line) = lines.next_line().await? {
            let mut out = output.lock().await;
            out.write_all(line.as_bytes()).await?;
            out.write_all(b"\n").await?;
            out.flush().await?;
        }
        std::io::Result::Ok(())
    });
    let running = server.serve(server_side).await?;
    running.waiting().await?;
    reader.abort();
    let _ = writer.await;
    Ok(())
}
