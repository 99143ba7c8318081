//! Context assembly: what an agent loads at the start of work.
//!
//! The best matches for a topic, the rules to follow, recent memories,
//! frequently used ones and stale ones (to review), grouped by type, within a
//! token budget counted exactly with `cl100k_base`.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use serde::Serialize;

use crate::engine::{Cairn, ConflictMark, RecallRequest};
use crate::memory::{Memory, MemoryId, MemoryType, Tier, Timestamp};
use crate::store::{Filter, ListOrder, ScopeFilter};
use crate::time::ago;
use crate::tokens::count_tokens;
use crate::Result;
use crate::SHORT_ID_MIN;

/// Memories not used for this long are listed as stale.
pub const STALE_AFTER_MS: i64 = 30 * 86_400_000;

/// Longest content shown for one memory in a context (characters).
pub const MAX_ITEM_CHARS: usize = 800;

/// What to assemble.
#[derive(Debug, Clone)]
pub struct ContextRequest {
    /// Owner.
    pub tenant: String,
    /// What the work is about (optional: without it, no topic matches).
    pub topic: Option<String>,
    /// The project (global memories are always included).
    pub project: Option<String>,
    /// Token budget for the whole output.
    pub budget: usize,
    /// Slots whose entries are left out (archived ones).
    pub hidden_slots: Vec<String>,
}

/// Why a memory is in the context.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Reason {
    /// Among the best matches for the topic.
    Match,
    /// A rule or procedure (procedural tier): always worth loading.
    Rule,
    /// Recently created or updated.
    Recent,
    /// Often used.
    Frequent,
    /// Not used for a long time: review, update or forget.
    Stale,
}

/// One memory in a context.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ContextItem {
    /// Id.
    #[schemars(with = "String")]
    pub id: MemoryId,
    /// Shortest unique prefix of the id.
    pub short_id: String,
    /// Type.
    #[serde(rename = "type")]
    pub kind: MemoryType,
    /// Project (`None` = global).
    pub project: Option<String>,
    /// Text (shortened past [`MAX_ITEM_CHARS`]).
    pub content: String,
    /// Tags.
    pub tags: Vec<String>,
    /// Why it is here.
    pub reason: Reason,
    /// Tokens of its line in the Markdown output.
    pub tokens: usize,
    /// Last update.
    pub updated_at: Timestamp,
    /// Times used.
    pub access_count: u64,
    /// The current memory of a known conflict this one is the older side
    /// of (its value changed since: see [`crate::engine::ConflictPolicy`],
    /// whatever the policy); the line says it is outdated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contested_by: Option<String>,
    /// The older memories of known conflicts this one is the current side
    /// of; the line says it is current.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub replaces: Vec<String>,
}

/// An assembled context.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ContextPack {
    /// The topic asked for.
    pub topic: Option<String>,
    /// The project asked for.
    pub project: Option<String>,
    /// The budget.
    pub budget: usize,
    /// Exact `cl100k_base` tokens of [`ContextPack::markdown`].
    pub tokens: usize,
    /// Included memories, in output order.
    pub items: Vec<ContextItem>,
    /// Candidates left out for lack of budget.
    pub omitted: usize,
    /// Memories visible from this scope.
    pub visible: usize,
    /// The rendered Markdown.
    pub markdown: String,
}

