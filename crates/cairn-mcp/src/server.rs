//! [`CairnMcp`]: the one MCP handler over the engine, whatever the
//! transport: who the caller is, how engine calls leave the async workers,
//! and the protocol's resources and prompts. The tools are in
//! `tools.rs`, their texts in `render.rs`.
//!
//! Engine errors become tool results with `isError` and a message that says
//! what to do; malformed arguments and unknown tools are JSON-RPC errors,
//! produced by rmcp before a tool runs.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use cairn_core::api::{self, Caller, ContextInput, MemoryView};
use cairn_core::project::{detect_project, detect_slot, path_of_file_uri, percent_decode};
use cairn_core::{Cairn, ErrorKind};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    Annotations, CallToolRequestParams, CallToolResponse, CompleteRequestParams, CompleteResult,
    CompletionInfo, Extensions, GetPromptRequestParams, GetPromptResponse, GetPromptResult,
    Implementation, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    PaginatedRequestParams, Prompt, PromptArgument, PromptMessage, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, Reference, Resource, ResourceContents,
    ResourceTemplate, Role, ServerCapabilities, ServerConfig,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{tool_handler, ErrorData, RoleServer, ServerHandler};

use crate::help;

/// The prompt that teaches an agent to use memory.
pub const PROTOCOL_PROMPT: &str = "memory-protocol";

/// The prompt that carries the memories a prompt about a query should
/// hold: the prompt builder's `<memory>` block.
pub const MEMORY_BLOCK_PROMPT: &str = "memory-block";

/// How the server is configured by its front end.
#[derive(Clone)]
pub struct McpConfig {
    /// The tenant of calls whose transport names none (stdio; HTTP without
    /// authentication).
    pub tenant: String,
    /// The project of calls that name none, unless the client's roots say
    /// otherwise (`None` = global).
    pub default_project: Option<String>,
    /// Ask a client that offers MCP roots for them, and detect the project
    /// (and a bound slot) from the first `file://` root.
    pub use_roots: bool,
    /// The slot of `slot` calls that name none before the session chooses
    /// one (`use`): the slot bound to the directory (`cairn slot bind`).
    pub default_slot: Option<String>,
}

impl McpConfig {
    /// Configuration for `tenant` with no default project.
    pub fn new(tenant: impl Into<String>) -> Self {
        McpConfig {
            tenant: tenant.into(),
            default_project: None,
            use_roots: true,
            default_slot: None,
        }
    }
}

/// Who one HTTP request acts for, put into the request's extensions by
/// the server's authentication: an API key's tenant and id. Every call of
/// that request acts for it; without it, [`McpConfig::tenant`] does, as
/// the local user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestCaller {
    /// The tenant.
    pub tenant: String,
    /// The actor its changes are recorded under (the key's id).
    pub actor: String,
}

/// Put into an HTTP request's extensions by the server's authentication
/// when its credential names a default project (an OAuth grant's): calls
/// that name no project use it, unless the client's roots name one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestProject(pub String);

/// Put into an HTTP request's extensions by the server's authentication
/// when the request's key may only read: tools that write refuse it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOnly;

/// Run `f` on the engine from async code, off the async workers (the
/// engine is synchronous).
pub async fn on_engine<T, F>(cairn: &Cairn, f: F) -> cairn_core::Result<T>
where
    T: Send + 'static,
    F: FnOnce(&Cairn) -> cairn_core::Result<T> + Send + 'static,
{
    // On a multi-threaded runtime the work runs right here, with this
    // worker's other tasks handed to another thread: a round trip through
    // the blocking pool costs two thread wake-ups. A single-threaded
    // runtime (tests) cannot do that, so it uses the pool.
    if tokio::runtime::Handle::current().runtime_flavor()
        == tokio::runtime::RuntimeFlavor::MultiThread
    {
        return tokio::task::block_in_place(|| f(cairn));
    }
    let cairn = cairn.clone();
    tokio::task::spawn_blocking(move || f(&cairn))
        .await
        .map_err(|e| cairn_core::Error::storage(format!("task failed: {e}")))?
}

