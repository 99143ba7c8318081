//! [`MockServer`]: a local HTTP server for tests (feature `test-server`)
//! that speaks `POST /v1/chat/completions`, `POST /v1/embeddings`,
//! Ollama's `POST /api/embed` and a `POST /v1/rerank`, and misbehaves on
//! request ([`Mode`]). No paid API is ever called by a test.
//!
//! Its "models" are deterministic: a chat answer repeats the request's
//! text after `Summary: ` (or, for a JSON request, lists its sentences as
//! `{"facts": […]}`); an embedding is a bag of hashed words in
//! [`MockServer::DIM`] dimensions; a rerank scores documents by how many
//! of the query's words they contain.

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};

/// How the server answers the next request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// A well-formed answer.
    Ok,
    /// A well-formed answer after this long (past a client's timeout).
    Slow(Duration),
    /// 429 with `Retry-After: SECONDS`.
    RateLimited(u64),
    /// 500.
    ServerError,
    /// 401 (a wrong key: not worth retrying).
    Unauthorized,
    /// 200 with a body that is not JSON.
    Malformed,
    /// 200, but a chat answer in prose although JSON was asked for.
    IgnoresJson,
}

/// Scripts and fallbacks by path (`*`: every path).
#[derive(Default)]
struct Shared {
    scripts: Mutex<HashMap<String, VecDeque<Mode>>>,
    fallbacks: Mutex<HashMap<String, Mode>>,
    requests: Mutex<Vec<(String, Value)>>,
}

impl Shared {
    fn next(&self, path: &str, body: &Value) -> Mode {
        self.requests
            .lock()
            .unwrap()
            .push((path.to_string(), body.clone()));
        let mut scripts = self.scripts.lock().unwrap();
        for key in [path, "*"] {
            if let Some(mode) = scripts.get_mut(key).and_then(VecDeque::pop_front) {
                return mode;
            }
        }
        let fallbacks = self.fallbacks.lock().unwrap();
        fallbacks
            .get(path)
            .or_else(|| fallbacks.get("*"))
            .copied()
            .unwrap_or(Mode::Ok)
    }
}

/// The server; it stops when dropped.
pub struct MockServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    _runtime: tokio::runtime::Runtime,
}

impl MockServer {
    /// The dimension of its embeddings.
    pub const DIM: usize = 16;

    /// Start on a free loopback port.
    pub fn start() -> MockServer {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("a runtime for the mock server");
        let shared = Arc::new(Shared::default());
        let app = Router::new()
            .route("/v1/chat/completions", post(chat))
            .route("/v1/embeddings", post(openai_embeddings))
            .route("/api/embed", post(ollama_embed))
            .route("/v1/rerank", post(rerank))
            .with_state(shared.clone());
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .expect("a loopback port");
        let addr = listener.local_addr().expect("its address");
        runtime.spawn(async move { axum::serve(listener, app).await });
        MockServer {
            addr,
            shared,
            _runtime: runtime,
        }
    }

    /// Its OpenAI-compatible base URL (`http://127.0.0.1:PORT/v1`).
    pub fn openai_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Its Ollama base URL (`http://127.0.0.1:PORT`).
    pub fn ollama_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Answer the next requests to any path in these modes, in order
    /// (then as [`MockServer::always`] says).
    pub fn script(&self, modes: &[Mode]) {
        self.script_on("*", modes);
    }

    /// Answer the next requests to `path` (e.g. `/v1/chat/completions`) in
    /// these modes, before any script for every path.
    pub fn script_on(&self, path: &str, modes: &[Mode]) {
        let mut scripts = self.shared.scripts.lock().unwrap();
        scripts.entry(path.to_string()).or_default().extend(modes);
    }

    /// Answer every request not scripted in `mode` (initially [`Mode::Ok`]).
    pub fn always(&self, mode: Mode) {
        self.always_on("*", mode);
    }

    /// Answer every request to `path` not scripted in `mode`.
    pub fn always_on(&self, path: &str, mode: Mode) {
        let mut fallbacks = self.shared.fallbacks.lock().unwrap();
        fallbacks.insert(path.to_string(), mode);
    }

    /// The requests received so far: path and JSON body.
    pub fn requests(&self) -> Vec<(String, Value)> {
        self.shared.requests.lock().unwrap().clone()
    }
}

