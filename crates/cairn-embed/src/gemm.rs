//! The encoder's matrix products, `out = x · W`, with `W` packed once when
//! the model loads.
//!
//! Nine tenths of an embedding's time is these products, and a
//! general-purpose matmul, which packs both operands on every call, stays
//! well below what the cores' FMA units can do (figures in
//! docs/BENCHMARKS.md). This is the classic blocked product,
//! shaped for inference, where the right-hand side never changes:
//! - `W` is cut into panels of [`NR`] columns, each stored `k`-major
//!   ([`Packed`]), once, at load;
//! - the rows of `x` are packed [`MR`] at a time, `k`-major, per block of
//!   [`KC`] columns of `x`;
//! - a micro-kernel keeps an `MR × NR` tile of `out` in twelve vector
//!   registers and, per step of `k`, loads one panel row, broadcasts `MR`
//!   values of `x` and does `MR · NR / 8` fused multiply-adds. It runs at
//!   the core's FMA throughput when its operands are in L1.
//!
//! The micro-kernel is written once over `pulp`'s [`Simd`] trait, which
//! picks AVX2 + FMA, NEON or plain scalar code at run time: no `unsafe`
//! here. Work is split over rayon's pool (the one the rest of the encoder
//! uses): by blocks of rows for a batch, by halves of the panels for a
//! query's dozen rows.
//!
//! What this module must never do: change the result beyond f32 rounding
//! (each output is one dot product, summed in `k` order per block of
//! [`KC`]; tests compare against a float64 reference).

use pulp::{Arch, Simd, WithSimd};
use rayon::prelude::*;

/// Columns per panel of `W`: two 8-lane vectors.
pub(crate) const NR: usize = 16;
/// Rows of `x` per micro-kernel tile.
pub(crate) const MR: usize = 6;
/// Columns of `x` (rows of `W`) per block: a panel block (24 KB) stays in
/// L1 while every row tile of a block of rows passes over it.
const KC: usize = 384;
/// Rows of `x` per parallel task.
const MC: usize = 96;
/// Below this many multiply-adds a product runs on the calling thread.
const PAR_MIN_MACS: usize = 1 << 20;

/// `W`, a `(k, n)` matrix, cut into panels of [`NR`] columns: panel `p`
/// holds columns `p·NR ..` of every row, row after row (zeros past `n`).
pub(crate) struct Packed {
    k: usize,
    n: usize,
    panels: Vec<PanelRow>,
}

/// One row of a panel: one cache line, so its two vector loads never
/// straddle two.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct PanelRow([f32; NR]);

impl Packed {
    /// An all-zero `W` of `(k, n)`, to be filled by [`Packed::set_columns`].
    pub(crate) fn zeroed(k: usize, n: usize) -> Self {
        let panels = vec![PanelRow([0f32; NR]); n.div_ceil(NR) * k];
        Self { k, n, panels }
    }

    /// Set columns `first..` of `W` to `scale` times `columns`: column after
    /// column, `k` values each. That is the `(out, in)` weight matrix of a
    /// PyTorch linear layer as it is stored, whose rows are the columns of
    /// `W = weight^T`: it is packed without being transposed first.
    pub(crate) fn set_columns(&mut self, first: usize, columns: &[f32], scale: f32) {
        let k = self.k;
        if k == 0 {
            return;
        }
        assert!(
            columns.len().is_multiple_of(k) && first + columns.len() / k <= self.n,
            "columns of {k} values within the {} of W",
            self.n
        );
        for (col, values) in (first..).zip(columns.chunks_exact(k)) {
            let (panel, lane) = (col / NR, col % NR);
            for (row, v) in self.panels[panel * k..][..k].iter_mut().zip(values) {
                row.0[lane] = scale * v;
            }
        }
    }

    /// Rows of `W` (the input width).
    pub(crate) fn k(&self) -> usize {
        self.k
    }

    /// Columns of `W` (the output width).
    pub(crate) fn n(&self) -> usize {
        self.n
    }

    fn panel_count(&self) -> usize {
        self.n.div_ceil(NR)
    }
}

