//! The encoder's CPU kernels, as candle custom ops.
//!
//! [`Linear`] runs a dense layer's matrix product ([`crate::gemm`], nine
//! tenths of the time on a batch). Everything between the products is done
//! in one pass over memory per step, reading the product's output in
//! place:
//! - [`Attention`]: the q/k/v biases, scores, padding mask, softmax and the
//!   weighted sum of values, read straight from the fused q/k/v product and
//!   written in the `(tokens, hidden)` layout the output projection needs —
//!   no per-head copies, permutes or tiny batched matrix products;
//! - [`AddNorm`]: bias + residual + LayerNorm;
//! - [`BiasGelu`]: bias + exact-erf GELU.
//!
//! All take contiguous f32 tensors and split work over rows (or sequences)
//! on rayon's pool, the one candle's matrix products use, once there is
//! enough of it to pay for the hand-off.
//!
//! What this module must never do: approximate beyond f32 noise (the
//! encoder's output must stay within a cosine of 0.99999 of a float64
//! reference).

use candle_core::{CpuStorage, CustomOp1, CustomOp2, Layout, Shape};
use rayon::prelude::*;

use crate::gemm::{self, Packed};

/// Below this many rows a pass runs on the calling thread: a one-query
/// forward pass (a dozen rows) is not worth a hand-off to the pool.
const PAR_MIN_ROWS: usize = 64;

/// The contiguous f32 data of a custom op's input.
fn f32_slice<'a>(op: &str, s: &'a CpuStorage, l: &Layout) -> candle_core::Result<&'a [f32]> {
    let CpuStorage::F32(data) = s else {
        candle_core::bail!("{op}: f32 tensors only");
    };
    let Some((start, end)) = l.contiguous_offsets() else {
        candle_core::bail!("{op}: contiguous tensors only");
    };
    Ok(&data[start..end])
}

/// Call `f(row_index, row)` on every `width`-wide row of `out`, in parallel
/// once there are [`PAR_MIN_ROWS`] rows.
fn for_each_row(out: &mut [f32], width: usize, f: impl Fn(usize, &mut [f32]) + Sync) {
    if out.len() / width >= PAR_MIN_ROWS {
        out.par_chunks_mut(width)
            .enumerate()
            .with_min_len(16)
            .for_each(|(i, row)| f(i, row));
    } else {
        out.chunks_mut(width)
            .enumerate()
            .for_each(|(i, row)| f(i, row));
    }
}

/// `x W` (no bias) for `x` of shape `(rows, W.k())`, `W` packed.
pub(crate) struct Linear<'a>(pub &'a Packed);

impl CustomOp1 for Linear<'_> {
    fn name(&self) -> &'static str {
        "linear"
    }

    fn cpu_fwd(&self, x: &CpuStorage, layout: &Layout) -> candle_core::Result<(CpuStorage, Shape)> {
        let x = f32_slice("linear", x, layout)?;
        let (k, n) = (self.0.k(), self.0.n());
        if x.len() % k != 0 {
            candle_core::bail!("linear: {} values do not make rows of {k}", x.len());
        }
        let rows = x.len() / k;
        let mut out = vec![0f32; rows * n];
        gemm::matmul(x, self.0, &mut out);
        Ok((CpuStorage::F32(out), Shape::from((rows, n))))
    }
}

/// `sum(a[i] * b[i])` with eight independent partial sums, so the compiler
/// keeps them in vector registers (a single running sum is a serial chain
/// of additions it may not reorder).
#[inline(always)]
pub(crate) fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in ca.zip(cb) {
        for ((s, &x), &y) in acc.iter_mut().zip(x).zip(y) {
            *s += x * y;
        }
    }
    acc.iter().sum::<f32>() + tail
}

/// `sum(a[i])` with eight partial sums (see [`dot`]).
#[inline(always)]
fn sum(a: &[f32]) -> f32 {
    let mut acc = [0f32; 8];
    let chunks = a.chunks_exact(8);
    let tail: f32 = chunks.remainder().iter().sum();
    for x in chunks {
        for (s, &x) in acc.iter_mut().zip(x) {
            *s += x;
        }
    }
    acc.iter().sum::<f32>() + tail
}

/// LayerNorm of one row in place:
/// `x = (x - mean) / sqrt(var + eps) * gamma + beta`, with the biased
/// variance `mean((x - mean)^2)` (two passes, as PyTorch computes it).
pub(crate) fn layer_norm_row(x: &mut [f32], gamma: &[f32], beta: &[f32], eps: f32) {
    let n = x.len() as f32;
    let mean = sum(x) / n;
    for v in x.iter_mut() {
        *v -= mean;
    }
    let var = dot(x, x) / n;
    let inv = 1.0 / (var + eps).sqrt();
    for ((v, &g), &b) in x.iter_mut().zip(gamma).zip(beta) {
        *v = *v * inv * g + b;
    }
}

