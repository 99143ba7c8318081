//! Recall, get, list, stats, context.

use crate::highlight::{highlight, Highlight};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::selection::ListSort;
use super::write::scope_label;
use super::{non_empty, plural, Caller, MemoryView, Selection};
use crate::context::{ContextPack, ContextRequest};
use crate::engine::{Cairn, Found, Profile, RecallRequest, SearchMode};
use crate::rank::ScoreBreakdown;
use crate::rerank::Reranking;
use crate::time::format_timestamp;
use crate::{Error, MemoryId, Result};

/// Most memories one page of a listing may hold.
pub const MAX_PAGE: usize = 1000;
/// Default token budget of a session-start context.
pub const DEFAULT_CONTEXT_BUDGET: usize = 2000;
/// Smallest token budget of a context: the heading and the stats line
/// alone need about this much.
pub const MIN_CONTEXT_BUDGET: usize = 50;

/// The answer of a recall that found nothing relevant enough.
pub const NOTHING_RELEVANT: &str = "nothing relevant is stored";

/// Characters of a result's highlighted snippet.
pub(super) const SNIPPET_WIDTH: usize = 160;

/// What to recall.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(default)]
pub struct RecallInput {
    /// A question or keywords, in natural language.
    pub query: String,
    /// Which memories may be returned.
    #[serde(flatten)]
    pub selection: Selection,
    /// Most results, 1 to 1000 (default 10).
    pub limit: Option<usize>,
    /// How to match: `hybrid` (default), `keyword`, `semantic`,
    /// `temporal` (time words in the query become a time filter) or
    /// `importance` (most important first).
    pub mode: Option<String>,
    /// The time a temporal query's "yesterday" or "last week" is read
    /// against (RFC 3339 or YYYY-MM-DD; default now).
    pub reference: Option<String>,
    /// Only memories naming this entity (a name, path, identifier…); also
    /// written in the query as `entity:Lisbon` or `entity:"New York"`.
    pub entity: Option<String>,
    /// Token budget (cl100k) for the answer's lines: results past it are
    /// left out and counted in `omitted`.
    pub budget: Option<usize>,
    /// Include every factor of each score.
    pub explain: bool,
    /// Include the query's words each result contains: the terms, their
    /// byte ranges and a snippet with each match marked `**so**`.
    pub highlight: bool,
    /// How candidates are ranked: `cairn` (default: keyword and vector
    /// fused, then use, recency, scope and weight) or `vault` (Memory
    /// Vault AI's: the nearest by meaning of importance ≥ 0.2, scored
    /// 0.8·similarity + 0.2·importance).
    pub profile: Option<String>,
    /// Leave out results less relevant than this, 0 to 1 (the result's
    /// `relevance`); 0 returns every match. Default: the engine's floor
    /// ([`crate::rank::relevance::RELEVANCE_FLOOR`] unless configured).
    pub min_relevance: Option<f64>,
}

/// One recalled memory.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct RecallHit {
    /// The memory.
    #[serde(flatten)]
    pub memory: MemoryView,
    /// Final score, higher is better: orders the results, means nothing
    /// alone.
    pub score: f64,
    /// How likely the memory is to answer the query, 0 to 1, from its own
    /// evidence (closeness of meaning, the query's words it contains and
    /// their rarity); absent when there was no query to judge it by.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relevance: Option<f64>,
    /// How it matched: keyword, semantic, hybrid (both), temporal or
    /// importance.
    #[serde(rename = "match")]
    pub matched: SearchMode,
    /// Every factor of the score, when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explain: Option<ScoreBreakdown>,
    /// The query's words it contains, when asked for (none when it
    /// matched by meaning only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub highlight: Option<Highlight>,
    /// The answer's line for this memory, as counted against the budget.
    #[serde(skip)]
    pub line: String,
}

/// What a recall found.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct RecallOutput {
    /// Best first.
    pub results: Vec<RecallHit>,
    /// Matches left out to stay within the budget.
    pub omitted: usize,
    /// Exact tokens (cl100k) of the results' lines.
    pub tokens: usize,
    /// The scope searched: a project name, `global` or `all`.
    pub scope: String,
    /// How the reranking stage went, when a reranker is configured and
    /// was asked: `applied` false and the `failure` when it failed (the
    /// results then keep recall's own order).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rerank: Option<Reranking>,
}

