//! The OpenAPI 3.1 document of the REST API, built from the same list of
//! [`Operation`]s the router is built from and from the input and output
//! types' JSON schemas (schemars writes JSON Schema 2020-12, which is
//! OpenAPI 3.1's schema language), so it cannot drift from the code.
//! Served at `/openapi.json`, with an interactive reference at `/docs`
//! (Swagger UI, its files compiled into the binary from the
//! `swagger-ui-redist` crate: no CDN).

use std::sync::OnceLock;

use axum::extract::Path;
use axum::http::{header, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::Json;
use schemars::generate::{Contract, SchemaSettings};
use schemars::SchemaGenerator;
use serde_json::{json, Map, Value};
use swagger_ui_redist::SwaggerUi;

use super::{operations, Operation};

/// Where the document is served.
pub const OPENAPI_PATH: &str = "/openapi.json";
/// Where the interactive reference is served.
pub const DOCS_PATH: &str = "/docs";

fn generator(contract: Contract) -> SchemaGenerator {
    let mut settings = SchemaSettings::draft2020_12();
    settings.definitions_path = "/components/schemas".into();
    settings.meta_schema = None;
    settings.contract = contract;
    settings.into_generator()
}

/// The document (built once).
pub fn document() -> &'static Value {
    static DOC: OnceLock<Value> = OnceLock::new();
    DOC.get_or_init(build)
}

fn build() -> Value {
    // Inputs are described as they are read, outputs as they are written
    // (a field left out when empty is optional in an answer).
    let mut inputs = generator(Contract::Deserialize);
    let mut outputs = generator(Contract::Serialize);
    let mut paths = Map::new();
    for op in operations() {
        let path = format!("/v1{}", op.path);
        let entry = paths
            .entry(path)
            .or_insert_with(|| Value::Object(Map::new()));
        entry[op.method.as_str().to_ascii_lowercase()] = operation(&op, &mut inputs, &mut outputs);
    }
    paths.insert("/healthz".into(), probe("healthz", "The process is up"));
    paths.insert(
        "/readyz".into(),
        probe(
            "readyz",
            "The store answers and the embedding model is loaded",
        ),
    );
    paths.insert(
        "/metrics".into(),
        json!({"get": {
            "operationId": "metrics",
            "summary": "Prometheus text: requests, latency, rate-limit rejections; memories by tenant for an admin key",
            "security": [],
            "responses": {
                "200": {"description": "OK", "content": {"text/plain": {"schema": {"type": "string"}}}},
                "401": {"$ref": "#/components/responses/Error"},
                "403": {"$ref": "#/components/responses/Error"}
            }
        }}),
    );
    let mut schemas = inputs.take_definitions(true);
    // Inputs refuse fields they do not know (see `rest::input`).
    for (name, schema) in schemas.iter_mut() {
        if name.ends_with("Input") {
            schema["additionalProperties"] = Value::Bool(false);
        }
    }
    for (name, schema) in outputs.take_definitions(true) {
        match schemas.get(&name) {
            Some(existing) if *existing != schema => {
                // One name, two shapes: keep both, apart.
                schemas.insert(format!("{name}Out"), schema);
            }
            _ => {
                schemas.insert(name, schema);
            }
        }
    }
    schemas.insert("Error".into(), error_schema());
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Cairn",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "Persistent memory for AI agents. Every /v1 request needs an API key (`Authorization: Bearer <key>`, made with `cairn keys create`) and acts for the key's tenant; an admin key may name another with `X-Cairn-Tenant`. Every error is `{\"error\": {\"code\", \"message\", \"details\"}}`.",
        },
        "servers": [{"url": "/"}],
        "security": [{"apiKey": []}],
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {
                "apiKey": {"type": "http", "scheme": "bearer", "description": "An API key: cairn_<id>_<secret>"}
            },
            "responses": {
                "Error": {
                    "description": "An error, in the one shape of every error",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
                }
            }
        }
    })
}

