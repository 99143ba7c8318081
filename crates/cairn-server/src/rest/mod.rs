//! The REST API under `/v1`: JSON over HTTP, one handler per operation of
//! `cairn_core::api`, nothing more. Every handler takes the caller the
//! authentication put into the request ([`crate::auth`]), parses its input
//! ([`JsonBody`], [`QueryParams`]), runs the operation on the engine and
//! answers its output; every error has the one shape of [`crate::error`].

mod admin;
mod conversations;
mod input;
mod keys;
mod memories;
pub mod openapi;
mod search;
mod slots;
pub(crate) mod transfer;

use axum::extract::DefaultBodyLimit;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::Method;
use axum::http::StatusCode;
use axum::routing::{delete, get, patch, post, put, MethodRouter};
use axum::Router;
use cairn_core::api::{
    ActivityInput, ActivityOutput, Authenticated, Caller, ChainOutput, ConsolidateInput,
    ConsolidateOutput, ContextInput, ConversationImportReport, ConversationStats, ConversationTree,
    ConversationView, CreateKeyInput, CreatedKey, ForgetInput, ForgetOutput, HistoryOutput,
    IngestInput, IngestOutput, KeyView, ListInput, ListOutput, LogInput, LogOutput, MemoryView,
    PromptInput, ProvidersOutput, RecallInput, RecallOutput, RememberInput, RememberOutput,
    RevertInput, RevertOutput, SaveOutput, SettingsInput, SettingsView, SimilarInput,
    SimilarOutput, SlotInput, SlotListInput, SlotRead, SlotSearchInput, SlotView, StatsOutput,
    TagInput, TagOutput, UpdateInput, UpdateOutput, WindowInput, ZeroInput, ZeroOutput,
};
use cairn_core::context::ContextPack;
use cairn_core::engine::ImportReport;
use cairn_core::keys::Role;
use cairn_core::window::Window;
use cairn_core::{Cairn, Result};
use schemars::{JsonSchema, Schema, SchemaGenerator};

use crate::{ApiError, AppState};

pub use input::{JsonBody, QueryParams};

/// The routes under `/v1`: every [`Operation`].
pub fn routes() -> Router<AppState> {
    operations()
        .into_iter()
        .fold(Router::new(), |router, op| {
            router.route(op.path, op.handler)
        })
        .fallback(no_route)
        .method_not_allowed_fallback(method_not_allowed)
}

/// How an input or output type's JSON schema is made.
pub type SchemaOf = fn(&mut SchemaGenerator) -> Schema;

fn schema<T: JsonSchema>(g: &mut SchemaGenerator) -> Schema {
    g.subschema_for::<T>()
}

/// One operation of the REST API: its route, its handler and what the
/// OpenAPI document says of it, written once ([`openapi`] reads the same
/// list the router is built from).
pub struct Operation {
    /// The HTTP method.
    pub method: Method,
    /// The path under `/v1`.
    pub path: &'static str,
    /// The OpenAPI `operationId`.
    pub id: &'static str,
    /// One line for the reference.
    pub summary: &'static str,
    /// The role a key needs.
    pub role: Role,
    /// The JSON body, if it takes one.
    pub body: Option<SchemaOf>,
    /// The query parameters, if it takes any.
    pub query: Option<SchemaOf>,
    /// The success status and the answer's schema.
    pub ok: (StatusCode, SchemaOf),
    /// The handler.
    pub handler: MethodRouter<AppState>,
}

