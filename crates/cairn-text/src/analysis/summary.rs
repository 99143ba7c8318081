//! Extractive summaries and titles: whole sentences picked from a text, by
//! how central they are, never rewritten and never cut.
//!
//! The caller splits the text (see [`super::sentences`]) and embeds each
//! sentence (unit-norm vectors); this module only does the arithmetic.
//!
//! **Score** of sentence *i* (0-based) among *n*:
//!
//! ```text
//! score(i) = cos(vᵢ, c) + POSITION_WEIGHT / (1 + i)
//! c        = (Σ vⱼ) / ‖Σ vⱼ‖            (the centroid of all sentences)
//! ```
//!
//! The cosine says how central a sentence is to the whole text; the
//! position prior favours the opening sentences, where writers and speakers
//! state their point (+0.15 for the first, +0.075 for the second, +0.05 for
//! the third, … fading to nothing).
//!
//! **Selection**: sentences in decreasing score (ties: the earlier first);
//! one whose cosine to a sentence already picked is ≥ [`REDUNDANCY`] is
//! skipped; one that would take the summary past its target is skipped (a
//! shorter one further down may still fit); the rest are taken. The summary
//! lists the picked sentences in their original order, joined by a space.
//! A non-empty input always gets at least one sentence: if none fits, the
//! best-scored one alone (the caller checks [`Summary::fits`]).

use serde::Serialize;

use crate::tokens::Tokenizer;
use crate::{Error, Result};

/// Weight of the position prior `POSITION_WEIGHT / (1 + i)`.
pub const POSITION_WEIGHT: f32 = 0.15;

/// Cosine at or above which a sentence repeats one already picked.
pub const REDUNDANCY: f32 = 0.9;

/// Smallest summary ratio.
pub const MIN_RATIO: f64 = 0.05;
/// Largest summary ratio.
pub const MAX_RATIO: f64 = 0.5;
/// The summary ratio when none is given.
pub const DEFAULT_RATIO: f64 = 0.15;

/// Longest title, in characters.
pub const TITLE_MAX_CHARS: usize = 60;

/// How long a summary may be.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Target {
    /// A share of the original's characters (see [`Target::ratio`]).
    Ratio(f64),
    /// At most this many tokens, counted with the tokenizer.
    Tokens {
        /// Most tokens of the summary text.
        budget: usize,
        /// The encoding to count with.
        tokenizer: Tokenizer,
    },
}

impl Default for Target {
    fn default() -> Self {
        Target::Ratio(DEFAULT_RATIO)
    }
}

impl Target {
    /// A ratio target, checked to lie in [`MIN_RATIO`]..=[`MAX_RATIO`].
    pub fn ratio(ratio: f64) -> Result<Target> {
        if (MIN_RATIO..=MAX_RATIO).contains(&ratio) {
            Ok(Target::Ratio(ratio))
        } else {
            Err(Error::invalid(format!(
                "summary ratio {ratio} is out of range: it must lie between {MIN_RATIO} and {MAX_RATIO}"
            )))
        }
    }
}

/// An extractive summary.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// Indices of the picked sentences, ascending.
    pub picked: Vec<usize>,
    /// The picked sentences in their order, joined by a space.
    pub text: String,
    /// Characters of the whole text (all sentences joined by a space).
    pub original_chars: usize,
    /// Characters of [`Summary::text`].
    pub summary_chars: usize,
    /// Tokens of the whole text, for a token target.
    pub original_tokens: Option<usize>,
    /// Exact tokens of [`Summary::text`], for a token target.
    pub summary_tokens: Option<usize>,
    /// Whether the summary is within its target (false only when even the
    /// best sentence alone is longer).
    pub fits: bool,
}

/// `a · b` (the cosine of unit vectors).
fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The unit-norm mean of `vectors` (zero if they cancel out).
pub fn centroid<V: AsRef<[f32]>>(vectors: &[V]) -> Vec<f32> {
    let dim = vectors.first().map_or(0, |v| v.as_ref().len());
    let mut c = vec![0f32; dim];
    for v in vectors {
        for (s, x) in c.iter_mut().zip(v.as_ref()) {
            *s += x;
        }
    }
    let norm = dot(&c, &c).sqrt();
    if norm > 0.0 {
        c.iter_mut().for_each(|x| *x /= norm);
    }
    c
}

