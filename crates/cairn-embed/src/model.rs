//! A BERT encoder (the architecture of all-MiniLM-L6-v2) on row-major f32
//! matrices held in plain `Vec<f32>`s, run by [`crate::kernels`].
//!
//! Embeddings (word + token type + position, LayerNorm), then N post-norm
//! layers of multi-head self-attention and a GELU feed-forward block. Only
//! inference: no dropout, no pooler head (sentence-transformers pools the
//! token vectors itself). Weight names follow the Hugging Face `BertModel`
//! state dict, with or without the `bert.` prefix (a `BertModel` saves
//! none, a `BertFor…` model saves its encoder under `bert.`).

use crate::gemm::Packed;
use crate::kernels::{layer_norm_row, linear, AddNorm, Attention, BiasGelu, ShapeError};
use crate::weights::{RowTable, WeightFile, WeightsError};

/// Why the encoder could not load or run.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ModelError {
    /// A weight is missing, of the wrong shape, or unreadable.
    #[error(transparent)]
    Weights(#[from] WeightsError),
    /// The input does not fit the model (too long, a bad token type, or
    /// lengths that do not match the ids).
    #[error("{0}")]
    Input(String),
    /// A kernel was handed a matrix of the wrong shape.
    #[error(transparent)]
    Shape(#[from] ShapeError),
}

/// The fields of `config.json` this encoder needs.
#[derive(Debug, Clone, serde::Deserialize)]
pub(crate) struct BertConfig {
    pub vocab_size: usize,
    pub hidden_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    pub intermediate_size: usize,
    pub hidden_act: String,
    pub max_position_embeddings: usize,
    pub type_vocab_size: usize,
    pub layer_norm_eps: f64,
    #[serde(default = "absolute")]
    pub position_embedding_type: String,
    /// `bert` when given (older BERT configurations leave it out).
    #[serde(default)]
    pub model_type: Option<String>,
}

fn absolute() -> String {
    "absolute".to_owned()
}

impl BertConfig {
    /// Refuse configurations this encoder does not implement.
    pub(crate) fn check(&self) -> Result<(), String> {
        if let Some(other) = self.model_type.as_deref().filter(|t| *t != "bert") {
            return Err(format!(
                "unsupported model_type {other:?} (only \"bert\": this encoder is BERT's)"
            ));
        }
        if self.hidden_act != "gelu" {
            return Err(format!(
                "unsupported hidden_act {:?} (only \"gelu\")",
                self.hidden_act
            ));
        }
        if self.position_embedding_type != "absolute" {
            return Err(format!(
                "unsupported position_embedding_type {:?} (only \"absolute\")",
                self.position_embedding_type
            ));
        }
        if self.hidden_size.checked_rem(self.num_attention_heads) != Some(0) {
            return Err(format!(
                "hidden_size {} is not a multiple of num_attention_heads {}",
                self.hidden_size, self.num_attention_heads
            ));
        }
        Ok(())
    }
}

/// The f32 weights of a dense layer `y = x W^T + b`: `W^T`, `(in, out)`,
/// packed for [`crate::gemm::matmul`], and the bias, which the fused kernel
/// that follows the product adds.
struct Dense {
    weight: Packed,
    /// `(out,)`.
    bias: Vec<f32>,
}

/// The loader's state: the open file and a scratch buffer reused for every
/// matrix that is packed on the way in.
struct Loader<'a> {
    file: &'a WeightFile,
    /// What every tensor name starts with in this file: `""` or `"bert."`.
    prefix: &'static str,
    scratch: Vec<f32>,
}

/// The tensor every BERT file holds, by which [`Loader::new`] tells the
/// naming its file uses.
const WORD_EMBEDDINGS: &str = "embeddings.word_embeddings.weight";

impl<'a> Loader<'a> {
    /// A loader for `file`, its tensors named with or without `bert.`.
    fn new(file: &'a WeightFile) -> Self {
        let prefix = if !file.contains(WORD_EMBEDDINGS)
            && file.contains("bert.embeddings.word_embeddings.weight")
        {
            "bert."
        } else {
            ""
        };
        Loader {
            file,
            prefix,
            scratch: Vec::new(),
        }
    }

    /// `name` as the file spells it.
    fn name(&self, name: &str) -> String {
        format!("{}{name}", self.prefix)
    }

    fn read(&self, name: &str, shape: &[usize]) -> Result<Vec<f32>, WeightsError> {
        self.file.read(&self.name(name), shape)
    }

