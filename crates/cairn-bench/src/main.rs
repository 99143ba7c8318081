//! `cairn-bench`: reproducible performance numbers for Cairn, printed as
//! Markdown tables (the ones in `docs/BENCHMARKS.md`).
//!
//! - `store`: synthetic memories (10–40 words, 384-d unit vectors) in a real
//!   SQLite file: import throughput of pre-embedded JSON Lines records,
//!   hybrid recall latency with the query vector given (warm process), and
//!   peak memory.
//! - `index-recall`: the vector index's recall@10 against exact cosine
//!   search, on MiniLM vectors of real sentences.
//! - `embed`: the local MiniLM model: load time, one-query latency, batched
//!   throughput, and import throughput with embedding.
//! - `fresh`: `cairn recall` as a fresh process against a store file.
//! - `locomo`: retrieval quality on the LoCoMo conversations (evidence
//!   recall@k, hit@k, MRR per category, for each search mode).
//! - `eval`: retrieval quality on Cairn's own evaluation set (`eval/`):
//!   hit@1, hit@5, recall@5, MRR, scope leaks and stale wins per kind of
//!   question, for each search mode.
//! - `serve`: the REST API of the real `cairn serve` under concurrent
//!   keep-alive load: throughput, p50/p99, errors, resident memory.
//! - `mcp`: recall through the MCP server (stdio framing, streamable HTTP)
//!   against the engine alone, and the server processes' idle memory.
//!
//! Nothing here asserts: benchmarks print numbers.

mod embed_cache;
mod eval;
mod index_recall;
mod ingest;
mod locomo;
mod mcp;
mod metrics;
mod ranking;
mod rerank;
mod serve;
mod store;
mod synth;
mod timing;
mod ui;
mod window;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use cairn_core::api::EngineBuilder;
use cairn_core::history::LOCAL_ACTOR;
use cairn_core::wire::MemoryRecord;
use cairn_core::{Embedder, SearchMode, Store};
use cairn_sqlite::SqliteStore;
use clap::{Parser, Subcommand};

use crate::ranking::{Ranking, RankingArgs};
use crate::synth::Corpus;
use crate::timing::{ms, peak_rss_mib};

