//! Files the CLI writes with memories in them are readable by their owner
//! only (0600), whatever the umask, like the store itself.

#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::process::Stdio;

use crate::Env;

/// Run `cairn args` under umask 000 (the most permissive) and require
/// success.
fn run_under_open_umask(env: &Env, args: &[&str]) {
    let cairn = env.cmd();
    let mut sh = std::process::Command::new("sh");
    sh.arg("-c")
        .arg("umask 000 && exec \"$@\"")
        .arg("sh")
        .arg(cairn.get_program())
        .args(args);
    for (k, v) in cairn.get_envs() {
        match v {
            Some(v) => sh.env(k, v),
            None => sh.env_remove(k),
        };
    }
    let out = sh.stdin(Stdio::null()).output().unwrap();
    assert!(
        out.status.success(),
        "cairn {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn mode(path: &std::path::Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn exports_are_private_whatever_the_umask() {
    let env = Env::new();
    env.remember(&["the vault code is 4711"]);
    env.ok(&["slot", "save", "notes", "the vault code is 4711"]);
    let export = env.dir.path().join("all.jsonl");
    run_under_open_umask(&env, &["export", "-o", export.to_str().unwrap()]);
    assert_eq!(mode(&export), 0o600);
    // Over an existing, world-readable file too.
    let slot = env.dir.path().join("notes.md");
    std::fs::write(&slot, "old").unwrap();
    std::fs::set_permissions(&slot, std::fs::Permissions::from_mode(0o666)).unwrap();
    run_under_open_umask(
        &env,
        &["slot", "export", "notes", "-o", slot.to_str().unwrap()],
    );
    assert_eq!(mode(&slot), 0o600);
    assert!(std::fs::read_to_string(&slot).unwrap().contains("4711"));
    let fresh = env.dir.path().join("fresh.md");
    run_under_open_umask(
        &env,
        &["slot", "export", "notes", "-o", fresh.to_str().unwrap()],
    );
    assert_eq!(mode(&fresh), 0o600);
}
