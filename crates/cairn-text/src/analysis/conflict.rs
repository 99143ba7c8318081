//! Conflict detection: whether a newer statement changes what an older
//! one says about the same subject.
//!
//! Not by cosine alone: two statements conflict when they share their
//! subject (the same key terms, or vectors close enough to say so) and
//! either a value slot was replaced ([`super::values`]: a number, name,
//! host, date… or the polarity) or the newer one carries a correction cue
//! ("now", "moved", "no longer", "instead", "update:"…) and names a value
//! the older does not. Cosine only decides how much shared subject is
//! needed — except for a correction in other words ("Dana is the lead of
//! atlas" → "Leadership changed. Sam is now the lead of atlas"; "I live at
//! 12 Oak Street" → "I moved. My new address is 4 Pine Road"), whose
//! cosine is often below 0.5: there the subject (shared subject terms, or
//! both said by the same first person) and the attribute ([`ATTRIBUTES`]:
//! `live`, `address` and `moved` name one residence) decide, and the
//! cosine only has to clear [`SLOT_COSINE`]. Pure and offline; the engine
//! (`cairn_core::engine`) applies the conflict policy to what this finds.

use std::collections::BTreeSet;

use super::values::{
    compare_slots, turn_value_slots, value_slots, ValueChange, ValueSlots, INTERJECTIONS,
};

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

/// Cosine at or above which two statements about the same subject and the
/// same attribute, with a value replaced (or changed at all after a correction
/// cue), conflict whatever their wording: low, because a correction in
/// other words shares few words with what it corrects (0.39 for "Maria
/// Lopez is the lead of the payments team" → "Leadership changed: Tomas
/// Berg is now the lead of the payments team" with the default model),
/// and the subject and attribute already say they are about one thing.
pub const SLOT_COSINE: f32 = 0.25;

/// Attributes a statement can give a value to, each with the words that
/// name it. Two statements name the same attribute when a word of one and
/// a word of the other are in the same list: "I live at …", "my address
/// is …" and "I moved to …" all say where someone lives. Words are matched
/// as lower-cased whole words; a word may name several attributes.
pub const ATTRIBUTES: &[(&str, &[&str])] = &[
    (
        "residence",
        &[
            "live",
            "lives",
            "living",
            "lived",
            "address",
            "home",
            "moved",
            "move",
            "moving",
            "relocated",
            "relocating",
            "reside",
            "resides",
            "apartment",
            "flat",
            "house",
        ],
    ),
    (
        "lead",
        &[
            "lead",
            "leads",
            "leader",
            "leadership",
            "led",
            "head",
            "heads",
            "manager",
            "manages",
            "managed",
            "owner",
            "owns",
            "owned",
            "maintainer",
            "maintains",
            "report",
            "reports",
            "reporting",
        ],
    ),
    ("phone", &["phone", "number", "mobile", "cell", "telephone"]),
    ("email", &["email", "e-mail", "mail", "inbox"]),
    (
        "job",
        &[
            "job",
            "work",
            "works",
            "working",
            "worked",
            "employer",
            "employed",
            "company",
            "hired",
            "position",
            "role",
            "full-time",
            "part-time",
            "career",
        ],
    ),
    (
        "language",
        &[
            "language",
            "languages",
            "code",
            "codes",
            "coding",
            "write",
            "writes",
            "writing",
            "program",
            "programming",
            "developer",
            "stack",
        ],
    ),
    (
        "reading",
        &["reading", "read", "reads", "book", "books", "novel"],
    ),
    (
        "date",
        &[
            "deadline",
            "due",
            "launch",
            "launches",
            "release",
            "releases",
            "scheduled",
            "postponed",
            "rescheduled",
            "date",
            "meeting",
            "lesson",
            "lessons",
            "class",
            "classes",
            "appointment",
        ],
    ),
    (
        "version",
        &[
            "version",
            "versions",
            "upgraded",
            "downgraded",
            "upgrade",
            "release",
        ],
    ),
    (
        "host",
        &[
            "host", "hosted", "server", "deployed", "hosting", "region", "cluster", "moved",
            "migrated",
        ],
    ),
    (
        "database",
        &["database", "databases", "db", "postgres", "datastore"],
    ),
    (
        "price",
        &[
            "price", "cost", "costs", "budget", "fee", "salary", "rate", "paid", "pay", "rent",
            "mortgage",
        ],
    ),
    (
        "partner",
        &[
            "married",
            "dating",
            "girlfriend",
            "boyfriend",
            "wife",
            "husband",
            "partner",
            "engaged",
            "divorced",
        ],
    ),
    ("pet", &["dog", "cat", "pet", "puppy", "kitten"]),
    (
        "diet",
        &[
            "diet",
            "vegetarian",
            "vegan",
            "pescatarian",
            "keto",
            "eat",
            "eating",
        ],
    ),
    (
        "commute",
        &[
            "commute",
            "commuting",
            "drive",
            "drives",
            "driving",
            "car",
            "cycle",
            "bike",
            "bus",
            "train",
            "subway",
            "ride",
            "riding",
        ],
    ),
    (
        "trip",
        &[
            "flight",
            "flights",
            "fly",
            "flying",
            "trip",
            "travel",
            "travelling",
            "traveling",
        ],
    ),
    (
        "favourite",
        &["favorite", "favourite", "prefer", "prefers", "preferred"],
    ),
];