/// The line of a recalled memory in an answer:
/// `- <short id> [<type> · <project or global> · <score>] <content>`.
fn line_prefix(m: &MemoryView, score: f64) -> String {
    format!(
        "- {} [{} · {} · {score:.4}]",
        m.short_id,
        m.record.kind.as_deref().unwrap_or_default(),
        m.record.project.as_deref().unwrap_or("global")
    )
}

/// Recall memories for a query, best first, within a token budget; each
/// one returned counts as an access.
pub fn recall(cairn: &Cairn, caller: &Caller, input: RecallInput) -> Result<RecallOutput> {
    crate::tokens::preload();
    let mut filter = input.selection.seen_from(caller, cairn.now())?;
    super::slots::hide_archived(cairn, &caller.tenant, &input.selection, &mut filter)?;
    let scope = scope_label(&filter.scope);
    let mode = match non_empty(input.mode.as_deref()) {
        Some(m) => m.parse()?,
        None => SearchMode::Hybrid,
    };
    let reference = input
        .reference
        .as_deref()
        .map(|r| {
            crate::time::parse_timestamp(r).map_err(|e| Error::invalid(format!("reference: {e}")))
        })
        .transpose()?;
    let (query, named) = entity_filter(&input.query);
    let entity = match (non_empty(input.entity.as_deref()), named) {
        (Some(a), Some(b)) if a.to_lowercase() != b.to_lowercase() => {
            return Err(Error::invalid(format!(
                "two entities asked for (`{a}` and `{b}`): give one"
            )))
        }
        (a, b) => a.or(b),
    };
    if query.trim().is_empty() && entity.is_some() && mode != SearchMode::Importance {
        return Err(Error::invalid(
            "give words to search for beside the entity (or use mode importance)",
        ));
    }
    let Found {
        results: found,
        reranking,
    } = cairn.recall_reported(&RecallRequest {
        query,
        filter,
        limit: input.limit.unwrap_or(10),
        mode,
        reference,
        entity,
        profile: match non_empty(input.profile.as_deref()) {
            Some(p) => p.parse()?,
            None => Profile::Cairn,
        },
        min_relevance: input.min_relevance,
    })?;
    let memories: Vec<_> = found.iter().map(|r| r.memory.clone()).collect();
    let views = MemoryView::of_all(cairn, &caller.tenant, &memories)?;
    let budget = input.budget.unwrap_or(usize::MAX);
    let (mut tokens, mut omitted, mut results) = (0, 0, Vec::new());
    for (r, memory) in found.into_iter().zip(views) {
        let (line, n) = cairn.tokens().line(
            &line_prefix(&memory, r.explain.score),
            &memory.record.content,
        );
        if tokens + n > budget {
            omitted += 1;
            continue;
        }
        tokens += n;
        let highlight = if input.highlight {
            highlight(&memory.record.content, &input.query, SNIPPET_WIDTH)
        } else {
            None
        };
        results.push(RecallHit {
            highlight,
            memory,
            score: r.explain.score,
            relevance: r.explain.relevance,
            matched: r.matched,
            explain: input.explain.then_some(r.explain),
            line,
        });
    }
    Ok(RecallOutput {
        results,
        omitted,
        tokens,
        scope,
        rerank: reranking,
    })
}

/// The query without its `entity:` term, and the entity it names:
/// `entity:Lisbon` or `entity:"New York"` (the first one).
pub(super) fn entity_filter(query: &str) -> (String, Option<String>) {
    const KEY: &str = "entity:";
    let lower = query.to_ascii_lowercase();
    let Some(at) = lower
        .match_indices(KEY)
        .map(|(i, _)| i)
        .find(|&i| i == 0 || query[..i].ends_with(char::is_whitespace))
    else {
        return (query.to_string(), None);
    };
    let value = &query[at + KEY.len()..];
    let (entity, rest) = match value.strip_prefix('"') {
        Some(quoted) => match quoted.find('"') {
            Some(end) => (&quoted[..end], &quoted[end + 1..]),
            None => (quoted, ""),
        },
        None => {
            let end = value.find(char::is_whitespace).unwrap_or(value.len());
            (&value[..end], &value[end..])
        }
    };
    let remaining = format!("{} {}", query[..at].trim_end(), rest.trim_start());
    let entity = entity.trim();
    (
        remaining.trim().to_string(),
        (!entity.is_empty()).then(|| entity.to_string()),
    )
}

