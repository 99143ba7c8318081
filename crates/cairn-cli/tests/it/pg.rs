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
    /// Its stderr (the logs).
    log: tempfile::NamedTempFile,
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
        let server = Server::spawn(args, env);
        server.wait_ready(Duration::from_secs(60));
        server
    }

    /// `cairn serve` with `args` and `env`, once it listens.
    fn spawn(args: &[&str], env: &[(&str, &str)]) -> Server {
        let log = tempfile::NamedTempFile::new().unwrap();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_cairn"));
        cmd.env_remove("CAIRN_DB")
            .env_remove("CAIRN_STORE")
            .env_remove("CAIRN_PROJECT")
            .env("NO_COLOR", "1")
            .args(["serve", "--listen", "127.0.0.1:0", "--no-auth"])
            .args(args)
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(log.reopen().unwrap()));
        let mut child = cmd.spawn().expect("spawn cairn serve");
        let addr = served_address(&mut child);
        Server { child, addr, log }
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

    /// What it logged so far.
    fn logs(&self) -> String {
        std::fs::read_to_string(self.log.path()).unwrap()
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

/// The rows of `table` in the schema (every tenant's).
fn count(schema: &Schema, table: &str, condition: &str) -> i64 {
    let mut client = postgres::Client::connect(&url(), postgres::NoTls).unwrap();
    client
        .query_one(
            &format!(
                "SELECT count(*) FROM {}.{table} WHERE {condition}",
                schema.name
            ),
            &[],
        )
        .unwrap()
        .get(0)
}

#[test]
fn two_servers_sweep_expired_memories_once_between_them() {
    let schema = Schema::new();
    let store = schema.url(&url());
    let servers = [
        Server::start(&["--store", &store, "--sweep-every", "1s"], &[]),
        Server::start(&["--store", &store, "--sweep-every", "1s"], &[]),
    ];
    // Expiring memories written through both, and some that stay.
    for i in 0..30 {
        let body = serde_json::json!({
            "content": format!("short-lived note {i}: build {} is green", i * 7919),
            "ttl": "2s",
            "dedup": false,
        });
        let (status, _, reply) = servers[i % 2].post("/v1/memories", &body);
        assert_eq!(status, 201, "{reply}");
    }
    for i in 0..10 {
        let body = serde_json::json!({
            "content": format!("lasting fact {i}: service {} owns the billing table", i * 104_729),
            "dedup": false,
        });
        assert_eq!(servers[i % 2].post("/v1/memories", &body).0, 201);
    }
    let deadline = Instant::now() + Duration::from_secs(30);
    while count(&schema, "memories", "true") > 10 {
        assert!(Instant::now() < deadline, "the expired memories stayed");
        std::thread::sleep(Duration::from_millis(200));
    }
    // Several more sweeps by both, with nothing left to do.
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(count(&schema, "memories", "true"), 10);
    // One receipt per memory, however many sweeps saw it.
    assert_eq!(
        count(
            &schema,
            "deletions",
            "actor = 'system' AND reason = 'expired'"
        ),
        30
    );
    // The sweeps' own reports add up to the memories deleted: none was
    // deleted twice, and none failed.
    let mut swept = 0;
    for server in &servers {
        let logs = server.logs();
        assert!(!logs.contains("sweep of expired memories failed"), "{logs}");
        assert!(!logs.contains("ERROR"), "{logs}");
        for line in logs
            .lines()
            .filter(|l| l.contains("swept expired memories"))
        {
            let n = line
                .split("deleted=")
                .nth(1)
                .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
                .and_then(|n| n.parse::<i64>().ok())
                .unwrap_or_else(|| panic!("no count in {line:?}"));
            swept += n;
        }
    }
    assert_eq!(swept, 30, "each expired memory swept once");
}

#[test]
fn every_acknowledged_write_survives_a_kill_9_of_the_server() {
    let schema = Schema::new();
    let store = schema.url(&url());
    let server = Server::start(&["--store", &store], &[]);
    let addr = server.addr.clone();
    let acked = Arc::new(Mutex::new(Vec::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let writers: Vec<_> = (0..4)
        .map(|w| {
            let (addr, acked, stop) = (addr.clone(), acked.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut i = 0;
                while !stop.load(Ordering::Relaxed) {
                    let body = serde_json::json!({
                        "content": format!("writer {w} fact {i}: ticket {} was closed", i * 7919 + w),
                        "dedup": false,
                    });
                    i += 1;
                    // A write cut by the kill has no answer: not acknowledged.
                    match http(&addr, "POST", "/v1/memories", &body.to_string()) {
                        Some((201, _, reply)) => acked
                            .lock()
                            .unwrap()
                            .push(json(&reply)["id"].as_str().unwrap().to_string()),
                        Some((status, _, reply)) => panic!("{status}: {reply}"),
                        None => return,
                    }
                }
            })
        })
        .collect();
    std::thread::sleep(Duration::from_secs(3));
    // Child::kill is SIGKILL: no shutdown, no flush.
    drop(server);
    stop.store(true, Ordering::Relaxed);
    for w in writers {
        w.join().unwrap();
    }
    let acked = acked.lock().unwrap().clone();
    assert!(
        acked.len() >= 20,
        "only {} writes before the kill",
        acked.len()
    );
    let stored = schema.ids();
    let lost: Vec<&String> = acked.iter().filter(|id| !stored.contains(*id)).collect();
    assert!(
        lost.is_empty(),
        "{} acknowledged writes lost: {lost:?}",
        lost.len()
    );
    // A new server on the same schema serves them.
    let again = Server::start(&["--store", &store], &[]);
    for id in acked.iter().step_by(7) {
        let (status, _, body) = again.get(&format!("/v1/memories/{id}"));
        assert_eq!(status, 200, "{body}");
    }
}

/// A PostgreSQL cluster of one test's own (`scripts/postgres.sh` with its
/// own data directory and port), so that the test can stop and start it
/// without touching the shared one; stopped and removed when dropped.
struct Cluster {
    dir: std::path::PathBuf,
    port: u16,
}

impl Cluster {
    fn script(&self, action: &str) -> String {
        let script =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/postgres.sh");
        let out = Command::new("bash")
            .arg(script)
            .arg(action)
            .env("CAIRN_PG_DIR", &self.dir)
            .env("CAIRN_PG_PORT", self.port.to_string())
            .output()
            .expect("run scripts/postgres.sh");
        assert!(
            out.status.success(),
            "postgres.sh {action}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout)
            .unwrap()
            .trim()
            .lines()
            .last()
            .unwrap_or("")
            .to_string()
    }

    fn start() -> Cluster {
        // A free port: bound, then released for the cluster.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let cluster = Cluster {
            dir: std::env::temp_dir().join(format!("cairn-pg-test-{}-{port}", std::process::id())),
            port,
        };
        cluster.script("start");
        cluster
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new("bash")
            .arg(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/postgres.sh"))
            .arg("stop")
            .env("CAIRN_PG_DIR", &self.dir)
            .env("CAIRN_PG_PORT", self.port.to_string())
            .output();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
fn postgres_restarted_under_load_costs_503s_and_no_acknowledged_write() {
    // Needs the shared database's variable like every test here, though it
    // runs its own cluster.
    let _ = url();
    let cluster = Cluster::start();
    let db = cluster.script("url");
    let mut server = Server::start(&["--store", &db], &[]);
    let stop = Arc::new(AtomicBool::new(false));
    let acked = Arc::new(Mutex::new(Vec::new()));
    let unavailable = Arc::new(Mutex::new(0));
    let writers: Vec<_> = (0..3)
        .map(|w| {
            let (addr, stop, acked, unavailable) = (
                server.addr.clone(),
                stop.clone(),
                acked.clone(),
                unavailable.clone(),
            );
            std::thread::spawn(move || {
                let mut i = 0;
                while !stop.load(Ordering::Relaxed) {
                    let body = serde_json::json!({
                        "content": format!("writer {w} during a restart: fact {} of many", i * 7919 + w),
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
                            *unavailable.lock().unwrap() += 1;
                            std::thread::sleep(Duration::from_millis(100));
                        }
                        other => panic!("{other}: {reply}"),
                    }
                }
            })
        })
        .collect();
    std::thread::sleep(Duration::from_secs(2));
    cluster.script("stop");
    std::thread::sleep(Duration::from_secs(3));
    let during = acked.lock().unwrap().len();
    cluster.script("start");
    // Writes succeed again by themselves.
    let deadline = Instant::now() + Duration::from_secs(30);
    while acked.lock().unwrap().len() < during + 20 {
        assert!(Instant::now() < deadline, "writes never recovered");
        std::thread::sleep(Duration::from_millis(100));
    }
    stop.store(true, Ordering::Relaxed);
    for w in writers {
        w.join().unwrap();
    }
    assert!(
        *unavailable.lock().unwrap() > 0,
        "the outage was never seen"
    );
    assert!(server.alive());
    let mut client = postgres::Client::connect(&db, postgres::NoTls).unwrap();
    let stored: HashSet<String> = client
        .query("SELECT id::text FROM cairn.memories", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    let acked = acked.lock().unwrap().clone();
    let lost: Vec<&String> = acked.iter().filter(|id| !stored.contains(*id)).collect();
    assert!(
        lost.is_empty(),
        "{} acknowledged writes lost: {lost:?}",
        lost.len()
    );
}

#[test]
fn serve_starts_while_its_database_is_down_and_serves_once_it_is_up() {
    let _ = url();
    let cluster = Cluster::start();
    let db = cluster.script("url");
    cluster.script("stop");
    let mut server = Server::spawn(&["--store", &db], &[]);
    let (status, head, body) = server.get("/readyz");
    assert_eq!(status, 503, "{body}");
    assert!(retry_after(&head), "{head}");
    let body = json(&body);
    assert_eq!(body["error"]["code"], "unavailable", "{body}");
    assert_eq!(body["error"]["details"]["part"], "store", "{body}");
    let fact = serde_json::json!({"content": "the staging database is called heron"});
    let (status, head, body) = server.post("/v1/memories", &fact);
    assert_eq!(status, 503, "{body}");
    assert!(retry_after(&head), "{head}");
    assert!(server.alive(), "cairn serve exited: {}", server.logs());
    cluster.script("start");
    server.wait_ready(Duration::from_secs(60));
    let (status, id) = server.remember("the staging database is called heron");
    assert_eq!(status, 201);
    assert_eq!(server.recall("what is the staging database called?")[0], id);
}
