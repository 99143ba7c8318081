//! Arguments of the commands that read and write memories.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

/// Which scopes a command sees.
#[derive(Debug, Args, Clone, Default)]
pub struct ScopeArgs {
    /// Project: see its memories and global ones [default: global only].
    #[arg(long, short = 'p', env = "CAIRN_PROJECT")]
    pub project: Option<String>,
    /// See every project's memories.
    #[arg(long, conflicts_with = "project")]
    pub all_projects: bool,
    /// Global memories only (overrides CAIRN_PROJECT).
    #[arg(long, conflicts_with = "all_projects")]
    pub global: bool,
}

/// `cairn remember`
#[derive(Debug, Args)]
pub struct RememberArgs {
    /// The memory's text (`-` reads it from stdin).
    #[arg(required = true)]
    pub content: Vec<String>,
    /// Type: fact, preference, rule, decision, feedback, context, episode,
    /// summary, procedure, note [default: note; with --supersedes, the old
    /// memory's].
    #[arg(long = "type", short = 't')]
    pub kind: Option<String>,
    /// Project the memory belongs to [default: global; with --supersedes,
    /// the old memory's].
    #[arg(long, short = 'p', env = "CAIRN_PROJECT")]
    pub project: Option<String>,
    /// A tag (repeatable; commas also separate) [default: none; with
    /// --supersedes, the old memory's].
    #[arg(long = "tag", value_delimiter = ',')]
    pub tags: Vec<String>,
    /// Metadata as key=value (repeatable; values are strings).
    #[arg(long = "meta", value_name = "KEY=VALUE")]
    pub meta: Vec<String>,
    /// Metadata as a JSON object.
    #[arg(long, value_name = "JSON")]
    pub metadata: Option<String>,
    /// Importance 0–1 [default: 0.5].
    #[arg(long)]
    pub importance: Option<f64>,
    /// Time to live: 30m, 24h, 7d, 2w.
    #[arg(long)]
    pub ttl: Option<String>,
    /// Id (or prefix) of a memory this one replaces.
    #[arg(long)]
    pub supersedes: Option<String>,
    /// Store even if a near-identical memory exists.
    #[arg(long)]
    pub no_dedup: bool,
    /// What a conflict with an older memory (the same subject with a
    /// changed value, or a correction) does: flag (report only),
    /// prefer-newer (the older is marked contested, its validity closed,
    /// ranked below) or supersede [default: the tenant's `conflicts`
    /// setting, CAIRN_CONFLICTS, the config's `conflicts`, else flag].
    #[arg(long, value_name = "POLICY")]
    pub conflicts: Option<String>,
    /// Origin of the memory [default: manual].
    #[arg(long)]
    pub source: Option<String>,
    /// Store the text as given: no `[REDACTED:kind]` for keys, tokens,
    /// passwords, emails, phone and card numbers or IBANs.
    #[arg(long)]
    pub no_redact: bool,
}

/// Search modes.
#[derive(Debug, Clone, Copy, ValueEnum, Default)]
pub enum Mode {
    /// BM25 + vectors fused by RRF.
    #[default]
    Hybrid,
    /// BM25 only.
    Keyword,
    /// Vectors only.
    Semantic,
    /// Time words in the query ("yesterday", "last week", "in March", "on 8
    /// May 2023") filter by time (see --reference); the rest is searched
    /// hybrid, or the newest come first.
    Temporal,
    /// The most important first, among the query's hybrid matches.
    Importance,
}

