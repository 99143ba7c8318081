//! Conflict detection: whether a newer statement changes what an older
//! one says about the same subject.
//!
//! Not by cosine alone: two statements conflict when they share their
//! subject (the same key terms, or vectors close enough to say so) and
//! either a value slot was replaced ([`super::values`]: a number, name,
//! host, date… or the polarity) or the newer one carries a correction cue
//! ("now", "moved", "no longer", "instead", "update:"…) and names a value
//! the older does not. Cosine only decides how much shared subject is
//! needed. Pure and offline; the engine (`cairn_core::engine`) applies the
//! conflict policy to what this finds.

use std::collections::BTreeSet;

use super::values::{compare_values, value_slots, ValueChange};

/// Cosine at or above which two statements are about the same subject
/// whatever words they share (the contradiction threshold of
/// `cairn_core::rank::CONTRADICTION_THRESHOLD`).
pub const SAME_SUBJECT_COSINE: f32 = 0.75;

/// Cosine at or above which two statements that share a key term are
/// about the same subject.
pub const SHARED_TERM_COSINE: f32 = 0.55;

/// Cosine at or above which two statements with a replaced value conflict
/// though they share no value: below it, two such statements are more
/// often siblings (two services' ports, two error codes' meanings) than a
/// value and its correction.
pub const NO_SHARED_VALUE_COSINE: f32 = 0.85;

/// Cosine at or above which a correction cue in the newer statement is
/// enough, with a shared key term, to call the pair a conflict.
pub const CUE_COSINE: f32 = 0.5;

/// Words that say a statement corrects or updates an earlier one.
const CUE_WORDS: &[&str] = &[
    "now",
    "moved",
    "moving",
    "changed",
    "instead",
    "switched",
    "switching",
    "anymore",
    "actually",
    "correction",
    "replaced",
    "renamed",
    "migrated",
    "postponed",
    "rescheduled",
    "became",
    "new",
    "update",
    "updated",
    "nowadays",
    "currently",
    "today",
    "longer",
    "left",
    "quit",
    "retired",
    "upgraded",
    "downgraded",
    "cancelled",
    "canceled",
];

/// Phrases that say the same (matched in the lower-cased text).
const CUE_PHRASES: &[&str] = &[
    "no longer",
    "pushed back",
    "moved to",
    "from now on",
    "these days",
    "not anymore",
    "any more",
    "as of",
    "update:",
];

/// Words too common to say what a statement is about.
const STOP: &[&str] = &[
    "the", "a", "an", "and", "or", "but", "is", "are", "was", "were", "be", "been", "being", "has",
    "have", "had", "do", "does", "did", "of", "in", "on", "at", "to", "for", "from", "by", "with",
    "as", "it", "its", "this", "that", "these", "those", "there", "here", "i", "we", "you", "he",
    "she", "they", "my", "our", "your", "his", "her", "their", "me", "us", "them", "not", "no",
    "so", "if", "then", "than", "also", "just", "very", "will", "would", "can", "could", "should",
    "now", "new", "all", "any", "some", "what", "which", "who",
];

/// The correction cue of `text`, if it has one (the first found).
pub fn correction_cue(text: &str) -> Option<&'static str> {
    let lower = text.to_lowercase();
    if let Some(p) = CUE_PHRASES.iter().find(|p| lower.contains(*p)) {
        return Some(p);
    }
    let words: BTreeSet<&str> = lower
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .collect();
    CUE_WORDS.iter().find(|w| words.contains(*w)).copied()
}

/// The key terms of `text`: its lower-cased words of three letters or
/// more, stop words left out, crudely stemmed (a trailing `s` dropped).
pub fn key_terms(text: &str) -> BTreeSet<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric() && c != '-' && c != '_')
        .filter(|w| w.chars().count() >= 3 && !STOP.contains(w))
        .map(|w| w.strip_suffix('s').filter(|s| s.len() >= 3).unwrap_or(w))
        .map(str::to_string)
        .collect()
}

/// Why a newer statement conflicts with an older one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    /// What changed in the value slots, if anything did.
    pub change: Option<ValueChange>,
    /// The correction cue of the newer statement, if it has one.
    pub cue: Option<&'static str>,
    /// The key terms both share (the subject).
    pub shared: Vec<String>,
}