/// Whether the HTTP request of `ext` carries [`ReadOnly`].
fn read_only(ext: &Extensions) -> bool {
    ext.get::<http::request::Parts>()
        .is_some_and(|parts| parts.extensions.get::<ReadOnly>().is_some())
}

/// Cairn's MCP handler. Clone it per session ([`CairnMcp::for_session`]):
/// the engine is shared, the project learnt from a client's roots is not.
#[derive(Clone)]
pub struct CairnMcp {
    cairn: Cairn,
    pub(crate) config: Arc<McpConfig>,
    /// `Some(project)` once the client's roots were read.
    roots_project: Arc<Mutex<Option<Option<String>>>>,
    /// The session's active slot (the `slot` tool).
    pub(crate) slot_session: Arc<Mutex<SlotSession>>,
    tool_router: ToolRouter<Self>,
}

/// What the `slot` tool remembers for one session.
#[derive(Debug, Clone, Default)]
pub(crate) struct SlotSession {
    /// The slot calls that name none use.
    pub active: Option<String>,
}

impl CairnMcp {
    /// A handler over `cairn`.
    pub fn new(cairn: Cairn, config: McpConfig) -> Self {
        CairnMcp {
            cairn,
            config: Arc::new(config),
            roots_project: Arc::new(Mutex::new(None)),
            slot_session: Arc::new(Mutex::new(SlotSession::default())),
            tool_router: {
                let mut router = Self::tool_router();
                crate::schema::compact(&mut router);
                router
            },
        }
    }

    /// A handler for a new session: same engine and configuration, its own
    /// roots-derived project.
    pub fn for_session(&self) -> Self {
        CairnMcp {
            roots_project: Arc::new(Mutex::new(None)),
            slot_session: Arc::new(Mutex::new(SlotSession::default())),
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

    /// Who a call acts for: the request's tenant (HTTP with
    /// authentication) or the configured one, and the session's project.
    pub fn caller(&self, ext: &Extensions) -> Caller {
        let caller = match ext
            .get::<http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<RequestCaller>())
        {
            Some(who) => Caller::new(who.tenant.clone()).with_actor(who.actor.clone()),
            None => Caller::new(self.config.tenant.clone()),
        };
        let granted = ext
            .get::<http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<RequestProject>())
            .map(|p| p.0.clone());
        let roots = self
            .roots_project
            .lock()
            .map(|g| g.clone())
            .unwrap_or_default();
        match (roots, granted) {
            (None, Some(project)) => caller.with_project(Some(project)),
            _ => caller.with_project(self.session_project()),
        }
    }

    /// Whether a call of tool `name` with `arguments` writes to the store,
    /// for rate limits (REST counts the same operations as writes): a
    /// tool without `read_only_hint` writes, except the `slot` tool's
    /// reading actions. An unknown tool writes nothing.
    pub fn call_writes(
        name: &str,
        arguments: Option<&serde_json::Map<String, serde_json::Value>>,
    ) -> bool {
        static WRITERS: std::sync::LazyLock<Vec<String>> = std::sync::LazyLock::new(|| {
            CairnMcp::tool_router()
                .list_all()
                .into_iter()
                .filter(|t| t.annotations.as_ref().and_then(|a| a.read_only_hint) != Some(true))
                .map(|t| t.name.to_string())
                .collect()
        });
        if name == "slot" {
            let action = arguments
                .and_then(|a| a.get("action"))
                .and_then(|a| a.as_str())
                .map(|a| a.trim().to_ascii_lowercase());
            return crate::slots::WRITING_ACTIONS.contains(&action.as_deref().unwrap_or(""));
        }
        WRITERS.iter().any(|w| w == name)
    }

    /// Whether the tool `name` only reads (its `read_only_hint`).
    fn tool_reads_only(&self, name: &str) -> bool {
        self.tool_router
            .list_all()
            .iter()
            .find(|t| t.name == name)
            .and_then(|t| t.annotations.as_ref())
            .and_then(|a| a.read_only_hint)
            .unwrap_or(false)
    }