    /// Dense layers named `{name}.weight` / `{name}.bias`, all `(out, in)`,
    /// their outputs side by side in one layer; each with its own scale
    /// (applied to weight and bias alike).
    fn dense(
        &mut self,
        parts: &[(&str, f32)],
        in_dim: usize,
        out_dim: usize,
    ) -> Result<Dense, WeightsError> {
        let mut weight = Packed::zeroed(in_dim, out_dim * parts.len());
        let mut bias = Vec::with_capacity(weight.n());
        for (i, &(name, scale)) in parts.iter().enumerate() {
            self.file.read_into(
                &self.name(&format!("{name}.weight")),
                &[out_dim, in_dim],
                &mut self.scratch,
            )?;
            weight.set_columns(i * out_dim, &self.scratch, scale);
            let b = self.read(&format!("{name}.bias"), &[out_dim])?;
            bias.extend(b.iter().map(|x| x * scale));
        }
        Ok(Dense { weight, bias })
    }

    /// The dense layer `name` and the bias + residual + LayerNorm `norm`
    /// that follows its product.
    fn dense_add_norm(
        &mut self,
        name: &str,
        (in_dim, out_dim): (usize, usize),
        norm: &str,
        eps: f32,
    ) -> Result<(Packed, AddNorm), WeightsError> {
        let dense = self.dense(&[(name, 1.0)], in_dim, out_dim)?;
        let (gamma, beta) = self.norm(norm, out_dim)?;
        let norm = AddNorm {
            bias: dense.bias,
            gamma,
            beta,
            eps,
        };
        Ok((dense.weight, norm))
    }

    /// A LayerNorm's `(gamma, beta)`.
    fn norm(&self, name: &str, dim: usize) -> Result<(Vec<f32>, Vec<f32>), WeightsError> {
        Ok((
            self.read(&format!("{name}.weight"), &[dim])?,
            self.read(&format!("{name}.bias"), &[dim])?,
        ))
    }
}

/// Word + position + token type embeddings, then LayerNorm, computed
/// directly into the encoder's input buffer. The word table stays in the
/// file: a batch reads just the rows of its tokens.
struct Embeddings {
    words: RowTable,
    /// `(max_positions, hidden)`.
    position: Vec<f32>,
    /// `(type_vocab, hidden)`.
    token_type: Vec<f32>,
    gamma: Vec<f32>,
    beta: Vec<f32>,
    eps: f32,
    hidden: usize,
}

impl Embeddings {
    fn load(cfg: &BertConfig, w: &Loader) -> Result<Self, WeightsError> {
        let h = cfg.hidden_size;
        let (gamma, beta) = w.norm("embeddings.LayerNorm", h)?;
        Ok(Self {
            words: w
                .file
                .row_table(&w.name(WORD_EMBEDDINGS), cfg.vocab_size, h)?,
            position: w.read(
                "embeddings.position_embeddings.weight",
                &[cfg.max_position_embeddings, h],
            )?,
            token_type: w.read(
                "embeddings.token_type_embeddings.weight",
                &[cfg.type_vocab_size, h],
            )?,
            gamma,
            beta,
            eps: cfg.layer_norm_eps as f32,
            hidden: h,
        })
    }

    /// The normalised input vectors of `ids`, `(ids.len(), hidden)`: texts
    /// packed end to end, text `b` of `lengths[b]` tokens (its positions
    /// count from 0).
    fn forward(
        &self,
        ids: &[u32],
        type_ids: &[u32],
        lengths: &[usize],
    ) -> Result<Vec<f32>, ModelError> {
        let h = self.hidden;
        let type_vocab = self.token_type.len() / h;
        let mut out = vec![0f32; ids.len() * h];
        let positions = lengths.iter().flat_map(|&len| 0..len);
        for (i, (row, pos)) in out.chunks_exact_mut(h).zip(positions).enumerate() {
            self.words.read_row(ids[i] as usize, row)?;
            let tt = type_ids[i] as usize;
            if tt >= type_vocab {
                return Err(ModelError::Input(format!(
                    "token type {tt} out of range ({type_vocab} types)"
                )));
            }
            let pos = &self.position[pos * h..][..h];
            let typ = &self.token_type[tt * h..][..h];
            for ((x, &p), &t) in row.iter_mut().zip(pos).zip(typ) {
                *x += p + t;
            }
            layer_norm_row(row, &self.gamma, &self.beta, self.eps);
        }
        Ok(out)
    }
}

struct Layer {
    /// Query, key and value projections fused into one `(h, 3h)` matmul,
    /// the attention scale `1/sqrt(head_dim)` folded into the query part.
    qkv: Dense,
    attn_out: Packed,
    attn_norm: AddNorm,
    ffn_in: Packed,
    ffn_act: BiasGelu,
    ffn_out: Packed,
    ffn_norm: AddNorm,
    heads: usize,
    head_dim: usize,
}

