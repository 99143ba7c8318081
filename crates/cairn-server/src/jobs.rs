//! The background jobs of a long-running process: warming up (the model
//! and the store's in-memory indexes), deleting expired memories and
//! embedding writes kept while the embedding endpoint failed
//! (`cairn_core::engine::pending`), consolidating old episodes into summaries, and saving the store's
//! caches. Each runs off the async workers and stops when the shutdown
//! token is cancelled.
//!
//! The jobs that change the store (the sweep, pending embeddings,
//! consolidation) run on one server at a time of those sharing a store:
//! the one holding the store's lease [`JOBS_LEASE`] ([`Lease`]), renewed
//! every third of its duration; when that server dies, another takes the
//! lease once it runs out. Warming up and saving caches are every
//! process's own.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cairn_core::{api, Cairn};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::Jobs;

/// The name of the lease the store-changing jobs run under.
pub const JOBS_LEASE: &str = "background-jobs";

/// This process's claim on [`JOBS_LEASE`]: who it is, and until when (by
/// its own monotonic clock, counted from before the store granted it) it
/// holds the lease.
pub struct Lease {
    holder: String,
    duration: Duration,
    until: Mutex<Option<Instant>>,
}

impl Lease {
    /// A lease of `duration` for this process (host, process id and a
    /// random part name it), not held yet.
    pub fn new(duration: Duration) -> Lease {
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .map(|h| h.trim().to_string())
            .unwrap_or_else(|_| "host".into());
        let random = crate::ui::session::random_token();
        Lease {
            holder: format!("{host}:{}:{}", std::process::id(), &random[..8]),
            duration,
            until: Mutex::new(None),
        }
    }

    /// Who holds it when this process does.
    pub fn holder(&self) -> &str {
        &self.holder
    }

    /// Whether this process holds the lease now.
    pub fn held(&self) -> bool {
        let until = self.until.lock().unwrap_or_else(|e| e.into_inner());
        until.is_some_and(|t| Instant::now() < t)
    }

    /// Take or renew the lease in the store (blocks); logs when this
    /// process gains or loses it.
    pub fn renew(&self, cairn: &Cairn) {
        let asked = Instant::now();
        let now = cairn.now();
        let until = now + self.duration.as_millis() as i64;
        let was = self.held();
        match cairn
            .store()
            .shared()
            .hold_lease(JOBS_LEASE, &self.holder, now, until)
        {
            Ok(true) => {
                *self.until.lock().unwrap_or_else(|e| e.into_inner()) = Some(asked + self.duration);
                if !was {
                    tracing::info!(holder = %self.holder, "this server runs the background jobs");
                }
            }
            Ok(false) => {
                *self.until.lock().unwrap_or_else(|e| e.into_inner()) = None;
                if was {
                    tracing::info!(holder = %self.holder, "another server runs the background jobs");
                }
            }
            // Held (if it was) until it runs out; the next renewal tries again.
            Err(e) => tracing::warn!(error = %e, "the background jobs' lease could not be renewed"),
        }
    }

    /// Give the lease up (blocks), so that another server takes it at once.
    pub fn release(&self, cairn: &Cairn) {
        *self.until.lock().unwrap_or_else(|e| e.into_inner()) = None;
        if let Err(e) = cairn
            .store()
            .shared()
            .release_lease(JOBS_LEASE, &self.holder)
        {
            tracing::warn!(error = %e, "the background jobs' lease could not be released");
        }
    }
}

/// Renew `lease` now and every third of its duration until `shutdown`,
/// then release it.
fn keep_lease(cairn: &Cairn, lease: Arc<Lease>, shutdown: CancellationToken) -> JoinHandle<()> {
    let cairn = cairn.clone();
    tokio::spawn(async move {
        let period = lease.duration / 3;
        loop {
            let (c, l) = (cairn.clone(), lease.clone());
            let _ = tokio::task::spawn_blocking(move || l.renew(&c)).await;
            tokio::select! {
                _ = shutdown.cancelled() => break,
                _ = tokio::time::sleep(period) => {}
            }
        }
        let _ = tokio::task::spawn_blocking(move || lease.release(&cairn)).await;
    })
}

/// Start every job; their handles end after `shutdown` is cancelled.
pub fn start(cairn: &Cairn, jobs: Jobs, shutdown: CancellationToken) -> Vec<JoinHandle<()>> {
    warm_up(cairn);
    let lease = Arc::new(Lease::new(jobs.lease));
    let sweep = {
        let (cairn, lease) = (cairn.clone(), lease.clone());
        every(jobs.sweep_every, shutdown.clone(), move || {
            if lease.held() {
                sweep(&cairn);
            }
            if let Err(e) = cairn_core::api::oauth::sweep_tokens(&cairn) {
                tracing::warn!(error = %e, "sweep of expired OAuth tokens failed");
            }
        })
    };
    let mut handles = vec![keep_lease(cairn, lease.clone(), shutdown.clone()), sweep];
    if let Some(period) = jobs.consolidate_every {
        handles.push(consolidate_under(
            cairn,
            period,
            jobs.consolidate_keep,
            Some(lease),
            shutdown.clone(),
        ));
    }
    handles.push(save_caches(cairn, jobs.save_caches_every, shutdown));
    handles
}