    /// Run `f` for the caller of `ext` on the engine, off the async
    /// workers (the engine is synchronous).
    pub(crate) async fn call<T, F>(&self, ext: &Extensions, f: F) -> cairn_core::Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&Cairn, &Caller) -> cairn_core::Result<T> + Send + 'static,
    {
        let caller = self.caller(ext);
        on_engine(&self.cairn, move |c| f(c, &caller)).await
    }

    /// The `memory-block` prompt: [`api::prompt`] with the arguments given.
    async fn memory_block(
        &self,
        request: GetPromptRequestParams,
        ext: &Extensions,
    ) -> Result<GetPromptResponse, ErrorData> {
        let args = request.arguments.unwrap_or_default();
        let arg = |k: &str| {
            args.get(k)
                .and_then(|v| match v {
                    serde_json::Value::String(s) => Some(s.clone()),
                    serde_json::Value::Number(n) => Some(n.to_string()),
                    _ => None,
                })
                .filter(|s| !s.trim().is_empty())
        };
        let query = arg("query").ok_or_else(|| {
            ErrorData::invalid_params(
                format!("the `{MEMORY_BLOCK_PROMPT}` prompt needs a query"),
                None,
            )
        })?;
        let budget = arg("budget")
            .map(|b| {
                b.trim().parse::<usize>().map_err(|_| {
                    ErrorData::invalid_params(
                        format!("budget must be a number of tokens, got {b:?}"),
                        None,
                    )
                })
            })
            .transpose()?;
        let input = api::PromptInput {
            query,
            project: arg("project"),
            budget,
            ..Default::default()
        };
        let window = self
            .call(ext, move |c, caller| api::prompt(c, caller, input))
            .await
            .map_err(resource_error)?;
        Ok(GetPromptResult::new(vec![PromptMessage::new_text(
            Role::User,
            window.text.clone(),
        )])
        .with_description(format!(
            "{} memories, {} of {} tokens",
            window.items.len(),
            window.total_tokens,
            window.budget
        ))
        .into())
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
        let paths: Vec<_> = roots
            .roots
            .iter()
            .filter_map(|r| path_of_file_uri(&r.uri))
            .collect();
        let project = paths.iter().find_map(|p| detect_project(p)).map(|d| d.name);
        if let Some((slot, _)) = paths.iter().find_map(|p| detect_slot(p)) {
            let mut session = self.slot_session.lock().unwrap_or_else(|e| e.into_inner());
            session.active.get_or_insert(slot);
        }
        tracing::info!(?project, "project from the client's roots");
        if let Ok(mut g) = self.roots_project.lock() {
            // Roots without a project leave the configured default in place.
            if project.is_some() {
                *g = Some(project);
            }
        }
    }
}

/// URI of the session-start context resource.
pub const CONTEXT_URI: &str = "cairn://context";
const CONTEXT_PREFIX: &str = "cairn://context/";
const MEMORY_PREFIX: &str = "cairn://memory/";
const SLOT_PREFIX: &str = "cairn://slot/";
/// A slot resource's extensions, types and descriptions.
const SLOT_FORMATS: [(&str, &str, &str); 3] = [
    ("md", "text/markdown", "Markdown"),
    ("txt", "text/plain", "plain text"),
    ("json", "application/json", "JSON"),
];
const SESSION_PREFIX: &str = "cairn://session/";
const WORKING_SUFFIX: &str = "/working-memory";

/// A resource read's error as a JSON-RPC error, by kind.
/// Annotations saying when a resource last changed (RFC 3339).
fn modified(at: &str) -> Annotations {
    let mut a = Annotations::default();
    a.last_modified = Some(at.to_string());
    a
}

