//! Consolidation: Memory Vault AI's compression of old episodes into
//! summaries that stay recallable.
//!
//! **Groups.** A tenant's episodes (type `episode`, not yet consolidated)
//! are grouped per project (global is one) by session — a logged
//! message's `thread.session` — or, for an episode in no session, by the
//! UTC day it was created. A group's age is its newest episode's time.
//!
//! **When.** A project with more than `keep` groups (default
//! [`DEFAULT_KEEP_GROUPS`]) has its oldest groups consolidated until
//! `keep` are left, at most `max_groups` per call (the rest wait for the
//! next run, so a background job never holds the store for long).
//!
//! **What.** Each group becomes one `summary` memory: written by the chat
//! model when one is configured and answers, else extractive (the most
//! central lines within [`SUMMARY_TOKENS`] tokens), redacted, embedded,
//! with the sources' text as its search context (so keyword search finds
//! it for anything they said), the project, the sources' highest
//! importance, tag [`CONSOLIDATED_TAG`], and metadata naming its sources
//! (`consolidated_from`), their time span, the group and how it was
//! written. The sources are kept: each is marked superseded by the summary
//! (`superseded_by`, metadata `consolidated_into`, its weight unchanged),
//! which takes it out of default recall and listing; a selection that
//! includes superseded memories (`--include-consolidated`) brings them
//! back, and the summary names them.
//!
//! **Atomic per group.** The summary, the marked sources and their
//! versions are one [`WriteBatch`]: a failure (or a crash) mid-run leaves
//! whole groups consolidated and the others untouched, and the next run
//! takes up where it stopped.
//!
//! **No summaries of summaries.** Only episodes are ever grouped; a
//! summary is of type `summary`.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{json, Value};

use super::{Cairn, Redactions};
use crate::chat::Generated;
use crate::history::{Change, ChangeKind, SYSTEM_ACTOR};
use crate::memory::{normalize_project, Memory, MemoryId, MemoryType, Timestamp};
use crate::store::{Filter, ListOrder, ScopeFilter, WriteBatch};
use crate::time::format_timestamp;
use crate::Result;

/// Groups a project keeps unconsolidated.
pub const DEFAULT_KEEP_GROUPS: usize = 10;

/// Most groups consolidated in one call.
pub const DEFAULT_MAX_GROUPS: usize = 50;

/// Most tokens of an extractive summary (a chat model is asked for about
/// as many).
pub const SUMMARY_TOKENS: usize = 200;

/// The tag every consolidation summary carries.
pub const CONSOLIDATED_TAG: &str = "consolidated";

/// Longest search context of a summary (its sources' text), in bytes.
const MAX_SEARCH_CONTEXT: usize = 64 * 1024;

/// Episodes read per page while grouping.
const PAGE: usize = 1000;

/// What to consolidate.
#[derive(Debug, Clone)]
pub struct ConsolidateRequest {
    /// Whose episodes.
    pub tenant: String,
    /// Only this project's (`Some(None)`: only global episodes; `None`:
    /// every project, each on its own).
    pub project: Option<Option<String>>,
    /// Groups each project keeps.
    pub keep: usize,
    /// Most groups consolidated by this call.
    pub max_groups: usize,
    /// Say what would be done, write nothing.
    pub dry_run: bool,
    /// Who writes (the versions' actor).
    pub actor: String,
}

impl ConsolidateRequest {
    /// Every project of `tenant`, with the defaults, by the system.
    pub fn new(tenant: impl Into<String>) -> Self {
        ConsolidateRequest {
            tenant: tenant.into(),
            project: None,
            keep: DEFAULT_KEEP_GROUPS,
            max_groups: DEFAULT_MAX_GROUPS,
            dry_run: false,
            actor: SYSTEM_ACTOR.to_string(),
        }
    }
}

