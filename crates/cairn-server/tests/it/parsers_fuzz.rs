//! A property test of the request parsers, run briefly with every suite:
//! random requests to every documented `/v1` operation (its path
//! parameters, query strings made of its parameters and of names it does
//! not have, JSON bodies made of every field name the API knows, with
//! values of every kind: huge and negative numbers, NUL and other
//! control characters, lone surrogates as JSON escapes, deep nesting,
//! bytes that are not UTF-8) must each get an answer below 500, an error
//! in the one error shape, and leave the store serving.
//!
//! The generator is seeded: a failure names its seed, and
//! `CAIRN_FUZZ_SEED=N` replays it; `CAIRN_FUZZ_CASES` runs more cases.

use axum::body::Body;
use axum::http::Request;
use cairn_server::rest::{openapi, operations};
use cairn_server::router;
use http_body_util::BodyExt;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

use crate::state;

/// xorshift64*: small, seeded, good enough to pick cases.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Strings meant to trip a parser.
const NASTY: [&str; 16] = [
    "",
    " ",
    "\u{0}",
    "a\u{0}b",
    "\u{7}\u{1b}[31m",
    "漢字かな交じり",
    "ж",
    "🦀🦀",
    "\u{202e}rtl",
    "\u{feff}",
    "../../etc/passwd",
    "%00%ff",
    "null",
    "-1",
    "1e309",
    "<script>alert(1)</script>",
];

fn random_text(rng: &mut Rng) -> String {
    match rng.below(4) {
        0 => rng.pick(&NASTY).to_string(),
        1 => {
            let n = rng.below(40);
            (0..n)
                .map(|_| char::from_u32(rng.below(0x3000) as u32).unwrap_or('?'))
                .collect()
        }
        2 => rng.pick(&NASTY).repeat(1 + rng.below(2000)),
        _ => format!("word{}", rng.below(1000)),
    }
}

fn random_value(rng: &mut Rng, names: &[String], depth: usize) -> Value {
    match rng.below(if depth > 3 { 6 } else { 8 }) {
        0 => Value::Null,
        1 => Value::Bool(rng.chance(50)),
        2 => Value::from(rng.next() as i64),
        3 => serde_json::Number::from_f64(f64::from_bits(rng.next()))
            .map_or(Value::from(-0.5), Value::Number),
        4 | 5 => Value::String(random_text(rng)),
        6 => Value::Array(
            (0..rng.below(5))
                .map(|_| random_value(rng, names, depth + 1))
                .collect(),
        ),
        _ => random_object(rng, names, depth + 1),
    }
}

fn random_object(rng: &mut Rng, names: &[String], depth: usize) -> Value {
    let mut object = Map::new();
    for _ in 0..rng.below(6) {
        let name = if rng.chance(85) {
            rng.pick(names).clone()
        } else {
            random_text(rng)
        };
        object.insert(name, random_value(rng, names, depth));
    }
    Value::Object(object)
}

/// A body: mostly a JSON object of known names, sometimes text that is
/// not JSON, JSON escapes JSON cannot hold, or bytes that are not UTF-8.
fn random_body(rng: &mut Rng, names: &[String]) -> Vec<u8> {
    match rng.below(10) {
        0 => br#"{"content":"\ud800 lone","query":"\udfff"}"#.to_vec(),
        1 => vec![0xff, 0xfe, b'{', 0x80, b'}'],
        2 => format!("{}{}", "[".repeat(200), "]".repeat(200)).into_bytes(),
        3 => random_text(rng).into_bytes(),
        _ => random_object(rng, names, 0).to_string().into_bytes(),
    }
}

/// `text`, at most 200 characters of it, percent-encoded for a URI (a URI
/// longer than HTTP carries is not the server's to parse).
fn encode(text: &str) -> String {
    let text: String = text.chars().take(200).collect();
    form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

/// Every property name of every schema of the document.
fn field_names(doc: &Value) -> Vec<String> {
    let mut names = std::collections::BTreeSet::new();
    fn walk(v: &Value, names: &mut std::collections::BTreeSet<String>) {
        match v {
            Value::Object(o) => {
                if let Some(Value::Object(props)) = o.get("properties") {
                    names.extend(props.keys().cloned());
                }
                o.values().for_each(|v| walk(v, names));
            }
            Value::Array(a) => a.iter().for_each(|v| walk(v, names)),
            _ => {}
        }
    }
    walk(doc, &mut names);
    names.into_iter().collect()
}

#[tokio::test]
async fn random_requests_to_every_route_get_a_clear_answer_and_the_store_keeps_serving() {
    let seed: u64 = std::env::var("CAIRN_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
                | 1
        });
    let cases: usize = std::env::var("CAIRN_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    let mut rng = Rng(seed);
    let app = router(state(), CancellationToken::new());
    let doc = openapi::document();
    let names = field_names(doc);
    // Not the admin routes that reach out (providers) or run long jobs.
    let ops: Vec<_> = operations()
        .into_iter()
        .filter(|op| !matches!(op.path, "/providers" | "/consolidate"))
        .collect();
    for case in 0..cases {
        let op = rng.pick(&ops);
        let method = op.method.as_str().to_ascii_lowercase();
        let params = doc["paths"][format!("/v1{}", op.path)][&method]["parameters"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let mut path = format!("/v1{}", op.path);
        while let Some(start) = path.find('{') {
            let end = start + path[start..].find('}').unwrap();
            let text = encode(&random_text(&mut rng));
            path.replace_range(start..=end, if text.is_empty() { "x" } else { &text });
        }
        let mut query = Vec::new();
        for _ in 0..rng.below(4) {
            let name = match params.get(rng.below(params.len() + 1)) {
                Some(p) if p["in"] == "query" => p["name"].as_str().unwrap_or("q").to_string(),
                _ => random_text(&mut rng),
            };
            query.push(format!(
                "{}={}",
                encode(&name),
                encode(&random_text(&mut rng))
            ));
        }
        let uri = if query.is_empty() {
            path
        } else {
            format!("{path}?{}", query.join("&"))
        };
        let body = random_body(&mut rng, &names);
        let shown = String::from_utf8_lossy(&body[..body.len().min(300)]).into_owned();
        let req = Request::builder()
            .method(op.method.clone())
            .uri(&uri)
            .header("content-type", "application/json")
            .body(Body::from(body))
            .unwrap_or_else(|e| panic!("seed {seed} case {case}: {uri}: {e}"));
        let response = app.clone().oneshot(req).await.unwrap();
        let status = response.status();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        let what = format!(
            "seed {seed} case {case}: {} {uri} with {shown:?} answered {status}: {}",
            op.method,
            String::from_utf8_lossy(&bytes[..bytes.len().min(500)])
        );
        assert!(status.as_u16() < 500, "{what}");
        if status.is_client_error() {
            let v: Value = serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{e}: {what}"));
            assert!(v["error"]["code"].is_string(), "{what}");
            assert!(v["error"]["message"].is_string(), "{what}");
        }
    }
    for uri in ["/v1/stats", "/v1/memories", "/v1/export"] {
        let response = app
            .clone()
            .oneshot(Request::get(uri).body(Body::empty()).unwrap())
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "seed {seed}: {uri} after the cases");
    }
}