/// Each sentence's score (see the module doc).
pub fn scores<V: AsRef<[f32]>>(vectors: &[V]) -> Vec<f32> {
    let c = centroid(vectors);
    vectors
        .iter()
        .enumerate()
        .map(|(i, v)| dot(v.as_ref(), &c) + POSITION_WEIGHT / (1.0 + i as f32))
        .collect()
}

fn check<V: AsRef<[f32]>>(sentences: &[&str], vectors: &[V]) -> Result<()> {
    if sentences.len() != vectors.len() {
        return Err(Error::invalid(format!(
            "{} sentences but {} vectors: one vector per sentence is needed",
            sentences.len(),
            vectors.len()
        )));
    }
    Ok(())
}

/// Pick whole sentences of a text up to `target` (see the module doc).
/// `vectors[i]` is the unit-norm embedding of `sentences[i]`.
pub fn summarise<V: AsRef<[f32]>>(
    sentences: &[&str],
    vectors: &[V],
    target: Target,
) -> Result<Summary> {
    check(sentences, vectors)?;
    if let Target::Ratio(r) = target {
        Target::ratio(r)?;
    }
    let chars: Vec<usize> = sentences.iter().map(|s| s.chars().count()).collect();
    let original_chars = chars.iter().sum::<usize>() + sentences.len().saturating_sub(1);
    // Cost of a sentence in the summary, and the limit on their sum: for
    // tokens, that of the sentence after a space (the join), an upper bound
    // of its share that the exact count below confirms.
    let (costs, limit, tokenizer): (Vec<usize>, usize, Option<Tokenizer>) = match target {
        Target::Ratio(r) => (
            chars.iter().map(|c| c + 1).collect(),
            // The first sentence has no space before it.
            ((r * original_chars as f64).ceil() as usize) + 1,
            None,
        ),
        Target::Tokens { budget, tokenizer } => (
            sentences
                .iter()
                .map(|s| tokenizer.count(&format!(" {s}")))
                .collect(),
            budget,
            Some(tokenizer),
        ),
    };
    let score = scores(vectors);
    let mut order: Vec<usize> = (0..sentences.len()).collect();
    order.sort_by(|a, b| score[*b].total_cmp(&score[*a]).then(a.cmp(b)));
    let mut picked: Vec<usize> = Vec::new();
    let mut used = 0;
    for &i in &order {
        if used + costs[i] > limit {
            continue;
        }
        if picked
            .iter()
            .any(|&p| dot(vectors[i].as_ref(), vectors[p].as_ref()) >= REDUNDANCY)
        {
            continue;
        }
        used += costs[i];
        picked.push(i);
    }
    let mut fits = true;
    if picked.is_empty() {
        if let Some(&best) = order.first() {
            picked.push(best);
            fits = false;
        }
    }
    // Drop the lowest-scored picks while the exact count is over (the
    // per-sentence costs are not always additive).
    let by_score = |picked: &mut Vec<usize>| {
        picked.sort_by(|a, b| score[*b].total_cmp(&score[*a]).then(a.cmp(b)))
    };
    let mut summary_tokens = None;
    if let Some(tokenizer) = tokenizer {
        by_score(&mut picked);
        loop {
            let mut ordered = picked.clone();
            ordered.sort_unstable();
            let n = tokenizer.count(&join(sentences, &ordered));
            summary_tokens = Some(n);
            if n <= limit {
                break;
            }
            if picked.len() == 1 {
                fits = false;
                break;
            }
            picked.pop();
        }
    }
    picked.sort_unstable();
    let text = join(sentences, &picked);
    let summary_chars = text.chars().count();
    let original_tokens =
        tokenizer.map(|t| t.count(&join(sentences, &(0..sentences.len()).collect::<Vec<_>>())));
    Ok(Summary {
        picked,
        text,
        original_chars,
        summary_chars,
        original_tokens,
        summary_tokens,
        fits,
    })
}

fn join(sentences: &[&str], picked: &[usize]) -> String {
    let mut out = String::new();
    for &i in picked {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(sentences[i]);
    }
    out
}

