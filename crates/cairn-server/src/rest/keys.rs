//! `/v1/keys` (admin keys only): make, list and revoke API keys, of any
//! tenant.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use cairn_core::api::{self, CreateKeyInput, CreatedKey, KeyView};

use super::{JsonBody, QueryParams, Who};
use crate::{ApiError, AppState};

/// Which keys to list.
#[derive(Debug, Default, serde::Deserialize, schemars::JsonSchema)]
pub(super) struct KeyListInput {
    /// Only this tenant's keys.
    pub tenant: Option<String>,
}

/// `POST /v1/keys`: 201 with the key's text, shown this once.
pub(super) async fn create(
    State(state): State<AppState>,
    _admin: Who,
    JsonBody(input): JsonBody<CreateKeyInput>,
) -> Result<(StatusCode, Json<CreatedKey>), ApiError> {
    let made = cairn_mcp::on_engine(&state.cairn, move |c| api::create_key(c, input)).await?;
    Ok((StatusCode::CREATED, Json(made)))
}

/// `GET /v1/keys?tenant=…`: oldest first, never a secret.
pub(super) async fn list(
    State(state): State<AppState>,
    _admin: Who,
    QueryParams(input): QueryParams<KeyListInput>,
) -> Result<Json<Vec<KeyView>>, ApiError> {
    cairn_mcp::on_engine(&state.cairn, move |c| {
        api::list_keys(c, input.tenant.as_deref())
    })
    .await
    .map(Json)
    .map_err(ApiError::from)
}

/// `DELETE /v1/keys/{id}`: the key stops working at once.
pub(super) async fn revoke(
    State(state): State<AppState>,
    _admin: Who,
    Path(id): Path<String>,
) -> Result<Json<KeyView>, ApiError> {
    cairn_mcp::on_engine(&state.cairn, move |c| api::revoke_key(c, &id))
        .await
        .map(Json)
        .map_err(ApiError::from)
}
