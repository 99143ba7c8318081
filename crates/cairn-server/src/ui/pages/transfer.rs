//! Import and export.

use axum::extract::{Request, State};
use axum::http::{header, Method};
use axum::response::{IntoResponse, Response};
use maud::html;

use super::Page;
use crate::rest::{QueryParams, Who};
use crate::ui::render::page;
use crate::ui::Ui;
use crate::AppState;

/// `GET /ui/transfer`.
pub(crate) async fn transfer(ui: Ui) -> Page {
    let can_write = ui.may(Method::POST, "/v1/import");
    let body = html! {
        section {
            h2 { "Export" }
            p { "Every memory of tenant " strong { (ui.who.tenant) } " as JSON Lines (what import and " code { "cairn import" } " read)." }
            p { a.button #export href="/ui/export" download="cairn-export.jsonl" { "Download the export" } }
        }
        @if can_write {
            section {
                h2 { "Import" }
                form #import.stack method="post" action="/ui/import" enctype="application/x-ndjson" {
                    label for="import-file" { "JSON Lines file (one memory a line)" }
                    input #import-file type="file" name="file" accept=".jsonl,.ndjson,.json,application/x-ndjson" required;
                    button type="submit" { "Import" }
                }
                progress #import-progress max="100" value="0" hidden aria-label="Import progress" {}
                div #import-result aria-live="polite" {}
            }
        }
    };
    Ok(page(&ui, "/ui/transfer", "Import / export", body).into_response())
}

/// `GET /ui/export`: `GET /v1/export`, as a download.
pub(crate) async fn export(State(state): State<AppState>, ui: Ui) -> Response {
    let mut response = crate::rest::transfer::export(
        State(state),
        Who(ui.who),
        QueryParams(crate::rest::transfer::ExportInput::default()),
    )
    .await;
    response.headers_mut().insert(
        header::CONTENT_DISPOSITION,
        header::HeaderValue::from_static("attachment; filename=\"cairn-export.jsonl\""),
    );
    response
}

/// `POST /ui/import` (the body: JSON Lines, sent by the page's script):
/// `POST /v1/import?progress=true`, answered as it answers.
pub(crate) async fn import(State(state): State<AppState>, ui: Ui, request: Request) -> Page {
    ui.require(Method::POST, "/v1/import")?;
    Ok(crate::rest::transfer::import(
        State(state),
        Who(ui.who),
        QueryParams(crate::rest::transfer::ImportInput {
            strict: false,
            progress: true,
        }),
        request,
    )
    .await?)
}
