//! `store`: import synthetic pre-embedded memories into a store and time
//! its recall in each mode, with the vector search's recall against the
//! store's exact search.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{bail, Result};
use cairn_core::api::EngineBuilder;
use cairn_core::history::LOCAL_ACTOR;
use cairn_core::store::{Filter, ScopeFilter};
use cairn_core::wire::{JsonLines, MemoryRecord};
use cairn_core::{Cairn, Embedder, RecallRequest, SearchMode, Store};
use cairn_sqlite::SqliteStore;

use crate::synth::{Corpus, SyntheticEmbedder};
use crate::timing::{ms, peak_rss_mib};
use crate::PgSchema;

thread_local! {
    /// When [`fill`]'s last import had written its rows, in seconds from
    /// its start (the rest was index work).
    static LAST_ROWS_S: std::cell::Cell<f64> = const { std::cell::Cell::new(0.0) };
}

/// Import `n` synthetic pre-embedded memories as `cairn import FILE` does
/// (the text read and parsed on one thread while another writes); returns
/// the import's seconds, until its last checkpoint (run in the background
/// while the import goes on) is done. The JSON Lines file is written
/// first, untimed, beside the store, and removed after.
pub(crate) fn fill(
    cairn: &Cairn,
    sqlite: Option<&SqliteStore>,
    corpus: &Corpus,
    embedder: &SyntheticEmbedder,
    n: usize,
    dir: &std::path::Path,
) -> Result<f64> {
    let path = dir.join(format!("bench-{n}.jsonl"));
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path)?);
    for i in 0..n {
        let text = corpus.memory_text(i as u64);
        let record = MemoryRecord {
            embedding: Some(embedder.vector(&text)),
            content: text,
            kind: Some("fact".into()),
            ..Default::default()
        };
        serde_json::to_writer(&mut file, &record)?;
        file.write_all(b"\n")?;
    }
    file.into_inner().map_err(|e| e.into_error())?.sync_all()?;
    let t = Instant::now();
    let reader = std::io::BufReader::new(std::fs::File::open(&path)?);
    let mut lines = JsonLines::spawn(reader, Box::new(|_| {}));
    // The last batch's progress: every row written, before the store's
    // deferred index work (PostgreSQL's vector index build).
    let mut rows_written = 0.0;
    let report = cairn.import("default", lines.by_ref(), false, LOCAL_ACTOR, &mut |_| {
        rows_written = t.elapsed().as_secs_f64();
    })?;
    LAST_ROWS_S.with(|c| c.set(rows_written));
    lines.finish()?;
    if let Some(store) = sqlite {
        store.wait_for_checkpoints();
    }
    let seconds = t.elapsed().as_secs_f64();
    std::fs::remove_file(&path)?;
    if report.imported != n || !report.errors.is_empty() {
        bail!(
            "imported {} of {n}: {:?}",
            report.imported,
            report.errors.first()
        );
    }
    Ok(seconds)
}

