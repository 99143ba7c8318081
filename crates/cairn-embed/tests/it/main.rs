//! Integration tests of the real model: parity with an independent reference
//! implementation, batch/single agreement, unit norms, output order.
//!
//! They need the model files: run `scripts/fetch-model.sh` first (CI does).
//! Without them the tests fail, on purpose, rather than pass vacuously.
//!
//! How the fixture was made: `tests/fixtures/reference_vectors.json` was
//! written by `scripts/reference_embeddings.py`, a numpy float64 forward pass
//! of BERT written for this purpose (exact-erf GELU, attention mask, mean
//! pooling, L2 normalisation) over the same `model.safetensors`, tokenised by
//! the Python `tokenizers` package from the same `tokenizer.json` with the
//! same settings (truncation at 256 tokens, padding to the longest input).
//! Its "Hello world" vector starts -0.03448, 0.03102, 0.00674, 0.02611,
//! matching the values published for sentence-transformers' model.

use std::sync::OnceLock;

use cairn_core::Embedder;
use cairn_embed::{default_model_dir, model_status, MiniLm, DIM, MAX_TOKENS};

mod segment;
mod st_dir;

const FIXTURE: &str = include_str!("../fixtures/reference_vectors.json");

fn model() -> &'static MiniLm {
    static MODEL: OnceLock<MiniLm> = OnceLock::new();
    MODEL.get_or_init(|| {
        let dir = default_model_dir();
        let status = model_status(&dir);
        assert!(
            status.is_ready(),
            "the embedding model is needed for these tests: run scripts/fetch-model.sh \
             (it honours CAIRN_MODEL_DIR)\n{status}"
        );
        match MiniLm::load(&dir) {
            Ok(m) => m,
            Err(e) => panic!("cannot load the model from {}: {e}", dir.display()),
        }
    })
}

struct Reference {
    text: String,
    ids: Vec<u32>,
    vector: Vec<f32>,
}

fn references() -> Vec<Reference> {
    let json: serde_json::Value = serde_json::from_str(FIXTURE).expect("fixture is JSON");
    assert_eq!(json["max_tokens"].as_u64(), Some(MAX_TOKENS as u64));
    json["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|item| Reference {
            text: item["text"].as_str().expect("text").to_owned(),
            ids: item["ids"]
                .as_array()
                .expect("ids")
                .iter()
                .map(|v| v.as_u64().expect("id") as u32)
                .collect(),
            vector: item["vector"]
                .as_array()
                .expect("vector")
                .iter()
                .map(|v| v.as_f64().expect("float") as f32)
                .collect(),
        })
        .collect()
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb: f32 = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    dot / (na * nb)
}

fn norm(v: &[f32]) -> f32 {
    v.iter().map(|x| x * x).sum::<f32>().sqrt()
}

#[test]
fn model_info_is_minilm_384() {
    let info = model().model();
    assert_eq!(info.name, "all-MiniLM-L6-v2");
    assert_eq!(info.dim, 384);
    assert_eq!(info, cairn_embed::model_info());
}

#[test]
fn matches_reference_vectors() {
    let refs = references();
    assert!(refs.len() >= 12);
    assert!(
        refs.iter().any(|r| r.ids.len() == MAX_TOKENS),
        "fixture must exercise truncation"
    );
    let texts: Vec<&str> = refs.iter().map(|r| r.text.as_str()).collect();
    let got = model().embed_batch(&texts).expect("embed");
    assert_eq!(got.len(), refs.len());
    let mut worst = 1.0f32;
    for (r, v) in refs.iter().zip(&got) {
        assert_eq!(v.len(), DIM);
        let c = cosine(v, &r.vector);
        worst = worst.min(c);
        assert!(c >= 0.999, "cosine {c} < 0.999 for {:?}", r.text);
    }
    eprintln!("worst cosine to reference: {worst}");
}

#[test]
fn batch_and_single_agree() {
    let refs = references();
    let texts: Vec<&str> = refs.iter().map(|r| r.text.as_str()).collect();
    let batch = model().embed_batch(&texts).expect("embed batch");
    for (text, b) in texts.iter().zip(&batch) {
        let single = model().embed(text).expect("embed single");
        let c = cosine(&single, b);
        assert!(c >= 0.9999, "batch vs single cosine {c} for {text:?}");
    }
}

#[test]
fn vectors_have_unit_norm() {
    let refs = references();
    let texts: Vec<&str> = refs.iter().map(|r| r.text.as_str()).collect();
    for v in model().embed_batch(&texts).expect("embed") {
        assert!((norm(&v) - 1.0).abs() < 1e-4, "norm {}", norm(&v));
        assert!(v.iter().all(|x| x.is_finite()));
    }
}

#[test]
fn output_order_matches_input_for_mixed_lengths() {
    // Lengths deliberately out of order, so the sort by length inside
    // embed_batch must be undone; 1,100 texts span many sub-batches and two
    // sort windows of 1,024. Mostly short texts, to keep the test quick.
    let refs = references();
    let short: Vec<&Reference> = refs.iter().filter(|r| r.ids.len() <= 12).collect();
    let long: Vec<&Reference> = refs.iter().filter(|r| r.ids.len() > 12).collect();
    assert!(short.len() >= 4 && !long.is_empty());
    let picks: Vec<&Reference> = (0..1100)
        .map(|i| {
            if i % 150 == 7 {
                long[(i / 150) % long.len()]
            } else {
                short[(i * 7 + i / 3) % short.len()]
            }
        })
        .collect();
    let texts: Vec<&str> = picks.iter().map(|r| r.text.as_str()).collect();
    let got = model().embed_batch(&texts).expect("embed");
    assert_eq!(got.len(), texts.len());
    for (i, (g, r)) in got.iter().zip(&picks).enumerate() {
        let c = cosine(g, &r.vector);
        assert!(
            c >= 0.999,
            "item {i} ({:?}) is out of place: cosine {c}",
            r.text
        );
    }
}

#[test]
fn tokenisation_matches_reference_ids() {
    // A mismatch here points at the tokeniser rather than the encoder.
    let refs = references();
    let texts: Vec<&str> = refs.iter().map(|r| r.text.as_str()).collect();
    let ids = model().token_ids(&texts).expect("tokenise");
    for (r, got) in refs.iter().zip(ids) {
        assert_eq!(got, r.ids, "token ids for {:?}", r.text);
    }
}

#[test]
fn empty_batch_gives_no_vectors() {
    assert!(model().embed_batch(&[]).expect("embed").is_empty());
}

#[test]
fn similar_sentences_are_closer_than_unrelated_ones() {
    let v = model()
        .embed_batch(&[
            "The user likes dark mode.",
            "The user prefers a dark theme.",
            "Quarterly revenue grew by four percent.",
        ])
        .expect("embed");
    assert!(cosine(&v[0], &v[1]) > cosine(&v[0], &v[2]) + 0.2);
}