impl Cairn {
    /// Assemble the session-start context. Does not count as an access.
    pub fn context(&self, req: &ContextRequest) -> Result<ContextPack> {
        let now = self.now();
        let scope = match &req.project {
            Some(p) => ScopeFilter::Project(p.clone()),
            None => ScopeFilter::Global,
        };
        let mut filter = Filter::new(&req.tenant, now).scope(scope.clone());
        filter.hidden_slots.clone_from(&req.hidden_slots);
        let mut candidates: Vec<(Memory, Reason)> = Vec::new();
        let mut seen = HashSet::new();
        let mut push = |ms: Vec<Memory>, reason: Reason, out: &mut Vec<(Memory, Reason)>| {
            for m in ms {
                if seen.insert(m.id) {
                    out.push((m, reason));
                }
            }
        };
        let mut rules = filter.clone();
        rules.types = MemoryType::ALL
            .iter()
            .copied()
            .filter(|t| t.tier() == Tier::Procedural)
            .collect();
        push(
            self.list(&rules, ListOrder::RecentlyUpdated, 15, 0)?,
            Reason::Rule,
            &mut candidates,
        );
        if let Some(topic) = req.topic.as_deref().filter(|t| !t.trim().is_empty()) {
            let mut r = RecallRequest::new(&req.tenant, topic);
            r.filter.scope = scope.clone();
            r.limit = 15;
            let found = self.search(&r)?.into_iter().map(|r| r.memory).collect();
            push(found, Reason::Match, &mut candidates);
        }
        push(
            self.list(&filter, ListOrder::RecentlyUpdated, 10, 0)?,
            Reason::Recent,
            &mut candidates,
        );
        let frequent = self
            .list(&filter, ListOrder::MostAccessed, 10, 0)?
            .into_iter()
            .filter(|m| m.access_count > 0)
            .collect();
        push(frequent, Reason::Frequent, &mut candidates);
        let stale = self
            .list(&filter, ListOrder::Stalest, 5, 0)?
            .into_iter()
            .filter(|m| now - m.last_accessed_at.unwrap_or(m.created_at) >= STALE_AFTER_MS)
            .collect();
        push(stale, Reason::Stale, &mut candidates);
        let visible = self.store().count(&filter)?;
        let shown: Vec<&Memory> = candidates.iter().map(|(m, _)| m).collect();
        let marks = self.conflict_marks(&req.tenant, &shown)?;
        let mut ids: Vec<MemoryId> = candidates.iter().map(|(m, _)| m.id).collect();
        ids.extend(marks.values().flat_map(marked_ids));
        ids.sort();
        ids.dedup();
        let shorts: HashMap<MemoryId, String> = ids
            .iter()
            .copied()
            .zip(self.short_ids(&req.tenant, &ids, SHORT_ID_MIN)?)
            .collect();
        Ok(assemble(req, candidates, visible, now, &shorts, &marks))
    }
}

/// The other side's ids a mark names.
fn marked_ids(mark: &ConflictMark) -> Vec<MemoryId> {
    match mark {
        ConflictMark::Outdated { current } => vec![*current],
        ConflictMark::Current { replaces } => replaces.clone(),
    }
}

fn item_line(item: &ContextItem, now: Timestamp) -> String {
    let mut line = format!("- [{}] {}", item.short_id, item.content.replace('\n', " "));
    let mut notes: Vec<String> = Vec::new();
    if !item.tags.is_empty() {
        notes.push(format!("tags: {}", item.tags.join(", ")));
    }
    if item.project.is_none() {
        notes.push("global".into());
    }
    notes.push(format!("updated {}", ago(item.updated_at, now)));
    if let Some(by) = &item.contested_by {
        notes.push(format!("outdated: contested by {by}, which is current"));
    } else if !item.replaces.is_empty() {
        notes.push(format!("current: replaces {}", item.replaces.join(", ")));
    }
    if item.reason == Reason::Stale {
        notes.push("stale: review, update or forget".into());
    }
    let _ = write!(line, " ({})", notes.join("; "));
    line.push('\n');
    line
}

fn heading(req: &ContextRequest) -> String {
    let mut h = String::from("# Cairn memory");
    if let Some(p) = &req.project {
        let _ = write!(h, " — project {p}");
    }
    if let Some(t) = req.topic.as_deref().filter(|t| !t.trim().is_empty()) {
        let _ = write!(h, " — topic \"{}\"", t.trim());
    }
    h.push_str("\n\n");
    h
}

fn render(
    req: &ContextRequest,
    items: &[ContextItem],
    omitted: usize,
    visible: usize,
    tokens: usize,
    now: Timestamp,
) -> String {
    let mut out = heading(req);
    for kind in display_order() {
        let group: Vec<&ContextItem> = items.iter().filter(|i| i.kind == *kind).collect();
        if group.is_empty() {
            continue;
        }
        let _ = writeln!(out, "## {}", plural(*kind));
        for item in group {
            out.push_str(&item_line(item, now));
        }
        out.push('\n');
    }
    if items.is_empty() {
        out.push_str("No memories yet for this scope.\n\n");
    }
    let _ = writeln!(
        out,
        "_{} of {} memories · {} tokens (budget {}){}_",
        items.len(),
        visible,
        tokens,
        req.budget,
        if omitted > 0 {
            format!(" · {omitted} left out for budget")
        } else {
            String::new()
        }
    );
    out
}