impl Conflict {
    /// One line a person can read: `changed value: 16 → 17; cue "now";
    /// same subject: atlas, database`.
    pub fn reason(&self) -> String {
        let mut parts = Vec::new();
        if let Some(c) = &self.change {
            parts.push(format!("changed value: {c}"));
        }
        if let Some(cue) = self.cue {
            parts.push(format!("correction cue \"{cue}\""));
        }
        if !self.shared.is_empty() {
            let shown: Vec<&str> = self.shared.iter().take(4).map(String::as_str).collect();
            parts.push(format!("same subject: {}", shown.join(", ")));
        }
        parts.join("; ")
    }
}

/// Whether `newer` conflicts with `older`, given the cosine of their
/// vectors:
///
/// ```text
/// same subject = cosine ≥ 0.75, or (a key term shared and cosine ≥ 0.55)
/// conflict     = same subject and a value replaced (one dropped and one
///                added, or the polarity flipped), and a value kept
///                (`PostgreSQL` in "PostgreSQL 16" → "PostgreSQL 17") or
///                cosine ≥ 0.85
///             or a correction cue in the newer, a key term shared,
///                cosine ≥ 0.5, and a value changed (or none on either side)
/// ```
///
/// A newer statement that only adds detail (keeps every value and adds
/// some) is no conflict.
pub fn detect_conflict(older: &str, newer: &str, cosine: f32) -> Option<Conflict> {
    let (a, b) = (key_terms(older), key_terms(newer));
    let shared: Vec<String> = a.intersection(&b).cloned().collect();
    let change = compare_values(older, newer);
    let cue = correction_cue(newer).filter(|_| correction_cue(older).is_none());
    let same_subject =
        cosine >= SAME_SUBJECT_COSINE || (!shared.is_empty() && cosine >= SHARED_TERM_COSINE);
    let kept_value = {
        let (va, vb) = (value_slots(older), value_slots(newer));
        va.values
            .iter()
            .any(|v| vb.values.contains(v) || vb.words.contains(v))
    };
    let replaced = change.as_ref().is_some_and(ValueChange::is_replacement)
        && (kept_value || cosine >= NO_SHARED_VALUE_COSINE);
    let cued = cue.is_some()
        && !shared.is_empty()
        && cosine >= CUE_COSINE
        && change
            .as_ref()
            .is_none_or(|c| !c.added.is_empty() || c.negation);
    ((same_subject && replaced) || cued).then_some(Conflict {
        change,
        cue,
        shared,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replaced_value_on_the_same_subject_conflicts() {
        let c = detect_conflict(
            "The atlas production database is PostgreSQL 16 on db-prod-3",
            "The atlas production database is PostgreSQL 17 on db-prod-5",
            0.967,
        )
        .unwrap();
        assert!(c.change.unwrap().is_replacement());
        assert!(c.shared.contains(&"atla".to_string()) || c.shared.contains(&"atlas".into()));
    }

    #[test]
    fn a_correction_cue_with_a_shared_term_conflicts_in_other_words() {
        let c = detect_conflict(
            "Maria is the lead of the payments team",
            "Leadership changed. Tomas is now the lead for payments",
            0.62,
        )
        .unwrap();
        assert_eq!(c.cue, Some("now"));
        assert!(c.reason().contains("correction cue"), "{}", c.reason());
    }

    #[test]
    fn unrelated_or_elaborating_statements_do_not_conflict() {
        // Different subjects, though a value differs.
        assert_eq!(
            detect_conflict(
                "Alice likes green tea",
                "Deploys run from GitHub Actions",
                0.2
            ),
            None
        );
        // More detail, nothing replaced.
        assert_eq!(
            detect_conflict(
                "atlas staging runs on a Hetzner box",
                "atlas staging runs on a Hetzner box in Falkenstein",
                0.91
            ),
            None
        );
        // A restatement.
        assert_eq!(
            detect_conflict("We deploy with Kamal", "Deployments use Kamal", 0.9),
            None
        );
    }

    #[test]
    fn the_same_value_on_a_distant_subject_is_no_conflict() {
        // A replaced value, but too far apart and nothing shared.
        assert_eq!(
            detect_conflict(
                "Alice owns the billing service",
                "Bob reviews frontend code",
                0.6
            ),
            None
        );
    }

    #[test]
    fn cues_are_words_and_phrases() {
        assert_eq!(
            correction_cue("The launch was pushed back a week"),
            Some("pushed back")
        );
        assert_eq!(correction_cue("I no longer use vim"), Some("no longer"));
        assert_eq!(correction_cue("Update: the key rotated"), Some("update:"));
        assert_eq!(correction_cue("We use Rust instead"), Some("instead"));
        assert_eq!(correction_cue("We use Rust"), None);
    }
}