/// `LayerNorm(y + bias + residual)`, row by row: the tail of both of a BERT
/// layer's blocks, applied to `y`, the output projection's product (without
/// its bias), and `residual`, the block's input. Both are `(rows, hidden)`.
pub(crate) struct AddNorm {
    /// The output projection's bias, `(hidden,)`.
    pub bias: Vec<f32>,
    /// LayerNorm scale, `(hidden,)`.
    pub gamma: Vec<f32>,
    /// LayerNorm shift, `(hidden,)`.
    pub beta: Vec<f32>,
    pub eps: f32,
}

impl CustomOp2 for AddNorm {
    fn name(&self) -> &'static str {
        "add-norm"
    }

    fn cpu_fwd(
        &self,
        y: &CpuStorage,
        y_layout: &Layout,
        residual: &CpuStorage,
        residual_layout: &Layout,
    ) -> candle_core::Result<(CpuStorage, Shape)> {
        let y = f32_slice("add-norm", y, y_layout)?;
        let residual = f32_slice("add-norm", residual, residual_layout)?;
        let width = self.bias.len();
        if y.len() != residual.len() || y.len() % width != 0 {
            candle_core::bail!(
                "add-norm: {} and {} values do not make rows of {width}",
                y.len(),
                residual.len()
            );
        }
        let mut out = vec![0f32; y.len()];
        for_each_row(&mut out, width, |i, row| {
            let at = i * width;
            for (((o, &a), &b), &r) in row
                .iter_mut()
                .zip(&y[at..at + width])
                .zip(&self.bias)
                .zip(&residual[at..at + width])
            {
                *o = a + b + r;
            }
            layer_norm_row(row, &self.gamma, &self.beta, self.eps);
        });
        Ok((CpuStorage::F32(out), y_layout.shape().clone()))
    }
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
pub(crate) struct BiasGelu {
    /// `(width,)`, added to every row.
    pub bias: Vec<f32>,
}

impl CustomOp1 for BiasGelu {
    fn name(&self) -> &'static str {
        "bias-gelu"
    }

    fn cpu_fwd(&self, x: &CpuStorage, layout: &Layout) -> candle_core::Result<(CpuStorage, Shape)> {
        let x = f32_slice("bias-gelu", x, layout)?;
        let width = self.bias.len();
        if x.len().checked_rem(width) != Some(0) {
            candle_core::bail!("bias-gelu: {} values do not fit rows of {width}", x.len());
        }
        let mut out = vec![0f32; x.len()];
        for_each_row(&mut out, width, |i, row| {
            for ((o, &v), &b) in row.iter_mut().zip(&x[i * width..]).zip(&self.bias) {
                *o = gelu(v + b);
            }
        });
        Ok((CpuStorage::F32(out), layout.shape().clone()))
    }
}

/// Multi-head self-attention over texts packed end to end, from the fused
/// q/k/v product to the heads' concatenated outputs.
///
/// Input: `(tokens, 3 * hidden)`, each row a token's query, key and value
/// projections without their biases (the query's already scaled by
/// `1/sqrt(head_dim)`, as is its bias). Output: `(tokens, hidden)`, head `h`
/// of a token in columns `h * head_dim ..`. Text `b` is the next
/// `lengths[b]` rows; a token attends to the tokens of its own text only —
/// what a padding mask achieves, without computing the padding.
pub(crate) struct Attention<'a> {
    /// The q, k and v biases, `(3 * hidden,)`.
    pub bias: &'a [f32],
    /// Tokens per text; they sum to the input's rows.
    pub lengths: &'a [usize],
    pub heads: usize,
    pub head_dim: usize,
}

impl Attention<'_> {
    /// One text: `qkv` is `(len, 3 * hidden)`, `out` `(len, hidden)`.
    fn attend(&self, qkv: &[f32], out: &mut [f32]) {
        let (hd, hidden) = (self.head_dim, self.heads * self.head_dim);
        let len = out.len() / hidden;
        let mut q = vec![0f32; hd];
        let mut k = vec![0f32; len * hd];
        let mut v = vec![0f32; len * hd];
        let mut weights = vec![0f32; len];
        for head in 0..self.heads {
            let (qo, ko, vo) = (head * hd, hidden + head * hd, 2 * hidden + head * hd);
            // This head's keys and values, biased, packed for the loops below.
            for j in 0..len {
                let row = &qkv[j * 3 * hidden..];
                add(
                    &row[ko..ko + hd],
                    &self.bias[ko..ko + hd],
                    &mut k[j * hd..][..hd],
                );
                add(
                    &row[vo..vo + hd],
                    &self.bias[vo..vo + hd],
                    &mut v[j * hd..][..hd],
                );
            }
            for i in 0..len {
                let row = &qkv[i * 3 * hidden..];
                add(&row[qo..qo + hd], &self.bias[qo..qo + hd], &mut q);
                let mut max = f32::NEG_INFINITY;
                for (w, kj) in weights.iter_mut().zip(k.chunks_exact(hd)) {
                    *w = dot(&q, kj);
                    max = max.max(*w);
                }
                let mut total = 0f32;
                for w in weights.iter_mut() {
                    *w = (*w - max).exp();
                    total += *w;
                }
                let ctx = &mut out[i * hidden + head * hd..][..hd];
                ctx.fill(0.0);
                for (&w, vj) in weights.iter().zip(v.chunks_exact(hd)) {
                    for (c, &x) in ctx.iter_mut().zip(vj) {
                        *c += w * x;
                    }
                }
                let inv = 1.0 / total;
                for c in ctx.iter_mut() {
                    *c *= inv;
                }
            }
        }
    }
}

