//! # cairn-mcp
//!
//! Cairn's Model Context Protocol server: one handler ([`CairnMcp`]) with
//! the tools (`tools.rs`; listed in `docs/ARCHITECTURE.md`, which a test
//! compares with them), the resources and resource templates and the
//! prompts, over a [`cairn_core::Cairn`] engine. It is
//! served over stdio ([`serve_stdio`]) or streamable HTTP ([`http`]).
//!
//! ## Invariants
//! - No terminal code and no knowledge of SQLite: the front end builds the
//!   engine and hands it over.
//! - Engine calls leave the async workers ([`on_engine`]: `block_in_place`
//!   on a multi-threaded runtime, the blocking pool on a single-threaded
//!   one); the engine is shared by every session.
//! - Engine errors are tool results with `isError` and an actionable
//!   message; protocol errors (unknown tool, bad arguments) are JSON-RPC
//!   errors.
//! - On stdio, stdout carries only protocol messages: log with `tracing`
//!   to stderr.

#![warn(unreachable_pub)]

pub mod help;
pub mod jsonrpc;
pub mod lines;
mod render;
mod schema;
pub mod server;
mod slots;
mod tools;
pub mod types;

pub use lines::serve_lines;
pub use server::{on_engine, CairnMcp, McpConfig, ReadOnly, RequestCaller, RequestProject};

/// Serve `server` over this process's stdin and stdout until the client
/// disconnects (see [`serve_lines`]).
pub async fn serve_stdio(server: CairnMcp) -> anyhow::Result<()> {
    serve_lines(server, tokio::io::stdin(), tokio::io::stdout()).await
}