/// The order of the groups: the procedural tier (rules, procedures) first,
/// since an agent must follow them whatever else it reads, then the other
/// types in their usual order.
fn display_order() -> impl Iterator<Item = &'static MemoryType> {
    let procedural = |k: &&MemoryType| k.tier() == Tier::Procedural;
    let all = MemoryType::ALL.iter();
    all.clone()
        .filter(procedural)
        .chain(all.filter(move |k| !procedural(k)))
}

fn plural(kind: MemoryType) -> &'static str {
    match kind {
        MemoryType::Fact => "Facts",
        MemoryType::Preference => "Preferences",
        MemoryType::Rule => "Rules",
        MemoryType::Decision => "Decisions",
        MemoryType::Feedback => "Feedback",
        MemoryType::Context => "Context",
        MemoryType::Episode => "Episodes",
        MemoryType::Summary => "Summaries",
        MemoryType::Procedure => "Procedures",
        MemoryType::Note => "Notes",
    }
}

/// Render with an exact token count in the stats line: the count is part of
/// the text it counts, so iterate until it is stable (two or three rounds).
fn render_counted(
    req: &ContextRequest,
    items: &[ContextItem],
    omitted: usize,
    visible: usize,
    now: Timestamp,
) -> (String, usize) {
    let mut tokens = 0;
    for _ in 0..5 {
        let text = render(req, items, omitted, visible, tokens, now);
        let counted = count_tokens(&text);
        if counted == tokens {
            return (text, tokens);
        }
        tokens = counted;
    }
    let text = render(req, items, omitted, visible, tokens, now);
    let counted = count_tokens(&text);
    (text, counted)
}

/// Fill the budget in candidate order (rules and procedures, topic
/// matches, recent, frequent, stale), then render; drop the last admitted item until the exact count
/// fits.
fn assemble(
    req: &ContextRequest,
    candidates: Vec<(Memory, Reason)>,
    visible: usize,
    now: Timestamp,
    shorts: &HashMap<MemoryId, String>,
    marks: &HashMap<MemoryId, ConflictMark>,
) -> ContextPack {
    let short = |id: &MemoryId| shorts.get(id).cloned().unwrap_or_else(|| id.to_string());
    let total = candidates.len();
    // Fixed cost: heading, a group heading per type and the stats line.
    let overhead = count_tokens(&heading(req)) + 40;
    let mut used = overhead;
    let mut items: Vec<ContextItem> = Vec::new();
    for (m, reason) in candidates {
        let content = shorten(&m.content, MAX_ITEM_CHARS);
        let mut item = ContextItem {
            id: m.id,
            short_id: shorts
                .get(&m.id)
                .cloned()
                .unwrap_or_else(|| m.id.to_string()),
            kind: m.kind,
            project: m.project,
            content,
            tags: m.tags,
            reason,
            tokens: 0,
            updated_at: m.updated_at,
            access_count: m.access_count,
            contested_by: match marks.get(&m.id) {
                Some(ConflictMark::Outdated { current }) => Some(short(current)),
                _ => None,
            },
            replaces: match marks.get(&m.id) {
                Some(ConflictMark::Current { replaces }) => replaces.iter().map(short).collect(),
                _ => Vec::new(),
            },
        };
        item.tokens = count_tokens(&item_line(&item, now));
        let group_cost = if items.iter().any(|i| i.kind == item.kind) {
            0
        } else {
            6
        };
        if used + item.tokens + group_cost <= req.budget {
            used += item.tokens + group_cost;
            items.push(item);
        }
    }
    loop {
        let omitted = total - items.len();
        let (markdown, tokens) = render_counted(req, &items, omitted, visible, now);
        if tokens <= req.budget || items.is_empty() {
            return ContextPack {
                topic: req.topic.clone(),
                project: req.project.clone(),
                budget: req.budget,
                tokens,
                items,
                omitted,
                visible,
                markdown,
            };
        }
        items.pop();
    }
}