/// A short title (at most [`TITLE_MAX_CHARS`] characters) taken from the
/// most central sentence (highest score, see the module doc): its Markdown
/// markers (`#`, `-`, `1.`, `>`) removed, then its words up to its first
/// clause boundary (`,` `;` `:` `(` ` - ` ` — ` or the sentence's end) if
/// that is at least [`TITLE_MIN_WORDS`] words and fits, else as many whole
/// words as fit followed by `…`; trailing punctuation dropped and the first
/// letter capitalised. Empty for no sentences.
pub fn title<V: AsRef<[f32]>>(sentences: &[&str], vectors: &[V]) -> Result<String> {
    check(sentences, vectors)?;
    let score = scores(vectors);
    let best = (0..sentences.len()).max_by(|a, b| score[*a].total_cmp(&score[*b]).then(b.cmp(a)));
    Ok(best.map_or_else(String::new, |i| title_of(sentences[i])))
}

/// Fewest words a clause must have to be a title on its own.
pub const TITLE_MIN_WORDS: usize = 3;

/// The title [`title`] makes of one sentence.
pub fn title_of(sentence: &str) -> String {
    let s = strip_markers(sentence);
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    let clause_end = [",", ";", ":", "(", " - ", " — ", " – "]
        .iter()
        .filter_map(|p| s.find(p))
        .min()
        .unwrap_or(s.len());
    let clause = tidy(&s[..clause_end]);
    let words = clause.split_whitespace().count();
    let candidate = if clause.chars().count() <= TITLE_MAX_CHARS && words >= TITLE_MIN_WORDS {
        clause
    } else if s.chars().count() <= TITLE_MAX_CHARS {
        tidy(&s)
    } else {
        let mut out = String::new();
        for w in s.split_whitespace() {
            let len = out.chars().count() + usize::from(!out.is_empty()) + w.chars().count();
            if len + 1 > TITLE_MAX_CHARS {
                break;
            }
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(w);
        }
        if out.is_empty() {
            // One very long word.
            out = s.chars().take(TITLE_MAX_CHARS - 1).collect();
        }
        format!("{}…", tidy(&out))
    };
    capitalise(&candidate)
}

fn strip_markers(s: &str) -> &str {
    let mut s = s.trim();
    loop {
        let before = s;
        s = s.trim_start_matches(['#', '>']).trim_start();
        for m in ["- ", "* ", "+ "] {
            if let Some(rest) = s.strip_prefix(m) {
                s = rest.trim_start();
            }
        }
        let digits = s.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && (s[digits..].starts_with(". ") || s[digits..].starts_with(") ")) {
            s = s[digits + 2..].trim_start();
        }
        if s == before {
            return s;
        }
    }
}

fn tidy(s: &str) -> String {
    s.trim()
        .trim_end_matches(|c: char| c.is_ascii_punctuation() && c != ')' && c != '"')
        .trim()
        .to_string()
}

