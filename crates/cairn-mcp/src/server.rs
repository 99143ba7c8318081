//! [`CairnMcp`]: the one MCP handler (tools, resources, prompts) over the
//! engine, whatever the transport.
//!
//! Every engine call runs off the async workers (`block_in_place`, or
//! `spawn_blocking` on a single-threaded runtime): the core is synchronous.
//! Engine errors become tool results with `isError` and a message that says
//! what to do; malformed arguments and unknown tools are JSON-RPC errors,
//! produced by rmcp before a tool runs.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use cairn_core::context::ContextRequest;
use cairn_core::memory::normalize_tags;
use cairn_core::store::{Filter, ListOrder, ScopeFilter};
use cairn_core::time::{format_timestamp, parse_duration, parse_timestamp};
use cairn_core::tokens::count_tokens;
use cairn_core::{
    Cairn, ErrorKind, Memory, MemoryId, MemoryType, RecallRequest, RememberRequest, SearchMode,
    UpdateRequest, WriteStatus,
};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::{schema_for_output, ToolCallContext};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, Implementation, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, PaginatedRequestParams, Prompt,
    PromptArgument, PromptMessage, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, Resource, ResourceContents, ResourceTemplate, Role, ServerCapabilities,
    ServerConfig,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{tool, tool_handler, tool_router, ErrorData, RoleServer, ServerHandler};
use serde::Serialize;

use crate::help;
use crate::project::{detect_project, path_of_file_uri, percent_decode};
use crate::types::*;

/// Default token budget of `context` and the context resources.
pub const DEFAULT_CONTEXT_BUDGET: usize = 2000;
/// Most results one `recall` through MCP may ask for.
pub const MAX_MCP_RECALL: usize = 100;
/// Largest `list` page.
pub const MAX_LIST_PAGE: usize = 200;
/// Shortest id prefix shown to models: `xxxxxxxx-xxxx`, the creation
/// millisecond of a UUIDv7.
pub const MIN_SHORT_ID: usize = 13;
/// The prompt that teaches an agent to use memory.
pub const PROTOCOL_PROMPT: &str = "memory-protocol";

/// How the server is configured by its front end.
#[derive(Clone)]
pub struct McpConfig {
    /// The tenant every call acts for.
    pub tenant: String,
    /// The project of calls that name none, unless the client's roots say
    /// otherwise (`None` = global).
    pub default_project: Option<String>,
    /// Ask a client that offers MCP roots for them, and detect the project
    /// from the first `file://` root.
    pub use_roots: bool,
}

impl McpConfig {
    /// Configuration for `tenant` with no default project.
    pub fn new(tenant: impl Into<String>) -> Self {
        McpConfig {
            tenant: tenant.into(),
            default_project: None,
            use_roots: true,
        }
    }
}

/// Cairn's MCP handler. Clone it per session ([`CairnMcp::for_session`]):
/// the engine is shared, the project learnt from a client's roots is not.
#[derive(Clone)]
pub struct CairnMcp {
    cairn: Cairn,
    config: Arc<McpConfig>,
    /// `Some(project)` once the client's roots were read.
    roots_project: Arc<Mutex<Option<Option<String>>>>,
    content_tokens: TokenMemo,
    tool_router: ToolRouter<Self>,
}

/// Most entries [`TokenMemo`] holds before it starts again.
const TOKEN_MEMO_ENTRIES: usize = 100_000;

/// Token counts of `" " + content` by memory id and a hash of the content,
/// shared by every session: a recall answer counts each line against its
/// budget, and the same memories come back again and again. Keyed by the
/// content itself (not `updated_at`), so an edit can never leave a stale
/// count.
#[derive(Clone, Default)]
struct TokenMemo(Arc<Mutex<HashMap<(MemoryId, u64), usize>>>);

impl TokenMemo {
    /// Tokens of `" " + content`: what the content adds after a line prefix
    /// ending in `]` (see [`recall_line`]).
    fn spaced_content(&self, id: MemoryId, content: &str) -> usize {
        let mut h = DefaultHasher::new();
        content.hash(&mut h);
        let key = (id, h.finish());
        if let Some(n) = self.0.lock().ok().and_then(|m| m.get(&key).copied()) {
            return n;
        }
        let n = count_tokens(&format!(" {content}"));
        if let Ok(mut m) = self.0.lock() {
            if m.len() >= TOKEN_MEMO_ENTRIES {
                m.clear();
            }
            m.insert(key, n);
        }
        n
    }
}

/// One line of a `recall` answer and its exact `cl100k_base` token count.
///
/// The prefix ends in `]` and the content follows a space. The tokeniser's
/// pre-split never joins `]` with a following space (a punctuation piece
/// takes only punctuation and newlines), so the line's pieces are the
/// prefix's followed by those of `" " + content`, and its count is their
/// sum: the content's share comes from the memo.
fn recall_line(memo: &TokenMemo, id: MemoryId, m: &MemoryOut, score: f64) -> (String, usize) {
    let prefix = line_prefix(&m.short_id, &m.kind, m.project.as_deref(), score);
    let tokens = count_tokens(&prefix) + memo.spaced_content(id, &m.content);
    (format!("{prefix} {}", m.content), tokens)
}

