//! The vector index's own recall on real embeddings: how much of the exact
//! cosine top k the store's `vector_search` returns.
//!
//! The corpus is English prose this machine already has: the sentences of
//! the comments in the registry crates `Cargo.lock` names
//! (every build of Cairn downloads them), in a fixed order (a hash of each
//! sentence), so the same lock file gives the same corpus. The first
//! `queries` sentences are held out as queries; the store holds the next
//! `n`. Their MiniLM vectors are kept in a cache file, since embedding
//! 100,000 sentences takes minutes.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use cairn_core::api::EngineBuilder;
use cairn_core::history::LOCAL_ACTOR;
use cairn_core::store::{Filter, ScopeFilter};
use cairn_core::wire::MemoryRecord;
use cairn_core::{Embedder, MemoryId, Store};
use cairn_sqlite::SqliteStore;

use crate::embed_cache::CachedEmbedder;
use crate::timing::ms;
use crate::PgSchema;

/// Results compared per query.
const K: usize = 10;
/// Neighbours recall asks the store for when it writes (dedup and
/// contradiction checks, `engine::remember`).
const WRITE_NEIGHBOURS: usize = 8;

/// Runs the measurement at each size and prints a table.
/// `partition_at`: partition SQLite's vector index from this many memories
/// on instead of its default.
pub fn run(
    sizes: &[usize],
    queries: usize,
    cache: PathBuf,
    postgres: Option<&str>,
    partition_at: Option<usize>,
) -> Result<()> {
    let largest = sizes.iter().copied().max().unwrap_or(0);
    let sentences = corpus(queries + largest)?;
    if sentences.len() < queries + largest {
        bail!(
            "the registry crates' comments give {} sentences, fewer than {} queries + {largest} memories",
            sentences.len(),
            queries
        );
    }
    let model = Arc::new(
        cairn_embed::MiniLm::load(&cairn_embed::default_model_dir())
            .context("load the model (run scripts/fetch-model.sh)")?,
    );
    let embedder = Arc::new(CachedEmbedder::open(model, cache)?);
    let vectors = embed_all(&embedder, &sentences)?;
    let (query_vectors, memory_vectors) = vectors.split_at(queries);

    println!("| store | memories | recall@{K} mean | worst query | queries with all {K} | write neighbours ≥ 0.75 found | vector p50 | vector p95 |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for &n in sizes {
        let tmp = tempfile::tempdir()?;
        let schema = postgres.map(|url| PgSchema::new(url, &format!("index_recall_{n}")));
        let store: Arc<dyn Store> = match &schema {
            Some(s) => Arc::new(s.open()?),
            None => {
                let sqlite = SqliteStore::open(tmp.path().join("recall.db"))?;
                if let Some(at) = partition_at {
                    sqlite.set_partition_at(at);
                }
                Arc::new(sqlite)
            }
        };
        let memories = &memory_vectors[..n];
        let ids = fill(
            store.clone(),
            embedder.clone(),
            &sentences[queries..queries + n],
            memories,
        )?;
        let slot_of: HashMap<MemoryId, usize> =
            ids.iter().enumerate().map(|(i, id)| (*id, i)).collect();
        let filter = Filter::new("default", i64::MAX / 2).scope(ScopeFilter::All);
        let _ = store.vector_search(&query_vectors[0], &filter, K)?;
        let (mut sum, mut worst, mut all) = (0.0, 1.0f64, 0usize);
        let (mut near_found, mut near_total) = (0usize, 0usize);
        let mut times = Vec::with_capacity(queries);
        for q in query_vectors {
            let exact = exact_top(q, memories, K.max(WRITE_NEIGHBOURS));
            let t = Instant::now();
            let hits = store.vector_search(q, &filter, K.max(WRITE_NEIGHBOURS))?;
            times.push(t.elapsed().as_secs_f64() * 1000.0);
            let found: HashSet<usize> = hits
                .iter()
                .filter_map(|h| slot_of.get(&h.id).copied())
                .collect();
            let r = overlap(&exact[..K], &found) as f64 / K as f64;
            sum += r;
            worst = worst.min(r);
            all += usize::from(r == 1.0);
            // What a write's dedup and contradiction checks would see.
            let near: Vec<usize> = exact[..WRITE_NEIGHBOURS]
                .iter()
                .copied()
                .filter(|&i| dot(q, &memories[i]) >= cairn_core::rank::CONTRADICTION_THRESHOLD)
                .collect();
            near_total += near.len();
            near_found += overlap(&near, &found);
        }
        let (p50, p95) = ms(&mut times);
        let near = if near_total == 0 {
            "none in the corpus".to_string()
        } else {
            format!("{near_found} of {near_total}")
        };
        println!(
            "| {} | {n} | {:.3} | {worst:.1} | {all} of {queries} | {near} | {p50:.2} ms | {p95:.2} ms |",
            if schema.is_some() { "PostgreSQL" } else { "SQLite" },
            sum / queries as f64,
        );
    }
    println!("\nMiniLM vectors of sentences from the registry crates' comments; {queries} held-out sentences as queries; exact = f32 cosine over every memory.");
    Ok(())
}

