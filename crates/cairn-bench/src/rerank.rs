//! `cairn-bench rerank`: what the reranking stage costs recall. Search
//! (recall without counting accesses, so every row sees the same store)
//! over an in-memory store of synthetic memories (a synthetic embedder, so
//! only the stage differs between rows), without a reranker, with MMR,
//! and with the HTTP `/rerank` client against a local server that speaks
//! the protocol (`cairn_providers::testing::MockServer`): answering,
//! failing with HTTP 500 (no retry, then with one), and unreachable. For
//! every row it counts the queries whose results kept recall's own order
//! exactly, which is what a failed reranker must leave, and those whose
//! answer reported the reranker's failure (`Found::reranking`).
//!
//! The mock scores by shared words, instantly: this measures the stage's
//! overhead (reading the candidates, the request, the round trip) and its
//! failure handling, never a reranking model's quality or speed.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Result;
use cairn_core::api::EngineBuilder;
use cairn_core::rerank::{Mmr, Reranker};
use cairn_core::{Cairn, MemoryId, MemoryStore, RecallRequest, RememberRequest};
use cairn_providers::testing::{MockServer, Mode};
use cairn_providers::{Endpoint, HttpReranker};

use crate::synth::{Corpus, SyntheticEmbedder};
use crate::timing::ms;

fn http(url: String, retries: u32) -> Arc<dyn Reranker> {
    let mut e = Endpoint::new(url, None);
    e.retries = retries;
    e.backoff = Duration::from_millis(100);
    e.timeout = Duration::from_secs(2);
    Arc::new(HttpReranker::new(e, "mock-rerank"))
}

/// Run the benchmark: `memories` stored, `queries` recalls per row.
pub fn run(memories: usize, queries: usize, limit: usize) -> Result<()> {
    let corpus = Corpus::new(11);
    let store = Arc::new(MemoryStore::new());
    let base =
        EngineBuilder::new(store, Arc::new(SyntheticEmbedder::new(corpus.clone()))).build()?;
    for i in 0..memories {
        base.remember(RememberRequest::new(
            "default",
            corpus.english_text(i as u64),
        ))?;
    }
    let questions: Vec<String> = (0..queries)
        .map(|i| {
            let text = corpus.english_text((i * 7 % memories.max(1)) as u64);
            text.split_whitespace()
                .take(8)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    // Each query's results, how long it took, and whether the answer
    // reported a failed reranker.
    let order = |cairn: &Cairn| -> Result<(Vec<Vec<MemoryId>>, Vec<f64>, usize)> {
        let mut orders = Vec::new();
        let mut times = Vec::new();
        let mut reported = 0;
        for q in &questions {
            let mut req = RecallRequest::new("default", q.as_str());
            req.limit = limit;
            let t = Instant::now();
            let found = cairn.search_reported(&req)?;
            times.push(t.elapsed().as_secs_f64() * 1000.0);
            reported += usize::from(found.reranking.is_some_and(|r| !r.applied));
            orders.push(found.results.into_iter().map(|r| r.memory.id).collect());
        }
        Ok((orders, times, reported))
    };
    // Warm up, and recall's own order to compare against.
    let (plain_order, _, _) = order(&base)?;

    let server = MockServer::start();
    let failing = MockServer::start();
    failing.always(Mode::ServerError);
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
        format!("http://{}/v1", listener.local_addr()?)
        // Dropped here: nothing listens on the port.
    };
    let rows: Vec<(&str, Option<Arc<dyn Reranker>>)> = vec![
        ("none", None),
        ("mmr (λ 0.7)", Some(Arc::new(Mmr::default()))),
        (
            "http /rerank, answering",
            Some(http(server.openai_url(), 0)),
        ),
        (
            "http, HTTP 500, no retry",
            Some(http(failing.openai_url(), 0)),
        ),
        (
            "http, HTTP 500, 1 retry",
            Some(http(failing.openai_url(), 1)),
        ),
        ("http, unreachable, no retry", Some(http(closed, 0))),
    ];
    println!(
        "recall of {limit} over {memories} memories, {queries} queries; the reranker sees the best {} candidates",
        limit * cairn_core::rerank::RERANK_POOL
    );
    println!(
        "{:<30} {:>9} {:>9} {:>12} {:>22} {:>18}",
        "reranker", "p50 ms", "p95 ms", "mean ms", "order = recall's own", "failure reported"
    );
    for (name, reranker) in rows {
        let cairn = base.clone().with_reranker(reranker);
        let (orders, mut times, reported) = order(&cairn)?;
        let mean = times.iter().sum::<f64>() / times.len().max(1) as f64;
        let (p50, p95) = ms(&mut times);
        let same = orders
            .iter()
            .zip(&plain_order)
            .filter(|(a, b)| a == b)
            .count();
        let total = orders.len();
        println!(
            "{name:<30} {p50:>9.2} {p95:>9.2} {mean:>12.2} {:>22} {:>18}",
            format!("{same}/{total}"),
            format!("{reported}/{total}")
        );
    }
    Ok(())
}
