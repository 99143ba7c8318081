//! What ingestion asks the chat model, when one is configured: a title for
//! the text ([`Cairn::model_title`], shared with conversation topics), and
//! (on request) the atomic facts of each chunk kept.
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
use crate::chat::{self, Generated};

/// How many times the model is asked for a chunk's facts before the
/// chunk keeps none (each ask is itself retried by the provider).
pub const FACT_ATTEMPTS: usize = 2;

impl Cairn {
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