/// The embedding of `text`: hashed words, L2-normalised (not normalised on
/// purpose for odd texts, so clients must normalise).
pub fn embedding(text: &str) -> Vec<f32> {
    let mut v = vec![0f32; MockServer::DIM];
    for word in words(text) {
        let h = word.bytes().fold(2166136261u32, |h, b| {
            (h ^ u32::from(b)).wrapping_mul(16777619)
        });
        v[h as usize % MockServer::DIM] += 1.0;
    }
    if v.iter().all(|x| *x == 0.0) {
        v[0] = 1.0;
    }
    v
}

fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

/// A response in `mode` whose well-formed body is `ok` (`prose` is the
/// body of [`Mode::IgnoresJson`]).
async fn answer(mode: Mode, ok: Value, prose: Option<Value>) -> Response {
    match mode {
        Mode::Ok => Json(ok).into_response(),
        Mode::Slow(d) => {
            tokio::time::sleep(d).await;
            Json(ok).into_response()
        }
        Mode::RateLimited(secs) => {
            let mut r = (StatusCode::TOO_MANY_REQUESTS, "slow down").into_response();
            r.headers_mut()
                .insert("Retry-After", HeaderValue::from(secs));
            r
        }
        Mode::ServerError => (StatusCode::INTERNAL_SERVER_ERROR, "boom").into_response(),
        Mode::Unauthorized => (StatusCode::UNAUTHORIZED, "bad key").into_response(),
        Mode::Malformed => (
            StatusCode::OK,
            [("Content-Type", "application/json")],
            "{\"choices\": [",
        )
            .into_response(),
        Mode::IgnoresJson => Json(prose.unwrap_or(ok)).into_response(),
    }
}

fn completion(content: &str) -> Value {
    json!({"object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]})
}

async fn chat(State(s): State<Arc<Shared>>, Json(body): Json<Value>) -> Response {
    let mode = s.next("/v1/chat/completions", &body);
    let user = body["messages"]
        .as_array()
        .and_then(|m| m.iter().rev().find(|m| m["role"] == "user"))
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_string();
    let wants_json = body["response_format"]["type"] == "json_object";
    let ok = if wants_json {
        let facts: Vec<&str> = user
            .split(['.', '\n'])
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        completion(&json!({ "facts": facts }).to_string())
    } else {
        completion(&format!("Summary: {}", user.replace('\n', " ")))
    };
    let prose = completion("Sure! Here is what I found in the text.");
    answer(mode, ok, Some(prose)).await
}

fn inputs(body: &Value) -> Vec<String> {
    match &body["input"] {
        Value::String(s) => vec![s.clone()],
        Value::Array(a) => a
            .iter()
            .map(|v| v.as_str().unwrap_or_default().to_string())
            .collect(),
        _ => Vec::new(),
    }
}

async fn openai_embeddings(State(s): State<Arc<Shared>>, Json(body): Json<Value>) -> Response {
    let mode = s.next("/v1/embeddings", &body);
    let data: Vec<Value> = inputs(&body)
        .iter()
        .enumerate()
        .map(|(i, t)| json!({"object": "embedding", "index": i, "embedding": embedding(t)}))
        .collect();
    answer(mode, json!({"object": "list", "data": data}), None).await
}

async fn ollama_embed(State(s): State<Arc<Shared>>, Json(body): Json<Value>) -> Response {
    let mode = s.next("/api/embed", &body);
    let vectors: Vec<Vec<f32>> = inputs(&body).iter().map(|t| embedding(t)).collect();
    answer(
        mode,
        json!({"model": body["model"], "embeddings": vectors}),
        None,
    )
    .await
}

async fn rerank(State(s): State<Arc<Shared>>, Json(body): Json<Value>) -> Response {
    let mode = s.next("/v1/rerank", &body);
    let query: Vec<String> = words(body["query"].as_str().unwrap_or_default()).collect();
    let results: Vec<Value> = body["documents"]
        .as_array()
        .map(|docs| {
            docs.iter()
                .enumerate()
                .map(|(i, d)| {
                    let text = d.as_str().unwrap_or_default();
                    let held: std::collections::HashSet<String> = words(text).collect();
                    let hits = query.iter().filter(|w| held.contains(*w)).count();
                    json!({"index": i, "relevance_score": hits as f64 / (1 + query.len()) as f64})
                })
                .collect()
        })
        .unwrap_or_default();
    answer(mode, json!({"results": results}), None).await
}
