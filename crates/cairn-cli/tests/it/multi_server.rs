//! Three `cairn serve` processes on one PostgreSQL schema, behind a
//! round-robin TCP proxy in the test (each request a connection of its own,
//! so consecutive requests reach different servers): a web UI session
//! signed in through one works through the others and signing out ends it
//! on all; a key's rate limit holds across the three together; the
//! background jobs run on one server at a time, and when it is killed
//! (SIGKILL, under write load) another takes them over while the others
//! keep serving and no acknowledged write is lost.
//!
//! Needs `CAIRN_TEST_POSTGRES_URL`, like every PostgreSQL test here.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::pg::url;
use crate::{served_address, Env};

/// Reads a key may make a minute, on every server: the limit the three
/// must hold together.
const READS_PER_MINUTE: usize = 30;

/// A running `cairn serve`, killed (SIGKILL) when dropped.
struct Server {
    child: Child,
    addr: String,
    log: tempfile::NamedTempFile,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    fn spawn(store: &str) -> Server {
        let log = tempfile::NamedTempFile::new().unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_cairn"))
            .env_remove("CAIRN_DB")
            .env_remove("CAIRN_STORE")
            .env_remove("CAIRN_PROJECT")
            .env("NO_COLOR", "1")
            .args(["serve", "--listen", "127.0.0.1:0", "--store", store])
            .args([
                "--sweep-every",
                "1s",
                "--job-lease",
                "3s",
                "--no-consolidate",
            ])
            .args(["--rate-writes", "0", "--rate-recalls", "0"])
            .args(["--rate-reads", &READS_PER_MINUTE.to_string()])
            .stdout(Stdio::piped())
            .stderr(Stdio::from(log.reopen().unwrap()))
            .spawn()
            .expect("spawn cairn serve");
        let addr = served_address(&mut child);
        Server { child, addr, log }
    }

    fn logs(&self) -> String {
        std::fs::read_to_string(self.log.path()).unwrap()
    }
}

/// A round-robin TCP proxy: each connection goes to the next server that
/// accepts it (a dead one is skipped, as a load balancer's health check
/// would).
struct Proxy {
    addr: String,
}

impl Proxy {
    fn start(backends: Vec<String>) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let next = Arc::new(AtomicUsize::new(0));
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                let n = next.fetch_add(1, Ordering::Relaxed);
                let server = (0..backends.len())
                    .find_map(|i| TcpStream::connect(&backends[(n + i) % backends.len()]).ok());
                let Some(server) = server else { continue };
                pipe(client, server);
            }
        });
        Proxy { addr }
    }
}

/// Copy both ways until either side closes.
fn pipe(client: TcpStream, server: TcpStream) {
    let (mut c_read, mut s_write) = (client.try_clone().unwrap(), server.try_clone().unwrap());
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut c_read, &mut s_write);
        let _ = s_write.shutdown(std::net::Shutdown::Write);
    });
    let (mut s_read, mut c_write) = (server, client);
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut s_read, &mut c_write);
        let _ = c_write.shutdown(std::net::Shutdown::Both);
    });
}