fn shorten(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        None => text.to_string(),
        Some((cut, _)) => format!("{}… (truncated; `cairn get` shows all)", &text[..cut]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn memory(i: u8, kind: MemoryType, content: &str) -> Memory {
        Memory {
            id: MemoryId::new_at(1_000 + i64::from(i)),
            tenant: "default".into(),
            content: content.into(),
            kind,
            project: None,
            tags: vec![],
            metadata: Default::default(),
            importance: 0.5,
            weight: 1.0,
            source: "manual".into(),
            created_at: 0,
            updated_at: 0,
            last_accessed_at: None,
            access_count: 0,
            expires_at: None,
            valid_from: None,
            valid_to: None,
            supersedes: None,
            superseded_by: None,
            thread: None,
            slot: None,
            search_context: None,
        }
    }

    fn request(budget: usize) -> ContextRequest {
        ContextRequest {
            tenant: "default".into(),
            topic: Some("db".into()),
            project: None,
            budget,
            hidden_slots: Vec::new(),
        }
    }

    #[test]
    fn output_fits_budget_and_count_is_exact() {
        let candidates: Vec<(Memory, Reason)> = (0..40)
            .map(|i| {
                (
                    memory(
                        i,
                        MemoryType::Fact,
                        &format!("fact number {i} about the staging database and its backups"),
                    ),
                    Reason::Match,
                )
            })
            .collect();
        for budget in [60, 150, 400, 2000] {
            let pack = assemble(
                &request(budget),
                candidates.clone(),
                40,
                0,
                &HashMap::new(),
                &HashMap::new(),
            );
            assert!(pack.tokens <= budget, "budget {budget}: {}", pack.tokens);
            assert_eq!(pack.tokens, count_tokens(&pack.markdown));
            assert_eq!(pack.items.len() + pack.omitted, 40);
            assert!(pack
                .markdown
                .contains(&format!("{} tokens (budget {budget})", pack.tokens)));
        }
        let small = assemble(
            &request(150),
            candidates.clone(),
            40,
            0,
            &HashMap::new(),
            &HashMap::new(),
        );
        let big = assemble(
            &request(2000),
            candidates,
            40,
            0,
            &HashMap::new(),
            &HashMap::new(),
        );
        assert!(big.items.len() > small.items.len());
    }

    #[test]
    fn procedural_groups_come_first() {
        let candidates = vec![
            (memory(1, MemoryType::Fact, "a fact"), Reason::Match),
            (memory(2, MemoryType::Note, "a note"), Reason::Recent),
            (
                memory(3, MemoryType::Preference, "a preference"),
                Reason::Recent,
            ),
            (
                memory(4, MemoryType::Procedure, "a procedure"),
                Reason::Rule,
            ),
            (memory(5, MemoryType::Rule, "a rule"), Reason::Rule),
        ];
        let pack = assemble(
            &request(1000),
            candidates,
            5,
            0,
            &HashMap::new(),
            &HashMap::new(),
        );
        let at = |h: &str| pack.markdown.find(h).unwrap_or_else(|| panic!("{h}"));
        assert!(at("## Rules") < at("## Procedures"));
        assert!(at("## Procedures") < at("## Facts"));
        assert!(at("## Facts") < at("## Preferences"));
        assert!(at("## Preferences") < at("## Notes"));
    }

    #[test]
    fn lines_carry_the_short_ids_given() {
        let m = memory(1, MemoryType::Fact, "a fact");
        let shorts = HashMap::from([(m.id, "0123abcd-ef".to_string())]);
        let pack = assemble(
            &request(1000),
            vec![(m, Reason::Match)],
            1,
            0,
            &shorts,
            &HashMap::new(),
        );
        assert!(
            pack.markdown.contains("- [0123abcd-ef] a fact"),
            "{}",
            pack.markdown
        );
        assert_eq!(pack.items[0].short_id, "0123abcd-ef");
    }

    #[test]
    fn long_content_is_shortened() {
        let long = "x".repeat(5000);
        let s = shorten(&long, 10);
        assert!(s.starts_with("xxxxxxxxxx…"));
        assert_eq!(shorten("short", 10), "short");
    }
}
