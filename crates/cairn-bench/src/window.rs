//! The context-window optimiser's time on a long session: a conversation
//! of N exchanges (2·N messages) logged through `observe` into a SQLite
//! store, beside long-term memories and rules, then `window` asked for
//! with a new message. Synthetic embeddings, so the figure is the
//! optimiser's own (searches, reads, assembly), without the query's
//! embedding.

use std::sync::Arc;
use std::time::Instant;

use anyhow::Result;
use cairn_core::api::EngineBuilder;
use cairn_core::engine::{Message, ObserveRequest, WindowRequest, DEFAULT_WORKING_TOKENS};
use cairn_core::tokens::Tokenizer;
use cairn_core::window::WindowFormat;
use cairn_core::{MemoryType, RememberRequest, Store};
use cairn_sqlite::SqliteStore;

use crate::synth::{Corpus, SyntheticEmbedder};

const TENANT: &str = "bench";

/// Run the benchmark and print its table.
pub fn run(exchanges: usize, runs: usize, budget: usize) -> Result<()> {
    let tmp = tempfile::tempdir()?;
    let store: Arc<dyn Store> = Arc::new(SqliteStore::open(tmp.path().join("window.db"))?);
    let corpus = Corpus::new(7);
    let cairn =
        EngineBuilder::new(store, Arc::new(SyntheticEmbedder::new(corpus.clone()))).build()?;
    let start = cairn.now() - (exchanges as i64) * 120_000;
    let messages = (0..exchanges * 2).map(|i| Message {
        conversation: "bench-conversation".into(),
        session: Some("bench-session".into()),
        speaker: if i % 2 == 0 { "user" } else { "assistant" }.into(),
        text: corpus.english_text(i as u64),
        at: Some(start + i as i64 * 60_000),
        id: None,
        metadata: Default::default(),
    });
    let req = ObserveRequest {
        tenant: TENANT.into(),
        project: None,
        actor: "bench".into(),
    };
    let t = Instant::now();
    cairn.observe(&req, messages, &mut |_| ())?;
    let logged = t.elapsed().as_secs_f64();
    for i in 0..200u64 {
        let mut r = RememberRequest::new(TENANT, corpus.english_text(1_000_000 + i));
        r.kind = if i % 10 == 0 {
            MemoryType::Rule
        } else {
            MemoryType::Fact
        };
        cairn.remember(r)?;
    }
    let mut times = Vec::with_capacity(runs);
    let mut tokens = 0;
    for run in 0..=runs {
        let window = WindowRequest {
            tenant: TENANT.into(),
            session: "bench-session".into(),
            message: corpus.english_text(5_000_000 + run as u64),
            project: None,
            budget,
            working_tokens: DEFAULT_WORKING_TOKENS,
            tokenizer: Tokenizer::default(),
            format: WindowFormat::Markdown,
        };
        let t = Instant::now();
        let w = cairn.window(&window)?;
        // The first call loads the indexes and the encoding: not counted.
        if run > 0 {
            times.push(t.elapsed().as_secs_f64() * 1000.0);
            tokens = w.total_tokens;
        }
    }
    let (p50, p95) = crate::timing::ms(&mut times);
    println!(
        "{} messages logged in {logged:.1} s ({:.0}/s, synthetic embeddings)\n",
        exchanges * 2,
        (exchanges * 2) as f64 / logged
    );
    println!("| exchanges | budget | window tokens | p50 ms | p95 ms | runs |");
    println!("|---:|---:|---:|---:|---:|---:|");
    println!("| {exchanges} | {budget} | {tokens} | {p50:.1} | {p95:.1} | {runs} |");
    Ok(())
}
