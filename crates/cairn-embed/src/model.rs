//! A BERT encoder (the architecture of all-MiniLM-L6-v2) on candle.
//!
//! Embeddings (word + token type + position, LayerNorm), then N post-norm
//! layers of multi-head self-attention and a GELU feed-forward block. Only
//! inference: no dropout, no pooler head (sentence-transformers pools the
//! token vectors itself). Weight names follow the Hugging Face `BertModel`
//! state dict, without the `bert.` prefix.

use candle_core::{DType, Device, Module, Tensor};
use candle_nn::{Embedding, LayerNorm, Linear, VarBuilder};

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
}

fn absolute() -> String {
    "absolute".to_owned()
}

impl BertConfig {
    /// Refuse configurations this encoder does not implement.
    pub fn check(&self) -> Result<(), String> {
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
        if self.num_attention_heads == 0 || self.hidden_size % self.num_attention_heads != 0 {
            return Err(format!(
                "hidden_size {} is not a multiple of num_attention_heads {}",
                self.hidden_size, self.num_attention_heads
            ));
        }
        Ok(())
    }
}

fn linear(in_dim: usize, out_dim: usize, vb: VarBuilder) -> candle_core::Result<Linear> {
    let weight = vb.get((out_dim, in_dim), "weight")?;
    let bias = vb.get(out_dim, "bias")?;
    Ok(Linear::new(weight, Some(bias)))
}

fn layer_norm(dim: usize, eps: f64, vb: VarBuilder) -> candle_core::Result<LayerNorm> {
    let weight = vb.get(dim, "weight")?;
    let bias = vb.get(dim, "bias")?;
    Ok(LayerNorm::new(weight, bias, eps))
}

struct Embeddings {
    word: Embedding,
    position: Tensor,
    token_type: Embedding,
    norm: LayerNorm,
}

impl Embeddings {
    fn load(cfg: &BertConfig, vb: VarBuilder) -> candle_core::Result<Self> {
        let h = cfg.hidden_size;
        let word = vb.get((cfg.vocab_size, h), "word_embeddings.weight")?;
        let position = vb.get(
            (cfg.max_position_embeddings, h),
            "position_embeddings.weight",
        )?;
        let token_type = vb.get((cfg.type_vocab_size, h), "token_type_embeddings.weight")?;
        Ok(Self {
            word: Embedding::new(word, h),
            position,
            token_type: Embedding::new(token_type, h),
            norm: layer_norm(h, cfg.layer_norm_eps, vb.pp("LayerNorm"))?,
        })
    }

    fn forward(&self, ids: &Tensor, type_ids: &Tensor) -> candle_core::Result<Tensor> {
        let (_, seq_len) = ids.dims2()?;
        let positions = self.position.narrow(0, 0, seq_len)?;
        let x = (self.word.forward(ids)? + self.token_type.forward(type_ids)?)?;
        let x = x.broadcast_add(&positions)?;
        self.norm.forward(&x)
    }
}

struct Layer {
    /// Query, key and value projections fused into one `(3h, h)` matmul.
    qkv: Linear,
    attn_out: Linear,
    attn_norm: LayerNorm,
    ffn_in: Linear,
    ffn_out: Linear,
    ffn_norm: LayerNorm,
    heads: usize,
    head_dim: usize,
}

impl Layer {
    fn load(cfg: &BertConfig, vb: VarBuilder) -> candle_core::Result<Self> {
        let h = cfg.hidden_size;
        let att = vb.pp("attention");
        let q = linear(h, h, att.pp("self").pp("query"))?;
        let k = linear(h, h, att.pp("self").pp("key"))?;
        let v = linear(h, h, att.pp("self").pp("value"))?;
        let heads = cfg.num_attention_heads;
        let head_dim = h / heads;
        // Fold the 1/sqrt(head_dim) attention scale into the query weights.
        let scale = 1.0 / (head_dim as f64).sqrt();
        let weight = Tensor::cat(
            &[(q.weight() * scale)?, k.weight().clone(), v.weight().clone()],
            0,
        )?;
        let bias = match (q.bias(), k.bias(), v.bias()) {
            (Some(qb), Some(kb), Some(vb)) => {
                Tensor::cat(&[(qb * scale)?, kb.clone(), vb.clone()], 0)?
            }
            _ => candle_core::bail!("attention projections without bias"),
        };
        Ok(Self {
            qkv: Linear::new(weight, Some(bias)),
            attn_out: linear(h, h, att.pp("output").pp("dense"))?,
            attn_norm: layer_norm(h, cfg.layer_norm_eps, att.pp("output").pp("LayerNorm"))?,
            ffn_in: linear(h, cfg.intermediate_size, vb.pp("intermediate").pp("dense"))?,
            ffn_out: linear(cfg.intermediate_size, h, vb.pp("output").pp("dense"))?,
            ffn_norm: layer_norm(h, cfg.layer_norm_eps, vb.pp("output").pp("LayerNorm"))?,
            heads,
            head_dim,
        })
    }

