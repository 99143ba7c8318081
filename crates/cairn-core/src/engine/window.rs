//! The context an LLM call of a conversation should get: its session's
//! working memory, what is relevant from earlier and from long-term
//! memory, and the rules to follow, assembled within a token budget by
//! [`crate::window::assemble`].

use std::collections::{HashMap, HashSet};

use super::{Cairn, ConflictMark, Profile, RecallRequest, SearchMode};
use crate::collections::{CollectionBody, CollectionKind, Topic};
use crate::memory::{normalize_thread_id, Memory, MemoryId, MemoryType, Tier};
use crate::store::{Filter, ListOrder, ScopeFilter, ThreadScope};
use crate::tokens::Tokenizer;
use crate::window::{assemble, Section, Window, WindowFormat, WindowItem, WindowOptions};
use crate::{Error, Result};

/// The working memory's default capacity, in tokens.
pub const DEFAULT_WORKING_TOKENS: usize = 4096;

/// The most messages of a session the window reads.
const SESSION_MESSAGES: usize = 10_000;

/// Candidates taken from each kind of search.
const RECALLED: usize = 20;

/// What to assemble a window for.
#[derive(Debug, Clone)]
pub struct WindowRequest {
    /// Owner.
    pub tenant: String,
    /// The session the call belongs to.
    pub session: String,
    /// The new user message (may be empty: then the window holds the
    /// working memory and the rules).
    pub message: String,
    /// The project whose memories are relevant (`None`: global ones).
    pub project: Option<String>,
    /// Most tokens of the rendered window.
    pub budget: usize,
    /// Most tokens of the working memory (the latest exchanges).
    pub working_tokens: usize,
    /// How tokens are counted.
    pub tokenizer: Tokenizer,
    /// How the window is rendered.
    pub format: WindowFormat,
}

/// What to build a prompt's memory block for.
#[derive(Debug, Clone)]
pub struct PromptRequest {
    /// Owner.
    pub tenant: String,
    /// What the prompt is about (may be empty: then the block holds the
    /// most used rules).
    pub query: String,
    /// The project whose memories count, with global ones (`None`: global
    /// ones only).
    pub project: Option<String>,
    /// Most tokens of the rendered block.
    pub budget: usize,
    /// How tokens are counted.
    pub tokenizer: Tokenizer,
    /// How the block is rendered.
    pub format: WindowFormat,
}

/// Relevance of working-memory items: above every recalled item (whose
/// relevance is at most 1), so the latest exchanges go in first after the
/// rules; later ones higher, so the newest survive a small budget.
fn working_relevance(position_from_newest: usize) -> f64 {
    2.0 + 1.0 / (1.0 + position_from_newest as f64)
}

