//! Value slots: the parts of a statement that carry its value — numbers,
//! versions, dates, amounts, names, hosts, paths, identifiers — and its
//! polarity (negated or not).
//!
//! Two texts can be near-identical as vectors (cosine ≥ 0.95) and still say
//! different things: "PostgreSQL 16 on db-prod-3" and "PostgreSQL 17 on
//! db-prod-5". Embeddings see the shared subject; these functions see the
//! changed value. Dedup (`cairn_core::engine`'s remember and ingest) merges
//! two texts only when [`compare_values`] finds no change, and conflict
//! detection ([`super::conflict`]) uses the change as its main signal.
//!
//! Pure and offline: text in, slots out; no model, no store.

use std::collections::BTreeSet;
use std::fmt;

/// Words that negate a statement. A statement with one and its
/// counterpart without say opposite things.
const NEGATIONS: &[&str] = &[
    "not",
    "no",
    "never",
    "none",
    "nobody",
    "nothing",
    "neither",
    "nor",
    "without",
    "cannot",
    "can't",
    "don't",
    "doesn't",
    "didn't",
    "isn't",
    "aren't",
    "wasn't",
    "weren't",
    "won't",
    "wouldn't",
    "shouldn't",
    "couldn't",
    "hasn't",
    "haven't",
    "hadn't",
    "mustn't",
    "nowhere",
];

/// Capitalised words that are not names: function words that begin
/// sentences, and discourse words ("Update:", "Now").
const NOT_NAMES: &[&str] = &[
    "a",
    "an",
    "the",
    "i",
    "we",
    "you",
    "he",
    "she",
    "it",
    "they",
    "my",
    "our",
    "your",
    "his",
    "her",
    "its",
    "their",
    "this",
    "that",
    "these",
    "those",
    "there",
    "here",
    "in",
    "on",
    "at",
    "for",
    "of",
    "to",
    "from",
    "by",
    "with",
    "and",
    "but",
    "or",
    "so",
    "if",
    "when",
    "then",
    "also",
    "now",
    "update",
    "note",
    "edit",
    "correction",
    "actually",
    "today",
    "yesterday",
    "tomorrow",
    "currently",
    "please",
    "yes",
    "ok",
    "okay",
    "after",
    "before",
    "since",
    "as",
    "all",
    "every",
    "each",
    "some",
    "our",
    "is",
    "are",
    "was",
    "were",
    "be",
    "do",
    "does",
    "what",
    "which",
    "who",
    "where",
    "why",
    "how",
    "let's",
    "i'm",
    "we're",
    "it's",
];

/// Number words, weekdays and months written in lower case: values too.
const VALUE_WORDS: &[&str] = &[
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "twenty",
    "thirty",
    "forty",
    "fifty",
    "hundred",
    "thousand",
    "million",
    "billion",
    "half",
    "double",
    "twice",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "january",
    "february",
    "march",
    "april",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// What a text's value slots are.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ValueSlots {
    /// The values, lower-cased: `16`, `db-prod-3`, `v1.2.0`, `2026-11-27`,
    /// `$40`, `/etc/app.toml`, `alice`, `falkenstein`…
    pub values: BTreeSet<String>,
    /// Every word of the text, lower-cased (to tell whether a capitalised
    /// name of one text appears in the other in any case).
    pub words: BTreeSet<String>,
    /// Whether the text is negated (holds a word of `NEGATIONS` or
    /// ends a verb in `n't`).
    pub negated: bool,
    /// Names a conversational turn uses in address ("Thanks, Maria!"),
    /// lower-cased: no value ([`turn_value_slots`]), and no subject.
    pub addressed: BTreeSet<String>,
}

/// The words of `text`: split on white space, surrounding punctuation
/// trimmed (inner punctuation kept: `db-prod-3`, `v1.2`, `/etc/x.toml`).
fn tokens(text: &str) -> impl Iterator<Item = &str> {
    text.split_whitespace().map(|t| {
        t.trim_matches(|c: char| {
            matches!(
                c,
                '.' | ','
                    | ';'
                    | ':'
                    | '!'
                    | '?'
                    | '"'
                    | '\''
                    | '('
                    | ')'
                    | '['
                    | ']'
                    | '{'
                    | '}'
                    | '`'
                    | '*'
                    | '“'
                    | '”'
                    | '‘'
                    | '’'
                    | '«'
                    | '»'
            )
        })
    })
}

