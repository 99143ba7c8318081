//! `serve`: the REST API under load. A store of synthetic memories (real
//! MiniLM recorded as its model, so the server embeds each hybrid query
//! with the real model), the real `cairn serve` binary with an API key,
//! and a load generator in this process: `clients` keep-alive HTTP/1.1
//! connections, each sending its next request when the last is answered,
//! for `seconds` per scenario. Prints throughput, latency percentiles,
//! errors and the server's resident memory, then the engine's own latency
//! for the same calls in this process (the REST overhead is the
//! difference at one client). [`soak`] runs a mixed load for minutes and
//! samples the server's resident memory as it goes.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use cairn_core::api::EngineBuilder;
use cairn_core::api::{self, Caller, CreateKeyInput};
use cairn_core::{Cairn, Store, StoreCaches};
use cairn_sqlite::SqliteStore;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

use crate::synth::{Corpus, SyntheticEmbedder};
use crate::timing::percentile;

/// One kind of request.
#[derive(Clone, Copy, PartialEq, Eq, Debug, clap::ValueEnum)]
pub enum Scenario {
    Hybrid,
    Keyword,
    Remember,
    Get,
    /// Of every ten requests: two hybrid recalls, four keyword recalls,
    /// three gets, one remember.
    Mixed,
}

impl Scenario {
    fn label(self) -> &'static str {
        match self {
            Scenario::Hybrid => "recall, hybrid (query embedded by the server)",
            Scenario::Keyword => "recall, keyword",
            Scenario::Remember => "remember (dedup on, embedded by the server)",
            Scenario::Get => "get by id",
            Scenario::Mixed => "mixed (2 hybrid, 4 keyword, 3 get, 1 remember in 10)",
        }
    }

    fn request(self, i: u64, corpus: &Corpus, ids: &[String]) -> (&'static str, String, String) {
        match self {
            Scenario::Hybrid | Scenario::Keyword => {
                let mode = if self == Scenario::Hybrid {
                    "hybrid"
                } else {
                    "keyword"
                };
                let body =
                    serde_json::json!({"query": corpus.query_text(i), "mode": mode, "limit": 10});
                ("POST", "/v1/recall".into(), body.to_string())
            }
            Scenario::Remember => {
                let body = serde_json::json!({"content": format!("{} (load {i})", corpus.memory_text(1_000_000 + i)), "type": "note"});
                ("POST", "/v1/memories".into(), body.to_string())
            }
            Scenario::Get => (
                "GET",
                format!("/v1/memories/{}", ids[(i as usize * 7919) % ids.len()]),
                String::new(),
            ),
            Scenario::Mixed => {
                let one = match i % 10 {
                    0 | 5 => Scenario::Hybrid,
                    1 | 3 | 6 | 8 => Scenario::Keyword,
                    2 | 4 | 7 => Scenario::Get,
                    _ => Scenario::Remember,
                };
                one.request(i / 10, corpus, ids)
            }
        }
    }
}

/// A keep-alive HTTP/1.1 connection.
struct Conn {
    reader: BufReader<TcpStream>,
    key: String,
}

impl Conn {
    async fn open(addr: &str, key: &str) -> Result<Conn> {
        let tcp = TcpStream::connect(addr).await?;
        tcp.set_nodelay(true)?;
        Ok(Conn {
            reader: BufReader::new(tcp),
            key: key.to_string(),
        })
    }

    /// Send a request and read its answer: the status.
    async fn send(&mut self, method: &str, path: &str, body: &str) -> Result<u16> {
        let req = format!(
            "{method} {path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            self.key,
            body.len()
        );
        self.reader.get_mut().write_all(req.as_bytes()).await?;
        let mut line = String::new();
        self.reader.read_line(&mut line).await?;
        let status: u16 = line
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .with_context(|| format!("bad status line {line:?}"))?;
        let mut length = 0usize;
        loop {
            line.clear();
            self.reader.read_line(&mut line).await?;
            if line == "\r\n" || line.is_empty() {
                break;
            }
            if let Some((name, value)) = line.split_once(':') {
                if name.eq_ignore_ascii_case("content-length") {
                    length = value.trim().parse()?;
                }
            }
        }
        let mut body = vec![0; length];
        self.reader.read_exact(&mut body).await?;
        Ok(status)
    }
}