#[derive(Parser)]
#[command(
    name = "cairn-bench",
    about = "Cairn benchmarks: print tables of numbers"
)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Import and hybrid-recall synthetic memories in a SQLite file.
    Store {
        /// Store sizes, comma-separated.
        #[arg(long, value_delimiter = ',', default_value = "10000,100000")]
        sizes: Vec<usize>,
        /// Queries per size.
        #[arg(long, default_value_t = 1000)]
        queries: usize,
        /// Keep the store files in this directory (for `fresh`); with
        /// `--postgres`, keep the schemas too (their names are printed).
        #[arg(long)]
        keep: Option<PathBuf>,
        /// Measure PostgreSQL instead of SQLite: the database's URL (each
        /// size in a schema of its own, dropped after; `?ef_search=N`
        /// sets the HNSW search's candidate list).
        #[arg(long, value_name = "URL")]
        postgres: Option<String>,
        /// One size: query what `--keep` kept instead of importing again
        /// (with `--postgres`, this schema; else this SQLite file).
        #[arg(long, value_name = "SCHEMA|FILE")]
        reuse: Option<String>,
        /// Partition SQLite's vector index from this many memories on
        /// (default: from 200,000).
        #[arg(long, value_name = "MEMORIES")]
        partition_at: Option<usize>,
        /// Hybrid: the weight of the keyword search expanded with the first
        /// vector hits' terms (`rank::feedback_terms`; 0 turns it off).
        #[arg(long, value_name = "WEIGHT", default_value_t = cairn_core::rank::FEEDBACK_WEIGHT)]
        feedback_weight: f64,
    },
    /// The context-window optimiser on a long session (synthetic
    /// embeddings: the time without the query's embedding).
    Window {
        /// Exchanges in the session (two messages each).
        #[arg(long, default_value_t = 1000)]
        exchanges: usize,
        /// Timed calls.
        #[arg(long, default_value_t = 50)]
        runs: usize,
        /// The window's token budget.
        #[arg(long, default_value_t = 2000)]
        budget: usize,
    },
    /// `cairn ingest` of LoCoMo's conversations as text: throughput
    /// against the model's batched rate, and whether recall over the
    /// chunks finds each question's evidence.
    Ingest {
        /// locomo10.json.
        path: PathBuf,
        /// Only the first N conversations.
        #[arg(long)]
        conversations: Option<usize>,
        /// Pool each chunk's vector from its sentences' (`cairn ingest
        /// --fast`) instead of embedding it whole.
        #[arg(long)]
        pooled_vectors: bool,
    },
    /// The vector index's recall against exact cosine search, on MiniLM
    /// vectors of real sentences (the registry crates' comments).
    IndexRecall {
        /// Store sizes, comma-separated.
        #[arg(long, value_delimiter = ',', default_value = "10000,100000")]
        sizes: Vec<usize>,
        /// Held-out sentences asked as queries.
        #[arg(long, default_value_t = 500)]
        queries: usize,
        /// The sentences' vectors are kept in this file between runs.
        #[arg(long, default_value = "target/index-recall.vectors")]
        cache: PathBuf,
        /// Measure PostgreSQL's HNSW index instead (this database's URL;
        /// `?ef_search=N` sets its candidate list).
        #[arg(long, value_name = "URL")]
        postgres: Option<String>,
        /// Partition SQLite's vector index from this many memories on
        /// (default: from 200,000).
        #[arg(long, value_name = "MEMORIES")]
        partition_at: Option<usize>,
    },
    /// The local embedding model's speed.
    Embed {
        /// Sentences for the batched throughput run.
        #[arg(long, default_value_t = 2048)]
        sentences: usize,
    },
    /// `cairn recall` as a fresh process (hybrid, real query embedding).
    Fresh {
        /// The store file (e.g. one kept by `store --keep`).
        #[arg(long)]
        db: PathBuf,
        /// The `cairn` binary.
        #[arg(long, default_value = "target/release/cairn")]
        cairn: PathBuf,
        /// Runs.
        #[arg(long, default_value_t = 20)]
        runs: usize,
    },
    /// Evidence recall on LoCoMo: every turn a memory, every question of
    /// categories 1–4 asked in the keyword, semantic and hybrid modes.
    Locomo {
        /// LoCoMo's `locomo10.json` (read in place, never copied).
        #[arg(default_value = "../shared/data/locomo10.json")]
        path: PathBuf,
        /// Only the first N conversations (a smoke run).
        #[arg(long)]
        conversations: Option<usize>,
        /// How turns are stored: as `cairn conversation import` logs a
        /// transcript, or as `cairn remember` of each turn.
        #[arg(long, value_enum, default_value = "conversation")]
        ingest: locomo::Ingest,
        /// Also write the results as JSON to this file.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Keep embeddings in this file between runs (ranking experiments);
        /// timings then exclude the model for cached texts.
        #[arg(long)]
        embed_cache: Option<PathBuf>,
        #[command(flatten)]
        ranking: RankingArgs,
        /// Store the conversations in PostgreSQL (this database's URL, a
        /// schema per conversation, dropped after) instead of SQLite.
        #[arg(long, value_name = "URL")]
        postgres: Option<String>,
    },
    /// Retrieval quality on Cairn's own evaluation set: every case's
    /// memories among thousands of distractors in one store, every question
    /// asked in each mode, scored per kind.
    Eval {
        /// The set's directory (`cases.jsonl`, `distractors.json`); default
        /// `eval/` of the repository.
        path: Option<PathBuf>,
        /// Search modes, comma-separated, in report order.
        #[arg(long, value_delimiter = ',', default_value = "keyword,semantic,hybrid")]
        modes: Vec<SearchMode>,
        /// Print the results as JSON instead of tables.
        #[arg(long)]
        json: bool,
        /// At most N cases of each kind (a smoke run).
        #[arg(long)]
        limit: Option<usize>,
        /// N distractors instead of the set's count (a smoke run).
        #[arg(long)]
        distractors: Option<usize>,
        /// List the cases each mode misses at 5, with what it returned.
        #[arg(long)]
        misses: bool,
        /// Keep embeddings in this file between runs (ranking experiments).
        #[arg(long)]
        embed_cache: Option<PathBuf>,
        /// Write each (question, result) pair's relevance evidence to this
        /// file as JSON Lines (to fit `rank::relevance`; run with
        /// `--min-relevance 0`).
        #[arg(long, value_name = "PATH")]
        dump_relevance: Option<PathBuf>,
        #[command(flatten)]
        ranking: RankingArgs,
    },
    /// Recall latency through MCP (stdio framing and HTTP) against the
    /// engine's own, and the idle memory of `cairn serve` / `cairn mcp`.
    Mcp {
        /// Memories in the store.
        #[arg(long, default_value_t = 10_000)]
        memories: usize,
        /// Queries.
        #[arg(long, default_value_t = 200)]
        queries: usize,
        /// The `cairn` binary (for the idle memory figures).
        #[arg(long, default_value = "target/release/cairn")]
        cairn: PathBuf,
    },
    /// The web UI's server time at scale (the memory browser, search with
    /// explain, a memory's page, the overview) and the bytes of the
    /// browser's first load.
    Ui {
        /// Memories in the store.
        #[arg(long, default_value_t = 100_000)]
        memories: usize,
        /// Requests per page.
        #[arg(long, default_value_t = 50)]
        runs: usize,
    },
    /// The REST API of `cairn serve` under load from concurrent clients.
    Serve {
        /// Memories in the store.
        #[arg(long, default_value_t = 100_000)]
        memories: usize,
        /// Concurrent keep-alive clients.
        #[arg(long, default_value_t = 16)]
        clients: usize,
        /// Seconds per scenario.
        #[arg(long, default_value_t = 20.0)]
        seconds: f64,
        /// The scenarios to run, comma-separated.
        #[arg(long, value_enum, value_delimiter = ',', default_values_t = serve::SCENARIOS)]
        scenarios: Vec<serve::Scenario>,
        /// Another `cairn` binary to compare with `--cairn`: the builds
        /// take turns on one store, `--rounds` times (repeat it for more).
        #[arg(long, value_name = "BIN")]
        compare: Vec<PathBuf>,
        /// Turns each build takes with `--compare`.
        #[arg(long, default_value_t = 3)]
        rounds: usize,
        /// Instead of the scenarios: a mixed load (hybrid and keyword
        /// recall, get, remember) for this many seconds, with the server's
        /// resident memory sampled as it goes.
        #[arg(long)]
        soak: Option<f64>,
        /// The `cairn` binary.
        #[arg(long, default_value = "target/release/cairn")]
        cairn: PathBuf,
        /// Instead: one PostgreSQL schema (this database's URL) served by
        /// one server, then by two, under the same load.
        #[arg(long, value_name = "URL")]
        postgres: Option<String>,
    },
    /// The reranking stage's cost in recall: none, MMR, and the HTTP
    /// `/rerank` client against a local server speaking the protocol
    /// (answering, failing, unreachable). Overhead and failure handling
    /// only: no reranking model's quality is measured.
    Rerank {
        /// Memories stored.
        #[arg(long, default_value_t = 5000)]
        memories: usize,
        /// Recalls per reranker.
        #[arg(long, default_value_t = 200)]
        queries: usize,
        /// Results per recall.
        #[arg(long, default_value_t = 10)]
        limit: usize,
    },
}