/// Every operation of the REST API.
///
/// A route table, one entry per operation, and longer than the 150 lines
/// a function is otherwise kept under: split, the API would have no one
/// place to read it whole.
pub fn operations() -> Vec<Operation> {
    use Method as M;
    let op = |method, path, id, summary, role, handler| Operation {
        method,
        path,
        id,
        summary,
        role,
        body: None,
        query: None,
        ok: (StatusCode::OK, schema::<()>),
        handler,
    };
    vec![
        Operation {
            body: Some(schema::<RememberInput>),
            ok: (StatusCode::CREATED, schema::<RememberOutput>),
            ..op(
                M::POST,
                "/memories",
                "remember",
                "Remember a memory: 201 when created, 200 when merged into a near-duplicate",
                Role::Write,
                post(memories::create),
            )
        },
        Operation {
            query: Some(schema::<ListInput>),
            ok: (StatusCode::OK, schema::<ListOutput>),
            ..op(
                M::GET,
                "/memories",
                "list",
                "A page of memories matching the filters, with next_cursor",
                Role::Read,
                get(memories::list),
            )
        },
        Operation {
            query: Some(schema::<ForgetInput>),
            ok: (StatusCode::OK, schema::<ForgetOutput>),
            ..op(
                M::DELETE,
                "/memories",
                "forget_matching",
                "Forget every memory of a selection (a dry run unless confirm=true)",
                Role::Write,
                delete(memories::forget_matching),
            )
        },
        Operation {
            body: Some(schema::<TagInput>),
            ok: (StatusCode::OK, schema::<TagOutput>),
            ..op(
                M::PATCH,
                "/memories",
                "tag",
                "Add and remove tags on many memories at once (one transaction; one bad id changes nothing)",
                Role::Write,
                patch(memories::tag),
            )
        },
        Operation {
            ok: (StatusCode::OK, schema::<MemoryView>),
            ..op(
                M::GET,
                "/memories/{id}",
                "get",
                "One memory by id or unique prefix (counts as an access)",
                Role::Read,
                get(memories::get),
            )
        },
        Operation {
            body: Some(schema::<UpdateInput>),
            ok: (StatusCode::OK, schema::<UpdateOutput>),
            ..op(
                M::PATCH,
                "/memories/{id}",
                "update",
                "Change a memory's content or fields",
                Role::Write,
                patch(memories::update),
            )
        },
        Operation {
            ok: (StatusCode::OK, schema::<ForgetOutput>),
            ..op(
                M::DELETE,
                "/memories/{id}",
                "forget",
                "Forget one memory",
                Role::Write,
                delete(memories::forget_one),
            )
        },
        Operation {
            ok: (StatusCode::OK, schema::<HistoryOutput>),
            ..op(
                M::GET,
                "/memories/{id}/history",
                "history",
                "Every version of a memory (who, when, why), or a forgotten one's deletion receipt",
                Role::Read,
                get(memories::history),
            )
        },
        Operation {
            ok: (StatusCode::OK, schema::<ChainOutput>),
            ..op(
                M::GET,
                "/memories/{id}/chain",
                "chain",
                "A memory's whole supersede chain, oldest first, at most 50 each way",
                Role::Read,
                get(memories::chain),
            )
        },
        Operation {
            query: Some(schema::<SimilarInput>),
            ok: (StatusCode::OK, schema::<SimilarOutput>),
            ..op(
                M::GET,
                "/memories/{id}/similar",
                "similar",
                "A memory's nearest memories by meaning, with their similarity and whether they may contradict it (not counted as an access)",
                Role::Read,
                get(memories::similar),
            )
        },
        Operation {
            query: Some(schema::<ActivityInput>),
            ok: (StatusCode::OK, schema::<ActivityOutput>),
            ..op(
                M::GET,
                "/activity",
                "activity",
                "The latest changes and deletions of the tenant's memories (who, when, what), newest first",
                Role::Read,
                get(memories::activity),
            )
        },
        Operation {
            body: Some(schema::<RevertInput>),
            ok: (StatusCode::OK, schema::<RevertOutput>),
            ..op(
                M::POST,
                "/memories/{id}/revert",
                "revert",
                "Restore an earlier version of a memory as a new version",
                Role::Write,
                post(memories::revert),
            )
        },
        Operation {
            body: Some(schema::<IngestInput>),
            ok: (StatusCode::OK, schema::<IngestOutput>),
            ..op(
                M::POST,
                "/ingest",
                "ingest",
                "Turn raw text into memories: cleaned, redacted, chunked, scored, typed, stored or skipped; a receipt of every chunk (dry_run writes nothing)",
                Role::Write,
                post(memories::ingest),
            )
        },
        Operation {
            body: Some(schema::<RecallInput>),
            ok: (StatusCode::OK, schema::<RecallOutput>),
            ..op(
                M::POST,
                "/recall",
                "recall",
                "Memories for a query, best first, within a token budget",
                Role::Read,
                post(search::recall),
            )
        },
        Operation {
            body: Some(schema::<ContextInput>),
            ok: (StatusCode::OK, schema::<ContextPack>),
            ..op(
                M::POST,
                "/context",
                "context",
                "The session-start context within a token budget",
                Role::Read,
                post(search::context),
            )
        },
        Operation {
            body: Some(schema::<PromptInput>),
            ok: (StatusCode::OK, schema::<Window>),
            ..op(
                M::POST,
                "/prompt",
                "prompt",
                "The memory block of a prompt about a query: rules and procedures first, then by relevance, within a token budget",
                Role::Read,
                post(search::prompt),
            )
        },
        Operation {
            ok: (StatusCode::OK, schema::<StatsOutput>),
            ..op(
                M::GET,
                "/stats",
                "stats",
                "Counts of the tenant's memories",
                Role::Read,
                get(search::stats),
            )
        },
        Operation {
            query: Some(schema::<transfer::ImportInput>),
            ok: (StatusCode::OK, schema::<ImportReport>),
            ..op(
                M::POST,
                "/import",
                "import",
                "Import JSON Lines (the body, streamed): counts and each bad line's problem; with progress=true, JSON Lines of progress ending in the report",
                Role::Write,
                post(transfer::import).layer(DefaultBodyLimit::disable()),
            )
        },
        Operation {
            query: Some(schema::<transfer::ExportInput>),
            ok: (StatusCode::OK, schema::<String>),
            ..op(
                M::GET,
                "/export",
                "export",
                "Every memory as JSON Lines (streamed), in id order",
                Role::Read,
                get(transfer::export),
            )
        },
        Operation {
            ok: (StatusCode::OK, schema::<Vec<ConversationView>>),
            ..op(
                M::GET,
                "/conversations",
                "list_conversations",
                "The caller's conversations, oldest first",
                Role::Read,
                get(conversations::list),
            )
        },
        Operation {
            query: Some(schema::<conversations::TranscriptInput>),
            ok: (StatusCode::OK, schema::<ConversationImportReport>),
            ..op(
                M::POST,
                "/conversations",
                "import_transcript",
                "Import a transcript (the body: JSON Lines, one message a line, streamed): counts, topics started and each bad line's problem",
                Role::Write,
                post(conversations::import).layer(DefaultBodyLimit::disable()),
            )
        },
        Operation {
            ok: (StatusCode::OK, schema::<ConversationTree>),
            ..op(
                M::GET,
                "/conversations/{id}",
                "show_conversation",
                "A conversation with its topics (title, summary, entities) and their messages",
                Role::Read,
                get(conversations::show),
            )
        },
        Operation {
            query: Some(schema::<conversations::TokenizerInput>),
            ok: (StatusCode::OK, schema::<ConversationStats>),
            ..op(
                M::GET,
                "/conversations/{id}/stats",
                "conversation_stats",
                "Exact token totals of a conversation, its sessions and its topics",
                Role::Read,
                get(conversations::stats),
            )
        },
        Operation {
            body: Some(schema::<LogInput>),
            ok: (StatusCode::CREATED, schema::<LogOutput>),
            ..op(
                M::POST,
                "/messages",
                "log_messages",
                "Log conversation messages in order: where each went and its importance (202 when some are kept pending for the embedding endpoint)",
                Role::Write,
                post(conversations::log),
            )
        },
        Operation {
            body: Some(schema::<WindowInput>),
            ok: (StatusCode::OK, schema::<Window>),
            ..op(
                M::POST,
                "/sessions/{id}/window",
                "window",
                "The context an LLM call of the session should get for a new message, within a token budget",
                Role::Read,
                post(conversations::window),
            )
        },
        Operation {
            ok: (StatusCode::OK, schema::<Window>),
            ..op(
                M::GET,
                "/sessions/{id}/working-memory",
                "working_memory",
                "The rules to follow and the session's latest messages",
                Role::Read,
                get(conversations::working_memory),
            )
        },
        Operation {
            query: Some(schema::<SlotListInput>),
            ok: (StatusCode::OK, schema::<Vec<SlotView>>),
            ..op(
                M::GET,
                "/slots",
                "list_slots",
                "The caller's slots (memcord), by priority then name, with their entries' counts",
                Role::Read,
                get(slots::list),
            )
        },
        Operation {
            body: Some(schema::<SlotInput>),
            ok: (StatusCode::OK, schema::<SlotView>),
            ..op(
                M::POST,
                "/slots",
                "set_slot",
                "Make a slot, or change its description, tags, group, priority or name",
                Role::Write,
                post(slots::set),
            )
        },
        Operation {
            body: Some(schema::<SlotSearchInput>),
            ok: (StatusCode::OK, schema::<RecallOutput>),
            ..op(
                M::POST,
                "/slot-search",
                "search_slots",
                "Search slots' entries (hybrid recall restricted to slots by name, group and tags), each result with the query's words it contains marked in a snippet",
                Role::Read,
                post(slots::search),
            )
        },
        Operation {
            query: Some(schema::<slots::ReadInput>),
            ok: (StatusCode::OK, schema::<SlotRead>),
            ..op(
                M::GET,
                "/slots/{name}",
                "read_slot",
                "A slot and a page of its entries, oldest first",
                Role::Read,
                get(slots::read),
            )
        },
        Operation {
            body: Some(schema::<slots::EntryInput>),
            ok: (StatusCode::CREATED, schema::<SaveOutput>),
            ..op(
                M::POST,
                "/slots/{name}/entries",
                "save_to_slot",
                "Append an entry (or, with progress, a summary: by the chat model when configured, else extractive) to a slot; refused in zero mode",
                Role::Write,
                post(slots::save),
            )
        },
        Operation {
            query: Some(schema::<slots::FormatInput>),
            ok: (StatusCode::OK, schema::<String>),
            ..op(
                M::GET,
                "/slots/{name}/export",
                "export_slot",
                "A slot as memcord's Markdown, plain text or JSON",
                Role::Read,
                get(slots::export),
            )
        },
        Operation {
            body: Some(schema::<slots::ArchiveInput>),
            ok: (StatusCode::OK, schema::<SlotView>),
            ..op(
                M::POST,
                "/slots/{name}/archive",
                "archive_slot",
                "Archive a slot: its entries leave default recall",
                Role::Write,
                post(slots::archive),
            )
        },
        Operation {
            ok: (StatusCode::OK, schema::<SlotView>),
            ..op(
                M::POST,
                "/slots/{name}/restore",
                "restore_slot",
                "Restore an archived slot into default recall, unchanged",
                Role::Write,
                post(slots::restore),
            )
        },
        Operation {
            body: Some(schema::<ZeroInput>),
            ok: (StatusCode::OK, schema::<ZeroOutput>),
            ..op(
                M::PUT,
                "/zero-mode",
                "zero_mode",
                "Zero mode on or off, for every slot or one: while on, every slot save is refused",
                Role::Write,
                put(slots::zero),
            )
        },
        Operation {
            body: Some(schema::<ConsolidateInput>),
            ok: (StatusCode::OK, schema::<ConsolidateOutput>),
            ..op(
                M::POST,
                "/consolidate",
                "consolidate",
                "Summarise the tenant's oldest episode groups (past keep, default 10) into recallable summaries; their episodes leave default recall (dry_run writes nothing)",
                Role::Admin,
                post(admin::consolidate),
            )
        },
        Operation {
            query: Some(schema::<admin::ProvidersInput>),
            ok: (StatusCode::OK, schema::<ProvidersOutput>),
            ..op(
                M::GET,
                "/providers",
                "providers",
                "The chat model and embedder in use; with check=true, whether each answers",
                Role::Admin,
                get(admin::providers),
            )
        },
        Operation {
            ok: (StatusCode::OK, schema::<SettingsView>),
            ..op(
                M::GET,
                "/settings",
                "settings",
                "The tenant's settings (redact_personal: whether e-mail addresses and phone numbers are redacted; conflicts: the conflict policy of writes that name none)",
                Role::Read,
                get(admin::settings),
            )
        },
        Operation {
            body: Some(schema::<SettingsInput>),
            ok: (StatusCode::OK, schema::<SettingsView>),
            ..op(
                M::PATCH,
                "/settings",
                "set_settings",
                "Change some of the tenant's settings; answers them all",
                Role::Admin,
                patch(admin::set_settings),
            )
        },
        Operation {
            body: Some(schema::<CreateKeyInput>),
            ok: (StatusCode::CREATED, schema::<CreatedKey>),
            ..op(
                M::POST,
                "/keys",
                "create_key",
                "Make an API key (shown once)",
                Role::Admin,
                post(keys::create),
            )
        },
        Operation {
            query: Some(schema::<keys::KeyListInput>),
            ok: (StatusCode::OK, schema::<Vec<KeyView>>),
            ..op(
                M::GET,
                "/keys",
                "list_keys",
                "API keys, oldest first (never their secrets)",
                Role::Admin,
                get(keys::list),
            )
        },
        Operation {
            ok: (StatusCode::OK, schema::<KeyView>),
            ..op(
                M::DELETE,
                "/keys/{id}",
                "revoke_key",
                "Revoke an API key",
                Role::Admin,
                delete(keys::revoke),
            )
        },
    ]
}

