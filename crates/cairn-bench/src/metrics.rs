//! Retrieval metrics for evidence recall: recall@k, hit@k and reciprocal
//! rank of one ranked list against the set of relevant items, and their
//! means over many questions.
//!
//! Definitions (for one question with evidence set `E`, `|E| > 0`, and a
//! ranked list `R` of retrieved items):
//! - recall@k = |E ∩ R[..k]| / |E|, the share of the evidence in the top k;
//! - hit@k = 1 if any evidence item is in the top k, else 0;
//! - reciprocal rank = 1 / (position of the first evidence item in `R`,
//!   counting from 1), or 0 if none is retrieved. Its mean is MRR, cut at
//!   the depth of `R` (the benchmark retrieves [`DEPTH`] items).
//!
//! Duplicate items in `R` or `E` count once.

use std::collections::HashSet;

/// The cut-offs reported.
pub const KS: [usize; 4] = [1, 5, 10, 20];

/// How many results the benchmark asks for: the largest cut-off.
pub const DEPTH: usize = KS[KS.len() - 1];

/// The scores of one question.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QuestionScore {
    /// recall@k for each of [`KS`].
    pub recall: [f64; KS.len()],
    /// hit@k for each of [`KS`].
    pub hit: [f64; KS.len()],
    /// Reciprocal rank of the first evidence item.
    pub reciprocal_rank: f64,
}

/// Scores `ranked` against `evidence`; `None` when there is no evidence
/// (such a question cannot be scored and is left out of the means).
pub fn score(ranked: &[&str], evidence: &[&str]) -> Option<QuestionScore> {
    let relevant: HashSet<&str> = evidence.iter().copied().collect();
    if relevant.is_empty() {
        return None;
    }
    let mut seen = HashSet::new();
    let mut found_at = Vec::new(); // 1-based ranks of distinct evidence items
    for (i, item) in ranked.iter().enumerate() {
        if relevant.contains(item) && seen.insert(*item) {
            found_at.push(i + 1);
        }
    }
    let mut recall = [0.0; KS.len()];
    let mut hit = [0.0; KS.len()];
    for (j, &k) in KS.iter().enumerate() {
        let within = found_at.iter().filter(|&&r| r <= k).count();
        recall[j] = within as f64 / relevant.len() as f64;
        hit[j] = if within > 0 { 1.0 } else { 0.0 };
    }
    let reciprocal_rank = found_at.first().map_or(0.0, |&r| 1.0 / r as f64);
    Some(QuestionScore {
        recall,
        hit,
        reciprocal_rank,
    })
}

/// Running means of [`QuestionScore`]s.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    /// Questions scored.
    pub questions: usize,
    recall: [f64; KS.len()],
    hit: [f64; KS.len()],
    reciprocal_rank: f64,
}

impl Summary {
    /// Adds one question.
    pub fn add(&mut self, s: &QuestionScore) {
        self.questions += 1;
        for j in 0..KS.len() {
            self.recall[j] += s.recall[j];
            self.hit[j] += s.hit[j];
        }
        self.reciprocal_rank += s.reciprocal_rank;
    }

    /// Adds every question of another summary.
    pub fn merge(&mut self, other: &Summary) {
        self.questions += other.questions;
        for j in 0..KS.len() {
            self.recall[j] += other.recall[j];
            self.hit[j] += other.hit[j];
        }
        self.reciprocal_rank += other.reciprocal_rank;
    }

    fn mean(&self, sum: f64) -> f64 {
        if self.questions == 0 {
            f64::NAN
        } else {
            sum / self.questions as f64
        }
    }

    /// Mean recall@`KS[j]`.
    pub fn recall(&self, j: usize) -> f64 {
        self.mean(self.recall[j])
    }

    /// Mean hit@`KS[j]`.
    pub fn hit(&self, j: usize) -> f64 {
        self.mean(self.hit[j])
    }

    /// Mean reciprocal rank.
    pub fn mrr(&self) -> f64 {
        self.mean(self.reciprocal_rank)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn recall_counts_the_share_of_evidence_within_k() {
        // Evidence at ranks 1 and 7 of three items; the third is missing.
        let ranked = ["a", "x", "x2", "x3", "x4", "x5", "b", "x6"];
        let s = score(&ranked, &["a", "b", "c"]).unwrap();
        assert!(close(s.recall[0], 1.0 / 3.0)); // @1
        assert!(close(s.recall[1], 1.0 / 3.0)); // @5
        assert!(close(s.recall[2], 2.0 / 3.0)); // @10
        assert!(close(s.recall[3], 2.0 / 3.0)); // @20
        assert_eq!(s.hit, [1.0; 4]);
        assert!(close(s.reciprocal_rank, 1.0));
    }

    #[test]
    fn hit_and_reciprocal_rank_follow_the_first_evidence_item() {
        let ranked: Vec<String> = (0..20).map(|i| format!("t{i}")).collect();
        let ranked: Vec<&str> = ranked.iter().map(String::as_str).collect();
        let s = score(&ranked, &["t4"]).unwrap(); // rank 5
        assert_eq!(s.hit, [0.0, 1.0, 1.0, 1.0]);
        assert_eq!(s.recall, [0.0, 1.0, 1.0, 1.0]);
        assert!(close(s.reciprocal_rank, 0.2));
        let s = score(&ranked, &["t19"]).unwrap(); // rank 20
        assert_eq!(s.hit, [0.0, 0.0, 0.0, 1.0]);
        let s = score(&ranked, &["gone"]).unwrap();
        assert_eq!(s.hit, [0.0; 4]);
        assert_eq!(s.reciprocal_rank, 0.0);
    }

    #[test]
    fn duplicates_count_once_and_empty_evidence_is_unscored() {
        let s = score(&["a", "a", "b"], &["a", "a"]).unwrap();
        assert_eq!(s.recall, [1.0; 4]);
        assert!(score(&["a"], &[]).is_none());
    }

    #[test]
    fn summary_averages_over_questions() {
        let mut sum = Summary::default();
        sum.add(&score(&["a"], &["a"]).unwrap()); // rr 1
        sum.add(&score(&["x", "a"], &["a", "b"]).unwrap()); // rr 1/2, r@1 0, r@5 1/2
        assert_eq!(sum.questions, 2);
        assert!(close(sum.mrr(), 0.75));
        assert!(close(sum.recall(0), 0.5));
        assert!(close(sum.recall(1), 0.75));
        assert!(close(sum.hit(0), 0.5));
        let mut all = Summary::default();
        all.merge(&sum);
        all.merge(&sum);
        assert_eq!(all.questions, 4);
        assert!(close(all.mrr(), 0.75));
        assert!(Summary::default().mrr().is_nan());
    }
}
