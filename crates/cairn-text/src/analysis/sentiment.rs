//! How positive or negative a message sounds, from −1 to 1.
//!
//! The score is VADER's compound score (Hutto & Gilbert, 2014), computed by
//! the `vader_sentiment` crate (MIT) with its published lexicon of about
//! 7,500 rated words, emoticons and emoji. VADER handles negation ("not
//! good"), intensifiers ("very", "extremely"), "but" (the clause after it
//! weighs more), capitals and `!`. It knows English only; text in another
//! language scores near 0.

use vader_sentiment::SentimentIntensityAnalyzer;

/// The sentiment of `text` in [−1, 1]: below 0 negative, above 0 positive,
/// 0 for neutral or empty text. Messages scoring within ±0.05 are
/// conventionally neutral.
pub fn sentiment(text: &str) -> f32 {
    if !text.chars().any(|c| !c.is_whitespace()) {
        return 0.0;
    }
    let analyzer = SentimentIntensityAnalyzer::new();
    let scores = analyzer.polarity_scores(text);
    let compound = scores.get("compound").copied().unwrap_or(0.0);
    if compound.is_finite() {
        compound.clamp(-1.0, 1.0) as f32
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_polarity() {
        // (text, expected sign: 1 positive, -1 negative, 0 neutral)
        let table: &[(&str, i8)] = &[
            ("This is great, thank you so much!", 1),
            ("I love the new design", 1),
            ("The fix works perfectly :)", 1),
            ("This is terrible and I hate it", -1),
            ("The build is broken again, awful", -1),
            ("That was not good", -1),
            ("It's not bad at all", 1),
            ("The meeting is at 3pm in room 4", 0),
            ("The file lives in src/lib.rs", 0),
            ("", 0),
            ("   ", 0),
        ];
        for (text, sign) in table {
            let s = sentiment(text);
            assert!((-1.0..=1.0).contains(&s), "{text:?}: {s}");
            match sign {
                1 => assert!(s > 0.05, "{text:?} should be positive: {s}"),
                -1 => assert!(s < -0.05, "{text:?} should be negative: {s}"),
                _ => assert!(s.abs() <= 0.05, "{text:?} should be neutral: {s}"),
            }
        }
    }

    #[test]
    fn intensifiers_and_negation_move_the_score() {
        assert!(sentiment("very good") > sentiment("good"));
        assert!(sentiment("not good") < 0.0);
        assert!(sentiment("GOOD!!!") > sentiment("good"));
    }
}