/// `- <short id> [<type> · <project> · <score>]`.
fn line_prefix(short_id: &str, kind: &str, project: Option<&str>, score: f64) -> String {
    format!(
        "- {short_id} [{kind} · {} · {score:.4}]",
        project.unwrap_or("global")
    )
}

/// A tool's failure: an engine error (shown to the agent as `isError`).
struct ToolError(cairn_core::Error);

impl From<cairn_core::Error> for ToolError {
    fn from(e: cairn_core::Error) -> Self {
        ToolError(e)
    }
}

type ToolResult<T> = Result<T, ToolError>;

/// The tool result for an engine error: its message and what to do next,
/// decided once per error kind.
fn error_result(e: &cairn_core::Error) -> CallToolResult {
    let hint = match (e, e.kind()) {
        (cairn_core::Error::AmbiguousId { .. }, _) => {
            "Use more characters of the id (the full id always works)."
        }
        (cairn_core::Error::ContentTooLarge { .. }, _) => {
            "Store a short summary, or split it into several specific memories."
        }
        (_, ErrorKind::BadInput) => "Fix the arguments and call again; `help` explains them.",
        (_, ErrorKind::NotFound) => {
            "Find the right id with `recall` or `list` (ids and unique prefixes of 4+ characters work)."
        }
        (_, ErrorKind::Internal) => {
            "This is a fault on the memory server's side, not in your call; try again later."
        }
    };
    CallToolResult::error(vec![ContentBlock::text(format!(
        "error ({}): {e}\n{hint}",
        e.code()
    ))])
}

/// A successful result: compact text for the model and the structured value.
fn reply<T: Serialize>(text: String, value: &T) -> CallToolResult {
    let mut r = CallToolResult::success(vec![ContentBlock::text(text)]);
    r.structured_content = Some(serde_json::to_value(value).unwrap_or(serde_json::Value::Null));
    r
}

fn finish<T: Serialize>(r: ToolResult<(String, T)>) -> CallToolResult {
    match r {
        Ok((text, value)) => reply(text, &value),
        Err(ToolError(e)) => error_result(&e),
    }
}

/// Trimmed, non-empty text.
fn non_empty(s: Option<String>) -> Option<String> {
    s.map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
}

fn one_line(s: &str, max: usize) -> String {
    let flat: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &flat[..i]),
        None => flat,
    }
}

fn parse_types(types: &[String]) -> cairn_core::Result<Vec<MemoryType>> {
    types.iter().map(|t| t.parse()).collect()
}

fn parse_time(field: &str, v: &Option<String>) -> cairn_core::Result<Option<i64>> {
    v.as_deref()
        .map(|s| {
            parse_timestamp(s).map_err(|e| cairn_core::Error::invalid(format!("{field}: {e}")))
        })
        .transpose()
}

/// Types, tags and creation times of a filter, from tool arguments.
fn set_conditions(
    filter: &mut Filter,
    types: &[String],
    tags: &[String],
    since: &Option<String>,
    until: &Option<String>,
) -> cairn_core::Result<()> {
    filter.types = parse_types(types)?;
    filter.tags = normalize_tags(tags)?;
    filter.created_after = parse_time("since", since)?;
    filter.created_before = parse_time("until", until)?;
    Ok(())
}

/// The filter of a `recall` or `list` in `scope`.
fn filter_of(
    c: &Cairn,
    tenant: &str,
    scope: &ScopeFilter,
    p: &FilterParams,
) -> cairn_core::Result<Filter> {
    let mut filter = c.filter(tenant).scope(scope.clone());
    set_conditions(&mut filter, &p.types, &p.tags, &p.since, &p.until)?;
    Ok(filter)
}

