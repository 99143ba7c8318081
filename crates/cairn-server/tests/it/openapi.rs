//! The OpenAPI document: it lists every route the router answers, with the
//! role each needs, every reference in it resolves, and the reference page
//! is served with its files.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use cairn_core::keys::Role;
use cairn_server::rest::{openapi, operations};
use cairn_server::router;
use http_body_util::BodyExt;
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

use crate::{keyed_state, make_key};

async fn send(
    app: &axum::Router,
    method: &str,
    uri: &str,
    key: Option<&str>,
) -> (StatusCode, Vec<u8>) {
    let mut req = Request::builder().method(method).uri(uri);
    if let Some(k) = key {
        req = req.header("authorization", format!("Bearer {k}"));
    }
    let r = app
        .clone()
        .oneshot(req.body(Body::from("{}")).unwrap())
        .await
        .unwrap();
    let status = r.status();
    (
        status,
        r.into_body().collect().await.unwrap().to_bytes().to_vec(),
    )
}

#[tokio::test]
async fn every_documented_operation_is_routed_with_the_role_it_documents() {
    let state = keyed_state();
    let cairn = state.cairn.clone();
    let app = router(state, CancellationToken::new());
    let keys = [
        (Role::Read, make_key(&cairn, "t", "read")),
        (Role::Write, make_key(&cairn, "t", "write")),
        (Role::Admin, make_key(&cairn, "t", "admin")),
    ];
    let doc = openapi::document();
    let ops = operations();
    assert!(ops.len() >= 12);
    for op in &ops {
        let documented =
            &doc["paths"][format!("/v1{}", op.path)][op.method.as_str().to_ascii_lowercase()];
        assert_eq!(
            documented["operationId"], op.id,
            "{} {}",
            op.method, op.path
        );
        // Every `{parameter}` of the path is declared.
        for name in op
            .path
            .split('{')
            .skip(1)
            .filter_map(|rest| rest.split_once('}').map(|(n, _)| n))
        {
            let declared = documented["parameters"]
                .as_array()
                .is_some_and(|ps| ps.iter().any(|p| p["name"] == name && p["in"] == "path"));
            assert!(
                declared,
                "{} {}: path parameter {name} undeclared",
                op.method, op.path
            );
        }
        let uri = format!(
            "/v1{}",
            op.path.replace("{id}", "zzzz").replace("{name}", "zzzz")
        );
        for (role, key) in &keys {
            let (status, body) = send(&app, op.method.as_str(), &uri, Some(key)).await;
            let text = String::from_utf8_lossy(&body);
            assert!(
                !text.contains("no_route") && status != StatusCode::METHOD_NOT_ALLOWED,
                "{} {uri} is documented but not routed: {status} {text}",
                op.method
            );
            let forbidden = status == StatusCode::FORBIDDEN;
            assert_eq!(
                forbidden,
                !role.allows(op.role),
                "{} {uri} with a {role} key (documented role {}): {status} {text}",
                op.method,
                op.role
            );
        }
    }
}

fn refs<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(r)) = m.get("$ref") {
                out.push(r);
            }
            m.values().for_each(|v| refs(v, out));
        }
        Value::Array(a) => a.iter().for_each(|v| refs(v, out)),
        _ => {}
    }
}

#[tokio::test]
async fn the_document_is_served_openly_and_every_reference_resolves() {
    let app = router(keyed_state(), CancellationToken::new());
    let (status, body) = send(&app, "GET", "/openapi.json", None).await;
    assert_eq!(status, StatusCode::OK);
    let doc: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(doc["openapi"], "3.1.0");
    let mut found = Vec::new();
    refs(&doc, &mut found);
    assert!(found.len() > 20, "{found:?}");
    for r in found {
        let pointer = r
            .strip_prefix('#')
            .unwrap_or_else(|| panic!("external ref {r}"));
        assert!(doc.pointer(pointer).is_some(), "unresolved {r}");
    }
    // The remember body knows its fields, with `type` under its wire name.
    let remember = &doc["components"]["schemas"]["RememberInput"]["properties"];
    assert!(
        remember["type"].is_object() && remember["kind"].is_null(),
        "{remember}"
    );
    // Query parameters come from the input types, flattened selection included.
    let params = doc["paths"]["/v1/memories"]["get"]["parameters"]
        .as_array()
        .unwrap();
    for name in ["types", "tags", "cursor", "include_superseded"] {
        assert!(
            params.iter().any(|p| p["name"] == name),
            "no {name} parameter"
        );
    }
}

#[tokio::test]
async fn the_reference_page_is_served_with_its_own_files() {
    let app = router(keyed_state(), CancellationToken::new());
    let (status, body) = send(&app, "GET", "/docs", None).await;
    assert_eq!(status, StatusCode::OK);
    let html = String::from_utf8(body).unwrap();
    assert!(html.contains("/docs/cairn-docs.js"), "{html}");
    assert!(!html.contains("https://"), "no CDN: {html}");
    let (status, setup) = send(&app, "GET", "/docs/cairn-docs.js", None).await;
    assert_eq!(status, StatusCode::OK);
    assert!(String::from_utf8(setup).unwrap().contains("/openapi.json"));
    assert!(html.contains("/docs/swagger-ui-bundle.js"), "{html}");
    let (status, js) = send(&app, "GET", "/docs/swagger-ui-bundle.js", None).await;
    assert_eq!(status, StatusCode::OK);
    assert!(js.len() > 100_000, "the bundle itself");
    let (status, _) = send(&app, "GET", "/docs/secrets.txt", None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}
