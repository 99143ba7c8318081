//! `GET /metrics`: Prometheus text. Requests by route, method and status,
//! their latency as a histogram by route, requests in flight, rate-limit
//! rejections by class, the embedding queue ([`MeteredEmbedder`]: calls
//! waiting for or running on the model, texts embedded, time per call),
//! and memories by tenant. Labels are route patterns
//! (`/v1/memories/{id}`), never ids or content, and standard methods:
//! what a client sends (a made-up method, a path no route has) falls into
//! one label (`other`, `unmatched`), so requests cannot grow the number
//! of series.
//!
//! Memories by tenant name tenants, which may be customers: an answer
//! carries them only for an admin key (`Authorization: Bearer`), or on a
//! server without keys; without a key the rest is public (a scraper needs
//! none), with any other key the request is refused.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use cairn_core::embed::{Embedder, ModelInfo};
use cairn_core::Cairn;

use crate::limits::Class;
use crate::AppState;

/// Upper bounds (seconds) of the latency histogram's buckets.
const BUCKETS: [f64; 12] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
];

#[derive(Debug, Default, Clone)]
struct Histogram {
    /// Counts per bucket (not cumulative), then the overflow.
    counts: [u64; BUCKETS.len() + 1],
    sum: f64,
}

impl Histogram {
    fn observe(&mut self, secs: f64) {
        let i = BUCKETS
            .iter()
            .position(|&b| secs <= b)
            .unwrap_or(BUCKETS.len());
        self.counts[i] += 1;
        self.sum += secs;
    }
}

/// What the server counts.
#[derive(Debug, Default)]
pub struct Metrics {
    requests: Mutex<BTreeMap<(String, String, u16), u64>>,
    latency: Mutex<BTreeMap<String, Histogram>>,
    in_flight: AtomicU64,
    rate_limited: [AtomicU64; 3],
    embedding: EmbeddingMeter,
}

/// What the embedding model is asked to do.
#[derive(Debug, Default)]
struct EmbeddingMeter {
    /// Calls waiting for or running on the model now: the queue.
    queued: AtomicU64,
    /// Texts embedded.
    texts: AtomicU64,
    /// Time per call, queueing included.
    latency: Mutex<Histogram>,
}

/// An [`Embedder`] that counts its calls into [`Metrics`]: a server's
/// engine embeds through it, so `/metrics` shows the embedding queue.
pub struct MeteredEmbedder {
    inner: Arc<dyn Embedder>,
    metrics: Arc<Metrics>,
}

impl MeteredEmbedder {
    /// `inner`, counted into `metrics`.
    pub fn new(inner: Arc<dyn Embedder>, metrics: Arc<Metrics>) -> Self {
        MeteredEmbedder { inner, metrics }
    }
}

impl Embedder for MeteredEmbedder {
    fn model(&self) -> ModelInfo {
        self.inner.model()
    }

    fn embed_batch(&self, texts: &[&str]) -> cairn_core::Result<Vec<Vec<f32>>> {
        let meter = &self.metrics.embedding;
        meter.queued.fetch_add(1, Ordering::Relaxed);
        let start = Instant::now();
        let result = self.inner.embed_batch(texts);
        meter.queued.fetch_sub(1, Ordering::Relaxed);
        meter
            .latency
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .observe(start.elapsed().as_secs_f64());
        if result.is_ok() {
            meter.texts.fetch_add(texts.len() as u64, Ordering::Relaxed);
        }
        result
    }
}

fn class_index(class: Class) -> usize {
    match class {
        Class::Write => 0,
        Class::Recall => 1,
        Class::Read => 2,
    }
}

impl Metrics {
    /// Count a request refused by its rate limit.
    pub fn rate_limited(&self, class: Class) {
        self.rate_limited[class_index(class)].fetch_add(1, Ordering::Relaxed);
    }

