//! The background jobs of a long-running process: warming up (the model
//! and the store's in-memory indexes), deleting expired memories and
//! embedding writes kept while the embedding endpoint failed
//! (`cairn_core::engine::pending`), consolidating old episodes into summaries, and saving the store's
//! caches. Each runs off the async workers and stops when the shutdown
//! token is cancelled.

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
            match cairn.embed_pending() {
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
            if let Err(e) = cairn_core::api::oauth::sweep_tokens(&cairn) {
                tracing::warn!(error = %e, "sweep of expired OAuth tokens failed");
            }
        })
    };
    let mut handles = vec![sweep];
    if let Some(period) = jobs.consolidate_every {
        handles.push(consolidate(
            cairn,
            period,
            jobs.consolidate_keep,
            shutdown.clone(),
        ));
    }
    handles.push(save_caches(cairn, jobs.save_caches_every, shutdown));
    handles
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
    let cairn = cairn.clone();
    every(period, shutdown, move || {
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
