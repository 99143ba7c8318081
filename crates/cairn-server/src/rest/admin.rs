//! `POST /v1/consolidate` and `GET /v1/providers` (admin keys): upkeep of
//! a tenant's memories and the model providers in use; `/v1/settings`:
//! the tenant's settings (read by any key, changed by an admin key).

use axum::extract::State;
use axum::Json;
use cairn_core::api::{
    self, ConsolidateInput, ConsolidateOutput, ProvidersOutput, SettingsInput, SettingsView,
};

use super::{run, JsonBody, QueryParams, Who};
use crate::{ApiError, AppState};

/// Whether to check the providers.
#[derive(Debug, Default, serde::Deserialize, schemars::JsonSchema)]
pub(super) struct ProvidersInput {
    /// Send each provider a small request to see that it answers.
    #[serde(default)]
    pub check: bool,
}

/// `POST /v1/consolidate`: the tenant's oldest episode groups into
/// summaries (dry_run writes nothing); the tenant is the key's, or
/// `X-Cairn-Tenant`'s.
pub(super) async fn consolidate(
    State(state): State<AppState>,
    who: Who,
    JsonBody(input): JsonBody<ConsolidateInput>,
) -> Result<Json<ConsolidateOutput>, ApiError> {
    run(&state, &who, move |c, caller| {
        api::consolidate(c, caller, &input)
    })
    .await
    .map(Json)
}

/// `GET /v1/providers?check=true`: the chat model and embedder in use.
pub(super) async fn providers(
    State(state): State<AppState>,
    who: Who,
    QueryParams(input): QueryParams<ProvidersInput>,
) -> Result<Json<ProvidersOutput>, ApiError> {
    run(&state, &who, move |c, _| Ok(api::providers(c, input.check)))
        .await
        .map(Json)
}

/// `GET /v1/settings`: the tenant's settings.
pub(super) async fn settings(
    State(state): State<AppState>,
    who: Who,
) -> Result<Json<SettingsView>, ApiError> {
    run(&state, &who, api::settings).await.map(Json)
}

/// `PATCH /v1/settings`: change some of the tenant's settings; answers
/// them all.
pub(super) async fn set_settings(
    State(state): State<AppState>,
    who: Who,
    JsonBody(input): JsonBody<SettingsInput>,
) -> Result<Json<SettingsView>, ApiError> {
    run(&state, &who, move |c, caller| {
        api::set_settings(c, caller, input)
    })
    .await
    .map(Json)
}