fn scope_label(scope: &ScopeFilter) -> String {
    match scope {
        ScopeFilter::Global | ScopeFilter::Exactly(None) => "global".into(),
        ScopeFilter::Project(p) | ScopeFilter::Exactly(Some(p)) => p.clone(),
        ScopeFilter::All => "all".into(),
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

impl CairnMcp {
    /// A handler over `cairn`.
    pub fn new(cairn: Cairn, config: McpConfig) -> Self {
        CairnMcp {
            cairn,
            config: Arc::new(config),
            roots_project: Arc::new(Mutex::new(None)),
            content_tokens: TokenMemo::default(),
            tool_router: Self::tool_router(),
        }
    }

    /// A handler for a new session: same engine and configuration, its own
    /// roots-derived project.
    pub fn for_session(&self) -> Self {
        CairnMcp {
            roots_project: Arc::new(Mutex::new(None)),
            ..self.clone()
        }
    }

    /// The engine.
    pub fn cairn(&self) -> &Cairn {
        &self.cairn
    }

    /// The project of a call that names none.
    pub fn session_project(&self) -> Option<String> {
        let roots = self
            .roots_project
            .lock()
            .map(|g| g.clone())
            .unwrap_or_default();
        match roots {
            Some(p) => p,
            None => self.config.default_project.clone(),
        }
    }

    fn project_or_session(&self, explicit: Option<String>) -> Option<String> {
        non_empty(explicit).or_else(|| self.session_project())
    }

    /// What a `recall` or `list` sees: a project and global memories, or
    /// everything.
    fn scope_of(&self, p: &FilterParams) -> ScopeFilter {
        if p.all_projects {
            return ScopeFilter::All;
        }
        match self.project_or_session(p.project.clone()) {
            Some(project) => ScopeFilter::Project(project),
            None => ScopeFilter::Global,
        }
    }

    /// Run `f` on the engine on the blocking pool.
    async fn blocking<T, F>(&self, f: F) -> ToolResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&Cairn, &str) -> cairn_core::Result<T> + Send + 'static,
    {
        // On a multi-threaded runtime the work runs right here, with this
        // worker's other tasks handed to another thread: a round trip
        // through the blocking pool costs two thread wake-ups, which were
        // most of the MCP layer's latency. A single-threaded runtime (tests)
        // cannot do that, so it uses the pool.
        if tokio::runtime::Handle::current().runtime_flavor()
            == tokio::runtime::RuntimeFlavor::MultiThread
        {
            return tokio::task::block_in_place(|| f(&self.cairn, &self.config.tenant))
                .map_err(ToolError);
        }
        let cairn = self.cairn.clone();
        let tenant = self.config.tenant.clone();
        tokio::task::spawn_blocking(move || f(&cairn, &tenant))
            .await
            .map_err(|e| ToolError(cairn_core::Error::storage(format!("task failed: {e}"))))?
            .map_err(ToolError)
    }

    fn out(cairn: &Cairn, tenant: &str, m: &Memory) -> MemoryOut {
        MemoryOut::new(m, Self::short(cairn, tenant, m.id))
    }

    /// The id to show a model: the shortest unique prefix, but at least
    /// [`MIN_SHORT_ID`] characters, so that an id shown now still works
    /// after more memories were written close in time.
    fn short(cairn: &Cairn, tenant: &str, id: MemoryId) -> String {
        cairn
            .short_id_at_least(tenant, id, MIN_SHORT_ID)
            .unwrap_or_else(|_| id.to_string())
    }

    /// The session-start context as Markdown (also the `cairn://context`
    /// resources).
    async fn context_pack(
        &self,
        topic: Option<String>,
        project: Option<String>,
        budget: usize,
    ) -> ToolResult<cairn_core::context::ContextPack> {
        if budget < 50 {
            return Err(cairn_core::Error::invalid(format!(
                "budget {budget} is too small: give at least 50 tokens"
            ))
            .into());
        }
        self.blocking(move |c, tenant| {
            c.context(&ContextRequest {
                tenant: tenant.to_string(),
                topic: non_empty(topic),
                project,
                budget,
            })
        })
        .await
    }

    /// Learn the session's project from the client's roots, if it has any.
    /// (Roots are deprecated in the newest protocol revision, but the
    /// clients people use today still offer them.)
    #[allow(deprecated)]
    async fn read_roots(&self, peer: rmcp::Peer<RoleServer>) {
        let offers_roots = peer
            .peer_info()
            .is_some_and(|info| info.capabilities.roots.is_some());
        if !self.config.use_roots || !offers_roots {
            return;
        }
        let roots = tokio::time::timeout(Duration::from_secs(5), peer.list_roots()).await;
        let Ok(Ok(roots)) = roots else {
            tracing::debug!("the client did not list its roots");
            return;
        };
        let project = roots
            .roots
            .iter()
            .filter_map(|r| path_of_file_uri(&r.uri))
            .find_map(|p| detect_project(&p))
            .map(|d| d.name);
        tracing::info!(?project, "project from the client's roots");
        if let Ok(mut g) = self.roots_project.lock() {
            // Roots without a project leave the configured default in place.
            if project.is_some() {
                *g = Some(project);
            }
        }
    }
}

#[tool_router]
impl CairnMcp {
    /// Store a memory for later sessions. Use it right away for things that
    /// were hard to find or that the user would not want to repeat: decisions
    /// and why, preferences, rules, facts about where and how things are.
    /// One fact per memory, short and specific. Near-identical memories are
    /// merged (status `deduplicated`); related ones come back in `similar`:
    /// if one of them is now wrong, call `remember` with `supersedes` set to
    /// its id, or `forget` it. Returns the id, the status and similar memories.
    #[tool(
        name = "remember",
        output_schema = schema_for_output::<RememberOut>(),
        annotations(
            title = "Remember",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn remember(&self, Parameters(p): Parameters<RememberParams>) -> CallToolResult {
        let project = if p.global {
            None
        } else {
            self.project_or_session(p.project.clone())
        };
        finish(
            self.blocking(move |c, tenant| {
                let mut req = RememberRequest::new(tenant, p.content);
                if let Some(k) = non_empty(p.kind) {
                    req.kind = k.parse()?;
                }
                req.project = project;
                req.tags = p.tags;
                req.metadata = p.metadata.unwrap_or_default();
                req.metadata.retain(|_, v| !v.is_null());
                req.importance = p.importance;
                req.ttl_ms = non_empty(p.ttl).as_deref().map(parse_duration).transpose()?;
                req.supersedes = non_empty(p.supersedes);
                req.source = Some("mcp".into());
                let project = req.project.clone();
                let o = c.remember(req)?;
                let short = Self::short(c, tenant, o.id);
                let similar: Vec<SimilarOut> = o
                    .similar
                    .iter()
                    .map(|s| SimilarOut {
                        id: s.id.to_string(),
                        short_id: Self::short(c, tenant, s.id),
                        kind: s.kind.as_str().to_string(),
                        similarity: s.similarity,
                        content: s.content.clone(),
                    })
                    .collect();
                let out = RememberOut {
                    id: o.id.to_string(),
                    short_id: short.clone(),
                    status: match o.status {
                        WriteStatus::Created => "created".into(),
                        WriteStatus::Deduplicated => "deduplicated".into(),
                    },
                    project: project.clone(),
                    superseded: o.superseded.map(|i| i.to_string()),
                    similar,
                };
                let scope = project.as_deref().unwrap_or("global");
                let mut text = match o.status {
                    WriteStatus::Created => format!("remembered {short} ({scope})"),
                    WriteStatus::Deduplicated => format!(
                        "deduplicated into {short} ({scope}): a near-identical memory existed; its text was replaced and tags merged"
                    ),
                };
                if let Some(old) = o.superseded {
                    text += &format!(
                        "\nsuperseded {} (hidden from recall, kept for history)",
                        Self::short(c, tenant, old)
                    );
                }
                if !out.similar.is_empty() {
                    text += "\nsimilar memories may contradict it; if one is now wrong, remember with supersedes=<id> or forget it:";
                    for s in &out.similar {
                        text += &format!(
                            "\n- {} ({:.2}) {}",
                            s.short_id,
                            s.similarity,
                            one_line(&s.content, 160)
                        );
                    }
                }
                Ok((text, out))
            })
            .await,
        )
    }

    /// Search memory before acting on anything you may have learnt before:
    /// where something runs, how the user wants things done, why something
    /// was decided, what failed last time. Ask in natural language. Returns
    /// memories best first with scores and short ids, within `budget` tokens
    /// if given. Searches the session's project and global memories unless
    /// `project` or `all_projects` says otherwise.
    #[tool(
        name = "recall",
        output_schema = schema_for_output::<RecallOut>(),
        annotations(
            title = "Recall",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn recall(&self, Parameters(p): Parameters<RecallParams>) -> CallToolResult {
        let scope = self.scope_of(&p.filter);
        let memo = self.content_tokens.clone();
        finish(
            self.blocking(move |c, tenant| {
                let limit = p.limit.unwrap_or(10);
                if limit == 0 || limit > MAX_MCP_RECALL {
                    return Err(cairn_core::Error::invalid(format!(
                        "limit must be between 1 and {MAX_MCP_RECALL}, got {limit}"
                    )));
                }
                let filter = filter_of(c, tenant, &scope, &p.filter)?;
                let mode = match non_empty(p.mode) {
                    Some(m) => m.parse()?,
                    None => SearchMode::Hybrid,
                };
                let found = c.recall(&RecallRequest {
                    query: p.query,
                    filter,
                    limit,
                    mode,
                })?;
                let budget = p.budget.unwrap_or(usize::MAX);
                let (mut tokens, mut omitted) = (0, 0);
                let mut lines = Vec::new();
                let mut results = Vec::new();
                for r in found {
                    let memory = Self::out(c, tenant, &r.memory);
                    let (line, t) = recall_line(&memo, r.memory.id, &memory, r.explain.score);
                    if tokens + t > budget {
                        omitted += 1;
                        continue;
                    }
                    tokens += t;
                    lines.push(line);
                    results.push(RecallHit {
                        memory,
                        score: r.explain.score,
                        explain: p.explain.then_some(r.explain),
                    });
                }
                let label = scope_label(&scope);
                let mut text = if results.is_empty() {
                    format!("no memories match (scope: {label})")
                } else {
                    format!(
                        "{} (scope: {label}; id, type, project, score):\n{}",
                        plural(results.len(), "memory", "memories"),
                        lines.join("\n")
                    )
                };
                if omitted > 0 {
                    text += &format!(
                        "\n({} left out to stay within the budget of {budget} tokens)",
                        plural(omitted, "match", "matches")
                    );
                }
                Ok((
                    text,
                    RecallOut {
                        results,
                        omitted,
                        tokens,
                        scope: label,
                    },
                ))
            })
            .await,
        )
    }

    /// What to read at the start of a session: the rules to follow, the
    /// memories matching the topic, recent and frequently used ones, and
    /// stale ones to review, grouped by type as Markdown within a token
    /// budget. Call it once when work starts (give the task as `topic`).
    #[tool(
        name = "context",
        output_schema = schema_for_output::<ContextOut>(),
        annotations(
            title = "Session context",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn context(&self, Parameters(p): Parameters<ContextParams>) -> CallToolResult {
        let project = self.project_or_session(p.project);
        let budget = p.budget.unwrap_or(DEFAULT_CONTEXT_BUDGET);
        finish(
            self.context_pack(p.topic, project, budget)
                .await
                .map(|pack| {
                    let out = ContextOut {
                        tokens: pack.tokens,
                        budget: pack.budget,
                        project: pack.project.clone(),
                        included: pack.items.len(),
                        omitted: pack.omitted,
                        markdown: pack.markdown,
                    };
                    (out.markdown.clone(), out)
                }),
        )
    }

    /// Read one memory in full by its id or a unique prefix (as shown by
    /// recall and list). Counts as a use of the memory.
    #[tool(
        name = "get",
        output_schema = schema_for_output::<MemoryOut>(),
        annotations(
            title = "Get a memory",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn get(&self, Parameters(p): Parameters<GetParams>) -> CallToolResult {
        finish(
            self.blocking(move |c, tenant| {
                let m = c.get(tenant, &p.id)?;
                let out = Self::out(c, tenant, &m);
                let text = render_memory(&out);
                Ok((text, out))
            })
            .await,
        )
    }

    /// Change a memory in place: text, type, project, tags, metadata,
    /// importance, weight or TTL. When a fact changed, prefer `remember`
    /// with `supersedes` (keeps history); use `update` to fix a mistake or
    /// re-label. Returns the memory after the change.
    #[tool(
        name = "update",
        output_schema = schema_for_output::<UpdateOut>(),
        annotations(
            title = "Update a memory",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn update(&self, Parameters(p): Parameters<UpdateParams>) -> CallToolResult {
        finish(
            self.blocking(move |c, tenant| {
                let req = UpdateRequest {
                    content: p.content,
                    kind: non_empty(p.kind).map(|k| k.parse()).transpose()?,
                    project: if p.global {
                        Some(None)
                    } else {
                        non_empty(p.project).map(Some)
                    },
                    tags: p.tags,
                    add_tags: p.add_tags,
                    remove_tags: p.remove_tags,
                    metadata: p.metadata,
                    importance: p.importance,
                    weight: p.weight,
                    ttl_ms: non_empty(p.ttl)
                        .as_deref()
                        .map(parse_duration)
                        .transpose()?,
                    clear_ttl: p.clear_ttl,
                };
                let m = c.update(tenant, &p.id, req)?;
                let memory = Self::out(c, tenant, &m);
                let text = format!("updated {}\n{}", memory.short_id, render_memory(&memory));
                Ok((text, UpdateOut { memory }))
            })
            .await,
        )
    }

    /// Delete memories for good. Give `id` to delete one memory that is
    /// wrong or useless. Or give a filter (project, global, types, tags,
    /// since, until): without `confirm` it only reports how many would be
    /// deleted; call again with `confirm: true` to delete them. To replace
    /// an outdated fact, prefer `remember` with `supersedes`.
    #[tool(
        name = "forget",
        output_schema = schema_for_output::<ForgetOut>(),
        annotations(
            title = "Forget",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn forget(&self, Parameters(p): Parameters<ForgetParams>) -> CallToolResult {
        finish(self.blocking(move |c, tenant| forget(c, tenant, p)).await)
    }

    /// Browse memories with filters, sorted and paged (no query: use
    /// `recall` to search). `sort: "stale"` lists the longest unused ones,
    /// candidates to review or forget. Returns a page, the total and the
    /// next offset.
    #[tool(
        name = "list",
        output_schema = schema_for_output::<ListOut>(),
        annotations(
            title = "List memories",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn list(&self, Parameters(p): Parameters<ListParams>) -> CallToolResult {
        let scope = self.scope_of(&p.filter);
        finish(
            self.blocking(move |c, tenant| list(c, tenant, scope, p))
                .await,
        )
    }

    /// Counts of the memory store: totals, expired, superseded, per type and
    /// per project, the embedding model, and the session's project.
    #[tool(
        name = "stats",
        output_schema = schema_for_output::<StatsOut>(),
        annotations(
            title = "Memory statistics",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn stats(&self, _p: Parameters<NoParams>) -> CallToolResult {
        let session_project = self.session_project();
        finish(
            self.blocking(move |c, tenant| {
                let (s, model) = c.stats(tenant)?;
                let to_map = |pairs: Vec<(String, usize)>| {
                    pairs
                        .into_iter()
                        .map(|(k, n)| (k, serde_json::Value::from(n)))
                        .collect()
                };
                let out = StatsOut {
                    total: s.total,
                    expired: s.expired,
                    superseded: s.superseded,
                    by_type: to_map(s.by_type),
                    by_project: to_map(
                        s.by_project
                            .into_iter()
                            .map(|(p, n)| (p.unwrap_or_else(|| "(global)".into()), n))
                            .collect(),
                    ),
                    oldest: s.oldest.map(format_timestamp),
                    newest: s.newest.map(format_timestamp),
                    model: model.map(|m| m.to_string()),
                    session_project,
                };
                let text = format!(
                    "{} ({} expired, {} superseded); by type: {}; by project: {}; session project: {}",
                    plural(out.total, "memory", "memories"),
                    out.expired,
                    out.superseded,
                    join_counts(&out.by_type),
                    join_counts(&out.by_project),
                    out.session_project.as_deref().unwrap_or("(none: global)")
                );
                Ok((text, out))
            })
            .await,
        )
    }

    /// How to use Cairn well: what to remember and when to recall (topic
    /// `protocol`), the memory types, projects, forgetting, the tools.
    #[tool(
        name = "help",
        output_schema = schema_for_output::<HelpOut>(),
        annotations(
            title = "Help",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn help(&self, Parameters(p): Parameters<HelpParams>) -> CallToolResult {
        let topic = non_empty(p.topic).unwrap_or_else(|| "overview".into());
        match help::topic(&topic) {
            Some(text) => reply(
                text.clone(),
                &HelpOut {
                    topic,
                    text,
                    topics: help::TOPICS.iter().map(|t| t.to_string()).collect(),
                },
            ),
            None => error_result(&cairn_core::Error::invalid(format!(
                "no help topic `{topic}`; topics: {}",
                help::TOPICS.join(", ")
            ))),
        }
    }
}

fn join_counts(m: &serde_json::Map<String, serde_json::Value>) -> String {
    if m.is_empty() {
        return "-".into();
    }
    m.iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn render_memory(m: &MemoryOut) -> String {
    let mut s = format!(
        "{} [{} · {}] {}\ntags: {}; importance {}; weight {}; created {}; updated {}; used {} times",
        m.short_id,
        m.kind,
        m.project.as_deref().unwrap_or("global"),
        m.content,
        if m.tags.is_empty() {
            "-".to_string()
        } else {
            m.tags.join(", ")
        },
        m.importance,
        m.weight,
        m.created_at,
        m.updated_at,
        m.access_count
    );
    if let Some(e) = &m.expires_at {
        s += &format!("; expires {e}");
    }
    if let Some(by) = &m.superseded_by {
        s += &format!("\nsuperseded by {by}");
    }
    if !m.metadata.is_empty() {
        s += &format!(
            "\nmetadata: {}",
            serde_json::Value::Object(m.metadata.clone())
        );
    }
    s
}

fn forget(c: &Cairn, tenant: &str, p: ForgetParams) -> cairn_core::Result<(String, ForgetOut)> {
    let has_filter = non_empty(p.project.clone()).is_some()
        || p.global
        || !p.types.is_empty()
        || !p.tags.is_empty()
        || p.since.is_some()
        || p.until.is_some();
    let ids = match (non_empty(p.id), has_filter) {
        (Some(id), false) => c.forget(tenant, &[id])?,
        (Some(_), true) => {
            return Err(cairn_core::Error::invalid(
                "give `id` or a filter (project, global, types, tags, since, until), not both",
            ))
        }
        (None, false) => {
            return Err(cairn_core::Error::invalid(
                "nothing to forget: give `id`, or a filter (project, global, types, tags, since, until)",
            ))
        }
        (None, true) => {
            let mut filter = Filter::new(tenant, c.now()).scope(
                match (non_empty(p.project), p.global) {
                    (_, true) => ScopeFilter::Exactly(None),
                    // A project's own memories, never the global ones a
                    // recall there would also see.
                    (Some(project), false) => ScopeFilter::Exactly(Some(project)),
                    (None, false) => ScopeFilter::All,
                },
            );
            set_conditions(&mut filter, &p.types, &p.tags, &p.since, &p.until)?;
            filter.include_expired = true;
            filter.include_superseded = true;
            if !p.confirm {
                let n = c.store().count(&filter)?;
                let text = format!(
                    "{} match (scope: {}); nothing deleted. Call forget again with the same filter and confirm: true to delete {}.",
                    plural(n, "memory", "memories"),
                    scope_label(&filter.scope),
                    if n == 1 { "it" } else { "them" }
                );
                return Ok((
                    text,
                    ForgetOut {
                        forgotten: 0,
                        ids: Vec::new(),
                        would_forget: Some(n),
                    },
                ));
            }
            c.forget_matching(&filter)?
        }
    };
    let ids: Vec<String> = ids.iter().map(|i| i.to_string()).collect();
    let text = format!("forgot {}", plural(ids.len(), "memory", "memories"));
    Ok((
        text,
        ForgetOut {
            forgotten: ids.len(),
            ids,
            would_forget: None,
        },
    ))
}

fn list(
    c: &Cairn,
    tenant: &str,
    scope: ScopeFilter,
    p: ListParams,
) -> cairn_core::Result<(String, ListOut)> {
    let limit = p.limit.unwrap_or(20);
    if limit == 0 || limit > MAX_LIST_PAGE {
        return Err(cairn_core::Error::invalid(format!(
            "limit must be between 1 and {MAX_LIST_PAGE}, got {limit}"
        )));
    }
    let offset = p.offset.unwrap_or(0);
    let order = match non_empty(p.sort).as_deref() {
        None | Some("newest") => ListOrder::Newest,
        Some("oldest") => ListOrder::Oldest,
        Some("updated") => ListOrder::RecentlyUpdated,
        Some("accessed") => ListOrder::MostAccessed,
        Some("stale") => ListOrder::Stalest,
        Some(other) => {
            return Err(cairn_core::Error::invalid(format!(
                "unknown sort `{other}`; use newest, oldest, updated, accessed or stale"
            )))
        }
    };
    let mut filter = filter_of(c, tenant, &scope, &p.filter)?;
    filter.include_expired = p.include_expired;
    filter.include_superseded = p.include_superseded;
    let page = c.list(&filter, order, limit, offset)?;
    let total = c.store().count(&filter)?;
    let memories: Vec<MemoryOut> = page.iter().map(|m| CairnMcp::out(c, tenant, m)).collect();
    let next_offset = (offset + memories.len() < total).then_some(offset + memories.len());
    let mut text = format!(
        "{} of {total} (scope: {}, offset {offset}):",
        plural(memories.len(), "memory", "memories"),
        scope_label(&scope)
    );
    for m in &memories {
        text += &format!(
            "\n- {} [{} · {}] {}",
            m.short_id,
            m.kind,
            m.project.as_deref().unwrap_or("global"),
            one_line(&m.content, 200)
        );
    }
    if let Some(n) = next_offset {
        text += &format!("\nnext page: offset {n}");
    }
    Ok((
        text,
        ListOut {
            memories,
            total,
            offset,
            next_offset,
        },
    ))
}

/// URI of the session-start context resource.
pub const CONTEXT_URI: &str = "cairn://context";
const CONTEXT_PREFIX: &str = "cairn://context/";
const MEMORY_PREFIX: &str = "cairn://memory/";

fn resource_error(e: ToolError) -> ErrorData {
    let ToolError(e) = e;
    match e.kind() {
        ErrorKind::NotFound => ErrorData::resource_not_found(e.to_string(), None),
        ErrorKind::BadInput => ErrorData::invalid_params(e.to_string(), None),
        ErrorKind::Internal => ErrorData::internal_error(e.to_string(), None),
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for CairnMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_prompts()
                .build(),
        )
        .with_server_info(
            Implementation::new("cairn", env!("CARGO_PKG_VERSION"))
                .with_title("Cairn: persistent memory for AI agents"),
        )
        .with_instructions(help::INSTRUCTIONS)
    }

    /// Dispatch to the tools; an unknown tool's error names the tools there
    /// are (rmcp's own says only "tool not found").
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if !self.tool_router.has_route(&request.name) {
            let names: Vec<String> = self
                .tool_router
                .list_all()
                .into_iter()
                .map(|t| t.name.to_string())
                .collect();
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown tool `{}`; Cairn's tools are {} (`help` explains them)",
                    request.name,
                    names.join(", ")
                ),
                None,
            ));
        }
        let tcc = ToolCallContext::new(self, request, context);
        self.tool_router.call(tcc).await
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        let this = self.clone();
        // Not awaited here: the client answers roots/list while it goes on.
        tokio::spawn(async move { this.read_roots(context.peer).await });
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let mut resources = vec![Resource::new(CONTEXT_URI, "context")
            .with_title("Session-start context")
            .with_description(
                "What to read at the start of a session: rules, recent, frequent and stale memories of the session's project and global ones, as Markdown.",
            )
            .with_mime_type("text/markdown")];
        let (stats, _) = self
            .blocking(|c, tenant| c.stats(tenant))
            .await
            .map_err(resource_error)?;
        for (project, _) in stats.by_project {
            if let Some(p) = project {
                resources.push(
                    Resource::new(format!("{CONTEXT_PREFIX}{p}"), format!("context/{p}"))
                        .with_title(format!("Session-start context of {p}"))
                        .with_description(format!(
                            "The session-start context of project {p} (with global memories), as Markdown."
                        ))
                        .with_mime_type("text/markdown"),
                );
            }
        }
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(vec![
            ResourceTemplate::new("cairn://context/{project}", "project-context")
                .with_title("Session-start context of a project")
                .with_description(
                    "The session-start context of one project (with global memories), as Markdown.",
                )
                .with_mime_type("text/markdown"),
            ResourceTemplate::new("cairn://memory/{id}", "memory")
                .with_title("One memory")
                .with_description("One memory by id or unique id prefix, as JSON.")
                .with_mime_type("application/json"),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri;
        let markdown = |text: String, uri: &str| {
            Ok(ReadResourceResult::new(vec![
                ResourceContents::text(text, uri).with_mime_type("text/markdown")
            ])
            .into())
        };
        if uri == CONTEXT_URI {
            let pack = self
                .context_pack(None, self.session_project(), DEFAULT_CONTEXT_BUDGET)
                .await
                .map_err(resource_error)?;
            return markdown(pack.markdown, &uri);
        }
        if let Some(project) = uri.strip_prefix(CONTEXT_PREFIX) {
            let project = percent_decode(project);
            if project.trim().is_empty() {
                return Err(ErrorData::invalid_params(
                    "cairn://context/{project} needs a project name",
                    None,
                ));
            }
            let pack = self
                .context_pack(None, Some(project), DEFAULT_CONTEXT_BUDGET)
                .await
                .map_err(resource_error)?;
            return markdown(pack.markdown, &uri);
        }
        if let Some(id) = uri.strip_prefix(MEMORY_PREFIX) {
            let id = id.to_string();
            let out = self
                .blocking(move |c, tenant| {
                    let m = c.store().get(tenant, &[c.resolve(tenant, &id)?])?;
                    Ok(m.first().map(|m| Self::out(c, tenant, m)))
                })
                .await
                .map_err(resource_error)?
                .ok_or_else(|| ErrorData::resource_not_found("no such memory", None))?;
            let json = serde_json::to_string_pretty(&out)
                .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
            return Ok(ReadResourceResult::new(vec![
                ResourceContents::text(json, uri).with_mime_type("application/json")
            ])
            .into());
        }
        Err(ErrorData::resource_not_found(
            format!(
                "unknown resource `{uri}`; Cairn serves {CONTEXT_URI}, cairn://context/{{project}} and cairn://memory/{{id}}"
            ),
            None,
        ))
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(vec![Prompt::new(
            PROTOCOL_PROMPT,
            Some(
                "The memory protocol: when to recall before acting, what is worth remembering, when to supersede or forget, how to write memories. Load it at session start.",
            ),
            Some(vec![PromptArgument::new("project")
                .with_description("The project the session works on (optional).")
                .with_required(false)]),
        )]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if request.name != PROTOCOL_PROMPT {
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown prompt `{}`; the prompt is `{PROTOCOL_PROMPT}`",
                    request.name
                ),
                None,
            ));
        }
        let project = request
            .arguments
            .as_ref()
            .and_then(|a| a.get("project"))
            .and_then(|v| v.as_str())
            .map(str::to_string)
            .or_else(|| self.session_project());
        let mut text = help::PROTOCOL.to_string();
        if let Some(p) = project {
            text += &format!("\nThis session's project is `{p}`.\n");
        }
        Ok(
            GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
                .with_description("Cairn memory protocol")
                .into(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What [`recall_line`] relies on: a line's count is its prefix's plus
    /// that of `" " + content`, whatever the content starts with.
    #[test]
    fn a_line_counts_as_its_prefix_plus_its_spaced_content() {
        let contents = [
            "atlas staging DB runs on a Hetzner box",
            "'s a contraction first",
            "123 starts with digits",
            "  two spaces first",
            "\nnewline first\r\n",
            "]] more brackets",
            "🎉 emoji, then 中文",
            "-dash",
            "",
            " ",
        ];
        let memo = TokenMemo::default();
        for (i, content) in contents.iter().enumerate() {
            for project in [None, Some("atlas")] {
                let prefix = line_prefix("0196a1b2c3d4e", "fact", project, 0.5 + i as f64);
                let line = format!("{prefix} {content}");
                let id = MemoryId::new_at(1_000 + i as i64);
                let sum = count_tokens(&prefix) + memo.spaced_content(id, content);
                assert_eq!(count_tokens(&line), sum, "{line:?}");
                // A second call is answered by the memo, with the same count.
                assert_eq!(
                    memo.spaced_content(id, content),
                    sum - count_tokens(&prefix)
                );
            }
        }
    }
}
