//! `cairn`: persistent memory for AI agents, from the terminal.
//!
//! Thin glue: parse arguments, open the store and the embedder, call the
//! engine in `cairn-core`, print. Every error is mapped to an exit code in
//! one place ([`exit_code`]).

mod args;
mod backup;
mod cmd;
mod config;
mod consolidate;
mod conversation;
mod foreign;
mod ingest;
mod keys;
mod lazy;
mod model;
mod out;
mod serve;
mod setup;
mod slot;

use std::io::Write;
use std::process::ExitCode;

use cairn_core::ErrorKind;
use clap::Parser;

/// Exit code for success.
const EXIT_OK: u8 = 0;
/// Exit code when the memory asked for does not exist.
const EXIT_NOT_FOUND: u8 = 1;
/// Exit code for bad input (also clap's code for bad arguments).
const EXIT_BAD_INPUT: u8 = 2;
/// Exit code for internal faults (storage, model).
const EXIT_INTERNAL: u8 = 3;

/// Exit code when the store is busy or unreachable (retry later).
const EXIT_UNAVAILABLE: u8 = 4;

fn exit_code(kind: ErrorKind) -> u8 {
    match kind {
        ErrorKind::InvalidInput
        | ErrorKind::Ambiguous
        | ErrorKind::Conflict
        | ErrorKind::TooLarge
        | ErrorKind::Unauthenticated
        | ErrorKind::Forbidden => EXIT_BAD_INPUT,
        ErrorKind::NotFound => EXIT_NOT_FOUND,
        ErrorKind::Unavailable => EXIT_UNAVAILABLE,
        ErrorKind::Internal => EXIT_INTERNAL,
    }
}

/// A reader that stopped reading (`cairn export | head`) is not an error.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    let broken = std::io::ErrorKind::BrokenPipe;
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == broken)
            || e.downcast_ref::<cairn_core::Error>()
                .is_some_and(|c| c.has_io_cause(broken))
    })
}

fn main() -> ExitCode {
    // Before any thread starts: the encoder's thread pool gets one thread
    // per physical core.
    cairn_embed::init_threads();
    let cli = args::Cli::parse();
    let json = cli.json;
    match cmd::run(cli) {
        Ok(()) => ExitCode::from(EXIT_OK),
        Err(err) if is_broken_pipe(&err) => ExitCode::from(EXIT_OK),
        Err(err) => {
            let (kind, code, message) = match err.downcast_ref::<cairn_core::Error>() {
                Some(e) => (e.kind(), e.code(), e.to_string()),
                None => (ErrorKind::Internal, "internal", format!("{err:#}")),
            };
            let mut stderr = std::io::stderr().lock();
            if json {
                let body = serde_json::json!({"error": {"code": code, "message": message}});
                let _ = writeln!(stderr, "{body}");
            } else {
                let _ = writeln!(stderr, "{} {message}", out::paint("error:", out::RED));
            }
            ExitCode::from(exit_code(kind))
        }
    }
}
