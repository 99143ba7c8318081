//! A relevance score a person can read: the probability, 0–1, that a
//! recalled memory answers the query, from the evidence the memory itself
//! carries for it — how close its vector is to the query's, how much of
//! the query's information (its words, weighted by rarity) it contains —
//! and how much of the query no memory in the store holds at all.
//! Never from its rank: a memory alone in the store is not relevant for
//! being first.
//!
//! Recall drops results whose relevance is below a floor
//! ([`RELEVANCE_FLOOR`] by default), so that a question about something
//! never stored gets an empty answer rather than the nearest unrelated
//! memories.
//!
//! Pure functions; nothing here touches storage or embeddings.

/// The least relevance a recalled memory needs to be returned, unless the
/// request says otherwise (0 turns the floor off): 1 %, the relevance of
/// `cosine + 0.5 · term_share = 0.30`.
///
/// Chosen on Cairn's evaluation set (docs/design/relevance.md): the floor
/// that empties the most answers to the `abstain` questions (whose answer
/// is not stored) while hit@5 on every other question, in the hybrid and
/// the semantic mode, stays within 0.01 of no floor at all. The relevance
/// is a probability among the memories recall ranks highest, most of which
/// share the question's topic: 1 % is low on that scale, and still above
/// what an unrelated memory shows.
pub const RELEVANCE_FLOOR: f64 = 0.01;

/// The coefficients of [`relevance`]'s logistic model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RelevanceModel {
    /// Intercept with a cosine.
    pub bias: f64,
    /// Weight of the cosine.
    pub cosine: f64,
    /// Weight of the term share with a cosine.
    pub terms: f64,
    /// Intercept without a cosine (keyword mode).
    pub terms_only_bias: f64,
    /// Weight of the term share without a cosine.
    pub terms_only: f64,
    /// Weight of the query's [`Evidence::unknown_share`] (0 or less: a
    /// question made of words the store has never seen is about
    /// something it does not hold), with or without a cosine.
    pub unknown: f64,
}

/// The model fitted on Cairn's evaluation set (see [`relevance`]).
pub const FITTED: RelevanceModel = RelevanceModel {
    bias: -6.416,
    cosine: 6.170,
    terms: 3.085,
    terms_only_bias: -5.663,
    terms_only: 7.397,
    unknown: UNKNOWN_WEIGHT,
};

/// [`FITTED`]'s weight of the unknown share past [`UNKNOWN_SHARE_FREE`].
///
/// Chosen with it, the rest of the model and the floor fixed
/// (docs/design/relevance.md): on Cairn's evaluation set, a grid (weight
/// −1 to −100, free share 0–0.7) of the pairs that empty abstain answers
/// while hit@5 on the others, in the hybrid and the semantic mode, stays
/// within 0.01 of the model without it; of the weights measured on LoCoMo
/// (−8, −12, −20), the steepest that leaves its hybrid recall@10
/// unchanged (−20 empties twice as many abstain answers and costs LoCoMo
/// 0.011).
pub const UNKNOWN_WEIGHT: f64 = -8.0;

/// The unknown share a question may carry at no cost: a relevant question
/// can hold a few words the store lacks (a paraphrase, a name spelt
/// otherwise), and on the evaluation set few answerable questions carry
/// more than 0.6 while most abstain questions do.
pub const UNKNOWN_SHARE_FREE: f64 = 0.6;

impl Default for RelevanceModel {
    fn default() -> Self {
        FITTED
    }
}

