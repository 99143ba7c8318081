//! Ingestion for any front end: raw text in, a receipt of every chunk out
//! (see [`Cairn::ingest`]).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{non_empty, Caller};
use crate::chat::Generated;
use crate::engine::{
    redaction_counts, Cairn, Decision, IngestReceipt, IngestRequest, DEFAULT_INGEST_THRESHOLD,
};
use crate::memory::{MemoryType, Tier};
use crate::Result;

/// What to ingest, as front ends receive it.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct IngestInput {
    /// The raw text: plain, Markdown or HTML (required).
    pub text: String,
    /// The project of the memories (default: the caller's, else global).
    pub project: Option<String>,
    /// Tags of every memory stored.
    pub tags: Vec<String>,
    /// Chunks of lower importance (0.6·novelty + 0.4·salience) are skipped
    /// (default 0.3).
    pub threshold: Option<f64>,
    /// Answer the receipt without writing anything.
    pub dry_run: bool,
    /// Redact secrets first (default true; false keeps the text as given).
    pub redact: Option<bool>,
    /// Where it came from (default `ingest`).
    pub source: Option<String>,
    /// Embed the text once, each chunk's vector pooled from its
    /// sentences': about 1.5× faster, slightly worse recall.
    pub pooled_vectors: bool,
    /// Ask the configured chat model for each kept chunk's atomic facts
    /// and store them too (each its own receipt line, `fact_of` its
    /// chunk); without a model, or when it fails, the chunks alone are
    /// stored and their lines say why.
    pub facts: bool,
}

/// One chunk of an ingest, and what became of it.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ChunkView {
    /// Its place, from 0.
    pub index: usize,
    /// Its text (cleaned and redacted: what is stored).
    pub text: String,
    /// Byte offsets in the cleaned text.
    pub start: usize,
    /// End byte offset in the cleaned text.
    pub end: usize,
    /// Its exact tokens (cl100k_base).
    pub tokens: usize,
    /// The Markdown headings it sits under, outermost first (not part of
    /// its text).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub section: Vec<String>,
    /// The type it was routed to.
    #[serde(rename = "type")]
    pub kind: MemoryType,
    /// The type's tier.
    pub tier: Tier,
    /// The routing rule that decided.
    pub rule: String,
    /// `1 −` its highest similarity to what is stored or came before it.
    pub novelty: f64,
    /// How much it carries worth remembering.
    pub salience: f64,
    /// `0.6·novelty + 0.4·salience`.
    pub importance: f64,
    /// `stored`, `merged`, `skipped` or `pending`.
    #[schemars(with = "String")]
    pub decision: Decision,
    /// The memory it was stored as or merged into (none in a dry run or
    /// when skipped).
    pub id: Option<String>,
    /// The most similar stored memory.
    pub nearest: Option<String>,
    /// Its similarity.
    pub similarity: Option<f32>,
    /// Why, in words.
    pub reason: String,
    /// For a fact the chat model read from a chunk: that chunk's index.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fact_of: Option<usize>,
    /// For a chunk whose facts were asked for: how they were made (`llm`,
    /// or `extractive` with the model's failure: no facts, the chunk kept).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub facts: Option<Generated>,
}

/// What an ingest did (or, dry, would do).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct IngestOutput {
    /// Whether nothing was written.
    pub dry_run: bool,
    /// Chunks stored as new memories.
    pub stored: usize,
    /// Chunks merged into near-identical memories.
    pub merged: usize,
    /// Chunks skipped for low importance.
    pub skipped: usize,
    /// Chunks kept pending: the embedding endpoint failed (stored once it
    /// answers).
    pub pending: usize,
    /// Lines that are facts read from a chunk by the chat model.
    pub facts: usize,
    /// The text's title (in each memory's `metadata.ingest.title`), when a
    /// chat model is configured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// How the title was made (`llm`, or `extractive` with the model's
    /// failure).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub titled_by: Option<Generated>,
    /// Secrets replaced before chunking, by kind.
    pub redacted: BTreeMap<String, usize>,
    /// Every chunk, in order.
    pub chunks: Vec<ChunkView>,
}

impl IngestOutput {
    fn of(receipt: IngestReceipt) -> Self {
        let count = |d: Decision| receipt.chunks.iter().filter(|c| c.decision == d).count();
        IngestOutput {
            dry_run: receipt.dry_run,
            stored: count(Decision::Stored),
            merged: count(Decision::Merged),
            skipped: count(Decision::Skipped),
            pending: count(Decision::Pending),
            facts: receipt
                .chunks
                .iter()
                .filter(|c| c.fact_of.is_some())
                .count(),
            title: receipt.title.as_ref().map(|(t, _)| t.clone()),
            titled_by: receipt.title.map(|(_, by)| by),
            redacted: redaction_counts(&receipt.redacted),
            chunks: receipt
                .chunks
                .into_iter()
                .enumerate()
                .map(|(index, c)| ChunkView {
                    index,
                    text: c.chunk.text,
                    start: c.chunk.start,
                    end: c.chunk.end,
                    tokens: c.chunk.tokens,
                    section: c.chunk.section,
                    kind: c.kind,
                    tier: c.tier,
                    rule: c.rule.to_string(),
                    novelty: c.novelty,
                    salience: c.salience,
                    importance: c.importance,
                    decision: c.decision,
                    id: c.id.map(|i| i.to_string()),
                    nearest: c.nearest.map(|(i, _)| i.to_string()),
                    similarity: c.nearest.map(|(_, s)| s),
                    reason: c.reason,
                    fact_of: c.fact_of,
                    facts: c.facts,
                })
                .collect(),
        }
    }
}

/// Ingest raw text: clean, redact, chunk, embed, score, route, and store
/// or skip each chunk, answering a receipt of every chunk. `progress` is
/// told how many chunks of how many are done.
pub fn ingest(
    cairn: &Cairn,
    caller: &Caller,
    input: IngestInput,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<IngestOutput> {
    let mut req = IngestRequest::new(&caller.tenant, input.text);
    req.project = non_empty(input.project.as_deref()).or_else(|| caller.project.clone());
    req.tags = input.tags;
    req.threshold = input.threshold.unwrap_or(DEFAULT_INGEST_THRESHOLD);
    req.dry_run = input.dry_run;
    req.redact = input.redact.unwrap_or(true);
    req.source = non_empty(input.source.as_deref());
    req.pooled_vectors = input.pooled_vectors;
    req.facts = input.facts;
    req.actor.clone_from(&caller.actor);
    cairn.ingest(req, progress).map(IngestOutput::of)
}