/// What a scenario measured.
struct Outcome {
    latencies: Vec<f64>,
    errors: usize,
    server_errors: usize,
    seconds: f64,
}

async fn load(
    addr: &str,
    key: &str,
    scenario: Scenario,
    clients: usize,
    seconds: f64,
    corpus: Arc<Corpus>,
    ids: Arc<Vec<String>>,
) -> Result<Outcome> {
    let start = Instant::now();
    let deadline = start + Duration::from_secs_f64(seconds);
    let mut tasks = Vec::new();
    for c in 0..clients {
        let (addr, key, corpus, ids) = (
            addr.to_string(),
            key.to_string(),
            corpus.clone(),
            ids.clone(),
        );
        tasks.push(tokio::spawn(async move {
            let mut conn = Conn::open(&addr, &key).await?;
            let (mut latencies, mut errors, mut server_errors) = (Vec::new(), 0, 0);
            let mut i = c as u64 * 1_000_000;
            while Instant::now() < deadline {
                let (method, path, body) = scenario.request(i, &corpus, &ids);
                i += 1;
                let t = Instant::now();
                let status = conn.send(method, &path, &body).await?;
                latencies.push(t.elapsed().as_secs_f64() * 1000.0);
                if !(200..300).contains(&status) {
                    errors += 1;
                    server_errors += usize::from(status >= 500);
                }
            }
            anyhow::Ok((latencies, errors, server_errors))
        }));
    }
    let mut out = Outcome {
        latencies: Vec::new(),
        errors: 0,
        server_errors: 0,
        seconds: 0.0,
    };
    for t in tasks {
        let (l, e, s) = t.await??;
        out.latencies.extend(l);
        out.errors += e;
        out.server_errors += s;
    }
    out.seconds = start.elapsed().as_secs_f64();
    out.latencies.sort_by(f64::total_cmp);
    Ok(out)
}