/// Words naming people a first-person statement can be about instead of
/// its speaker ("my sister lives in Denver" is not where I live).
const RELATIONS: &[&str] = &[
    "sister",
    "brother",
    "mother",
    "father",
    "mom",
    "mum",
    "dad",
    "parents",
    "wife",
    "husband",
    "partner",
    "friend",
    "son",
    "daughter",
    "boss",
    "colleague",
    "roommate",
    "neighbor",
    "neighbour",
    "cousin",
    "aunt",
    "uncle",
    "grandma",
    "grandpa",
    "kids",
    "kid",
    "girlfriend",
    "boyfriend",
];

/// Words that make a statement the speaker's own (first person).
const FIRST_PERSON: &[&str] = &[
    "i", "i'm", "i've", "i'd", "i'll", "my", "me", "mine", "myself",
];

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
    "dropped",
    "relocated",
    "raised",
    "lowered",
    "rebooked",
    "shifted",
    "reorg",
    "sold",
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
    "took over",
    "handed over",
    "no more",
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
/// more, stop words and interjections left out, crudely stemmed (a trailing `s` dropped).
pub fn key_terms(text: &str) -> BTreeSet<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric() && c != '-' && c != '_')
        .filter(|w| w.chars().count() >= 3 && !STOP.contains(w) && !INTERJECTIONS.contains(w))
        .map(|w| w.strip_suffix('s').filter(|s| s.len() >= 3).unwrap_or(w))
        .map(str::to_string)
        .collect()
}

/// The lower-cased whole words of `text` (apostrophes and hyphens kept).
fn words(text: &str) -> BTreeSet<String> {
    text.to_lowercase()
        .replace('’', "'")
        .split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '-')
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// The attributes ([`ATTRIBUTES`]) `text` names.
pub fn attributes(text: &str) -> BTreeSet<&'static str> {
    let words = words(text);
    ATTRIBUTES
        .iter()
        .filter(|(_, names)| names.iter().any(|n| words.contains(*n)))
        .map(|(a, _)| *a)
        .collect()
}

/// The words every attribute `text` names is named by: what a search for
/// an older value of the same attribute looks for ("address" also finds
/// "I live at …").
pub fn attribute_words(text: &str) -> Vec<&'static str> {
    let named = attributes(text);
    ATTRIBUTES
        .iter()
        .filter(|(a, _)| named.contains(a))
        .flat_map(|(_, names)| names.iter().copied())
        .collect()
}

/// The subject terms of `text`: its key terms ([`key_terms`]) that name
/// neither an attribute nor a correction ("leadership", "changed" and
/// "moved" say what changed, not about what).
pub fn subject_terms(text: &str) -> BTreeSet<String> {
    let attribute = |t: &str| {
        ATTRIBUTES.iter().any(|(_, names)| {
            names
                .iter()
                .any(|n| *n == t || n.strip_suffix('s') == Some(t))
        })
    };
    key_terms(text)
        .into_iter()
        .filter(|t| !attribute(t) && !CUE_WORDS.contains(&t.as_str()))
        .collect()
}

