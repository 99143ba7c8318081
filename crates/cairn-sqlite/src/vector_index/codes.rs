//! The codes the index keeps for each vector: int8 quantisation with a
//! per-vector scale, the 1-bit sign sketch, and the integer dot product
//! and Hamming distance computed over them.

/// Quantise a vector: `code_i = round(127 · v_i / max|v|)`; returns the
/// codes and the scale `max|v| / 127` that maps codes back to values.
pub fn quantize(v: &[f32]) -> (Vec<i8>, f32) {
    let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
    if max == 0.0 {
        return (vec![0; v.len()], 0.0);
    }
    let scale = max / 127.0;
    let codes = v
        .iter()
        .map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8)
        .collect();
    (codes, scale)
}

/// Hamming distance of two sign sketches.
pub(super) fn hamming(a: &[u64], b: &[u64]) -> u32 {
    a.iter().zip(b).map(|(x, y)| (x ^ y).count_ones()).sum()
}

/// `Σ a_i·b_i` over int8 codes, in integers: exact, and vectorised by the
/// compiler because integer addition is associative.
///
/// A product of two codes fits an `i16` (|code| ≤ 128), so each block of
/// sixteen is multiplied in 16-bit lanes and summed in pairs into 32-bit
/// ones (`pmaddwd`): about twice as fast as widening every code to 32
/// bits, and rescoring and the norms
/// of a loaded index are this loop.
pub fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    let (a16, b16) = (a.chunks_exact(16), b.chunks_exact(16));
    let tail: i32 = a16
        .remainder()
        .iter()
        .zip(b16.remainder())
        .map(|(x, y)| i32::from(*x) * i32::from(*y))
        .sum();
    let blocks: i32 = a16
        .zip(b16)
        .map(|(x, y)| {
            x.iter()
                .zip(y)
                .map(|(p, q)| i32::from(i16::from(*p) * i16::from(*q)))
                .sum::<i32>()
        })
        .sum();
    blocks + tail
}

/// The cosine of two int8 code vectors whose norms are `a_norm` and
/// `b_norm` (0 when either is 0).
pub(super) fn cosine_i8(a: &[i8], a_norm: f32, b: &[i8], b_norm: f32) -> f32 {
    let denom = a_norm * b_norm;
    if denom > 0.0 {
        dot_i8(a, b) as f32 / denom
    } else {
        0.0
    }
}

/// The L2 norm of int8 codes, in code units.
pub(super) fn code_norm(codes: &[i8]) -> f32 {
    (dot_i8(codes, codes) as f32).sqrt()
}

/// The sign sketch of a vector: bit `i` is set when `v_i > 0`.
pub(super) fn sketch(v: &[f32]) -> Vec<u64> {
    let mut bits = vec![0u64; v.len().div_ceil(64)];
    for (i, x) in v.iter().enumerate() {
        if *x > 0.0 {
            bits[i / 64] |= 1 << (i % 64);
        }
    }
    bits
}

/// Write the sign sketch of `codes` into `out` (one word per 64 codes).
pub(super) fn sketch_codes(codes: &[i8], out: &mut [u64]) {
    for (word, chunk) in out.iter_mut().zip(codes.chunks(64)) {
        *word = chunk.chunks(8).enumerate().fold(0u64, |word, (k, group)| {
            let mut bytes = [0u8; 8];
            for (b, c) in bytes.iter_mut().zip(group) {
                *b = *c as u8;
            }
            word | positive_bytes(u64::from_le_bytes(bytes)) << (8 * k)
        });
    }
}

/// Bit `i` of the result is set when byte `i` of `x`, read as an `i8`, is
/// positive: eight codes of a sketch at once (a first index load builds
/// 100,000 sketches, and one comparison per code was a tenth of it).
fn positive_bytes(x: u64) -> u64 {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    // High bit of each byte: set when the low seven bits are not all zero
    // (no carry leaves a byte: 0x7f + 0x7f < 0x100) or the byte is
    // negative, i.e. when the byte is not zero; then clear the negative ones.
    let positive = (((x & LOW7) + LOW7) | x) & !x & HIGH;
    // Gather bit 7 of byte i into bit 56 + i: the multiplier has one bit per
    // byte, at 7j + 7, and only i + j = 7 lands in the top byte.
    ((positive >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int8_dot_products_are_exact_at_every_length() {
        let code = |i: usize, m: usize| ((i * m) % 256) as u8 as i8; // all of -128..=127
        for len in [0, 1, 15, 16, 17, 100, 384, 385] {
            let a: Vec<i8> = (0..len).map(|i| code(i, 7)).collect();
            let b: Vec<i8> = (0..len).map(|i| code(i, 13)).collect();
            let naive: i32 = a
                .iter()
                .zip(&b)
                .map(|(x, y)| i32::from(*x) * i32::from(*y))
                .sum();
            assert_eq!(dot_i8(&a, &b), naive, "length {len}");
        }
        let extreme = vec![-128i8; 384];
        assert_eq!(dot_i8(&extreme, &extreme), 384 * 128 * 128);
    }

    #[test]
    fn sketches_of_codes_mark_the_positive_ones() {
        // Every i8 value, in an order that puts each value at many bit
        // positions, and lengths that end inside a byte group and a word.
        let all: Vec<i8> = (0..=255u8).map(|b| b.wrapping_mul(37) as i8).collect();
        for len in [1, 7, 8, 63, 64, 65, 200, 256, 384] {
            let codes: Vec<i8> = all.iter().cycle().take(len).copied().collect();
            let naive: Vec<u64> = codes
                .chunks(64)
                .map(|chunk| {
                    let mut word = 0u64;
                    for (j, c) in chunk.iter().enumerate() {
                        if *c > 0 {
                            word |= 1 << j;
                        }
                    }
                    word
                })
                .collect();
            let mut sketch = vec![0; len.div_ceil(64)];
            sketch_codes(&codes, &mut sketch);
            assert_eq!(sketch, naive, "length {len}");
        }
    }
}
