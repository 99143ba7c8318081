//! `cairn serve` on PostgreSQL, end to end with the real binary and the
//! real model: the store named by the configuration file or `CAIRN_STORE`
//! (with `?schema=` choosing the schema), the database cut off and back
//! (through a TCP forwarder in the test, never by touching the shared
//! server), and two servers on one schema.
//!
//! They need `CAIRN_TEST_POSTGRES_URL` (`scripts/postgres.sh start` prints
//! it) and fail without it, never skip. Each test uses a schema of its own,
//! dropped when it ends.

use std::collections::HashSet;
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::watch;

use crate::{http, served_address};

/// The test database's URL, or a failure saying how to get one.
pub(crate) fn url() -> String {
    match std::env::var("CAIRN_TEST_POSTGRES_URL") {
        Ok(url) if !url.is_empty() => url,
        _ => panic!(
            "CAIRN_TEST_POSTGRES_URL is not set: the PostgreSQL tests need a database. \
             Run `export CAIRN_TEST_POSTGRES_URL=$(scripts/postgres.sh start | tail -1)` \
             (scripts/test.sh does this itself)."
        ),
    }
}

/// A schema of its own for one test, dropped when the test ends.
pub(crate) struct Schema {
    pub(crate) name: String,
}

impl Schema {
    pub(crate) fn new() -> Schema {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        Schema {
            name: format!("t_cli_{}_{nanos}", std::process::id()),
        }
    }

    /// `base` (a PostgreSQL URL) naming this schema.
    pub(crate) fn url(&self, base: &str) -> String {
        let sep = if base.contains('?') { '&' } else { '?' };
        format!("{base}{sep}schema={}", self.name)
    }

    /// The ids stored in this schema, read directly (as the superuser the
    /// test URL names, so every tenant's).
    pub(crate) fn ids(&self) -> HashSet<String> {
        let mut client = postgres::Client::connect(&url(), postgres::NoTls).unwrap();
        client
            .query(&format!("SELECT id::text FROM {}.memories", self.name), &[])
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect()
    }
}

impl Drop for Schema {
    fn drop(&mut self) {
        let Ok(url) = std::env::var("CAIRN_TEST_POSTGRES_URL") else {
            return;
        };
        if let Ok(mut client) = postgres::Client::connect(&url, postgres::NoTls) {
            let _ = client.batch_execute(&format!("DROP SCHEMA IF EXISTS {} CASCADE", self.name));
        }
    }
}

fn json(body: &str) -> Value {
    serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {body}"))
}

/// A running `cairn serve`, killed when dropped.
struct Server {
    child: Child,
    addr: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// `cairn serve` with `args` (the store given by them or by `env`),
    /// once `/readyz` answers 200.
    fn start(args: &[&str], env: &[(&str, &str)]) -> Server {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_cairn"));
        cmd.env_remove("CAIRN_DB")
            .env_remove("CAIRN_STORE")
            .env_remove("CAIRN_PROJECT")
            .env("NO_COLOR", "1")
            .args(["serve", "--listen", "127.0.0.1:0", "--no-auth"])
            .args(args)
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = cmd.spawn().expect("spawn cairn serve");
        let addr = served_address(&mut child);
        let server = Server { child, addr };
        server.wait_ready(Duration::from_secs(60));
        server
    }