fn main() -> Result<()> {
    cairn_embed::init_threads();
    match Cli::parse().command {
        Cmd::Store {
            sizes,
            queries,
            keep,
            postgres,
            reuse: r,
            partition_at,
            feedback_weight: w,
        } => store::run(
            &sizes,
            queries,
            keep,
            (postgres.as_deref(), r),
            partition_at,
            w,
        ),
        Cmd::IndexRecall {
            sizes,
            queries,
            cache,
            postgres,
            partition_at,
        } => index_recall::run(&sizes, queries, cache, postgres.as_deref(), partition_at),
        Cmd::Embed { sentences } => embed(sentences),
        Cmd::Ingest {
            path,
            conversations,
            pooled_vectors,
        } => ingest::run(&path, conversations, pooled_vectors),
        Cmd::Window {
            exchanges,
            runs,
            budget,
        } => window::run(exchanges, runs, budget),
        Cmd::Fresh { db, cairn, runs } => fresh(&db, &cairn, runs),
        Cmd::Locomo {
            path,
            conversations,
            ingest,
            out,
            embed_cache,
            ranking,
            postgres,
        } => locomo_bench(
            &path,
            conversations,
            ingest,
            out,
            embed_cache,
            ranking.ranking(),
            postgres.as_deref(),
        ),
        Cmd::Eval {
            path,
            modes,
            json,
            limit,
            distractors,
            misses,
            embed_cache,
            dump_relevance,
            ranking,
        } => eval::run(&eval::Options {
            embed_cache,
            dump_relevance,
            ranking: ranking.ranking(),
            dir: path.unwrap_or_else(eval::default_dir),
            modes,
            per_kind: limit,
            distractors,
            json,
            misses,
        }),
        Cmd::Mcp {
            memories,
            queries,
            cairn,
        } => mcp::run(memories, queries, &cairn),
        Cmd::Ui { memories, runs } => ui::run(memories, runs),
        Cmd::Rerank {
            memories,
            queries,
            limit,
        } => rerank::run(memories, queries, limit),
        Cmd::Serve {
            memories,
            clients,
            seconds,
            scenarios,
            compare,
            rounds,
            soak,
            cairn,
            postgres,
        } => match (postgres, soak) {
            (Some(url), _) => serve::pg_pair(&url, memories, clients, seconds, &cairn),
            (None, Some(soak)) => serve::soak(memories, clients, soak, &cairn),
            (None, None) if !compare.is_empty() => {
                let bins: Vec<&Path> = std::iter::once(cairn.as_path())
                    .chain(compare.iter().map(PathBuf::as_path))
                    .collect();
                serve::compare(memories, clients, seconds, &scenarios, &bins, rounds)
            }
            (None, None) => serve::run(memories, clients, seconds, &scenarios, &cairn),
        },
    }
}

