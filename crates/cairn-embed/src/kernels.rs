//! The encoder's CPU kernels, on row-major f32 slices.
//!
//! [`linear`] runs a dense layer's matrix product ([`crate::gemm`], nine
//! tenths of the time on a batch). Everything between the products is done
//! in one pass over memory per step, on the product's output in place:
//! - [`Attention`]: the q/k/v biases, scores, padding mask, softmax and the
//!   weighted sum of values, read straight from the fused q/k/v product and
//!   written in the `(tokens, hidden)` layout the output projection needs —
//!   no per-head copies, permutes or tiny batched matrix products;
//! - [`AddNorm`]: bias + residual + LayerNorm;
//! - [`BiasGelu`]: bias + exact-erf GELU.
//!
//! All split work over rows (or sequences) on rayon's pool, the one the
//! matrix products use, once there is enough of it to pay for the hand-off.
//! A slice whose length does not fit the shape the kernel expects is an
//! error ([`ShapeError`]), never a panic.
//!
//! What this module must never do: approximate beyond f32 noise (the
//! encoder's output must stay within a cosine of 0.99999 of a float64
//! reference).

use rayon::prelude::*;

use crate::gemm::{self, Packed};

/// Below this many rows a pass runs on the calling thread: a one-query
/// forward pass (a dozen rows) is not worth a hand-off to the pool.
const PAR_MIN_ROWS: usize = 64;

/// A kernel's input does not have the shape it needs.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct ShapeError(pub String);

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