fn operation(op: &Operation, inputs: &mut SchemaGenerator, outputs: &mut SchemaGenerator) -> Value {
    let mut parameters = Vec::new();
    for (name, description) in [
        (
            "id",
            "An id (of a memory: or a unique prefix of one, 4+ characters; of a conversation or session: as logged)",
        ),
        (
            "name",
            "A slot's name: letters, digits, `-` and `_`, 1–64 characters",
        ),
    ] {
        if op.path.contains(&format!("{{{name}}}")) {
            parameters.push(json!({
                "name": name, "in": "path", "required": true,
                "description": description,
                "schema": {"type": "string"}
            }));
        }
    }
    if let Some(query) = op.query {
        let reference = query(inputs);
        for (name, schema) in properties(inputs, reference.as_value()) {
            parameters.push(json!({
                "name": name, "in": "query", "required": false,
                "description": schema.get("description").cloned().unwrap_or(Value::Null),
                "schema": schema,
            }));
        }
    }
    let (status, answer) = op.ok;
    let mut out = json!({
        "operationId": op.id,
        "summary": op.summary,
        "description": format!("Needs a key with the `{}` role.", op.role),
        "parameters": parameters,
        "responses": {
            status.as_u16().to_string(): {
                "description": status.canonical_reason().unwrap_or("OK"),
                "content": {"application/json": {"schema": answer(outputs)}}
            },
            "default": {"$ref": "#/components/responses/Error"}
        }
    });
    if op.id == "remember" {
        out["responses"]["200"] = json!({
            "description": "Merged into a near-identical memory",
            "content": {"application/json": {"schema": answer(outputs)}}
        });
    }
    match op.id {
        "import" => {
            out["requestBody"] = json!({
                "required": false,
                "content": {"application/x-ndjson": {"schema": {"type": "string", "description": "JSON Lines: one memory a line, as export writes them"}}}
            });
        }
        "import_transcript" => {
            out["requestBody"] = json!({
                "required": false,
                "content": {"application/x-ndjson": {"schema": {"type": "string", "description": "JSON Lines: one message a line (conversation, speaker or role, text, at, session, id, metadata)"}}}
            });
        }
        "export_slot" => {
            out["responses"]["200"]["content"] = json!({
                "text/markdown": {"schema": {"type": "string"}},
                "text/plain": {"schema": {"type": "string"}},
                "application/json": {"schema": {"type": "object"}}
            });
        }
        "export" => {
            out["responses"]["200"]["content"] = json!({
                "application/x-ndjson": {"schema": {"type": "string", "description": "JSON Lines: one memory a line"}}
            });
        }
        _ => {}
    }
    if let Some(body) = op.body {
        // An empty body is read as `{}`.
        out["requestBody"] = json!({
            "required": false,
            "content": {"application/json": {"schema": body(inputs)}}
        });
    }
    out
}

/// The properties of the object schema `schema` (or of the definition it
/// refers to).
fn properties(g: &SchemaGenerator, schema: &Value) -> Vec<(String, Value)> {
    let target = schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.rsplit('/').next())
        .and_then(|name| g.definitions().get(name))
        .unwrap_or(schema);
    target
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
        .unwrap_or_default()
}

fn probe(id: &str, summary: &str) -> Value {
    json!({"get": {
        "operationId": id,
        "summary": summary,
        "security": [],
        "responses": {
            "200": {"description": "Yes", "content": {"application/json": {"schema": {"type": "object"}}}},
            "503": {"description": "No", "content": {"application/json": {"schema": {"type": "object"}}}}
        }
    }})
}

fn error_schema() -> Value {
    json!({
        "type": "object",
        "required": ["error"],
        "properties": {"error": {
            "type": "object",
            "required": ["code", "message", "details"],
            "properties": {
                "code": {"type": "string", "description": "Stable and machine-readable: not_found, invalid_body, rate_limited, ..."},
                "message": {"type": "string", "description": "What is wrong, for humans"},
                "details": {"description": "More, where the error has it (the candidates of an ambiguous prefix, the sizes of a too-large content)"}
            }
        }}
    })
}

/// `GET /openapi.json`.
pub async fn serve_document() -> Json<&'static Value> {
    Json(document())
}

/// The reference page's own script: Swagger UI's set-up, served as a file
/// (`/docs/cairn-docs.js`) so that the page runs no inline script.
const DOCS_SCRIPT: &str = "cairn-docs.js";

/// The reference page and its set-up script, built once.
fn docs_page() -> Result<&'static (String, String), String> {
    static PAGE: std::sync::OnceLock<Result<(String, String), String>> = std::sync::OnceLock::new();
    PAGE.get_or_init(|| {
        let mut ui = SwaggerUi::new();
        ui.title("Cairn REST API");
        ui.config().urls([OPENAPI_PATH]);
        let html = ui.serve().map_err(|e| e.to_string())?;
        let html = html
            .replace("href=\"./", "href=\"/docs/")
            .replace("src=\"./", "src=\"/docs/");
        let start = html
            .find("<script>")
            .ok_or("the page has no set-up script")?;
        let end = html[start..]
            .find("</script>")
            .map(|e| start + e + "</script>".len())
            .ok_or("the set-up script is not closed")?;
        let script = html[start + "<script>".len()..end - "</script>".len()].to_string();
        let page = format!(
            "{}<script src=\"/docs/{DOCS_SCRIPT}\"></script>{}",
            &html[..start],
            &html[end..]
        );
        Ok((page, script))
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// `GET /docs`: the interactive reference over `/openapi.json`.
pub async fn reference_page() -> Response {
    match docs_page() {
        Ok((html, _)) => Html(html.as_str()).into_response(),
        Err(e) => {
            tracing::error!(error = %e, "building the reference page");
            StatusCode::INTERNAL_SERVER_ERROR.into_response()
        }
    }
}

/// `GET /docs/{file}`: the reference page's scripts, styles and icons.
pub async fn reference_file(Path(file): Path<String>) -> Response {
    if file == DOCS_SCRIPT {
        return match docs_page() {
            Ok((_, script)) => (
                [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
                script.clone(),
            )
                .into_response(),
            Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
        };
    }
    let found = SwaggerUi::static_files()
        .iter()
        .find(|(f, _)| f.file_name() == file);
    let Some((_, bytes)) = found else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let kind = match file.rsplit('.').next() {
        Some("js") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("png") => "image/png",
        _ => "application/octet-stream",
    };
    (
        [
            (header::CONTENT_TYPE, kind),
            (header::CACHE_CONTROL, "public, max-age=86400"),
        ],
        *bytes,
    )
        .into_response()
}