impl RecallOutput {
    /// The answer as text for a model: a count and the scope, one line per
    /// memory, and what the budget left out.
    pub fn to_text(&self, budget: Option<usize>) -> String {
        let mut text = if self.results.is_empty() {
            format!("{} (scope: {})", NOTHING_RELEVANT, self.scope)
        } else {
            let lines: Vec<&str> = self.results.iter().map(|r| r.line.as_str()).collect();
            format!(
                "{} (scope: {}; id, type, project, score):\n{}",
                plural(self.results.len(), "memory", "memories"),
                self.scope,
                lines.join("\n")
            )
        };
        if self.omitted > 0 {
            text += &format!(
                "\n({} left out to stay within the budget of {} tokens)",
                plural(self.omitted, "match", "matches"),
                budget.unwrap_or_default()
            );
        }
        if let Some(warning) = self.rerank.as_ref().and_then(Reranking::warning) {
            text += &format!("\n({warning})");
        }
        text
    }
}

/// One memory by id or unique prefix (counts as an access).
pub fn get(cairn: &Cairn, caller: &Caller, id: &str) -> Result<MemoryView> {
    let m = cairn.get(&caller.tenant, id)?;
    MemoryView::of(cairn, &caller.tenant, &m)
}

/// What to list.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ListInput {
    /// Which memories.
    #[serde(flatten)]
    pub selection: Selection,
    /// The order (default newest first).
    pub sort: Option<String>,
    /// Page size, 1 to 1000 (default 20).
    pub limit: Option<usize>,
    /// Skip this many.
    pub offset: Option<usize>,
    /// Continue after this page: the `next_cursor` of the previous one.
    pub cursor: Option<String>,
}

/// A page of memories.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct ListOutput {
    /// The page.
    pub memories: Vec<MemoryView>,
    /// Memories matching the selection in all.
    pub total: usize,
    /// The scope listed: a project name, `global` or `all`.
    pub scope: String,
    /// Offset of this page in the listing.
    pub offset: usize,
    /// Offset of the next page, if there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<usize>,
    /// Where the next page starts, if there is one: pass it as `cursor`.
    /// In id order it names the last id (pages stay right while memories
    /// are added, at a constant cost per page); in the other orders an
    /// offset.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// A cursor: after an id (id order), or at an offset.
enum Cursor {
    After(MemoryId),
    At(usize),
}

impl Cursor {
    fn parse(s: &str) -> Result<Cursor> {
        let bad = || {
            Error::invalid(format!(
                "`{s}` is not a cursor: pass a `next_cursor` back as it was given"
            ))
        };
        match s.trim().split_once(':') {
            Some(("id", id)) => Ok(Cursor::After(id.parse().map_err(|_| bad())?)),
            Some(("at", n)) => Ok(Cursor::At(n.parse().map_err(|_| bad())?)),
            _ => Err(bad()),
        }
    }
}

