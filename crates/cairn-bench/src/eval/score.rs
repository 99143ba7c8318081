//! Scores of one search mode over the set: hit@1, hit@5, recall@5 and
//! reciprocal rank per case (the definitions of [`crate::metrics`]), their
//! means per kind and overall, and two counts of answers that are wrong
//! whatever their rank:
//!
//! - a **scope leak**: a result stored in a project other than the one the
//!   question is asked from (global memories are seen from every project;
//!   a question without a project sees global memories only);
//! - an **old win**: a stale memory (one a newer memory replaces) ranked
//!   above every relevant memory, or returned while none is.

use std::collections::BTreeMap;

use crate::eval::set::{Case, Kind};
use crate::metrics::{self, Summary, KS};

/// Index of hit@1 in [`KS`].
pub const AT_1: usize = 0;
/// Index of hit@5 in [`KS`].
pub const AT_5: usize = 1;

/// One returned memory, as the scorer sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranked {
    /// The case memory's set-wide id (`<case>/<key>`); `None` for a
    /// distractor.
    pub id: Option<String>,
    /// Its project (`None` = global).
    pub project: Option<String>,
    /// Its text (for the list of misses).
    pub content: String,
    /// Its relevance to the question and the evidence of it (cosine, term
    /// share), as recall judged them.
    pub relevance: Option<f64>,
    /// The cosine of its vector to the question's.
    pub cosine: Option<f64>,
    /// The share of the question's information its words cover.
    pub term_share: Option<f64>,
    /// The share of the question's information no memory holds, weighed
    /// by the store's size.
    pub unknown_share: Option<f64>,
}

/// What one case's answer scored.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseOutcome {
    /// hit@k, recall@k, reciprocal rank.
    pub score: metrics::QuestionScore,
    /// A result of a project the question cannot see was returned.
    pub scope_leak: bool,
    /// A stale memory ranked above every relevant one.
    pub old_win: bool,
}

/// Scores one case's ranked answer.
pub fn score_case(case: &Case, ranked: &[Ranked]) -> CaseOutcome {
    let relevant = case.relevant_ids();
    let stale = case.stale_ids();
    // Distractors keep their rank but never match.
    let ids: Vec<&str> = ranked
        .iter()
        .map(|r| r.id.as_deref().unwrap_or(""))
        .collect();
    let relevant_refs: Vec<&str> = relevant.iter().map(String::as_str).collect();
    let score = metrics::score(&ids, &relevant_refs).expect("a case has relevant memories");
    let first = |set: &[String]| ids.iter().position(|id| set.iter().any(|s| s == id));
    let old_win = match (first(&stale), first(&relevant)) {
        (Some(s), Some(r)) => s < r,
        (Some(_), None) => true,
        (None, _) => false,
    };
    let scope_leak = ranked.iter().any(|r| match &r.project {
        None => false,
        Some(p) => case.project.as_deref() != Some(p.as_str()),
    });
    CaseOutcome {
        score,
        scope_leak,
        old_win,
    }
}

/// Means and counts over a group of cases.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tally {
    /// hit@k, recall@k and MRR means.
    pub summary: Summary,
    /// Cases with a scope leak.
    pub scope_leaks: usize,
    /// Cases where a stale memory won.
    pub old_wins: usize,
}

impl Tally {
    /// Adds one case.
    pub fn add(&mut self, o: &CaseOutcome) {
        self.summary.add(&o.score);
        self.scope_leaks += usize::from(o.scope_leak);
        self.old_wins += usize::from(o.old_win);
    }

    /// Adds every case of another tally.
    pub fn merge(&mut self, other: &Tally) {
        self.summary.merge(&other.summary);
        self.scope_leaks += other.scope_leaks;
        self.old_wins += other.old_wins;
    }

    /// The figures of the report, in its column order: hit@1, hit@5,
    /// recall@5, MRR.
    pub fn figures(&self) -> [f64; 4] {
        [
            self.summary.hit(AT_1),
            self.summary.hit(AT_5),
            self.summary.recall(AT_5),
            self.summary.mrr(),
        ]
    }
}

/// One mode's tallies by kind.
#[derive(Debug, Clone, Default)]
pub struct ModeScores {
    /// Per kind (abstain cases apart).
    pub by_kind: BTreeMap<Kind, Tally>,
    /// Abstain cases asked.
    pub abstain_cases: usize,
    /// Abstain cases answered with nothing.
    pub abstained: usize,
}

impl ModeScores {
    /// Adds one abstain case: whether its answer was empty.
    pub fn add_abstention(&mut self, ranked: &[Ranked]) {
        self.abstain_cases += 1;
        self.abstained += usize::from(ranked.is_empty());
    }

    /// The share of abstain cases answered with nothing (`None` without
    /// any).
    pub fn abstention(&self) -> Option<f64> {
        (self.abstain_cases > 0).then(|| self.abstained as f64 / self.abstain_cases as f64)
    }