/// A PostgreSQL schema of the benchmark's own, dropped when done unless
/// `keep` is set.
pub(crate) struct PgSchema {
    url: String,
    name: String,
    /// Leave the schema in place (`store --keep`), to query it afterwards.
    pub(crate) keep: bool,
}

impl PgSchema {
    /// `bench_<what>_<pid>` in the database at `url`.
    pub(crate) fn new(url: &str, what: &str) -> PgSchema {
        let what: String = what
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '_'
                }
            })
            .collect();
        PgSchema {
            url: url.to_string(),
            name: format!("bench_{what}_{}", std::process::id()),
            keep: false,
        }
    }

    /// A store in this schema.
    pub(crate) fn open(&self) -> Result<cairn_postgres::PostgresStore> {
        cairn_postgres::PostgresStore::open(&self.url_with_schema()).map_err(Into::into)
    }

    /// The URL naming this schema.
    pub(crate) fn url_with_schema(&self) -> String {
        let sep = if self.url.contains('?') { '&' } else { '?' };
        format!("{}{sep}schema={}", self.url, self.name)
    }
}

impl Drop for PgSchema {
    fn drop(&mut self) {
        if self.keep {
            eprintln!("kept the PostgreSQL schema {}", self.name);
            return;
        }
        // The URL without Cairn's own parameters.
        let base = self.url.split('?').next().unwrap_or(&self.url);
        if let Ok(mut client) = postgres::Client::connect(base, postgres::NoTls) {
            let _ = client.batch_execute(&format!("DROP SCHEMA IF EXISTS {} CASCADE", self.name));
        }
    }
}