/// One request on its own connection: (status, head, body), or `None`
/// when the connection was cut.
fn request(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Option<(u16, String, String)> {
    let mut tcp = TcpStream::connect(addr).ok()?;
    tcp.set_read_timeout(Some(Duration::from_secs(60))).ok()?;
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: localhost\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        req.push_str(&format!("{name}: {value}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    tcp.write_all(req.as_bytes()).ok()?;
    let mut reply = String::new();
    tcp.read_to_string(&mut reply).ok()?;
    let status = reply.split(' ').nth(1)?.parse().ok()?;
    let (head, body) = reply.split_once("\r\n\r\n")?;
    Some((status, head.to_ascii_lowercase(), body.to_string()))
}

fn bearer(key: &str) -> String {
    format!("Bearer {key}")
}

/// The value of the first `name="csrf" value="…"` in a page.
fn csrf_token(page: &str) -> String {
    let marker = r#"name="csrf" value=""#;
    let start = page.find(marker).expect("a CSRF field") + marker.len();
    page[start..].split('"').next().unwrap().to_string()
}

/// Sign in through `proxy`, check the session through every server, sign
/// out through another than the one that started it, and check that it
/// ended on all.
fn ui_sessions_are_shared(proxy: &Proxy, servers: &[Server], key: &str) {
    let form = format!("key={key}");
    let form_type = ("Content-Type", "application/x-www-form-urlencoded");
    let (status, head, body) =
        request(&proxy.addr, "POST", "/ui/login", &[form_type], &form).unwrap();
    assert_eq!(status, 303, "{head}\n{body}");
    let cookie = head
        .lines()
        .find_map(|l| l.strip_prefix("set-cookie: "))
        .and_then(|c| c.split(';').next())
        .expect("a session cookie")
        .to_string();
    let mut token = None;
    for server in servers {
        let (status, _, page) =
            request(&server.addr, "GET", "/ui", &[("Cookie", &cookie)], "").unwrap();
        assert_eq!(status, 200, "signed in on {}: {page}", server.addr);
        let t = csrf_token(&page);
        assert_eq!(token.get_or_insert(t.clone()), &t, "one CSRF token");
    }
    let token = token.unwrap();
    let (status, head, _) = request(
        &servers[2].addr,
        "POST",
        "/ui/logout",
        &[("Cookie", &cookie), form_type],
        &format!("csrf={token}"),
    )
    .unwrap();
    assert_eq!(status, 303, "{head}");
    for server in servers {
        let (status, head, _) =
            request(&server.addr, "GET", "/ui", &[("Cookie", &cookie)], "").unwrap();
        assert_eq!(status, 303, "signed out on {} too: {head}", server.addr);
        assert!(head.contains("location: /ui/login"), "{head}");
    }
}

/// Twice a key's reads through the proxy at once: the three servers
/// together allow its rate (and a token or so it refilled meanwhile).
fn rate_limit_is_shared(proxy: &Proxy, key: &str) {
    let auth = bearer(key);
    let start = Instant::now();
    let mut allowed = 0;
    for _ in 0..2 * READS_PER_MINUTE {
        let (status, _, body) = request(
            &proxy.addr,
            "GET",
            "/v1/stats",
            &[("Authorization", &auth)],
            "",
        )
        .unwrap();
        match status {
            200 => allowed += 1,
            429 => {}
            other => panic!("{other}: {body}"),
        }
    }
    let refilled = (start.elapsed().as_secs_f64() * READS_PER_MINUTE as f64 / 60.0).ceil();
    assert!(
        allowed >= READS_PER_MINUTE && allowed as f64 <= READS_PER_MINUTE as f64 + refilled,
        "{allowed} reads allowed across three servers at {READS_PER_MINUTE}/min"
    );
}

/// The process id in the background jobs' lease (`host:pid:random`), if
/// one holds it.
fn lease_holder(schema: &str) -> Option<u32> {
    let mut client = postgres::Client::connect(&url(), postgres::NoTls).unwrap();
    let row = client
        .query_opt(
            &format!("SELECT holder FROM {schema}.leases WHERE name = 'background-jobs'"),
            &[],
        )
        .unwrap()?;
    let holder: String = row.get(0);
    holder.split(':').nth(1)?.parse().ok()
}

/// Write `n` memories that expire in a second, through the proxy, and
/// wait until the sweep deleted them.
fn expire_and_wait(proxy: &Proxy, key: &str, schema: &str, tag: &str, n: usize) {
    let auth = bearer(key);
    for i in 0..n {
        let body = serde_json::json!({
            "content": format!("{tag} short-lived note {i}: build {} is green", i * 7919),
            "ttl": "1s", "dedup": false,
        });
        let (status, _, reply) = request(
            &proxy.addr,
            "POST",
            "/v1/memories",
            &[
                ("Authorization", &auth),
                ("Content-Type", "application/json"),
            ],
            &body.to_string(),
        )
        .unwrap();
        assert_eq!(status, 201, "{reply}");
    }
    let mut client = postgres::Client::connect(&url(), postgres::NoTls).unwrap();
    let left = |client: &mut postgres::Client| -> i64 {
        let sql = format!("SELECT count(*) FROM {schema}.memories WHERE starts_with(content, $1)");
        client
            .query_one(&sql, &[&format!("{tag} short-lived")])
            .unwrap()
            .get(0)
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    while left(&mut client) > 0 {
        assert!(
            Instant::now() < deadline,
            "the {tag} memories were never swept"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Writers through the proxy until `stop`: the ids acknowledged.
fn writers(
    proxy: &Proxy,
    key: &str,
    stop: &Arc<AtomicBool>,
) -> Vec<std::thread::JoinHandle<Vec<(Instant, String)>>> {
    (0..4)
        .map(|w| {
            let (addr, auth, stop) = (proxy.addr.clone(), bearer(key), stop.clone());
            std::thread::spawn(move || {
                let mut acked = Vec::new();
                let mut i = 0;
                while !stop.load(Ordering::Relaxed) {
                    let body = serde_json::json!({
                        "content": format!("writer {w} fact {i}: ticket {} was closed", i * 7919 + w),
                        "dedup": false,
                    });
                    i += 1;
                    let headers = [("Authorization", auth.as_str()), ("Content-Type", "application/json")];
                    // A write cut by the kill has no answer: not acknowledged.
                    match request(&addr, "POST", "/v1/memories", &headers, &body.to_string()) {
                        Some((201, _, reply)) => {
                            let v: Value = serde_json::from_str(&reply).unwrap();
                            acked.push((Instant::now(), v["id"].as_str().unwrap().to_string()));
                        }
                        Some((status, _, reply)) => panic!("{status}: {reply}"),
                        None => {}
                    }
                }
                acked
            })
        })
        .collect()
}

#[test]
fn three_servers_on_one_schema_share_sessions_limits_and_jobs() {
    let env = Env::postgres();
    let schema = env.pg.as_ref().unwrap().name.clone();
    let store = env.pg.as_ref().unwrap().url(&url());
    let key = |role: &str| -> String {
        env.json(&["keys", "create", "--tenant", "team", "--role", role])["key"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let (ui_key, limited_key, writer_key) = (key("read"), key("read"), key("write"));
    let mut servers: Vec<Server> = (0..3).map(|_| Server::spawn(&store)).collect();
    let deadline = Instant::now() + Duration::from_secs(120);
    for s in &servers {
        while request(&s.addr, "GET", "/readyz", &[], "").map(|r| r.0) != Some(200) {
            assert!(Instant::now() < deadline, "a server never became ready");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    let proxy = Proxy::start(servers.iter().map(|s| s.addr.clone()).collect());

    ui_sessions_are_shared(&proxy, &servers, &ui_key);
    rate_limit_is_shared(&proxy, &limited_key);

    // One server holds the jobs' lease and it alone sweeps.
    let pids: Vec<u32> = servers.iter().map(|s| s.child.id()).collect();
    let holder = lease_holder(&schema).expect("a server holds the lease");
    let held_by = pids.iter().position(|p| *p == holder).expect("one of ours");
    expire_and_wait(&proxy, &writer_key, &schema, "before", 12);
    for (i, s) in servers.iter().enumerate() {
        let swept = s.logs().contains("swept expired memories");
        assert_eq!(
            swept,
            i == held_by,
            "server {i} swept: {swept}\n{}",
            s.logs()
        );
    }

    // Kill -9 the holder under write load.
    let stop = Arc::new(AtomicBool::new(false));
    let load = writers(&proxy, &writer_key, &stop);
    std::thread::sleep(Duration::from_secs(2));
    let killed_at = Instant::now();
    let mut dead = servers.remove(held_by);
    dead.child.kill().unwrap();
    dead.child.wait().unwrap();
    let alive: Vec<u32> = servers.iter().map(|s| s.child.id()).collect();
    let took_over = loop {
        if lease_holder(&schema).is_some_and(|p| alive.contains(&p)) {
            break killed_at.elapsed();
        }
        assert!(
            killed_at.elapsed() < Duration::from_secs(60),
            "nobody took over"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    eprintln!("another server took over the jobs {took_over:?} after the kill");
    std::thread::sleep(Duration::from_secs(2));
    stop.store(true, Ordering::Relaxed);
    let acked: Vec<(Instant, String)> = load.into_iter().flat_map(|h| h.join().unwrap()).collect();
    let after_kill = acked.iter().filter(|(t, _)| *t > killed_at).count();
    assert!(after_kill >= 10, "only {after_kill} writes after the kill");
    let stored = env.pg.as_ref().unwrap().ids();
    let lost: Vec<&String> = acked
        .iter()
        .map(|(_, id)| id)
        .filter(|id| !stored.contains(*id))
        .collect();
    assert!(
        lost.is_empty(),
        "{} of {} acknowledged writes lost",
        lost.len(),
        acked.len()
    );

    // The new holder sweeps; the other survivor still does not.
    let new_holder = lease_holder(&schema).unwrap();
    expire_and_wait(&proxy, &writer_key, &schema, "after", 6);
    for s in &servers {
        let swept = s.logs().contains("swept expired memories");
        assert_eq!(swept, s.child.id() == new_holder, "{}", s.logs());
    }
}