fn capitalise(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(v: &[f32]) -> Vec<f32> {
        let n = dot(v, v).sqrt();
        v.iter().map(|x| x / n).collect()
    }

    /// Ten sentences: 0–7 about topic A (axis 0, with small variations), 8
    /// and 9 off-topic (axis 1, axis 2); 3 repeats 2.
    fn fixture() -> (Vec<String>, Vec<Vec<f32>>) {
        let sentences: Vec<String> = (0..10)
            .map(|i| format!("Sentence number {i} says something fairly long here."))
            .collect();
        let mut vectors = Vec::new();
        for i in 0..8 {
            // Topic A plus a detail of its own: cosines of 0.6 between them.
            let mut v = vec![0.0; 12];
            v[0] = 1.0;
            v[4 + i] = 0.8;
            vectors.push(unit(&v));
        }
        vectors[3] = vectors[2].clone();
        let mut off = vec![0.0; 12];
        off[1] = 1.0;
        vectors.push(off.clone());
        off[1] = 0.0;
        off[2] = 1.0;
        vectors.push(off);
        (sentences, vectors)
    }

    #[test]
    fn ratio_bounds_are_checked() {
        assert!(Target::ratio(0.05).is_ok());
        assert!(Target::ratio(0.5).is_ok());
        for bad in [0.0, 0.049, 0.51, 1.0, f64::NAN] {
            let err = Target::ratio(bad).unwrap_err().to_string();
            assert!(err.contains("0.05") && err.contains("0.5"), "{err}");
        }
        let (s, v) = fixture();
        let s: Vec<&str> = s.iter().map(String::as_str).collect();
        assert!(summarise(&s, &v, Target::Ratio(0.9)).is_err());
        assert_eq!(Target::default(), Target::Ratio(DEFAULT_RATIO));
    }

    #[test]
    fn picks_central_early_sentences_in_order_without_repeats() {
        let (s, v) = fixture();
        let s: Vec<&str> = s.iter().map(String::as_str).collect();
        let sum = summarise(&s, &v, Target::ratio(0.3).unwrap()).unwrap();
        // 30 % of ~540 characters: three sentences of 53.
        assert_eq!(sum.picked.len(), 3, "{sum:?}");
        assert!(sum.picked.windows(2).all(|w| w[0] < w[1]));
        assert!(sum.picked.contains(&0), "the lead sentence: {sum:?}");
        assert!(!sum.picked.contains(&8) && !sum.picked.contains(&9));
        assert!(!(sum.picked.contains(&2) && sum.picked.contains(&3)));
        assert!(sum.summary_chars <= (0.3 * sum.original_chars as f64).ceil() as usize);
        assert_eq!(sum.text, join(&s, &sum.picked));
        assert!(sum.fits);
        assert_eq!(sum.original_chars, s.join(" ").chars().count());
    }

    #[test]
    fn token_target_is_exact_and_always_gives_a_sentence() {
        let (s, v) = fixture();
        let s: Vec<&str> = s.iter().map(String::as_str).collect();
        for budget in [0, 5, 12, 13, 30, 50, 1000] {
            let target = Target::Tokens {
                budget,
                tokenizer: Tokenizer::Cl100kBase,
            };
            let sum = summarise(&s, &v, target).unwrap();
            let n = crate::tokens::count_tokens(&sum.text);
            assert_eq!(sum.summary_tokens, Some(n));
            assert!(!sum.picked.is_empty());
            assert_eq!(sum.fits, n <= budget, "budget {budget}: {sum:?}");
            if budget >= 13 {
                assert!(sum.fits);
            }
        }
        let all = summarise(
            &s,
            &v,
            Target::Tokens {
                budget: 1000,
                tokenizer: Tokenizer::O200kBase,
            },
        )
        .unwrap();
        // Everything but the repeat.
        assert_eq!(all.picked.len(), 9);
        assert_eq!(
            all.original_tokens,
            Some(Tokenizer::O200kBase.count(&s.join(" ")))
        );
    }

    #[test]
    fn empty_input_and_mismatched_vectors() {
        let none: [Vec<f32>; 0] = [];
        let sum = summarise(&[], &none, Target::default()).unwrap();
        assert!(sum.picked.is_empty() && sum.text.is_empty());
        assert!(summarise(&["a"], &none, Target::default()).is_err());
        assert_eq!(title(&[], &none).unwrap(), "");
        // One tiny sentence: too long for any ratio, still given.
        let one = summarise(&["Hello there."], &[vec![1.0]], Target::default()).unwrap();
        assert_eq!(one.text, "Hello there.");
    }

    #[test]
    fn titles_are_short_extracts() {
        let cases = [
            (
                "We migrate the orders database to PostgreSQL, starting Monday.",
                "We migrate the orders database to PostgreSQL",
            ),
            ("## deploy checklist", "Deploy checklist"),
            ("- Fix: the CSS build", "Fix: the CSS build"),
            (
                "The staging cluster keeps running out of disk space every single night after the backup job",
                "The staging cluster keeps running out of disk space every…",
            ),
            ("Yes, do it.", "Yes, do it"),
            (&"x".repeat(100), &format!("X{}…", "x".repeat(58))),
        ];
        for (sentence, want) in cases {
            let t = title_of(sentence);
            assert_eq!(t, want, "{sentence:?}");
            assert!(t.chars().count() <= TITLE_MAX_CHARS);
        }
        let (s, v) = fixture();
        let s: Vec<&str> = s.iter().map(String::as_str).collect();
        let t = title(&s, &v).unwrap();
        assert!(t.starts_with("Sentence number 0"), "{t}");
    }
}
