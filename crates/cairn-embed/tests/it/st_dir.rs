//! A sentence-transformers model directory, built from the default model's
//! files (symlinked) with the layout's own files written beside them:
//! mean pooling must reproduce the default model exactly, `[CLS]` pooling
//! must give the first token's normalised vector, and every configuration
//! the encoder does not implement must be refused by name.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use cairn_core::{Cairn, Embedder, Error, MemoryStore, RememberRequest, Store};
use cairn_embed::{default_model_dir, Pooling, SentenceTransformerDir};

use super::{model, norm, references};

const TEXTS: [&str; 4] = [
    "The staging database runs on a Hetzner box in Falkenstein.",
    "Deploys go out on Tuesdays after the standup.",
    "ok",
    "Use pnpm, not npm, in the web repository; the lockfile is pnpm-lock.yaml.",
];

/// A directory `name` in a temporary directory, holding the default
/// model's three files and a sentence-transformers layout with `pooling`
/// (a `1_Pooling/config.json` key).
fn st_dir(name: &str, pooling: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path().join(name);
    std::fs::create_dir(&dir).expect("mkdir");
    let source = default_model_dir();
    for file in ["config.json", "tokenizer.json", "model.safetensors"] {
        assert!(
            source.join(file).is_file(),
            "run scripts/fetch-model.sh: {} is missing",
            source.join(file).display()
        );
        std::os::unix::fs::symlink(source.join(file), dir.join(file)).expect("symlink");
    }
    write(
        &dir,
        "1_Pooling/config.json",
        &format!(
            r#"{{"word_embedding_dimension": 384, "pooling_mode_cls_token": false,
                "pooling_mode_mean_tokens": false, "pooling_mode_max_tokens": false,
                "pooling_mode_mean_sqrt_len_tokens": false, "{pooling}": true}}"#
        ),
    );
    write(
        &dir,
        "modules.json",
        r#"[{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
            {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
            {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}]"#,
    );
    write(
        &dir,
        "sentence_bert_config.json",
        r#"{"max_seq_length": 256, "do_lower_case": false}"#,
    );
    (tmp, dir)
}

