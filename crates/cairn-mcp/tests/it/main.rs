//! In-process tests of the MCP server: a real rmcp client and the server
//! over an in-memory pipe, a real SQLite store in a temporary directory,
//! and the conformance suite's small deterministic embedder (texts that
//! share words are similar), so that they need no model. The real model is
//! exercised end to end by the CLI's tests and `scripts/mcp-e2e.sh`.

#![allow(missing_docs)]

mod docs;
mod mcp;
mod mcp_protocol;
mod providers;
mod schemas;

use std::sync::Arc;

use cairn_core::conformance::LexicalEmbedder;
use cairn_core::{Cairn, Embedder, Store};
use cairn_mcp::{CairnMcp, McpConfig};
use cairn_sqlite::SqliteStore;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceError, ServiceExt};
use serde_json::Value;

/// The embedder of these tests.
pub fn embedder() -> Arc<dyn Embedder> {
    Arc::new(LexicalEmbedder)
}

/// A store in a temporary directory and helpers to connect clients to it.
pub struct Env {
    pub dir: tempfile::TempDir,
    pub cairn: Cairn,
}

pub type Client = RunningService<RoleClient, ()>;

impl Default for Env {
    fn default() -> Self {
        Self::new()
    }
}

impl Env {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let cairn = Self::engine_at(&dir.path().join("cairn.db"));
        Env { dir, cairn }
    }

    /// Another engine (as another process would have) on the same file.
    pub fn engine_at(path: &std::path::Path) -> Cairn {
        let store: Arc<dyn Store> = Arc::new(SqliteStore::open(path).unwrap());
        Cairn::new(store, embedder())
    }

    pub fn server(&self, project: Option<&str>) -> CairnMcp {
        let mut config = McpConfig::new(cairn_core::DEFAULT_TENANT);
        config.default_project = project.map(str::to_string);
        CairnMcp::new(self.cairn.clone(), config)
    }

    /// A client connected to `server` over an in-memory pipe.
    pub async fn connect(server: CairnMcp) -> Client {
        let (server_io, client_io) = tokio::io::duplex(1 << 20);
        tokio::spawn(async move {
            if let Ok(running) = server.serve(server_io).await {
                let _ = running.waiting().await;
            }
        });
        ().serve(client_io).await.expect("client connects")
    }

    pub async fn client(&self, project: Option<&str>) -> Client {
        Self::connect(self.server(project).for_session()).await
    }
}

/// Call a tool; the raw result (protocol errors are `Err`).
pub async fn call_raw(
    client: &Client,
    tool: &str,
    args: Value,
) -> Result<CallToolResult, ServiceError> {
    let Value::Object(args) = args else {
        panic!("arguments must be an object")
    };
    client
        .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(args))
        .await
}

/// Call a tool that must succeed; its structured content.
pub async fn call(client: &Client, tool: &str, args: Value) -> Value {
    let r = call_raw(client, tool, args.clone())
        .await
        .unwrap_or_else(|e| panic!("{tool} {args}: {e}"));
    assert_ne!(r.is_error, Some(true), "{tool} {args}: {}", text(&r));
    assert!(!text(&r).is_empty(), "{tool}: no text content");
    r.structured_content.expect("structured content")
}

/// Call a tool that must fail with `isError`; its text.
pub async fn call_err(client: &Client, tool: &str, args: Value) -> String {
    let r = call_raw(client, tool, args.clone())
        .await
        .unwrap_or_else(|e| panic!("{tool} {args}: protocol error {e}"));
    assert_eq!(r.is_error, Some(true), "{tool} {args} should fail");
    text(&r)
}

pub fn text(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}
