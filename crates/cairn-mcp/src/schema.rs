//! The tools' schemas as clients get them: made once, when the router is
//! built, from what schemars generates. Only JSON Schema's own formats are
//! kept (schemars writes `uint`, `uint32`, `double`… which clients warn
//! about; an unsigned integer keeps its meaning as `minimum: 0`), and output
//! schemas keep their types and structure but not their prose (the `help`
//! tool and docs/MCP.md describe results), so that the whole `tools/list`
//! answer stays a few thousand tokens.

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
        if let Value::Object(map) = input {
            tool.input_schema = Arc::new(map);
        }
        if let Some(output) = &tool.output_schema {
            let mut output = Value::Object(output.as_ref().clone());
            clean(&mut output, true);
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
