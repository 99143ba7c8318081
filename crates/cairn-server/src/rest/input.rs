//! Request bodies and query strings into the application layer's input
//! types, refusing what those types do not know.
//!
//! The inputs of `cairn_core::api` accept unknown fields (they flatten a
//! shared selection, which serde cannot combine with
//! `deny_unknown_fields`), and a misspelt field silently ignored is a bug
//! report waiting to happen. So each input's JSON schema says which fields
//! there are and what kind each is: a body's unknown field is a 422 naming
//! it, a query string's a 400, and a query value becomes what its field
//! expects (`limit=5` a number, `confirm=true` a boolean, `tags=a,b` or a
//! repeated `tags` a list).

use std::any::TypeId;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, OnceLock};

use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::StatusCode;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::ApiError;

/// What a field holds, as far as reading it from text goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    List,
    Bool,
    Integer,
    Number,
    Other,
}

/// The fields of an input type, by their wire names.
type Fields = BTreeMap<String, Kind>;

/// The fields of `T`, read once from its JSON schema.
fn fields<T: JsonSchema + 'static>() -> Arc<Fields> {
    static CACHE: OnceLock<Mutex<HashMap<TypeId, Arc<Fields>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
    cache
        .entry(TypeId::of::<T>())
        .or_insert_with(|| Arc::new(fields_of(schemars::schema_for!(T).as_value())))
        .clone()
}

fn fields_of(schema: &Value) -> Fields {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return Fields::new();
    };
    props
        .iter()
        .map(|(name, prop)| (name.clone(), kind_of(prop)))
        .collect()
}

fn kind_of(prop: &Value) -> Kind {
    let types: Vec<&str> = match prop.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let has = |t: &str| types.contains(&t);
    if has("array") {
        Kind::List
    } else if has("boolean") {
        Kind::Bool
    } else if has("integer") {
        Kind::Integer
    } else if has("number") {
        Kind::Number
    } else {
        Kind::Other
    }
}

fn unknown_field(name: &str, fields: &Fields) -> String {
    let known: Vec<&str> = fields.keys().map(String::as_str).collect();
    format!(
        "unknown field `{name}`; the fields are {}",
        known.join(", ")
    )
}

/// A JSON body as `T`. An empty body is `{}`. The content type is not
/// checked (`curl -d` sends a form type with JSON in it); the body is.
pub struct JsonBody<T>(pub T);

impl<S, T> FromRequest<S> for JsonBody<T>
where
    S: Send + Sync,
    T: DeserializeOwned + JsonSchema + 'static,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let bytes = axum::body::Bytes::from_request(req, state)
            .await
            .map_err(|e| {
                let too_large = e.status() == StatusCode::PAYLOAD_TOO_LARGE;
                if too_large {
                    ApiError::body_too_large(e)
                } else {
                    ApiError::request(e.status(), "invalid_body", e.body_text())
                }
            })?;
        let value: Value = if bytes.iter().all(u8::is_ascii_whitespace) {
            Value::Object(Map::new())
        } else {
            serde_json::from_slice(&bytes).map_err(|e| {
                ApiError::request(
                    StatusCode::BAD_REQUEST,
                    "malformed_json",
                    format!("the body is not JSON: {e}"),
                )
            })?
        };
        let Value::Object(object) = &value else {
            return Err(ApiError::request(
                StatusCode::UNPROCESSABLE_ENTITY,
                "invalid_body",
                "the body must be a JSON object",
            ));
        };
        let fields = fields::<T>();
        if let Some(name) = object.keys().find(|k| !fields.contains_key(*k)) {
            return Err(ApiError::request(
                StatusCode::UNPROCESSABLE_ENTITY,
                "invalid_body",
                unknown_field(name, &fields),
            ));
        }
        serde_json::from_value(value).map(JsonBody).map_err(|e| {
            ApiError::request(
                StatusCode::UNPROCESSABLE_ENTITY,
                "invalid_body",
                e.to_string(),
            )
        })
    }
}

/// A query string as `T`.
pub struct QueryParams<T>(pub T);

