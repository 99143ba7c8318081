//! What ingestion asks the chat model, when one is configured: a title for
//! the text, and (on request) the atomic facts of each chunk kept.
//!
//! Both are optional extras over the offline pipeline, never a condition
//! of it: the chunks are stored as the offline path stores them whatever
//! the model answers. A title the model cannot give is extractive (the
//! most central sentence); facts it cannot give — after the provider's own
//! retries (timeouts, 429, 5xx, malformed answers, prose where JSON was
//! asked for) and [`FACT_ATTEMPTS`] asks in all (an answer of the wrong
//! JSON shape) — are none, and the chunk's receipt line says why
//! ([`Generated::fallback`]). Every fact the model gives is routed, scored
//! and stored or skipped like a chunk, with its own receipt line.

use super::Cairn;
use crate::analysis::summary;
use crate::chat::{self, Generated};
use crate::Result;

/// How many times the model is asked for a chunk's facts before the
/// chunk keeps none (each ask is itself retried by the provider).
pub const FACT_ATTEMPTS: usize = 2;

impl Cairn {
    /// A title for an ingested text, when a chat model is configured: the
    /// model's, else (it failed) the most central of `sentences` (whose
    /// unit vectors are `vectors`, possibly none), with the failure.
    /// `None` without a chat model: offline ingestion makes no title.
    pub(crate) fn ingest_title(
        &self,
        text: &str,
        sentences: &[&str],
        vectors: &[Vec<f32>],
    ) -> Result<Option<(String, Generated)>> {
        let Some(model) = &self.chat else {
            return Ok(None);
        };
        let failure = match chat::title(model.as_ref(), text) {
            Ok(t) => return Ok(Some((t, Generated::llm(&model.info().model)))),
            Err(e) => e.to_string(),
        };
        let title = if vectors.len() == sentences.len() {
            summary::title(sentences, vectors)?
        } else {
            sentences
                .first()
                .map_or_else(String::new, |s| summary::title_of(s))
        };
        Ok(Some((title, Generated::extractive(Some(failure)))))
    }

    /// The facts the chat model finds in `text`, and how they were made:
    /// none, with the reason, when the model is missing or keeps failing.
    pub(crate) fn facts_of(&self, text: &str) -> (Vec<String>, Generated) {
        let Some(model) = &self.chat else {
            return (
                Vec::new(),
                Generated::extractive(Some("no chat model is configured".into())),
            );
        };
        let mut failure = String::new();
        for _ in 0..FACT_ATTEMPTS {
            match chat::extract_facts(model.as_ref(), text) {
                Ok(facts) => return (facts, Generated::llm(&model.info().model)),
                Err(e) => failure = e.to_string(),
            }
        }
        (
            Vec::new(),
            Generated::extractive(Some(format!(
                "{failure} (asked {FACT_ATTEMPTS} times; the chunk is stored as it is)"
            ))),
        )
    }
}