/// Whether a word carries a value by its form alone: a digit (`16`,
/// `db-prod-3`, `3pm`, `$40`), a path or URL (`/`, `\`), a dotted name
/// (`example.com`, `main.rs`), an identifier (`snake_case`, `kebab-case`,
/// `camelCase`), or a currency sign.
fn is_value_form(word: &str) -> bool {
    let inner = |c: char| {
        word.trim_matches(c) != word || {
            let mut parts = word.split(c);
            parts.next().is_some_and(|p| !p.is_empty())
                && parts.all(|p| p.chars().next().is_some_and(char::is_alphanumeric))
        }
    };
    word.chars().any(|c| c.is_ascii_digit())
        || word.contains('/')
        || word.contains('\\')
        || word.contains('_')
        || word
            .chars()
            .any(|c| matches!(c, '$' | '€' | '£' | '¥' | '@' | '#'))
        || (word.contains('.') && inner('.'))
        || word
            .char_indices()
            .skip(1)
            .any(|(i, c)| c.is_uppercase() && word[..i].chars().all(char::is_lowercase))
}

/// Interjections, greetings and fillers: a turn of small talk opens with
/// them ("Wow", "Thanks", "Hey"), capitalised, and they are never a name
/// (nor, in [`super::conflict`], a subject).
pub const INTERJECTIONS: &[&str] = &[
    "wow",
    "thanks",
    "thank",
    "hey",
    "hi",
    "hello",
    "oh",
    "ooh",
    "ah",
    "aw",
    "aww",
    "yeah",
    "yep",
    "yup",
    "yes",
    "nope",
    "haha",
    "hahaha",
    "lol",
    "omg",
    "congrats",
    "congratulations",
    "sorry",
    "sure",
    "great",
    "awesome",
    "cool",
    "nice",
    "absolutely",
    "definitely",
    "totally",
    "well",
    "bye",
    "cheers",
    "hmm",
    "um",
    "uh",
    "wait",
    "really",
    "exactly",
    "agreed",
    "right",
    "amazing",
    "wonderful",
    "fantastic",
    "good",
    "glad",
    "love",
    "gosh",
    "whoa",
    "yay",
    "dear",
    "alright",
];

/// Whether a lower-cased word is a function word, an interjection or a
/// contraction of either ("that's", "i'll", "you're", "don't"): never a
/// name, capitalised or not. A possessive keeps its name ("alice's").
fn never_a_name(lower: &str) -> bool {
    let plain = |w: &str| NOT_NAMES.contains(&w) || INTERJECTIONS.contains(&w);
    match lower.split_once('\'') {
        Some((stem, "s")) => plain(stem),
        Some(_) => true,
        None => plain(lower),
    }
}

/// The value slots of `text` (see [`ValueSlots`]). A value is a word of a
/// value form (`is_value_form`), a capitalised word that is no function
/// word, interjection or contraction (`Alice`, `PostgreSQL`, `Hetzner`,
/// `Denver`), or a number word, weekday or month.
pub fn value_slots(text: &str) -> ValueSlots {
    slots(text, None)
}

/// The value slots of what one speaker said in a conversation (`text`
/// without its `Speaker: `), `names` the speakers' names (lower-cased).
/// Small talk capitalises what is no value, so a capitalised word counts
/// as a name only inside its sentence and not in address: "Wow, Mel!"
/// and "Sounds great" name nothing; "we drove to Denver" names Denver. The
/// speakers' own names are no value either. A word of a value form still
/// is one wherever it stands ("2pm", "1984").
pub fn turn_value_slots(text: &str, names: &[&str]) -> ValueSlots {
    slots(text, Some(names))
}

/// Characters that end a sentence (a turn's next word opens a new one).
fn ends_sentence(raw: &str) -> bool {
    raw.trim_end_matches(['"', '\'', ')', '”', '’', '*'])
        .ends_with(['.', '!', '?', ':', '…'])
}