/// Delete expired memories, embed pending writes, drop expired web UI
/// sessions and idle rate buckets.
fn sweep(cairn: &Cairn) {
    match api::gc(cairn).map(|out| out.deleted) {
        Ok(0) => {}
        Ok(n) => tracing::info!(deleted = n, "swept expired memories"),
        Err(e) => tracing::warn!(error = %e, "sweep of expired memories failed"),
    }
    match api::embed_pending(cairn) {
        Ok(r) if r.embedded + r.expired > 0 || r.failure.is_some() => tracing::info!(
            embedded = r.embedded,
            expired = r.expired,
            remaining = r.remaining,
            failure = r.failure.as_deref().unwrap_or(""),
            "embedded pending writes"
        ),
        Ok(_) => {}
        Err(e) => tracing::warn!(error = %e, "embedding pending writes failed"),
    }
    if let Err(e) = api::sweep_shared(cairn) {
        tracing::warn!(error = %e, "sweep of expired sessions and idle rate buckets failed");
    }
}

/// Groups consolidated per tenant and run of the periodic job: each is its
/// own short transaction, and a backlog is worked off over several runs.
pub const CONSOLIDATE_BATCH: usize = 20;

/// Consolidate every tenant's oldest episode groups every `period` (see
/// `cairn_core::engine::Cairn::consolidate`), off the async workers; each
/// group is one write, so requests never wait long behind it.
pub fn consolidate(
    cairn: &Cairn,
    period: Duration,
    keep: usize,
    shutdown: CancellationToken,
) -> JoinHandle<()> {
    consolidate_under(cairn, period, keep, None, shutdown)
}

/// [`consolidate`], run only while `lease` (when given) is held.
fn consolidate_under(
    cairn: &Cairn,
    period: Duration,
    keep: usize,
    lease: Option<Arc<Lease>>,
    shutdown: CancellationToken,
) -> JoinHandle<()> {
    let cairn = cairn.clone();
    every(period, shutdown, move || {
        if lease.as_ref().is_some_and(|l| !l.held()) {
            return;
        }
        let input = cairn_core::api::ConsolidateInput {
            keep: Some(keep),
            max_groups: Some(CONSOLIDATE_BATCH),
            ..Default::default()
        };
        match cairn_core::api::consolidate_all(&cairn, &input, cairn_core::history::SYSTEM_ACTOR) {
            Ok(reports) => {
                for r in reports.iter().filter(|r| !r.groups.is_empty()) {
                    tracing::info!(
                        tenant = %r.tenant,
                        groups = r.groups.len(),
                        episodes = r.episodes,
                        remaining = r.remaining,
                        "consolidated old episodes"
                    );
                }
            }
            Err(e) => tracing::warn!(error = %e, "consolidation failed"),
        }
    })
}

/// Offer the store to save its caches every `period` until `shutdown`
///, so that the next process opens it faster.
pub fn save_caches(cairn: &Cairn, period: Duration, shutdown: CancellationToken) -> JoinHandle<()> {
    let store = cairn.store().clone();
    let save = move || {
        if let Some(Err(e)) = store.maintenance().caches().map(|c| c.save_caches()) {
            tracing::warn!(error = %e, "caches could not be saved");
        }
    };
    every(period, shutdown, save)
}

/// Load the embedding model and the store's in-memory indexes in the
/// background, so that the first calls do not pay for them (searches
/// before they are ready give the same results, more slowly).
pub fn warm_up(cairn: &Cairn) {
    let cairn = cairn.clone();
    tokio::task::spawn_blocking(move || {
        if let Err(e) = cairn.embedder().embed("warm up") {
            tracing::warn!(error = %e, "the embedding model could not be loaded");
        }
        if let Some(caches) = cairn.store().maintenance().caches() {
            let t = std::time::Instant::now();
            match caches.preload() {
                Ok(()) => tracing::info!(ms = t.elapsed().as_millis() as u64, "indexes loaded"),
                Err(e) => tracing::warn!(error = %e, "the in-memory indexes could not be built"),
            }
        }
    });
}

/// Run `job` on the blocking pool every `period` (the first time after one
/// period) until `shutdown`.
fn every(
    period: Duration,
    shutdown: CancellationToken,
    job: impl Fn() + Send + Sync + 'static,
) -> JoinHandle<()> {
    let job = std::sync::Arc::new(job);
    tokio::spawn(async move {
        let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = shutdown.cancelled() => return,
                _ = tick.tick() => {}
            }
            let job = job.clone();
            if let Err(e) = tokio::task::spawn_blocking(move || job()).await {
                tracing::warn!(error = %e, "a background job failed");
            }
        }
    })
}