impl Layer {
    fn load(cfg: &BertConfig, w: &mut Loader, prefix: &str) -> Result<Self, WeightsError> {
        let h = cfg.hidden_size;
        let heads = cfg.num_attention_heads;
        let head_dim = h / heads;
        let scale = 1.0 / (head_dim as f32).sqrt();
        let att = format!("{prefix}.attention");
        let qkv = w.dense(
            &[
                (&format!("{att}.self.query"), scale),
                (&format!("{att}.self.key"), 1.0),
                (&format!("{att}.self.value"), 1.0),
            ],
            h,
            h,
        )?;
        let eps = cfg.layer_norm_eps as f32;
        let (attn_out, attn_norm) = w.dense_add_norm(
            &format!("{att}.output.dense"),
            (h, h),
            &format!("{att}.output.LayerNorm"),
            eps,
        )?;
        let ffn_in = w.dense(
            &[(&format!("{prefix}.intermediate.dense"), 1.0)],
            h,
            cfg.intermediate_size,
        )?;
        let (ffn_out, ffn_norm) = w.dense_add_norm(
            &format!("{prefix}.output.dense"),
            (cfg.intermediate_size, h),
            &format!("{prefix}.output.LayerNorm"),
            eps,
        )?;
        Ok(Self {
            qkv,
            attn_out,
            attn_norm,
            ffn_in: ffn_in.weight,
            ffn_act: BiasGelu { bias: ffn_in.bias },
            ffn_out,
            ffn_norm,
            heads,
            head_dim,
        })
    }

    /// `x`: `(tokens, hidden)`, texts packed end to end, text `b` of
    /// `lengths[b]` tokens; returns the layer's output, of the same shape.
    fn forward(&self, x: &[f32], lengths: &[usize]) -> Result<Vec<f32>, ShapeError> {
        let context = Attention {
            bias: &self.qkv.bias,
            lengths,
            heads: self.heads,
            head_dim: self.head_dim,
        }
        .apply(&linear(x, &self.qkv.weight)?)?;
        let mut mid = linear(&context, &self.attn_out)?;
        self.attn_norm.apply(&mut mid, x)?;
        let mut inner = linear(&mid, &self.ffn_in)?;
        self.ffn_act.apply(&mut inner)?;
        let mut out = linear(&inner, &self.ffn_out)?;
        self.ffn_norm.apply(&mut out, &mid)?;
        Ok(out)
    }
}

/// The BERT encoder: token ids in, one vector per token out.
pub(crate) struct Bert {
    embeddings: Embeddings,
    layers: Vec<Layer>,
    max_positions: usize,
}

impl Bert {
    /// Build the encoder from weights named like Hugging Face's `BertModel`.
    pub(crate) fn load(cfg: &BertConfig, file: &WeightFile) -> Result<Self, WeightsError> {
        let mut loader = Loader::new(file);
        let embeddings = Embeddings::load(cfg, &loader)?;
        let layers = (0..cfg.num_hidden_layers)
            .map(|i| Layer::load(cfg, &mut loader, &format!("encoder.layer.{i}")))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self {
            embeddings,
            layers,
            max_positions: cfg.max_position_embeddings,
        })
    }

    /// The width of the vectors [`Bert::forward`] returns, one per token.
    pub(crate) fn hidden_size(&self) -> usize {
        self.embeddings.hidden
    }

    /// Run the encoder over a batch of texts packed end to end.
    ///
    /// `ids` and `type_ids` hold every text's tokens, one text after the
    /// other, text `b` being `lengths[b]` tokens long. Returns the last hidden
    /// states in the same order, `(ids.len(), hidden)` row-major.
    pub(crate) fn forward(
        &self,
        ids: &[u32],
        type_ids: &[u32],
        lengths: &[usize],
    ) -> Result<Vec<f32>, ModelError> {
        let longest = lengths.iter().copied().max().unwrap_or(0);
        if longest > self.max_positions {
            return Err(ModelError::Input(format!(
                "sequence of {longest} tokens is longer than the model's {} positions",
                self.max_positions
            )));
        }
        let n: usize = lengths.iter().sum();
        if ids.len() != n || type_ids.len() != n {
            return Err(ModelError::Input(format!(
                "{} ids for {n} tokens",
                ids.len()
            )));
        }
        let mut x = self.embeddings.forward(ids, type_ids, lengths)?;
        for layer in &self.layers {
            x = layer.forward(&x, lengths)?;
        }
        Ok(x)
    }
}
