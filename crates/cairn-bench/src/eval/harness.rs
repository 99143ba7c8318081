//! The store under test and how the set reaches it: every memory is
//! written through the application layer (`cairn_core::api`), the path the
//! CLI, MCP and REST front ends share, and every question is ranked by the
//! engine's own recall.
//!
//! - Distractors are imported as JSON Lines by [`api::import`] (what
//!   `cairn import` does), each with its `created_at`.
//! - Case memories are written one at a time by [`api::remember`] (what
//!   `cairn remember` does: dedup on, supersession by id), with the
//!   engine's clock set to the memory's time; a conversation case's are
//!   logged one at a time by [`api::log`] (what `cairn conversation log`
//!   does), in the conversation named by the case's id.
//! - Questions are asked with [`Cairn::search`] and the filter
//!   [`Selection::seen_from`] builds for the question's project: recall's
//!   ranking and scope rules, without counting accesses, so that no
//!   question or mode changes what a later one sees.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use cairn_core::api::EngineBuilder;
use cairn_core::api::{self, Caller, RememberInput, Selection};
use cairn_core::engine::Profile;
use cairn_core::rank::Fusion;
use cairn_core::time::{format_timestamp, parse_duration};
use cairn_core::wire::{MemoryRecord, MessageRecord};
use cairn_core::{Cairn, Embedder, MemoryId, RecallRequest, SearchMode, Store, WriteStatus};

use crate::eval::distractors::Distractor;
use crate::eval::score::Ranked;
use crate::eval::set::{Case, CaseMemory};

/// The tenant of the whole set.
const TENANT: &str = "eval";

/// The fixed "now" of the set, 2026-11-20T12:00:00Z: every age is counted
/// back from it, and questions are asked at it.
pub const REFERENCE_MS: i64 = 1_795_176_000_000;

/// Default age of a case memory that gives none: 1–120 days, fixed by its
/// id (FNV-1a), so that case memories are neither all newer nor all older
/// than the distractors.
pub fn default_age_ms(memory_id: &str) -> i64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in memory_id.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    (1 + (h % 120) as i64) * 86_400_000
}

/// What writing the set did.
#[derive(Debug, Clone, Default)]
pub struct Ingested {
    /// Distractors imported.
    pub distractors: usize,
    /// Case memories written.
    pub case_memories: usize,
    /// Case memories that `remember` merged into a near-identical
    /// distractor (dedup); the merged memory then counts as the case's.
    pub merged_into_distractors: usize,
}

/// An engine over a store, with a clock the harness sets, and what each
/// stored case memory is.
pub struct Harness {
    cairn: Cairn,
    clock: Arc<AtomicI64>,
    /// How questions' candidates are ranked.
    pub profile: Profile,
    /// Store id → set-wide case memory id.
    ids: HashMap<MemoryId, String>,
    /// Set-wide case memory id → store id.
    stored: HashMap<String, MemoryId>,
}

impl Harness {
    /// Rerank recall's best candidates by maximal marginal relevance with
    /// this λ (`None`: recall's own order).
    pub fn with_mmr(mut self, lambda: Option<f64>) -> Self {
        let reranker = lambda.map(|lambda| {
            std::sync::Arc::new(cairn_core::rerank::Mmr { lambda })
                as std::sync::Arc<dyn cairn_core::rerank::Reranker>
        });
        self.cairn = self.cairn.clone().with_reranker(reranker);
        self
    }

    /// Embed each memory as `recipe` says (the default: its content).
    pub fn with_embed_recipe(mut self, recipe: cairn_core::EmbedRecipe) -> Self {
        self.cairn = self.cairn.clone().with_embed_recipe(recipe);
        self
    }

    /// An engine over `store` and `embedder` with a clock at the
    /// reference time.
    pub fn new(store: Arc<dyn Store>, embedder: Arc<dyn Embedder>, fusion: Fusion) -> Self {
        let clock = Arc::new(AtomicI64::new(REFERENCE_MS));
        let reader = clock.clone();
        // `CAIRN_CONFLICTS` picks the conflict policy, as for the CLI.
        let conflicts = std::env::var("CAIRN_CONFLICTS")
            .ok()
            .and_then(|p| p.parse().ok())
            .unwrap_or_default();
        let cairn = EngineBuilder::new(store, embedder)
            .fusion(fusion)
            .conflict_policy(Some(conflicts))
            .build()
            .expect("an engine without a redaction setting builds")
            .with_clock(Arc::new(move || reader.load(Ordering::Relaxed)));
        Harness {
            cairn,
            clock,
            profile: Profile::Cairn,
            ids: HashMap::new(),
            stored: HashMap::new(),
        }
    }

