//! Engine errors as HTTP responses: one exhaustive mapping from
//! [`ErrorKind`] to a status, and one body shape for every route,
//! `{"error": {"code", "message", "details"}}`.
//!
//! A fault inside Cairn (500) never shows its message, which may name
//! paths or SQL: the client gets a generic text and the log gets the
//! error.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use cairn_core::{Error, ErrorKind};

/// The HTTP status of an error kind.
pub fn status(kind: ErrorKind) -> StatusCode {
    match kind {
        ErrorKind::InvalidInput => StatusCode::UNPROCESSABLE_ENTITY,
        ErrorKind::NotFound => StatusCode::NOT_FOUND,
        ErrorKind::Ambiguous | ErrorKind::Conflict => StatusCode::CONFLICT,
        ErrorKind::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
        ErrorKind::Unauthenticated => StatusCode::UNAUTHORIZED,
        ErrorKind::Forbidden => StatusCode::FORBIDDEN,
        ErrorKind::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
        ErrorKind::Internal => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// Seconds a client should wait before retrying an unavailable store.
pub const RETRY_AFTER_SECS: u64 = 1;

/// An error on its way to a client: the engine's, or one about the HTTP
/// request itself (a body that is not JSON, an unknown field, a missing
/// route), which the engine never sees.
#[derive(Debug)]
pub enum ApiError {
    /// An engine error, mapped by its kind.
    Engine(Error),
    /// A malformed request.
    Request {
        /// The status to answer.
        status: StatusCode,
        /// The stable code (`malformed_json`, `invalid_body`, ...).
        code: &'static str,
        /// What is wrong, for humans.
        message: String,
    },
}

impl ApiError {
    /// A malformed request.
    pub fn request(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        ApiError::Request {
            status,
            code,
            message: message.into(),
        }
    }
}

impl ApiError {
    /// 413 for a body over the server's limit (`e` says which).
    pub fn body_too_large(e: impl std::fmt::Display) -> Self {
        ApiError::request(
            StatusCode::PAYLOAD_TOO_LARGE,
            "body_too_large",
            format!("the request body is larger than the server accepts: {e}"),
        )
    }
}

impl From<Error> for ApiError {
    fn from(e: Error) -> Self {
        ApiError::Engine(e)
    }
}

/// The one body shape of every error.
fn body(code: &str, message: &str, details: serde_json::Value) -> serde_json::Value {
    serde_json::json!({
        "error": { "code": code, "message": message, "details": details }
    })
}

impl ApiError {
    /// The status and the one body shape of this error, and the engine
    /// error's kind (which adds headers). A 500's cause is logged, never
    /// shown.
    pub fn render(self) -> (StatusCode, serde_json::Value, Option<ErrorKind>) {
        let e = match self {
            ApiError::Engine(e) => e,
            ApiError::Request {
                status,
                code,
                message,
            } => return (status, body(code, &message, serde_json::Value::Null), None),
        };
        let kind = e.kind();
        let message = match kind {
            ErrorKind::Internal => {
                tracing::error!(error = %e, "internal error");
                "an internal error occurred; it was logged on the server".to_string()
            }
            _ => e.to_string(),
        };
        let details = match &e {
            Error::AmbiguousId { candidates, .. } => {
                serde_json::json!({ "candidates": candidates })
            }
            Error::ContentTooLarge { size, max } => serde_json::json!({ "size": size, "max": max }),
            _ => serde_json::Value::Null,
        };
        (status(kind), body(e.code(), &message, details), Some(kind))
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, body, kind) = self.render();
        let mut response = (status, Json(body)).into_response();
        let headers = response.headers_mut();
        match kind {
            Some(ErrorKind::Unavailable) => {
                headers.insert(
                    axum::http::header::RETRY_AFTER,
                    axum::http::HeaderValue::from(RETRY_AFTER_SECS),
                );
            }
            Some(ErrorKind::Unauthenticated) => {
                headers.insert(
                    axum::http::header::WWW_AUTHENTICATE,
                    axum::http::HeaderValue::from_static("Bearer realm=\"cairn\""),
                );
            }
            _ => {}
        }
        response
    }
}

#[cfg(test)]
mod tests {
    use http_body_util::BodyExt;

    use super::*;

    async fn body(e: Error) -> (StatusCode, serde_json::Value, Option<String>) {
        let r = ApiError::Engine(e).into_response();
        let status = r.status();
        let retry = r
            .headers()
            .get("retry-after")
            .map(|v| v.to_str().unwrap().to_string());
        let bytes = r.into_body().collect().await.unwrap().to_bytes();
        (status, serde_json::from_slice(&bytes).unwrap(), retry)
    }

    #[tokio::test]
    async fn every_kind_has_its_status_and_one_body_shape() {
        let (s, b, _) = body(Error::NotFound("abcd".into())).await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        assert_eq!(b["error"]["code"], "not_found");
        assert!(b["error"]["message"].as_str().unwrap().contains("abcd"));
        let (s, b, _) = body(Error::AmbiguousId {
            prefix: "0196".into(),
            candidates: vec!["a".into(), "b".into()],
        })
        .await;
        assert_eq!(s, StatusCode::CONFLICT);
        assert_eq!(b["error"]["details"]["candidates"][1], "b");
        let (s, _, retry) = body(Error::unavailable_from(
            "database is locked",
            std::io::Error::other("busy"),
        ))
        .await;
        assert_eq!(s, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(retry.as_deref(), Some("1"));
        let (s, _, _) = body(Error::ContentTooLarge { size: 2, max: 1 }).await;
        assert_eq!(s, StatusCode::PAYLOAD_TOO_LARGE);
        let r = ApiError::Engine(Error::Unauthenticated("unknown API key".into())).into_response();
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
        assert!(r.headers()["www-authenticate"]
            .to_str()
            .unwrap()
            .starts_with("Bearer"));
        let (s, b, _) = body(Error::Forbidden("needs write".into())).await;
        assert_eq!(
            (s, &b["error"]["code"]),
            (StatusCode::FORBIDDEN, &"forbidden".into())
        );
    }

    #[tokio::test]
    async fn an_internal_error_does_not_leak_its_message() {
        let (s, b, _) = body(Error::storage(
            "SELECT * FROM memories at /home/me/cairn.db",
        ))
        .await;
        assert_eq!(s, StatusCode::INTERNAL_SERVER_ERROR);
        let text = b.to_string();
        assert!(
            !text.contains("SELECT") && !text.contains("/home/me"),
            "{text}"
        );
        assert_eq!(b["error"]["code"], "storage");
    }
}
