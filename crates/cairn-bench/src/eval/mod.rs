//! `cairn-bench eval`: retrieval quality on Cairn's own evaluation set
//! (`eval/` at the repository root), per kind of question and per search
//! mode.
//!
//! The set is hand-written agent memory: 200+ cases of ten kinds
//! ([`set::Kind`]), each a question with the memories it needs, among
//! thousands of distractors generated from hand-written templates
//! ([`distractors`]). Everything goes into one real SQLite store with the
//! real embedder, through the application layer ([`harness`]); every
//! question is asked in each mode and scored ([`score`]): hit@1, hit@5,
//! recall@5 and MRR, plus scope leaks and stale memories that win.
//!
//! The runner knows nothing of what a kind means beyond scoring: no
//! question is rewritten, no time expression parsed, no mode helped.
//! Deterministic: the same files, model and code give the same figures.

pub mod distractors;
pub mod harness;
pub mod score;
pub mod set;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use crate::embed_cache::CachedEmbedder;
use anyhow::{Context, Result};
use cairn_core::{Embedder, SearchMode, Store};
use cairn_sqlite::SqliteStore;
use serde_json::{json, Value};

use self::harness::Harness;
use self::score::{score_case, ModeScores, Ranked, Tally};
use self::set::{Case, Kind};
use crate::metrics::DEPTH;

/// What to run.
#[derive(Debug, Clone)]
pub struct Options {
    /// The directory holding `cases.jsonl` and `distractors.json`.
    pub dir: PathBuf,
    /// The modes, in report order.
    pub modes: Vec<SearchMode>,
    /// At most this many cases of each kind (a smoke run).
    pub per_kind: Option<usize>,
    /// This many distractors instead of the spec's count (a smoke run).
    pub distractors: Option<usize>,
    /// Print JSON instead of tables.
    pub json: bool,
    /// List the cases each mode misses at 5.
    pub misses: bool,
    /// How candidates are ranked.
    pub ranking: crate::ranking::Ranking,
    /// Keep the embeddings in this file between runs.
    pub embed_cache: Option<PathBuf>,
    /// Write every (question, result) pair's relevance evidence here, as
    /// JSON Lines (what the relevance model is fitted on).
    pub dump_relevance: Option<PathBuf>,
}

/// One case a mode missed: no relevant memory in its top 5.
struct Miss {
    mode: SearchMode,
    case: String,
    kind: Kind,
    question: String,
    top: Vec<Ranked>,
}