impl std::str::FromStr for RelevanceModel {
    type Err = crate::Error;
    /// Five or six comma-separated numbers, in field order (for
    /// experiments); without the sixth, the unknown share weighs nothing.
    fn from_str(s: &str) -> crate::Result<Self> {
        let n: Vec<f64> = s
            .split(',')
            .map(|x| x.trim().parse::<f64>())
            .collect::<std::result::Result<_, _>>()
            .map_err(|e| crate::Error::invalid(format!("relevance model `{s}`: {e}")))?;
        let (five, unknown) = match n.len() {
            6 => (&n[..5], n[5]),
            _ => (&n[..], 0.0),
        };
        match *five {
            [bias, cosine, terms, terms_only_bias, terms_only] => Ok(RelevanceModel {
                bias,
                cosine,
                terms,
                terms_only_bias,
                terms_only,
                unknown,
            }),
            _ => Err(crate::Error::invalid(format!(
                "relevance model `{s}`: give five or six numbers (bias, cosine, terms, terms-only bias, terms only[, unknown])"
            ))),
        }
    }
}

/// What a memory shows of its relevance to a query.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Evidence {
    /// Cosine between the query's vector and the memory's (−1..1), when
    /// the query was embedded (not in keyword mode).
    pub cosine: Option<f64>,
    /// The share of the query's information the memory's words cover
    /// ([`term_share`], 0–1).
    pub term_share: f64,
    /// The share of the query's information no memory in the store holds,
    /// weighed by the store's size ([`weighted_unknown_share`], 0–1): the
    /// same for every memory of one query.
    pub unknown_share: f64,
}

/// The probability, 0–1, that a memory with this evidence is relevant to
/// the query: a logistic model fitted on Cairn's evaluation set
/// ([`FITTED`]).
///
/// ```text
/// relevance = σ(bias + cosine_w · cosine + terms_w · term_share + unknown_w · past)
///           = σ(terms_only_bias + terms_only_w · term_share + unknown_w · past)
///                                                              without a cosine
/// past      = max(0, unknown_share − UNKNOWN_SHARE_FREE)
/// σ(z)      = 1 / (1 + e^(−z))
/// ```
///
/// With `unknown_share` at most [`UNKNOWN_SHARE_FREE`] (a query whose
/// words the store mostly holds, or a store too small to say,
/// [`weighted_unknown_share`]) it is the model fitted without it, with the
/// same floor.
///
/// The constants come from the evaluation set's (question, result) pairs:
/// every result of the top 20 in the hybrid and semantic modes (6,480
/// pairs, 300 relevant), labelled relevant when the case names the memory
/// as an answer (`eval/cases.jsonl`) and irrelevant otherwise (other
/// cases' memories and the distractors of `eval/distractors.json`); the
/// abstain cases are left out. The evidence is combined as `cosine + 0.5 ·
/// term_share` (the weight of the terms chosen with [`RELEVANCE_FLOOR`]:
/// it separates the abstain questions' results best at no loss of hit@5;
/// a free two-feature fit weighs the terms more, because the hard
/// negatives of a top 20 share the question's topic, and drops every
/// paraphrase), and the scale and intercept of that sum are a
/// maximum-likelihood logistic fit (`cosine_w = 6.170`, `terms_w = 0.5 ·
/// 6.170`, `bias = −6.416`). The model without a cosine is the
/// maximum-likelihood fit on the term share alone over the keyword mode's
/// pairs (3,057, 142 relevant). `cairn-bench eval --min-relevance 0
/// --dump-relevance FILE` writes the pairs; `scripts/fit-relevance.py
/// FILE` fits them; docs/design/relevance.md has the figures. The
/// unknown share's weight and free share ([`UNKNOWN_WEIGHT`],
/// [`UNKNOWN_SHARE_FREE`]) were chosen after, with the others fixed.
/// Monotone in every input; a non-finite input counts as no evidence.
pub fn relevance(e: &Evidence) -> f64 {
    FITTED.relevance(e)
}

impl RelevanceModel {
    /// [`relevance`] with these coefficients.
    pub fn relevance(&self, e: &Evidence) -> f64 {
        let share = finite_or_zero(e.term_share).clamp(0.0, 1.0);
        let unknown = self.unknown
            * (finite_or_zero(e.unknown_share).clamp(0.0, 1.0) - UNKNOWN_SHARE_FREE).max(0.0);
        let z = match e.cosine {
            Some(c) => {
                self.bias + self.cosine * finite_or_zero(c).clamp(-1.0, 1.0) + self.terms * share
            }
            None => self.terms_only_bias + self.terms_only * share,
        };
        1.0 / (1.0 + (-(z + unknown)).exp())
    }
}

