//! The tools' schemas as clients get them: made once, when the router is
//! built, from what schemars generates, so that the whole `tools/list`
//! answer stays about 5,000 tokens (a test holds it under 20 KB).
//! - Only JSON Schema's own formats are kept (schemars writes `uint`,
//!   `uint32`, `double`… which clients warn about); an unsigned integer
//!   keeps its meaning as `minimum: 0`.
//! - Input schemas keep each parameter's first sentence (the `help` tool's
//!   topic `parameters` gives them whole) and no `default` that only says
//!   "absent" (null, false, empty).
//! - Output schemas type the result's own fields (and the items of its
//!   arrays of scalars); objects inside it are only typed `object`
//!   (docs/MCP.md describes them), and carry no prose.

use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use serde_json::{Map, Value};

/// The formats JSON Schema (draft 2020-12) defines; others are dropped.
const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Keywords whose value maps names to schemas (the names are not keywords).
const SCHEMA_MAPS: &[&str] = &["properties", "$defs", "definitions", "patternProperties"];

/// Keywords that only explain, dropped from output schemas.
const PROSE: &[&str] = &["description", "title", "examples", "default", "$schema"];

/// Make every tool's schemas of `router` what clients get (see the module).
pub(crate) fn compact<S>(router: &mut ToolRouter<S>) {
    for route in router.map.values_mut() {
        let tool = &mut route.attr;
        let mut input = Value::Object(tool.input_schema.as_ref().clone());
        clean(&mut input, false);
        shorten_parameters(&mut input);
        if let Value::Object(map) = input {
            tool.input_schema = Arc::new(map);
        }
        if let Some(output) = &tool.output_schema {
            let mut output = Value::Object(output.as_ref().clone());
            clean(&mut output, true);
            let defs = output.get("$defs").cloned().unwrap_or(Value::Null);
            output = shallow(&output, 1, &defs);
            if let Value::Object(map) = output {
                tool.output_schema = Some(Arc::new(map));
            }
        }
    }
}

/// Clean the schema `node` (and the schemas inside it): standard formats
/// only, and no prose when `output`. The top level's `title` and `$schema`
/// go in both cases (the tool's name says it).
pub(crate) fn clean(node: &mut Value, output: bool) {
    if let Value::Object(map) = node {
        map.remove("title");
        map.remove("$schema");
        clean_schema(map, output);
    }
}

fn clean_schema(map: &mut Map<String, Value>, output: bool) {
    if let Some(Value::String(format)) = map.get("format") {
        if !STANDARD_FORMATS.contains(&format.as_str()) {
            let unsigned = format.starts_with("uint");
            map.remove("format");
            if unsigned && !map.contains_key("minimum") {
                map.insert("minimum".into(), 0.into());
            }
        }
    }
    if output {
        for key in PROSE {
            map.remove(*key);
        }
    }
    for (key, value) in map.iter_mut() {
        if SCHEMA_MAPS.contains(&key.as_str()) {
            if let Value::Object(named) = value {
                for schema in named.values_mut() {
                    clean_value(schema, output);
                }
            }
        } else if key != "enum" && key != "const" {
            clean_value(value, output);
        }
    }
}

/// A value under a keyword: a schema, or an array of schemas.
fn clean_value(value: &mut Value, output: bool) {
    match value {
        Value::Object(map) => clean_schema(map, output),
        Value::Array(items) => items.iter_mut().for_each(|v| clean_value(v, output)),
        _ => {}
    }
}

/// The first sentence of `text` on one line: up to the first `.`, `:` or
/// `;` followed by a space, outside parentheses and not in "e.g.".
pub(crate) fn first_sentence(text: &str) -> String {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut depth = 0i32;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for (i, &(at, c)) in chars.iter().enumerate() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            '.' | ':' | ';' if depth <= 0 => {
                let next = chars.get(i + 1).map(|&(_, c)| c);
                let abbreviation = text[..at].ends_with("e.g") || text[..at].ends_with("i.e");
                if matches!(next, None | Some(' ')) && !abbreviation {
                    return text[..at].to_string();
                }
            }
            _ => {}
        }
    }
    text
}