/// Loads the set, writes it into a new store, asks every question in
/// every mode, and prints the report.
pub fn run(opts: &Options) -> Result<()> {
    let mut cases = set::load_cases(&opts.dir.join("cases.jsonl"))?;
    if let Some(n) = opts.per_kind {
        cases = set::first_per_kind(cases, n);
    }
    let spec = distractors::Spec::load(&opts.dir.join("distractors.json"))?;
    let distractors = spec.generate(opts.distractors)?;
    let model: Arc<dyn Embedder> = Arc::new(
        cairn_embed::MiniLm::load(&cairn_embed::default_model_dir())
            .context("load the model (run scripts/fetch-model.sh)")?,
    );
    let cache = match &opts.embed_cache {
        Some(p) => Some(Arc::new(CachedEmbedder::open(model.clone(), p.clone())?)),
        None => None,
    };
    let embedder: Arc<dyn Embedder> = match &cache {
        Some(c) => c.clone(),
        None => model,
    };
    let tmp = tempfile::tempdir()?;
    let store: Arc<dyn Store> = Arc::new(SqliteStore::open(tmp.path().join("eval.db"))?);
    let ranking = opts.ranking;
    let mut h = Harness::new(store, embedder, ranking.fusion)
        .with_mmr(ranking.mmr)
        .with_embed_recipe(ranking.recipe);
    h.profile = ranking.profile;
    let t = Instant::now();
    let ingested = h.ingest(&distractors, &cases)?;
    let ingest_s = t.elapsed().as_secs_f64();
    eprintln!(
        "eval: {} cases, {} case memories, {} distractors written in {ingest_s:.1} s",
        cases.len(),
        ingested.case_memories,
        ingested.distractors
    );

    // Corrections: whether the write marked the fact each corrects.
    let mut corrections = (0usize, 0usize);
    let mut unlinked = Vec::new();
    for case in cases.iter().filter(|c| c.kind == Kind::Correction) {
        corrections.0 += 1;
        match h.stale_marked(case)? {
            true => corrections.1 += 1,
            false => unlinked.push((case.id.clone(), h.unlinked_signals(case)?)),
        }
    }

    let mut scores: Vec<ModeScores> = vec![ModeScores::default(); opts.modes.len()];
    let mut misses = Vec::new();
    let mut dump = Vec::new();
    let t = Instant::now();
    for case in &cases {
        for (mode, s) in opts.modes.iter().zip(&mut scores) {
            let ranked = h.ask(case, *mode, DEPTH)?;
            if opts.dump_relevance.is_some() {
                dump_pairs(&mut dump, case, *mode, &ranked)?;
            }
            if case.kind == Kind::Abstain {
                s.add_abstention(&ranked);
                continue;
            }
            let outcome = score_case(case, &ranked);
            if outcome.score.hit[score::AT_5] == 0.0 {
                misses.push(Miss {
                    mode: *mode,
                    case: case.id.clone(),
                    kind: case.kind,
                    question: case.question.clone(),
                    top: ranked.into_iter().take(3).collect(),
                });
            }
            s.add(case.kind, &outcome);
        }
    }
    let query_s = t.elapsed().as_secs_f64();
    if let Some(c) = &cache {
        c.save()?;
    }
    if let Some(path) = &opts.dump_relevance {
        std::fs::write(path, dump).with_context(|| format!("write {}", path.display()))?;
    }
    let questions = cases.len() * opts.modes.len();

    if opts.json {
        let doc = json!({
            "set": opts.dir.display().to_string(),
            "cases": cases.len(),
            "case_memories": ingested.case_memories,
            "distractors": ingested.distractors,
            "merged_into_distractors": ingested.merged_into_distractors,
            "reference_time": cairn_core::time::format_timestamp(harness::REFERENCE_MS),
            "ingest_seconds": ingest_s,
            "modes": opts.modes.iter().zip(&scores).map(|(m, s)| {
                (m.as_str().to_string(), mode_json(s))
            }).collect::<serde_json::Map<_, _>>(),
            "abstain": opts.modes.iter().zip(&scores).filter_map(|(m, s)| {
                Some((m.as_str().to_string(), json!({
                    "cases": s.abstain_cases,
                    "empty_answers": s.abstention()?,
                })))
            }).collect::<serde_json::Map<_, _>>(),
            "correction": {"cases": corrections.0, "old_marked": corrections.1},
            "misses_at_5": misses.iter().map(miss_json).collect::<Vec<_>>(),
        });
        println!("{}", serde_json::to_string_pretty(&doc)?);
        return Ok(());
    }
    print_tables(&cases, &opts.modes, &scores);
    if corrections.0 > 0 {
        println!(
            "\nCorrections whose corrected fact is marked as outdated (linked to the correction): {} of {}.",
            corrections.1, corrections.0
        );
        if opts.misses {
            for (id, why) in &unlinked {
                println!("- not linked: {id}: {why}");
            }
        }
    }
    println!(
        "\n{} cases ({} case memories) among {} distractors, one SQLite store; {:.1} s to write, {:.1} ms per question (embedding included){}.",
        cases.len(),
        ingested.case_memories,
        ingested.distractors,
        ingest_s,
        query_s * 1000.0 / questions.max(1) as f64,
        if ingested.merged_into_distractors > 0 {
            format!(
                "; {} case memories merged into near-identical distractors",
                ingested.merged_into_distractors
            )
        } else {
            String::new()
        }
    );
    if opts.misses {
        print_misses(&misses);
    }
    Ok(())
}

/// The cases missed at 5, each with the top 3 it returned.
fn print_misses(misses: &[Miss]) {
    println!("\nMissed at 5 (no relevant memory in the top 5); the top 3 returned:");
    for m in misses {
        println!(
            "- {} · {} · {}: {}",
            m.mode.as_str(),
            m.kind.as_str(),
            m.case,
            m.question
        );
        for (i, r) in m.top.iter().enumerate() {
            println!("    {}. {}", i + 1, describe(r));
        }
    }
}