fn finite_or_zero(x: f64) -> f64 {
    if x.is_finite() {
        x
    } else {
        0.0
    }
}

/// A query term's weight in [`term_share`]: its rarity among `rows`
/// memories of which `rows_with_term` hold it,
///
/// ```text
/// idf = ln(1 + (N − n + 0.5) / (n + 0.5))
/// ```
///
/// BM25's IDF made positive (Lucene's form): a common word counts little
/// but never nothing or less, and a word no memory holds counts most.
pub fn term_idf(rows: f64, rows_with_term: f64) -> f64 {
    let (rows, n) = (rows.max(0.0), rows_with_term.clamp(0.0, rows.max(0.0)));
    (1.0 + (rows - n + 0.5) / (n + 0.5)).ln()
}

/// Whether a memory's word `word` counts as the query's term `term`: the
/// same once a common English inflection is taken off each ([`stem`]:
/// "deploy" and "deploys", "close" and "closing"; not "port" and
/// "portal"). An approximation of the stemming a backend may do, the same
/// on every backend.
pub fn term_matches(term: &str, word: &str) -> bool {
    term == word || stem(term) == stem(word)
}

/// A word without its inflection: the first of [`SUFFIXES`] it ends with
/// taken off, when at least [`STEM_CHARS`] characters remain.
pub fn stem(word: &str) -> &str {
    SUFFIXES
        .iter()
        .find_map(|s| {
            word.strip_suffix(s)
                .filter(|rest| rest.chars().count() >= STEM_CHARS)
        })
        .unwrap_or(word)
}

/// The inflections [`stem`] takes off, longest first.
pub const SUFFIXES: [&str; 5] = ["ing", "ed", "es", "s", "e"];

/// The fewest characters a [`stem`] keeps.
pub const STEM_CHARS: usize = 3;

/// The share of a query's information a memory's words cover, and the
/// terms it matched:
///
/// ```text
/// term_share = Σ_{t ∈ query, t matched} idf(t) / Σ_{t ∈ query} idf(t)
/// ```
///
/// `query` holds each query term with its [`term_idf`] (terms no memory
/// holds included: the memory cannot answer what it does not mention);
/// `words` are the memory's words ([`term_matches`] decides a match). 0
/// for a query without terms.
pub fn term_share(query: &[(String, f64)], words: &[String]) -> (f64, Vec<String>) {
    let total: f64 = query.iter().map(|(_, idf)| idf.max(0.0)).sum();
    let matched: Vec<&(String, f64)> = query
        .iter()
        .filter(|(t, _)| words.iter().any(|w| term_matches(t, w)))
        .collect();
    if total <= 0.0 {
        return (0.0, Vec::new());
    }
    let share: f64 = matched.iter().map(|(_, idf)| idf.max(0.0)).sum::<f64>() / total;
    (
        share.clamp(0.0, 1.0),
        matched.into_iter().map(|(t, _)| t.clone()).collect(),
    )
}

/// The share of a query's information carried by terms no memory in the
/// store holds:
///
/// ```text
/// unknown_share = Σ_{t ∈ query, n_t = 0} idf(t) / Σ_{t ∈ query} idf(t)
/// ```
///
/// `terms` holds each query term's [`term_idf`] and `n_t`, the memories
/// holding it. A question about something never stored is mostly made of
/// words the store has never seen; one about something stored, even in
/// other words, mostly of words it holds somewhere. 0 for a query without
/// terms.
pub fn unknown_share(terms: &[(f64, f64)]) -> f64 {
    let total: f64 = terms.iter().map(|(idf, _)| idf.max(0.0)).sum();
    if total.is_nan() || total <= 0.0 {
        return 0.0;
    }
    let unknown: f64 = terms
        .iter()
        .filter(|(_, n)| *n <= 0.0)
        .map(|(idf, _)| idf.max(0.0))
        .sum();
    (unknown / total).clamp(0.0, 1.0)
}

