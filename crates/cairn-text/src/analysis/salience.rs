//! How much a message carries that is worth remembering, from 0 (a
//! greeting, "ok", "lol") to 1 (a decision naming specific things, or an
//! explicit "remember that …").
//!
//! Ingestion combines it with novelty: `importance = 0.6·novelty +
//! 0.4·salience`.

use super::entities::{Entity, EntityKind};
use super::intent::{has_phrase, word_line, words, Intent};

/// Weight of the entities component.
const W_ENTITIES: f64 = 0.30;
/// Weight of a decision or preference.
const W_COMMITMENT: f64 = 0.20;
/// Weight of an explicit cue to remember.
const W_CUE: f64 = 0.20;
/// Weight of a concrete fact: an amount, a date or a version.
const W_FACTS: f64 = 0.10;
/// Weight of the amount of content.
const W_CONTENT: f64 = 0.20;

/// Content words at which the content component saturates.
const CONTENT_SATURATION: f64 = 12.0;

/// Phrases that ask for something to be kept.
const CUES: &[&str] = &[
    "remember",
    "don't forget",
    "do not forget",
    "note that",
    "keep in mind",
    "bear in mind",
    "for future reference",
    "for the record",
    "important",
    "fyi",
    "from now on",
    "always",
    "never",
    "make sure",
];

/// Words that carry no content of their own: function words and chat
/// fillers.
const FILLER: &[&str] = &[
    "a", "about", "all", "am", "an", "and", "any", "are", "as", "at", "be", "been", "but", "by",
    "can", "could", "did", "do", "does", "for", "from", "had", "has", "have", "he", "her", "him",
    "his", "how", "i", "i'm", "if", "in", "is", "it", "it's", "its", "just", "me", "my", "no",
    "not", "of", "on", "or", "our", "she", "so", "that", "the", "their", "them", "then", "there",
    "they", "this", "to", "too", "up", "us", "was", "we", "were", "what", "when", "where", "which",
    "who", "why", "will", "with", "would", "you", "your", "ok", "okay", "k", "kk", "lol", "lmao",
    "haha", "hah", "hmm", "um", "uh", "yeah", "yes", "yep", "yup", "no", "nope", "sure", "cool",
    "nice", "great", "thanks", "thank", "thx", "ty", "hi", "hello", "hey", "bye", "cheers", "oh",
    "ah", "wow", "right", "alright", "got", "it", "see", "np", "welcome", "please", "pls", "good",
    "morning", "night", "awesome", "perfect", "fine", "well", "really", "very", "much", "lot",
];

/// The salience of a message in [0, 1]: a weighted sum of five components,
/// each in [0, 1], with weights summing to 1:
///
/// - 0.30 · entities: `min(1, Σ entity salience / 2)`, so two strong
///   entities saturate it;
/// - 0.20 · commitment: 1 for a [`Intent::Decision`] or a
///   [`Intent::Preference`], else 0;
/// - 0.20 · cue: 1 if the text asks to be kept ("remember", "don't forget",
///   "note that", "keep in mind", "from now on", …);
/// - 0.10 · facts: 1 if an amount, a date or a version is named;
/// - 0.20 · content: `min(1, content words / 12)`, content words being
///   those not in a list of function words and chat fillers.
///
/// A message whose only intent is [`Intent::Greeting`] is scaled by 0.2.
pub fn salience(text: &str, entities: &[Entity], intents: &[Intent]) -> f64 {
    let w = words(text);
    let entity_sum: f64 = entities.iter().map(|e| f64::from(e.salience)).sum();
    let entity_part = (entity_sum / 2.0).min(1.0);
    let commitment = if intents.contains(&Intent::Decision) || intents.contains(&Intent::Preference)
    {
        1.0
    } else {
        0.0
    };
    let line = word_line(&w);
    let cue = if CUES.iter().any(|c| has_phrase(&line, c)) {
        1.0
    } else {
        0.0
    };
    let facts = if entities.iter().any(|e| {
        matches!(
            e.kind,
            EntityKind::Amount | EntityKind::Date | EntityKind::Version
        )
    }) {
        1.0
    } else {
        0.0
    };
    let content_words = w
        .iter()
        .filter(|x| x.chars().count() > 1 && !FILLER.contains(&x.as_str()))
        .count();
    let content = (content_words as f64 / CONTENT_SATURATION).min(1.0);
    let score = W_ENTITIES * entity_part
        + W_COMMITMENT * commitment
        + W_CUE * cue
        + W_FACTS * facts
        + W_CONTENT * content;
    let score = if intents == [Intent::Greeting] {
        score * 0.2
    } else {
        score
    };
    score.clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::entities::extract_entities;
    use crate::analysis::intent::classify_intents;

    fn score(text: &str) -> f64 {
        salience(text, &extract_entities(text), &classify_intents(text))
    }

    #[test]
    fn weights_sum_to_one() {
        let sum = W_ENTITIES + W_COMMITMENT + W_CUE + W_FACTS + W_CONTENT;
        assert!((sum - 1.0).abs() < 1e-12);
    }

    #[test]
    fn fillers_are_near_zero() {
        for text in [
            "ok",
            "lol",
            "thanks!",
            "Hi!",
            "ok thanks",
            "yeah sure",
            "",
            "👍",
        ] {
            let s = score(text);
            assert!(s < 0.05, "{text:?}: {s}");
        }
    }

    #[test]
    fn orders_messages_by_what_they_carry() {
        // From most to least salient.
        let ordered = [
            "Remember: we decided to deploy v2.3.0 to eu-west-1 on 2024-03-01, budget $5,000.",
            "We decided to use PostgreSQL instead of SQLite for the job queue.",
            "The build failed with E0382 in src/engine.rs.",
            "I prefer short answers with code examples.",
            "what time is it",
            "ok",
        ];
        let scores: Vec<f64> = ordered.iter().map(|t| score(t)).collect();
        for pair in scores.windows(2) {
            assert!(pair[0] > pair[1], "{ordered:?}\n{scores:?}");
        }
        assert!(scores.iter().all(|s| (0.0..=1.0).contains(s)));
    }

    #[test]
    fn stays_within_bounds() {
        let heavy = "Remember, from now on always use E0382 E0499 ENOENT /a/b.rs /c/d.rs \
                     v1.2.3 $5 10% Alice Bob — we decided and I prefer it. "
            .repeat(20);
        let s = score(&heavy);
        assert!(s <= 1.0 && s > 0.9, "{s}");
    }
}
