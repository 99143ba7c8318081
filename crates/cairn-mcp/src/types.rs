//! The tools' inputs and outputs: their JSON schemas (from these types and
//! their doc comments) are what a model reads, so every field says what it
//! means and what it defaults to.

use cairn_core::api::{
    ContextInput, ForgetInput, IngestInput, ListInput, RecallInput, RememberInput, Selection,
    UpdateInput, WindowInput,
};
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
    /// Store as a global memory, seen from every project (not with `project`).
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
    /// What a conflict with an older memory (same subject, changed value
    /// or a correction) does: `flag`, `prefer-newer` or `supersede`
    /// (default: the server's policy).
    #[serde(default)]
    pub conflicts: Option<String>,
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
    /// Only the messages of this session (see `observe`).
    #[serde(default)]
    pub session: Option<String>,
    /// Only the messages of this conversation.
    #[serde(default)]
    pub conversation: Option<String>,
    /// Only the messages of this topic of a conversation.
    #[serde(default)]
    pub topic: Option<String>,
    /// What was believed true at this time (RFC 3339 or YYYY-MM-DD):
    /// memories written by then and valid then, superseded since or not.
    #[serde(default)]
    pub as_of: Option<String>,
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
    /// Most results to return, 1 to 1000 (default 10; use `budget` to
    /// bound the answer's length).
    #[serde(default)]
    pub limit: Option<usize>,
    /// hybrid (default: keywords and meaning), keyword (exact words),
    /// semantic (meaning only), temporal (time words in the query such as
    /// "yesterday", "last week", "in March" filter by time) or importance
    /// (most important first).
    #[serde(default)]
    pub mode: Option<String>,
    /// For temporal: the time "yesterday" or "last week" is relative to
    /// (RFC 3339 or YYYY-MM-DD; default now).
    #[serde(default)]
    pub reference: Option<String>,
    /// Only memories naming this entity: a person, place, file path,
    /// identifier, version… (also `entity:Name` in the query).
    #[serde(default)]
    pub entity: Option<String>,
    /// Token budget (cl100k) for the returned memories' text: results past it
    /// are left out and counted in `omitted`.
    #[serde(default)]
    pub budget: Option<usize>,
    /// Include every factor of each score (BM25 and vector ranks, boost,
    /// decay, scope, weight).
    #[serde(default)]
    pub explain: bool,
    /// Leave out results less relevant than this, 0 to 1 (each result's
    /// `relevance`); 0 returns every match. Omitted: the server's default
    /// floor, so an empty answer means nothing relevant is stored.
    #[serde(default)]
    pub min_relevance: Option<f64>,
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
    /// Also return every version of it: what changed, when, by whom and
    /// why (default false).
    #[serde(default)]
    pub history: bool,
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
    /// newest (default), oldest, updated, accessed (most used), stale
    /// (longest unused: candidates to review or forget) or id (stable
    /// pages while memories are added).
    #[serde(default)]
    pub sort: Option<String>,
    /// Page size, 1 to 1000 (default 20).
    #[serde(default)]
    pub limit: Option<usize>,
    /// Skip this many (for the next page, use `next_offset`).
    #[serde(default)]
    pub offset: Option<usize>,
    /// Continue after a page: its `next_cursor` (instead of `offset`).
    #[serde(default)]
    pub cursor: Option<String>,
}

/// One message of `observe`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MessageParams {
    /// Who said it: `user`, `assistant`, or a name.
    #[serde(alias = "role")]
    pub speaker: String,
    /// What was said.
    pub text: String,
    /// When (RFC 3339); default now.
    #[serde(default)]
    pub at: Option<String>,
    /// The session; default one per conversation per day.
    #[serde(default)]
    pub session: Option<String>,
    /// Anything else, as a JSON object.
    #[serde(default)]
    pub metadata: Option<serde_json::Map<String, serde_json::Value>>,
}

/// Arguments of `observe`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ObserveParams {
    /// The conversation's id (any stable name, e.g. the chat's id).
    pub conversation: String,
    /// The messages to log, in order (usually the user's message and your
    /// reply).
    pub messages: Vec<MessageParams>,
    /// Project. Omitted: the session's project.
    #[serde(default)]
    pub project: Option<String>,
}

impl ObserveParams {
    /// What to log: the messages as wire records of the conversation.
    pub fn into_log(self) -> cairn_core::api::LogInput {
        let conversation = self.conversation;
        let records = self
            .messages
            .into_iter()
            .map(|m| cairn_core::wire::MessageRecord {
                conversation: conversation.clone(),
                session: m.session,
                speaker: Some(m.speaker),
                role: None,
                text: m.text,
                at: m.at,
                id: None,
                metadata: m.metadata,
            })
            .collect();
        cairn_core::api::LogInput {
            project: self.project,
            messages: records,
        }
    }
}

/// Arguments of `window`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WindowParams {
    /// The conversation session you are in (as given to `observe`).
    pub session: String,
    /// The new user message you are about to answer.
    #[serde(default)]
    pub message: String,
    /// Most tokens of the whole window (default 2000).
    #[serde(default)]
    pub budget: Option<usize>,
    /// Most tokens of the latest messages kept verbatim (default 4096).
    #[serde(default)]
    pub working_tokens: Option<usize>,
    /// Project. Omitted: the session's project.
    #[serde(default)]
    pub project: Option<String>,
    /// cl100k_base (default) or o200k_base.
    #[serde(default)]
    pub tokenizer: Option<String>,
    /// markdown (default), json, or memory (a `<memory>` block).
    #[serde(default)]
    pub format: Option<String>,
}