/// Stores of this many memories or fewer have too few words for a word
/// they lack to say anything: [`weighted_unknown_share`] is 0 there.
pub const UNKNOWN_STORE_ROWS: f64 = 50.0;

/// [`unknown_share`] weighed by how much a store of `rows` memories can
/// say by lacking a word:
///
/// ```text
/// weighted = unknown_share · max(0, 1 − K / N)      K = UNKNOWN_STORE_ROWS
/// ```
///
/// In a store of a few memories almost every word is unknown, relevant
/// question or not, so the weight is 0 up to `K` memories (the relevance
/// is then exactly that of the model without it) and nears 1 as the store
/// grows (0.95 at 1,000 memories).
pub fn weighted_unknown_share(share: f64, rows: f64) -> f64 {
    let weight = match rows > UNKNOWN_STORE_ROWS {
        true => 1.0 - UNKNOWN_STORE_ROWS / rows,
        false => 0.0,
    };
    (finite_or_zero(share).clamp(0.0, 1.0) * weight).clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn relevance_is_a_probability_that_grows_with_each_piece_of_evidence() {
        let at = |cosine, term_share| {
            relevance(&Evidence {
                cosine: Some(cosine),
                term_share,
                unknown_share: 0.0,
            })
        };
        for (c, s) in [(-1.0, 0.0), (0.0, 0.5), (1.0, 1.0)] {
            let r = at(c, s);
            assert!((0.0..=1.0).contains(&r), "{r}");
        }
        assert!(at(0.6, 0.0) > at(0.3, 0.0));
        assert!(at(0.3, 0.8) > at(0.3, 0.2));
        // An unrelated memory (low cosine, no word shared) is below the
        // floor; a close paraphrase (high cosine, no word shared) and an
        // exact keyword match are above it.
        assert!(at(0.05, 0.0) < RELEVANCE_FLOOR);
        assert!(at(0.7, 0.0) > RELEVANCE_FLOOR);
        assert!(at(0.45, 1.0) > RELEVANCE_FLOOR);
        // Nonsense counts as no evidence, never as a panic or NaN.
        let nan = at(f64::NAN, f64::INFINITY);
        assert!(nan.is_finite() && nan < RELEVANCE_FLOOR);
    }

    #[test]
    fn without_a_cosine_the_terms_decide() {
        let at = |term_share| {
            relevance(&Evidence {
                cosine: None,
                term_share,
                unknown_share: 0.0,
            })
        };
        assert!(at(1.0) > at(0.5));
        assert!(at(0.0) < RELEVANCE_FLOOR);
        assert!(at(1.0) > RELEVANCE_FLOOR);
    }

    #[test]
    fn a_model_reads_from_five_numbers() {
        let m: RelevanceModel = "-1,2,3,-4,5".parse().unwrap();
        assert_eq!((m.bias, m.cosine, m.terms), (-1.0, 2.0, 3.0));
        assert_eq!((m.terms_only_bias, m.terms_only), (-4.0, 5.0));
        assert_eq!(m.unknown, 0.0, "five numbers: no unknown-share weight");
        let m: RelevanceModel = "-1,2,3,-4,5,-6".parse().unwrap();
        assert_eq!(m.unknown, -6.0);
        assert!("1,2".parse::<RelevanceModel>().is_err());
        assert!("1,2,3,4,5,6,7".parse::<RelevanceModel>().is_err());
        assert!("a,b,c,d,e".parse::<RelevanceModel>().is_err());
        assert_eq!(RelevanceModel::default(), FITTED);
    }

    #[test]
    fn a_question_of_unknown_words_is_less_relevant_and_no_unknown_word_changes_nothing() {
        let at = |cosine, unknown_share| {
            relevance(&Evidence {
                cosine,
                term_share: 0.2,
                unknown_share,
            })
        };
        for cosine in [Some(0.4), None] {
            assert!(at(cosine, 0.8) < at(cosine, 0.7), "{cosine:?}");
            assert_eq!(at(cosine, UNKNOWN_SHARE_FREE), at(cosine, 0.0), "free");
            let without = RelevanceModel {
                unknown: 0.0,
                ..FITTED
            };
            let e = Evidence {
                cosine,
                term_share: 0.2,
                unknown_share: 0.0,
            };
            assert_eq!(relevance(&e), without.relevance(&e));
            assert!(at(cosine, f64::NAN).is_finite());
        }
    }

    #[test]
    fn unknown_share_weighs_the_terms_no_memory_holds_by_rarity() {
        // "cafeteria" (idf 6, in no memory), "close" (idf 2, in 30).
        let share = unknown_share(&[(6.0, 0.0), (2.0, 30.0)]);
        assert!((share - 0.75).abs() < 1e-12, "{share}");
        assert_eq!(unknown_share(&[(2.0, 30.0)]), 0.0);
        assert_eq!(unknown_share(&[(3.0, 0.0)]), 1.0);
        assert_eq!(unknown_share(&[]), 0.0);
        assert_eq!(unknown_share(&[(f64::NAN, 0.0)]), 0.0);
    }

    #[test]
    fn a_small_store_lacking_a_word_says_nothing() {
        assert_eq!(weighted_unknown_share(1.0, 3.0), 0.0);
        assert_eq!(weighted_unknown_share(1.0, UNKNOWN_STORE_ROWS), 0.0);
        assert!((weighted_unknown_share(1.0, 1000.0) - 0.95).abs() < 1e-12);
        assert!(weighted_unknown_share(0.5, 10_000.0) < 0.5);
        assert!(weighted_unknown_share(0.5, 10_000.0) > 0.49);
        assert_eq!(weighted_unknown_share(f64::NAN, 1000.0), 0.0);
    }

    #[test]
    fn rare_terms_weigh_more_and_unknown_terms_most() {
        assert!(term_idf(1000.0, 1.0) > term_idf(1000.0, 500.0));
        assert!(term_idf(1000.0, 0.0) > term_idf(1000.0, 1.0));
        assert!(term_idf(1000.0, 1000.0) > 0.0, "never zero");
        assert!(term_idf(0.0, 0.0) > 0.0, "an empty store");
        assert_eq!(term_idf(10.0, 50.0), term_idf(10.0, 10.0), "n ≤ N");
    }

    #[test]
    fn term_share_weighs_matched_terms_by_rarity() {
        let query = vec![("cafeteria".to_string(), 8.0), ("close".to_string(), 2.0)];
        let (share, matched) = term_share(&query, &words("the office doors close at six"));
        assert!((share - 0.2).abs() < 1e-12);
        assert_eq!(matched, ["close"]);
        let (share, _) = term_share(&query, &words("cafeteria closes at 3"));
        assert!((share - 1.0).abs() < 1e-12, "closes matches close");
        assert_eq!(term_share(&query, &[]), (0.0, vec![]));
        assert_eq!(term_share(&[], &words("anything")), (0.0, vec![]));
    }

    #[test]
    fn terms_match_their_inflections_only() {
        assert!(term_matches("deploy", "deploys"));
        assert!(term_matches("containers", "container"));
        assert!(term_matches("close", "closing"));
        assert!(term_matches("closes", "closed"));
        assert!(!term_matches("port", "portal"));
        assert!(!term_matches("is", "i"), "too short to stem");
        assert!(!term_matches("deploy", "deployment"));
        assert_eq!(stem("uses"), "use");
    }
}
