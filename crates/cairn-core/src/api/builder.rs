//! [`EngineBuilder`]: the one place an engine is assembled for a binary
//! (the CLI, the server it starts, the benchmarks), so that every binary
//! means the same by a setting left out.

use std::sync::Arc;

use crate::engine::ConflictPolicy;
use crate::foreign::Importer;
use crate::rank::Fusion;
use crate::redact::Redactor;
use crate::rerank::Reranker;
use crate::{Cairn, ChatProvider, Embedder, Error, Result, Store};

/// The environment variable that sets [`Fusion::staleness_days`].
pub const STALENESS_DAYS_VAR: &str = "CAIRN_STALENESS_DAYS";

/// The environment variable that sets [`Fusion::min_relevance`].
pub const MIN_RELEVANCE_VAR: &str = "CAIRN_MIN_RELEVANCE";

/// An engine's assembly: a store and an embedder, and every optional part
/// with `None` meaning the core's default (no chat model, no reranker, no
/// reader of other systems' exports,
/// redaction of every kind, [`ConflictPolicy::default`], [`Fusion::default`]).
#[must_use]
pub struct EngineBuilder {
    store: Arc<dyn Store>,
    embedder: Arc<dyn Embedder>,
    chat: Option<Arc<dyn ChatProvider>>,
    reranker: Option<Arc<dyn Reranker>>,
    importer: Option<Arc<dyn Importer>>,
    redaction: Option<String>,
    conflict_policy: Option<ConflictPolicy>,
    fusion: Fusion,
}

impl EngineBuilder {
    /// An engine over `store` and `embedder`, every other part the core's
    /// default: what [`Cairn::new`] gives.
    pub fn new(store: Arc<dyn Store>, embedder: Arc<dyn Embedder>) -> Self {
        EngineBuilder {
            store,
            embedder,
            chat: None,
            reranker: None,
            importer: None,
            redaction: None,
            conflict_policy: None,
            fusion: Fusion::default(),
        }
    }

    /// The chat model for summaries, titles and ingested facts.
    pub fn chat(mut self, chat: Option<Arc<dyn ChatProvider>>) -> Self {
        self.chat = chat;
        self
    }

    /// The reranker of recall's best candidates.
    pub fn reranker(mut self, reranker: Option<Arc<dyn Reranker>>) -> Self {
        self.reranker = reranker;
        self
    }

    /// The reader of other systems' exports (`cairn-importers`), for
    /// [`crate::api::import_foreign`] and memcord files given to
    /// [`crate::api::slot_import`]; `None` refuses them.
    pub fn importer(mut self, importer: Option<Arc<dyn Importer>>) -> Self {
        self.importer = importer;
        self
    }

    /// The redaction setting ([`Redactor::from_setting`]: `all`, `off`
    /// or kinds separated by commas); `None` redacts every kind.
    pub fn redaction(mut self, setting: Option<&str>) -> Self {
        self.redaction = setting.map(str::to_string);
        self
    }

    /// What a write's conflict does when its request names no policy;
    /// `None` is [`ConflictPolicy::default`].
    pub fn conflict_policy(mut self, policy: Option<ConflictPolicy>) -> Self {
        self.conflict_policy = policy;
        self
    }

    /// The fusion parameters to start from (ranking experiments); the
    /// environment's settings ([`EngineBuilder::environment`]) apply on top.
    pub fn fusion(mut self, fusion: Fusion) -> Self {
        self.fusion = fusion;
        self
    }

    /// The ranking settings of the process's environment:
    /// [`STALENESS_DAYS_VAR`] (days ≥ 0) into [`Fusion::staleness_days`],
    /// [`MIN_RELEVANCE_VAR`] (0 to 1, 0 turning the floor off) into
    /// [`Fusion::min_relevance`]. A variable unset or blank changes
    /// nothing; any other value that is not a number in range is refused.
    pub fn environment(self) -> Result<Self> {
        self.settings(|name| std::env::var(name).ok())
    }

    /// [`EngineBuilder::environment`] with the variables read by `var`.
    pub fn settings(mut self, var: impl Fn(&str) -> Option<String>) -> Result<Self> {
        let set = |name: &str| var(name).filter(|v| !v.trim().is_empty());
        if let Some(days) = set(STALENESS_DAYS_VAR) {
            let days: f64 = days
                .trim()
                .parse()
                .ok()
                .filter(|d: &f64| *d >= 0.0)
                .ok_or_else(|| {
                    Error::invalid(format!(
                        "{STALENESS_DAYS_VAR} must be a number of days ≥ 0, got {days:?}"
                    ))
                })?;
            self.fusion.staleness_days = Some(days);
        }
        if let Some(floor) = set(MIN_RELEVANCE_VAR) {
            self.fusion.min_relevance = floor
                .trim()
                .parse()
                .ok()
                .filter(|f: &f64| (0.0..=1.0).contains(f))
                .ok_or_else(|| {
                    Error::invalid(format!(
                        "{MIN_RELEVANCE_VAR} must be a number from 0 to 1 (0 turns the floor off), got {floor:?}"
                    ))
                })?;
        }
        Ok(self)
    }

    /// The engine; a redaction setting that names no kind is refused.
    pub fn build(self) -> Result<Cairn> {
        let redaction = match &self.redaction {
            Some(setting) => Redactor::from_setting(setting)?,
            None => Some(Redactor::default()),
        };
        Ok(Cairn::new(self.store, self.embedder)
            .with_conflict_policy(self.conflict_policy.unwrap_or_default())
            .with_redaction(redaction)
            .with_chat(self.chat)
            .with_reranker(self.reranker)
            .with_importer(self.importer)
            .with_fusion(self.fusion))
    }
}

#[cfg(test)]
#[path = "builder_tests.rs"]
mod tests;
