//! `/v1/memories`: remember, list, get, update, tag many, forget,
//! history, the supersede chain, revert and nearest neighbours;
//! `/v1/activity`.

use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use cairn_core::api::{
    self, ActivityInput, ActivityOutput, ChainOutput, ForgetInput, ForgetOutput, HistoryOutput,
    IngestInput, IngestOutput, ListInput, ListOutput, MemoryView, RememberInput, RevertInput,
    RevertOutput, SimilarInput, SimilarOutput, TagInput, TagOutput, UpdateInput, UpdateOutput,
};
use cairn_core::engine::WriteStatus;

use super::{run, JsonBody, QueryParams, Who};
use crate::{ApiError, AppState};

/// `POST /v1/memories`: 201 with `Location` for a new memory, 200 when it
/// merged into a near-identical one (the answer says which, how similar,
/// against which threshold).
pub(super) async fn create(
    State(state): State<AppState>,
    who: Who,
    JsonBody(input): JsonBody<RememberInput>,
) -> Result<Response, ApiError> {
    let out = run(&state, &who, move |c, caller| {
        api::remember(c, caller, input)
    })
    .await?;
    Ok(match out.status {
        WriteStatus::Created => (
            StatusCode::CREATED,
            [(header::LOCATION, format!("/v1/memories/{}", out.id))],
            Json(out),
        )
            .into_response(),
        WriteStatus::Deduplicated => Json(out).into_response(),
        // Kept, not yet stored: accepted for later processing.
        WriteStatus::Pending => (StatusCode::ACCEPTED, Json(out)).into_response(),
    })
}

/// `POST /v1/ingest`: raw text in, a receipt of every chunk out.
pub(super) async fn ingest(
    State(state): State<AppState>,
    who: Who,
    JsonBody(input): JsonBody<IngestInput>,
) -> Result<Json<IngestOutput>, ApiError> {
    run(&state, &who, move |c, caller| {
        api::ingest(c, caller, input, &mut |_, _| ())
    })
    .await
    .map(Json)
}

/// `GET /v1/memories?…`: a page, the total and `next_cursor`.
pub(super) async fn list(
    State(state): State<AppState>,
    who: Who,
    QueryParams(input): QueryParams<ListInput>,
) -> Result<Json<ListOutput>, ApiError> {
    run(&state, &who, move |c, caller| api::list(c, caller, input))
        .await
        .map(Json)
}

/// `GET /v1/memories/{id}` (id or unique prefix); counts as an access.
pub(super) async fn get(
    State(state): State<AppState>,
    who: Who,
    Path(id): Path<String>,
) -> Result<Json<MemoryView>, ApiError> {
    run(&state, &who, move |c, caller| api::get(c, caller, &id))
        .await
        .map(Json)
}

/// `PATCH /v1/memories/{id}`: change what the body gives.
pub(super) async fn update(
    State(state): State<AppState>,
    who: Who,
    Path(id): Path<String>,
    JsonBody(input): JsonBody<UpdateInput>,
) -> Result<Json<UpdateOutput>, ApiError> {
    run(&state, &who, move |c, caller| {
        api::update(c, caller, &id, input)
    })
    .await
    .map(Json)
}

/// `PATCH /v1/memories`: add and remove tags on many memories in one
/// transaction.
pub(super) async fn tag(
    State(state): State<AppState>,
    who: Who,
    JsonBody(input): JsonBody<TagInput>,
) -> Result<Json<TagOutput>, ApiError> {
    run(&state, &who, move |c, caller| api::tag(c, caller, input))
        .await
        .map(Json)
}

/// `GET /v1/memories/{id}/chain`: the whole supersede chain, oldest
/// first.
pub(super) async fn chain(
    State(state): State<AppState>,
    who: Who,
    Path(id): Path<String>,
) -> Result<Json<ChainOutput>, ApiError> {
    run(&state, &who, move |c, caller| api::chain(c, caller, &id))
        .await
        .map(Json)
}

/// `GET /v1/memories/{id}/history`.
pub(super) async fn history(
    State(state): State<AppState>,
    who: Who,
    Path(id): Path<String>,
) -> Result<Json<HistoryOutput>, ApiError> {
    run(&state, &who, move |c, caller| api::history(c, caller, &id))
        .await
        .map(Json)
}

/// `GET /v1/memories/{id}/similar?limit=…`: the nearest memories by
/// meaning.
pub(super) async fn similar(
    State(state): State<AppState>,
    who: Who,
    Path(id): Path<String>,
    QueryParams(input): QueryParams<SimilarInput>,
) -> Result<Json<SimilarOutput>, ApiError> {
    run(&state, &who, move |c, caller| {
        api::similar(c, caller, &id, input)
    })
    .await
    .map(Json)
}

/// `GET /v1/activity?limit=…`: the latest changes and deletions.
pub(super) async fn activity(
    State(state): State<AppState>,
    who: Who,
    QueryParams(input): QueryParams<ActivityInput>,
) -> Result<Json<ActivityOutput>, ApiError> {
    run(&state, &who, move |c, caller| {
        api::activity(c, caller, input)
    })
    .await
    .map(Json)
}

/// `POST /v1/memories/{id}/revert`: `{"version": N}`.
pub(super) async fn revert(
    State(state): State<AppState>,
    who: Who,
    Path(id): Path<String>,
    JsonBody(input): JsonBody<RevertInput>,
) -> Result<Json<RevertOutput>, ApiError> {
    run(&state, &who, move |c, caller| {
        api::revert(c, caller, &id, input)
    })
    .await
    .map(Json)
}

/// `DELETE /v1/memories/{id}`.
pub(super) async fn forget_one(
    State(state): State<AppState>,
    who: Who,
    Path(id): Path<String>,
) -> Result<Json<ForgetOutput>, ApiError> {
    let input = ForgetInput {
        ids: vec![id],
        ..ForgetInput::default()
    };
    run(&state, &who, move |c, caller| api::forget(c, caller, input))
        .await
        .map(Json)
}

/// `DELETE /v1/memories?…`: every memory of a selection; without
/// `confirm=true` only counts them (`would_forget`).
pub(super) async fn forget_matching(
    State(state): State<AppState>,
    who: Who,
    QueryParams(input): QueryParams<ForgetInput>,
) -> Result<Json<ForgetOutput>, ApiError> {
    run(&state, &who, move |c, caller| api::forget(c, caller, input))
        .await
        .map(Json)
}
