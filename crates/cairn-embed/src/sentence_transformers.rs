//! [`SentenceTransformerDir`]: a BERT-family model saved by
//! sentence-transformers, read from its directory.
//!
//! The layout (what `SentenceTransformer.save` writes):
//!
//! | file | what is read from it |
//! |---|---|
//! | `config.json` | the BERT shape (hidden size, layers, heads, intermediate size, positions); `model_type` `bert`, `hidden_act` `gelu` and absolute positions are required |
//! | `tokenizer.json` | the tokenizer (its own padding and truncation are replaced) |
//! | `model.safetensors` | f32 weights named like `BertModel`'s, with or without `bert.` |
//! | `modules.json` | optional: the pipeline; only `Transformer`, `Pooling` and `Normalize` modules are accepted |
//! | `1_Pooling/config.json` | optional (mean when absent): `pooling_mode_mean_tokens` or `pooling_mode_cls_token` |
//! | `sentence_bert_config.json` | optional: `max_seq_length`, the token limit (else the model's positions, at most 512) |
//!
//! Vectors are always L2-normalised, `Normalize` module or not: Cairn
//! compares vectors by dot product and its [`cairn_core::Embedder`]
//! contract is unit vectors. Cosine similarity ignores length, so this
//! keeps every ranking a model without `Normalize` gives under cosine
//! similarity, the similarity sentence-transformers uses by default.
//!
//! What this module must never do: guess. A configuration it does not
//! implement (another architecture, activation, position scheme, pooling
//! mode or module) is refused with an error naming the file and the field,
//! rather than embedded approximately.

use std::path::{Path, PathBuf};

use cairn_core::{Error, ModelInfo, Result};

use crate::encoder::{read_config, BertEmbedder, Parts};
use crate::fetch::{CONFIG_FILE, TOKENIZER_FILE, WEIGHTS_FILE};
use crate::model::BertConfig;
use crate::pooling::Pooling;

/// The token limit when `sentence_bert_config.json` gives none (also
/// bounded by the model's positions).
pub const DEFAULT_MAX_TOKENS: usize = 512;

const MODULES_FILE: &str = "modules.json";
const POOLING_DIR: &str = "1_Pooling";
const SBERT_CONFIG_FILE: &str = "sentence_bert_config.json";

const TRANSFORMER: &str = "sentence_transformers.models.Transformer";
const POOLING: &str = "sentence_transformers.models.Pooling";
const NORMALIZE: &str = "sentence_transformers.models.Normalize";

/// A sentence-transformers model directory, read and checked but not yet
/// loaded: its name and dimension are known (the store's model check needs
/// no weights), and [`SentenceTransformerDir::load`] reads the weights.
#[derive(Debug, Clone)]
pub struct SentenceTransformerDir {
    dir: PathBuf,
    /// Where `config.json`, `tokenizer.json` and `model.safetensors` are
    /// (the `Transformer` module's path: usually `dir` itself).
    transformer: PathBuf,
    config: BertConfig,
    info: ModelInfo,
    pooling: Pooling,
    max_tokens: usize,
}

/// One entry of `modules.json`.
#[derive(Debug, serde::Deserialize)]
struct Module {
    #[serde(default)]
    path: String,
    #[serde(rename = "type")]
    kind: String,
}

fn bad(path: &Path, reason: impl std::fmt::Display) -> Error {
    Error::invalid(format!("{}: {reason}", path.display()))
}

/// Read the JSON file at `path`, or `None` if there is none.
fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<Option<T>> {
    match std::fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| bad(path, e)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(bad(path, e)),
    }
}