impl From<WindowParams> for WindowInput {
    fn from(p: WindowParams) -> Self {
        WindowInput {
            session: p.session,
            message: p.message,
            project: p.project,
            budget: p.budget,
            working_tokens: p.working_tokens,
            tokenizer: p.tokenizer,
            format: p.format,
        }
    }
}

/// Arguments of `ingest`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IngestParams {
    /// The text to turn into memories (plain, Markdown or HTML).
    pub text: String,
    /// Project. Omitted: the session's project.
    #[serde(default)]
    pub project: Option<String>,
    /// Tags for every memory stored.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Only show what would be stored, merged or skipped.
    #[serde(default)]
    pub dry_run: bool,
    /// Also store the atomic facts the server's chat model reads from each
    /// chunk (when one is configured).
    #[serde(default)]
    pub facts: bool,
}

impl From<IngestParams> for IngestInput {
    fn from(p: IngestParams) -> Self {
        IngestInput {
            text: p.text,
            project: p.project,
            tags: p.tags,
            dry_run: p.dry_run,
            facts: p.facts,
            source: Some("mcp".into()),
            ..Default::default()
        }
    }
}

/// Arguments of `slot`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SlotParams {
    /// use, save, save_progress, read, select, search, list, archive,
    /// restore, export or zero.
    pub action: String,
    /// The slot (letters, digits, `-`, `_`). Omitted: the session's slot.
    #[serde(default)]
    pub name: Option<String>,
    /// The text to save (save, save_progress).
    #[serde(default)]
    pub text: Option<String>,
    /// The share of the text a progress summary keeps (default 0.15).
    #[serde(default)]
    pub ratio: Option<f64>,
    /// Which entry (select): -1, "2nd latest", "2 hours ago", a time.
    #[serde(default)]
    pub which: Option<String>,
    /// What to look for (search).
    #[serde(default)]
    pub query: Option<String>,
    /// Why (archive).
    #[serde(default)]
    pub reason: Option<String>,
    /// md (default), txt or json (export).
    #[serde(default)]
    pub format: Option<String>,
    /// Zero mode on or off (zero).
    #[serde(default)]
    pub on: Option<bool>,
    /// Archived slots too (list, search).
    #[serde(default)]
    pub include_archived: bool,
}

/// What the `slot` tool answers: the action's result, and its text.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SlotOutput {
    /// The action done.
    pub action: String,
    /// Its result, as the CLI's `--json` gives it.
    pub result: Value,
    /// The result for reading.
    #[serde(skip)]
    pub text: String,
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
// Every tool answers a type of the application layer (`cairn_core::api`),
// the same JSON the CLI's `--json` and the REST API give; only `help` is
// the server's own.

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

// ------------------------------------------------------------ conversions

impl FilterParams {
    fn selection(self) -> Selection {
        Selection {
            project: self.project,
            all_projects: self.all_projects,
            types: self.types,
            tags: self.tags,
            since: self.since,
            until: self.until,
            session: self.session,
            conversation: self.conversation,
            topic: self.topic,
            as_of: self.as_of,
            ..Default::default()
        }
    }
}

impl From<RememberParams> for RememberInput {
    fn from(p: RememberParams) -> Self {
        RememberInput {
            content: p.content,
            kind: p.kind,
            project: p.project,
            global: p.global,
            tags: Some(p.tags),
            metadata: p.metadata,
            importance: p.importance,
            ttl: p.ttl,
            supersedes: p.supersedes,
            dedup: None,
            conflicts: p.conflicts,
            source: Some("mcp".into()),
            // An agent cannot opt out: the server's setting decides.
            redact: None,
        }
    }
}

impl From<RecallParams> for RecallInput {
    fn from(p: RecallParams) -> Self {
        RecallInput {
            query: p.query,
            selection: p.filter.selection(),
            limit: p.limit,
            mode: p.mode,
            reference: p.reference,
            entity: p.entity,
            budget: p.budget,
            explain: p.explain,
            highlight: false,
            profile: None,
            min_relevance: p.min_relevance,
        }
    }
}

impl From<ContextParams> for ContextInput {
    fn from(p: ContextParams) -> Self {
        ContextInput {
            topic: p.topic,
            project: p.project,
            budget: p.budget,
        }
    }
}

impl From<UpdateParams> for UpdateInput {
    fn from(p: UpdateParams) -> Self {
        UpdateInput {
            content: p.content,
            kind: p.kind,
            project: p.project,
            global: p.global,
            tags: p.tags,
            add_tags: p.add_tags,
            remove_tags: p.remove_tags,
            metadata: p.metadata,
            importance: p.importance,
            weight: p.weight,
            ttl: p.ttl,
            clear_ttl: p.clear_ttl,
        }
    }
}

impl From<ForgetParams> for ForgetInput {
    fn from(p: ForgetParams) -> Self {
        ForgetInput {
            ids: p.id.into_iter().collect(),
            selection: Selection {
                project: p.project,
                global: p.global,
                types: p.types,
                tags: p.tags,
                since: p.since,
                until: p.until,
                ..Default::default()
            },
            confirm: p.confirm,
        }
    }
}

impl From<ListParams> for ListInput {
    fn from(p: ListParams) -> Self {
        let mut selection = p.filter.selection();
        selection.include_expired = p.include_expired;
        selection.include_superseded = p.include_superseded;
        ListInput {
            selection,
            sort: p.sort,
            limit: p.limit,
            offset: p.offset,
            cursor: p.cursor,
        }
    }
}
