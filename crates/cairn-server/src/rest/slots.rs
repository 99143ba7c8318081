//! `/v1/slots`: memcord's slots — made, listed, searched (with matched
//! terms marked), read, saved to, exported, archived and restored; zero mode.

use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use cairn_core::api::{
    self, RecallOutput, SaveInput, SaveOutput, SlotInput, SlotListInput, SlotRead, SlotSearchInput,
    SlotView, ZeroInput, ZeroOutput,
};

use super::{run, JsonBody, QueryParams, Who};
use crate::{ApiError, AppState};

/// What to append to a slot.
#[derive(Debug, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub(super) struct EntryInput {
    /// The text.
    pub text: String,
    /// Save an extractive summary of the text instead.
    pub progress: bool,
    /// The share of the text a summary keeps, 0.05–0.5 (default 0.15).
    pub ratio: Option<f64>,
    /// Who wrote it.
    pub author: Option<String>,
}

/// A page of a slot's entries.
#[derive(Debug, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub(super) struct ReadInput {
    /// Skip this many entries (from the oldest).
    pub offset: usize,
    /// At most this many.
    pub limit: Option<usize>,
    /// Only the progress summaries.
    pub summaries: bool,
}

/// An export's format.
#[derive(Debug, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub(super) struct FormatInput {
    /// `md` (default), `txt` or `json`.
    pub format: Option<String>,
}

/// Why a slot is archived.
#[derive(Debug, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub(super) struct ArchiveInput {
    /// Why.
    pub reason: Option<String>,
}

/// `GET /v1/slots?group=&tags=&include_archived=&archived_only=`.
pub(super) async fn list(
    State(state): State<AppState>,
    who: Who,
    QueryParams(input): QueryParams<SlotListInput>,
) -> Result<Json<Vec<SlotView>>, ApiError> {
    run(&state, &who, move |c, caller| {
        api::slot_list(c, caller, input)
    })
    .await
    .map(Json)
}

/// `POST /v1/slot-search`: hybrid recall over slots' entries, each result
/// with the query's words it contains. (Not under `/v1/slots/`, where it
/// would hide a slot named `search`.)
pub(super) async fn search(
    State(state): State<AppState>,
    who: Who,
    JsonBody(input): JsonBody<SlotSearchInput>,
) -> Result<Json<RecallOutput>, ApiError> {
    run(&state, &who, move |c, caller| {
        api::slot_search(c, caller, input)
    })
    .await
    .map(Json)
}

/// `POST /v1/slots`: make a slot or change one (description, tags, group,
/// priority, name).
pub(super) async fn set(
    State(state): State<AppState>,
    who: Who,
    JsonBody(input): JsonBody<SlotInput>,
) -> Result<Json<SlotView>, ApiError> {
    run(&state, &who, move |c, caller| {
        api::slot_set(c, caller, input)
    })
    .await
    .map(Json)
}

/// `GET /v1/slots/{name}?offset=&limit=&summaries=`: the slot and a page
/// of its entries, oldest first.
pub(super) async fn read(
    State(state): State<AppState>,
    who: Who,
    Path(name): Path<String>,
    QueryParams(input): QueryParams<ReadInput>,
) -> Result<Json<SlotRead>, ApiError> {
    run(&state, &who, move |c, caller| {
        api::slot_read(c, caller, &name, input.offset, input.limit, input.summaries)
    })
    .await
    .map(Json)
}

/// `POST /v1/slots/{name}/entries`: append an entry (201); refused in zero
/// mode.
pub(super) async fn save(
    State(state): State<AppState>,
    who: Who,
    Path(name): Path<String>,
    JsonBody(input): JsonBody<EntryInput>,
) -> Result<(StatusCode, Json<SaveOutput>), ApiError> {
    let out = run(&state, &who, move |c, caller| {
        api::slot_save(
            c,
            caller,
            SaveInput {
                name,
                text: input.text,
                progress: input.progress,
                ratio: input.ratio,
                author: input.author,
            },
        )
    })
    .await?;
    Ok((StatusCode::CREATED, Json(out)))
}

/// `GET /v1/slots/{name}/export?format=md|txt|json`.
pub(super) async fn export(
    State(state): State<AppState>,
    who: Who,
    Path(name): Path<String>,
    QueryParams(input): QueryParams<FormatInput>,
) -> Result<Response, ApiError> {
    let format = input.format.unwrap_or_else(|| "md".into());
    let mime = match format.trim().to_ascii_lowercase().as_str() {
        "json" => "application/json",
        "txt" | "text" => "text/plain; charset=utf-8",
        _ => "text/markdown; charset=utf-8",
    };
    let text = run(&state, &who, move |c, caller| {
        api::slot_export(c, caller, &name, format.parse()?)
    })
    .await?;
    Ok(([(header::CONTENT_TYPE, mime)], text).into_response())
}

/// `PUT /v1/zero-mode`: pause or resume saving, for every slot or one.
pub(super) async fn zero(
    State(state): State<AppState>,
    who: Who,
    JsonBody(input): JsonBody<ZeroInput>,
) -> Result<Json<ZeroOutput>, ApiError> {
    run(&state, &who, move |c, caller| {
        api::slot_zero(c, caller, input)
    })
    .await
    .map(Json)
}

/// `POST /v1/slots/{name}/archive`: its entries leave default recall.
pub(super) async fn archive(
    State(state): State<AppState>,
    who: Who,
    Path(name): Path<String>,
    JsonBody(input): JsonBody<ArchiveInput>,
) -> Result<Json<SlotView>, ApiError> {
    run(&state, &who, move |c, caller| {
        api::slot_archive(c, caller, &name, input.reason)
    })
    .await
    .map(Json)
}

/// `POST /v1/slots/{name}/restore`: back in default recall, unchanged.
pub(super) async fn restore(
    State(state): State<AppState>,
    who: Who,
    Path(name): Path<String>,
) -> Result<Json<SlotView>, ApiError> {
    run(&state, &who, move |c, caller| {
        api::slot_restore(c, caller, &name)
    })
    .await
    .map(Json)
}