/// `out = x · w`, for `x` of `rows` rows of `w.k()` values; `out` gets
/// `rows` rows of `w.n()`.
pub(crate) fn matmul(x: &[f32], w: &Packed, out: &mut [f32]) {
    let (k, n) = (w.k, w.n);
    assert!(k > 0 && x.len().is_multiple_of(k), "rows of {k} values");
    let rows = x.len() / k;
    assert_eq!(out.len(), rows * n, "{rows} output rows of {n}");
    let panels = w.panel_count();
    let arch = Arch::new();
    let run = |x: &[f32], first: usize, last: usize, out: &mut [f32], ldc: usize| {
        arch.dispatch(Block {
            x,
            w,
            panels: (first, last),
            out,
            ldc,
        })
    };
    let parallel = rows * k * n >= PAR_MIN_MACS && rayon::current_num_threads() >= 2;
    if parallel && rows >= 2 * MC {
        out.par_chunks_mut(MC * n)
            .zip(x.par_chunks(MC * k))
            .for_each(|(out, x)| run(x, 0, panels, out, n));
    } else if parallel && panels >= 2 {
        // A few rows: split the panels in two, each half into a buffer of
        // its own (its columns are interleaved with the other's in `out`).
        let half = panels / 2;
        let part = |first: usize, last: usize| {
            let width = (last - first) * NR;
            let mut c = vec![0f32; rows * width];
            run(x, first, last, &mut c, width);
            c
        };
        let (left, right) = rayon::join(|| part(0, half), || part(half, panels));
        let (lw, rw) = (half * NR, (panels - half) * NR);
        for ((row, l), r) in out
            .chunks_exact_mut(n)
            .zip(left.chunks_exact(lw))
            .zip(right.chunks_exact(rw))
        {
            row[..lw].copy_from_slice(l);
            row[lw..].copy_from_slice(&r[..n - lw]);
        }
    } else {
        run(x, 0, panels, out, n);
    }
}

/// One thread's share: all rows of `x` against panels `first..last`,
/// written to `out`, whose rows are `ldc` wide and start with column
/// `first · NR`.
struct Block<'a> {
    x: &'a [f32],
    w: &'a Packed,
    panels: (usize, usize),
    out: &'a mut [f32],
    ldc: usize,
}

impl WithSimd for Block<'_> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) {
        let Block {
            x,
            w,
            panels: (first, last),
            out,
            ldc,
        } = self;
        let k = w.k;
        let rows = x.len() / k;
        let tiles = rows.div_ceil(MR);
        let mut packed = vec![[0f32; MR]; tiles * KC.min(k)];
        for k0 in (0..k).step_by(KC) {
            let kc = KC.min(k - k0);
            // Row tile t's columns k0.., k-major: one load per step.
            for (t, dst) in packed.chunks_exact_mut(kc).take(tiles).enumerate() {
                for r in 0..MR.min(rows - t * MR) {
                    let src = &x[(t * MR + r) * k + k0..][..kc];
                    for (d, &s) in dst.iter_mut().zip(src) {
                        d[r] = s;
                    }
                }
            }
            for p in first..last {
                let b = &w.panels[p * k + k0..][..kc];
                let cols = (w.n - p * NR).min(NR);
                let col = (p - first) * NR;
                for (t, a) in packed.chunks_exact(kc).take(tiles).enumerate() {
                    let c = &mut out[t * MR * ldc + col..];
                    let tile = Tile {
                        a,
                        b,
                        ldc,
                        cols,
                        accumulate: k0 > 0,
                    };
                    match MR.min(rows - t * MR) {
                        6 => tile.run::<S, 6>(simd, c),
                        5 => tile.run::<S, 5>(simd, c),
                        4 => tile.run::<S, 4>(simd, c),
                        3 => tile.run::<S, 3>(simd, c),
                        2 => tile.run::<S, 2>(simd, c),
                        _ => tile.run::<S, 1>(simd, c),
                    }
                }
            }
        }
    }
}

/// One micro-kernel call: `R` packed rows of `x` (`a`) times one panel
/// block (`b`), into the tile of `out` at the start of `c`.
struct Tile<'a> {
    a: &'a [[f32; MR]],
    b: &'a [PanelRow],
    ldc: usize,
    /// Columns of the panel that exist in `out` (the last panel may be
    /// partial).
    cols: usize,
    /// Add to `c` (a later block of `k`) instead of overwriting it.
    accumulate: bool,
}