/// `out = a + b`, element-wise.
#[inline(always)]
fn add(a: &[f32], b: &[f32], out: &mut [f32]) {
    for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
        *o = x + y;
    }
}

impl CustomOp1 for Attention<'_> {
    fn name(&self) -> &'static str {
        "attention"
    }

    fn cpu_fwd(
        &self,
        qkv: &CpuStorage,
        layout: &Layout,
    ) -> candle_core::Result<(CpuStorage, Shape)> {
        let qkv = f32_slice("attention", qkv, layout)?;
        let hidden = self.heads * self.head_dim;
        let tokens: usize = self.lengths.iter().sum();
        if self.bias.len() != 3 * hidden || qkv.len() != tokens * 3 * hidden {
            candle_core::bail!(
                "attention: {} values are not {tokens} rows of {}",
                qkv.len(),
                3 * hidden
            );
        }
        let mut out = vec![0f32; tokens * hidden];
        // Cut input and output into one piece per text.
        let mut texts = Vec::with_capacity(self.lengths.len());
        let (mut out_rest, mut qkv_rest) = (out.as_mut_slice(), qkv);
        for &len in self.lengths {
            let (o, o_tail) = out_rest.split_at_mut(len * hidden);
            let (x, x_tail) = qkv_rest.split_at(len * 3 * hidden);
            texts.push((x, o));
            (out_rest, qkv_rest) = (o_tail, x_tail);
        }
        if tokens >= PAR_MIN_ROWS {
            texts
                .into_par_iter()
                .with_max_len(1)
                .for_each(|(x, o)| self.attend(x, o));
        } else {
            texts.into_iter().for_each(|(x, o)| self.attend(x, o));
        }
        Ok((CpuStorage::F32(out), Shape::from((tokens, hidden))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{Device, Tensor};

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

    /// Deterministic values in [-2, 2).
    fn values(n: usize, seed: u32) -> Vec<f32> {
        let mut s = seed.wrapping_mul(2_654_435_761).wrapping_add(1);
        (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 17;
                s ^= s << 5;
                (s % 4000) as f32 / 1000.0 - 2.0
            })
            .collect()
    }

    fn assert_close(got: &[f32], want: &[f32], tol: f32) {
        assert_eq!(got.len(), want.len());
        for (i, (g, w)) in got.iter().zip(want).enumerate() {
            assert!((g - w).abs() <= tol, "at {i}: {g} vs {w}");
        }
    }

    #[test]
    fn dot_and_sum_match_plain_loops_with_tails() {
        for n in [0, 1, 7, 8, 9, 32, 37] {
            let (a, b) = (values(n, 1), values(n, 2));
            let want: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
            assert!((dot(&a, &b) - want).abs() < 1e-4, "dot, n = {n}");
            let want: f32 = a.iter().sum();
            assert!((sum(&a) - want).abs() < 1e-4, "sum, n = {n}");
        }
    }

    #[test]
    fn bias_gelu_op_adds_bias_per_row() -> candle_core::Result<()> {
        let dev = Device::Cpu;
        for rows in [3usize, 300] {
            let x: Vec<f32> = (0..rows * 4).map(|i| (i % 9) as f32 - 4.0).collect();
            let bias = vec![0.5f32, -1.0, 0.0, 2.0];
            let xt = Tensor::from_vec(x.clone(), (rows, 4), &dev)?;
            let bt = Tensor::from_vec(bias.clone(), 4, &dev)?;
            let got = xt
                .apply_op1_no_bwd(&BiasGelu { bias })?
                .flatten_all()?
                .to_vec1::<f32>()?;
            let want = xt
                .broadcast_add(&bt)?
                .gelu_erf()?
                .flatten_all()?
                .to_vec1::<f32>()?;
            assert_close(&got, &want, 1e-5);
        }
        Ok(())
    }

    #[test]
    fn add_norm_matches_candle_layer_norm() -> candle_core::Result<()> {
        let dev = Device::Cpu;
        let width = 24;
        for rows in [2usize, 100] {
            let y = Tensor::from_vec(values(rows * width, 3), (rows, width), &dev)?;
            let r = Tensor::from_vec(values(rows * width, 4), (rows, width), &dev)?;
            let (bias, gamma, beta) = (values(width, 5), values(width, 6), values(width, 7));
            let op = AddNorm {
                bias: bias.clone(),
                gamma: gamma.clone(),
                beta: beta.clone(),
                eps: 1e-12,
            };
            let got = y
                .apply_op2_no_bwd(&r, &op)?
                .flatten_all()?
                .to_vec1::<f32>()?;
            let x = (y.broadcast_add(&Tensor::new(bias, &dev)?)? + &r)?;
            let want = candle_nn::ops::layer_norm(
                &x,
                &Tensor::new(gamma, &dev)?,
                &Tensor::new(beta, &dev)?,
                1e-12,
            )?
            .flatten_all()?
            .to_vec1::<f32>()?;
            assert_close(&got, &want, 1e-4);
        }
        Ok(())
    }

    /// Attention the long way, with candle's tensor ops: the layer's code
    /// before [`Attention`] replaced it.
    fn reference_attention(
        qkv: &Tensor,
        bias: &[f32],
        lengths: &[usize],
        heads: usize,
        head_dim: usize,
    ) -> candle_core::Result<Vec<f32>> {
        let dev = Device::Cpu;
        let b = lengths.len();
        let (n, _) = qkv.dims2()?;
        let t = n / b;
        let h = heads * head_dim;
        let mask: Vec<f32> = lengths
            .iter()
            .flat_map(|&len| (0..t).map(move |j| if j < len { 0.0 } else { f32::MIN }))
            .collect();
        let mask = Tensor::from_vec(mask, (b, 1, 1, t), &dev)?;
        let qkv = qkv
            .broadcast_add(&Tensor::new(bias, &dev)?)?
            .reshape((b, t, 3, heads, head_dim))?
            .permute((2, 0, 3, 1, 4))?;
        let q = qkv.get(0)?.contiguous()?;
        let k = qkv.get(1)?.contiguous()?;
        let v = qkv.get(2)?.contiguous()?;
        let scores = q.matmul(&k.t()?)?.broadcast_add(&mask)?;
        let probs = candle_nn::ops::softmax_last_dim(&scores)?;
        probs
            .matmul(&v)?
            .transpose(1, 2)?
            .contiguous()?
            .reshape((b * t, h))?
            .flatten_all()?
            .to_vec1::<f32>()
    }

    #[test]
    fn attention_matches_candle_ops_with_padding() -> candle_core::Result<()> {
        let dev = Device::Cpu;
        let (heads, head_dim) = (3, 8);
        let h = heads * head_dim;
        let bias = values(3 * h, 8);
        // A small batch (one thread) and one past PAR_MIN_ROWS (the pool),
        // of texts of different lengths.
        for lengths in [
            vec![5usize, 2, 4],
            vec![9; 8].into_iter().chain([3, 1]).collect::<Vec<_>>(),
        ] {
            // The reference runs on the texts padded to the longest one.
            let t = *lengths.iter().max().expect("non-empty");
            let padded = values(lengths.len() * t * 3 * h, 9);
            let padded_t = Tensor::from_vec(padded.clone(), (lengths.len() * t, 3 * h), &dev)?;
            let want = reference_attention(&padded_t, &bias, &lengths, heads, head_dim)?;
            let (mut packed, mut want_packed) = (Vec::new(), Vec::new());
            for (b, &len) in lengths.iter().enumerate() {
                packed.extend_from_slice(&padded[b * t * 3 * h..][..len * 3 * h]);
                want_packed.extend_from_slice(&want[b * t * h..][..len * h]);
            }
            let rows = packed.len() / (3 * h);
            let op = Attention {
                bias: &bias,
                lengths: &lengths,
                heads,
                head_dim,
            };
            let got = Tensor::from_vec(packed, (rows, 3 * h), &dev)?
                .apply_op1_no_bwd(&op)?
                .flatten_all()?
                .to_vec1::<f32>()?;
            assert_close(&got, &want_packed, 1e-5);
        }
        Ok(())
    }

    #[test]
    fn attention_rejects_lengths_that_do_not_sum_to_the_rows() {
        let qkv = Tensor::zeros((5, 6), candle_core::DType::F32, &Device::Cpu).expect("zeros");
        let bias = [0.0; 6];
        let op = Attention {
            bias: &bias,
            lengths: &[2, 2],
            heads: 1,
            head_dim: 2,
        };
        assert!(qkv.apply_op1_no_bwd(&op).is_err());
    }
}
