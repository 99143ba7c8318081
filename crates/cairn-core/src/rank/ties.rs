//! Vector hits in one order on every backend, whatever the last bits of
//! their cosines.
//!
//! Each backend computes cosines in `f32` its own way (pgvector sums in
//! another order than the in-memory store; SQLite from int8 codes), so two
//! memories whose cosines are equal in exact arithmetic come out a few
//! units in the last place apart, in either order. Ranked as they come,
//! such ties would order the vector side, and the feedback expansion
//! seeded by its first hits, differently from one backend to the next.

use crate::store::Hit;

/// Cosines closer than this are ties.
pub const COSINE_RESOLUTION: f64 = 1e-6;

/// Sort vector hits best first by their cosine rounded to
/// [`COSINE_RESOLUTION`] (`round(score / resolution)`), ties by
/// descending id, as every other ranking breaks them. The scores are
/// left as they are.
pub fn order_vector_hits(hits: &mut [Hit]) {
    let key = |h: &Hit| (h.score / COSINE_RESOLUTION).round() as i64;
    hits.sort_by(|a, b| key(b).cmp(&key(a)).then(b.id.cmp(&a.id)));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::MemoryId;
    use crate::store::RankFactors;

    fn hit(id: MemoryId, score: f64) -> Hit {
        Hit {
            id,
            score,
            factors: RankFactors {
                access_count: 0,
                last_accessed_at: None,
                global: true,
                weight: 1.0,
            },
        }
    }

    #[test]
    fn near_ties_order_by_descending_id() {
        let [one, two, three] = [1, 2, 3].map(MemoryId::new_at);
        let mut a = vec![
            hit(one, 0.606_339_097),
            hit(two, 0.606_339_06),
            hit(three, 0.9),
        ];
        let mut b = vec![
            hit(two, 0.606_339_097),
            hit(one, 0.606_339_06),
            hit(three, 0.9),
        ];
        order_vector_hits(&mut a);
        order_vector_hits(&mut b);
        let ids = |h: &[Hit]| h.iter().map(|h| h.id).collect::<Vec<_>>();
        assert_eq!(ids(&a), ids(&b));
        assert_eq!(ids(&a)[0], three);
        assert!(ids(&a)[1] > ids(&a)[2], "the tie goes to the greater id");
    }

    #[test]
    fn distinct_cosines_keep_their_order() {
        let [one, two, three] = [1, 2, 3].map(MemoryId::new_at);
        let mut h = vec![hit(one, 0.5), hit(two, 0.500_01), hit(three, 0.499_98)];
        order_vector_hits(&mut h);
        let scores: Vec<f64> = h.iter().map(|h| h.score).collect();
        assert_eq!(scores, vec![0.500_01, 0.5, 0.499_98]);
    }
}
