//! `POST /v1/import` and `GET /v1/export`: JSON Lines in and out, streamed
//! both ways (memory holds a few blocks of text, never the whole body).
//! An import's body is cut off past the server's size limit or when it
//! stalls, so a client cannot hold a thread forever; with `progress`, the
//! answer is a stream of progress lines ending in the report.

use std::io::{BufRead, BufReader};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use cairn_core::api;
use cairn_core::engine::ImportProgress;
use futures_util::{Stream, StreamExt};
use serde::Serialize;
use tokio_util::io::{StreamReader, SyncIoBridge};

use super::{QueryParams, Who};
use crate::{ApiError, AppState};

/// How an import goes.
#[derive(Debug, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub(crate) struct ImportInput {
    /// Refuse the whole body, writing nothing, if any line is bad
    /// (default: report bad lines and import the others).
    pub strict: bool,
    /// Answer JSON Lines as the import goes: `{"progress": {"imported",
    /// "bytes", "bad_lines", "errors"}}` after the first transaction and
    /// then about once a second (`errors`: the bad lines met since the
    /// previous progress line, each `[line, problem]`), then `{"report":
    /// …}` or `{"error": …}` (default: one report when it is done).
    pub progress: bool,
}

/// How often a progress line is sent.
const PROGRESS_EVERY: Duration = Duration::from_secs(1);

/// What a guarded body carried, and why it was cut off if it was.
#[derive(Debug, Default)]
struct BodyWatch {
    bytes: AtomicU64,
    too_large: AtomicBool,
    stalled: AtomicBool,
}

/// The body's data, failing once more than `max` bytes have come or when
/// nothing comes for `idle`; `watch` counts the bytes and records why.
fn guarded(
    body: Body,
    max: u64,
    idle: Duration,
    watch: Arc<BodyWatch>,
) -> impl Stream<Item = std::io::Result<Bytes>> + Send + Unpin {
    let data = body.into_data_stream();
    futures_util::stream::unfold(Some((data, watch)), move |state| async move {
        let (mut data, watch) = state?;
        let cut = |flag: &AtomicBool, e: std::io::Error| {
            flag.store(true, Ordering::Relaxed);
            Some((Err(e), None))
        };
        match tokio::time::timeout(idle, data.next()).await {
            Err(_) => cut(
                &watch.stalled,
                std::io::Error::new(std::io::ErrorKind::TimedOut, "the body stalled"),
            ),
            Ok(None) => None,
            Ok(Some(Err(e))) => Some((Err(std::io::Error::other(e)), None)),
            Ok(Some(Ok(chunk))) => {
                let total = watch.bytes.fetch_add(chunk.len() as u64, Ordering::Relaxed)
                    + chunk.len() as u64;
                if total > max {
                    cut(
                        &watch.too_large,
                        std::io::Error::other("the body is over the import limit"),
                    )
                } else {
                    Some((Ok(chunk), Some((data, watch))))
                }
            }
        }
    })
    .boxed()
}

/// The error of an import that failed: 413 or 408 when the guard cut the
/// body off (saying how much was imported before), else the engine's.
fn import_error(e: cairn_core::Error, watch: &BodyWatch, max: u64, idle: Duration) -> ApiError {
    let (status, code, why) = if watch.too_large.load(Ordering::Relaxed) {
        (
            StatusCode::PAYLOAD_TOO_LARGE,
            "body_too_large",
            format!("the import body is over the server's limit of {max} bytes"),
        )
    } else if watch.stalled.load(Ordering::Relaxed) {
        (
            StatusCode::REQUEST_TIMEOUT,
            "request_timeout",
            format!(
                "no data came for {} s; the import was cut off",
                idle.as_secs_f64()
            ),
        )
    } else {
        return e.into();
    };
    // The engine's message ends by saying how many memories were imported
    // before the cut.
    let message = e.to_string();
    let before = message.rfind("; the ").map_or("", |at| &message[at + 2..]);
    ApiError::request(
        status,
        code,
        if before.is_empty() {
            why
        } else {
            format!("{why}; {before}")
        },
    )
}

