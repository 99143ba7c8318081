//! A BERT encoder (the architecture of all-MiniLM-L6-v2) on candle.
//!
//! Embeddings (word + token type + position, LayerNorm), then N post-norm
//! layers of multi-head self-attention and a GELU feed-forward block. Only
//! inference: no dropout, no pooler head (sentence-transformers pools the
//! token vectors itself). Weight names follow the Hugging Face `BertModel`
//! state dict, without the `bert.` prefix.

use candle_core::{CpuStorage, CustomOp2, DType, Device, Layout, Module, Shape, Tensor};
use candle_nn::{Embedding, LayerNorm, VarBuilder};

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
        if self.hidden_size.checked_rem(self.num_attention_heads) != Some(0) {
            return Err(format!(
                "hidden_size {} is not a multiple of num_attention_heads {}",
                self.hidden_size, self.num_attention_heads
            ));
        }
        Ok(())
    }
}

/// A dense layer `y = x W^T + b` whose weight is kept transposed, as a
/// contiguous `(in, out)` matrix: candle's CPU matmul (the `gemm` crate)
/// runs 1.3–1.5x faster on short inputs with a row-major right-hand side than
/// with the transposed view of PyTorch's `(out, in)` layout.
struct Dense {
    /// `(in, out)`, contiguous.
    weight_t: Tensor,
    /// `(out,)`.
    bias: Tensor,
}

impl Dense {
    fn new(weight: &Tensor, bias: Tensor) -> candle_core::Result<Self> {
        Ok(Self {
            weight_t: weight.t()?.contiguous()?,
            bias,
        })
    }

    fn load(in_dim: usize, out_dim: usize, vb: VarBuilder) -> candle_core::Result<Self> {
        let weight = vb.get((out_dim, in_dim), "weight")?;
        Self::new(&weight, vb.get(out_dim, "bias")?)
    }

    /// `x W^T`, without the bias: `(batch, seq, in)` to `(batch, seq, out)`.
    fn matmul(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        let (b, t, k) = x.dims3()?;
        x.reshape((b * t, k))?
            .matmul(&self.weight_t)?
            .reshape((b, t, ()))
    }

    fn forward(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        self.matmul(x)?.broadcast_add(&self.bias)
    }
}

fn layer_norm(dim: usize, eps: f64, vb: VarBuilder) -> candle_core::Result<LayerNorm> {
    let weight = vb.get(dim, "weight")?;
    let bias = vb.get(dim, "bias")?;
    Ok(LayerNorm::new(weight, bias, eps))
}

/// `erf(x)` by Abramowitz & Stegun 7.1.28: `1 - 1/(1 + a1 x + ... + a6 x^6)^16`
/// for `x >= 0` (odd extension below 0). Its error is at most 3e-7 (about
/// 1e-6 after f32 rounding), far below f32 model noise, and it has no
/// branches or calls, so the compiler vectorises it. This is the exact-erf
/// GELU BERT uses, not the tanh approximation (error ~1e-3).
#[inline(always)]
pub(crate) fn erf(x: f32) -> f32 {
    const A: [f32; 6] = [
        0.070_523_08,
        0.042_282_01,
        0.009_270_527,
        0.000_152_014_3,
        0.000_276_567_2,
        0.000_043_063_8,
    ];
    let a = x.abs();
    let p = 1.0 + a * (A[0] + a * (A[1] + a * (A[2] + a * (A[3] + a * (A[4] + a * A[5])))));
    let p2 = p * p;
    let p4 = p2 * p2;
    let p8 = p4 * p4;
    // p^16 overflows to +inf for large |x|, giving exactly 1.
    (1.0 - 1.0 / (p8 * p8)).copysign(x)
}

/// `GELU(x) = x * Phi(x) = x/2 * (1 + erf(x / sqrt 2))`.
#[inline(always)]
pub(crate) fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// `gelu(x + bias)`, with `bias` broadcast over the rows of `x`: the
/// feed-forward block's bias and activation in one pass over memory.
struct BiasGelu;

