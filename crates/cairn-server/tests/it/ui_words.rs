//! The web UI's memory page says what a memory's validity means, and
//! shows nothing for a memory that has none (not `valid — → —`).

use cairn_core::api::{self, Caller, RememberInput};
use cairn_server::router;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

use crate::{blocking, state};

#[tokio::test]
async fn a_memory_without_validity_shows_no_empty_range() {
    let state = state();
    let id = blocking(|| {
        api::remember(
            &state.cairn,
            &Caller::new(cairn_core::DEFAULT_TENANT),
            RememberInput::new("the staging database moved to db2"),
        )
        .unwrap()
        .id
    });
    let app = router(state, CancellationToken::new());
    let response = app
        .oneshot(
            axum::http::Request::get(format!("/ui/memories/{id}"))
                .header("host", "127.0.0.1:8080")
                .body(axum::body::Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let bytes = http_body_util::BodyExt::collect(response.into_body())
        .await
        .unwrap()
        .to_bytes();
    let html = String::from_utf8(bytes.to_vec()).unwrap();
    assert!(html.contains("the staging database moved"), "{html}");
    assert!(!html.contains("— → —"), "an empty validity range is shown");
    assert!(!html.contains("<dt>valid</dt>"), "{html}");
}
