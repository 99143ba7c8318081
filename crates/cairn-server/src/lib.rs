//! # cairn-server
//!
//! Cairn as a long-running service: one axum application ([`app`]: MCP,
//! the REST API of [`rest`], health) behind API-key authentication
//! ([`auth`]), over shared state ([`AppState`]: the engine, the MCP
//! handler, the authentication mode), the
//! the web UI of [`ui`], the
//! background jobs a server runs ([`jobs`]: expiry sweep, cache saving,
//! warm-up; later consolidation), and graceful shutdown ([`serve`]).
//! `cairn serve` is this crate behind a command line.
//!
//! ## Invariants
//! - The routes are thin: MCP requests go to `cairn-mcp`'s handler, and
//!   every other front end (REST, web UI) calls `cairn_core::api`; no
//!   business rule lives here.
//! - The tenant of a request is decided per request (an HTTP extension,
//!   [`cairn_mcp::RequestCaller`]), never fixed per process.
//! - Engine calls leave the async workers (`spawn_blocking` or
//!   `block_in_place`): the core is synchronous.

#![warn(unreachable_pub)]

pub mod app;
pub mod auth;
pub mod browser;
pub mod capacity;
pub mod conn;
pub mod error;
pub mod jobs;
pub mod limits;
pub mod mcp_owners;
pub mod metrics;
pub mod oauth;
pub mod rest;
pub mod ui;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use cairn_core::Cairn;
use cairn_mcp::CairnMcp;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

pub use app::{router, MCP_PATH, SURFACES};
pub use auth::Auth;
pub use capacity::CapacityLimits;
pub use error::ApiError;
pub use limits::RateLimits;

/// What every route and job shares. Cheap to clone.
#[derive(Clone)]
pub struct AppState {
    /// The engine.
    pub cairn: Cairn,
    /// The MCP handler (copied for each MCP session).
    pub mcp: Arc<CairnMcp>,
    /// How requests are authenticated.
    pub auth: Auth,
    /// The `Host` headers requests may carry, on every route but the
    /// probes (a guard against DNS rebinding, [`browser`]); `None` accepts
    /// any host.
    pub mcp_hosts: Option<Arc<[String]>>,
    /// Every API key's rates (the buckets are in the store).
    pub limiter: Arc<limits::Limiter>,
    /// What `/metrics` reports.
    pub metrics: Arc<metrics::Metrics>,
    /// Requests in progress and how long each may take.
    pub capacity: Arc<capacity::Capacity>,
    /// The web UI's sign-in rules (the sessions are in the store).
    pub sessions: Arc<ui::session::Sessions>,
    /// Which key opened each MCP session.
    pub mcp_owners: Arc<mcp_owners::McpOwners>,
    /// The URL clients reach this server by (`https://cairn.example`),
    /// for OAuth's metadata; `None`: taken from each request's `Host`.
    pub public_url: Option<Arc<str>>,
}

/// The hosts MCP accepts by default: loopback names.
pub const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

impl AppState {
    /// State over `mcp`'s engine, with API keys required.
    pub fn new(mcp: CairnMcp) -> Self {
        AppState {
            cairn: mcp.cairn().clone(),
            mcp: Arc::new(mcp),
            auth: Auth::Keys,
            mcp_hosts: Some(LOOPBACK_HOSTS.map(String::from).into()),
            limiter: Arc::new(limits::Limiter::new(
                RateLimits::default(),
                Default::default(),
            )),
            metrics: Arc::default(),
            capacity: Arc::new(capacity::Capacity::new(CapacityLimits::default())),
            sessions: Arc::default(),
            mcp_owners: Arc::default(),
            public_url: None,
        }
    }

    /// Builder: the URL clients reach this server by, for OAuth.
    pub fn with_public_url(mut self, url: Option<String>) -> Self {
        self.public_url = url.map(Into::into);
        self
    }

    /// Builder: requests in progress at once, and how long each may take.
    pub fn with_capacity(mut self, limits: CapacityLimits) -> Self {
        self.capacity = Arc::new(capacity::Capacity::new(limits));
        self
    }

    /// Builder: what `/metrics` reports, shared with a
    /// [`metrics::MeteredEmbedder`] the engine embeds through.
    pub fn with_metrics(mut self, metrics: Arc<metrics::Metrics>) -> Self {
        self.metrics = metrics;
        self
    }

    /// Builder: the rate limits of every key, but for the keys `per_key`
    /// names (by id), which have their own.
    pub fn with_rate_limits(
        mut self,
        limits: RateLimits,
        per_key: std::collections::HashMap<String, RateLimits>,
    ) -> Self {
        self.limiter = Arc::new(limits::Limiter::new(limits, per_key));
        self
    }

    /// Builder: the `Host` headers requests may carry (`None`: any).
    pub fn with_mcp_hosts(mut self, hosts: Option<Vec<String>>) -> Self {
        self.mcp_hosts = hosts.map(Into::into);
        self
    }

    /// Builder: how much signing in to the web UI is allowed.
    pub fn with_sign_in(mut self, limits: ui::session::SignInLimits) -> Self {
        self.sessions = Arc::new(ui::session::Sessions::with_limits(limits));
        self
    }

    /// Builder: how requests are authenticated.
    pub fn with_auth(mut self, auth: Auth) -> Self {
        self.auth = auth;
        self
    }
}

/// How a server runs its background jobs.
#[derive(Debug, Clone, Copy)]
pub struct Jobs {
    /// How often expired memories are deleted.
    pub sweep_every: Duration,
    /// How often the store may save what new processes open it faster
    /// with (it saves only when that pays off).
    pub save_caches_every: Duration,
    /// How often every tenant's old episode groups are consolidated into
    /// summaries (`None`: never), and how many groups each project keeps.
    pub consolidate_every: Option<Duration>,
    /// Groups (sessions, else days) each project keeps unconsolidated.
    pub consolidate_keep: usize,
    /// How long the lease on the store-changing jobs lasts unrenewed
    /// ([`jobs::Lease`]): when its server dies, another runs the jobs
    /// after at most this (plus a third of it).
    pub lease: Duration,
}

impl Default for Jobs {
    fn default() -> Self {
        Jobs {
            sweep_every: Duration::from_secs(60),
            save_caches_every: Duration::from_secs(60),
            consolidate_every: Some(Duration::from_secs(3600)),
            consolidate_keep: cairn_core::engine::DEFAULT_KEEP_GROUPS,
            lease: Duration::from_secs(30),
        }
    }
}

/// Serve the application on `listener` until `stop` resolves, running the
/// background jobs; then stop accepting, end MCP sessions, stop the jobs
/// and return.
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    jobs: Jobs,
    stop: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let shutdown = CancellationToken::new();
    let background = jobs::start(&state.cairn, jobs, shutdown.clone());
    let limits = state.capacity.limits();
    let app = router(state, shutdown.clone());
    let on_stop = shutdown.clone();
    let stopper = tokio::spawn(async move {
        stop.await;
        tracing::info!("shutting down");
        on_stop.cancel();
    });
    let result = conn::accept(listener, app, limits, shutdown.clone()).await;
    stopper.abort();
    shutdown.cancel();
    for job in background {
        let _ = job.await;
    }
    result
}

/// Resolves on SIGINT (Ctrl-C) or SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {}
        _ = term => {}
    }
}