fn embed(sentences: usize) -> Result<()> {
    let dir = cairn_embed::default_model_dir();
    let t = Instant::now();
    let model =
        cairn_embed::MiniLm::load(&dir).context("load the model (run scripts/fetch-model.sh)")?;
    let load_ms = t.elapsed().as_secs_f64() * 1000.0;
    let corpus = Corpus::new(7);
    let query = "where does the team keep the staging database backups now";
    let _ = model.embed(query)?;
    let mut single = Vec::new();
    for _ in 0..50 {
        let t = Instant::now();
        std::hint::black_box(model.embed(query)?);
        single.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    let (s50, s95) = ms(&mut single);
    let texts: Vec<String> = (0..sentences)
        .map(|i| corpus.english_text(i as u64))
        .collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let t = Instant::now();
    for chunk in refs.chunks(256) {
        std::hint::black_box(model.embed_batch(chunk)?);
    }
    let batch_rate = sentences as f64 / t.elapsed().as_secs_f64();
    // Short texts (the first 10 words of each, ~13 tokens with [CLS] and
    // [SEP]): the typical size of a memory or query, where the encoder is not
    // yet compute-bound.
    let short: Vec<String> = texts
        .iter()
        .map(|t| t.split_whitespace().take(10).collect::<Vec<_>>().join(" "))
        .collect();
    let short_refs: Vec<&str> = short.iter().map(String::as_str).take(1024).collect();
    let t = Instant::now();
    for chunk in short_refs.chunks(256) {
        std::hint::black_box(model.embed_batch(chunk)?);
    }
    let short_rate = short_refs.len() as f64 / t.elapsed().as_secs_f64();
    // Import with embedding, through the engine, into a real file.
    let tmp = tempfile::tempdir()?;
    let store: Arc<dyn Store> = Arc::new(SqliteStore::open(tmp.path().join("e.db"))?);
    let cairn = EngineBuilder::new(store, Arc::new(model)).build()?;
    let records = texts
        .iter()
        .enumerate()
        .map(|(i, t)| {
            (
                i + 1,
                Ok(MemoryRecord {
                    content: t.clone(),
                    ..Default::default()
                }),
            )
        })
        .collect::<Vec<_>>();
    let t = Instant::now();
    cairn.import("default", records, true, LOCAL_ACTOR, &mut |_| {})?;
    let import_rate = sentences as f64 / t.elapsed().as_secs_f64();
    println!("| figure | value |\n|---|---:|");
    println!("| model load | {load_ms:.0} ms |");
    println!("| one 10-word query, p50 | {s50:.1} ms |");
    println!("| one 10-word query, p95 | {s95:.1} ms |");
    println!(
        "| batched embedding (batches of 256, {} English-like sentences of 10 words) | {short_rate:.0} sentences/s |",
        short_refs.len()
    );
    println!("| batched embedding (batches of 256, {sentences} English-like sentences of 10–40 words) | {batch_rate:.0} sentences/s |");
    println!("| import with embedding | {import_rate:.0} memories/s |");
    println!("| peak RSS | {:.0} MiB |", peak_rss_mib());
    Ok(())
}

fn fresh(db: &std::path::Path, cairn: &std::path::Path, runs: usize) -> Result<()> {
    let corpus = Corpus::new(42);
    let mut wall = Vec::new();
    let mut first = 0.0;
    for i in 0..=runs {
        let q = corpus.query_text(1000 + i as u64);
        let t = Instant::now();
        let out = Command::new(cairn)
            .args(["--db"])
            .arg(db)
            .args(["--json", "recall", &q])
            .output()
            .with_context(|| format!("run {}", cairn.display()))?;
        let elapsed = t.elapsed().as_secs_f64() * 1000.0;
        if !out.status.success() {
            bail!("cairn failed: {}", String::from_utf8_lossy(&out.stderr));
        }
        if i > 0 {
            wall.push(elapsed);
        } else {
            first = elapsed;
        }
    }
    let (p50, p95) = ms(&mut wall);
    println!(
        "| `cairn recall` fresh process | p50 {p50:.0} ms | p95 {p95:.0} ms | ({runs} runs, {}) |",
        db.display()
    );
    // Without a usable index snapshot (a store just imported, or written
    // to by an eighth since), the first process decodes every row and
    // then saves one.
    println!("| the first of them (not counted above) | {first:.0} ms | | |");
    Ok(())
}

fn locomo_bench(
    path: &std::path::Path,
    limit: Option<usize>,
    ingest: locomo::Ingest,
    out: Option<PathBuf>,
    embed_cache: Option<PathBuf>,
    ranking: Ranking,
    postgres: Option<&str>,
) -> Result<()> {
    let Ranking {
        fusion,
        profile,
        mmr,
        recipe,
    } = ranking;
    use locomo::{category_name, Harness, ModeResult, CATEGORIES};
    use metrics::KS;

    let mut conversations = locomo::load(path)?;
    conversations.truncate(limit.unwrap_or(usize::MAX));
    let (embedder, cache) = locomo_embedder(embed_cache)?;
    let mut results: Vec<ModeResult> = vec![ModeResult::default(); locomo::MODES.len()];
    let (mut turns, mut ingest_s) = (0usize, 0.0f64);
    for conv in &conversations {
        let tmp = tempfile::tempdir()?;
        let (store, _schema): (Arc<dyn Store>, _) = match postgres {
            Some(url) => {
                let schema = PgSchema::new(url, &format!("locomo_{}", conv.id));
                (Arc::new(schema.open()?), Some(schema))
            }
            None => (
                Arc::new(SqliteStore::open(tmp.path().join("locomo.db"))?),
                None,
            ),
        };
        let mut h = Harness::new(store, embedder.clone(), fusion).with_mmr(mmr);
        h.cairn = h.cairn.with_embed_recipe(recipe);
        h.profile = profile;
        let t = Instant::now();
        let ids = h.ingest(conv, ingest)?;
        ingest_s += t.elapsed().as_secs_f64();
        turns += conv.turns.len();
        let reference = conv.turns.iter().map(|t| t.time).max();
        let asked: Vec<_> = conv
            .questions
            .iter()
            .filter(|q| CATEGORIES.contains(&q.category))
            .collect();
        for q in &asked {
            for (m, result) in locomo::MODES.iter().zip(&mut results) {
                let t = Instant::now();
                let ranked = h.ask(&q.text, *m, reference, &ids)?;
                result.query_ms.push(t.elapsed().as_secs_f64() * 1000.0);
                result.add(q, &ranked);
            }
        }
        h.report_conversation(conv, asked.len());
    }
    if let Some(c) = &cache {
        c.save()?;
    }

    let header = KS.iter().map(|k| format!(" R@{k} |")).collect::<String>()
        + &KS.iter().map(|k| format!(" H@{k} |")).collect::<String>();
    let cols = "---:|".repeat(2 * KS.len());
    let row = |s: &metrics::Summary| {
        (0..KS.len())
            .map(|j| format!(" {:.3} |", s.recall(j)))
            .collect::<String>()
            + &(0..KS.len())
                .map(|j| format!(" {:.3} |", s.hit(j)))
                .collect::<String>()
            + &format!(" {:.3} |", s.mrr())
    };
    println!(
        "Turns stored {}.\n",
        match ingest {
            locomo::Ingest::Conversation =>
                "as `cairn conversation import` logs a transcript (sessions, topics, neighbours as keyword context)",
            locomo::Ingest::Plain => "as `cairn remember` stores them: plain episodes",
        }
    );
    println!("| mode | questions |{header} MRR | p50 ms | p95 ms |");
    println!("|---|---:|{cols}---:|---:|---:|");
    let mut json_modes = serde_json::Map::new();
    for (m, r) in locomo::MODES.iter().zip(&mut results) {
        let all = r.overall();
        let (p50, p95) = ms(&mut r.query_ms);
        println!(
            "| {} | {} |{} {p50:.1} | {p95:.1} |",
            m.as_str(),
            all.questions,
            row(&all)
        );
        let by_cat: serde_json::Map<String, serde_json::Value> = CATEGORIES
            .iter()
            .zip(&r.by_category)
            .map(|(c, s)| (category_name(*c).to_string(), summary_json(s)))
            .collect();
        json_modes.insert(
            m.as_str().into(),
            serde_json::json!({
                "overall": summary_json(&all),
                "by_category": by_cat,
                "query_ms": {"p50": p50, "p95": p95},
            }),
        );
    }
    println!("\n| mode | category | questions |{header} MRR |");
    println!("|---|---|---:|{cols}---:|");
    for (m, r) in locomo::MODES.iter().zip(&results) {
        for (c, s) in CATEGORIES.iter().zip(&r.by_category) {
            let (name, n, cells) = (category_name(*c), s.questions, row(s));
            println!("| {} | {c} {name} | {n} |{cells}", m.as_str());
        }
    }
    let per_s = turns as f64 / ingest_s;
    println!(
        "\n{} conversations, {turns} turns ingested in {ingest_s:.1} s ({per_s:.0} turns/s, {}){}",
        conversations.len(),
        match ingest {
            locomo::Ingest::Conversation => "one conversation import each",
            locomo::Ingest::Plain => "one `remember` each",
        },
        if cache.is_some() {
            "; embeddings from a cache"
        } else {
            ""
        }
    );
    if let Some(out) = out {
        let doc = serde_json::json!({
            "dataset": path.display().to_string(),
            "conversations": conversations.len(),
            "turns": turns,
            "embeddings_cached": cache.is_some(),
            "ingest": {"path": format!("{ingest:?}").to_lowercase(), "seconds": ingest_s, "turns_per_second": per_s},
            "modes": json_modes,
        });
        std::fs::write(&out, serde_json::to_string_pretty(&doc)? + "\n")
            .with_context(|| format!("write {}", out.display()))?;
    }
    Ok(())
}

/// The model, behind a cache of its vectors when `embed_cache` names one
/// (returned too, to be saved when done).
type Cached = Option<Arc<embed_cache::CachedEmbedder>>;
fn locomo_embedder(embed_cache: Option<PathBuf>) -> Result<(Arc<dyn Embedder>, Cached)> {
    let model: Arc<dyn Embedder> = Arc::new(
        cairn_embed::MiniLm::load(&cairn_embed::default_model_dir())
            .context("load the model (run scripts/fetch-model.sh)")?,
    );
    let cache = embed_cache
        .map(|p| embed_cache::CachedEmbedder::open(model.clone(), p).map(Arc::new))
        .transpose()?;
    let embedder: Arc<dyn Embedder> = match &cache {
        Some(c) => c.clone(),
        None => model,
    };
    Ok((embedder, cache))
}

fn summary_json(s: &metrics::Summary) -> serde_json::Value {
    let at = |f: &dyn Fn(usize) -> f64| -> serde_json::Map<String, serde_json::Value> {
        metrics::KS
            .iter()
            .enumerate()
            .map(|(j, k)| (k.to_string(), serde_json::json!(f(j))))
            .collect()
    };
    serde_json::json!({
        "questions": s.questions,
        "recall": at(&|j| s.recall(j)),
        "hit": at(&|j| s.hit(j)),
        "mrr": s.mrr(),
    })
}