fn write(dir: &Path, file: &str, text: &str) {
    let path = dir.join(file);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

fn open(dir: &Path) -> SentenceTransformerDir {
    SentenceTransformerDir::open(dir, None)
        .unwrap_or_else(|e| panic!("cannot open {}: {e}", dir.display()))
}

fn open_err(dir: &Path) -> String {
    match SentenceTransformerDir::open(dir, None) {
        Ok(m) => panic!("{} opened: {m:?}", dir.display()),
        Err(e) => e.to_string(),
    }
}

fn normalized(v: &[f32]) -> Vec<f32> {
    let n = norm(v);
    v.iter().map(|x| x / n).collect()
}

fn max_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

#[test]
fn mean_pooling_gives_exactly_the_default_models_vectors() {
    let (_tmp, dir) = st_dir("minilm-mean", "pooling_mode_mean_tokens");
    let spec = open(&dir);
    assert_eq!(spec.info().name, "minilm-mean");
    assert_eq!(spec.info().dim, 384);
    assert_eq!((spec.pooling(), spec.max_tokens()), (Pooling::Mean, 256));
    let st = spec.load().expect("load");
    assert_eq!(st.model(), *spec.info());
    // The fixture's texts include one truncated at 256 tokens.
    let refs = references();
    let texts: Vec<&str> = refs.iter().map(|r| r.text.as_str()).collect();
    assert_eq!(
        st.embed_batch(&texts).expect("embed"),
        model().embed_batch(&texts).expect("embed")
    );
}

#[test]
fn a_directory_with_only_the_model_files_pools_by_mean_up_to_its_positions() {
    let (_tmp, dir) = st_dir("bare", "pooling_mode_mean_tokens");
    for extra in ["modules.json", "sentence_bert_config.json"] {
        std::fs::remove_file(dir.join(extra)).expect("rm");
    }
    std::fs::remove_dir_all(dir.join("1_Pooling")).expect("rm");
    let spec = SentenceTransformerDir::open(&dir, Some("my-model")).expect("open");
    assert_eq!(spec.info().name, "my-model");
    // No sentence_bert_config.json: the positions (512) bound the tokens.
    assert_eq!((spec.pooling(), spec.max_tokens()), (Pooling::Mean, 512));
    let st = spec.load().expect("load");
    assert_eq!(
        st.embed_batch(&TEXTS).expect("embed"),
        model().embed_batch(&TEXTS).expect("embed")
    );
    let long = "word ".repeat(400);
    assert_eq!(st.token_ids(&[&long]).expect("ids")[0].len(), 402);
    assert_eq!(model().token_ids(&[&long]).expect("ids")[0].len(), 256);
}

#[test]
fn cls_pooling_gives_the_first_tokens_normalised_vector() {
    let (_tmp, dir) = st_dir("minilm-cls", "pooling_mode_cls_token");
    let spec = open(&dir);
    assert_eq!(spec.pooling(), Pooling::Cls);
    let cls = spec.load().expect("load");
    let mean = model().embed_batch(&TEXTS).expect("embed");
    // Batched (texts packed end to end) and one at a time agree.
    let batch = cls.embed_batch(&TEXTS).expect("embed");
    for ((text, v), m) in TEXTS.iter().zip(&batch).zip(&mean) {
        assert!((norm(v) - 1.0).abs() < 1e-5, "{text:?}: norm {}", norm(v));
        assert!(
            max_diff(v, m) > 0.01,
            "{text:?}: [CLS] pooling gave the mean-pooled vector"
        );
        assert!(max_diff(v, &cls.embed(text).expect("embed")) < 1e-5);
        // The encoder's token vectors, checked through mean pooling against
        // the default model (itself checked against the reference vectors),
        // then their first row is what [CLS] pooling must give.
        let tokens = cls.token_vectors(text).expect("tokens");
        assert_eq!(tokens.len(), cls.token_ids(&[text]).expect("ids")[0].len());
        let mut sum = vec![0f32; 384];
        for t in &tokens {
            for (s, x) in sum.iter_mut().zip(t) {
                *s += x;
            }
        }
        assert!(max_diff(&normalized(&sum), m) < 1e-5, "{text:?}");
        assert!(max_diff(v, &normalized(&tokens[0])) < 1e-6, "{text:?}");
    }
}

/// The default model's weights with every tensor renamed `bert.NAME`, as a
/// `BertFor…` model saves them.
fn write_prefixed_weights(from: &Path, to: &Path) {
    let bytes = std::fs::read(from).expect("read weights");
    let n = u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes")) as usize;
    let header: serde_json::Map<String, serde_json::Value> =
        serde_json::from_slice(&bytes[8..8 + n]).expect("header");
    let renamed: serde_json::Map<String, serde_json::Value> = header
        .into_iter()
        .map(|(k, v)| match k.as_str() {
            "__metadata__" => (k, v),
            _ => (format!("bert.{k}"), v),
        })
        .collect();
    let header = serde_json::to_vec(&renamed).expect("json");
    let mut out = Vec::with_capacity(bytes.len() + 1024);
    out.extend_from_slice(&(header.len() as u64).to_le_bytes());
    out.extend_from_slice(&header);
    out.extend_from_slice(&bytes[8 + n..]);
    std::fs::write(to, out).expect("write weights");
}

#[test]
fn weights_named_with_the_bert_prefix_load() {
    let (_tmp, dir) = st_dir("prefixed", "pooling_mode_mean_tokens");
    let weights = dir.join("model.safetensors");
    std::fs::remove_file(&weights).expect("rm");
    write_prefixed_weights(&default_model_dir().join("model.safetensors"), &weights);
    let st = open(&dir).load().expect("load");
    assert_eq!(
        st.embed_batch(&TEXTS).expect("embed"),
        model().embed_batch(&TEXTS).expect("embed")
    );
}

#[test]
fn unsupported_directories_are_refused_by_name() {
    let (_tmp, dir) = st_dir("bad", "pooling_mode_max_tokens");
    let err = open_err(&dir);
    assert!(
        err.contains("pooling_mode_max_tokens") && err.contains("1_Pooling"),
        "{err}"
    );

    let (_tmp, dir) = st_dir("bad", "pooling_mode_mean_tokens");
    let config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("config.json")).expect("config"))
            .expect("json");
    for (field, value, needle) in [
        ("model_type", "roberta", "model_type \"roberta\""),
        ("hidden_act", "relu", "hidden_act \"relu\""),
        (
            "position_embedding_type",
            "relative_key",
            "position_embedding_type \"relative_key\"",
        ),
    ] {
        let mut other = config.clone();
        other[field] = value.into();
        std::fs::remove_file(dir.join("config.json")).expect("rm");
        write(&dir, "config.json", &other.to_string());
        let err = open_err(&dir);
        assert!(
            err.contains(needle) && err.contains("config.json"),
            "{field}: {err}"
        );
    }

    for file in ["tokenizer.json", "model.safetensors", "config.json"] {
        let (_tmp, dir) = st_dir("incomplete", "pooling_mode_mean_tokens");
        std::fs::remove_file(dir.join(file)).expect("rm");
        let err = open_err(&dir);
        assert!(
            err.contains(file) && err.contains("missing"),
            "{file}: {err}"
        );
    }

    let err = open_err(&dir.join("no-such-model"));
    assert!(err.contains("no-such-model"), "{err}");
}

#[test]
fn a_store_embedded_by_one_model_refuses_the_other() {
    let (_tmp_mean, mean_dir) = st_dir("minilm-mean", "pooling_mode_mean_tokens");
    let (_tmp_cls, cls_dir) = st_dir("minilm-cls", "pooling_mode_cls_token");
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let with = |dir: &Path| {
        let embedder: Arc<dyn Embedder> = Arc::new(open(dir).load().expect("load"));
        Cairn::new(store.clone(), embedder)
    };
    let remember = |cairn: &Cairn, text: &str| cairn.remember(RememberRequest::new("t", text));
    remember(&with(&mean_dir), TEXTS[0]).expect("first model writes");
    let err = remember(&with(&cls_dir), TEXTS[1]).expect_err("the other model is refused");
    assert!(matches!(err, Error::ModelMismatch { .. }), "{err}");
    assert!(err.to_string().contains("minilm-cls"), "{err}");
    remember(&with(&mean_dir), TEXTS[1]).expect("the first model still writes");
}
