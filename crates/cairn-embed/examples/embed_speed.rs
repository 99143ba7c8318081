//! Measures the local embedder: model load time, single-sentence latency,
//! batched throughput and resident memory.
//!
//! ```text
//! scripts/fetch-model.sh
//! cargo run --release -p cairn-embed --example embed_speed
//! ```

use std::time::{Duration, Instant};

use cairn_core::Embedder;
use cairn_embed::{default_model_dir, MiniLm};

fn rss_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = default_model_dir();
    let start = Instant::now();
    let model = MiniLm::load(&dir)?;
    println!(
        "load: {:.0} ms ({})",
        start.elapsed().as_secs_f64() * 1e3,
        dir.display()
    );

    let sentence = "The quick brown fox jumps over the lazy dog near the river.";
    model.embed(sentence)?; // warm-up
    let times: Vec<Duration> = (0..50)
        .map(|_| {
            let t = Instant::now();
            model.embed(sentence).map(|_| t.elapsed())
        })
        .collect::<Result<_, _>>()?;
    println!(
        "single sentence (11 words): median {:.2} ms",
        median(times).as_secs_f64() * 1e3
    );

    let words = [
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
    let texts: Vec<String> = (0..256)
        .map(|i| {
            let len = 6 + (i * 7) % 20; // 6..25 words
            (0..len)
                .map(|j| words[(i * 3 + j * 5) % words.len()])
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
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
    // Multiply-adds per token: 6 layers of QKV + output (4 h^2) and FFN (2 * 4 h^2).
    let gflop = tokens as f64 * 6.0 * 2.0 * (4.0 + 8.0) * 384.0 * 384.0 / 1e9;
    println!(
        "batch of 256 (6-25 words, {tokens} tokens): {:.0} ms, {:.0} sentences/s, \
         {:.0} GFLOP/s in the dense layers",
        best * 1e3,
        256.0 / best,
        gflop / best
    );
    if let (Some(rss), Some(peak)) = (rss_kib("VmRSS:"), rss_kib("VmHWM:")) {
        println!(
            "resident memory: {} MiB (peak {} MiB)",
            rss / 1024,
            peak / 1024
        );
    }
    Ok(())
}