/// One JSON value as a line.
fn line(value: serde_json::Value) -> Bytes {
    let mut text = value.to_string();
    text.push('\n');
    Bytes::from(text)
}

/// A JSON Lines answer of what `rx` receives.
fn json_lines(rx: tokio::sync::mpsc::Receiver<std::io::Result<Bytes>>) -> Response {
    let lines = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|line| (line, rx))
    });
    (
        [(header::CONTENT_TYPE, "application/x-ndjson")],
        Body::from_stream(lines),
    )
        .into_response()
}

/// `POST /v1/import?strict=…&progress=…`: the body is JSON Lines, one
/// memory a line, as `cairn export` writes them; answers what was imported
/// and each bad line's number and problem. Ids already stored are skipped,
/// so an import cut off can be sent again.
pub(crate) async fn import(
    State(state): State<AppState>,
    who: Who,
    QueryParams(input): QueryParams<ImportInput>,
    request: Request,
) -> Result<Response, ApiError> {
    let caller = who.caller();
    let cairn = state.cairn.clone();
    let strict = input.strict;
    import_lines(&state, request, input.progress, move |reader, written| {
        api::import(&cairn, &caller, reader, strict, Box::new(|_| {}), written)
    })
    .await
}

/// The body of a request read as JSON Lines by `run`, on a thread of the
/// blocking pool (the reader blocks on the body, never an async worker),
/// cut off past the server's import limit or when it stalls. `run` tells
/// how many records are done and the bad lines so far; the answer is its
/// report, or with `progress`, JSON Lines of progress ending in the
/// report.
pub(super) async fn import_lines<R, F>(
    state: &AppState,
    request: Request,
    progress: bool,
    run: F,
) -> Result<Response, ApiError>
where
    R: Serialize + Send + 'static,
    F: FnOnce(Box<dyn BufRead + Send>, &mut dyn FnMut(ImportProgress<'_>)) -> cairn_core::Result<R>
        + Send
        + 'static,
{
    let limits = state.capacity.limits();
    let (max, idle) = (limits.max_import_bytes, limits.request_timeout);
    let watch = Arc::new(BodyWatch::default());
    let stream = guarded(request.into_body(), max, idle, watch.clone());
    let reader: Box<dyn BufRead + Send> =
        Box::new(BufReader::new(SyncIoBridge::new(StreamReader::new(stream))));
    if !progress {
        let report = tokio::task::spawn_blocking(move || run(reader, &mut |_| {}))
            .await
            .map_err(|e| cairn_core::Error::storage(format!("task failed: {e}")))?;
        return match report {
            Ok(report) => Ok(Json(report).into_response()),
            Err(e) => Err(import_error(e, &watch, max, idle)),
        };
    }
    let (tx, rx) = tokio::sync::mpsc::channel(16);
    tokio::task::spawn_blocking(move || {
        let (mut last, mut errors_sent) = (None::<Instant>, 0);
        let report = run(reader, &mut |p| {
            if last.is_some_and(|t| t.elapsed() < PROGRESS_EVERY) {
                return;
            }
            last = Some(Instant::now());
            let bytes = watch.bytes.load(Ordering::Relaxed);
            let progress = serde_json::json!({"progress": {
                "imported": p.done,
                "bytes": bytes,
                "bad_lines": p.errors.len(),
                "errors": &p.errors[errors_sent.min(p.errors.len())..],
            }});
            errors_sent = p.errors.len();
            let _ = tx.blocking_send(Ok(line(progress)));
        });
        let last_line = match report {
            Ok(report) => serde_json::json!({ "report": report }),
            Err(e) => import_error(e, &watch, max, idle).render().1,
        };
        let _ = tx.blocking_send(Ok(line(last_line)));
    });
    Ok(json_lines(rx))
}

/// What to export.
#[derive(Debug, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub(crate) struct ExportInput {
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
pub(crate) async fn export(
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
    json_lines(rx)
}