/// How many of `ids` are in `found`.
fn overlap(ids: &[usize], found: &HashSet<usize>) -> usize {
    ids.iter().filter(|i| found.contains(i)).count()
}

/// The cosine of two unit vectors (the model's are).
fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The indexes of the `k` memories with the highest cosine (the model's
/// vectors are unit length), best first.
fn exact_top(q: &[f32], memories: &[Vec<f32>], k: usize) -> Vec<usize> {
    let mut scored: Vec<(f32, usize)> = memories
        .iter()
        .enumerate()
        .map(|(i, m)| (dot(q, m), i))
        .collect();
    let k = k.min(scored.len());
    if k == 0 {
        return Vec::new();
    }
    scored.select_nth_unstable_by(k - 1, |a, b| b.0.total_cmp(&a.0));
    scored.truncate(k);
    scored.sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
    scored.into_iter().map(|(_, i)| i).collect()
}

/// Every sentence's vector, embedding the ones the cache lacks in batches
/// (the cache is saved every 8,192, so an interrupted run keeps its work).
fn embed_all(embedder: &CachedEmbedder, sentences: &[String]) -> Result<Vec<Vec<f32>>> {
    let t = Instant::now();
    let mut out = Vec::with_capacity(sentences.len());
    let mut since_save = 0;
    for (i, chunk) in sentences.chunks(256).enumerate() {
        let refs: Vec<&str> = chunk.iter().map(String::as_str).collect();
        let missing = embedder.missing(&refs);
        out.extend(embedder.embed_batch(&refs)?);
        since_save += missing;
        if since_save >= 8192 {
            embedder.save()?;
            since_save = 0;
            eprintln!(
                "embedded {} of {} sentences ({:.0} s)",
                (i + 1) * 256,
                sentences.len(),
                t.elapsed().as_secs_f64()
            );
        }
    }
    if since_save > 0 {
        embedder.save()?;
    }
    Ok(out)
}

/// Import the memories with their vectors (as `cairn import` of records
/// that carry an `embedding`); returns their ids in order.
fn fill(
    store: Arc<dyn Store>,
    embedder: Arc<CachedEmbedder>,
    texts: &[String],
    vectors: &[Vec<f32>],
) -> Result<Vec<MemoryId>> {
    let cairn = EngineBuilder::new(store, embedder).build()?;
    let ids: Vec<MemoryId> = (0..texts.len())
        .map(|i| MemoryId::new_at(1_700_000_000_000 + i as i64))
        .collect();
    let records = texts
        .iter()
        .zip(vectors)
        .zip(&ids)
        .enumerate()
        .map(|(i, ((text, v), id))| {
            (
                i + 1,
                Ok(MemoryRecord {
                    id: Some(id.to_string()),
                    content: text.clone(),
                    kind: Some("fact".into()),
                    embedding: Some(v.clone()),
                    ..Default::default()
                }),
            )
        });
    let report = cairn.import("default", records, true, LOCAL_ACTOR, &mut |_| {})?;
    if report.imported != texts.len() {
        bail!(
            "imported {} of {}: {:?}",
            report.imported,
            texts.len(),
            report.errors.first()
        );
    }
    Ok(ids)
}

/// The first `n` sentences (in hash order) of the comments of the registry crates `Cargo.lock` names.
fn corpus(n: usize) -> Result<Vec<String>> {
    let lock = std::fs::read_to_string("Cargo.lock")
        .context("read Cargo.lock (run from the repository root)")?;
    let registry = cargo_home().join("registry/src");
    let indexes: Vec<PathBuf> = std::fs::read_dir(&registry)
        .with_context(|| format!("read {}", registry.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    let mut seen = HashSet::new();
    let mut sentences = Vec::new();
    for (name, version) in registry_packages(&lock) {
        let Some(dir) = indexes
            .iter()
            .map(|i| i.join(format!("{name}-{version}")))
            .find(|d| d.is_dir())
        else {
            continue;
        };
        let mut files = Vec::new();
        rust_files(&dir, &mut files);
        files.sort();
        for file in files {
            let Ok(text) = std::fs::read_to_string(&file) else {
                continue;
            };
            for s in doc_sentences(&text) {
                if seen.insert(s.clone()) {
                    sentences.push(s);
                }
            }
        }
    }
    sentences.sort_by_cached_key(|s| (fnv1a(s), s.clone()));
    sentences.truncate(n);
    Ok(sentences)
}

fn cargo_home() -> PathBuf {
    std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cargo")
        })
}

/// `(name, version)` of every package in a `Cargo.lock` that comes from a
/// registry.
fn registry_packages(lock: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for block in lock.split("[[package]]").skip(1) {
        let field = |key: &str| {
            block.lines().find_map(|l| {
                l.strip_prefix(key)
                    .and_then(|r| r.trim().strip_prefix('='))
                    .map(|v| v.trim().trim_matches('"').to_string())
            })
        };
        if let (Some(name), Some(version), Some(source)) =
            (field("name"), field("version"), field("source"))
        {
            if source.starts_with("registry+") {
                out.push((name, version));
            }
        }
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The prose sentences of a Rust file's comments: each paragraph
/// (consecutive `//`, `///` or `//!` lines outside code blocks) split at
/// sentence ends; kept when 8–60 words, mostly letters.
fn doc_sentences(source: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut paragraph = String::new();
    let mut in_code = false;
    let mut flush = |p: &mut String| {
        for s in split_sentences(p) {
            let words = s.split_whitespace().count();
            let letters = s.chars().filter(|c| c.is_alphabetic() || *c == ' ').count();
            if (8..=60).contains(&words) && letters * 10 >= s.chars().count() * 8 {
                out.push(s);
            }
        }
        p.clear();
    };
    for line in source.lines() {
        let t = line.trim_start();
        let Some(doc) = t.strip_prefix("//") else {
            flush(&mut paragraph);
            continue;
        };
        let doc = doc.trim_start_matches(['/', '!']).trim();
        if doc.starts_with("```") {
            in_code = !in_code;
            flush(&mut paragraph);
            continue;
        }
        if in_code || doc.is_empty() || doc.starts_with('#') || doc.starts_with('[') {
            flush(&mut paragraph);
            continue;
        }
        if !paragraph.is_empty() {
            paragraph.push(' ');
        }
        paragraph.push_str(doc);
    }
    flush(&mut paragraph);
    out
}

/// Split at `. `, `! ` or `? ` followed by a capital letter.
fn split_sentences(p: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut start = 0;
    let chars: Vec<(usize, char)> = p.char_indices().collect();
    for w in chars.windows(3) {
        let ((_, a), (_, b), (i, c)) = (w[0], w[1], w[2]);
        if matches!(a, '.' | '!' | '?') && b == ' ' && c.is_uppercase() {
            out.push(p[start..i].trim().to_string());
            start = i;
        }
    }
    out.push(p[start..].trim().to_string());
    out
}

fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doc_sentences_keep_prose_and_leave_code_out() {
        let src = "/// Returns the number of elements in the vector, also referred to as its length.\n\
                   /// It never allocates. See the module documentation for more on what this means here.\n\
                   /// ```\n/// let v = vec![1, 2, 3]; assert_eq!(v.len(), 3); // a long line of code words\n/// ```\n\
                   fn len() {}\n//! # Heading that is not a sentence at all but has many words in it\n";
        let s = doc_sentences(src);
        assert_eq!(
            s,
            vec![
                "Returns the number of elements in the vector, also referred to as its length.",
                "See the module documentation for more on what this means here.",
            ]
        );
    }

    #[test]
    fn registry_packages_skip_path_packages() {
        let lock = "[[package]]\nname = \"cairn-core\"\nversion = \"0.1.0\"\n\n[[package]]\nname = \"serde\"\nversion = \"1.0.1\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n";
        assert_eq!(
            registry_packages(lock),
            vec![("serde".to_string(), "1.0.1".to_string())]
        );
    }

    #[test]
    fn exact_top_is_best_first() {
        let m = vec![vec![1.0, 0.0], vec![0.6, 0.8], vec![0.0, 1.0]];
        assert_eq!(exact_top(&[0.8, 0.6], &m, 2), vec![1, 0]);
    }
}
