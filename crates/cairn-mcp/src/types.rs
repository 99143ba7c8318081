//! The tools' inputs and outputs: their JSON schemas (from these types and
//! their doc comments) are what a model reads, so every field says what it
//! means and what it defaults to.

use cairn_core::memory::Memory;
use cairn_core::rank::ScoreBreakdown;
use cairn_core::time::format_timestamp;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

// ---------------------------------------------------------------- inputs

/// Arguments of `remember`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RememberParams {
    /// The memory: one fact, decision, preference or rule, short and
    /// specific, understandable without the conversation (max 1 MiB).
    pub content: String,
    /// What kind of memory: fact, preference, decision, rule, procedure,
    /// feedback, summary, episode, context or note (default note).
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
    /// Project it belongs to. Omitted: the session's project (from the
    /// `.cairn` file or git repository), or global if there is none.
    #[serde(default)]
    pub project: Option<String>,
    /// Store as a global memory, seen from every project (ignores `project`).
    #[serde(default)]
    pub global: bool,
    /// Labels for filtering, e.g. ["infra", "db"].
    #[serde(default)]
    pub tags: Vec<String>,
    /// Extra structured data (a JSON object); its values are keyword-searchable.
    #[serde(default)]
    pub metadata: Option<Map<String, Value>>,
    /// 0 to 1; how much this matters (default 0.5).
    #[serde(default)]
    pub importance: Option<f64>,
    /// Time to live, e.g. "30m", "24h", "7d", "2w": the memory expires then.
    /// For things that go stale (temporary URLs, who is on call).
    #[serde(default)]
    pub ttl: Option<String>,
    /// Id (or unique prefix) of a memory this one replaces; the old one is
    /// hidden from recall and kept for history.
    #[serde(default)]
    pub supersedes: Option<String>,
}

/// Which memories a `recall` or `list` sees.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct FilterParams {
    /// Project (its memories plus global ones). Omitted: the session's
    /// project.
    #[serde(default)]
    pub project: Option<String>,
    /// Every project.
    #[serde(default)]
    pub all_projects: bool,
    /// Only these types (e.g. ["decision", "rule"]).
    #[serde(default)]
    pub types: Vec<String>,
    /// Only memories carrying all of these tags.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Only memories created at or after this time (RFC 3339 or YYYY-MM-DD).
    #[serde(default)]
    pub since: Option<String>,
    /// Only memories created before this time (RFC 3339 or YYYY-MM-DD).
    #[serde(default)]
    pub until: Option<String>,
}

/// Arguments of `recall`. (Not `deny_unknown_fields`: serde does not
/// support it together with `flatten`.)
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct RecallParams {
    /// A question or keywords, in natural language.
    pub query: String,
    /// Which memories.
    #[serde(flatten)]
    pub filter: FilterParams,
    /// Most results to return, 1 to 100 (default 10).
    #[serde(default)]
    pub limit: Option<usize>,
    /// hybrid (default: keywords and meaning), keyword (exact words) or
    /// semantic (meaning only).
    #[serde(default)]
    pub mode: Option<String>,
    /// Token budget (cl100k) for the returned memories' text: results past it
    /// are left out and counted in `omitted`.
    #[serde(default)]
    pub budget: Option<usize>,
    /// Include every factor of each score (BM25 and vector ranks, boost,
    /// decay, scope, weight).
    #[serde(default)]
    pub explain: bool,
}

/// Arguments of `context`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ContextParams {
    /// What the work is about; memories matching it come first. Optional.
    #[serde(default)]
    pub topic: Option<String>,
    /// Project (global memories are always included). Omitted: the
    /// session's project.
    #[serde(default)]
    pub project: Option<String>,
    /// Token budget for the whole Markdown (default 2000, at least 50).
    #[serde(default)]
    pub budget: Option<usize>,
}

/// Arguments of `get`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetParams {
    /// The memory's id or a unique prefix of it (4+ characters), as shown by
    /// recall and list (`short_id`).
    pub id: String,
}