impl Cairn {
    /// The window of a call (see the module docs): procedural memories and
    /// rules first, then the session's latest messages verbatim (up to
    /// `working_tokens`), then older messages of the session and topic
    /// summaries relevant to the message, then relevant long-term
    /// memories, greedy by relevance within the budget.
    pub fn window(&self, req: &WindowRequest) -> Result<Window> {
        let session = normalize_thread_id("session", &req.session)?;
        if req.budget == 0 {
            return Err(Error::invalid("the budget must be at least 1 token"));
        }
        let now = self.now();
        let mut filter = Filter::new(&req.tenant, now).everything();
        filter.thread = Some(ThreadScope::Session(session.clone()));
        let newest_first = self
            .store
            .list(&filter, ListOrder::Newest, SESSION_MESSAGES, 0)?;

        // Working memory: the latest messages that fit its capacity, in
        // the order they were said.
        let mut items: Vec<WindowItem> = Vec::new();
        let mut working_used = 0usize;
        let mut working: Vec<&Memory> = Vec::new();
        for m in &newest_first {
            let tokens = req.tokenizer.count(&m.content);
            if working_used + tokens > req.working_tokens {
                break;
            }
            working_used += tokens;
            working.push(m);
        }
        let in_working: HashSet<MemoryId> = working.iter().map(|m| m.id).collect();
        let mut shown: Vec<Memory> = Vec::new();
        for (i, m) in working.iter().enumerate().rev() {
            items.push(item(m, Section::Working, working_relevance(i)));
            shown.push((*m).clone());
        }

        let seen = self.seen(&req.tenant, req.project.as_deref())?;

        // Rules and procedures: the relevant ones when there is a message,
        // else the most used.
        let mut procedural = seen.clone();
        procedural.types = vec![MemoryType::Rule, MemoryType::Procedure];
        let rules = self.ranked(&req.message, procedural, SearchMode::Hybrid)?;
        for (m, r) in rules {
            items.push(item(&m, Section::Procedural, r));
            shown.push(m);
        }

        if !req.message.trim().is_empty() {
            // Older messages of the session, relevant to the message.
            let mut earlier = seen.clone().scope(ScopeFilter::All);
            earlier.thread = Some(ThreadScope::Session(session.clone()));
            let older = self.ranked(&req.message, earlier, SearchMode::Hybrid)?;
            let mut history_ids: HashSet<MemoryId> = HashSet::new();
            for (m, r) in older {
                if !in_working.contains(&m.id) {
                    history_ids.insert(m.id);
                    items.push(item(&m, Section::History, r));
                    shown.push(m);
                }
            }
            // Summaries of the topics the session's older messages are in.
            let topics: HashSet<&str> = newest_first
                .iter()
                .filter(|m| !in_working.contains(&m.id))
                .filter_map(|m| m.thread.as_ref().map(|t| t.topic.as_str()))
                .collect();
            for topic in topics {
                if let Some(record) = self.store.collections().collection(
                    &req.tenant,
                    CollectionKind::Topic,
                    topic,
                )? {
                    let t = Topic::from_record(&record)?;
                    if !t.summary.is_empty() {
                        let text = format!("Topic \"{}\": {}", t.title, t.summary);
                        let mut summary =
                            WindowItem::new(record.id, Section::History, Tier::Semantic, text, 0.5);
                        summary.date = Some(record.created_at);
                        items.push(summary);
                    }
                }
            }

            // Long-term memories, other than this session's messages.
            let long_term = self.ranked(&req.message, seen, SearchMode::Hybrid)?;
            for (m, r) in long_term {
                let in_session = m.thread.as_ref().is_some_and(|t| t.session == session);
                let procedural = m.kind.tier() == Tier::Procedural;
                if !in_session && !procedural {
                    items.push(item(&m, Section::LongTerm, r));
                    shown.push(m);
                }
            }
        }
        self.mark_sides(&req.tenant, &mut items, &shown)?;
        Ok(assemble(
            &items,
            WindowOptions {
                budget: req.budget,
                tokenizer: req.tokenizer,
                format: req.format,
            },
        ))
    }

    /// What a window or a prompt sees: the project's memories and the
    /// global ones (global ones only without a project), never superseded
    /// memories or the entries of archived slots.
    fn seen(&self, tenant: &str, project: Option<&str>) -> Result<Filter> {
        let scope = match project {
            Some(p) => ScopeFilter::Project(p.to_string()),
            None => ScopeFilter::Global,
        };
        let mut f = Filter::new(tenant, self.now()).scope(scope);
        f.include_superseded = false;
        f.hidden_slots = self.archived_slots(tenant)?;
        Ok(f)
    }