    /// Writes the distractors, then every case's memories in file order;
    /// leaves the clock at the reference time.
    pub fn ingest(&mut self, distractors: &[Distractor], cases: &[Case]) -> Result<Ingested> {
        let mut out = Ingested {
            distractors: self.import(distractors)?,
            ..Default::default()
        };
        for case in cases {
            let mut written: HashMap<&str, MemoryId> = HashMap::new();
            for m in &case.memories {
                let written_one = if case.conversation {
                    self.log(case, m)
                } else {
                    self.remember(case, m, &written)
                };
                let (id, status) =
                    written_one.with_context(|| format!("case {}: memory `{}`", case.id, m.key))?;
                let name = case.memory_id(&m.key);
                if status == WriteStatus::Deduplicated {
                    if let Some(other) = self.ids.get(&id) {
                        bail!("{name} was merged into {other}: make the two texts differ");
                    }
                    out.merged_into_distractors += 1;
                }
                self.ids.insert(id, name.clone());
                self.stored.insert(name, id);
                written.insert(m.key.as_str(), id);
                out.case_memories += 1;
            }
        }
        self.clock.store(REFERENCE_MS, Ordering::Relaxed);
        Ok(out)
    }

    fn import(&self, distractors: &[Distractor]) -> Result<usize> {
        let mut text = Vec::new();
        for d in distractors {
            let record = MemoryRecord {
                content: d.content.clone(),
                kind: Some(d.kind.clone()),
                project: d.project.clone(),
                tags: d.tags.clone(),
                source: Some("eval-distractor".into()),
                created_at: Some(format_timestamp(REFERENCE_MS - d.age_ms)),
                ..Default::default()
            };
            serde_json::to_writer(&mut text, &record)?;
            text.push(b'\n');
        }
        let report = api::import(
            &self.cairn,
            &Caller::new(TENANT),
            std::io::Cursor::new(text),
            true,
            Box::new(|_| {}),
            &mut |_| {},
        )?;
        if report.imported != distractors.len() {
            bail!(
                "imported {} of {} distractors: {:?}",
                report.imported,
                distractors.len(),
                report.errors.first()
            );
        }
        Ok(report.imported)
    }

    fn remember(
        &self,
        case: &Case,
        m: &CaseMemory,
        written: &HashMap<&str, MemoryId>,
    ) -> Result<(MemoryId, WriteStatus)> {
        let age = match &m.age {
            Some(a) => parse_duration(a)?,
            None => default_age_ms(&case.memory_id(&m.key)),
        };
        self.clock.store(REFERENCE_MS - age, Ordering::Relaxed);
        let mut input = RememberInput::new(m.content.clone());
        input.kind.clone_from(&m.kind);
        input.project = case.project_of(m).map(str::to_string);
        input.global = input.project.is_none();
        input.tags = Some(m.tags.clone());
        input.source = Some("eval".into());
        input.supersedes = m
            .supersedes
            .as_ref()
            .map(|k| written[k.as_str()].to_string());
        let out = api::remember(&self.cairn, &Caller::new(TENANT), input)?;
        Ok((out.id.parse()?, out.status))
    }

    /// Log one message of a conversation case at its time.
    fn log(&self, case: &Case, m: &CaseMemory) -> Result<(MemoryId, WriteStatus)> {
        let age = match &m.age {
            Some(a) => parse_duration(a)?,
            None => default_age_ms(&case.memory_id(&m.key)),
        };
        let at = REFERENCE_MS - age;
        self.clock.store(at, Ordering::Relaxed);
        let record = MessageRecord {
            conversation: case.id.clone(),
            speaker: Some(m.speaker.clone().unwrap_or_else(|| "user".into())),
            text: m.content.clone(),
            at: Some(format_timestamp(at)),
            ..Default::default()
        };
        let input = api::LogInput {
            project: case.project.clone(),
            messages: vec![record],
        };
        let out = api::log(&self.cairn, &Caller::new(TENANT), input)?;
        let logged = out.logged.first().context("the message was not logged")?;
        Ok((logged.id.parse()?, WriteStatus::Created))
    }

    /// Whether every stale memory of `case` names one of its relevant
    /// memories as the newer side of a conflict (contested, flagged or
    /// superseded by it: [`cairn_core::engine::newer_of`]).
    pub fn stale_marked(&self, case: &Case) -> Result<bool> {
        let id = |name: &String| self.stored.get(name).copied();
        let relevant: Vec<MemoryId> = case.relevant_ids().iter().filter_map(id).collect();
        let stale: Vec<MemoryId> = case.stale_ids().iter().filter_map(id).collect();
        let found = self.cairn.store().get(TENANT, &stale)?;
        Ok(!stale.is_empty()
            && found.len() == stale.len()
            && found
                .iter()
                .all(|m| cairn_core::engine::newer_of(m).is_some_and(|n| relevant.contains(&n))))
    }

