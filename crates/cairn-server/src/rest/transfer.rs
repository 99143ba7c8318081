//! `POST /v1/import` and `GET /v1/export`: JSON Lines in and out, streamed
//! both ways (memory holds a few blocks of text, never the whole body).

use std::io::BufReader;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::Json;
use cairn_core::api;
use cairn_core::engine::ImportReport;
use futures_util::TryStreamExt;
use tokio_util::io::{StreamReader, SyncIoBridge};

use super::{QueryParams, Who};
use crate::{ApiError, AppState};

/// How an import goes.
#[derive(Debug, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct ImportInput {
    /// Refuse the whole body, writing nothing, if any line is bad
    /// (default: report bad lines and import the others).
    pub strict: bool,
}

/// `POST /v1/import?strict=…`: the body is JSON Lines, one memory a line,
/// as `cairn export` writes them; answers what was imported and each bad
/// line's number and problem. Ids already stored are skipped, so an
/// import cut off can be sent again.
pub async fn import(
    State(state): State<AppState>,
    who: Who,
    QueryParams(input): QueryParams<ImportInput>,
    request: Request,
) -> Result<Json<ImportReport>, ApiError> {
    let stream = request
        .into_body()
        .into_data_stream()
        .map_err(std::io::Error::other);
    let reader = BufReader::new(SyncIoBridge::new(StreamReader::new(stream)));
    let caller = who.caller();
    let cairn = state.cairn.clone();
    // The reader blocks on the body: a thread of the blocking pool, never
    // an async worker.
    let report = tokio::task::spawn_blocking(move || {
        api::import(
            &cairn,
            &caller,
            reader,
            input.strict,
            Box::new(|_| {}),
            &mut |_| {},
        )
    })
    .await
    .map_err(|e| cairn_core::Error::storage(format!("task failed: {e}")))??;
    Ok(Json(report))
}

/// What to export.
#[derive(Debug, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct ExportInput {
    /// Include each memory's embedding.
    pub embeddings: bool,
}

/// Lines handed from the exporting thread to the response ahead of the
/// client reading them.
const LINES_AHEAD: usize = 256;

/// `GET /v1/export?embeddings=…`: every memory of the tenant as JSON
/// Lines, in id order (what `POST /v1/import` and `cairn import` read). A
/// failure halfway cuts the response off, so a partial export never looks
/// whole.
pub async fn export(
    State(state): State<AppState>,
    who: Who,
    QueryParams(input): QueryParams<ExportInput>,
) -> Response {
    let (tx, rx) = tokio::sync::mpsc::channel::<std::io::Result<Bytes>>(LINES_AHEAD);
    let caller = who.caller();
    let cairn = state.cairn.clone();
    tokio::task::spawn_blocking(move || {
        let sent = api::export(&cairn, &caller, input.embeddings, &mut |line| {
            tx.blocking_send(Ok(Bytes::from(line)))
                .map_err(|_| cairn_core::Error::invalid("the client went away"))
        });
        if let Err(e) = sent {
            tracing::warn!(error = %e, "export cut off");
            let _ = tx.blocking_send(Err(std::io::Error::other(e.to_string())));
        }
    });
    let lines = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|line| (line, rx))
    });
    (
        [(header::CONTENT_TYPE, "application/x-ndjson")],
        Body::from_stream(lines),
    )
        .into_response()
}