/// [`value_slots`], or [`turn_value_slots`] given the speakers' names.
fn slots(text: &str, turn: Option<&[&str]>) -> ValueSlots {
    let mut slots = ValueSlots::default();
    let mut previous: Option<(&str, &str)> = None;
    let count = text.split_whitespace().count();
    for (i, (raw, word)) in text.split_whitespace().zip(tokens(text)).enumerate() {
        let (prev_raw, prev_word) = previous.unwrap_or(("", ""));
        previous = Some((raw, word));
        if word.is_empty() {
            continue;
        }
        let lower = word.to_lowercase().replace('’', "'");
        if NEGATIONS.contains(&lower.as_str()) || lower.ends_with("n't") {
            slots.negated = true;
        }
        let mut capitalised =
            word.chars().next().is_some_and(char::is_uppercase) && !never_a_name(&lower);
        if let (true, Some(names)) = (capitalised, turn) {
            let opens = prev_raw.is_empty() || ends_sentence(prev_raw);
            let prev_lower = prev_word.to_lowercase();
            // "Thanks, Maria!", "Hey Mel", "That's great, Mel."
            let addressed = INTERJECTIONS.contains(&prev_lower.as_str())
                || (prev_raw.ends_with(',')
                    && !prev_word.chars().next().is_some_and(char::is_uppercase)
                    && (raw.ends_with(['!', '?', '.', ',']) || i + 1 == count));
            if addressed {
                slots.addressed.insert(lower.clone());
            }
            capitalised = !(opens || addressed || names.contains(&lower.as_str()));
        }
        if is_value_form(word) || capitalised || VALUE_WORDS.contains(&lower.as_str()) {
            slots.values.insert(lower.clone());
        }
        slots.words.insert(lower);
    }
    slots
}

/// How the values of a newer text differ from an older one's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ValueChange {
    /// Values of the older text the newer one does not name.
    pub dropped: Vec<String>,
    /// Values of the newer text the older one does not name.
    pub added: Vec<String>,
    /// One is negated and the other not.
    pub negation: bool,
}

impl ValueChange {
    /// Whether the newer text only adds detail to the older: it keeps every
    /// value and the polarity, and names more. Merging it loses nothing.
    pub fn is_elaboration(&self) -> bool {
        self.dropped.is_empty() && !self.negation
    }

    /// Whether a value was replaced: the older names one the newer does
    /// not and the newer one the older does not, or the polarity flipped.
    pub fn is_replacement(&self) -> bool {
        (!self.dropped.is_empty() && !self.added.is_empty()) || self.negation
    }
}

impl fmt::Display for ValueChange {
    /// `16, db-prod-3 → 17, db-prod-5`, `negation changed`, or both.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if !self.dropped.is_empty() || !self.added.is_empty() {
            let side = |v: &[String]| match v.is_empty() {
                true => "∅".to_string(),
                false => v.join(", "),
            };
            parts.push(format!("{} → {}", side(&self.dropped), side(&self.added)));
        }
        if self.negation {
            parts.push("negation changed".to_string());
        }
        f.write_str(&parts.join("; "))
    }
}

/// Compare the value slots of an `older` and a `newer` text: `None` when
/// they name the same values with the same polarity, else what changed.
///
/// A value of one text counts as named by the other when it is one of the
/// other's values or words, in any case ("Postgres" at the start of one
/// sentence and "postgres" inside another are the same value).
pub fn compare_values(older: &str, newer: &str) -> Option<ValueChange> {
    compare_slots(&value_slots(older), &value_slots(newer))
}

/// [`compare_values`] of two texts' slots, however they were read.
pub fn compare_slots(a: &ValueSlots, b: &ValueSlots) -> Option<ValueChange> {
    let missing = |from: &ValueSlots, other: &ValueSlots| -> Vec<String> {
        from.values
            .iter()
            .filter(|v| !other.values.contains(*v) && !other.words.contains(*v))
            .cloned()
            .collect()
    };
    let change = ValueChange {
        dropped: missing(a, b),
        added: missing(b, a),
        negation: a.negated != b.negated,
    };
    let same = change.dropped.is_empty() && change.added.is_empty() && !change.negation;
    (!same).then_some(change)
}