/// A page of memories, with the total and where the next page starts.
pub fn list(cairn: &Cairn, caller: &Caller, input: ListInput) -> Result<ListOutput> {
    let limit = input.limit.unwrap_or(20);
    if limit == 0 || limit > MAX_PAGE {
        return Err(Error::invalid(format!(
            "limit must be between 1 and {MAX_PAGE}, got {limit}"
        )));
    }
    let sort = match non_empty(input.sort.as_deref()) {
        Some(s) => s.parse()?,
        None => ListSort::default(),
    };
    let mut filter = input.selection.seen_from(caller, cairn.now())?;
    super::slots::hide_archived(cairn, &caller.tenant, &input.selection, &mut filter)?;
    let total = cairn.store().count(&filter)?;
    let mut offset = input.offset.unwrap_or(0);
    match non_empty(input.cursor.as_deref())
        .map(|c| Cursor::parse(&c))
        .transpose()?
    {
        None => {}
        Some(Cursor::At(n)) => offset = n,
        Some(Cursor::After(id)) if sort == ListSort::Id => {
            filter.after = Some(id);
            offset = total - cairn.store().count(&filter)?;
        }
        Some(Cursor::After(_)) => {
            return Err(Error::invalid(
                "an id cursor continues a listing in id order (sort: id)",
            ))
        }
    }
    let skip = if filter.after.is_some() { 0 } else { offset };
    let page = cairn.list(&filter, sort.order(), limit, skip)?;
    let memories = MemoryView::of_all(cairn, &caller.tenant, &page)?;
    let end = offset + memories.len();
    let more = end < total && !memories.is_empty();
    let next_cursor = more.then(|| match (sort, page.last()) {
        (ListSort::Id, Some(last)) => format!("id:{}", last.id),
        _ => format!("at:{end}"),
    });
    Ok(ListOutput {
        memories,
        total,
        scope: scope_label(&filter.scope),
        offset,
        next_offset: more.then_some(end),
        next_cursor,
    })
}

/// Counts of a tenant's memories.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct StatsOutput {
    /// Every memory, expired and superseded included.
    pub total: usize,
    /// Expired, awaiting deletion.
    pub expired: usize,
    /// Replaced by newer memories.
    pub superseded: usize,
    /// Count per type.
    pub by_type: serde_json::Map<String, serde_json::Value>,
    /// Count per tier (episodic, semantic, procedural, working), from the
    /// types'.
    pub by_tier: serde_json::Map<String, serde_json::Value>,
    /// Count per project (`(global)` for global memories).
    pub by_project: serde_json::Map<String, serde_json::Value>,
    /// Oldest creation time.
    pub oldest: Option<String>,
    /// Newest creation time.
    pub newest: Option<String>,
    /// The store's embedding model (`name/dimension`).
    pub model: Option<String>,
    /// Bytes on disk, where the store knows.
    pub size_bytes: Option<u64>,
    /// The caller's default project, if it has one.
    pub session_project: Option<String>,
}

/// Label of global memories in per-project counts.
pub const GLOBAL_LABEL: &str = "(global)";

/// Counts of the caller's memories.
pub fn stats(cairn: &Cairn, caller: &Caller) -> Result<StatsOutput> {
    let (s, model) = cairn.stats(&caller.tenant)?;
    let counts = |pairs: Vec<(String, usize)>| {
        pairs
            .into_iter()
            .map(|(k, n)| (k, serde_json::Value::from(n)))
            .collect()
    };
    let mut tiers = std::collections::BTreeMap::<String, usize>::new();
    for (kind, n) in &s.by_type {
        if let Ok(kind) = kind.parse::<crate::MemoryType>() {
            let tier = serde_json::to_value(kind.tier()).map_err(Error::storage)?;
            *tiers
                .entry(tier.as_str().unwrap_or_default().to_string())
                .or_default() += n;
        }
    }
    Ok(StatsOutput {
        total: s.total,
        expired: s.expired,
        superseded: s.superseded,
        by_type: counts(s.by_type),
        by_tier: counts(tiers.into_iter().collect()),
        by_project: counts(
            s.by_project
                .into_iter()
                .map(|(p, n)| (p.unwrap_or_else(|| GLOBAL_LABEL.into()), n))
                .collect(),
        ),
        oldest: s.oldest.map(format_timestamp),
        newest: s.newest.map(format_timestamp),
        model: model.map(|m| m.to_string()),
        size_bytes: s.size_bytes,
        session_project: caller.project.clone(),
    })
}

/// What session-start context to assemble.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ContextInput {
    /// What the work is about: memories matching it are included.
    pub topic: Option<String>,
    /// The project (default: the caller's; global memories are always
    /// included).
    pub project: Option<String>,
    /// Token budget of the whole Markdown (default 2000, at least 50).
    pub budget: Option<usize>,
}