impl CustomOp2 for BiasGelu {
    fn name(&self) -> &'static str {
        "bias-gelu"
    }

    fn cpu_fwd(
        &self,
        x: &CpuStorage,
        x_layout: &Layout,
        bias: &CpuStorage,
        bias_layout: &Layout,
    ) -> candle_core::Result<(CpuStorage, Shape)> {
        let (CpuStorage::F32(x), CpuStorage::F32(bias)) = (x, bias) else {
            candle_core::bail!("bias-gelu: f32 tensors only");
        };
        let (Some((xs, xe)), Some((bs, be))) = (
            x_layout.contiguous_offsets(),
            bias_layout.contiguous_offsets(),
        ) else {
            candle_core::bail!("bias-gelu: contiguous tensors only");
        };
        let (x, bias) = (&x[xs..xe], &bias[bs..be]);
        if x.len().checked_rem(bias.len()) != Some(0) {
            candle_core::bail!(
                "bias-gelu: {} values do not fit rows of {}",
                x.len(),
                bias.len()
            );
        }
        let mut out = vec![0f32; x.len()];
        let work = |out: &mut [f32], x: &[f32]| {
            for (o_row, x_row) in out
                .chunks_exact_mut(bias.len())
                .zip(x.chunks_exact(bias.len()))
            {
                for ((o, &v), &b) in o_row.iter_mut().zip(x_row).zip(bias) {
                    *o = gelu(v + b);
                }
            }
        };
        // Split big inputs (a sub-batch's 1536-wide activations) across two
        // threads at a row boundary; small ones are not worth a spawn.
        let rows = x.len() / bias.len();
        if rows >= 256 {
            let split = rows / 2 * bias.len();
            let (o1, o2) = out.split_at_mut(split);
            let (x1, x2) = x.split_at(split);
            std::thread::scope(|s| {
                s.spawn(|| work(o1, x1));
                work(o2, x2);
            });
        } else {
            work(&mut out, x);
        }
        Ok((CpuStorage::F32(out), x_layout.shape().clone()))
    }
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
    /// Query, key and value projections fused into one `(h, 3h)` matmul.
    qkv: Dense,
    attn_out: Dense,
    attn_norm: LayerNorm,
    /// Feed-forward input projection; its bias is added by the fused
    /// bias + GELU op.
    ffn_in: Dense,
    ffn_out: Dense,
    ffn_norm: LayerNorm,
    heads: usize,
    head_dim: usize,
}

impl Layer {
    fn load(cfg: &BertConfig, vb: VarBuilder) -> candle_core::Result<Self> {
        let h = cfg.hidden_size;
        let heads = cfg.num_attention_heads;
        let head_dim = h / heads;
        let att = vb.pp("attention");
        let qkv_vb = att.pp("self");
        let get = |name: &str| -> candle_core::Result<(Tensor, Tensor)> {
            Ok((
                qkv_vb.get((h, h), &format!("{name}.weight"))?,
                qkv_vb.get(h, &format!("{name}.bias"))?,
            ))
        };
        let (qw, qb) = get("query")?;
        let (kw, kb) = get("key")?;
        let (vw, vb_) = get("value")?;
        // Fold the 1/sqrt(head_dim) attention scale into the query weights.
        let scale = 1.0 / (head_dim as f64).sqrt();
        let weight = Tensor::cat(&[(qw * scale)?, kw, vw], 0)?;
        let bias = Tensor::cat(&[(qb * scale)?, kb, vb_], 0)?;
        Ok(Self {
            qkv: Dense::new(&weight, bias)?,
            attn_out: Dense::load(h, h, att.pp("output").pp("dense"))?,
            attn_norm: layer_norm(h, cfg.layer_norm_eps, att.pp("output").pp("LayerNorm"))?,
            ffn_in: Dense::load(h, cfg.intermediate_size, vb.pp("intermediate").pp("dense"))?,
            ffn_out: Dense::load(cfg.intermediate_size, h, vb.pp("output").pp("dense"))?,
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
        let inner = self
            .ffn_in
            .matmul(&x)?
            .apply_op2_no_bwd(&self.ffn_in.bias, &BiasGelu)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erf_matches_reference() {
        let mut worst = 0f64;
        for i in -6000..=6000 {
            let x = i as f64 / 1000.0;
            let want = candle_core::cpu::erf::erf_f64(x);
            worst = worst.max((erf(x as f32) as f64 - want).abs());
        }
        assert!(worst < 2e-6, "max |erf error| {worst}");
        assert_eq!(erf(0.0), 0.0);
        assert_eq!(erf(40.0), 1.0);
        assert_eq!(erf(-40.0), -1.0);
        assert_eq!(erf(f32::INFINITY), 1.0);
    }

    #[test]
    fn gelu_matches_exact_definition() {
        for i in -800..=800 {
            let x = i as f64 / 100.0;
            let want = 0.5 * x * (1.0 + candle_core::cpu::erf::erf_f64(x / 2f64.sqrt()));
            let got = gelu(x as f32) as f64;
            assert!((got - want).abs() < 1e-5, "gelu({x}) = {got}, want {want}");
        }
    }

    #[test]
    fn bias_gelu_op_adds_bias_per_row() -> candle_core::Result<()> {
        let dev = Device::Cpu;
        for rows in [3usize, 300] {
            let x: Vec<f32> = (0..rows * 4).map(|i| (i % 9) as f32 - 4.0).collect();
            let bias = [0.5f32, -1.0, 0.0, 2.0];
            let xt = Tensor::from_vec(x.clone(), (rows, 4), &dev)?;
            let bt = Tensor::from_vec(bias.to_vec(), 4, &dev)?;
            let got = xt
                .apply_op2_no_bwd(&bt, &BiasGelu)?
                .flatten_all()?
                .to_vec1::<f32>()?;
            let want = xt
                .broadcast_add(&bt)?
                .gelu_erf()?
                .flatten_all()?
                .to_vec1::<f32>()?;
            for (g, w) in got.iter().zip(&want) {
                assert!((g - w).abs() < 1e-5, "{g} vs {w}");
            }
        }
        Ok(())
    }
}