    /// The memory block of a prompt for `query` (Memory Vault AI's prompt
    /// builder): rules and procedures first, then the other memories by
    /// relevance, greedy within the budget — the window's assembly with no
    /// session. Nothing is counted as an access.
    pub fn prompt(&self, req: &PromptRequest) -> Result<Window> {
        if req.budget == 0 {
            return Err(Error::invalid("the budget must be at least 1 token"));
        }
        let seen = self.seen(&req.tenant, req.project.as_deref())?;
        let mut procedural = seen.clone();
        procedural.types = vec![MemoryType::Rule, MemoryType::Procedure];
        let mut shown = self.ranked(&req.query, procedural, SearchMode::Hybrid)?;
        let mut items: Vec<WindowItem> = shown
            .iter()
            .map(|(m, r)| item(m, Section::Procedural, *r))
            .collect();
        if !req.query.trim().is_empty() {
            let others: Vec<(Memory, f64)> = self
                .ranked(&req.query, seen, SearchMode::Hybrid)?
                .into_iter()
                .filter(|(m, _)| m.kind.tier() != Tier::Procedural)
                .collect();
            items.extend(others.iter().map(|(m, r)| item(m, Section::LongTerm, *r)));
            shown.extend(others);
        }
        let shown: Vec<Memory> = shown.into_iter().map(|(m, _)| m).collect();
        self.mark_sides(&req.tenant, &mut items, &shown)?;
        Ok(assemble(
            &items,
            WindowOptions {
                budget: req.budget,
                tokenizer: req.tokenizer,
                format: req.format,
            },
        ))
    }

    /// Note on each item of `items` that is a side of a known conflict
    /// (among `shown`, the memories the items were made from) which side
    /// it is ([`super::ConflictMark`]), the other side named by its short
    /// id.
    fn mark_sides(&self, tenant: &str, items: &mut [WindowItem], shown: &[Memory]) -> Result<()> {
        let refs: Vec<&Memory> = shown.iter().collect();
        let marks = self.conflict_marks(tenant, &refs)?;
        if marks.is_empty() {
            return Ok(());
        }
        let mut ids: Vec<MemoryId> = marks
            .values()
            .flat_map(|mark| match mark {
                ConflictMark::Outdated { current } => vec![*current],
                ConflictMark::Current { replaces } => replaces.clone(),
            })
            .collect();
        ids.sort();
        ids.dedup();
        let shorts: HashMap<MemoryId, String> = ids
            .iter()
            .copied()
            .zip(self.short_ids(tenant, &ids, crate::SHORT_ID_MIN)?)
            .collect();
        let name = |id: MemoryId| shorts.get(&id).cloned().unwrap_or_else(|| id.to_string());
        for item in items {
            let mark = item
                .id
                .parse::<MemoryId>()
                .ok()
                .and_then(|id| marks.get(&id));
            if let Some(mark) = mark {
                item.note = Some(mark.note(name));
            }
        }
        Ok(())
    }

    /// Up to [`RECALLED`] memories passing `filter`, each with a relevance
    /// in (0, 1]: its score over the best one's. With no query, the most
    /// used first.
    fn ranked(&self, query: &str, filter: Filter, mode: SearchMode) -> Result<Vec<(Memory, f64)>> {
        let found = if crate::store::keyword_terms(query).is_empty() {
            let listed = self.store.list(
                &Filter {
                    now: self.now(),
                    ..filter
                },
                ListOrder::MostAccessed,
                RECALLED,
                0,
            )?;
            let n = listed.len().max(1) as f64;
            return Ok(listed
                .into_iter()
                .enumerate()
                .map(|(i, m)| (m, 1.0 - i as f64 / n))
                .collect());
        } else {
            // Rules and procedures are always candidates: the floor only
            // keeps unrelated memories of the other kinds out.
            let procedural = !filter.types.is_empty()
                && filter.types.iter().all(|t| t.tier() == Tier::Procedural);
            self.search(&RecallRequest {
                query: query.to_string(),
                filter,
                limit: RECALLED,
                mode,
                reference: None,
                entity: None,
                profile: Profile::Cairn,
                min_relevance: procedural.then_some(0.0),
            })?
        };
        let best = found
            .first()
            .map_or(1.0, |r| r.explain.score)
            .max(f64::MIN_POSITIVE);
        Ok(found
            .into_iter()
            .map(|r| {
                let relevance = (r.explain.score / best).clamp(0.0, 1.0);
                (r.memory, relevance)
            })
            .collect())
    }
}