/// Arguments of `update`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateParams {
    /// The memory's id or unique prefix.
    pub id: String,
    /// New text (re-embeds the memory). To replace a fact that changed,
    /// prefer `remember` with `supersedes`, which keeps history.
    #[serde(default)]
    pub content: Option<String>,
    /// New type.
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
    /// Move to this project.
    #[serde(default)]
    pub project: Option<String>,
    /// Make it global (seen from every project).
    #[serde(default)]
    pub global: bool,
    /// Replace all tags with these.
    #[serde(default)]
    pub tags: Option<Vec<String>>,
    /// Add these tags.
    #[serde(default)]
    pub add_tags: Vec<String>,
    /// Remove these tags.
    #[serde(default)]
    pub remove_tags: Vec<String>,
    /// Merge into the metadata; a key set to null is removed.
    #[serde(default)]
    pub metadata: Option<Map<String, Value>>,
    /// New importance, 0 to 1.
    #[serde(default)]
    pub importance: Option<f64>,
    /// New score multiplier, 0 to 100 (1 is normal; 0.1 nearly hides it).
    #[serde(default)]
    pub weight: Option<f64>,
    /// New time to live from now ("24h", "7d").
    #[serde(default)]
    pub ttl: Option<String>,
    /// Remove the time to live: keep it for good.
    #[serde(default)]
    pub clear_ttl: bool,
}

/// Arguments of `forget`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ForgetParams {
    /// One memory's id or unique prefix. Give this, or a filter, not both.
    #[serde(default)]
    pub id: Option<String>,
    /// Filter: that project's own memories (never the global ones).
    #[serde(default)]
    pub project: Option<String>,
    /// Filter: global memories only.
    #[serde(default)]
    pub global: bool,
    /// Filter: these types.
    #[serde(default)]
    pub types: Vec<String>,
    /// Filter: memories carrying all of these tags.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Filter: created at or after (RFC 3339 or YYYY-MM-DD).
    #[serde(default)]
    pub since: Option<String>,
    /// Filter: created before (RFC 3339 or YYYY-MM-DD).
    #[serde(default)]
    pub until: Option<String>,
    /// With a filter: false (default) only counts what would be deleted;
    /// true deletes. Check the count first.
    #[serde(default)]
    pub confirm: bool,
}

/// Arguments of `list`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct ListParams {
    /// Which memories.
    #[serde(flatten)]
    pub filter: FilterParams,
    /// Also show expired memories.
    #[serde(default)]
    pub include_expired: bool,
    /// Also show memories replaced by newer ones.
    #[serde(default)]
    pub include_superseded: bool,
    /// newest (default), oldest, updated, accessed (most used) or stale
    /// (longest unused: candidates to review or forget).
    #[serde(default)]
    pub sort: Option<String>,
    /// Page size, 1 to 200 (default 20).
    #[serde(default)]
    pub limit: Option<usize>,
    /// Skip this many (for the next page, use `next_offset`).
    #[serde(default)]
    pub offset: Option<usize>,
}

/// Arguments of `help`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HelpParams {
    /// overview (default), protocol, remember, recall, types, projects,
    /// forget or tools.
    #[serde(default)]
    pub topic: Option<String>,
}

/// No arguments.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoParams {}

// ---------------------------------------------------------------- outputs

/// A memory as the tools return it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct MemoryOut {
    /// Full id.
    pub id: String,
    /// Shortest unique prefix of the id: what to pass back.
    pub short_id: String,
    /// The text.
    pub content: String,
    /// Type.
    #[serde(rename = "type")]
    pub kind: String,
    /// Project; null = global.
    pub project: Option<String>,
    /// Tags.
    pub tags: Vec<String>,
    /// Extra data.
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub metadata: Map<String, Value>,
    /// 0–1.
    pub importance: f64,
    /// Score multiplier (0.1 once superseded).
    pub weight: f64,
    /// RFC 3339.
    pub created_at: String,
    /// RFC 3339.
    pub updated_at: String,
    /// Times recalled or read.
    pub access_count: u64,
    /// When it expires (RFC 3339), if it has a TTL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
    /// Id of the memory it replaced.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub supersedes: Option<String>,
    /// Id of the memory that replaced it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<String>,
}