/// One group consolidated (or, dry, that would be).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConsolidatedGroup {
    /// The project (`None`: global).
    pub project: Option<String>,
    /// `session:ID` or `day:YYYY-MM-DD`.
    pub group: String,
    /// Its episodes, oldest first.
    pub sources: Vec<MemoryId>,
    /// The summary memory (none in a dry run).
    pub summary_id: Option<MemoryId>,
    /// The summary's text (none in a dry run: nothing is generated).
    pub summary: Option<String>,
    /// How the summary was written.
    pub generated: Option<Generated>,
}

/// What a consolidation did.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ConsolidationReport {
    /// The tenant.
    pub tenant: String,
    /// The groups consolidated, oldest first per project.
    pub groups: Vec<ConsolidatedGroup>,
    /// Groups over the limit left for a later run (past `max_groups`).
    pub remaining: usize,
    /// Whether nothing was written.
    pub dry_run: bool,
}

/// A group of episodes.
struct Group {
    project: Option<String>,
    key: String,
    newest: Timestamp,
    episodes: Vec<Memory>,
}

fn group_key(m: &Memory) -> String {
    match &m.thread {
        Some(t) => format!("session:{}", t.session),
        None => {
            let day = format_timestamp(m.created_at);
            format!("day:{}", &day[..day.len().min(10)])
        }
    }
}

impl Cairn {
    /// Consolidate `req.tenant`'s oldest episode groups (see the module
    /// doc).
    pub fn consolidate(&self, req: &ConsolidateRequest) -> Result<ConsolidationReport> {
        let now = self.now();
        let mut filter = Filter::new(&req.tenant, now);
        filter.types = vec![MemoryType::Episode];
        filter.include_expired = false;
        filter.include_superseded = false;
        filter.scope = match &req.project {
            None => ScopeFilter::All,
            Some(p) => ScopeFilter::Exactly(p.as_deref().map(normalize_project).transpose()?),
        };
        // Per project, per group key.
        let mut groups: BTreeMap<(Option<String>, String), Group> = BTreeMap::new();
        let mut offset = 0;
        loop {
            let page = self.store.list(&filter, ListOrder::Oldest, PAGE, offset)?;
            let n = page.len();
            for m in page {
                let key = group_key(&m);
                let g = groups
                    .entry((m.project.clone(), key.clone()))
                    .or_insert_with(|| Group {
                        project: m.project.clone(),
                        key,
                        newest: m.created_at,
                        episodes: Vec::new(),
                    });
                g.newest = g.newest.max(m.created_at);
                g.episodes.push(m);
            }
            if n < PAGE {
                break;
            }
            offset += n;
        }
        let mut by_project: BTreeMap<Option<String>, Vec<Group>> = BTreeMap::new();
        for ((project, _), g) in groups {
            by_project.entry(project).or_default().push(g);
        }
        let mut due: Vec<Group> = Vec::new();
        for (_, mut gs) in by_project {
            gs.sort_by(|a, b| a.newest.cmp(&b.newest).then_with(|| a.key.cmp(&b.key)));
            let over = gs.len().saturating_sub(req.keep);
            due.extend(gs.into_iter().take(over));
        }
        let remaining = due.len().saturating_sub(req.max_groups);
        due.truncate(req.max_groups);
        let mut report = ConsolidationReport {
            tenant: req.tenant.clone(),
            groups: Vec::with_capacity(due.len()),
            remaining,
            dry_run: req.dry_run,
        };
        for g in due {
            let done = if req.dry_run {
                ConsolidatedGroup {
                    project: g.project,
                    group: g.key,
                    sources: g.episodes.iter().map(|m| m.id).collect(),
                    summary_id: None,
                    summary: None,
                    generated: None,
                }
            } else {
                self.consolidate_group(g, &req.actor)?
            };
            report.groups.push(done);
        }
        Ok(report)
    }

