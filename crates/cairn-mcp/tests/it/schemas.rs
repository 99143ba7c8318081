//! The size and the formats of the `tools/list` answer: it stays small
//! enough for a model's context (every byte of it is read at each session
//! start), and its schemas use only JSON Schema's own formats, which every
//! client knows (the official TypeScript SDK warns on others).

use serde_json::Value;

use crate::Env;

/// The largest `tools/list` answer, in bytes of JSON.
const MAX_BYTES: usize = 20_000;

/// The largest `tools/list` answer in `cl100k_base` tokens: what it costs
/// an agent's context at each session start.
const MAX_TOKENS: usize = 5_000;

/// The formats JSON Schema (draft 2020-12) defines.
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

/// The tools as the server answers `tools/list`, as JSON.
async fn tools_list() -> Value {
    let env = Env::new();
    let client = env.client(None).await;
    let tools = client.list_all_tools().await.unwrap();
    serde_json::json!({ "tools": tools })
}

/// Every `format` of `schema` that JSON Schema does not define, by path.
fn odd_formats(schema: &Value, path: &str, out: &mut Vec<String>) {
    match schema {
        Value::Object(map) => {
            for (k, v) in map {
                let here = format!("{path}/{k}");
                if k == "format" {
                    if let Some(f) = v.as_str() {
                        if !STANDARD_FORMATS.contains(&f) {
                            out.push(format!("{here} = {f}"));
                        }
                    }
                }
                odd_formats(v, &here, out);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                odd_formats(v, &format!("{path}/{i}"), out);
            }
        }
        _ => {}
    }
}

#[tokio::test]
async fn the_tool_list_fits_in_a_small_context() {
    let list = tools_list().await;
    let json = serde_json::to_string(&list).unwrap();
    let bytes = json.len();
    let tokens = cairn_core::tokens::count_tokens(&json);
    let mut by_tool: Vec<String> = list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let len = |k: &str| t.get(k).map_or(0, |v| v.to_string().len());
            format!(
                "{}: description {}, input {}, output {}",
                t["name"],
                len("description"),
                len("inputSchema"),
                len("outputSchema")
            )
        })
        .collect();
    by_tool.sort();
    eprintln!(
        "tools/list: {bytes} bytes, {tokens} tokens\n{}",
        by_tool.join("\n")
    );
    assert!(
        tokens <= MAX_TOKENS,
        "tools/list is {tokens} tokens, over {MAX_TOKENS}"
    );
    assert!(
        bytes <= MAX_BYTES,
        "tools/list is {bytes} bytes, over {MAX_BYTES}:\n{}",
        by_tool.join("\n")
    );
}

#[tokio::test]
async fn every_schema_uses_only_standard_formats() {
    let list = tools_list().await;
    let mut odd = Vec::new();
    for tool in list["tools"].as_array().unwrap() {
        for key in ["inputSchema", "outputSchema"] {
            if let Some(schema) = tool.get(key) {
                odd_formats(schema, &format!("{}/{key}", tool["name"]), &mut odd);
            }
        }
    }
    assert!(odd.is_empty(), "non-standard formats: {odd:#?}");
}

/// Unsigned integers keep their meaning as a minimum of 0.
#[tokio::test]
async fn unsigned_integers_have_a_minimum_of_zero() {
    let list = tools_list().await;
    let recall = list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "recall")
        .unwrap();
    let limit = &recall["inputSchema"]["properties"]["limit"];
    assert_eq!(limit["minimum"], 0, "{limit}");
}

/// What `tools/list` shortens, the `help` topic `parameters` gives whole:
/// every parameter of every tool, its text starting as the short one does.
#[tokio::test]
async fn the_help_topic_parameters_describes_every_parameter_whole() {
    let list = tools_list().await;
    let env = Env::new();
    let client = env.client(None).await;
    let help = crate::call(&client, "help", serde_json::json!({"topic": "parameters"})).await;
    let text = help["text"].as_str().unwrap();
    for tool in list["tools"].as_array().unwrap() {
        let name = tool["name"].as_str().unwrap();
        let section = text
            .split(&format!("\n## {name}\n"))
            .nth(1)
            .unwrap_or_else(|| panic!("no section for {name}:\n{text}"));
        let section = section.split("\n## ").next().unwrap();
        let properties = tool["inputSchema"]["properties"].as_object();
        for (param, schema) in properties.into_iter().flatten() {
            let short = schema["description"].as_str().unwrap_or("");
            let short = short.trim_end_matches('…');
            let line = section
                .lines()
                .find(|l| l.starts_with(&format!("- `{param}`: ")))
                .unwrap_or_else(|| panic!("{name}.{param} missing:\n{section}"));
            assert!(line.contains(short), "{name}.{param}: {line} vs {short}");
        }
    }
}