/// Whether `newer` may be merged into `older` as a restatement, whatever
/// their cosine says: no value slot dropped and the polarity kept
/// ([`ValueChange::is_elaboration`]). A text that changes a number,
/// version, date, amount, name, host, path or identifier, or negates the
/// other, is a change of value, never a duplicate.
pub fn mergeable(older: &str, newer: &str) -> bool {
    compare_values(older, newer).is_none_or(|c| c.is_elaboration())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(text: &str) -> Vec<String> {
        value_slots(text).values.into_iter().collect()
    }

    #[test]
    fn slots_are_numbers_names_hosts_paths_and_identifiers() {
        assert_eq!(
            values("The atlas production database is PostgreSQL 16 on db-prod-3"),
            ["16", "db-prod-3", "postgresql"]
        );
        assert_eq!(
            values("config lives in /etc/atlas/app.toml, served by api.example.com"),
            ["/etc/atlas/app.toml", "api.example.com"]
        );
        assert_eq!(
            values("set max_connections to two hundred on Friday"),
            ["friday", "hundred", "max_connections", "two"]
        );
        assert_eq!(
            values("call fetchUser with $40 budget"),
            ["$40", "fetchuser"]
        );
        assert!(values("we like small tidy commits.").is_empty());
    }

    #[test]
    fn interjections_and_contractions_are_no_names() {
        assert!(values("Wow! That's it. Thanks, I'll see.").is_empty());
        assert_eq!(values("Alice's laptop runs Arch"), ["alice's", "arch"]);
    }

    #[test]
    fn a_turn_names_nothing_by_its_opening_capitals_or_in_address() {
        let s = turn_value_slots(
            "Hey Mel! Sounds great. Finished Dune, so we drive to Denver with Jon on Friday, Caroline.",
            &["caroline", "melanie"],
        );
        let named: Vec<&str> = s.values.iter().map(String::as_str).collect();
        assert_eq!(named, ["denver", "dune", "friday", "jon"]);
        assert!(s.addressed.contains("mel"));
        // A name after a comma inside the sentence is no address.
        let s = turn_value_slots("I met them, Maria and Jon", &[]);
        assert!(s.values.contains("maria") && s.addressed.is_empty());
        // A value of its form counts wherever it stands.
        assert!(turn_value_slots("1984 is next.", &[])
            .values
            .contains("1984"));
        // Read as a statement, the same opening capitals are names.
        assert!(values("Sounds great. Finished Dune").contains(&"sounds".to_string()));
    }

    #[test]
    fn negation_is_a_slot() {
        assert!(value_slots("The cache is not shared").negated);
        assert!(value_slots("We don't deploy on Fridays").negated);
        assert!(!value_slots("The cache is shared").negated);
    }

    #[test]
    fn a_changed_version_and_host_is_not_mergeable() {
        let old = "The atlas production database is PostgreSQL 16 on db-prod-3";
        let new = "The atlas production database is PostgreSQL 17 on db-prod-5";
        let change = compare_values(old, new).unwrap();
        assert_eq!(change.dropped, ["16", "db-prod-3"]);
        assert_eq!(change.added, ["17", "db-prod-5"]);
        assert!(change.is_replacement());
        assert!(!mergeable(old, new));
        assert_eq!(change.to_string(), "16, db-prod-3 → 17, db-prod-5");
    }

    #[test]
    fn names_dates_amounts_and_negation_changes_are_not_mergeable() {
        for (old, new) in [
            ("Alice leads the billing team", "Bob leads the billing team"),
            ("The launch is on 2026-03-02", "The launch is on 2026-03-09"),
            ("The budget is $40k per year", "The budget is $55k per year"),
            ("Deploys run on Friday", "Deploys never run on Friday"),
            ("Logs go to /var/log/a.log", "Logs go to /var/log/b.log"),
            ("Retries: three attempts", "Retries: five attempts"),
        ] {
            assert!(!mergeable(old, new), "{old} / {new}");
        }
    }

    #[test]
    fn restatements_and_elaborations_are_mergeable() {
        for (old, new) in [
            (
                "atlas staging runs on a Hetzner box",
                "atlas staging runs on a Hetzner box in Falkenstein",
            ),
            (
                "Postgres is our main database",
                "our main database is postgres",
            ),
            ("We deploy with Kamal", "Deployments are done with Kamal."),
            (
                "the team prefers small commits",
                "the team likes small commits",
            ),
        ] {
            assert!(mergeable(old, new), "{old} / {new}");
        }
        assert_eq!(compare_values("We use Kamal", "we use kamal"), None);
    }

    #[test]
    fn dropping_a_value_is_not_an_elaboration() {
        let change =
            compare_values("runs in Falkenstein on a Hetzner box", "runs on a box").unwrap();
        assert!(!change.is_elaboration());
        assert!(!change.is_replacement());
        assert_eq!(change.to_string(), "falkenstein, hetzner → ∅");
    }
}