fn resource_error(e: cairn_core::Error) -> ErrorData {
    match e.kind() {
        ErrorKind::NotFound => ErrorData::resource_not_found(e.to_string(), None),
        ErrorKind::InvalidInput
        | ErrorKind::Ambiguous
        | ErrorKind::Conflict
        | ErrorKind::TooLarge
        | ErrorKind::Unauthenticated
        | ErrorKind::Forbidden => ErrorData::invalid_params(e.to_string(), None),
        ErrorKind::Unavailable | ErrorKind::Internal => {
            ErrorData::internal_error(e.to_string(), None)
        }
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
                .enable_completions()
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
        if read_only(&context.extensions) && !self.tool_reads_only(&request.name) {
            return Err(ErrorData::invalid_request(
                format!(
                    "forbidden: this API key may only read; `{}` writes (use a key with the write role)",
                    request.name
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
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let mut resources = vec![Resource::new(CONTEXT_URI, "context")
            .with_title("Session-start context")
            .with_description(
                "What to read at the start of a session: rules, recent, frequent and stale memories of the session's project and global ones, as Markdown.",
            )
            .with_mime_type("text/markdown")];
        let stats = self
            .call(&context.extensions, api::stats)
            .await
            .map_err(resource_error)?;
        for (project, _) in stats.by_project {
            if project != api::GLOBAL_LABEL {
                let p = project;
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
        let slots = self
            .call(&context.extensions, |c, caller| {
                api::slot_list(c, caller, Default::default())
            })
            .await
            .map_err(resource_error)?;
        for s in slots {
            for (ext, mime, what) in SLOT_FORMATS {
                resources.push(
                    Resource::new(
                        format!("{SLOT_PREFIX}{}.{ext}", s.name),
                        format!("{}.{ext}", s.name),
                    )
                    .with_description(format!(
                        "Memory slot: {} ({what}); {} entries, updated {}, tags [{}], group {}",
                        s.name,
                        s.entries,
                        s.updated_at,
                        s.tags.join(", "),
                        s.group.as_deref().unwrap_or("-")
                    ))
                    .with_mime_type(mime)
                    .with_size(s.characters as u64)
                    .with_annotations(modified(&s.updated_at)),
                );
            }
        }
        Ok(ListResourcesResult::with_all_items(resources))
    }

    /// Complete a resource template's argument: slot names for
    /// `cairn://slot/{name}.…`, project names for
    /// `cairn://context/{project}`, those starting with what is typed.
    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let Reference::Resource(template) = &request.r#ref else {
            return Ok(CompleteResult::new(CompletionInfo::default()));
        };
        let typed = request.argument.value.to_lowercase();
        let names: Vec<String> = match (template.uri.as_str(), request.argument.name.as_str()) {
            (uri, "name") if uri.starts_with(SLOT_PREFIX) => self
                .call(&context.extensions, |c, caller| {
                    // Archived slots too: their resources read as well.
                    let every = api::SlotListInput {
                        include_archived: true,
                        ..Default::default()
                    };
                    api::slot_names(c, caller, every)
                })
                .await
                .map_err(resource_error)?,
            ("cairn://context/{project}", "project") => self
                .call(&context.extensions, api::stats)
                .await
                .map_err(resource_error)?
                .by_project
                .into_iter()
                .map(|(p, _)| p)
                .filter(|p| p != api::GLOBAL_LABEL)
                .collect(),
            _ => Vec::new(),
        };
        let mut values: Vec<String> = names
            .into_iter()
            .filter(|n| n.to_lowercase().starts_with(&typed))
            .collect();
        let total = values.len();
        values.truncate(CompletionInfo::MAX_VALUES);
        let info = CompletionInfo::with_pagination(
            values,
            u32::try_from(total).ok(),
            total > CompletionInfo::MAX_VALUES,
        )
        .map_err(|e| ErrorData::internal_error(e, None))?;
        Ok(CompleteResult::new(info))
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
            ResourceTemplate::new("cairn://slot/{name}.md", "slot-markdown")
                .with_title("A memory slot as Markdown")
                .with_description("A slot's entries in order, as memcord's Markdown export.")
                .with_mime_type("text/markdown"),
            ResourceTemplate::new("cairn://slot/{name}.txt", "slot-text")
                .with_title("A memory slot as plain text")
                .with_description("A slot's entries in order, as memcord's plain-text export.")
                .with_mime_type("text/plain"),
            ResourceTemplate::new("cairn://slot/{name}.json", "slot-json")
                .with_title("A memory slot as JSON")
                .with_description("A slot with every field and entry, as JSON.")
                .with_mime_type("application/json"),
            ResourceTemplate::new("cairn://memory/{id}", "memory")
                .with_title("One memory")
                .with_description("One memory by id or unique id prefix, as JSON.")
                .with_mime_type("application/json"),
            ResourceTemplate::new("cairn://session/{id}/working-memory", "working-memory")
                .with_title("Working memory of a conversation session")
                .with_description(
                    "The rules to follow and the session's latest messages (up to 4,096 tokens), as Markdown.",
                )
                .with_mime_type("text/markdown"),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
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
                .call(&context.extensions, |c, caller| {
                    api::context(c, caller, ContextInput::default())
                })
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
            let input = ContextInput {
                project: Some(project),
                ..Default::default()
            };
            let pack = self
                .call(&context.extensions, move |c, caller| {
                    api::context(c, caller, input)
                })
                .await
                .map_err(resource_error)?;
            return markdown(pack.markdown, &uri);
        }
        if let Some(session) = uri
            .strip_prefix(SESSION_PREFIX)
            .and_then(|rest| rest.strip_suffix(WORKING_SUFFIX))
        {
            let session = percent_decode(session);
            let window = self
                .call(&context.extensions, move |c, caller| {
                    api::working_memory(c, caller, &session)
                })
                .await
                .map_err(resource_error)?;
            return markdown(window.text, &uri);
        }
        if let Some(file) = uri.strip_prefix(SLOT_PREFIX) {
            let (name, ext) = file.rsplit_once('.').ok_or_else(|| {
                ErrorData::invalid_params(
                    "a slot resource is cairn://slot/{name}.md, .txt or .json",
                    None,
                )
            })?;
            let (name, ext) = (percent_decode(name), ext.to_string());
            let mime = SLOT_FORMATS
                .iter()
                .find(|(e, _, _)| *e == ext)
                .map(|(_, m, _)| *m)
                .ok_or_else(|| {
                    ErrorData::invalid_params(
                        format!("unknown slot format `.{ext}`: use .md, .txt or .json"),
                        None,
                    )
                })?;
            let text = self
                .call(&context.extensions, move |c, caller| {
                    api::slot_export(c, caller, &name, ext.parse()?)
                })
                .await
                .map_err(resource_error)?;
            return Ok(ReadResourceResult::new(vec![
                ResourceContents::text(text, uri).with_mime_type(mime)
            ])
            .into());
        }
        if let Some(id) = uri.strip_prefix(MEMORY_PREFIX) {
            let id = id.to_string();
            let out = self
                .call(&context.extensions, move |c, caller| {
                    let m = c.peek(&caller.tenant, &id)?;
                    MemoryView::of(c, &caller.tenant, &m)
                })
                .await
                .map_err(resource_error)?;
            let json = serde_json::to_string_pretty(&out)
                .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
            return Ok(ReadResourceResult::new(vec![
                ResourceContents::text(json, uri).with_mime_type("application/json")
            ])
            .into());
        }
        Err(ErrorData::resource_not_found(
            format!(
                "unknown resource `{uri}`; Cairn serves {CONTEXT_URI}, cairn://context/{{project}}, cairn://memory/{{id}} and cairn://session/{{id}}/working-memory"
            ),
            None,
        ))
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(vec![
            Prompt::new(
                PROTOCOL_PROMPT,
                Some(
                    "The memory protocol: when to recall before acting, what is worth remembering, when to supersede or forget, how to write memories. Load it at session start.",
                ),
                Some(vec![PromptArgument::new("project")
                    .with_description("The project the session works on (optional).")
                    .with_required(false)]),
            ),
            Prompt::new(
                MEMORY_BLOCK_PROMPT,
                Some(
                    "The memories a prompt about a query should carry, as a <memory> block of [Tier] lines within a token budget: rules and procedures first, then by relevance.",
                ),
                Some(vec![
                    PromptArgument::new("query")
                        .with_description("What the prompt is about.")
                        .with_required(true),
                    PromptArgument::new("project")
                        .with_description("The project whose memories count, with global ones (default: the session's).")
                        .with_required(false),
                    PromptArgument::new("budget")
                        .with_description("Most tokens of the block (default 1000).")
                        .with_required(false),
                ]),
            ),
        ]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if request.name == MEMORY_BLOCK_PROMPT {
            return self.memory_block(request, &context.extensions).await;
        }
        if request.name != PROTOCOL_PROMPT {
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown prompt `{}`; the prompts are `{PROTOCOL_PROMPT}` and `{MEMORY_BLOCK_PROMPT}`",
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