    /// Requests refused by a rate limit since the server started, by
    /// class (`write`, `recall`, `read`).
    pub fn rate_limited_counts(&self) -> [(&'static str, u64); 3] {
        let n = |i: usize| self.rate_limited[i].load(Ordering::Relaxed);
        [("write", n(0)), ("recall", n(1)), ("read", n(2))]
    }

    fn record(&self, route: &str, method: &str, status: u16, secs: f64) {
        let mut requests = self.requests.lock().unwrap_or_else(|e| e.into_inner());
        *requests
            .entry((route.to_string(), method.to_string(), status))
            .or_default() += 1;
        drop(requests);
        self.latency
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(route.to_string())
            .or_default()
            .observe(secs);
    }

    /// The Prometheus text of everything counted, with `memories` (tenant,
    /// count) as a gauge.
    pub fn render(&self, memories: &[(String, usize)]) -> String {
        let mut out = String::new();
        out.push_str("# HELP cairn_http_requests_total HTTP requests answered, by route pattern, method and status.\n# TYPE cairn_http_requests_total counter\n");
        for ((route, method, status), n) in self
            .requests
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
        {
            let _ = writeln!(
                out,
                "cairn_http_requests_total{{route=\"{}\",method=\"{method}\",status=\"{status}\"}} {n}",
                escape(route)
            );
        }
        out.push_str("# HELP cairn_http_request_duration_seconds Time to answer, by route pattern.\n# TYPE cairn_http_request_duration_seconds histogram\n");
        for (route, h) in self
            .latency
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
        {
            let labels = format!("route=\"{}\",", escape(route));
            write_histogram(&mut out, "cairn_http_request_duration_seconds", &labels, h);
        }
        let in_flight = self.in_flight.load(Ordering::Relaxed);
        write_value(
            &mut out,
            "cairn_http_requests_in_flight",
            "gauge",
            "Requests being answered now.",
            in_flight,
        );
        out.push_str("# HELP cairn_rate_limited_total Requests refused by a key's rate limit, by class.\n# TYPE cairn_rate_limited_total counter\n");
        for (class, n) in ["write", "recall", "read"].iter().zip(&self.rate_limited) {
            let _ = writeln!(
                out,
                "cairn_rate_limited_total{{class=\"{class}\"}} {}",
                n.load(Ordering::Relaxed)
            );
        }
        let embedding = &self.embedding;
        let queued = embedding.queued.load(Ordering::Relaxed);
        write_value(
            &mut out,
            "cairn_embedding_queue",
            "gauge",
            "Embedding calls waiting for or running on the model.",
            queued,
        );
        let texts = embedding.texts.load(Ordering::Relaxed);
        write_value(
            &mut out,
            "cairn_embedded_texts_total",
            "counter",
            "Texts embedded.",
            texts,
        );
        out.push_str("# HELP cairn_embedding_duration_seconds Time of an embedding call, queueing included.\n# TYPE cairn_embedding_duration_seconds histogram\n");
        write_histogram(
            &mut out,
            "cairn_embedding_duration_seconds",
            "",
            &embedding.latency.lock().unwrap_or_else(|e| e.into_inner()),
        );
        out.push_str("# HELP cairn_memories Memories stored, by tenant (expired and superseded included).\n# TYPE cairn_memories gauge\n");
        for (tenant, n) in memories {
            let _ = writeln!(out, "cairn_memories{{tenant=\"{}\"}} {n}", escape(tenant));
        }
        out
    }
}

/// A metric of one unlabelled value, with its help and type lines.
fn write_value(out: &mut String, name: &str, kind: &str, help: &str, value: u64) {
    let _ = writeln!(
        out,
        "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {value}"
    );
}

/// A histogram's `_bucket` (cumulative), `_sum` and `_count` lines;
/// `labels` is empty or ends with a comma.
fn write_histogram(out: &mut String, name: &str, labels: &str, h: &Histogram) {
    let mut cumulative = 0;
    for (bound, n) in BUCKETS.iter().zip(h.counts) {
        cumulative += n;
        let _ = writeln!(out, "{name}_bucket{{{labels}le=\"{bound}\"}} {cumulative}");
    }
    cumulative += h.counts[BUCKETS.len()];
    let _ = writeln!(out, "{name}_bucket{{{labels}le=\"+Inf\"}} {cumulative}");
    let labels = match labels.trim_end_matches(',') {
        "" => String::new(),
        l => format!("{{{l}}}"),
    };
    let _ = writeln!(out, "{name}_sum{labels} {}", h.sum);
    let _ = writeln!(out, "{name}_count{labels} {cumulative}");
}

/// A label value as Prometheus's text format writes it.
fn escape(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// The middleware: time and count every request by its route pattern.
pub async fn observe(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| unmatched(req.uri().path()), |m| m.as_str().to_string());
    let method = method_label(req.method()).to_string();
    let metrics = &state.metrics;
    metrics.in_flight.fetch_add(1, Ordering::Relaxed);
    let start = Instant::now();
    let response = next.run(req).await;
    metrics.in_flight.fetch_sub(1, Ordering::Relaxed);
    metrics.record(
        &route,
        &method,
        response.status().as_u16(),
        start.elapsed().as_secs_f64(),
    );
    response
}

/// The label of a method: the standard ones by name, any other `other`.
fn method_label(method: &axum::http::Method) -> &'static str {
    use axum::http::Method;
    match *method {
        Method::GET => "GET",
        Method::HEAD => "HEAD",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::OPTIONS => "OPTIONS",
        _ => "other",
    }
}

/// The label of a request no route matched: its first path segment only
/// (paths may carry ids).
fn unmatched(path: &str) -> String {
    match path.trim_start_matches('/').split('/').next() {
        Some("mcp") => "/mcp".into(),
        _ => "unmatched".into(),
    }
}

