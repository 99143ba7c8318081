//! The background jobs of a long-running process: warming up (the model
//! and the store's in-memory indexes), deleting expired memories, and
//! saving the store's caches. Each runs off the async workers and stops
//! when the shutdown token is cancelled.

use std::time::Duration;

use cairn_core::Cairn;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::Jobs;

/// Start every job; their handles end after `shutdown` is cancelled.
pub fn start(cairn: &Cairn, jobs: Jobs, shutdown: CancellationToken) -> Vec<JoinHandle<()>> {
    warm_up(cairn);
    let sweep = {
        let cairn = cairn.clone();
        every(jobs.sweep_every, shutdown.clone(), move || {
            match cairn.gc() {
                Ok(0) => {}
                Ok(n) => tracing::info!(deleted = n, "swept expired memories"),
                Err(e) => tracing::warn!(error = %e, "sweep of expired memories failed"),
            }
        })
    };
    vec![sweep, save_caches(cairn, jobs.save_caches_every, shutdown)]
}

/// Offer the store to save its caches every `period` until `shutdown`
///, so that the next process opens it faster.
pub fn save_caches(cairn: &Cairn, period: Duration, shutdown: CancellationToken) -> JoinHandle<()> {
    let store = cairn.store().clone();
    let save = move || {
        if let Some(Err(e)) = store.caches().map(|c| c.save_caches()) {
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
        if let Some(caches) = cairn.store().caches() {
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