/// Filters shared by recall, list and forget.
#[derive(Debug, Args, Clone, Default)]
pub struct FilterArgs {
    #[command(flatten)]
    pub scope: ScopeArgs,
    /// Only this type (repeatable).
    #[arg(long = "type", short = 't')]
    pub types: Vec<String>,
    /// Only memories with this tag (repeatable: all must match).
    #[arg(long = "tag", value_delimiter = ',')]
    pub tags: Vec<String>,
    /// Only memories from this source: manual, import, ingest,
    /// conversation, consolidation, import:mem0… (repeatable: any matches).
    #[arg(long = "source", value_delimiter = ',')]
    pub sources: Vec<String>,
    /// Created at or after (RFC 3339 or YYYY-MM-DD).
    #[arg(long)]
    pub since: Option<String>,
    /// Created before (RFC 3339 or YYYY-MM-DD).
    #[arg(long)]
    pub until: Option<String>,
    /// Valid at this time (RFC 3339 or YYYY-MM-DD).
    #[arg(long)]
    pub valid_at: Option<String>,
    /// What was believed true at this time (RFC 3339 or YYYY-MM-DD): the
    /// memories written by then and valid then, superseded or contested
    /// since or not.
    #[arg(long, value_name = "TIME")]
    pub as_of: Option<String>,
    /// Include expired memories.
    #[arg(long)]
    pub include_expired: bool,
    /// Include superseded memories.
    #[arg(long)]
    pub include_superseded: bool,
    /// Only superseded memories.
    #[arg(long)]
    pub only_superseded: bool,
    /// Include episodes consolidated into summaries (`cairn consolidate`).
    #[arg(long)]
    pub include_consolidated: bool,
    /// Only the messages of this conversation session.
    #[arg(long)]
    pub session: Option<String>,
    /// Only the messages of this conversation.
    #[arg(long)]
    pub conversation: Option<String>,
    /// Only the messages of this topic of a conversation.
    #[arg(long)]
    pub topic: Option<String>,
    /// Only the entries of this slot (repeatable; archived slots too).
    #[arg(long = "slot")]
    pub slots: Vec<String>,
    /// Include the entries of archived slots (left out by default).
    #[arg(long)]
    pub include_archived: bool,
}

/// `cairn recall`
#[derive(Debug, Args)]
pub struct RecallArgs {
    /// The question or keywords.
    #[arg(required = true)]
    pub query: Vec<String>,
    #[command(flatten)]
    pub filter: FilterArgs,
    /// How many results (1–1000) [default: the core's].
    #[arg(long, short = 'n')]
    pub limit: Option<usize>,
    /// How candidates are found and ordered.
    #[arg(long, alias = "match", value_enum, default_value_t = Mode::Hybrid)]
    pub mode: Mode,
    /// How candidates are ranked: cairn (keyword and vector fused, then
    /// use, recency, scope, weight) or vault (Memory Vault AI's: nearest
    /// by meaning with importance ≥ 0.2, scored 0.8·similarity +
    /// 0.2·importance).
    #[arg(long, default_value = "cairn")]
    pub profile: String,
    /// The time a temporal query's "yesterday" or "last week" is relative
    /// to (RFC 3339 or YYYY-MM-DD) [default: now].
    #[arg(long)]
    pub reference: Option<String>,
    /// Only memories naming this entity (a name, path, identifier, version…;
    /// also `entity:NAME` in the query).
    #[arg(long)]
    pub entity: Option<String>,
    /// Token budget (cl100k_base) for the results: those past it are left
    /// out and counted.
    #[arg(long, short = 'b')]
    pub budget: Option<usize>,
    /// Show every factor of each score.
    #[arg(long)]
    pub explain: bool,
    /// Show the query's words in each result: a snippet with them marked
    /// (JSON: the terms, their byte ranges and the snippet).
    #[arg(long)]
    pub highlight: bool,
    /// Leave out results less relevant than this, 0 to 1 (the RELEV
    /// column); 0 returns every match [default: the engine's floor].
    #[arg(long, value_name = "X")]
    pub min_relevance: Option<f64>,
}

/// Output formats of `context`.
#[derive(Debug, Clone, Copy, ValueEnum, Default, PartialEq, Eq)]
pub enum ContextFormat {
    /// Markdown, for an agent's prompt.
    #[default]
    Markdown,
    /// JSON.
    Json,
}

/// `cairn context`
#[derive(Debug, Args)]
pub struct ContextArgs {
    /// What the work is about (optional).
    pub topic: Vec<String>,
    /// Project [default: global only].
    #[arg(long, short = 'p', env = "CAIRN_PROJECT")]
    pub project: Option<String>,
    /// Token budget (cl100k_base tokens) for the whole output [default: the
    /// core's].
    #[arg(long, short = 'b')]
    pub budget: Option<usize>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ContextFormat::Markdown)]
    pub format: ContextFormat,
    /// Without --project: use the project of the working directory (a
    /// `.cairn` file above it, else the git repository's name).
    #[arg(long)]
    pub auto_project: bool,
}

