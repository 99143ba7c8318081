//! `CAIRN_EMBED_DIR`, end to end: a sentence-transformers directory built
//! from the default model's files with `[CLS]` pooling, shown by `cairn
//! model status` and `cairn providers`, refused by a store the default model
//! embedded until `cairn reindex`, and a bad directory refused at start.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use crate::Env;

/// `root/name`: the default model's files (symlinked) with `[CLS]` pooling.
fn cls_dir(root: &Path, name: &str) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(dir.join("1_Pooling")).expect("mkdir");
    let source = cairn_embed::default_model_dir();
    for file in ["config.json", "tokenizer.json", "model.safetensors"] {
        std::os::unix::fs::symlink(source.join(file), dir.join(file)).expect("symlink");
    }
    std::fs::write(
        dir.join("1_Pooling/config.json"),
        r#"{"word_embedding_dimension": 384, "pooling_mode_cls_token": true, "pooling_mode_mean_tokens": false}"#,
    )
    .expect("write");
    std::fs::write(
        dir.join("sentence_bert_config.json"),
        r#"{"max_seq_length": 128}"#,
    )
    .expect("write");
    dir
}

fn run(env: &Env, dir: Option<&Path>, args: &[&str]) -> Output {
    let mut c = env.cmd();
    match dir {
        Some(d) => c.env("CAIRN_EMBED_DIR", d),
        None => c.env_remove("CAIRN_EMBED_DIR"),
    };
    c.env_remove("CAIRN_EMBED_URL")
        .env_remove("CAIRN_EMBED_MODEL");
    c.args(args).output().expect("run cairn")
}

fn json(env: &Env, dir: Option<&Path>, args: &[&str]) -> Value {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let out = run(env, dir, &all);
    assert!(
        out.status.success(),
        "cairn {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_model_directory_is_shown_and_a_store_moves_to_it_by_reindex() {
    let env = Env::new();
    let dir = cls_dir(env.dir.path(), "minilm-cls");

    let status = json(&env, Some(&dir), &["model", "status"]);
    assert_eq!(status["model"]["name"], "minilm-cls");
    assert_eq!(status["model"]["dim"], 384);
    assert_eq!(status["pooling"], "cls");
    assert_eq!(status["max_tokens"], 128);
    let providers = json(&env, Some(&dir), &["providers"]);
    assert_eq!(providers["embedder"]["model"], "minilm-cls");

    // The default model embeds the store first.
    json(
        &env,
        None,
        &["remember", "the staging database runs in Falkenstein"],
    );
    let refused = run(
        &env,
        Some(&dir),
        &["remember", "deploys go out on Tuesdays"],
    );
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    let err = stderr(&refused);
    assert!(
        err.contains("all-MiniLM-L6-v2") && err.contains("minilm-cls") && err.contains("reindex"),
        "{err}"
    );

    let reindexed = json(&env, Some(&dir), &["reindex"]);
    assert_eq!(reindexed["reindexed"], 1);
    assert_eq!(reindexed["model"]["name"], "minilm-cls");
    json(
        &env,
        Some(&dir),
        &["remember", "deploys go out on Tuesdays"],
    );
    let hits = json(
        &env,
        Some(&dir),
        &[
            "recall",
            "where is the staging database?",
            "--mode",
            "semantic",
        ],
    );
    let first = &hits["results"][0]["content"];
    assert_eq!(first, "the staging database runs in Falkenstein", "{hits}");
    // Now the default model is the other one.
    let refused = run(&env, None, &["recall", "staging", "--mode", "semantic"]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
}

#[test]
fn a_bad_model_directory_is_refused_at_start_by_name() {
    let env = Env::new();
    let missing = env.dir.path().join("no-such-model");
    let out = run(&env, Some(&missing), &["providers"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("no-such-model"), "{}", stderr(&out));

    let dir = cls_dir(env.dir.path(), "max-pooled");
    std::fs::write(
        dir.join("1_Pooling/config.json"),
        r#"{"pooling_mode_max_tokens": true}"#,
    )
    .expect("write");
    let out = run(&env, Some(&dir), &["model", "status"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("pooling_mode_max_tokens"),
        "{}",
        stderr(&out)
    );
}