pub(crate) fn run(
    sizes: &[usize],
    queries: usize,
    keep: Option<PathBuf>,
    (postgres, reuse): (Option<&str>, Option<String>),
    partition_at: Option<usize>,
    feedback_weight: f64,
) -> Result<()> {
    println!("| memories | import (pre-embedded JSONL) | preload | hybrid p50 | hybrid p95 | keyword p50 | vector p50 | vector recall@10 | file size | peak RSS |");
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for &n in sizes {
        let tmp = tempfile::tempdir()?;
        let dir = keep.clone().unwrap_or_else(|| tmp.path().to_path_buf());
        std::fs::create_dir_all(&dir)?;
        let path = match (&reuse, postgres) {
            (Some(file), None) => PathBuf::from(file),
            _ => dir.join(format!("bench-{n}.db")),
        };
        if reuse.is_none() {
            let _ = std::fs::remove_file(&path);
        }
        let corpus = Corpus::new(42);
        let embedder = Arc::new(SyntheticEmbedder::new(corpus.clone()));
        let (store, sqlite, schema): (Arc<dyn Store>, _, _) = match postgres {
            Some(url) => {
                let mut schema = PgSchema::new(url, &format!("store_{n}"));
                if let Some(name) = &reuse {
                    schema.name.clone_from(name);
                }
                schema.keep = keep.is_some() || reuse.is_some();
                (Arc::new(schema.open()?), None, Some(schema))
            }
            None => {
                let sqlite = Arc::new(SqliteStore::open(&path)?);
                if let Some(at) = partition_at {
                    sqlite.set_partition_at(at);
                }
                (sqlite.clone(), Some(sqlite), None)
            }
        };
        let cairn = EngineBuilder::new(store.clone(), embedder.clone())
            .fusion(cairn_core::rank::Fusion {
                feedback_weight,
                ..Default::default()
            })
            .build()?;
        let import_s = match &reuse {
            Some(_) => store.set_model(&embedder.model()).map(|()| f64::NAN)?,
            None => fill(&cairn, sqlite.as_deref(), &corpus, &embedder, n, &dir)?,
        };
        let mut hybrid = Vec::new();
        let mut keyword = Vec::new();
        let mut vector = Vec::new();
        // A server's start: the vector index and the in-memory keyword index.
        let t = Instant::now();
        store
            .maintenance()
            .caches()
            .map_or(Ok(()), |c| c.preload())?;
        let preload_s = t.elapsed().as_secs_f64();
        let _ = cairn.search(&RecallRequest::new("default", corpus.query_text(0)))?;
        // Each mode asks queries of its own (none reads another's cache).
        let mut asked = 0;
        for _ in 0..queries {
            for (mode, out) in [
                (SearchMode::Hybrid, &mut hybrid),
                (SearchMode::Keyword, &mut keyword),
                (SearchMode::Semantic, &mut vector),
            ] {
                asked += 1;
                let mut req = RecallRequest::new("default", corpus.query_text(asked));
                req.mode = mode;
                req.limit = 10;
                let t = Instant::now();
                let r = cairn.search(&req)?;
                out.push(t.elapsed().as_secs_f64() * 1000.0);
                std::hint::black_box(r);
            }
        }
        let recall = vector_recall(&*store, &embedder, &corpus, queries.min(100))?;
        let (h50, h95) = ms(&mut hybrid);
        let (k50, _) = ms(&mut keyword);
        let (v50, _) = ms(&mut vector);
        let size = match &schema {
            Some(_) => store.stats("default", 0)?.size_bytes.unwrap_or(0),
            None => std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0),
        } as f64
            / 1_048_576.0;
        let rows_s = LAST_ROWS_S.with(|c| c.get());
        let import = match (&schema, &reuse) {
            (_, Some(name)) => format!("({name} reused)"),
            // PostgreSQL: the rows, then the vector index built once.
            (Some(_), None) => format!(
                "{:.0}/s (rows {:.0}/s, then HNSW build {:.0} s)",
                n as f64 / import_s,
                n as f64 / rows_s,
                import_s - rows_s
            ),
            (None, None) => format!("{:.0}/s", n as f64 / import_s),
        };
        println!(
            "| {n} | {import} | {preload_s:.2} s | {h50:.2} ms | {h95:.2} ms | {k50:.2} ms | {v50:.2} ms | {recall:.3} | {size:.0} MiB | {:.0} MiB |",
            peak_rss_mib()
        );
        if keep.is_some() {
            // Let the real CLI open this file: record the local model's name
            // (the vectors are synthetic, but of its dimension).
            store.set_model(&cairn_embed::model_info())?;
        }
    }
    println!("\nSynthetic memories of 10–40 words over a 5,000-word Zipf vocabulary; 384-d unit vectors; queries of 3–8 words with the query vector given (no model inference); k = 10; one warm process. Vector recall@10: of 100 more queries, against the store's exact search (every memory's stored vector rescored).");
    Ok(())
}

/// The vector search's recall@10 against the store's exact search (every
/// memory rescored) over `queries` queries.
fn vector_recall(
    store: &dyn Store,
    embedder: &SyntheticEmbedder,
    corpus: &Corpus,
    queries: usize,
) -> Result<f64> {
    let filter = Filter::new("default", i64::MAX / 2).scope(ScopeFilter::All);
    let mut found = 0;
    for i in 0..queries {
        let q = embedder.vector(&corpus.query_text(1_000_000 + i as u64));
        let exact = store.vector_search_exact(&q, &filter, 10)?;
        let hits = store.vector_search(&q, &filter, 10)?;
        found += hits
            .iter()
            .filter(|h| exact.iter().any(|e| e.id == h.id))
            .count();
    }
    Ok(found as f64 / (10 * queries.max(1)) as f64)
}