    /// Why the write of `case`'s correction did not mark the fact it
    /// corrects, as the signals conflict detection weighs
    /// ([`cairn_core::analysis::conflict`]): their cosine, the subject
    /// terms they share, the attributes each names, the value change and
    /// the newer's correction cue.
    pub fn unlinked_signals(&self, case: &Case) -> Result<String> {
        use cairn_core::analysis::conflict::{attributes, correction_cue, subject_terms};
        let id = |name: &String| self.stored.get(name).copied();
        let pick = |names: Vec<String>| -> Result<Option<cairn_core::Memory>> {
            let ids: Vec<MemoryId> = names.iter().filter_map(id).collect();
            let found = self.cairn.store().get(TENANT, &ids)?;
            Ok(found.into_iter().next())
        };
        let (Some(old), Some(new)) = (pick(case.stale_ids())?, pick(case.relevant_ids())?) else {
            return Ok("a side is not stored".into());
        };
        let linked = match cairn_core::engine::newer_of(&old) {
            Some(other) => {
                let found = self.cairn.store().get(TENANT, &[other])?;
                let text = found.first().map_or("?", |m| m.content.as_str());
                format!("linked to another: {text:?}; ")
            }
            None => String::new(),
        };
        let (old, new) = (old.content, new.content);
        let embedder = self.cairn.embedder();
        let cosine = cairn_core::rank::cosine(&embedder.embed(&old)?, &embedder.embed(&new)?);
        let (a, b) = (subject_terms(&old), subject_terms(&new));
        let shared: Vec<&String> = a.intersection(&b).collect();
        Ok(format!(
            "{linked}cosine {cosine:.2}; shared subject {shared:?}; attributes {:?} / {:?}; change {}; cue {:?}",
            attributes(&old),
            attributes(&new),
            cairn_core::analysis::values::compare_values(&old, &new)
                .map_or("none".to_string(), |c| c.to_string()),
            correction_cue(&new)
        ))
    }

    /// The top `limit` memories for a case's question in `mode`, asked
    /// from the case's project.
    pub fn ask(&self, case: &Case, mode: SearchMode, limit: usize) -> Result<Vec<Ranked>> {
        let selection = Selection {
            project: case.project.clone(),
            ..Default::default()
        };
        let filter = selection.seen_from(&Caller::new(TENANT), self.cairn.now())?;
        let found = self.cairn.search(&RecallRequest {
            query: case.question.clone(),
            filter,
            limit,
            mode,
            reference: None,
            entity: None,
            profile: self.profile,
            min_relevance: None,
        })?;
        Ok(found
            .into_iter()
            .map(|r| Ranked {
                id: self.ids.get(&r.memory.id).cloned(),
                project: r.memory.project,
                content: r.memory.content,
                relevance: r.explain.relevance,
                cosine: r.explain.cosine,
                term_share: r.explain.term_share,
                unknown_share: r.explain.unknown_share,
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::set::parse_cases;
    use cairn_core::conformance::LexicalEmbedder;

    #[test]
    fn reference_time_is_the_documented_date() {
        assert_eq!(format_timestamp(REFERENCE_MS), "2026-11-20T12:00:00.000Z");
        let a = default_age_ms("paraphrase-01/m");
        assert_eq!(a, default_age_ms("paraphrase-01/m"));
        assert!((86_400_000..=120 * 86_400_000).contains(&a));
    }

    #[test]
    fn writes_through_the_api_and_asks_within_the_project() {
        let cases = parse_cases(concat!(
            r#"{"id":"s","kind":"supersession","project":"atlas","question":"where is staging deployed","memories":[{"key":"old","content":"staging is deployed on heroku","age":"90d"},{"key":"new","content":"staging is deployed on fly now","age":"2d","supersedes":"old"}],"relevant":["new"],"stale":["old"]}"#,
            "\n",
            r#"{"id":"c","kind":"scope","project":"ember","question":"which port does the dev server use","memories":[{"key":"m","content":"ember dev server port 8081"},{"key":"f","content":"lumen dev server port 5173","project":"lumen"}],"relevant":["m"]}"#,
        ))
        .unwrap();
        let distractors = vec![Distractor {
            content: "the dev server of atlas uses port 3000".into(),
            kind: "fact".into(),
            project: Some("atlas".into()),
            tags: vec![],
            age_ms: 86_400_000,
        }];
        let dir = tempfile::tempdir().unwrap();
        let store = cairn_sqlite::SqliteStore::open(dir.path().join("e.db")).unwrap();
        let mut h = Harness::new(
            Arc::new(store),
            Arc::new(LexicalEmbedder),
            Fusion::default(),
        );
        let ingested = h.ingest(&distractors, &cases).unwrap();
        assert_eq!((ingested.distractors, ingested.case_memories), (1, 4));
        let ranked = h.ask(&cases[0], SearchMode::Keyword, 10).unwrap();
        let ids: Vec<_> = ranked.iter().map(|r| r.id.as_deref()).collect();
        // The superseded memory is hidden; the scope admits atlas only.
        assert_eq!(ids, [Some("s/new")]);
        let ranked = h.ask(&cases[1], SearchMode::Keyword, 10).unwrap();
        assert!(ranked.iter().all(|r| r.project.as_deref() == Some("ember")));
        assert_eq!(ranked[0].id.as_deref(), Some("c/m"));
    }
}
