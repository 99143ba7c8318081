//! Recall, the session-start context, a prompt's memory block and counts.

use axum::extract::State;
use axum::Json;
use cairn_core::api::{self, ContextInput, PromptInput, RecallInput, RecallOutput, StatsOutput};
use cairn_core::context::ContextPack;
use cairn_core::window::Window;

use super::{run, JsonBody, Who};
use crate::{ApiError, AppState};

/// `POST /v1/recall`: memories for a query, best first, within a budget.
pub(super) async fn recall(
    State(state): State<AppState>,
    who: Who,
    JsonBody(input): JsonBody<RecallInput>,
) -> Result<Json<RecallOutput>, ApiError> {
    run(&state, &who, move |c, caller| api::recall(c, caller, input))
        .await
        .map(Json)
}

/// `POST /v1/context`: what to load at the start of a session.
pub(super) async fn context(
    State(state): State<AppState>,
    who: Who,
    JsonBody(input): JsonBody<ContextInput>,
) -> Result<Json<ContextPack>, ApiError> {
    run(&state, &who, move |c, caller| {
        api::context(c, caller, input)
    })
    .await
    .map(Json)
}

/// `POST /v1/prompt`: the memories a prompt about a query should carry,
/// within a token budget.
pub(super) async fn prompt(
    State(state): State<AppState>,
    who: Who,
    JsonBody(input): JsonBody<PromptInput>,
) -> Result<Json<Window>, ApiError> {
    run(&state, &who, move |c, caller| api::prompt(c, caller, input))
        .await
        .map(Json)
}

/// `GET /v1/stats`: counts of the tenant's memories.
pub(super) async fn stats(
    State(state): State<AppState>,
    who: Who,
    super::QueryParams(_): super::QueryParams<NoParams>,
) -> Result<Json<StatsOutput>, ApiError> {
    run(&state, &who, api::stats).await.map(Json)
}

/// A route that takes no parameters (and refuses any).
#[derive(Debug, Default, serde::Deserialize, schemars::JsonSchema)]
pub(super) struct NoParams {}
