//! The current side of a known conflict before the side it contests.
//!
//! A correction is often worded unlike the question, so the older value
//! it corrects can rank above it ("where do I live?" matches "I live in
//! Madrid" better than "I relocated; my address is … in Lyon"). When a
//! ranking holds both sides of a known conflict (the older names the
//! newer: `superseded_by`, `contested_by` or `flagged_by`, see
//! `engine::newer_of`), the newer is placed immediately before the older.
//! Nothing else moves relative to anything: the older keeps its place
//! above every memory it outranked (a false conflict costs one place to
//! the memories between the two sides, never a demotion below unrelated
//! ones), and a ranking without both sides of a conflict is unchanged.

/// The order that puts each item's newer side immediately before it:
/// `newer[i]` is the index of the item that contests item `i` (`None`
/// when none does, or it is not in the ranking). Returns a permutation of
/// `0..newer.len()`:
///
/// ```text
/// scan i = 0, 1, …: while newer[order[i]] = j sits at a position p > i
///                   and j has not been moved yet:
///                   take j out of p and insert it at i (the older and
///                   everything between shift down one place)
/// ```
///
/// A chain (A contested by B, B by C) ends newest first (C, B, A); each
/// item moves at most once, so a cycle of links cannot loop.
pub fn newer_first(newer: &[Option<usize>]) -> Vec<usize> {
    let n = newer.len();
    let mut order: Vec<usize> = (0..n).collect();
    let mut moved = vec![false; n];
    let mut i = 0;
    while i < order.len() {
        let Some(j) = newer[order[i]].filter(|&j| j < n && !moved[j]) else {
            i += 1;
            continue;
        };
        match order.iter().position(|&k| k == j) {
            Some(p) if p > i => {
                order.remove(p);
                order.insert(i, j);
                moved[j] = true;
                // The item now at `i` may itself be contested: look again.
            }
            _ => i += 1,
        }
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_conflict_leaves_the_order() {
        assert_eq!(newer_first(&[None, None, None]), vec![0, 1, 2]);
        assert_eq!(newer_first(&[]), Vec::<usize>::new());
    }

    #[test]
    fn the_newer_goes_immediately_before_the_older() {
        // 0 = older (contested by 3), 1 and 2 unrelated, 3 = newer.
        let order = newer_first(&[Some(3), None, None, None]);
        assert_eq!(order, vec![3, 0, 1, 2]);
        // The older sits below one more: the newer. Unrelated memories it
        // outranked still come after it.
        let older_at = order.iter().position(|&k| k == 0).unwrap();
        assert!(older_at < order.iter().position(|&k| k == 1).unwrap());
    }

    #[test]
    fn a_newer_already_above_stays_where_it_is() {
        // 0 = newer, 1 unrelated, 2 = older contested by 0.
        assert_eq!(newer_first(&[None, None, Some(0)]), vec![0, 1, 2]);
    }

    #[test]
    fn a_newer_below_unrelated_memories_is_lifted_only_to_its_older() {
        // 0, 1 unrelated, 2 = older contested by 4, 3 unrelated, 4 = newer.
        assert_eq!(
            newer_first(&[None, None, Some(4), None, None]),
            vec![0, 1, 4, 2, 3]
        );
    }

    #[test]
    fn a_chain_ends_newest_first() {
        // 0 contested by 2, 2 contested by 1.
        assert_eq!(newer_first(&[Some(2), None, Some(1)]), vec![1, 2, 0]);
        // Two olders of one newer: the newer goes before the first.
        assert_eq!(newer_first(&[Some(2), Some(2), None]), vec![2, 0, 1]);
    }

    #[test]
    fn a_cycle_or_a_bad_index_does_not_loop() {
        let order = newer_first(&[Some(1), Some(0)]);
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, vec![0, 1]);
        assert_eq!(newer_first(&[Some(7), Some(1)]), vec![0, 1]);
    }
}
