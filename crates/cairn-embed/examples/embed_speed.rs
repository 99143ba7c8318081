//! Measures the local embedder: model load time, single-sentence latency,
//! batched throughput and resident memory.
//!
//! ```text
//! scripts/fetch-model.sh
//! cargo run --release -p cairn-embed --example embed_speed
//! ```
//!
//! Pass `--no-init` to skip [`cairn_embed::init_threads`] and see its effect.

use std::time::{Duration, Instant};

use cairn_core::Embedder;
use cairn_embed::{default_model_dir, MiniLm};

fn rss_mib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

const WORDS: [&str; 18] = [
    "memory",
    "agent",
    "remembers",
    "the",
    "user",
    "prefers",
    "dark",
    "mode",
    "and",
    "short",
    "answers",
    "about",
    "rust",
    "code",
    "deploys",
    "on",
    "fridays",
    "never",
];

/// 256 sentences of `len(i)` words each.
fn sentences(len: impl Fn(usize) -> usize) -> Vec<String> {
    (0..256)
        .map(|i| {
            (0..len(i))
                .map(|j| WORDS[(i * 3 + j * 5) % WORDS.len()])
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

/// Best of three runs over 256 texts: prints time, rate and the dense
/// layers' arithmetic rate.
fn throughput(model: &MiniLm, label: &str, texts: &[String]) -> Result<(), cairn_core::Error> {
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    model.embed_batch(&refs[..16])?; // warm-up
    let mut best = f64::INFINITY;
    for _ in 0..3 {
        let t = Instant::now();
        let out = model.embed_batch(&refs)?;
        assert_eq!(out.len(), refs.len());
        best = best.min(t.elapsed().as_secs_f64());
    }
    let tokens: usize = model.token_ids(&refs)?.iter().map(Vec::len).sum();
    // 6 layers of QKV + output (4 h^2) and feed-forward (8 h^2) multiply-adds per token.
    let gflop = tokens as f64 * 6.0 * 2.0 * 12.0 * 384.0 * 384.0 / 1e9;
    println!(
        "batch of {} ({label}, {tokens} tokens): {:.0} ms, {:.0} sentences/s, \
         {:.0} GFLOP/s in the dense layers",
        refs.len(),
        best * 1e3,
        refs.len() as f64 / best,
        gflop / best
    );
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    if std::env::args().any(|a| a == "--no-init") {
        println!("(without init_threads)");
    } else {
        cairn_embed::init_threads();
    }
    let dir = default_model_dir();
    let start = Instant::now();
    let model = MiniLm::load(&dir)?;
    println!(
        "load: {:.0} ms ({})",
        start.elapsed().as_secs_f64() * 1e3,
        dir.display()
    );

    let sentence = "The user prefers dark mode and short answers about Rust.";
    model.embed(sentence)?; // warm-up
    let times: Vec<Duration> = (0..50)
        .map(|_| {
            let t = Instant::now();
            model.embed(sentence).map(|_| t.elapsed())
        })
        .collect::<Result<_, _>>()?;
    println!(
        "single sentence (10 words, 13 tokens): median {:.2} ms",
        median(times).as_secs_f64() * 1e3
    );

    throughput(&model, "10 words each", &sentences(|_| 10))?;
    throughput(&model, "6-25 words", &sentences(|i| 6 + (i * 7) % 20))?;

    if let (Some(rss), Some(peak)) = (rss_mib("VmRSS:"), rss_mib("VmHWM:")) {
        println!("resident memory: {rss} MiB (peak {peak} MiB)");
    }
    Ok(())
}
