//! `/v1/conversations`, `/v1/messages` and `/v1/sessions`: transcripts
//! imported, messages logged, conversations listed and shown with their
//! topics, token totals, and a session's context window and working
//! memory. Searching them is `POST /v1/recall` with a session,
//! conversation or topic scope and a match type.

use axum::extract::{Path, Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::Json;
use cairn_core::api::{
    self, ConversationStats, ConversationTree, ConversationView, LogInput, LogOutput, WindowInput,
};
use cairn_core::window::Window;

use super::transfer::import_lines;
use super::{run, JsonBody, QueryParams, Who};
use crate::{ApiError, AppState};
use cairn_core::engine::ImportProgress;

/// How a transcript import goes.
#[derive(Debug, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub(super) struct TranscriptInput {
    /// The project of the messages (default: global).
    pub project: Option<String>,
    /// Refuse the whole body, writing nothing, if any line is bad
    /// (default: report bad lines and import the others).
    pub strict: bool,
    /// Answer JSON Lines as the import goes: `{"progress": {"imported",
    /// "bytes"}}` about once a second, then `{"report": …}` or
    /// `{"error": …}` (default: one report when it is done).
    pub progress: bool,
}

/// How to count tokens.
#[derive(Debug, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub(super) struct TokenizerInput {
    /// `cl100k_base` (default) or `o200k_base`.
    pub tokenizer: Option<String>,
}

/// `POST /v1/conversations?project=…&strict=…&progress=…`: the body is a
/// transcript, JSON Lines of one message each (`conversation`, `speaker`
/// or `role`, `text`, optional `session`, `at`, `id`, `metadata`), logged
/// in order. Ids already stored are skipped, so an import cut off can be
/// sent again.
pub(super) async fn import(
    State(state): State<AppState>,
    who: Who,
    QueryParams(input): QueryParams<TranscriptInput>,
    request: Request,
) -> Result<Response, ApiError> {
    let caller = who.caller();
    let cairn = state.cairn.clone();
    let TranscriptInput {
        project,
        strict,
        progress,
    } = input;
    import_lines(&state, request, progress, move |reader, written| {
        api::import_transcript(&cairn, &caller, project, reader, strict, &mut |done| {
            written(ImportProgress { done, errors: &[] })
        })
    })
    .await
}

/// `GET /v1/conversations`: the caller's conversations, oldest first.
pub(super) async fn list(
    State(state): State<AppState>,
    who: Who,
    QueryParams(_): QueryParams<super::search::NoParams>,
) -> Result<Json<Vec<ConversationView>>, ApiError> {
    run(&state, &who, api::list_conversations).await.map(Json)
}

/// `GET /v1/conversations/{id}`: a conversation with its topics and their
/// messages.
pub(super) async fn show(
    State(state): State<AppState>,
    who: Who,
    Path(id): Path<String>,
) -> Result<Json<ConversationTree>, ApiError> {
    run(&state, &who, move |c, caller| {
        api::show_conversation(c, caller, &id)
    })
    .await
    .map(Json)
}

/// `GET /v1/conversations/{id}/stats?tokenizer=…`: exact token totals of
/// the conversation, its sessions and its topics.
pub(super) async fn stats(
    State(state): State<AppState>,
    who: Who,
    Path(id): Path<String>,
    QueryParams(input): QueryParams<TokenizerInput>,
) -> Result<Json<ConversationStats>, ApiError> {
    run(&state, &who, move |c, caller| {
        api::conversation_stats(c, caller, Some(&id), input.tokenizer.as_deref())
    })
    .await
    .map(Json)
}

/// `POST /v1/messages`: log messages (an exchange) in order; 201 with where
/// each went (session, conversation, topic, whether it started a topic,
/// its importance), or 202 when some are kept pending (the embedding
/// endpoint failed: they are logged when it answers).
pub(super) async fn log(
    State(state): State<AppState>,
    who: Who,
    JsonBody(input): JsonBody<LogInput>,
) -> Result<(StatusCode, Json<LogOutput>), ApiError> {
    let out = run(&state, &who, move |c, caller| api::log(c, caller, input)).await?;
    let status = match out.pending.is_empty() {
        true => StatusCode::CREATED,
        false => StatusCode::ACCEPTED,
    };
    Ok((status, Json(out)))
}

/// `POST /v1/sessions/{id}/window`: the context an LLM call of the session
/// should get for a new message, within a token budget. A `session` in the
/// body, if given, must be the path's.
pub(super) async fn window(
    State(state): State<AppState>,
    who: Who,
    Path(id): Path<String>,
    JsonBody(mut input): JsonBody<WindowInput>,
) -> Result<Json<Window>, ApiError> {
    if !input.session.is_empty() && input.session != id {
        return Err(cairn_core::Error::invalid(format!(
            "the body names session `{}` but the path names `{id}`; leave `session` out of the body",
            input.session
        ))
        .into());
    }
    input.session = id;
    run(&state, &who, move |c, caller| api::window(c, caller, input))
        .await
        .map(Json)
}

/// `GET /v1/sessions/{id}/working-memory`: the rules to follow and the
/// session's latest messages.
pub(super) async fn working_memory(
    State(state): State<AppState>,
    who: Who,
    Path(id): Path<String>,
) -> Result<Json<Window>, ApiError> {
    run(&state, &who, move |c, caller| {
        api::working_memory(c, caller, &id)
    })
    .await
    .map(Json)
}