/// Every tenant's count of memories.
fn tenants(cairn: &Cairn) -> cairn_core::Result<Vec<(String, usize)>> {
    cairn
        .store()
        .tenants(cairn_core::TenantsWith::Memories)?
        .into_iter()
        .map(|t| Ok((t.clone(), cairn.stats(&t)?.0.total)))
        .collect()
}

/// Whether the request may see every tenant's name: a server without
/// keys, or an admin key; `Err` for a key that is not valid or not an
/// admin's.
async fn sees_tenants(
    state: &AppState,
    headers: &axum::http::HeaderMap,
) -> Result<bool, crate::ApiError> {
    if state.auth == crate::Auth::Open {
        return Ok(true);
    }
    if !headers.contains_key(header::AUTHORIZATION) {
        return Ok(false);
    }
    let key = crate::auth::bearer(headers)?.to_string();
    let who = cairn_mcp::on_engine(&state.cairn, move |c| {
        cairn_core::api::authenticate(c, &key)
    })
    .await?;
    who.require(cairn_core::keys::Role::Admin).map_err(|_| {
        cairn_core::Error::Forbidden(
            "only an admin key sees memories by tenant; send no key for the rest of /metrics"
                .into(),
        )
    })?;
    Ok(true)
}

/// `GET /metrics`.
pub async fn serve(State(state): State<AppState>, headers: axum::http::HeaderMap) -> Response {
    let all = match sees_tenants(&state, &headers).await {
        Ok(all) => all,
        Err(e) => return e.into_response(),
    };
    let memories = if all {
        cairn_mcp::on_engine(&state.cairn, tenants)
            .await
            .unwrap_or_else(|e| {
                tracing::warn!(error = %e, "counting memories for /metrics");
                Vec::new()
            })
    } else {
        Vec::new()
    };
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        state.metrics.render(&memories),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_format_counts_and_accumulates_buckets() {
        let m = Metrics::default();
        m.record("/v1/recall", "POST", 200, 0.003);
        m.record("/v1/recall", "POST", 200, 0.2);
        m.record("/v1/recall", "POST", 429, 0.0001);
        m.rate_limited(Class::Recall);
        let text = m.render(&[("al\"ice".into(), 3)]);
        assert!(
            text.contains(
                r#"cairn_http_requests_total{route="/v1/recall",method="POST",status="200"} 2"#
            ),
            "{text}"
        );
        assert!(text.contains(r#"status="429"} 1"#));
        assert!(
            text.contains(
                r#"cairn_http_request_duration_seconds_bucket{route="/v1/recall",le="0.0005"} 1"#
            ),
            "{text}"
        );
        assert!(text.contains(
            r#"cairn_http_request_duration_seconds_bucket{route="/v1/recall",le="0.005"} 2"#
        ));
        assert!(text.contains(r#"le="+Inf"} 3"#));
        assert!(text.contains(r#"cairn_rate_limited_total{class="recall"} 1"#));
        assert!(text.contains(r#"cairn_memories{tenant="al\"ice"} 3"#));
        assert_eq!(unmatched("/v1/memories/0196abcd"), "unmatched");
        let custom = axum::http::Method::from_bytes(b"CUSTOM1").unwrap();
        assert_eq!(method_label(&custom), "other");
        assert!(text.contains("cairn_embedding_queue 0\n"), "{text}");
    }

    /// An embedder that waits until told, so a call can be seen queued.
    struct Gate(std::sync::Mutex<()>);

    impl Embedder for Gate {
        fn model(&self) -> ModelInfo {
            ModelInfo {
                name: "gate".into(),
                dim: 2,
            }
        }

        fn embed_batch(&self, texts: &[&str]) -> cairn_core::Result<Vec<Vec<f32>>> {
            let _open = self.0.lock().unwrap();
            Ok(texts.iter().map(|_| vec![1.0, 0.0]).collect())
        }
    }

    #[test]
    fn the_embedding_queue_counts_calls_in_progress_and_texts_done() {
        let metrics = Arc::new(Metrics::default());
        let gate = Arc::new(Gate(std::sync::Mutex::new(())));
        let metered = Arc::new(MeteredEmbedder::new(gate.clone(), metrics.clone()));
        let closed = gate.0.lock().unwrap();
        let waiting = {
            let metered = metered.clone();
            std::thread::spawn(move || metered.embed_batch(&["a", "b"]).unwrap().len())
        };
        while metrics.embedding.queued.load(Ordering::Relaxed) == 0 {
            std::thread::yield_now();
        }
        assert!(metrics.render(&[]).contains("cairn_embedding_queue 1\n"));
        drop(closed);
        assert_eq!(waiting.join().unwrap(), 2);
        let text = metrics.render(&[]);
        assert!(text.contains("cairn_embedding_queue 0\n"), "{text}");
        assert!(text.contains("cairn_embedded_texts_total 2\n"), "{text}");
        assert!(
            text.contains("cairn_embedding_duration_seconds_count 1\n"),
            "{text}"
        );
    }
}
