//! Pure helpers applied to the encoder's output: pooling a text's token
//! vectors into one (the mean over the real, non-padding tokens, or the
//! first token's, `[CLS]`), then L2 normalisation.

/// How a text's token vectors become its one vector: a sentence-transformers
/// `Pooling` module's mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pooling {
    /// The mean of the token vectors (`pooling_mode_mean_tokens`).
    Mean,
    /// The first token's vector, `[CLS]` (`pooling_mode_cls_token`).
    Cls,
}

impl Pooling {
    /// The mode's name in a `1_Pooling/config.json`.
    pub fn config_key(self) -> &'static str {
        match self {
            Pooling::Mean => "pooling_mode_mean_tokens",
            Pooling::Cls => "pooling_mode_cls_token",
        }
    }

    /// Pool one text's token vectors, `hidden` (row by row, `dim` floats
    /// each, every row a real token), into one vector (not normalised).
    pub(crate) fn pool(self, hidden: &[f32], all_real: &[u32], dim: usize) -> Vec<f32> {
        match self {
            Pooling::Mean => mean_pool(hidden, &all_real[..hidden.len() / dim], dim),
            Pooling::Cls => hidden[..dim].to_vec(),
        }
    }
}

impl std::fmt::Display for Pooling {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Pooling::Mean => "mean",
            Pooling::Cls => "cls",
        })
    }
}

/// Mean of the token vectors whose mask entry is non-zero.
///
/// `hidden` holds one sequence's token vectors row by row (`mask.len()` rows
/// of `dim` floats). Like sentence-transformers, the divisor is clamped so an
/// all-zero mask yields a zero vector instead of NaNs.
pub(crate) fn mean_pool(hidden: &[f32], mask: &[u32], dim: usize) -> Vec<f32> {
    debug_assert_eq!(hidden.len(), mask.len() * dim);
    let mut sum = vec![0f32; dim];
    let mut count = 0usize;
    for (row, &m) in hidden.chunks_exact(dim).zip(mask) {
        if m != 0 {
            count += 1;
            for (s, &x) in sum.iter_mut().zip(row) {
                *s += x;
            }
        }
    }
    let divisor = (count as f32).max(1e-9);
    for s in &mut sum {
        *s /= divisor;
    }
    sum
}

/// Scale `v` to unit L2 norm in place (a zero vector stays zero).
pub(crate) fn l2_normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    let divisor = norm.max(1e-12);
    for x in v {
        *x /= divisor;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_pool_ignores_masked_rows() {
        // Three tokens of dimension 2; the last one is padding.
        let hidden = [1.0, 2.0, 3.0, 6.0, 100.0, -100.0];
        let pooled = mean_pool(&hidden, &[1, 1, 0], 2);
        assert_eq!(pooled, vec![2.0, 4.0]);
    }

    #[test]
    fn mean_pool_of_single_token_is_that_token() {
        let pooled = mean_pool(&[0.5, -0.25, 9.0, 9.0], &[1, 0], 2);
        assert_eq!(pooled, vec![0.5, -0.25]);
    }

    #[test]
    fn cls_pooling_takes_the_first_row_and_mean_all_rows() {
        let hidden = [1.0, 2.0, 3.0, 6.0, -1.0, 1.0];
        let mask = [1u32; 3];
        assert_eq!(Pooling::Cls.pool(&hidden, &mask, 2), vec![1.0, 2.0]);
        assert_eq!(Pooling::Mean.pool(&hidden, &mask, 2), vec![1.0, 3.0]);
        assert_eq!(Pooling::Mean.pool(&hidden[..4], &mask, 2), vec![2.0, 4.0]);
    }

    #[test]
    fn mean_pool_with_empty_mask_is_zero_not_nan() {
        let pooled = mean_pool(&[1.0, 2.0], &[0], 2);
        assert_eq!(pooled, vec![0.0, 0.0]);
    }

    #[test]
    fn l2_normalize_gives_unit_norm_and_keeps_direction() {
        let mut v = vec![3.0, 4.0];
        l2_normalize(&mut v);
        assert!((v[0] - 0.6).abs() < 1e-7 && (v[1] - 0.8).abs() < 1e-7);
        let mut w = vec![1e-3, -2e-3, 5e-4, 7.0];
        l2_normalize(&mut w);
        let norm: f32 = w.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-6);
    }

    #[test]
    fn l2_normalize_leaves_zero_vector_alone() {
        let mut v = vec![0.0; 4];
        l2_normalize(&mut v);
        assert_eq!(v, vec![0.0; 4]);
    }
}