impl MemoryOut {
    /// The output form of `m`, with its short id.
    pub fn new(m: &Memory, short_id: String) -> Self {
        MemoryOut {
            id: m.id.to_string(),
            short_id,
            content: m.content.clone(),
            kind: m.kind.as_str().to_string(),
            project: m.project.clone(),
            tags: m.tags.clone(),
            metadata: m.metadata.clone(),
            importance: m.importance,
            weight: m.weight,
            created_at: format_timestamp(m.created_at),
            updated_at: format_timestamp(m.updated_at),
            access_count: m.access_count,
            expires_at: m.expires_at.map(format_timestamp),
            supersedes: m.supersedes.map(|i| i.to_string()),
            superseded_by: m.superseded_by.map(|i| i.to_string()),
        }
    }
}

/// A memory similar to one just written.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SimilarOut {
    /// Full id.
    pub id: String,
    /// Short id.
    pub short_id: String,
    /// Type.
    #[serde(rename = "type")]
    pub kind: String,
    /// Cosine similarity with the new memory (0.75–0.92).
    pub similarity: f32,
    /// Its text.
    pub content: String,
}

/// What `remember` did.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RememberOut {
    /// The memory written (new, or the near-identical one merged into).
    pub id: String,
    /// Short id.
    pub short_id: String,
    /// created, or deduplicated (merged into an existing near-identical
    /// memory, whose id is kept).
    pub status: String,
    /// The project it was stored in; null = global.
    pub project: Option<String>,
    /// The memory it superseded, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub superseded: Option<String>,
    /// Related memories that may contradict this one: if one is now wrong,
    /// supersede or forget it.
    pub similar: Vec<SimilarOut>,
}

/// One recall result.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RecallHit {
    /// The memory.
    #[serde(flatten)]
    pub memory: MemoryOut,
    /// Final score, higher is better.
    pub score: f64,
    /// Every factor of the score (when `explain` was asked).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Value>")]
    pub explain: Option<ScoreBreakdown>,
}

/// What `recall` found.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RecallOut {
    /// Best first.
    pub results: Vec<RecallHit>,
    /// Matches left out to stay within `budget`.
    pub omitted: usize,
    /// Tokens (cl100k) of the returned memories' text.
    pub tokens: usize,
    /// The scope searched: a project name, "global" or "all".
    pub scope: String,
}

/// The session-start context.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ContextOut {
    /// The context as Markdown: read it and follow its rules.
    pub markdown: String,
    /// Exact tokens of `markdown`.
    pub tokens: usize,
    /// The budget.
    pub budget: usize,
    /// The project; null = global only.
    pub project: Option<String>,
    /// Memories included.
    pub included: usize,
    /// Candidates left out for lack of budget.
    pub omitted: usize,
}

/// What `update` did.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct UpdateOut {
    /// The memory after the change.
    pub memory: MemoryOut,
}

/// What `forget` did.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ForgetOut {
    /// How many were deleted.
    pub forgotten: usize,
    /// Their ids.
    pub ids: Vec<String>,
    /// With a filter and no `confirm`: how many would be deleted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub would_forget: Option<usize>,
}

/// A page of memories.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ListOut {
    /// The page.
    pub memories: Vec<MemoryOut>,
    /// Memories matching the filter in all.
    pub total: usize,
    /// Offset of this page.
    pub offset: usize,
    /// Offset of the next page, if there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<usize>,
}

/// Counts of the store.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct StatsOut {
    /// Every memory, including expired and superseded ones.
    pub total: usize,
    /// Expired, awaiting deletion.
    pub expired: usize,
    /// Replaced by newer memories.
    pub superseded: usize,
    /// Count per type.
    pub by_type: Map<String, Value>,
    /// Count per project ("(global)" for global memories).
    pub by_project: Map<String, Value>,
    /// Oldest creation time.
    pub oldest: Option<String>,
    /// Newest creation time.
    pub newest: Option<String>,
    /// Embedding model of the store.
    pub model: Option<String>,
    /// The session's project, if one was detected or configured.
    pub session_project: Option<String>,
}

/// A help text.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct HelpOut {
    /// The topic shown.
    pub topic: String,
    /// Markdown.
    pub text: String,
    /// Other topics.
    pub topics: Vec<String>,
}