/// A memory as a window item.
fn item(m: &Memory, section: Section, relevance: f64) -> WindowItem {
    let mut item = WindowItem::new(
        m.id.to_string(),
        section,
        m.kind.tier(),
        &m.content,
        relevance,
    );
    item.date = Some(m.created_at);
    item
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::conformance::LexicalEmbedder;
    use crate::engine::RememberRequest;
    use crate::{MemoryStore, Store};

    fn engine_with(memories: &[(&str, MemoryType, Option<&str>)]) -> Cairn {
        let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
        let c = Cairn::new(store, Arc::new(LexicalEmbedder));
        for (text, kind, project) in memories {
            let mut req = RememberRequest::new("t", *text);
            req.kind = *kind;
            req.project = project.map(str::to_string);
            c.remember(req).unwrap();
        }
        c
    }

    fn prompt(c: &Cairn, query: &str, budget: usize, format: WindowFormat) -> Window {
        c.prompt(&PromptRequest {
            tenant: "t".into(),
            query: query.into(),
            project: Some("atlas".into()),
            budget,
            tokenizer: Tokenizer::default(),
            format,
        })
        .unwrap()
    }

    fn sample() -> Cairn {
        engine_with(&[
            (
                "Always run the migrations before deploying the API",
                MemoryType::Rule,
                Some("atlas"),
            ),
            (
                "The API deploys to the fra1 cluster",
                MemoryType::Fact,
                Some("atlas"),
            ),
            (
                "We deployed the API with blue-green switching on 2024-01-15",
                MemoryType::Episode,
                Some("atlas"),
            ),
            (
                "The billing service deploys on Fridays",
                MemoryType::Fact,
                Some("billing"),
            ),
        ])
    }

    #[test]
    fn a_prompt_puts_rules_first_in_the_vault_block() {
        let w = prompt(&sample(), "deploy the API", 500, WindowFormat::Memory);
        assert!(w
            .text
            .starts_with("<memory>\n[Procedural] Always run the migrations"));
        assert!(w.text.ends_with("</memory>"), "{}", w.text);
        assert!(w
            .text
            .contains("[Semantic] The API deploys to the fra1 cluster"));
        // An episode carries its date.
        assert!(w.text.contains("[Episodic] "), "{}", w.text);
        // Another project's memories stay out.
        assert!(!w.text.contains("billing"), "{}", w.text);
        assert_eq!(w.total_tokens, Tokenizer::default().count(&w.text));
        assert!((w.budget_used - w.total_tokens as f64 / 500.0).abs() < 1e-9);
    }

    #[test]
    fn a_prompt_is_never_over_its_budget_and_drops_the_least_relevant() {
        let c = sample();
        let full = prompt(&c, "deploy the API", 500, WindowFormat::Memory);
        for budget in 1..full.total_tokens {
            let w = prompt(&c, "deploy the API", budget, WindowFormat::Memory);
            assert!(w.total_tokens <= budget, "{budget}: {}", w.text);
        }
        // Just too small for everything: the rule stays.
        let w = prompt(
            &c,
            "deploy the API",
            full.total_tokens - 5,
            WindowFormat::Memory,
        );
        assert!(w.text.contains("[Procedural]"), "{}", w.text);
        assert!(!w.left_out.is_empty() || w.items.iter().any(|i| i.summarised));
    }

    #[test]
    fn a_prompt_refuses_a_zero_budget_and_renders_markdown_and_json() {
        let c = sample();
        let e = c
            .prompt(&PromptRequest {
                tenant: "t".into(),
                query: "deploy".into(),
                project: None,
                budget: 0,
                tokenizer: Tokenizer::default(),
                format: WindowFormat::Memory,
            })
            .unwrap_err();
        assert!(e.to_string().contains("budget"), "{e}");
        let md = prompt(&c, "deploy the API", 500, WindowFormat::Markdown);
        assert!(md.text.starts_with("## "), "{}", md.text);
        let json = prompt(&c, "deploy the API", 500, WindowFormat::Json);
        let v: serde_json::Value = serde_json::from_str(&json.text).unwrap();
        assert_eq!(v["items"][0]["section"], "procedural", "{v}");
    }
}