impl<S, T> FromRequestParts<S> for QueryParams<T>
where
    S: Send + Sync,
    T: DeserializeOwned + JsonSchema + 'static,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        let query = parts.uri.query().unwrap_or("");
        let value = query_object(query, &fields::<T>())?;
        serde_json::from_value(Value::Object(value))
            .map(QueryParams)
            .map_err(|e| ApiError::request(StatusCode::BAD_REQUEST, "invalid_query", e.to_string()))
    }
}

/// The pairs of a query string as a JSON object shaped by `fields`.
fn query_object(query: &str, fields: &Fields) -> Result<Map<String, Value>, ApiError> {
    let bad = |m: String| ApiError::request(StatusCode::BAD_REQUEST, "invalid_query", m);
    let mut out = Map::new();
    for (name, text) in form_urlencoded::parse(query.as_bytes()) {
        // `type=fact` for the list `types`, as people write it.
        let name = match name.as_ref() {
            "type" if !fields.contains_key("type") && fields.contains_key("types") => "types",
            n => n,
        };
        let kind = *fields
            .get(name)
            .ok_or_else(|| bad(unknown_field(name, fields)))?;
        let value = match kind {
            Kind::List => {
                let list = out
                    .entry(name.to_string())
                    .or_insert_with(|| Value::Array(Vec::new()));
                if let Value::Array(items) = list {
                    items.extend(
                        text.split(',')
                            .map(str::trim)
                            .filter(|t| !t.is_empty())
                            .map(|t| Value::String(t.to_string())),
                    );
                }
                continue;
            }
            Kind::Bool => match text.as_ref() {
                "" | "true" | "1" | "yes" => Value::Bool(true),
                "false" | "0" | "no" => Value::Bool(false),
                other => return Err(bad(format!("`{name}` is true or false, not `{other}`"))),
            },
            Kind::Integer => text
                .trim()
                .parse::<u64>()
                .map(Value::from)
                .map_err(|_| bad(format!("`{name}` is a whole number, not `{text}`")))?,
            Kind::Number => text
                .trim()
                .parse::<f64>()
                .ok()
                .and_then(serde_json::Number::from_f64)
                .map(Value::Number)
                .ok_or_else(|| bad(format!("`{name}` is a number, not `{text}`")))?,
            Kind::Other => Value::String(text.into_owned()),
        };
        if out.insert(name.to_string(), value).is_some() {
            return Err(bad(format!("`{name}` is given twice")));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use cairn_core::api::{ForgetInput, ListInput, RememberInput};

    use super::*;

    #[test]
    fn flattened_and_renamed_fields_are_known_with_their_kinds() {
        let list = fields::<ListInput>();
        assert_eq!(list.get("types"), Some(&Kind::List));
        assert_eq!(list.get("include_expired"), Some(&Kind::Bool));
        assert_eq!(list.get("limit"), Some(&Kind::Integer));
        assert_eq!(list.get("cursor"), Some(&Kind::Other));
        let remember = fields::<RememberInput>();
        assert!(remember.contains_key("type") && !remember.contains_key("kind"));
        assert_eq!(remember.get("importance"), Some(&Kind::Number));
        assert_eq!(remember.get("tags"), Some(&Kind::List));
    }

    #[test]
    fn query_strings_take_the_shape_of_their_fields() {
        let f = fields::<ForgetInput>();
        let v = query_object("tags=a,b&tags=c&type=fact&confirm&project=x%20y", &f).unwrap();
        assert_eq!(v["tags"], serde_json::json!(["a", "b", "c"]));
        assert_eq!(v["types"], serde_json::json!(["fact"]));
        assert_eq!(v["confirm"], true);
        assert_eq!(v["project"], "x y");
        let input: ForgetInput = serde_json::from_value(Value::Object(v)).unwrap();
        assert!(input.confirm && input.selection.tags.len() == 3);

        let f = fields::<ListInput>();
        let err = |q: &str| match query_object(q, &f) {
            Err(ApiError::Request { message, .. }) => message,
            other => panic!("{q}: {other:?}"),
        };
        assert!(err("limt=5").contains("unknown field `limt`"));
        assert!(err("limit=five").contains("whole number"));
        assert!(err("include_expired=maybe").contains("true or false"));
        assert!(err("sort=id&sort=newest").contains("twice"));
    }
}
