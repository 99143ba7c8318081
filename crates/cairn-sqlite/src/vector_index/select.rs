//! Stage 1's bookkeeping: the sketch distances of the scanned entries
//! and the selection of the nearest among them.

/// Sketch distances of scanned entries (`u16::MAX`: left out by the
/// filter), in scan order, with their histogram.
pub(super) struct Scanned {
    pub(super) distances: Vec<u16>,
    /// Four histograms of `bins + 1` (the last: a sink for the left out).
    pub(super) histograms: Vec<u32>,
    /// Entries that passed the filter.
    pub(super) admitted: usize,
}

impl Scanned {
    /// For sketches of `words` words, about `entries` of them.
    pub(super) fn new(words: usize, entries: usize) -> Scanned {
        Scanned {
            distances: Vec::with_capacity(entries),
            histograms: vec![0; 4 * (words * 64 + 2)],
            admitted: 0,
        }
    }

    /// How many scanned entries are at each distance (`words × 64 + 1`
    /// bins).
    pub(super) fn histogram(&self) -> Vec<u32> {
        let bins = self.histograms.len() / 4 - 1;
        let mut histogram = vec![0u32; bins];
        for part in self.histograms.chunks_exact(bins + 1) {
            histogram.iter_mut().zip(part).for_each(|(a, b)| *a += b);
        }
        histogram
    }
}

/// The positions of the at most `n` smallest `distances` (`u16::MAX` =
/// left out), in position order; ties at the cut are taken in position
/// order. `histogram[d]` counts the entries at distance `d`: the cut is
/// found from it, so selection is two linear passes instead of a sort.
pub(super) fn nearest_by_histogram(distances: &[u16], histogram: &[u32], n: usize) -> Vec<usize> {
    let mut below = 0usize;
    let mut cut = histogram.len();
    for (d, count) in histogram.iter().enumerate() {
        if below + *count as usize >= n {
            cut = d;
            break;
        }
        below += *count as usize;
    }
    // Entries closer than the cut all go in; at the cut, as many as fit.
    let mut at_cut = n.saturating_sub(below);
    let mut out = Vec::with_capacity(n.min(distances.len()));
    // About one entry in a hundred is taken: blocks with none are skipped
    // by a test that vectorises (`u16::MAX` marks are above any cut).
    let cut = u16::try_from(cut).unwrap_or(u16::MAX - 1);
    for (block, part) in distances.chunks(SELECT_BLOCK).enumerate() {
        if !part.iter().fold(false, |any, &d| any | (d <= cut)) {
            continue;
        }
        for (i, &d) in part.iter().enumerate() {
            if d < cut || (d == cut && at_cut > 0) {
                at_cut -= usize::from(d == cut);
                out.push(block * SELECT_BLOCK + i);
            }
        }
    }
    out
}

/// Distances tested at once by [`nearest_by_histogram`].
const SELECT_BLOCK: usize = 32;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_selection_keeps_the_nearest() {
        let distances = [5, u16::MAX, 1, 3, 3, 0, 3, u16::MAX, 9];
        let mut histogram = vec![0u32; 10];
        for d in distances.iter().filter(|d| **d != u16::MAX) {
            histogram[usize::from(*d)] += 1;
        }
        // Below the cut (distance 3) everything; at it, the first in order.
        assert_eq!(
            nearest_by_histogram(&distances, &histogram, 3),
            vec![2, 3, 5]
        );
        assert_eq!(
            nearest_by_histogram(&distances, &histogram, 4),
            vec![2, 3, 4, 5]
        );
        assert_eq!(nearest_by_histogram(&distances, &histogram, 1), vec![5]);
        // More asked for than admitted: every admitted entry, never a left-out one.
        assert_eq!(
            nearest_by_histogram(&distances, &histogram, 100),
            vec![0, 2, 3, 4, 5, 6, 8]
        );
        assert!(nearest_by_histogram(&distances, &histogram, 0).is_empty());
    }
}
