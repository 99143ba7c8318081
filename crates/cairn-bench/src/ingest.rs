//! `cairn-bench ingest`: the ingestion pipeline on LoCoMo's conversations
//! as plain text — its throughput against the model's own batched rate,
//! and whether hybrid recall over the chunks it stored finds the turns
//! that answer each question.
//!
//! Each conversation is one text (a paragraph a session, `Speaker: text`
//! turns), ingested by [`Cairn::ingest`](cairn_core::Cairn::ingest) into a SQLite store of its own,
//! as `cairn ingest FILE` does. A chunk covers the turns whose text lies
//! within it (the text is built from cleaned turns, so cleaning leaves it
//! as it is and the receipt's offsets are the text's). A question is a
//! hit at k when a turn of its evidence lies in one of the first k chunks
//! recalled.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result};
use cairn_core::api::EngineBuilder;
use cairn_core::engine::{Decision, IngestRequest, RecallRequest};
use cairn_core::ingest::clean;
use cairn_core::{Embedder, MemoryId};
use cairn_sqlite::SqliteStore;

use crate::locomo::{self, CATEGORIES};

const TENANT: &str = "default";

/// Ranks scored.
const KS: [usize; 4] = [1, 3, 5, 10];

/// Runs the benchmark and prints its tables.
pub fn run(path: &Path, conversations: Option<usize>, pooled_vectors: bool) -> Result<()> {
    let mut all = locomo::load(path)?;
    all.truncate(conversations.unwrap_or(usize::MAX));
    let embedder: Arc<dyn Embedder> = Arc::new(
        cairn_embed::MiniLm::load(&cairn_embed::default_model_dir())
            .context("load the model (run scripts/fetch-model.sh)")?,
    );
    let (mut bytes, mut tokens, mut chunks, mut stored) = (0usize, 0usize, 0usize, 0usize);
    let (mut ingest_s, mut embed_s) = (0.0f64, 0.0f64);
    let mut hits = [0usize; KS.len()];
    let mut asked = 0usize;
    for conv in &all {
        let (text, turns) = conversation_text(conv);
        let tmp = tempfile::tempdir()?;
        let store = Arc::new(SqliteStore::open(tmp.path().join("ingest.db"))?);
        let cairn = EngineBuilder::new(store, embedder.clone()).build()?;
        let mut req = IngestRequest::new(TENANT, text.clone());
        req.pooled_vectors = pooled_vectors;
        let t = Instant::now();
        let receipt = cairn.ingest(req, &mut |_, _| {})?;
        ingest_s += t.elapsed().as_secs_f64();

        // The model's batched rate on the same chunks: embedding the text
        // once, the bound ingestion is measured against.
        let texts: Vec<&str> = receipt
            .chunks
            .iter()
            .map(|c| c.chunk.text.as_str())
            .collect();
        let t = Instant::now();
        for batch in texts.chunks(64) {
            embedder.embed_batch(batch)?;
        }
        embed_s += t.elapsed().as_secs_f64();

        bytes += text.len();
        chunks += receipt.chunks.len();
        tokens += receipt.chunks.iter().map(|c| c.chunk.tokens).sum::<usize>();
        let mut covers: HashMap<MemoryId, Vec<&str>> = HashMap::new();
        for line in &receipt.chunks {
            let Some(id) = line.id else { continue };
            if line.decision == Decision::Stored {
                stored += 1;
            }
            let c = &line.chunk;
            covers.entry(id).or_default().extend(
                turns
                    .iter()
                    .filter(|(range, _)| range.start < c.end && c.start < range.end)
                    .map(|(_, dia)| dia.as_str()),
            );
        }
        for q in conv
            .questions
            .iter()
            .filter(|q| CATEGORIES.contains(&q.category) && !q.evidence.is_empty())
        {
            let mut r = RecallRequest::new(TENANT, &q.text);
            r.limit = KS[KS.len() - 1];
            let ranked: Vec<MemoryId> =
                cairn.search(&r)?.into_iter().map(|h| h.memory.id).collect();
            asked += 1;
            for (j, k) in KS.iter().enumerate() {
                let found = ranked.iter().take(*k).any(|id| {
                    covers
                        .get(id)
                        .is_some_and(|dias| dias.iter().any(|d| q.evidence.iter().any(|e| e == d)))
                });
                hits[j] += usize::from(found);
            }
        }
        eprintln!("{}: {} chunks", conv.id, receipt.chunks.len());
    }
    println!(
        "Ingestion of LoCoMo's conversations as text, release build; chunk vectors: {}.\n",
        if pooled_vectors {
            "its sentences' vectors pooled"
        } else {
            "each chunk embedded whole"
        }
    );
    println!("| text | chunks | stored | tokens | ingest | embedding once | throughput | of the embedding-bound rate |");
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|");
    println!(
        "| {:.0} KB | {chunks} | {stored} | {tokens} | {ingest_s:.1} s | {embed_s:.1} s | {:.0} tokens/s | {:.0}% |\n",
        bytes as f64 / 1000.0,
        tokens as f64 / ingest_s,
        100.0 * embed_s / ingest_s
    );
    let head: String = KS.iter().map(|k| format!(" H@{k} |")).collect();
    println!("| questions |{head}");
    println!("|---:|{}", "---:|".repeat(KS.len()));
    let row: String = hits
        .iter()
        .map(|h| format!(" {:.3} |", *h as f64 / asked.max(1) as f64))
        .collect();
    println!("| {asked} |{row}");
    Ok(())
}

/// A conversation as one text — a paragraph a session, each turn
/// `Speaker: text` cleaned as ingestion cleans — with each turn's byte
/// range and `dia_id`.
fn conversation_text(
    conv: &locomo::Conversation,
) -> (String, Vec<(std::ops::Range<usize>, String)>) {
    let mut text = String::new();
    let mut turns = Vec::new();
    let mut session = None;
    for t in &conv.turns {
        let turn = clean(&t.content());
        if turn.is_empty() {
            continue;
        }
        if !text.is_empty() {
            text.push_str(if session == Some(t.session) {
                " "
            } else {
                "\n\n"
            });
        }
        session = Some(t.session);
        let start = text.len();
        text.push_str(&turn);
        turns.push((start..text.len(), t.dia_id.clone()));
    }
    (text, turns)
}