/// Prefixes of the form `Word: …` that are no speaker.
const NOT_SPEAKERS: &[&str] = &[
    "update",
    "note",
    "edit",
    "correction",
    "fyi",
    "ps",
    "todo",
    "important",
    "warning",
    "reminder",
    "decision",
    "fix",
    "bug",
    "big news",
    "news",
];

/// The speaker of a logged message (`Speaker: text`: a name of up to
/// three capitalised words, or a role such as `user`), lower-cased, and
/// what it said; an empty speaker and the whole text otherwise.
fn speaker_split(text: &str) -> (String, &str) {
    if let Some((s, rest)) = text.split_once(": ") {
        let s = s.trim();
        let lower = s.to_lowercase();
        let words: Vec<&str> = s.split_whitespace().collect();
        let named = !words.is_empty()
            && words.len() <= 3
            && words
                .iter()
                .all(|w| w.chars().next().is_some_and(char::is_uppercase));
        let role = matches!(
            lower.as_str(),
            "user" | "assistant" | "system" | "human" | "ai"
        );
        if (named || role) && !NOT_SPEAKERS.contains(&lower.as_str()) {
            return (lower, rest);
        }
    }
    (String::new(), text)
}

/// Whether `said` (a text without its speaker) speaks as "I"/"my" and
/// names no relation ("my sister") it could be about instead.
fn first_person(said: &str) -> bool {
    let words = words(said);
    FIRST_PERSON.iter().any(|w| words.contains(*w)) && !RELATIONS.iter().any(|w| words.contains(*w))
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
    /// The attribute both give a value to ([`ATTRIBUTES`]), when the
    /// conflict was found by subject and attribute.
    pub attribute: Option<&'static str>,
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
        if let Some(a) = self.attribute {
            parts.push(format!("same attribute: {a}"));
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
/// (a logged message `Speaker: text` is compared by its text; "I" of two
/// messages is one person when their speakers are the same)
/// subject      = the key terms both share, attribute and cue words left
///                out ("lead", "changed"); when both hold such terms and
///                share none, they are about different subjects
/// same subject = cosine ≥ 0.75 and no different subjects, or (a subject
///                term shared and cosine ≥ 0.55)
/// conflict     = same subject and a value replaced (one dropped and one
///                added, or the polarity flipped), and a value kept
///                (`PostgreSQL` in "PostgreSQL 16" → "PostgreSQL 17") or
///                cosine ≥ 0.85
///             or a correction cue in the newer, a subject term shared,
///                cosine ≥ 0.5, and a value changed (or none on either side)
///             or one subject (a subject term shared, or both said by the
///                same first person), one attribute named by both, a value
///                replaced (or changed at all after a correction cue), and
///                cosine ≥ 0.25
/// ```
///
/// A newer statement that only adds detail (keeps every value and adds
/// some) is no conflict.
///
/// Small talk opens sentences with capitals, names whom it addresses,
/// says "can't" and "don't" and shares small words between speakers. So
/// a conversational turn (`Speaker: text`) is read for its values as
/// [`turn_value_slots`] reads it; the speakers' names and the names used
/// in address are no subject; two speakers share a subject only by a name
/// both give as a value; a flipped polarity in a turn replaces no value,
/// nor changes one without a correction cue; and a turn's cue counts only
/// beside a replaced value.
pub fn detect_conflict(older: &str, newer: &str, cosine: f32) -> Option<Conflict> {
    // Every rule below needs at least this similarity: the text analysis
    // is skipped for the many pairs that are plainly about other things.
    if cosine < SLOT_COSINE {
        return None;
    }
    // Logged messages are compared by what they say; their speakers only
    // tell whether "I" is the same person.
    let (older_speaker, older) = speaker_split(older);
    let (newer_speaker, newer) = speaker_split(newer);
    let turn = !newer_speaker.is_empty();
    let names: Vec<&str> = older_speaker
        .split_whitespace()
        .chain(newer_speaker.split_whitespace())
        .collect();
    let read = |speaker: &str, text: &str| match speaker.is_empty() {
        true => value_slots(text),
        false => turn_value_slots(text, &names),
    };
    let (va, vb) = (read(&older_speaker, older), read(&newer_speaker, newer));
    let subject = |text: &str, slots: &ValueSlots| -> BTreeSet<String> {
        let named = |t: &String| {
            names.iter().any(|n| t == n || format!("{t}s") == *n)
                || slots.addressed.contains(t)
                || slots.addressed.contains(&format!("{t}s"))
        };
        let mut terms = subject_terms(text);
        terms.retain(|t| !named(t));
        terms
    };
    let (a, b) = (subject(older, &va), subject(newer, &vb));
    let mut shared: Vec<String> = a.intersection(&b).cloned().collect();
    // Two speakers' turns share small words ("dance", "photo") whatever
    // they talk about: between them, a shared subject is a named one.
    if turn && older_speaker != newer_speaker {
        let named_in = |t: &String, slots: &ValueSlots| {
            slots.values.contains(t) || slots.values.contains(&format!("{t}s"))
        };
        shared.retain(|t| named_in(t, &va) && named_in(t, &vb));
    }
    let different_subjects = shared.is_empty() && !a.is_empty() && !b.is_empty();
    let change = compare_slots(&va, &vb);
    let cue = correction_cue(newer).filter(|_| correction_cue(older).is_none());
    let same_subject = (cosine >= SAME_SUBJECT_COSINE && !different_subjects)
        || (!shared.is_empty() && cosine >= SHARED_TERM_COSINE);
    let kept_value = va
        .values
        .iter()
        .any(|v| vb.values.contains(v) || vb.words.contains(v));
    let replacement = change.as_ref().is_some_and(|c| match turn {
        true => !c.dropped.is_empty() && !c.added.is_empty(),
        false => c.is_replacement(),
    });
    let replaced = replacement && (kept_value || cosine >= NO_SHARED_VALUE_COSINE);
    // A turn's cue is small talk's "new", "now", "today" unless a value
    // was replaced beside it.
    let adds_value = match turn {
        true => replacement,
        false => change
            .as_ref()
            .is_none_or(|c| !c.added.is_empty() || c.negation),
    };
    let cued = cue.is_some() && !shared.is_empty() && cosine >= CUE_COSINE && adds_value;
    // The same attribute of the same subject given another value, however
    // it is worded.
    let attribute = attributes(older)
        .intersection(&attributes(newer))
        .next()
        .copied();
    let one_subject = !shared.is_empty()
        || (older_speaker == newer_speaker && first_person(older) && first_person(newer));
    // A turn's flipped polarity changes no value ("can't", "don't")
    // unless a correction cue says so.
    let changed = change
        .as_ref()
        .is_some_and(|c| !turn || !c.dropped.is_empty() || !c.added.is_empty() || cue.is_some());
    let slot = one_subject
        && attribute.is_some()
        && cosine >= SLOT_COSINE
        && changed
        && (replacement || cue.is_some());
    ((same_subject && replaced) || cued || slot).then_some(Conflict {
        change,
        cue,
        shared,
        attribute: attribute.filter(|_| slot),
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
    fn a_correction_in_other_words_conflicts_by_subject_and_attribute() {
        // Cosines of the default model, between the stored texts.
        for (old, new, cosine, attribute) in [
            (
                "Dana is the lead of atlas",
                "Leadership changed. Sam is now the lead of atlas",
                0.48,
                "lead",
            ),
            (
                "I live at 12 Oak Street",
                "I moved. My new address is 4 Pine Road",
                0.46,
                "residence",
            ),
            (
                "Maria Lopez is the lead of the payments team",
                "Leadership changed: Tomas Berg is now the lead of the payments team",
                0.39,
                "lead",
            ),
            (
                "Priya: I live in Boston with my two cats",
                "Priya: I moved to Denver last month",
                0.35,
                "residence",
            ),
        ] {
            let c = detect_conflict(old, new, cosine).unwrap_or_else(|| panic!("{old} / {new}"));
            assert_eq!(c.attribute, Some(attribute), "{old} / {new}");
            assert!(c.reason().contains("same attribute"), "{}", c.reason());
        }
    }

    #[test]
    fn the_same_attribute_of_another_subject_is_no_conflict() {
        for (old, new, cosine) in [
            // Two projects' leads.
            (
                "Leadership changed: Tomas Berg is now the lead of the payments team",
                "Leadership changed. Sam is now the lead of atlas",
                0.58,
            ),
            // Two facts about one project, different attributes.
            ("atlas uses Rust", "atlas deploys on Fridays", 0.5),
            // Two speakers.
            (
                "Priya: I live in Boston",
                "Omar: I moved to Denver last month",
                0.5,
            ),
            // A relative's home, not mine.
            ("I live in Boston", "My sister moved to Denver", 0.5),
        ] {
            assert_eq!(detect_conflict(old, new, cosine), None, "{old} / {new}");
        }
    }

    #[test]
    fn attributes_and_subjects_leave_out_what_changed() {
        assert_eq!(
            attributes("I moved. My new address is 4 Pine Road"),
            BTreeSet::from(["host", "residence"])
        );
        assert!(attribute_words("my address").contains(&"live"));
        assert_eq!(
            subject_terms("Leadership changed. Sam is now the lead of atlas"),
            BTreeSet::from(["atla".to_string(), "sam".to_string()])
        );
    }

    #[test]
    fn a_changed_value_of_ones_own_diet_rent_or_trip_conflicts() {
        // Texts not of the evaluation set; cosines of the same order.
        for (old, new, cosine, attribute) in [
            (
                "Lena: I'm vegan, no eggs or dairy for me",
                "Lena: Update: I eat eggs again, so vegetarian these days",
                0.5,
                "diet",
            ),
            (
                "Omar: My rent is 900 pounds a month",
                "Omar: The new lease is signed, I pay 1,050 now",
                0.45,
                "price",
            ),
            (
                "Kim: My flight to Oslo leaves on the 3rd",
                "Kim: They cancelled it, I fly on the 5th instead",
                0.4,
                "trip",
            ),
            // A cue and the same attribute: the value changed in words
            // the value slots do not see ("teacher" → "engineer").
            (
                "Ada: I work as a teacher at Hillside School",
                "Ada: I quit teaching; these days I work as an engineer",
                0.6,
                "job",
            ),
        ] {
            let c = detect_conflict(old, new, cosine).unwrap_or_else(|| panic!("{old} / {new}"));
            assert_eq!(c.attribute, Some(attribute), "{old} / {new}");
        }
        // The same attribute said by two people is no conflict.
        assert_eq!(
            detect_conflict("Lena: I'm vegan", "Omar: I eat fish these days", 0.5),
            None
        );
    }

    #[test]
    fn small_talk_between_two_speakers_is_no_conflict() {
        // Turns of the kind a long chat is made of: opening capitals,
        // names in address, "can't"/"don't", shared small words.
        for (old, new) in [
            (
                "Caroline: Hey Mel! Good to see you. How have you been?",
                "Melanie: Hey Caroline! Good to see you! I'm swamped with the kids & work.",
            ),
            (
                "Melanie: Thanks, Caroline! That's so sweet of you.",
                "Melanie: Wow, Caroline, that's great! I can't wait to see it.",
            ),
            (
                "Caroline: I don't work weekends, Mel.",
                "Caroline: Yeah, I work at the shelter. Love it!",
            ),
            (
                "Melanie: Sounds fun! I went camping with my family.",
                "Melanie: Sure thing! I'm going to the beach with the kids this weekend.",
            ),
            // One speaker, a shared word, a cue, a value added only.
            (
                "Gina: I love the studio, Jon.",
                "Gina: The studio is doing great now, 4 new dancers joined!",
            ),
            // Two speakers, the same small word, an attribute and a cue.
            (
                "Melanie: I loved reading as a kid, my kids love the dog too.",
                "Caroline: I went to a poetry reading last Friday, now my dog loves poems!",
            ),
        ] {
            assert_eq!(detect_conflict(old, new, 0.6), None, "{old} / {new}");
        }
    }

    #[test]
    fn a_turn_that_changes_a_named_attribute_conflicts() {
        for (old, new, attribute) in [
            (
                "Jon: Gina, I'm reading Dune and loving it.",
                "Jon: Finished Dune! I'm reading 1984 now",
                "reading",
            ),
            (
                "Gina: Hey Jon! I live in Boston with my cats",
                "Gina: Big news, Jon! I moved to Denver last month",
                "residence",
            ),
        ] {
            let c = detect_conflict(old, new, 0.4).unwrap_or_else(|| panic!("{old} / {new}"));
            assert_eq!(c.attribute, Some(attribute), "{old} / {new}");
            assert!(!c.reason().contains("jon") && !c.reason().contains("gina"));
        }
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