/// The longest parameter description kept, in bytes.
const MAX_PARAMETER_TEXT: usize = 36;

/// `text` cut on a word boundary to [`MAX_PARAMETER_TEXT`], marked `…`.
fn capped(text: String) -> String {
    if text.len() <= MAX_PARAMETER_TEXT {
        return text;
    }
    let mut end = MAX_PARAMETER_TEXT;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let cut = text[..end].rfind(' ').unwrap_or(end);
    format!("{}…", text[..cut].trim_end_matches([',', ' ', '(']))
}

/// Each parameter of the input schema `schema`: its first sentence (at
/// most [`MAX_PARAMETER_TEXT`] bytes), no
/// default that means absent, and no `null` among its types (leaving a
/// parameter out says the same).
fn shorten_parameters(schema: &mut Value) {
    // The tool's description says what the parameters are for.
    if let Value::Object(map) = schema {
        map.remove("description");
    }
    let Some(Value::Object(props)) = schema.get_mut("properties") else {
        return;
    };
    for prop in props.values_mut() {
        let Value::Object(p) = prop else { continue };
        if let Some(Value::String(d)) = p.get_mut("description") {
            *d = capped(first_sentence(d));
        }
        let absent = |v: &Value| match v {
            Value::Null | Value::Bool(false) => true,
            Value::Array(a) => a.is_empty(),
            Value::Object(o) => o.is_empty(),
            _ => false,
        };
        if p.get("default").is_some_and(absent) {
            p.remove("default");
        }
        if let Some(Value::Array(types)) = p.get_mut("type") {
            types.retain(|t| t != "null");
            if types.len() == 1 {
                let only = types[0].clone();
                p.insert("type".into(), only);
            }
        }
    }
}

/// `schema` with `$ref`s into `defs` resolved, nullable alternatives as a
/// `null` type, alternatives of constants as an `enum`, and the properties
/// of objects kept `depth` levels deep (deeper objects are only typed).
fn shallow(schema: &Value, depth: usize, defs: &Value) -> Value {
    let mut schema = schema;
    if let Some(Value::String(r)) = schema.get("$ref") {
        let name = r.rsplit('/').next().unwrap_or_default();
        match defs.get(name) {
            Some(def) => schema = def,
            None => return Value::Object(Map::new()),
        }
    }
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(alts)) = schema.get(key) else {
            continue;
        };
        let consts: Option<Vec<Value>> = alts.iter().map(|a| a.get("const").cloned()).collect();
        if let Some(values) = consts {
            return serde_json::json!({"type": "string", "enum": values});
        }
        let others: Vec<&Value> = alts
            .iter()
            .filter(|a| a.get("type") != Some(&"null".into()))
            .collect();
        if others.len() == 1 {
            let mut one = shallow(others[0], depth, defs);
            if others.len() < alts.len() {
                if let Some(Value::String(t)) = one.get("type").cloned() {
                    one["type"] = serde_json::json!([t, "null"]);
                }
            }
            return one;
        }
        // Alternatives of different shapes: any value.
        return Value::Object(Map::new());
    }
    let mut out = Map::new();
    for key in ["type", "enum", "const"] {
        if let Some(v) = schema.get(key) {
            out.insert(key.into(), v.clone());
        }
    }
    let has = |t: &str| match schema.get("type") {
        Some(Value::String(s)) => s == t,
        Some(Value::Array(a)) => a.iter().any(|x| x == t),
        _ => false,
    };
    if has("object") && depth > 0 {
        if let Some(Value::Object(props)) = schema.get("properties") {
            let props: Map<String, Value> = props
                .iter()
                .map(|(k, v)| (k.clone(), shallow(v, depth - 1, defs)))
                .collect();
            out.insert("properties".into(), Value::Object(props));
        }
    }
    if has("array") {
        if let Some(items) = schema.get("items") {
            let items = shallow(items, depth, defs);
            // An array of objects too deep to describe is only an array.
            if depth > 0 || items.get("type") != Some(&"object".into()) {
                out.insert("items".into(), items);
            }
        }
    }
    Value::Object(out)
}
