//! The UI's static files, embedded in the binary at build time: its one
//! stylesheet, its one script and htmx (vendored from the npm package
//! `htmx.org`; version and licence in the file's first line and in
//! `assets/htmx-LICENSE`).

use axum::extract::Path;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};

/// One embedded file: its name, media type and bytes.
pub(super) struct Asset {
    /// The name under `/ui/assets/`.
    pub name: &'static str,
    /// Its `Content-Type`.
    pub media_type: &'static str,
    /// Its content.
    pub body: &'static str,
}

/// Every embedded file.
pub(super) const ASSETS: [Asset; 3] = [
    Asset {
        name: "app.css",
        media_type: "text/css; charset=utf-8",
        body: include_str!("../../assets/app.css"),
    },
    Asset {
        name: "app.js",
        media_type: "text/javascript; charset=utf-8",
        body: include_str!("../../assets/app.js"),
    },
    Asset {
        name: "htmx.min.js",
        media_type: "text/javascript; charset=utf-8",
        body: include_str!("../../assets/htmx.min.js"),
    },
];

/// `GET /ui/assets/{file}`: cached for a day (the names change with
/// nothing, so not longer: a new binary may change a file).
pub(super) async fn serve(Path(file): Path<String>) -> Response {
    match ASSETS.iter().find(|a| a.name == file) {
        Some(a) => (
            [
                (header::CONTENT_TYPE, a.media_type),
                (header::CACHE_CONTROL, "public, max-age=86400"),
            ],
            a.body,
        )
            .into_response(),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}
