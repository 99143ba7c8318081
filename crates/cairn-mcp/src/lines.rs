//! MCP over newline-delimited JSON-RPC (the stdio transport), with the
//! lines rmcp would drop answered.
//!
//! rmcp's own line transport drops a line that is not JSON, or that is
//! nested deeper than its parser accepts, without a word, which leaves a
//! client waiting forever. Here every input line is checked first
//! ([`crate::jsonrpc::classify`]): one that is not JSON gets the JSON-RPC
//! parse error (`-32700`, `id: null`), a request nested too deeply gets
//! Invalid Request (`-32600`) with its own id, a notification nested too
//! deeply is logged (JSON-RPC forbids replying to it), and the server keeps
//! serving; the other lines go to rmcp unchanged. Output lines are written
//! whole, one at a time, so that an error never lands inside a server
//! message.

use std::sync::Arc;

use rmcp::ServiceExt;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

use crate::jsonrpc::{classify, parse_error, too_deep_error, Incoming, TooDeep};
use crate::server::CairnMcp;

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
        // Bytes, not text: a line that is not UTF-8 gets the parse error
        // like any other line that is not JSON, and reading goes on.
        let mut input = BufReader::new(input);
        let mut bytes = Vec::new();
        loop {
            bytes.clear();
            if input.read_until(b'\n', &mut bytes).await? == 0 {
                break;
            }
            let line = bytes.trim_ascii();
            if line.is_empty() {
                continue;
            }
            let reply = match classify(line) {
                Incoming::Message => {
                    to_server.write_all(line).await?;
                    to_server.write_all(b"\n").await?;
                    continue;
                }
                Incoming::NotJson(e) => {
                    tracing::debug!(error = %e, "a line that is not JSON");
                    parse_error(&e.to_string())
                }
                Incoming::TooDeep(TooDeep::Request { id }) => {
                    tracing::warn!(%id, "a request nested too deeply");
                    too_deep_error(id)
                }
                Incoming::TooDeep(TooDeep::Notification { method }) => {
                    tracing::warn!(?method, "a notification nested too deeply, dropped");
                    continue;
                }
            };
            let mut out = out.lock().await;
            out.write_all(format!("{reply}\n").as_bytes()).await?;
            out.flush().await?;
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
