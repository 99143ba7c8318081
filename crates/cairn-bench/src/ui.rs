//! `ui`: the web UI's server time at scale. A SQLite store of synthetic
//! memories (synthetic embeddings: a search's time here leaves out the
//! model's embedding of the query), the application in this process
//! (`cairn_server::router`, requests through `tower`'s `oneshot`, no
//! socket) signed in with an API key as a browser is, and for each page
//! the time from request to the last byte of the answer. Also the bytes a
//! browser transfers for the memory browser's first load: the page, its
//! stylesheet and its two scripts (uncompressed).

use std::sync::Arc;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use cairn_core::api::EngineBuilder;
use cairn_core::api::{self, CreateKeyInput};
use cairn_core::{Store, StoreCaches};
use cairn_mcp::{CairnMcp, McpConfig};
use cairn_server::{AppState, RateLimits};
use cairn_sqlite::SqliteStore;
use http_body_util::BodyExt;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

use crate::synth::{Corpus, SyntheticEmbedder};
use crate::timing::percentile;

/// One request's answer: status, time to the last byte (ms) and body.
async fn fetch(
    app: &axum::Router,
    req: Request<Body>,
) -> Result<(StatusCode, f64, axum::body::Bytes)> {
    let t = Instant::now();
    let response = app.clone().oneshot(req).await?;
    let status = response.status();
    let body = response.into_body().collect().await?.to_bytes();
    Ok((status, t.elapsed().as_secs_f64() * 1000.0, body))
}

fn get(path: &str, cookie: &str) -> Request<Body> {
    Request::get(path)
        .header(header::HOST, "localhost")
        .header(header::COOKIE, format!("cairn_session={cookie}"))
        .body(Body::empty())
        .expect("a request")
}

/// Run the benchmark and print its tables.
pub fn run(memories: usize, runs: usize) -> Result<()> {
    let tmp = tempfile::tempdir()?;
    let path = tmp.path().join("ui-bench.db");
    let corpus = Arc::new(Corpus::new(42));
    let embedder = Arc::new(SyntheticEmbedder::new((*corpus).clone()));
    let sqlite = Arc::new(SqliteStore::open(&path)?);
    let store: Arc<dyn Store> = sqlite.clone();
    let cairn = EngineBuilder::new(store.clone(), embedder.clone()).build()?;
    let fill = crate::store::fill(
        &cairn,
        Some(&sqlite),
        &corpus,
        &embedder,
        memories,
        tmp.path(),
    )?;
    sqlite.preload()?;
    let key = api::create_key(
        &cairn,
        CreateKeyInput {
            tenant: None,
            role: "write".into(),
            ..Default::default()
        },
    )?
    .key;
    let one = cairn
        .list(&cairn.filter("default"), cairn_core::ListOrder::Id, 1, 0)?
        .pop()
        .context("an empty store")?
        .id
        .to_string();
    let unlimited = RateLimits {
        writes: 0,
        recalls: 0,
        reads: 0,
    };
    let engine = cairn.clone();
    let state = AppState::new(CairnMcp::new(cairn, McpConfig::new("default")))
        .with_rate_limits(unlimited, Default::default());
    let app = cairn_server::router(state, CancellationToken::new());
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    rt.block_on(async move {
        let login = Request::post("/ui/login")
            .header(header::HOST, "localhost")
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(Body::from(format!("key={key}")))?;
        let response = app.clone().oneshot(login).await?;
        let cookie = response
            .headers()
            .get(header::SET_COOKIE)
            .and_then(|c| c.to_str().ok())
            .and_then(|c| c.strip_prefix("cairn_session="))
            .and_then(|c| c.split(';').next())
            .context("signing in set no cookie")?
            .to_string();

        // The first load of the memory browser: the page and its assets.
        let (status, _, page) = fetch(&app, get("/ui/memories", &cookie)).await?;
        if status != StatusCode::OK {
            bail!("/ui/memories answered {status}");
        }
        let mut bytes = vec![("page (50 rows)", page.len())];
        for (name, asset) in [
            ("app.css", "/ui/assets/app.css"),
            ("app.js", "/ui/assets/app.js"),
            ("htmx.min.js", "/ui/assets/htmx.min.js"),
        ] {
            bytes.push((name, fetch(&app, get(asset, &cookie)).await?.2.len()));
        }

        let pages: Vec<(&str, PathOf<'_>)> = vec![
            ("memory browser, first page (50 rows, newest first)", Box::new(|_| "/ui/memories".into())),
            ("memory browser, page 100 (offset cursor)", Box::new(|_| "/ui/memories?cursor=at:4950".into())),
            ("search, keyword, with explain (50 results)", Box::new(|i| format!("/ui/memories?mode=keyword&q={}", query(&corpus, i)))),
            ("search, hybrid, with explain (50 results; synthetic query embedding)", Box::new(|i| format!("/ui/memories?q={}", query(&corpus, i)))),
            ("memory page (history, similar memories)", Box::new(|_| format!("/ui/memories/{one}"))),
            ("overview (counts, most used, newest)", Box::new(|_| "/ui".into())),
            ("overview's growth chart, fetched after it (13 counts)", Box::new(|_| "/ui/growth".into())),
        ];
        println!("| {memories} memories (filled in {fill:.1} s), {runs} runs each | p50 | p95 | answer |");
        println!("|---|---:|---:|---:|");
        for (label, path) in &pages {
            // The chart counts the whole store 13 times: fewer runs.
            let runs = if path(0) == "/ui/growth" { runs.min(5) } else { runs };
            let mut samples = Vec::with_capacity(runs);
            let mut size = 0;
            for i in 0..runs {
                let (status, ms, body) = fetch(&app, get(&path(i), &cookie)).await?;
                if status != StatusCode::OK {
                    bail!("{} answered {status}", path(i));
                }
                samples.push(ms);
                size = body.len();
            }
            samples.sort_by(f64::total_cmp);
            println!(
                "| {label} | {:.1} ms | {:.1} ms | {:.0} KB |",
                percentile(&samples, 50.0),
                percentile(&samples, 95.0),
                size as f64 / 1000.0
            );
        }
        api_alone(&engine, runs)?;
        println!();
        println!("| first load of the memory browser | bytes |");
        println!("|---|---:|");
        for (name, n) in &bytes {
            println!("| {name} | {n} |");
        }
        let total: usize = bytes.iter().map(|b| b.1).sum();
        println!("| total (uncompressed; the server does not compress) | {total} |");
        anyhow::Ok(())
    })
}

