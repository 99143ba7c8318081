//! `cairn mcp`, `cairn serve`, `cairn init`, `cairn setup`: thin glue
//! between the command line and `cairn-mcp` / [`crate::setup`].

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context as _, Result};
use cairn_core::project::{detect_project, detect_slot, project_file_text, PROJECT_FILE};
use cairn_core::{Cairn, Error, DEFAULT_TENANT};
use cairn_mcp::{CairnMcp, McpConfig};
use cairn_server::metrics::{MeteredEmbedder, Metrics};
use cairn_server::{AppState, Auth, CapacityLimits, Jobs, RateLimits};

use crate::config::ServeSettings;

use crate::args::{InitArgs, McpArgs, SetupArgs};
use crate::setup::{self, Change, ServerCommand, Targets};

/// Logs to stderr only (stdout may carry the protocol). `CAIRN_LOG` sets
/// the filter (e.g. `debug`, `cairn_mcp=debug`).
fn init_logging(default: &str) {
    let filter = tracing_subscriber::EnvFilter::try_from_env("CAIRN_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .try_init();
}

fn runtime() -> Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?)
}

fn cwd_project() -> Option<String> {
    let dir = std::env::current_dir().ok()?;
    detect_project(&dir).map(|d| d.name)
}

pub fn mcp(cairn: Cairn, a: McpArgs) -> Result<()> {
    init_logging("warn");
    let cairn = cairn.with_access_batching();
    let mut config = McpConfig::new(crate::cmd::tenant());
    config.default_project = match (a.project, a.no_detect) {
        (Some(p), _) => Some(p.trim().to_string()),
        (None, true) => None,
        (None, false) => cwd_project(),
    };
    config.use_roots = !a.no_detect;
    if !a.no_detect {
        config.default_slot = std::env::current_dir()
            .ok()
            .and_then(|d| detect_slot(&d))
            .map(|(slot, _)| slot);
    }
    tracing::info!(project = ?config.default_project, slot = ?config.default_slot, "serving MCP on stdio");
    let server = CairnMcp::new(cairn.clone(), config);
    runtime()?.block_on(async move {
        let shutdown = tokio_util::sync::CancellationToken::new();
        cairn_server::jobs::warm_up(&cairn);
        let saver = cairn_server::jobs::save_caches(
            &cairn,
            Jobs::default().save_caches_every,
            shutdown.clone(),
        );
        let served = cairn_mcp::serve_stdio(server).await;
        shutdown.cancel();
        let _ = saver.await;
        cairn.flush_accesses()?;
        served
    })
}

/// The server's first line of output: every surface's URL (the web UI
/// first), and what a request needs when keys are required.
fn startup_line(addr: &str, auth: Auth) -> String {
    let urls: Vec<String> = cairn_server::SURFACES
        .iter()
        .map(|(name, path)| format!("{name} http://{addr}{path}"))
        .collect();
    let needs = match auth {
        Auth::Keys => {
            "; every /mcp and /v1 request needs `Authorization: Bearer <key>` \
             (make one: cairn keys create --role write)"
        }
        Auth::Open => "",
    };
    format!("cairn: {}{needs}", urls.join(", "))
}

pub fn serve(cairn: Cairn, s: ServeSettings) -> Result<()> {
    init_logging("info");
    let mut config = McpConfig::new(DEFAULT_TENANT);
    config.default_project = s.project.as_deref().map(|p| p.trim().to_string());
    let auth = if s.auth_required {
        Auth::Keys
    } else {
        Auth::Open
    };
    let metrics = Arc::new(Metrics::default());
    let embedder = MeteredEmbedder::new(cairn.embedder().clone(), metrics.clone());
    let cairn = cairn
        .with_embedder(Arc::new(embedder))
        .with_access_batching();
    let engine = cairn.clone();
    let state = AppState::new(CairnMcp::new(cairn, config))
        .with_metrics(metrics)
        .with_auth(auth)
        .with_rate_limits(
            RateLimits {
                writes: s.rate_writes,
                recalls: s.rate_recalls,
                reads: s.rate_reads,
            },
            s.key_rates.clone(),
        )
        .with_capacity(CapacityLimits {
            request_timeout: s.request_timeout,
            max_concurrent: s.max_concurrent,
            queue_wait: s.queue_wait,
            max_import_bytes: s.max_import_bytes,
            header_timeout: s
                .header_timeout
                .unwrap_or(CapacityLimits::default().header_timeout),
            max_connections: s
                .max_connections
                .unwrap_or(CapacityLimits::default().max_connections),
        });
    let jobs = Jobs {
        sweep_every: s.sweep_every,
        consolidate_every: s.consolidate_every,
        consolidate_keep: s.consolidate_keep,
        lease: s.job_lease,
        ..Jobs::default()
    };
    runtime()?.block_on(async move {
        let listener = tokio::net::TcpListener::bind(&s.listen)
            .await
            .map_err(|e| Error::invalid(format!("cannot listen on {}: {e}", s.listen)))?;
        let addr = listener.local_addr()?;
        let mut hosts: Vec<String> = cairn_server::LOOPBACK_HOSTS.map(String::from).to_vec();
        hosts.extend(s.allow_hosts.iter().cloned());
        let open_hosts =
            auth == Auth::Keys && !addr.ip().is_loopback() && s.allow_hosts.is_empty();
        let state = state
            .with_mcp_hosts((!open_hosts).then_some(hosts))
            .with_public_url(s.public_url.clone());
        if auth == Auth::Open {
            if !addr.ip().is_loopback() {
                return Err(Error::invalid(format!(
                    "--no-auth is refused on {addr}: anyone who can reach a non-loopback address could read and write every memory; listen on 127.0.0.1, or make keys with `cairn keys create`"
                ))
                .into());
            }
            tracing::warn!(%addr, "serving without API keys (--no-auth): every local process can read and write every memory");
        }
        // The address on stdout (the port may have been chosen by the OS).
        println!("{}", startup_line(&addr.to_string(), auth));
        cairn_server::serve(listener, state, jobs, cairn_server::shutdown_signal()).await?;
        Ok::<_, anyhow::Error>(())
    })?;
    // A clean stop writes the accesses still queued.
    engine.flush_accesses()?;
    Ok(())
}