    /// Summarise one group and write the summary and its marked sources
    /// in one batch.
    fn consolidate_group(&self, g: Group, actor: &str) -> Result<ConsolidatedGroup> {
        let recipe = self.ensure_model()?;
        let now = self.now();
        let ids: Vec<MemoryId> = g.episodes.iter().map(|m| m.id).collect();
        let vectors: Vec<Vec<f32>> = self
            .store
            .embeddings(&g.episodes[0].tenant, &ids)?
            .into_iter()
            .zip(&g.episodes)
            .map(|(v, m)| match v {
                Some(v) => Ok(v),
                None => self.embed_one(&m.content),
            })
            .collect::<Result<_>>()?;
        let lines: Vec<&str> = g.episodes.iter().map(|m| m.content.as_str()).collect();
        let (mut text, generated) = self.summary_of(&lines, &vectors, SUMMARY_TOKENS)?;
        self.redaction_policy(&g.episodes[0].tenant)?
            .redact_text(&mut text, &mut Redactions::new());
        let mut context = String::new();
        for line in &lines {
            if context.len() + line.len() + 1 > MAX_SEARCH_CONTEXT {
                break;
            }
            if !context.is_empty() {
                context.push('\n');
            }
            context.push_str(line);
        }
        let first = g.episodes.iter().map(|m| m.created_at).min().unwrap_or(now);
        let summary_id = MemoryId::new_at(now);
        let source_ids: Vec<Value> = ids.iter().map(|id| json!(id.to_string())).collect();
        let mut metadata = serde_json::Map::new();
        metadata.insert("consolidated_from".into(), Value::Array(source_ids));
        metadata.insert("group".into(), json!(g.key));
        metadata.insert("from".into(), json!(format_timestamp(first)));
        metadata.insert("to".into(), json!(format_timestamp(g.newest)));
        metadata.insert(
            "summarised_by".into(),
            json!(match &generated.model {
                Some(m) => format!("llm:{m}"),
                None => generated.by.clone(),
            }),
        );
        let tenant = g.episodes[0].tenant.clone();
        let summary = Memory {
            id: summary_id,
            tenant: tenant.clone(),
            content: text.clone(),
            kind: MemoryType::Summary,
            project: g.project.clone(),
            tags: vec![CONSOLIDATED_TAG.to_string()],
            metadata,
            importance: g.episodes.iter().map(|m| m.importance).fold(0.0, f64::max),
            weight: 1.0,
            source: "consolidation".into(),
            created_at: now,
            updated_at: now,
            last_accessed_at: None,
            access_count: 0,
            expires_at: None,
            valid_from: Some(first),
            valid_to: None,
            supersedes: None,
            superseded_by: None,
            thread: None,
            slot: None,
            search_context: Some(context),
        };
        let vector = self.embed_one(&summary.embedding_text(recipe))?;
        let mut batch = WriteBatch {
            inserts: vec![(summary, vector)],
            ..Default::default()
        };
        batch.changes.push(
            Change::new(summary_id, ChangeKind::Created, actor, now).because(format!(
                "consolidates {} episodes of {}",
                ids.len(),
                g.key
            )),
        );
        for mut m in g.episodes {
            m.superseded_by = Some(summary_id);
            m.metadata
                .insert("consolidated_into".into(), json!(summary_id.to_string()));
            m.updated_at = now;
            batch.changes.push(
                Change::new(m.id, ChangeKind::Superseded, actor, now)
                    .because(format!("consolidated into {summary_id}")),
            );
            batch.updates.push((m, None));
        }
        self.store.write(batch)?;
        Ok(ConsolidatedGroup {
            project: g.project,
            group: g.key,
            sources: ids,
            summary_id: Some(summary_id),
            summary: Some(text),
            generated: Some(generated),
        })
    }

    /// The episodes a consolidation summary was made of, oldest first
    /// (empty for any other memory).
    pub fn consolidated_sources(&self, tenant: &str, summary: &Memory) -> Result<Vec<Memory>> {
        let ids: Vec<MemoryId> = summary
            .metadata
            .get("consolidated_from")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(|v| v.as_str()?.parse().ok()).collect())
            .unwrap_or_default();
        let mut found = self.store.get(tenant, &ids)?;
        found.sort_by_key(|m| (m.created_at, m.id));
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    use serde_json::Map;

