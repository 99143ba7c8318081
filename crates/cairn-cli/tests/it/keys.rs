//! `cairn keys`: create, list and revoke, and what is kept of a key.

use crate::Env;

#[test]
fn keys_are_shown_once_listed_without_secrets_and_revoked() {
    let env = Env::new();
    let made = env.json(&[
        "keys", "create", "--tenant", "alice", "--role", "write", "--label", "laptop",
    ]);
    let key = made["key"].as_str().expect("key text");
    let id = made["id"].as_str().expect("id");
    assert_eq!(made["tenant"], "alice");
    assert_eq!(made["role"], "write");
    assert!(key.starts_with(&format!("cairn_{id}_")), "{key}");
    let secret = key.rsplit('_').next().unwrap();
    assert_eq!(secret.len(), 64, "{key}");

    let admin = env.json(&[
        "keys",
        "create",
        "--tenant",
        "bob",
        "--role",
        "admin",
        "--expires",
        "30d",
    ]);
    assert!(admin["expires_at"].is_string(), "{admin}");
    assert_ne!(admin["key"], made["key"]);

    // Listings never carry the key or its hash.
    let list = env.json(&["keys", "list"]);
    let rows = list.as_array().expect("array");
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["id"], made["id"], "oldest first");
    assert_eq!(rows[0]["status"], "active");
    assert_eq!(rows[0]["label"], "laptop");
    let text = list.to_string();
    assert!(!text.contains(secret), "a listing shows the secret");
    assert!(rows
        .iter()
        .all(|r| r.get("key").is_none() && r.get("hash").is_none()));
    let only_bob = env.json(&["keys", "list", "--tenant", "bob"]);
    assert_eq!(only_bob.as_array().unwrap().len(), 1);
    assert_eq!(only_bob[0]["tenant"], "bob");

    // The store file holds a hash, never the secret.
    let bytes = std::fs::read(env.db()).expect("read store");
    let needle = secret.as_bytes();
    assert!(
        !bytes.windows(needle.len()).any(|w| w == needle),
        "the secret is in the store file"
    );

    // Human output says the key is shown once.
    let human = env.ok(&["keys", "create", "--tenant", "carol", "--role", "read"]);
    assert!(human.contains("not shown again"), "{human}");
    assert!(human.contains("cairn_"), "{human}");

    let revoked = env.json(&["keys", "revoke", id]);
    assert_eq!(revoked["status"], "revoked");
    let list = env.json(&["keys", "list", "--tenant", "alice"]);
    assert_eq!(list[0]["status"], "revoked");
    assert!(list[0]["revoked_at"].is_string());
    env.assert_healthy();
}

#[test]
fn bad_key_requests_are_refused_clearly() {
    let env = Env::new();
    let out = env.run(&["keys", "create", "--tenant", "alice", "--role", "root"]);
    assert_eq!(out.status.code(), Some(2), "a bad role is a usage error");
    assert!(String::from_utf8_lossy(&out.stderr).contains("read"));

    let out = env.run(&["keys", "create", "--tenant", "  ", "--role", "read"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("tenant"));

    let out = env.run(&[
        "keys",
        "create",
        "--tenant",
        "alice",
        "--role",
        "read",
        "--expires",
        "soon",
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("soon"));

    let out = env.run(&["keys", "revoke", "0123456789ab"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no API key with id 0123456789ab"), "{err}");
}

#[test]
fn serve_without_keys_is_refused_on_a_non_loopback_address() {
    let env = Env::new();
    let out = env.run(&["serve", "--listen", "0.0.0.0:0", "--no-auth"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--no-auth is refused"), "{err}");
}

#[test]
fn serve_reads_its_settings_from_a_config_file() {
    use std::io::BufRead;
    let env = Env::new();
    let store = env.dir.path().join("from-config.db");
    let config = env.dir.path().join("cairn.toml");
    std::fs::write(
        &config,
        format!(
            "listen = \"127.0.0.1:0\"\nstore = {:?}\n[auth]\nrequired = false\n",
            store.to_str().unwrap()
        ),
    )
    .unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_cairn"))
        .args(["serve", "--config", config.to_str().unwrap()])
        .env_remove("CAIRN_DB")
        .env("NO_COLOR", "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(line.contains("http://127.0.0.1:"), "{line}");
    assert!(
        !line.contains("needs `Authorization"),
        "auth off by the file: {line}"
    );
    assert!(store.exists(), "the store the file names");

    std::fs::write(&config, "listen = 7878\n").unwrap();
    let out = env.run(&["serve", "--config", config.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("listen") && err.contains("cairn.toml"),
        "{err}"
    );
}