pub fn init(a: InitArgs) -> Result<()> {
    let dir = match a.dir {
        Some(d) => d,
        None => std::env::current_dir()?,
    };
    let dir = dir.canonicalize().unwrap_or(dir);
    let name = match a.project {
        Some(p) => p,
        None => dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .ok_or_else(|| Error::invalid("this directory has no name: give --project NAME"))?,
    };
    let name = cairn_core::memory::normalize_project(&name)?;
    let file = dir.join(PROJECT_FILE);
    let text = project_file_text(&name);
    if std::fs::read_to_string(&file).ok().as_deref() == Some(text.as_str()) {
        println!("{} already names project {name}", file.display());
        return Ok(());
    }
    std::fs::write(&file, text).with_context(|| format!("writing {}", file.display()))?;
    println!("wrote {} (project {name})", file.display());
    Ok(())
}

/// The command agent tools should run: `cairn` when that is this program
/// on PATH, else this executable's full path.
fn default_command() -> String {
    let me = std::env::current_exe().ok();
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join("cairn"))
            .find(|p| p.is_file())
    });
    match (me, on_path) {
        (Some(me), Some(found)) if same_file(&me, &found) => "cairn".into(),
        (Some(me), _) => me.to_string_lossy().into_owned(),
        (None, _) => "cairn".into(),
    }
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

pub fn setup(db: Option<PathBuf>, a: SetupArgs) -> Result<()> {
    let dir = match a.dir {
        Some(d) => d,
        None => std::env::current_dir()?,
    };
    let home = dirs::home_dir().unwrap_or_else(|| PathBuf::from("."));
    let targets = Targets::for_tool(a.tool, &dir, a.config, &home);
    let mut env = Vec::new();
    if let Some(db) = db {
        let db = std::path::absolute(&db).unwrap_or(db);
        env.push(("CAIRN_DB".to_string(), db.to_string_lossy().into_owned()));
    }
    let cmd = ServerCommand {
        command: a.command.unwrap_or_else(default_command),
        env,
    };
    if a.show && a.tool == setup::Tool::Generic && targets.config.is_none() {
        // The entry asked for is the server's; the instructions file it
        // also writes is named, not printed.
        let shown = setup::show(a.tool, &targets, &cmd)?;
        if let Some((_, entry)) = shown.last() {
            println!("Add this server to your MCP client's configuration:");
            print!("{entry}");
        }
        if let Some((file, _)) = shown.first().filter(|_| shown.len() > 1) {
            println!(
                "(`cairn setup generic` also adds the memory protocol to {}; see docs/AGENT_PROTOCOL.md)",
                file.display()
            );
        }
        return Ok(());
    }
    if a.show {
        for (file, text) in setup::show(a.tool, &targets, &cmd)? {
            println!("==> {}", file.display());
            print!("{text}");
            if !text.ends_with('\n') {
                println!();
            }
        }
        return Ok(());
    }
    let changes = setup::run(a.tool, &targets, &cmd, a.undo)?;
    for (file, change) in &changes {
        let what = match change {
            Change::Unchanged if a.undo => "nothing of cairn's in",
            Change::Unchanged => "already set up:",
            Change::Written => "updated",
            Change::Restored => "restored",
            Change::Removed => "removed cairn's entry from",
            Change::Deleted => "deleted",
        };
        println!("{what} {}", file.display());
    }
    if !a.undo && a.tool == setup::Tool::Generic && targets.config.is_none() {
        println!("\nAdd this server to your MCP client's configuration:");
        for (_, text) in setup::show(a.tool, &targets, &cmd)?.into_iter().skip(1) {
            print!("{text}");
        }
    }
    Ok(())
}