/// The caller of a request, as its authentication decided.
pub struct Who(pub Authenticated);

impl Who {
    /// The application layer's caller: the tenant, the key as actor, no
    /// default project.
    pub fn caller(&self) -> Caller {
        Caller::new(self.0.tenant.clone()).with_actor(self.0.key_id.clone())
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Who {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> std::result::Result<Self, ApiError> {
        parts
            .extensions
            .get::<Authenticated>()
            .cloned()
            .map(Who)
            .ok_or_else(|| {
                // The router always runs the authentication first.
                ApiError::from(cairn_core::Error::storage(
                    "a /v1 request reached its route without a caller",
                ))
            })
    }
}

/// Run `f` on the engine for `who`.
pub async fn run<T, F>(state: &AppState, who: &Who, f: F) -> std::result::Result<T, ApiError>
where
    T: Send + 'static,
    F: FnOnce(&Cairn, &Caller) -> Result<T> + Send + 'static,
{
    let caller = who.caller();
    Ok(cairn_mcp::on_engine(&state.cairn, move |c| f(c, &caller)).await?)
}

async fn no_route(uri: axum::http::Uri) -> ApiError {
    ApiError::request(
        StatusCode::NOT_FOUND,
        "no_route",
        format!(
            "no route {}; see /docs or docs/SERVER.md (/v1/memories, /v1/recall, /v1/context, /v1/stats, /v1/conversations, /v1/messages, /v1/sessions, /v1/slots, /v1/keys)",
            uri.path()
        ),
    )
}

async fn method_not_allowed(method: axum::http::Method, uri: axum::http::Uri) -> ApiError {
    ApiError::request(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        format!("{} does not answer {method}", uri.path()),
    )
}