/// `cairn prompt`.
#[derive(Debug, Args)]
pub struct PromptArgs {
    /// What the prompt is about (`-` = stdin).
    #[arg(required = true)]
    pub query: Vec<String>,
    /// Project, with global memories [default: global only].
    #[arg(long, short = 'p', env = "CAIRN_PROJECT")]
    pub project: Option<String>,
    /// Most tokens of the block, counted exactly [default: the core's].
    #[arg(long, short = 'b')]
    pub budget: Option<usize>,
    /// cl100k_base or o200k_base.
    #[arg(long, default_value = "cl100k_base")]
    pub tokenizer: String,
    /// vault (a `<memory>` block), markdown or json.
    #[arg(long, default_value = "vault")]
    pub format: String,
    /// A TOML file with the block's own header, footer and line per memory
    /// (`line = "- {text}"`, `[lines] episodic = "- {date}: {text}"`;
    /// placeholders {text}, {tier}, {date}, {id}); replaces --format.
    #[arg(long, value_name = "FILE")]
    pub template: Option<PathBuf>,
}

/// List orders.
#[derive(Debug, Clone, Copy, ValueEnum, Default)]
pub enum Sort {
    /// Newest first.
    #[default]
    Newest,
    /// Oldest first.
    Oldest,
    /// Recently updated first.
    Updated,
    /// Most accessed first.
    Accessed,
    /// Longest unused first.
    Stale,
    /// In id order (creation order; pages stay right while memories are
    /// added: continue with --cursor).
    Id,
    /// Soonest to expire first (no expiry last).
    Expiring,
}

/// `cairn list`
#[derive(Debug, Args)]
pub struct ListArgs {
    #[command(flatten)]
    pub filter: FilterArgs,
    /// Order.
    #[arg(long, value_enum, default_value_t = Sort::Newest)]
    pub sort: Sort,
    /// How many (1–1000) [default: the core's page size].
    #[arg(long, short = 'n')]
    pub limit: Option<usize>,
    /// Skip this many.
    #[arg(long)]
    pub offset: Option<usize>,
    /// Continue a listing: the `next_cursor` of the previous page
    /// (`--json` shows it).
    #[arg(long)]
    pub cursor: Option<String>,
}

/// `cairn update`
#[derive(Debug, Args)]
pub struct UpdateArgs {
    /// Id or unique id prefix.
    pub id: String,
    /// New text (`-` reads stdin).
    #[arg(long)]
    pub content: Option<String>,
    /// New type.
    #[arg(long = "type", short = 't')]
    pub kind: Option<String>,
    /// Move to this project.
    #[arg(long, short = 'p')]
    pub project: Option<String>,
    /// Make global.
    #[arg(long, conflicts_with = "project")]
    pub global: bool,
    /// Replace all tags with these (repeatable).
    #[arg(long = "tag", value_delimiter = ',')]
    pub tags: Vec<String>,
    /// Add a tag.
    #[arg(long = "add-tag", value_delimiter = ',')]
    pub add_tags: Vec<String>,
    /// Remove a tag.
    #[arg(long = "remove-tag", value_delimiter = ',')]
    pub remove_tags: Vec<String>,
    /// Set metadata key=value (`key=` removes the key).
    #[arg(long = "meta", value_name = "KEY=VALUE")]
    pub meta: Vec<String>,
    /// New importance 0–1.
    #[arg(long)]
    pub importance: Option<f64>,
    /// New weight.
    #[arg(long)]
    pub weight: Option<f64>,
    /// New TTL from now: 30m, 24h, 7d, 2w.
    #[arg(long)]
    pub ttl: Option<String>,
    /// Remove the TTL.
    #[arg(long, conflicts_with = "ttl")]
    pub no_ttl: bool,
}

/// `cairn forget`
#[derive(Debug, Args)]
pub struct ForgetArgs {
    /// Ids or unique prefixes.
    pub ids: Vec<String>,
    #[command(flatten)]
    pub filter: FilterArgs,
    /// Really delete everything the filter matches (without it, the count is
    /// shown and nothing is deleted).
    #[arg(long)]
    pub yes: bool,
}

/// `cairn supersede`
#[derive(Debug, Args)]
pub struct SupersedeArgs {
    /// Id or prefix of the memory being replaced.
    pub old: String,
    /// The new text (`-` reads stdin).
    #[arg(required = true)]
    pub content: Vec<String>,
    /// Type [default: the old memory's].
    #[arg(long = "type", short = 't')]
    pub kind: Option<String>,
    /// Tags [default: the old memory's].
    #[arg(long = "tag", value_delimiter = ',')]
    pub tags: Vec<String>,
}