/// The rows for the application layer alone on the browser's first page
/// (what the UI adds is the difference) and the store's count in it.
fn api_alone(engine: &cairn_core::Cairn, runs: usize) -> Result<()> {
    // The application layer alone, for the same first page: what the
    // UI adds is the difference.
    let caller = api::Caller::new("default");
    let mut alone = Vec::with_capacity(runs);
    let mut counting = Vec::with_capacity(runs);
    for _ in 0..runs {
        let input = api::ListInput {
            selection: api::Selection {
                all_projects: true,
                ..Default::default()
            },
            limit: Some(50),
            ..Default::default()
        };
        let t = Instant::now();
        api::list(engine, &caller, input)?;
        alone.push(t.elapsed().as_secs_f64() * 1000.0);
        let mut filter = engine.filter("default");
        filter.scope = cairn_core::ScopeFilter::All;
        let t = Instant::now();
        engine.store().count(&filter)?;
        counting.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    alone.sort_by(f64::total_cmp);
    counting.sort_by(f64::total_cmp);
    println!(
        "| of which `api::list` alone (`GET /v1/memories?all_projects=true&limit=50`) | {:.1} ms | {:.1} ms | |",
        percentile(&alone, 50.0),
        percentile(&alone, 95.0)
    );
    println!(
        "| of which the store's count of the total | {:.1} ms | {:.1} ms | |",
        percentile(&counting, 50.0),
        percentile(&counting, 95.0)
    );
    Ok(())
}

/// The path of a page's `i`-th request.
type PathOf<'a> = Box<dyn Fn(usize) -> String + 'a>;

/// A query's text for a URL.
fn query(corpus: &Corpus, i: usize) -> String {
    form_urlencoded::byte_serialize(corpus.query_text(i as u64).as_bytes()).collect()
}