    /// Adds one case's outcome under its kind.
    pub fn add(&mut self, kind: Kind, o: &CaseOutcome) {
        self.by_kind.entry(kind).or_default().add(o);
    }

    /// Every kind together.
    pub fn overall(&self) -> Tally {
        let mut all = Tally::default();
        for t in self.by_kind.values() {
            all.merge(t);
        }
        all
    }
}

// `KS` must hold the cut-offs this module reports.
const _: () = assert!(KS[AT_1] == 1 && KS[AT_5] == 5);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::set::parse_cases;

    fn case(json: &str) -> Case {
        parse_cases(json).unwrap().remove(0)
    }

    fn mem(id: &str, project: Option<&str>) -> Ranked {
        Ranked {
            id: Some(id.into()),
            project: project.map(Into::into),
            content: String::new(),
            relevance: None,
            cosine: None,
            term_share: None,
            unknown_share: None,
        }
    }

    fn distractor(project: Option<&str>) -> Ranked {
        Ranked {
            id: None,
            project: project.map(Into::into),
            content: String::new(),
            relevance: None,
            cosine: None,
            term_share: None,
            unknown_share: None,
        }
    }

    const SUPERSESSION: &str = r#"{"id":"s","kind":"supersession","project":"atlas","question":"where?","memories":[{"key":"old","content":"a"},{"key":"new","content":"b","supersedes":"old"}],"relevant":["new"],"stale":["old"]}"#;

    #[test]
    fn ranks_hits_and_reciprocal_rank() {
        let c = case(SUPERSESSION);
        // new at rank 3 behind two distractors.
        let ranked = [
            distractor(None),
            distractor(Some("atlas")),
            mem("s/new", Some("atlas")),
        ];
        let o = score_case(&c, &ranked);
        assert_eq!(o.score.hit[AT_1], 0.0);
        assert_eq!(o.score.hit[AT_5], 1.0);
        assert!((o.score.reciprocal_rank - 1.0 / 3.0).abs() < 1e-12);
        assert!(!o.old_win && !o.scope_leak);
    }

    #[test]
    fn old_wins_when_stale_ranks_first_or_alone() {
        let c = case(SUPERSESSION);
        let above = [mem("s/old", Some("atlas")), mem("s/new", Some("atlas"))];
        assert!(score_case(&c, &above).old_win);
        let alone = [mem("s/old", Some("atlas")), distractor(None)];
        let o = score_case(&c, &alone);
        assert!(o.old_win);
        assert_eq!(o.score.reciprocal_rank, 0.0);
        let below = [mem("s/new", Some("atlas")), mem("s/old", Some("atlas"))];
        assert!(!score_case(&c, &below).old_win);
    }

    #[test]
    fn a_result_of_another_project_is_a_leak_and_global_is_not() {
        let c = case(SUPERSESSION);
        assert!(score_case(&c, &[distractor(Some("lumen"))]).scope_leak);
        assert!(!score_case(&c, &[distractor(None), distractor(Some("atlas"))]).scope_leak);
        // Asked without a project, any project memory leaks.
        let global = case(&SUPERSESSION.replace(r#""project":"atlas","#, ""));
        assert!(score_case(&global, &[distractor(Some("atlas"))]).scope_leak);
    }

    #[test]
    fn multi_fact_recall_counts_each_fact_and_tallies_average() {
        let c = case(
            r#"{"id":"m","kind":"multi_fact","question":"q","memories":[{"key":"a","content":"x"},{"key":"b","content":"y"}],"relevant":["a","b"]}"#,
        );
        let one = score_case(&c, &[distractor(None), mem("m/a", None)]);
        assert_eq!(one.score.recall[AT_5], 0.5);
        let both = score_case(&c, &[mem("m/b", None), mem("m/a", None)]);
        assert_eq!(both.score.recall[AT_5], 1.0);
        let mut scores = ModeScores::default();
        scores.add(Kind::MultiFact, &one);
        scores.add(Kind::MultiFact, &both);
        let sup = case(SUPERSESSION);
        scores.add(
            Kind::Supersession,
            &score_case(&sup, &[mem("s/old", Some("x"))]),
        );
        scores.add_abstention(&[]);
        scores.add_abstention(&[distractor(None)]);
        assert_eq!(scores.abstention(), Some(0.5));
        assert_eq!(ModeScores::default().abstention(), None);
        let all = scores.overall();
        assert_eq!(all.summary.questions, 3, "abstentions count apart");
        assert_eq!((all.scope_leaks, all.old_wins), (1, 1));
        let [h1, h5, r5, mrr] = scores.by_kind[&Kind::MultiFact].figures();
        assert_eq!((h1, h5, r5), (0.5, 1.0, 0.75));
        assert!((mrr - 0.75).abs() < 1e-12); // (1/2 + 1) / 2
    }
}