impl SentenceTransformerDir {
    /// Read the model directory `dir`: its configuration files are parsed
    /// and checked, the tokenizer and weights files must exist (they are
    /// read by [`SentenceTransformerDir::load`]).
    ///
    /// The model is recorded in the store as `name`, else as the
    /// directory's own name (`bge-small-en-v1.5` for
    /// `~/models/bge-small-en-v1.5`).
    pub fn open(dir: &Path, name: Option<&str>) -> Result<Self> {
        let meta = std::fs::metadata(dir)
            .map_err(|e| bad(dir, format_args!("cannot open the model directory: {e}")))?;
        if !meta.is_dir() {
            return Err(bad(dir, "not a directory (give the model's directory)"));
        }
        let (transformer, pooling_dir) = modules(dir)?;
        for file in [CONFIG_FILE, TOKENIZER_FILE, WEIGHTS_FILE] {
            let path = transformer.join(file);
            if !path.is_file() {
                return Err(bad(
                    &path,
                    "missing: a sentence-transformers model directory holds config.json, \
                     tokenizer.json and model.safetensors",
                ));
            }
        }
        let config = read_config(&transformer.join(CONFIG_FILE)).map_err(Error::invalid)?;
        let pooling = match &pooling_dir {
            Some(p) => pooling(&p.join(CONFIG_FILE), config.hidden_size)?,
            None => Pooling::Mean,
        };
        let max_tokens = max_tokens(&dir.join(SBERT_CONFIG_FILE), &config)?;
        let name = match name.map(str::trim).filter(|n| !n.is_empty()) {
            Some(n) => n.to_owned(),
            None => dir_name(dir)?,
        };
        Ok(Self {
            dir: dir.to_owned(),
            transformer,
            info: ModelInfo {
                name,
                dim: config.hidden_size,
            },
            config,
            pooling,
            max_tokens,
        })
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The name recorded in the store and the vectors' dimension.
    pub fn info(&self) -> &ModelInfo {
        &self.info
    }

    /// How token vectors are pooled.
    pub fn pooling(&self) -> Pooling {
        self.pooling
    }

    /// Inputs are truncated to this many tokens, special tokens included.
    pub fn max_tokens(&self) -> usize {
        self.max_tokens
    }

    /// Load the tokenizer and the weights.
    pub fn load(&self) -> Result<BertEmbedder> {
        BertEmbedder::assemble(Parts {
            config: &self.config,
            tokenizer: &self.transformer.join(TOKENIZER_FILE),
            weights: &self.transformer.join(WEIGHTS_FILE),
            max_tokens: self.max_tokens,
            info: self.info.clone(),
            pooling: self.pooling,
        })
    }
}

/// The `Transformer` module's directory and the `Pooling` module's, from
/// `modules.json`; without that file, `dir` and `1_Pooling` if it exists.
fn modules(dir: &Path) -> Result<(PathBuf, Option<PathBuf>)> {
    let path = dir.join(MODULES_FILE);
    let Some(modules) = read_json::<Vec<Module>>(&path)? else {
        let pooling = dir.join(POOLING_DIR);
        return Ok((dir.to_owned(), pooling.is_dir().then_some(pooling)));
    };
    let (mut transformer, mut pooling) = (None, None);
    for (i, m) in modules.iter().enumerate() {
        let slot = match m.kind.as_str() {
            TRANSFORMER if i == 0 => &mut transformer,
            POOLING if i == 1 => &mut pooling,
            NORMALIZE if i == 2 => continue,
            other => {
                return Err(bad(
                    &path,
                    format_args!(
                        "module {i} is {other:?}: only a Transformer, then a Pooling, then \
                         optionally a Normalize module are supported"
                    ),
                ))
            }
        };
        *slot = Some(dir.join(&m.path));
    }
    match (transformer, pooling) {
        (Some(t), Some(p)) => Ok((t, Some(p))),
        _ => Err(bad(
            &path,
            "a Transformer module then a Pooling module are needed",
        )),
    }
}

/// The pooling mode `path` (a `Pooling` module's `config.json`) sets.
fn pooling(path: &Path, hidden_size: usize) -> Result<Pooling> {
    let Some(config) = read_json::<serde_json::Map<String, serde_json::Value>>(path)? else {
        return Ok(Pooling::Mean);
    };
    if let Some(dim) = config
        .get("word_embedding_dimension")
        .and_then(|v| v.as_u64())
    {
        if dim as usize != hidden_size {
            return Err(bad(
                path,
                format_args!(
                    "word_embedding_dimension is {dim}, but config.json's hidden_size is \
                     {hidden_size}"
                ),
            ));
        }
    }
    let on: Vec<&str> = config
        .iter()
        .filter(|(k, v)| k.starts_with("pooling_mode_") && v.as_bool() == Some(true))
        .map(|(k, _)| k.as_str())
        .collect();
    let supported = [Pooling::Mean, Pooling::Cls];
    match on.as_slice() {
        [one] => supported
            .into_iter()
            .find(|p| p.config_key() == *one)
            .ok_or_else(|| {
                bad(
                    path,
                    format_args!(
                        "unsupported pooling {one} (only pooling_mode_mean_tokens or \
                         pooling_mode_cls_token)"
                    ),
                )
            }),
        [] => Err(bad(path, "no pooling_mode_… is true")),
        many => Err(bad(
            path,
            format_args!(
                "{} are all true: concatenated poolings are not supported (set one)",
                many.join(", ")
            ),
        )),
    }
}

/// The token limit: `max_seq_length` from `path` if it exists, else
/// [`DEFAULT_MAX_TOKENS`]; never more than the model's positions.
fn max_tokens(path: &Path, config: &BertConfig) -> Result<usize> {
    #[derive(serde::Deserialize)]
    struct SbertConfig {
        max_seq_length: Option<usize>,
    }
    let given = read_json::<SbertConfig>(path)?.and_then(|c| c.max_seq_length);
    if given == Some(0) {
        return Err(bad(path, "max_seq_length is 0"));
    }
    Ok(given
        .unwrap_or(DEFAULT_MAX_TOKENS)
        .min(config.max_position_embeddings))
}

/// The directory's own name (of its canonical path, so `.` or a trailing
/// `/` still name it).
fn dir_name(dir: &Path) -> Result<String> {
    let full = dir.canonicalize().map_err(|e| bad(dir, e))?;
    full.file_name()
        .and_then(|n| n.to_str())
        .map(str::to_owned)
        .ok_or_else(|| {
            bad(
                dir,
                "the directory has no name to record the model by: name it",
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, file: &str, text: &str) -> PathBuf {
        let path = dir.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn pooling_modes_are_read_and_others_refused_by_name() {
        let tmp = tempfile::tempdir().unwrap();
        let p = |text: &str| pooling(&write(tmp.path(), "p.json", text), 384);
        assert_eq!(
            p(r#"{"word_embedding_dimension": 384, "pooling_mode_cls_token": true, "pooling_mode_mean_tokens": false}"#).unwrap(),
            Pooling::Cls
        );
        assert_eq!(
            p(r#"{"pooling_mode_mean_tokens": true}"#).unwrap(),
            Pooling::Mean
        );
        let err = p(r#"{"pooling_mode_max_tokens": true}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("pooling_mode_max_tokens"), "{err}");
        let err = p(r#"{"pooling_mode_cls_token": true, "pooling_mode_mean_tokens": true}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("concatenated"), "{err}");
        assert!(p(r#"{"pooling_mode_mean_tokens": false}"#).is_err());
        let err = p(r#"{"word_embedding_dimension": 768, "pooling_mode_mean_tokens": true}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("word_embedding_dimension is 768"), "{err}");
        assert_eq!(
            pooling(&tmp.path().join("none.json"), 384).unwrap(),
            Pooling::Mean
        );
    }

    #[test]
    fn modules_name_the_pooling_directory_and_refuse_other_modules() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        assert_eq!(modules(dir).unwrap(), (dir.to_owned(), None));
        std::fs::create_dir(dir.join(POOLING_DIR)).unwrap();
        assert_eq!(
            modules(dir).unwrap(),
            (dir.to_owned(), Some(dir.join(POOLING_DIR)))
        );
        write(
            dir,
            MODULES_FILE,
            r#"[{"idx":0,"name":"0","path":"","type":"sentence_transformers.models.Transformer"},
                {"idx":1,"name":"1","path":"pool","type":"sentence_transformers.models.Pooling"},
                {"idx":2,"name":"2","path":"2_Normalize","type":"sentence_transformers.models.Normalize"}]"#,
        );
        assert_eq!(
            modules(dir).unwrap(),
            (dir.join(""), Some(dir.join("pool")))
        );
        write(
            dir,
            MODULES_FILE,
            r#"[{"path":"","type":"sentence_transformers.models.Transformer"},
                {"path":"1_Pooling","type":"sentence_transformers.models.Pooling"},
                {"path":"2_Dense","type":"sentence_transformers.models.Dense"}]"#,
        );
        let err = modules(dir).unwrap_err().to_string();
        assert!(err.contains("sentence_transformers.models.Dense"), "{err}");
        write(
            dir,
            MODULES_FILE,
            r#"[{"path":"","type":"sentence_transformers.models.Transformer"}]"#,
        );
        assert!(modules(dir).unwrap_err().to_string().contains("Pooling"));
    }

    #[test]
    fn the_token_limit_is_bounded_by_the_positions() {
        let tmp = tempfile::tempdir().unwrap();
        let config: BertConfig = serde_json::from_str(
            r#"{"vocab_size": 10, "hidden_size": 8, "num_hidden_layers": 1,
                "num_attention_heads": 2, "intermediate_size": 16, "hidden_act": "gelu",
                "max_position_embeddings": 256, "type_vocab_size": 2, "layer_norm_eps": 1e-12}"#,
        )
        .unwrap();
        let path = tmp.path().join(SBERT_CONFIG_FILE);
        assert_eq!(max_tokens(&path, &config).unwrap(), 256);
        write(tmp.path(), SBERT_CONFIG_FILE, r#"{"max_seq_length": 128}"#);
        assert_eq!(max_tokens(&path, &config).unwrap(), 128);
        write(tmp.path(), SBERT_CONFIG_FILE, r#"{"max_seq_length": 4096}"#);
        assert_eq!(max_tokens(&path, &config).unwrap(), 256);
        write(tmp.path(), SBERT_CONFIG_FILE, r#"{"max_seq_length": 0}"#);
        assert!(max_tokens(&path, &config).is_err());
    }
}
