//! `cairn serve` and `cairn keys create` started at the same moment on a
//! brand-new store: both create and migrate it, one waits for the other,
//! neither fails with "database is locked".

use std::process::Stdio;

use crate::{http, served_address, Env};

#[test]
fn serve_and_keys_create_at_once_on_a_new_store_both_work() {
    for round in 0..4 {
        let env = Env::new();
        let mut serve = env.cmd();
        serve
            .args(["serve", "--listen", "127.0.0.1:0"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut keys = env.cmd();
        keys.args([
            "--json", "keys", "create", "--tenant", "t", "--role", "read",
        ])
        .stdin(Stdio::null());
        let mut server = serve.spawn().expect("spawn cairn serve");
        let made = keys.output().expect("run cairn keys create");
        let stderr = String::from_utf8_lossy(&made.stderr);
        assert!(
            made.status.success(),
            "round {round}: keys create exited {:?}: {stderr}",
            made.status.code()
        );
        let addr = served_address(&mut server);
        let (status, _, _) = http(&addr, "GET", "/readyz", "").expect("serve answers");
        assert_eq!(status, 200, "round {round}");
        server.kill().unwrap();
        server.wait().unwrap();
    }
}