/// The report: one row per kind and mode, then the overall rows.
fn print_tables(cases: &[Case], modes: &[SearchMode], scores: &[ModeScores]) {
    println!("| kind | mode | cases | H@1 | H@5 | R@5 | MRR | scope leaks | old wins |");
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|");
    let row = |kind: &str, mode: SearchMode, t: &Tally| {
        let [h1, h5, r5, mrr] = t.figures();
        println!(
            "| {kind} | {} | {} | {h1:.3} | {h5:.3} | {r5:.3} | {mrr:.3} | {} | {} |",
            mode.as_str(),
            t.summary.questions,
            t.scope_leaks,
            t.old_wins
        );
    };
    for kind in Kind::ALL {
        if kind == Kind::Abstain || !cases.iter().any(|c| c.kind == kind) {
            continue;
        }
        for (mode, s) in modes.iter().zip(scores) {
            row(kind.as_str(), *mode, &s.by_kind[&kind]);
        }
    }
    for (mode, s) in modes.iter().zip(scores) {
        row("**all**", *mode, &s.overall());
    }
    if scores.iter().any(|s| s.abstention().is_some()) {
        println!("\n| abstain | mode | cases | empty answers |");
        println!("|---|---|---:|---:|");
        for (mode, s) in modes.iter().zip(scores) {
            if let Some(share) = s.abstention() {
                println!(
                    "| abstain | {} | {} | {share:.3} |",
                    mode.as_str(),
                    s.abstain_cases
                );
            }
        }
    }
}

/// One JSON line per result of a case: the evidence of its relevance and
/// whether the case names it as an answer.
fn dump_pairs(out: &mut Vec<u8>, case: &Case, mode: SearchMode, ranked: &[Ranked]) -> Result<()> {
    let relevant = case.relevant_ids();
    for (i, r) in ranked.iter().enumerate() {
        let line = json!({
            "case": case.id,
            "kind": case.kind.as_str(),
            "mode": mode.as_str(),
            "rank": i + 1,
            "relevant": r.id.as_ref().is_some_and(|id| relevant.contains(id)),
            "cosine": r.cosine,
            "term_share": r.term_share,
            "unknown_share": r.unknown_share,
            "relevance": r.relevance,
        });
        serde_json::to_writer(&mut *out, &line)?;
        out.push(b'\n');
    }
    Ok(())
}

fn tally_json(t: &Tally) -> Value {
    let [h1, h5, r5, mrr] = t.figures();
    json!({
        "cases": t.summary.questions,
        "hit_at_1": h1,
        "hit_at_5": h5,
        "recall_at_5": r5,
        "mrr": mrr,
        "scope_leaks": t.scope_leaks,
        "old_wins": t.old_wins,
    })
}

fn mode_json(s: &ModeScores) -> Value {
    json!({
        "overall": tally_json(&s.overall()),
        "by_kind": s.by_kind.iter().map(|(k, t)| (k.as_str().to_string(), tally_json(t)))
            .collect::<serde_json::Map<_, _>>(),
    })
}

fn miss_json(m: &Miss) -> Value {
    json!({
        "mode": m.mode.as_str(),
        "case": m.case,
        "kind": m.kind.as_str(),
        "question": m.question,
        "top": m.top.iter().map(describe).collect::<Vec<_>>(),
    })
}

/// `[project] text (case memory id)` of a returned memory.
fn describe(r: &Ranked) -> String {
    format!(
        "[{}] {}{}",
        r.project.as_deref().unwrap_or("global"),
        r.content,
        r.id.as_deref()
            .map(|id| format!(" ({id})"))
            .unwrap_or_default()
    )
}

/// The default location of the set: `eval/` in the current directory, or
/// beside the bench crate when run from elsewhere in the repository.
pub fn default_dir() -> PathBuf {
    let here = Path::new("eval");
    if here.join("cases.jsonl").exists() {
        return here.to_path_buf();
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../eval")
}