/// The session-start context: rules and procedures first, then topic
/// matches, recent, frequent and stale memories, grouped by type, within
/// the budget.
pub fn context(cairn: &Cairn, caller: &Caller, input: ContextInput) -> Result<ContextPack> {
    crate::tokens::preload();
    let budget = input.budget.unwrap_or(DEFAULT_CONTEXT_BUDGET);
    if budget < MIN_CONTEXT_BUDGET {
        return Err(Error::invalid(format!(
            "budget {budget} is too small: give at least {MIN_CONTEXT_BUDGET} tokens"
        )));
    }
    cairn.context(&ContextRequest {
        tenant: caller.tenant.clone(),
        topic: non_empty(input.topic.as_deref()),
        project: non_empty(input.project.as_deref()).or_else(|| caller.project.clone()),
        budget,
        hidden_slots: cairn.archived_slots(&caller.tenant)?,
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::api::{remember, RememberInput};
    use crate::conformance::LexicalEmbedder;
    use crate::tokens::count_tokens;
    use crate::MemoryStore;

    fn cairn_with(n: usize) -> (Cairn, Caller) {
        let c = Cairn::new(Arc::new(MemoryStore::new()), Arc::new(LexicalEmbedder));
        let caller = Caller::new("t");
        for i in 0..n {
            let text = format!("deploy note {i}: the deploy runs from ci runner {i}");
            remember(&c, &caller, RememberInput::new(text)).unwrap();
        }
        (c, caller)
    }

    #[test]
    fn entity_terms_come_out_of_the_query() {
        assert_eq!(
            entity_filter("trip entity:Lisbon in June"),
            ("trip in June".to_string(), Some("Lisbon".to_string()))
        );
        assert_eq!(
            entity_filter(r#"Entity:"New York" office"#),
            ("office".to_string(), Some("New York".to_string()))
        );
        assert_eq!(
            entity_filter("nonentity:x"),
            ("nonentity:x".to_string(), None)
        );
        assert_eq!(entity_filter("no filter"), ("no filter".to_string(), None));
        assert_eq!(entity_filter("entity: x"), ("x".to_string(), None));
    }

    #[test]
    fn recall_stays_within_the_budget_and_counts_exactly() {
        let (c, caller) = cairn_with(7);
        let all = recall(
            &c,
            &caller,
            RecallInput {
                query: "deploy".into(),
                mode: Some("keyword".into()),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!((all.results.len(), all.omitted), (7, 0));
        let counted: usize = all.results.iter().map(|r| count_tokens(&r.line)).sum();
        assert_eq!(all.tokens, counted);
        let budget = all.tokens / 2;
        let half = recall(
            &c,
            &caller,
            RecallInput {
                query: "deploy".into(),
                mode: Some("keyword".into()),
                budget: Some(budget),
                ..Default::default()
            },
        )
        .unwrap();
        assert!(half.tokens <= budget);
        assert!(!half.results.is_empty());
        assert_eq!(half.results.len() + half.omitted, 7);
        assert!(half.to_text(Some(budget)).contains("left out"));
    }

    #[test]
    fn id_cursors_page_through_everything_once() {
        let (c, caller) = cairn_with(5);
        let mut seen = Vec::new();
        let mut cursor = None;
        loop {
            let page = list(
                &c,
                &caller,
                ListInput {
                    sort: Some("id".into()),
                    limit: Some(2),
                    cursor: cursor.take(),
                    ..Default::default()
                },
            )
            .unwrap();
            assert_eq!(page.total, 5);
            assert_eq!(page.offset, seen.len());
            seen.extend(page.memories.iter().map(|m| m.id().to_string()));
            match page.next_cursor {
                Some(next) => cursor = Some(next),
                None => break,
            }
        }
        let mut sorted = seen.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(seen, sorted, "in id order, each once");
        assert_eq!(seen.len(), 5);
        let bad = ListInput {
            cursor: Some("nonsense".into()),
            ..Default::default()
        };
        assert!(list(&c, &caller, bad).is_err());
        let over = ListInput {
            limit: Some(MAX_PAGE + 1),
            ..Default::default()
        };
        assert!(list(&c, &caller, over).is_err());
    }
}