fn rss_kib(pid: u32) -> Option<u64> {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()?
        .lines()
        .find(|l| l.starts_with("VmRSS:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// The CPU time process `pid` has used, all its threads, user and
/// system, in seconds (`/proc`'s clock ticks are `USER_HZ`, 100 a second
/// on Linux).
fn cpu_seconds(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the command name, which is in parentheses and may
    // hold spaces: utime and stime are the 14th and 15th of the line.
    let mut after = stat.rsplit_once(')')?.1.split_whitespace().skip(11);
    let utime: f64 = after.next()?.parse().ok()?;
    let stime: f64 = after.next()?.parse().ok()?;
    Some((utime + stime) / 100.0)
}

/// [`load`] on the server `child`, with the CPU time the server spent
/// per request meanwhile, in ms (none if `/proc` says nothing or no
/// request was answered).
#[allow(clippy::too_many_arguments)]
fn measured(
    rt: &tokio::runtime::Runtime,
    child: &Child,
    addr: &str,
    key: &str,
    scenario: Scenario,
    clients: usize,
    seconds: f64,
    corpus: &Arc<Corpus>,
    ids: &Arc<Vec<String>>,
) -> Result<(Outcome, Option<f64>)> {
    let start = cpu_seconds(child.id());
    let o = rt.block_on(load(
        addr,
        key,
        scenario,
        clients,
        seconds,
        corpus.clone(),
        ids.clone(),
    ))?;
    let cpu = match (start, cpu_seconds(child.id()), o.latencies.len()) {
        (Some(a), Some(b), n) if n > 0 => Some((b - a) * 1000.0 / n as f64),
        _ => None,
    };
    Ok((o, cpu))
}

fn start_server(bin: &Path, db: &Path) -> Result<(Child, String)> {
    start_server_on(bin, &db.to_string_lossy())
}

/// `cairn serve` on the store `store` names (a path or a URL).
fn start_server_on(bin: &Path, store: &str) -> Result<(Child, String)> {
    use std::io::BufRead;
    let mut child = Command::new(bin)
        .args(["serve", "--listen", "127.0.0.1:0"])
        .args([
            "--rate-writes",
            "0",
            "--rate-recalls",
            "0",
            "--rate-reads",
            "0",
        ])
        .args(["--max-concurrent", "256"])
        .env("CAIRN_STORE", store)
        .env_remove("CAIRN_DB")
        .env("CAIRN_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .with_context(|| format!("starting {}", bin.display()))?;
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line)?;
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .with_context(|| format!("cairn serve printed {line:?}"))?
        .to_string();
    Ok((child, addr))
}

/// Wait until the server at `addr` is ready (its model loaded).
fn wait_ready(rt: &tokio::runtime::Runtime, addr: &str, key: &str) -> Result<()> {
    rt.block_on(async {
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            if let Ok(mut c) = Conn::open(addr, key).await {
                if c.send("GET", "/readyz", "").await.ok() == Some(200) {
                    return anyhow::Ok(());
                }
            }
            if Instant::now() > deadline {
                bail!("cairn serve never became ready");
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
}

/// One PostgreSQL schema of `memories` synthetic memories, served by one
/// `cairn serve` and then by two (the clients split between them), under
/// the same load: throughput and latency of each.
pub fn pg_pair(
    url: &str,
    memories: usize,
    clients: usize,
    seconds: f64,
    cairn_bin: &Path,
) -> Result<()> {
    if !cairn_bin.is_file() {
        bail!(
            "{} not found: build it with `cargo build --release -p cairn-cli`",
            cairn_bin.display()
        );
    }
    let tmp = tempfile::tempdir()?;
    let schema = crate::PgSchema::new(url, "serve_pair");
    let store: Arc<dyn Store> = Arc::new(schema.open()?);
    let corpus = Arc::new(Corpus::new(42));
    let embedder = Arc::new(SyntheticEmbedder::new((*corpus).clone()));
    let synthetic = EngineBuilder::new(store.clone(), embedder.clone()).build()?;
    crate::store::fill(&synthetic, None, &corpus, &embedder, memories, tmp.path())?;
    store.set_model(&cairn_embed::model_info())?;
    let (key, ids) = key_and_ids(&synthetic)?;
    drop(synthetic);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let url = schema.url_with_schema();
    let mut servers = Vec::new();
    for _ in 0..2 {
        let (child, addr) = start_server_on(cairn_bin, &url)?;
        wait_ready(&rt, &addr, &key)?;
        servers.push((child, addr));
    }
    println!("| {memories} memories in PostgreSQL, {clients} clients, {seconds:.0} s each | servers | requests/s | p50 | p99 | errors | 5xx |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for scenario in [
        Scenario::Hybrid,
        Scenario::Keyword,
        Scenario::Get,
        Scenario::Remember,
        Scenario::Mixed,
    ] {
        for n in [1usize, 2] {
            let run = |s: usize| {
                load(
                    &servers[s].1,
                    &key,
                    scenario,
                    clients / n,
                    seconds,
                    corpus.clone(),
                    ids.clone(),
                )
            };
            let outcomes = rt.block_on(async {
                if n == 1 {
                    anyhow::Ok(vec![run(0).await?])
                } else {
                    let (a, b) = tokio::join!(run(0), run(1));
                    anyhow::Ok(vec![a?, b?])
                }
            })?;
            let mut latencies: Vec<f64> =
                outcomes.iter().flat_map(|o| o.latencies.clone()).collect();
            latencies.sort_by(f64::total_cmp);
            let rate: f64 = outcomes
                .iter()
                .map(|o| o.latencies.len() as f64 / o.seconds)
                .sum();
            println!(
                "| {} | {n} | {rate:.0} | {:.2} ms | {:.2} ms | {} | {} |",
                scenario.label(),
                percentile(&latencies, 50.0),
                percentile(&latencies, 99.0),
                outcomes.iter().map(|o| o.errors).sum::<usize>(),
                outcomes.iter().map(|o| o.server_errors).sum::<usize>(),
            );
        }
    }
    for (mut child, _) in servers {
        child.kill()?;
        child.wait()?;
    }
    Ok(())
}

/// A store of `memories` synthetic memories and a `cairn serve` over it,
/// ready (its model loaded).
struct Bench {
    tmp: tempfile::TempDir,
    path: std::path::PathBuf,
    corpus: Arc<Corpus>,
    embedder: Arc<SyntheticEmbedder>,
    key: String,
    ids: Arc<Vec<String>>,
    child: Child,
    addr: String,
    rt: tokio::runtime::Runtime,
}

impl Bench {
    fn start(memories: usize, cairn_bin: &Path) -> Result<Bench> {
        if !cairn_bin.is_file() {
            bail!(
                "{} not found: build it with `cargo build --release -p cairn-cli`",
                cairn_bin.display()
            );
        }
        let tmp = tempfile::tempdir()?;
        let path = tmp.path().join("serve-bench.db");
        let corpus = Arc::new(Corpus::new(42));
        let embedder = Arc::new(SyntheticEmbedder::new((*corpus).clone()));
        let sqlite = Arc::new(SqliteStore::open(&path)?);
        let store: Arc<dyn Store> = sqlite.clone();
        let synthetic = EngineBuilder::new(store.clone(), embedder.clone()).build()?;
        crate::store::fill(
            &synthetic,
            Some(&sqlite),
            &corpus,
            &embedder,
            memories,
            tmp.path(),
        )?;
        // The server embeds with the real model: record it as the store's.
        store.set_model(&cairn_embed::model_info())?;
        let (key, ids) = key_and_ids(&synthetic)?;
        drop(synthetic);

        let (child, addr) = start_server(cairn_bin, &path)?;
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()?;
        // Ready: the model is loaded.
        rt.block_on(async {
            let deadline = Instant::now() + Duration::from_secs(120);
            loop {
                if let Ok(mut c) = Conn::open(&addr, &key).await {
                    if c.send("GET", "/readyz", "").await.ok() == Some(200) {
                        return anyhow::Ok(());
                    }
                }
                if Instant::now() > deadline {
                    bail!("cairn serve never became ready");
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        })?;
        Ok(Bench {
            tmp,
            path,
            corpus,
            embedder,
            key,
            ids,
            child,
            addr,
            rt,
        })
    }
}

/// The scenarios [`run`] measures unless told otherwise, in its order.
pub const SCENARIOS: [Scenario; 4] = [
    Scenario::Hybrid,
    Scenario::Keyword,
    Scenario::Get,
    Scenario::Remember,
];

/// Run the benchmark's `scenarios` and print their tables.
pub fn run(
    memories: usize,
    clients: usize,
    seconds: f64,
    scenarios: &[Scenario],
    cairn_bin: &Path,
) -> Result<()> {
    let bench = Bench::start(memories, cairn_bin)?;
    let Bench {
        tmp: _tmp,
        path,
        corpus,
        embedder,
        key,
        ids,
        mut child,
        addr,
        rt,
    } = bench;
    let rss_start = rss_kib(child.id());

    println!("| {memories} memories, {clients} clients, {seconds:.0} s each | requests/s | p50 | p99 | server CPU per request | errors | 5xx |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    let mut single = Vec::new();
    for &scenario in scenarios {
        let (o, cpu) = measured(
            &rt, &child, &addr, &key, scenario, clients, seconds, &corpus, &ids,
        )?;
        let cpu = cpu.map_or("n/a".into(), |ms| format!("{ms:.2} ms"));
        println!(
            "| {} | {:.0} | {:.2} ms | {:.2} ms | {cpu} | {} | {} |",
            scenario.label(),
            o.latencies.len() as f64 / o.seconds,
            percentile(&o.latencies, 50.0),
            percentile(&o.latencies, 99.0),
            o.errors,
            o.server_errors
        );
        if matches!(scenario, Scenario::Keyword | Scenario::Get) {
            let one = rt.block_on(load(
                &addr,
                &key,
                scenario,
                1,
                seconds.min(5.0),
                corpus.clone(),
                ids.clone(),
            ))?;
            single.push((scenario, percentile(&one.latencies, 50.0)));
        }
    }
    let rss_end = rss_kib(child.id());
    child.kill()?;
    child.wait()?;

    // The engine alone, in this process, on the same store, its indexes
    // loaded as the server's are.
    let warm = Arc::new(SqliteStore::open(&path)?);
    warm.preload()?;
    let engine = EngineBuilder::new(warm, embedder).build()?;
    let caller = Caller::new("default");
    println!();
    println!("| one client, p50 | REST | engine (`cairn_core::api`, in process) | REST overhead |");
    println!("|---|---:|---:|---:|");
    for (scenario, rest) in single {
        let mut samples = Vec::new();
        for i in 0..300u64 {
            let t = Instant::now();
            match scenario {
                Scenario::Keyword => {
                    api::recall(
                        &engine,
                        &caller,
                        api::RecallInput {
                            query: corpus.query_text(i),
                            mode: Some("keyword".into()),
                            limit: Some(10),
                            ..Default::default()
                        },
                    )?;
                }
                _ => {
                    api::get(&engine, &caller, &ids[(i as usize * 7919) % ids.len()])?;
                }
            }
            samples.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        samples.sort_by(f64::total_cmp);
        let core = percentile(&samples, 50.0);
        println!(
            "| {} | {rest:.2} ms | {core:.2} ms | {:.2} ms |",
            scenario.label(),
            rest - core
        );
    }
    let fmt = |k: Option<u64>| k.map_or("n/a".into(), |k| format!("{:.0} MiB", k as f64 / 1024.0));
    println!(
        "\nServer resident memory: {} when ready, {} after the runs.",
        fmt(rss_start),
        fmt(rss_end)
    );
    Ok(())
}

/// Builds side by side on one store: `rounds` times, each of `bins` in
/// turn is started on it and serves each scenario, so that a shared
/// host's drift (its speed moves by a third within minutes) falls on
/// every build alike. Prints each build's throughput and server CPU per
/// request, round by round.
pub fn compare(
    memories: usize,
    clients: usize,
    seconds: f64,
    scenarios: &[Scenario],
    bins: &[&Path],
    rounds: usize,
) -> Result<()> {
    let bench = Bench::start(memories, bins[0])?;
    let Bench {
        tmp: _tmp,
        path,
        corpus,
        key,
        ids,
        mut child,
        rt,
        ..
    } = bench;
    child.kill()?;
    child.wait()?;
    // (build, scenario) → one (requests/s, CPU ms per request) a round.
    let mut turns = vec![vec![Vec::new(); scenarios.len()]; bins.len()];
    for round in 0..rounds {
        for (b, bin) in bins.iter().enumerate() {
            let (mut child, addr) = start_server(bin, &path)?;
            wait_ready(&rt, &addr, &key)?;
            for (s, &scenario) in scenarios.iter().enumerate() {
                let (o, cpu) = measured(
                    &rt, &child, &addr, &key, scenario, clients, seconds, &corpus, &ids,
                )?;
                let n = o.latencies.len() as f64;
                let cpu = cpu.unwrap_or(f64::NAN);
                turns[b][s].push((n / o.seconds, cpu));
                eprintln!(
                    "round {}, {}: {}: {:.0}/s, {cpu:.2} ms CPU a request",
                    round + 1,
                    bin.display(),
                    scenario.label(),
                    n / o.seconds
                );
            }
            child.kill()?;
            child.wait()?;
        }
    }
    println!("| build | scenario | requests/s, round by round | server CPU per request |");
    println!("|---|---|---|---|");
    for (b, bin) in bins.iter().enumerate() {
        for (s, scenario) in scenarios.iter().enumerate() {
            let join = |f: &dyn Fn(&(f64, f64)) -> String| {
                turns[b][s].iter().map(f).collect::<Vec<_>>().join(" / ")
            };
            println!(
                "| {} | {} | {} | {} ms |",
                bin.display(),
                scenario.label(),
                join(&|t| format!("{:.0}", t.0)),
                join(&|t| format!("{:.2}", t.1))
            );
        }
    }
    Ok(())
}

/// A mixed load for `seconds`, the server's resident memory sampled every
/// 15 s: prints the load's figures and the memory over time, and how much
/// it grew after the first minute.
pub fn soak(memories: usize, clients: usize, seconds: f64, cairn_bin: &Path) -> Result<()> {
    let Bench {
        tmp: _tmp,
        corpus,
        key,
        ids,
        mut child,
        addr,
        rt,
        ..
    } = Bench::start(memories, cairn_bin)?;
    let pid = child.id();
    let start = Instant::now();
    let sampler = rt.spawn(async move {
        let mut samples = Vec::new();
        loop {
            samples.push((start.elapsed().as_secs_f64(), rss_kib(pid)));
            if start.elapsed().as_secs_f64() >= seconds {
                return samples;
            }
            tokio::time::sleep(Duration::from_secs(15)).await;
        }
    });
    let o = rt.block_on(load(
        &addr,
        &key,
        Scenario::Mixed,
        clients,
        seconds,
        corpus,
        ids,
    ))?;
    let samples = rt.block_on(sampler)?;
    let rss_end = rss_kib(pid);
    child.kill()?;
    child.wait()?;
    println!("| {memories} memories, {clients} clients, {seconds:.0} s | requests/s | p50 | p99 | errors | 5xx |");
    println!("|---|---:|---:|---:|---:|---:|");
    println!(
        "| {} | {:.0} | {:.2} ms | {:.2} ms | {} | {} |",
        Scenario::Mixed.label(),
        o.latencies.len() as f64 / o.seconds,
        percentile(&o.latencies, 50.0),
        percentile(&o.latencies, 99.0),
        o.errors,
        o.server_errors
    );
    let mib = |k: u64| k as f64 / 1024.0;
    println!("\nServer resident memory (MiB) by second:");
    let line: Vec<String> = samples
        .iter()
        .filter_map(|(t, k)| k.map(|k| format!("{t:.0}s {:.0}", mib(k))))
        .collect();
    println!("{}", line.join(" · "));
    let after_a_minute = samples
        .iter()
        .find(|(t, _)| *t >= 60.0)
        .and_then(|(_, k)| *k);
    if let (Some(first), Some(last)) = (after_a_minute, rss_end) {
        println!(
            "After the first minute: {:.0} MiB → {:.0} MiB at the end ({:+.1}%).",
            mib(first),
            mib(last),
            (last as f64 / first as f64 - 1.0) * 100.0
        );
    }
    Ok(())
}

/// A write key of the default tenant, and the ids of its first 5,000
/// memories (what the load's reads ask for).
fn key_and_ids(synthetic: &Cairn) -> Result<(String, Arc<Vec<String>>)> {
    let key = api::create_key(
        synthetic,
        CreateKeyInput {
            tenant: None,
            role: "write".into(),
            ..Default::default()
        },
    )?
    .key;
    let ids = synthetic
        .list(
            &synthetic.filter("default"),
            cairn_core::ListOrder::Id,
            5000,
            0,
        )?
        .iter()
        .map(|m| m.id.to_string())
        .collect();
    Ok((key, Arc::new(ids)))
}