impl Tile<'_> {
    #[inline(always)]
    fn run<S: Simd, const R: usize>(&self, simd: S, c: &mut [f32]) {
        // Vectors per panel row: 2 with AVX2, 4 with NEON, 16 in scalar.
        let lanes = S::as_simd_f32s(&[0f32; NR]).0.len();
        let zero = simd.splat_f32s(0.0);
        let mut acc = [[zero; NR]; R];
        for (ak, bk) in self.a.iter().zip(self.b) {
            let (bv, _) = S::as_simd_f32s(&bk.0);
            for (r, acc) in acc.iter_mut().enumerate() {
                let av = simd.splat_f32s(ak[r]);
                for (s, &b) in acc.iter_mut().zip(bv).take(lanes) {
                    *s = simd.mul_add_e_f32s(av, b, *s);
                }
            }
        }
        for (r, acc) in acc.iter().enumerate() {
            let mut values = [0f32; NR];
            S::as_mut_simd_f32s(&mut values)
                .0
                .copy_from_slice(&acc[..lanes]);
            let row = &mut c[r * self.ldc..][..self.cols];
            if self.accumulate {
                row.iter_mut().zip(values).for_each(|(o, v)| *o += v);
            } else {
                row.copy_from_slice(&values[..self.cols]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic values in [-1, 1).
    fn values(n: usize, seed: u64) -> Vec<f32> {
        let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                (s >> 40) as f32 / (1u64 << 23) as f32 - 1.0
            })
            .collect()
    }

    /// `x · w` in float64, the plain way.
    fn reference(x: &[f32], w: &[f32], k: usize, n: usize) -> Vec<f64> {
        let rows = x.len() / k;
        let mut out = vec![0f64; rows * n];
        for i in 0..rows {
            for j in 0..n {
                out[i * n + j] = (0..k)
                    .map(|l| f64::from(x[i * k + l]) * f64::from(w[l * n + j]))
                    .sum();
            }
        }
        out
    }

    /// `w`, `(k, n)` row-major, packed from its columns.
    fn pack(w: &[f32], k: usize, n: usize) -> Packed {
        let columns: Vec<f32> = (0..n)
            .flat_map(|j| (0..k).map(move |l| w[l * n + j]))
            .collect();
        let mut p = Packed::zeroed(k, n);
        p.set_columns(0, &columns, 1.0);
        p
    }

    fn check(rows: usize, k: usize, n: usize) {
        let (x, w) = (values(rows * k, 1), values(k * n, 2));
        let packed = pack(&w, k, n);
        let mut out = vec![f32::NAN; rows * n];
        matmul(&x, &packed, &mut out);
        let want = reference(&x, &w, k, n);
        // f32 rounding of k products of magnitude ≤ 1.
        let tol = 1e-6 * k as f64;
        for (i, (got, want)) in out.iter().zip(&want).enumerate() {
            let err = (f64::from(*got) - want).abs();
            assert!(
                err <= tol,
                "({rows}, {k}) x ({k}, {n}), output {i}: {got} vs {want}"
            );
        }
    }

    #[test]
    fn products_match_a_float64_reference_at_every_edge() {
        // Rows: under one tile, a partial last tile, and past the row-block
        // split (2 · MC); columns: partial panels; depth: under, at and
        // past a block of KC (the accumulating path).
        for rows in [1, 5, 6, 13, 2 * MC + 7] {
            for (k, n) in [(3, 5), (37, 16), (KC, 40), (KC + 9, 33)] {
                check(rows, k, n);
            }
        }
    }

    #[test]
    fn a_few_rows_split_over_panels_match_too() {
        // 13 · 384 · 1536 multiply-adds: over PAR_MIN_MACS with fewer than
        // 2 · MC rows, so the panels are shared between two threads.
        check(13, 384, 1536);
        check(13, 1536, 384 + 7);
        // ... unless there is one panel only.
        check(100, 700, 16);
    }

    #[test]
    fn packing_keeps_every_value_in_its_panel() {
        let (k, n) = (3, 20);
        let w: Vec<f32> = (0..k * n).map(|i| i as f32).collect();
        let p = pack(&w, k, n);
        assert_eq!((p.k(), p.n(), p.panel_count()), (3, 20, 2));
        assert_eq!(p.panels[1].0[15], w[n + 15]);
        // Panel 1, row 2: columns 16..20, then zeros.
        assert_eq!(&p.panels[k + 2].0[..4], &w[2 * n + 16..3 * n]);
        assert!(p.panels[k + 2].0[4..].iter().all(|v| *v == 0.0));
        // Columns set in parts, scaled, land where they belong.
        let mut q = Packed::zeroed(2, 3);
        q.set_columns(0, &[1.0, 2.0], 1.0);
        q.set_columns(1, &[3.0, 4.0, 5.0, 6.0], 0.5);
        assert_eq!(&q.panels[0].0[..4], &[1.0, 1.5, 2.5, 0.0]);
        assert_eq!(&q.panels[1].0[..4], &[2.0, 2.0, 3.0, 0.0]);
    }
}