    use super::*;
    use crate::conformance::LexicalEmbedder;
    use crate::engine::{Message, ObserveRequest, RecallRequest};
    use crate::{Embedder, Error, MemoryStore, ModelInfo, Store};

    /// 2023-05-10T15:00:00Z.
    const NOW: Timestamp = 1_683_730_800_000;
    const DAY: Timestamp = 86_400_000;

    /// The lexical embedder, failing from its `fail_at`-th call on.
    struct Failing {
        calls: AtomicUsize,
        fail_at: AtomicUsize,
    }

    impl Embedder for Failing {
        fn model(&self) -> ModelInfo {
            LexicalEmbedder.model()
        }
        fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
            let n = self.calls.fetch_add(1, Ordering::SeqCst) + 1;
            if n >= self.fail_at.load(Ordering::SeqCst) {
                return Err(Error::embedding("the process died here"));
            }
            LexicalEmbedder.embed_batch(texts)
        }
    }

    fn engine_with(embedder: Arc<dyn Embedder>) -> Cairn {
        let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
        Cairn::new(store, embedder).with_clock(Arc::new(|| NOW))
    }

    /// Four days of one conversation (four sessions), two messages each;
    /// the facts of day `d` are only said on day `d`.
    fn log(c: &Cairn) {
        let facts = [
            (
                "Ana",
                "I adopted a parrot called Kiwi.",
                "Ben",
                "Kiwi sounds lovely.",
            ),
            (
                "Ana",
                "My sister moved to Lisbon.",
                "Ben",
                "Lisbon is sunny.",
            ),
            (
                "Ana",
                "I started learning the cello.",
                "Ben",
                "The cello is hard.",
            ),
            (
                "Ana",
                "We painted the kitchen yellow.",
                "Ben",
                "Yellow is bright.",
            ),
        ];
        let mut messages = Vec::new();
        for (d, (s1, t1, s2, t2)) in facts.iter().enumerate() {
            let at = NOW - (4 - d as i64) * DAY;
            for (i, (speaker, text)) in [(s1, t1), (s2, t2)].into_iter().enumerate() {
                messages.push(Message {
                    conversation: "c1".into(),
                    session: None,
                    speaker: speaker.to_string(),
                    text: text.to_string(),
                    at: Some(at + i as i64 * 1000),
                    id: None,
                    metadata: Map::new(),
                });
            }
        }
        let req = ObserveRequest {
            tenant: "t".into(),
            project: None,
            actor: "local".into(),
        };
        c.observe(&req, messages, &mut |_| ()).unwrap();
    }

    fn request(keep: usize) -> ConsolidateRequest {
        ConsolidateRequest {
            keep,
            ..ConsolidateRequest::new("t")
        }
    }

    fn recall(c: &Cairn, query: &str, include_consolidated: bool) -> Vec<Memory> {
        let mut req = RecallRequest::new("t", query);
        req.filter.include_superseded = include_consolidated;
        req.limit = 3;
        c.recall(&req)
            .unwrap()
            .into_iter()
            .map(|r| r.memory)
            .collect()
    }

    #[test]
    fn old_sessions_become_recallable_summaries_and_their_sources_step_aside() {
        let c = engine_with(Arc::new(LexicalEmbedder));
        log(&c);
        let dry = c
            .consolidate(&ConsolidateRequest {
                dry_run: true,
                ..request(2)
            })
            .unwrap();
        assert_eq!(dry.groups.len(), 2);
        assert!(dry.groups.iter().all(|g| g.summary_id.is_none()));
        assert_eq!(c.store().stats("t", NOW).unwrap().superseded, 0, "dry");

        let report = c.consolidate(&request(2)).unwrap();
        let groups: Vec<&str> = report.groups.iter().map(|g| g.group.as_str()).collect();
        assert_eq!(groups, ["session:c1@2023-05-06", "session:c1@2023-05-07"]);
        assert_eq!(report.remaining, 0);
        let lisbon = &report.groups[1];
        assert_eq!(lisbon.sources.len(), 2);
        assert_eq!(lisbon.generated.as_ref().unwrap().by, "extractive");

        // Found for a question only its sources answered; the sources are
        // out of default recall…
        let found = recall(&c, "Where did my sister move?", false);
        assert_eq!(found[0].id, lisbon.summary_id.unwrap());
        assert_eq!(found[0].kind, MemoryType::Summary);
        assert!(found[0].tags.contains(&CONSOLIDATED_TAG.to_string()));
        assert!(found
            .iter()
            .all(|m| m.kind != MemoryType::Episode || !m.content.contains("Lisbon")));
        // …come back when asked for, and from the summary.
        let with = recall(&c, "Where did my sister move?", true);
        assert!(with
            .iter()
            .any(|m| m.content == "Ana: My sister moved to Lisbon."));
        let sources = c.consolidated_sources("t", &found[0]).unwrap();
        let ids: Vec<MemoryId> = sources.iter().map(|m| m.id).collect();
        assert_eq!(ids, lisbon.sources);
        assert!(sources
            .iter()
            .all(|m| m.superseded_by == lisbon.summary_id && m.weight == 1.0));
        // Recent sessions are untouched.
        let cello = recall(&c, "cello", false);
        assert_eq!(cello[0].kind, MemoryType::Episode);
    }

    #[test]
    fn summaries_are_never_summarised_again() {
        let c = engine_with(Arc::new(LexicalEmbedder));
        log(&c);
        assert_eq!(c.consolidate(&request(1)).unwrap().groups.len(), 3);
        // One group left: nothing more to do, however low the limit.
        let again = c.consolidate(&request(0)).unwrap();
        assert_eq!(again.groups.len(), 1, "only the last session's episodes");
        assert!(c.consolidate(&request(0)).unwrap().groups.is_empty());
        let mut f = Filter::new("t", NOW).everything();
        f.types = vec![MemoryType::Summary];
        assert_eq!(c.store().count(&f).unwrap(), 4);
    }

    #[test]
    fn at_most_max_groups_per_run() {
        let c = engine_with(Arc::new(LexicalEmbedder));
        log(&c);
        let first = c
            .consolidate(&ConsolidateRequest {
                max_groups: 1,
                ..request(1)
            })
            .unwrap();
        assert_eq!((first.groups.len(), first.remaining), (1, 2));
        let second = c.consolidate(&request(1)).unwrap();
        assert_eq!((second.groups.len(), second.remaining), (2, 0));
    }

    #[test]
    fn a_failure_mid_run_leaves_whole_groups_only() {
        let embedder = Arc::new(Failing {
            calls: AtomicUsize::new(0),
            fail_at: AtomicUsize::new(usize::MAX),
        });
        let c = engine_with(embedder.clone());
        log(&c);
        // The next call embeds the first group's summary; the one after,
        // the second group's: it fails before that group is written.
        let before = embedder.calls.load(Ordering::SeqCst);
        embedder.fail_at.store(before + 2, Ordering::SeqCst);
        assert!(c.consolidate(&request(1)).is_err());
        let all = Filter::new("t", NOW).everything();
        let stored = c.store().list(&all, ListOrder::Oldest, 100, 0).unwrap();
        let summaries: Vec<&Memory> = stored
            .iter()
            .filter(|m| m.kind == MemoryType::Summary)
            .collect();
        assert_eq!(summaries.len(), 1);
        let marked: Vec<&Memory> = stored
            .iter()
            .filter(|m| m.superseded_by.is_some())
            .collect();
        assert_eq!(marked.len(), 2);
        assert!(marked
            .iter()
            .all(|m| m.superseded_by == Some(summaries[0].id)));

        // The next run takes up where it stopped.
        embedder.fail_at.store(usize::MAX, Ordering::SeqCst);
        let rest = c.consolidate(&request(1)).unwrap();
        assert_eq!(rest.groups.len(), 2);
        let stored = c.store().list(&all, ListOrder::Oldest, 100, 0).unwrap();
        assert_eq!(
            stored.iter().filter(|m| m.superseded_by.is_some()).count(),
            6
        );
    }
}