    fn wait_ready(&self, within: Duration) {
        let deadline = Instant::now() + within;
        while self.get("/readyz").0 != 200 {
            assert!(Instant::now() < deadline, "cairn serve never became ready");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn get(&self, path: &str) -> (u16, String, String) {
        http(&self.addr, "GET", path, "").expect("the server answers")
    }

    fn post(&self, path: &str, body: &Value) -> (u16, String, String) {
        http(&self.addr, "POST", path, &body.to_string()).expect("the server answers")
    }

    /// Remember `content` (near-duplicates merged); (status, id).
    fn remember(&self, content: &str) -> (u16, String) {
        let (status, _, body) = self.post("/v1/memories", &serde_json::json!({"content": content}));
        assert!(matches!(status, 200 | 201), "{status}: {body}");
        (status, json(&body)["id"].as_str().unwrap().to_string())
    }

    /// The ids recall finds for `query`, best first.
    fn recall(&self, query: &str) -> Vec<String> {
        let (status, _, body) = self.post("/v1/recall", &serde_json::json!({"query": query}));
        assert_eq!(status, 200, "{body}");
        json(&body)["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_str().unwrap().to_string())
            .collect()
    }

    fn alive(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }
}

#[test]
fn serve_takes_a_postgres_url_from_its_configuration_file() {
    let schema = Schema::new();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("cairn.toml");
    std::fs::write(&config, format!("store = \"{}\"\n", schema.url(&url()))).unwrap();
    let server = Server::start(&["--config", config.to_str().unwrap()], &[]);
    let (status, id) = server.remember("the staging database runs on PostgreSQL 15 in Falkenstein");
    assert_eq!(status, 201);
    assert_eq!(
        server
            .recall("where does the staging database run?")
            .first(),
        Some(&id)
    );
    assert_eq!(schema.ids(), HashSet::from([id]), "stored in its schema");
}

/// What the forwarder does.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Mode {
    /// Forwards connections to the database.
    Up,
    /// Cuts every connection and refuses new ones (nothing listens).
    Down,
    /// Accepts connections and never answers (a database host gone silent).
    Hang,
}

/// A TCP forwarder on a loopback port, in front of the test database.
struct Forwarder {
    port: u16,
    mode: watch::Sender<Mode>,
    _runtime: tokio::runtime::Runtime,
}

impl Forwarder {
    fn start(upstream: SocketAddr) -> Forwarder {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let (mode, rx) = watch::channel(Mode::Up);
        let listener = runtime.block_on(bind(0));
        let port = listener.local_addr().unwrap().port();
        runtime.spawn(forward(listener, port, upstream, rx));
        Forwarder {
            port,
            mode,
            _runtime: runtime,
        }
    }

    fn set(&self, mode: Mode) {
        self.mode.send_replace(mode);
        // Let the forwarder act on it.
        std::thread::sleep(Duration::from_millis(200));
    }

    /// The test database's URL through this forwarder.
    fn url(&self) -> String {
        let base = url();
        let (scheme, rest) = base.split_once("://").unwrap();
        let (auth, rest) = match rest.split_once('@') {
            Some((auth, rest)) => (format!("{auth}@"), rest),
            None => (String::new(), rest),
        };
        let path = &rest[rest.find('/').unwrap_or(rest.len())..];
        format!("{scheme}://{auth}127.0.0.1:{}{path}", self.port)
    }
}

async fn bind(port: u16) -> tokio::net::TcpListener {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_reuseaddr(true).unwrap();
    socket
        .bind(SocketAddr::from(([127, 0, 0, 1], port)))
        .unwrap();
    socket.listen(64).unwrap()
}

/// Listen while the mode is not `Down`; hand each connection to [`pipe`].
async fn forward(
    first: tokio::net::TcpListener,
    port: u16,
    upstream: SocketAddr,
    mut mode: watch::Receiver<Mode>,
) {
    let mut listener = Some(first);
    loop {
        let l = match listener.take() {
            Some(l) => l,
            None => bind(port).await,
        };
        loop {
            tokio::select! {
                accepted = l.accept() => {
                    if let Ok((client, _)) = accepted {
                        tokio::spawn(pipe(client, upstream, mode.clone()));
                    }
                }
                changed = mode.changed() => {
                    if changed.is_err() {
                        return;
                    }
                    if *mode.borrow() == Mode::Down {
                        break;
                    }
                }
            }
        }
        drop(l);
        while *mode.borrow_and_update() == Mode::Down {
            if mode.changed().await.is_err() {
                return;
            }
        }
    }
}

/// One connection: forwarded while `Up` (cut when the mode goes `Down`),
/// held unanswered while `Hang`.
async fn pipe(
    mut client: tokio::net::TcpStream,
    upstream: SocketAddr,
    mut mode: watch::Receiver<Mode>,
) {
    let start = *mode.borrow_and_update();
    let leaves = |m: Mode| match start {
        Mode::Up => m == Mode::Down,
        _ => m != start,
    };
    let until_cut = async {
        loop {
            if mode.changed().await.is_err() || leaves(*mode.borrow()) {
                return;
            }
        }
    };
    match start {
        Mode::Down => {}
        Mode::Hang => until_cut.await,
        Mode::Up => {
            let Ok(mut server) = tokio::net::TcpStream::connect(upstream).await else {
                return;
            };
            tokio::select! {
                _ = tokio::io::copy_bidirectional(&mut client, &mut server) => {}
                _ = until_cut => {}
            }
        }
    }
}

/// The test database's address.
fn database_addr() -> SocketAddr {
    let config: postgres::Config = url().parse().expect("a PostgreSQL URL");
    let host = match &config.get_hosts()[0] {
        postgres::config::Host::Tcp(h) => h.clone(),
        #[allow(unreachable_patterns)]
        _ => panic!("the test database must be reached over TCP"),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    std::net::ToSocketAddrs::to_socket_addrs(&(host.as_str(), port))
        .unwrap()
        .next()
        .unwrap()
}

fn retry_after(head: &str) -> bool {
    head.lines().any(|l| l.starts_with("retry-after:"))
}

#[test]
fn an_unreachable_database_is_503_and_the_server_recovers() {
    let schema = Schema::new();
    let forwarder = Forwarder::start(database_addr());
    let store = schema.url(&forwarder.url());
    let mut server = Server::start(&["--store", &store], &[]);

    let mut acknowledged = Vec::new();
    for i in 0..10 {
        let body = serde_json::json!({
            "content": format!("before the outage: fact number {i} about the deploy pipeline"),
            "dedup": false,
        });
        let (status, _, reply) = server.post("/v1/memories", &body);
        assert_eq!(status, 201, "{reply}");
        acknowledged.push(json(&reply)["id"].as_str().unwrap().to_string());
    }

    // A writer across the cut: every answer is 201 or 503, never an
    // error of another kind or a dropped connection.
    let stop = Arc::new(AtomicBool::new(false));
    let acked = Arc::new(Mutex::new(Vec::new()));
    let writer = {
        let (addr, stop, acked) = (server.addr.clone(), stop.clone(), acked.clone());
        std::thread::spawn(move || {
            let mut i = 0;
            let mut unavailable = 0;
            while !stop.load(Ordering::Relaxed) {
                let body = serde_json::json!({
                    "content": format!("across the outage: write {i} of a distinct fact {}", i * 7919),
                    "dedup": false,
                });
                i += 1;
                let (status, head, reply) =
                    http(&addr, "POST", "/v1/memories", &body.to_string()).expect("an answer");
                match status {
                    201 => acked
                        .lock()
                        .unwrap()
                        .push(json(&reply)["id"].as_str().unwrap().to_string()),
                    503 => {
                        assert!(retry_after(&head), "{head}");
                        unavailable += 1;
                        std::thread::sleep(Duration::from_millis(100));
                    }
                    other => panic!("{other}: {reply}"),
                }
            }
            unavailable
        })
    };
    std::thread::sleep(Duration::from_millis(300));

    forwarder.set(Mode::Down);
    for _ in 0..2 {
        let began = Instant::now();
        let (status, head, body) = server.post(
            "/v1/memories",
            &serde_json::json!({"content": "during the outage"}),
        );
        assert_eq!(status, 503, "{body}");
        assert!(retry_after(&head), "{head}");
        assert_eq!(json(&body)["error"]["code"], "unavailable", "{body}");
        assert!(
            began.elapsed() < Duration::from_secs(8),
            "a request during the outage took {:?}",
            began.elapsed()
        );
        let (status, head, body) = server.post(
            "/v1/recall",
            &serde_json::json!({"query": "deploy pipeline"}),
        );
        assert_eq!(status, 503, "{body}");
        assert!(retry_after(&head), "{head}");
        let (status, head, _) = server.get("/readyz");
        assert_eq!(status, 503);
        assert!(retry_after(&head), "{head}");
        assert_eq!(server.get("/healthz").0, 200, "the process is up");
    }
    assert!(server.alive(), "cairn serve died during the outage");

    forwarder.set(Mode::Up);
    server.wait_ready(Duration::from_secs(15));
    stop.store(true, Ordering::Relaxed);
    let unavailable = writer.join().expect("the writer saw only 201 and 503");
    assert!(unavailable > 0, "the writer never met the outage");

    let (status, after) = server.remember("after the outage: the pool reconnected by itself");
    assert_eq!(status, 201);
    assert_eq!(
        server.recall("did the pool reconnect?").first(),
        Some(&after)
    );
    let stored = schema.ids();
    acknowledged.extend(acked.lock().unwrap().iter().cloned());
    acknowledged.push(after);
    let lost: Vec<&String> = acknowledged
        .iter()
        .filter(|id| !stored.contains(*id))
        .collect();
    assert!(lost.is_empty(), "acknowledged writes lost: {lost:?}");

    // Store calls run off the async workers (two of them): requests stuck
    // on a silent database do not hold up a request that needs no store.
    forwarder.set(Mode::Down);
    forwarder.set(Mode::Hang);
    let stuck: Vec<_> = (0..4)
        .map(|i| {
            let addr = server.addr.clone();
            std::thread::spawn(move || {
                let body = serde_json::json!({"content": format!("stuck write {i}")});
                http(&addr, "POST", "/v1/memories", &body.to_string())
                    .expect("an answer")
                    .0
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    let began = Instant::now();
    let (status, _, _) = server.get("/openapi.json");
    assert_eq!(status, 200);
    assert!(
        began.elapsed() < Duration::from_secs(1),
        "a request needing no store waited {:?} behind stuck store calls",
        began.elapsed()
    );
    for s in stuck {
        assert_eq!(s.join().unwrap(), 503);
    }
    forwarder.set(Mode::Up);
    server.wait_ready(Duration::from_secs(15));
    assert!(server.alive());
}

#[test]
fn two_servers_on_one_schema_share_their_memories() {
    let schema = Schema::new();
    let store = schema.url(&url());
    let servers = [
        Server::start(&[], &[("CAIRN_STORE", &store)]),
        Server::start(&["--store", &store], &[]),
    ];

    // Written through one, recalled through the other at once.
    let shared = [
        (
            0,
            1,
            "the backups run nightly at 02:00 to an object store bucket",
            "when do the backups run?",
        ),
        (
            1,
            0,
            "Grafana dashboards for the payment service live in the ops folder",
            "where are the payment dashboards?",
        ),
    ];
    for (from, to, content, query) in shared {
        let (status, id) = servers[from].remember(content);
        assert_eq!(status, 201);
        assert_eq!(servers[to].recall(query).first(), Some(&id));
        let (status, _, body) = servers[to].get(&format!("/v1/memories/{id}"));
        assert_eq!(status, 200, "{body}");
    }

    // The same memory remembered through both at once leaves one.
    let facts = [
        "the on-call rotation changes every Monday at 09:00",
        "the mobile app is released through a staged rollout over three days",
        "invoices are generated by a cron job on the first of each month",
        "the search cluster has three Elasticsearch nodes behind one load balancer",
        "new employees get laptop access from the IT desk on their first morning",
    ];
    for (round, content) in facts.iter().enumerate() {
        let content = content.to_string();
        let barrier = Barrier::new(2);
        let outcomes: Vec<(u16, String)> = std::thread::scope(|s| {
            let handles: Vec<_> = servers
                .iter()
                .map(|server| {
                    let (barrier, content) = (&barrier, &content);
                    s.spawn(move || {
                        barrier.wait();
                        server.remember(content)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let statuses: Vec<u16> = outcomes.iter().map(|o| o.0).collect();
        assert!(
            statuses.contains(&201) && statuses.contains(&200),
            "round {round}: {statuses:?}"
        );
        assert_eq!(outcomes[0].1, outcomes[1].1, "round {round}: one memory");
    }
    assert_eq!(schema.ids().len(), 2 + facts.len());
}