/// `x W` (no bias) for `x` of shape `(rows, W.k())`, `W` packed: a
/// `(rows, W.n())` matrix.
pub(crate) fn linear(x: &[f32], w: &Packed) -> Result<Vec<f32>, ShapeError> {
    let (k, n) = (w.k(), w.n());
    if x.len().checked_rem(k) != Some(0) {
        return Err(ShapeError(format!(
            "linear: {} values do not make rows of {k}",
            x.len()
        )));
    }
    let mut out = vec![0f32; x.len() / k * n];
    gemm::matmul(x, w, &mut out);
    Ok(out)
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

impl AddNorm {
    /// `y = LayerNorm(y + bias + residual)`, in place.
    pub(crate) fn apply(&self, y: &mut [f32], residual: &[f32]) -> Result<(), ShapeError> {
        let width = self.bias.len();
        if y.len() != residual.len() || y.len().checked_rem(width) != Some(0) {
            return Err(ShapeError(format!(
                "add-norm: {} and {} values do not make rows of {width}",
                y.len(),
                residual.len()
            )));
        }
        for_each_row(y, width, |i, row| {
            for ((o, &b), &r) in row
                .iter_mut()
                .zip(&self.bias)
                .zip(&residual[i * width..][..width])
            {
                *o += b + r;
            }
            layer_norm_row(row, &self.gamma, &self.beta, self.eps);
        });
        Ok(())
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

impl BiasGelu {
    /// `x = gelu(x + bias)`, in place.
    pub(crate) fn apply(&self, x: &mut [f32]) -> Result<(), ShapeError> {
        let width = self.bias.len();
        if x.len().checked_rem(width) != Some(0) {
            return Err(ShapeError(format!(
                "bias-gelu: {} values do not fit rows of {width}",
                x.len()
            )));
        }
        for_each_row(x, width, |_, row| {
            for (v, &b) in row.iter_mut().zip(&self.bias) {
                *v = gelu(*v + b);
            }
        });
        Ok(())
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

impl Attention<'_> {
    /// The heads' outputs for `qkv`, `(tokens, 3 * hidden)`: a
    /// `(tokens, hidden)` matrix.
    pub(crate) fn apply(&self, qkv: &[f32]) -> Result<Vec<f32>, ShapeError> {
        let hidden = self.heads * self.head_dim;
        let tokens: usize = self.lengths.iter().sum();
        if self.bias.len() != 3 * hidden || qkv.len() != tokens * 3 * hidden {
            return Err(ShapeError(format!(
                "attention: {} values are not {tokens} rows of {}",
                qkv.len(),
                3 * hidden
            )));
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
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `erf(x)` in f64 by the series
    /// `2/sqrt(pi) exp(-x^2) sum_n 2^n x^(2n+1) / (1 3 5 ... (2n+1))`,
    /// whose terms are all of one sign (no cancellation): accurate to about
    /// 1e-14 over the range the tests use.
    fn erf_f64(x: f64) -> f64 {
        let x2 = x * x;
        let (mut term, mut total) = (x, x);
        for n in 1..1000 {
            term *= 2.0 * x2 / (2 * n + 1) as f64;
            total += term;
            if term.abs() <= total.abs() * 1e-17 {
                break;
            }
        }
        2.0 / std::f64::consts::PI.sqrt() * (-x2).exp() * total
    }

    fn gelu_f64(x: f64) -> f64 {
        0.5 * x * (1.0 + erf_f64(x / 2f64.sqrt()))
    }

    #[test]
    fn reference_erf_has_known_values() {
        // erf(0.5), erf(1), erf(2), erf(3), to 15 digits.
        for (x, want) in [
            (0.5, 0.520_499_877_813_047),
            (1.0, 0.842_700_792_949_715),
            (2.0, 0.995_322_265_018_953),
            (3.0, 0.999_977_909_503_001),
        ] {
            assert!((erf_f64(x) - want).abs() < 1e-14, "erf({x})");
            assert!((erf_f64(-x) + want).abs() < 1e-14, "erf(-{x})");
        }
    }

    #[test]
    fn erf_matches_reference() {
        let mut worst = 0f64;
        for i in -6000..=6000 {
            let x = i as f64 / 1000.0;
            let want = erf_f64(x);
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
            let want = gelu_f64(x);
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

    fn assert_close(got: &[f32], want: &[f64], tol: f64) {
        assert_eq!(got.len(), want.len());
        for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
            assert!((g as f64 - w).abs() <= tol, "at {i}: {g} vs {w}");
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
    fn linear_is_the_matrix_product_and_checks_the_width() {
        let (rows, k, n) = (70, 20, 19);
        let x = values(rows * k, 11);
        // `W` given `(n, k)`, as a weight file stores it.
        let w_t = values(n * k, 12);
        let mut w = Packed::zeroed(k, n);
        w.set_columns(0, &w_t, 1.0);
        let got = linear(&x, &w).expect("linear");
        let mut want = vec![0f64; rows * n];
        for r in 0..rows {
            for c in 0..n {
                want[r * n + c] = (0..k)
                    .map(|i| x[r * k + i] as f64 * w_t[c * k + i] as f64)
                    .sum();
            }
        }
        assert_close(&got, &want, 1e-4);
        assert!(linear(&x[1..], &w).is_err());
    }

    #[test]
    fn bias_gelu_adds_bias_per_row() {
        for rows in [3usize, 300] {
            let x: Vec<f32> = (0..rows * 4).map(|i| (i % 9) as f32 - 4.0).collect();
            let bias = vec![0.5f32, -1.0, 0.0, 2.0];
            let want: Vec<f64> = x
                .iter()
                .enumerate()
                .map(|(i, &v)| gelu_f64(v as f64 + bias[i % 4] as f64))
                .collect();
            let mut got = x.clone();
            BiasGelu { bias }.apply(&mut got).expect("bias-gelu");
            assert_close(&got, &want, 1e-5);
        }
        let mut five = [0f32; 5];
        let op = BiasGelu { bias: vec![0.0; 4] };
        assert!(op.apply(&mut five).is_err());
    }

    /// `LayerNorm(y + bias + r)` row by row, in f64, two passes.
    fn reference_add_norm(y: &[f32], r: &[f32], op: &AddNorm) -> Vec<f64> {
        let width = op.bias.len();
        let mut out = Vec::with_capacity(y.len());
        for (yr, rr) in y.chunks(width).zip(r.chunks(width)) {
            let x: Vec<f64> = (0..width)
                .map(|i| yr[i] as f64 + op.bias[i] as f64 + rr[i] as f64)
                .collect();
            let mean = x.iter().sum::<f64>() / width as f64;
            let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / width as f64;
            let inv = 1.0 / (var + op.eps as f64).sqrt();
            out.extend(
                (0..width).map(|i| (x[i] - mean) * inv * op.gamma[i] as f64 + op.beta[i] as f64),
            );
        }
        out
    }

    #[test]
    fn add_norm_matches_a_plain_layer_norm() {
        let width = 24;
        for rows in [2usize, 100] {
            let y = values(rows * width, 3);
            let r = values(rows * width, 4);
            let op = AddNorm {
                bias: values(width, 5),
                gamma: values(width, 6),
                beta: values(width, 7),
                eps: 1e-12,
            };
            let want = reference_add_norm(&y, &r, &op);
            let mut got = y.clone();
            op.apply(&mut got, &r).expect("add-norm");
            assert_close(&got, &want, 1e-4);
            assert!(op.apply(&mut got, &r[width..]).is_err());
        }
    }

    /// Attention the long way, in f64: for each text, head and query, the
    /// biased scores against every key of the same text, their softmax and
    /// the weighted sum of the values.
    fn reference_attention(
        qkv: &[f32],
        bias: &[f32],
        lengths: &[usize],
        heads: usize,
        head_dim: usize,
    ) -> Vec<f64> {
        let h = heads * head_dim;
        let at = |row: usize, col: usize| qkv[row * 3 * h + col] as f64 + bias[col] as f64;
        let mut out = vec![0f64; lengths.iter().sum::<usize>() * h];
        let mut first = 0;
        for &len in lengths {
            for head in 0..heads {
                let (qo, ko, vo) = (
                    head * head_dim,
                    h + head * head_dim,
                    2 * h + head * head_dim,
                );
                for i in first..first + len {
                    let scores: Vec<f64> = (first..first + len)
                        .map(|j| (0..head_dim).map(|d| at(i, qo + d) * at(j, ko + d)).sum())
                        .collect();
                    let max = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                    let exps: Vec<f64> = scores.iter().map(|s| (s - max).exp()).collect();
                    let total: f64 = exps.iter().sum();
                    for d in 0..head_dim {
                        out[i * h + qo + d] = (first..first + len)
                            .zip(&exps)
                            .map(|(j, e)| e / total * at(j, vo + d))
                            .sum();
                    }
                }
            }
            first += len;
        }
        out
    }

    #[test]
    fn attention_matches_a_plain_softmax_within_each_text() {
        let (heads, head_dim) = (3, 8);
        let h = heads * head_dim;
        let bias = values(3 * h, 8);
        // A small batch (one thread) and one past PAR_MIN_ROWS (the pool),
        // of texts of different lengths.
        for lengths in [
            vec![5usize, 2, 4],
            vec![9; 8].into_iter().chain([3, 1]).collect::<Vec<_>>(),
        ] {
            let rows: usize = lengths.iter().sum();
            let qkv = values(rows * 3 * h, 9);
            let want = reference_attention(&qkv, &bias, &lengths, heads, head_dim);
            let op = Attention {
                bias: &bias,
                lengths: &lengths,
                heads,
                head_dim,
            };
            assert_close(&op.apply(&qkv).expect("attention"), &want, 1e-5);
        }
    }

    #[test]
    fn attention_rejects_lengths_that_do_not_sum_to_the_rows() {
        let qkv = [0f32; 5 * 6];
        let bias = [0.0; 6];
        let op = Attention {
            bias: &bias,
            lengths: &[2, 2],
            heads: 1,
            head_dim: 2,
        };
        assert!(op.apply(&qkv).is_err());
    }
}