    /// `x`: `(batch, seq, hidden)`; `mask_bias`: `(batch, 1, 1, seq)`, 0 for
    /// real tokens and a large negative number for padding.
    fn forward(&self, x: &Tensor, mask_bias: &Tensor) -> candle_core::Result<Tensor> {
        let (b, t, h) = x.dims3()?;
        let qkv = self
            .qkv
            .forward(x)?
            .reshape((b, t, 3, self.heads, self.head_dim))?
            .permute((2, 0, 3, 1, 4))?; // (3, b, heads, t, head_dim)
        let q = qkv.get(0)?.contiguous()?;
        let k = qkv.get(1)?.contiguous()?;
        let v = qkv.get(2)?.contiguous()?;
        let scores = q.matmul(&k.t()?)?.broadcast_add(mask_bias)?;
        let probs = candle_nn::ops::softmax_last_dim(&scores)?;
        let context = probs
            .matmul(&v)?
            .transpose(1, 2)?
            .contiguous()?
            .reshape((b, t, h))?;
        let x = self
            .attn_norm
            .forward(&(self.attn_out.forward(&context)? + x)?)?;
        let inner = self.ffn_in.forward(&x)?.gelu_erf()?;
        self.ffn_norm.forward(&(self.ffn_out.forward(&inner)? + x)?)
    }
}

/// The BERT encoder: token ids in, one vector per token out.
pub(crate) struct Bert {
    embeddings: Embeddings,
    layers: Vec<Layer>,
    device: Device,
    max_positions: usize,
}

impl Bert {
    /// Build the encoder from weights named like Hugging Face's `BertModel`.
    pub fn load(cfg: &BertConfig, vb: VarBuilder) -> candle_core::Result<Self> {
        let embeddings = Embeddings::load(cfg, vb.pp("embeddings"))?;
        let layers = (0..cfg.num_hidden_layers)
            .map(|i| Layer::load(cfg, vb.pp(format!("encoder.layer.{i}"))))
            .collect::<candle_core::Result<Vec<_>>>()?;
        Ok(Self {
            embeddings,
            layers,
            device: vb.device().clone(),
            max_positions: cfg.max_position_embeddings,
        })
    }

    /// Run the encoder over a padded batch.
    ///
    /// `ids`, `type_ids` and `mask` are `batch * seq_len` row-major; `mask` is
    /// 1 for real tokens and 0 for padding. Returns the last hidden states,
    /// `batch * seq_len * hidden` row-major.
    pub fn forward(
        &self,
        ids: Vec<u32>,
        type_ids: Vec<u32>,
        mask: &[u32],
        batch: usize,
        seq_len: usize,
    ) -> candle_core::Result<Vec<f32>> {
        if seq_len > self.max_positions {
            candle_core::bail!(
                "sequence of {seq_len} tokens is longer than the model's {} positions",
                self.max_positions
            );
        }
        let ids = Tensor::from_vec(ids, (batch, seq_len), &self.device)?;
        let type_ids = Tensor::from_vec(type_ids, (batch, seq_len), &self.device)?;
        let bias: Vec<f32> = mask
            .iter()
            .map(|&m| if m == 0 { f32::MIN } else { 0.0 })
            .collect();
        let mask_bias = Tensor::from_vec(bias, (batch, 1, 1, seq_len), &self.device)?;
        let mut x = self.embeddings.forward(&ids, &type_ids)?;
        for layer in &self.layers {
            x = layer.forward(&x, &mask_bias)?;
        }
        x.to_dtype(DType::F32)?.flatten_all()?.to_vec1::<f32>()
    }
}
