//! Crash safety of the server: `cairn serve` killed with SIGKILL during
//! concurrent REST writes, 20 times. Every write answered 2xx is in the
//! store afterwards, and the store passes `PRAGMA integrity_check`.

use std::process::{Child, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::{assert_healthy, http, served_address, Env};

fn start(env: &Env) -> (Child, String) {
    let mut child = env
        .cmd()
        .args(["serve", "--listen", "127.0.0.1:0", "--no-auth"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn cairn serve");
    let addr = served_address(&mut child);
    // Wait until the model is loaded, so that writes are under way when
    // the process is killed.
    let deadline = Instant::now() + Duration::from_secs(60);
    while http(&addr, "GET", "/readyz", "").map(|r| r.0) != Some(200) {
        assert!(Instant::now() < deadline, "cairn serve never became ready");
        std::thread::sleep(Duration::from_millis(20));
    }
    (child, addr)
}

#[test]
fn every_acknowledged_write_survives_kill_9() {
    let env = Env::new();
    let acknowledged: Arc<Mutex<Vec<String>>> = Arc::default();
    for round in 0..20u64 {
        let (mut child, addr) = start(&env);
        let stop = Arc::new(AtomicBool::new(false));
        let writers: Vec<_> = (0..4)
            .map(|w| {
                let (addr, stop, acked) = (addr.clone(), stop.clone(), acknowledged.clone());
                std::thread::spawn(move || {
                    let mut i = 0;
                    while !stop.load(Ordering::Relaxed) {
                        let body = format!(
                            r#"{{"content": "round {round} writer {w} write {i}: a distinct fact numbered {}", "dedup": false}}"#,
                            round * 100_000 + w * 10_000 + i
                        );
                        i += 1;
                        match http(&addr, "POST", "/v1/memories", &body) {
                            Some((201, _, reply)) => {
                                let v: serde_json::Value = serde_json::from_str(&reply).unwrap();
                                acked.lock().unwrap().push(v["id"].as_str().unwrap().to_string());
                            }
                            Some((status, _, reply)) => panic!("{status}: {reply}"),
                            None => return, // the server is gone
                        }
                    }
                })
            })
            .collect();
        // Kill once this round has a write acknowledged (however loaded
        // the machine), then at a different moment each round.
        let before = acknowledged.lock().unwrap().len();
        let deadline = Instant::now() + Duration::from_secs(30);
        while acknowledged.lock().unwrap().len() == before && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        std::thread::sleep(Duration::from_millis(20 + (round * 37) % 300));
        child.kill().expect("SIGKILL");
        child.wait().unwrap();
        stop.store(true, Ordering::Relaxed);
        for w in writers {
            w.join().expect("a writer failed");
        }
    }
    let acknowledged = acknowledged.lock().unwrap().clone();
    assert!(
        acknowledged.len() >= 20,
        "too few writes to mean anything: {}",
        acknowledged.len()
    );
    assert_healthy(&env.db());
    let exported = env.ok(&["export"]);
    let stored: std::collections::HashSet<String> = exported
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["id"].as_str().unwrap().to_string()
        })
        .collect();
    eprintln!("{} acknowledged writes over 20 kills", acknowledged.len());
    let lost: Vec<&String> = acknowledged
        .iter()
        .filter(|id| !stored.contains(id.as_str()))
        .collect();
    assert!(
        lost.is_empty(),
        "{} of {} acknowledged writes lost: {lost:?}",
        lost.len(),
        acknowledged.len()
    );
}
