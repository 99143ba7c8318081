//! The routing stage: which [`MemoryType`] (and so which [`Tier`]) a piece
//! of text is, by rules on its words. The rules are in the
//! [module doc of `ingest`](super).

use std::sync::LazyLock;

use regex::Regex;

use crate::analysis::intent::{has_phrase, word_line, words};
use crate::analysis::sentences::split_sentences;
use crate::analysis::temporal::parse_time;
use crate::kind::{MemoryType, Tier};

/// Where [`route`] sends a text, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Route {
    /// The memory's type.
    pub kind: MemoryType,
    /// The type's tier ([`MemoryType::tier`]).
    pub tier: Tier,
    /// The name of the rule that decided, for the ingestion receipt (one of
    /// [`RULES`]).
    pub rule: &'static str,
}

/// Every rule [`route`] tries, in order, with the type it gives.
pub const RULES: &[(&str, MemoryType)] = &[
    ("empty", MemoryType::Note),
    ("numbered-steps", MemoryType::Procedure),
    ("decision", MemoryType::Decision),
    ("preference", MemoryType::Preference),
    ("sequence", MemoryType::Procedure),
    ("how-to", MemoryType::Procedure),
    ("imperative", MemoryType::Rule),
    ("obligation", MemoryType::Rule),
    ("feedback", MemoryType::Feedback),
    ("date", MemoryType::Episode),
    ("past-event", MemoryType::Episode),
    ("planned-event", MemoryType::Episode),
    ("question", MemoryType::Note),
    ("statement", MemoryType::Fact),
];

/// Phrases that record a decision.
const DECISION_PHRASES: &[&str] = &[
    "decided",
    "we agreed",
    "agreed to",
    "agreed on",
    "agreed that",
    "we chose",
    "chose to",
    "we picked",
    "opted for",
    "opted to",
    "settled on",
    "will use",
    "we'll use",
    "going with",
    "go with",
    "will go with",
    "the decision is",
    "our decision",
    "decision was",
    "we'll stick with",
    "will stick with",
];

/// Phrases that state a like or dislike (any person).
const PREFERENCE_PHRASES: &[&str] = &[
    "prefer",
    "prefers",
    "preferred",
    "preference",
    "likes",
    "loves",
    "hates",
    "dislikes",
    "dislike",
    "enjoys",
    "would rather",
    "'d rather",
    "i'd rather",
    "favourite",
    "favorite",
    "fan of",
    "can't stand",
    "cannot stand",
];

/// Subjects that make "like", "love", "hate" and "enjoy" a preference ("I
/// like", not "looks like").
const PREFERENCE_SUBJECTS: &[&str] = &["i", "we", "they", "i really", "we really"];
const PREFERENCE_VERBS: &[&str] = &["like", "love", "hate", "enjoy", "don't like", "do not like"];

/// Words that, opening a sentence, make it a rule to follow.
const IMPERATIVE_OPENERS: &[&str] = &[
    "always",
    "never",
    "don't",
    "do not",
    "dont",
    "avoid",
    "make sure",
    "ensure",
    "be sure to",
    "remember to",
    "don't ever",
    "do not ever",
];

/// Words that may come before an imperative opener ("Please always …",
/// "From now on, never …").
const IMPERATIVE_LEAD_INS: &[&str] = &[
    "please",
    "from now on",
    "going forward",
    "in future",
    "in the future",
    "as a rule",
    "and",
];

/// Phrases that state an obligation or a prohibition anywhere in a
/// sentence.
const OBLIGATION_PHRASES: &[&str] = &[
    "must",
    "mustn't",
    "must not",
    "should always",
    "should never",
    "shall",
    "shall not",
    "is required",
    "are required",
    "is mandatory",
    "are mandatory",
    "is not allowed",
    "are not allowed",
    "is forbidden",
    "are forbidden",
    "not permitted",
];

/// Verbs that, after "To do something,", make the sentence a step.
const STEP_VERBS: &[&str] = &[
    "add",
    "apply",
    "build",
    "call",
    "change",
    "check",
    "choose",
    "click",
    "configure",
    "copy",
    "create",
    "delete",
    "deploy",
    "disable",
    "download",
    "edit",
    "enable",
    "enter",
    "execute",
    "export",
    "first",
    "go",
    "import",
    "install",
    "invoke",
    "just",
    "log",
    "make",
    "merge",
    "move",
    "navigate",
    "open",
    "pass",
    "press",
    "pull",
    "push",
    "put",
    "remove",
    "rename",
    "restart",
    "run",
    "save",
    "select",
    "send",
    "set",
    "sign",
    "simply",
    "start",
    "stop",
    "submit",
    "tap",
    "type",
    "update",
    "upgrade",
    "use",
    "visit",
    "write",
    "you",
];

/// Words after an opening "First" that continue a sequence of steps.
const SEQUENCE_WORDS: &[&str] = &[
    "then",
    "next",
    "after that",
    "afterwards",
    "finally",
    "second",
    "secondly",
    "lastly",
];

/// Phrases that judge work done.
const FEEDBACK_PHRASES: &[&str] = &[
    "good job",
    "great job",
    "nice job",
    "well done",
    "nice work",
    "great work",
    "good work",
    "that's wrong",
    "that is wrong",
    "that was wrong",
    "that's not right",
    "that is not right",
    "that's incorrect",
    "that was incorrect",
    "you got it wrong",
    "you got that wrong",
    "you were wrong",
    "you were right",
    "that worked",
    "that didn't work",
    "that did not work",
    "that's perfect",
    "this is perfect",
    "exactly what i wanted",
    "not what i asked",
    "not what i wanted",
    "you forgot",
    "you missed",
];

/// Irregular past-tense verbs (regular ones end in "-ed").
const IRREGULAR_PAST: &[&str] = &[
    "was",
    "were",
    "had",
    "did",
    "went",
    "came",
    "saw",
    "met",
    "said",
    "told",
    "made",
    "got",
    "took",
    "gave",
    "found",
    "left",
    "began",
    "broke",
    "ran",
    "wrote",
    "sent",
    "bought",
    "paid",
    "ate",
    "spoke",
    "spent",
    "lost",
    "won",
    "built",
    "felt",
    "kept",
    "knew",
    "thought",
    "brought",
    "caught",
    "taught",
    "fell",
    "flew",
    "drove",
    "rode",
    "sold",
    "stood",
    "understood",
    "forgot",
    "chose",
    "heard",
    "held",
    "led",
    "slept",
    "sat",
    "became",
    "grew",
    "threw",
    "wore",
    "woke",
    "swam",
    "sang",
    "dealt",
    "meant",
    "fled",
    "fed",
    "bred",
    "sped",
    "wed",
];

/// Words of five letters or more ending in "-ed" that are not past tenses.
const NOT_PAST: &[&str] = &[
    "speed",
    "bleed",
    "breed",
    "shred",
    "greed",
    "proceed",
    "exceed",
    "succeed",
    "indeed",
    "hundred",
    "embed",
    "naked",
    "wicked",
    "sacred",
    "beloved",
    "interested",
    "tired",
    "advanced",
    "detailed",
    "limited",
    "related",
];

/// Words that put an event in the future.
const FUTURE_MARKERS: &[&str] = &[
    "will",
    "'ll",
    "going to",
    "scheduled",
    "planned",
    "is due",
    "are due",
    "is on",
    "starts",
    "begins",
];

/// A calendar date: ISO (`2024-03-05`), day and month (`5 March`,
/// `5th Mar 2024`), month and day (`March 5`, `Mar. 5th, 2024`) or month
/// and year (`March 2024`).
static DATE: LazyLock<Regex> = LazyLock::new(|| {
    let month = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?";
    let day = r"\d{1,2}(?:st|nd|rd|th)?";
    Regex::new(&format!(
        r"(?i)\b(?:\d{{4}}-\d{{2}}-\d{{2}}|{day}\s+(?:of\s+)?{month}\b|{month}\s+{day}\b|{month}\s+\d{{4}}\b)"
    ))
    .expect("the date pattern is valid")
});

/// A time of day: `3pm`, `10:30`, `9:15 am`.
static CLOCK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:\d{1,2}(?::\d{2})?\s?[ap]\.?m\b\.?|\d{1,2}:\d{2}\b)")
        .expect("the clock pattern is valid")
});

/// The reference time relative expressions are read against. Only whether
/// a text names a time matters here, never which, so any fixed time keeps
/// [`route`] deterministic (2024-01-01T00:00Z).
const REFERENCE: i64 = 1_704_067_200_000;

/// The rule name of a type given by a section's heading ([`section_route`]).
pub const SECTION_RULE: &str = "section-heading";

/// Headings that name the type of what is under them, as lowercase words
/// (the heading's words must start with one of them: "Rules", "Deploy
/// rules" does not, "Rules for deploys" does).
const SECTION_TYPES: &[(&[&str], MemoryType)] = &[
    (
        &[
            "rule",
            "rules",
            "guidelines",
            "policy",
            "policies",
            "principles",
            "constraints",
            "dos and don'ts",
            "do's and don'ts",
        ],
        MemoryType::Rule,
    ),
    (
        &[
            "procedure",
            "procedures",
            "steps",
            "how to",
            "how-to",
            "runbook",
            "instructions",
            "checklist",
        ],
        MemoryType::Procedure,
    ),
    (
        &["decision", "decisions", "decided", "adr"],
        MemoryType::Decision,
    ),
    (&["preference", "preferences"], MemoryType::Preference),
    (&["facts", "key facts"], MemoryType::Fact),
];

/// The type a Markdown section's heading names for everything under it
/// ("## Rules" → rule, "## Procedure" → procedure, "## Decisions" →
/// decision, "## Preferences" → preference, "## Facts" → fact), or `None`
/// when the heading names no type. A trailing colon or number is ignored.
pub fn section_route(heading: &str) -> Option<Route> {
    let line = heading
        .trim()
        .trim_end_matches(':')
        .trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ' ')
        .to_lowercase();
    SECTION_TYPES.iter().find_map(|(names, kind)| {
        names
            .iter()
            .any(|n| {
                line == *n
                    || line
                        .strip_prefix(n)
                        .is_some_and(|rest| rest.starts_with(' '))
            })
            .then_some(Route {
                kind: *kind,
                tier: kind.tier(),
                rule: SECTION_RULE,
            })
    })
}

/// The type a chunk is stored as: what its innermost heading names
/// ([`section_route`]), else what its own words say ([`route`]).
pub fn route_in_section(text: &str, section: &[String]) -> Route {
    section
        .last()
        .and_then(|heading| section_route(heading))
        .unwrap_or_else(|| route(text))
}

/// The type a text is stored as, and the rule that chose it: the first of
/// [`RULES`] that fires, as the [module doc](super) describes.
pub fn route(text: &str) -> Route {
    let rule = choose(text);
    let kind = RULES
        .iter()
        .find(|(name, _)| *name == rule)
        .map_or(MemoryType::Fact, |(_, kind)| *kind);
    Route {
        kind,
        tier: kind.tier(),
        rule,
    }
}

/// One sentence's words, ready for phrase tests.
struct Sentence<'a> {
    text: &'a str,
    words: Vec<String>,
    /// The words as a [`word_line`] (`" a b c "`).
    line: String,
}

impl Sentence<'_> {
    fn has(&self, phrase: &str) -> bool {
        has_phrase(&self.line, phrase)
    }

    fn opens_with(&self, phrase: &str) -> bool {
        self.line
            .get(1..)
            .is_some_and(|rest| rest.starts_with(phrase) && rest[phrase.len()..].starts_with(' '))
    }

    /// The sentence's word line without its first `phrase` (`" a b "`).
    fn after(&self, phrase: &str) -> &str {
        &self.line[phrase.len() + 1..]
    }
}

fn choose(text: &str) -> &'static str {
    let sentences: Vec<Sentence> = split_sentences(text)
        .into_iter()
        .map(|text| {
            let words = words(text);
            let line = word_line(&words);
            Sentence { text, words, line }
        })
        .filter(|s| !s.words.is_empty())
        .collect();
    if sentences.is_empty() {
        return "empty";
    }
    let any = |test: &dyn Fn(&Sentence) -> bool| sentences.iter().any(test);
    if sentences.iter().filter(|s| is_numbered_step(s)).count() >= 2 {
        "numbered-steps"
    } else if any(&|s| DECISION_PHRASES.iter().any(|p| s.has(p))) {
        "decision"
    } else if any(&is_preference) {
        "preference"
    } else if is_sequence(&sentences) {
        "sequence"
    } else if any(&is_how_to) {
        "how-to"
    } else if any(&is_imperative) {
        "imperative"
    } else if any(&is_obligation) {
        "obligation"
    } else if any(&|s| FEEDBACK_PHRASES.iter().any(|p| s.has(p))) {
        "feedback"
    } else if DATE.is_match(text) {
        "date"
    } else if names_a_time(text) && any(&|s| s.words.iter().any(|w| is_past(w))) {
        "past-event"
    } else if names_a_time(text) && any(&|s| FUTURE_MARKERS.iter().any(|p| s.has(p))) {
        "planned-event"
    } else if sentences.iter().all(|s| s.text.ends_with('?')) {
        "question"
    } else {
        "statement"
    }
}

/// `1. …`, `2) …`, `Step 3: …`.
fn is_numbered_step(s: &Sentence) -> bool {
    let digits = s.text.bytes().take_while(u8::is_ascii_digit).count();
    let numbered = digits > 0 && matches!(s.text.as_bytes().get(digits), Some(b'.' | b')'));
    let step =
        s.words.len() > 1 && s.words[0] == "step" && s.words[1].bytes().all(|b| b.is_ascii_digit());
    numbered || step
}

fn is_preference(s: &Sentence) -> bool {
    PREFERENCE_PHRASES.iter().any(|p| s.has(p))
        || PREFERENCE_SUBJECTS.iter().any(|subject| {
            PREFERENCE_VERBS
                .iter()
                .any(|verb| s.has(&format!("{subject} {verb}")))
        })
}

/// A sentence opening with "First" (or "Firstly"), and a later "then",
/// "next", "finally" … in the text.
fn is_sequence(sentences: &[Sentence]) -> bool {
    sentences.iter().enumerate().any(|(i, s)| {
        let Some(first) = ["first", "firstly"].into_iter().find(|w| s.opens_with(w)) else {
            return false;
        };
        sentences[i..].iter().enumerate().any(|(j, later)| {
            let line = if j == 0 { s.after(first) } else { &later.line };
            SEQUENCE_WORDS.iter().any(|w| has_phrase(line, w))
        })
    })
}

/// "To deploy, run …", "In order to …, use …", "How to …: …".
fn is_how_to(s: &Sentence) -> bool {
    let lower = s.text.to_lowercase();
    if lower.starts_with("how to ") && lower.contains(':') {
        return true;
    }
    let Some(purpose) = lower
        .strip_prefix("to ")
        .or_else(|| lower.strip_prefix("in order to "))
    else {
        return false;
    };
    let Some(comma) = purpose.find([',', ':']) else {
        return false;
    };
    let next = words(&purpose[comma + 1..]);
    next.first()
        .is_some_and(|w| STEP_VERBS.contains(&w.as_str()))
}

/// "Always …", "Never …", "Don't …", "Make sure …", possibly after
/// "Please" or "From now on".
fn is_imperative(s: &Sentence) -> bool {
    let mut line = s.line.as_str();
    while let Some(lead) = IMPERATIVE_LEAD_INS.iter().find(|p| {
        line.get(1..)
            .is_some_and(|r| r.starts_with(&format!("{p} ")))
    }) {
        line = &line[lead.len() + 1..];
    }
    IMPERATIVE_OPENERS.iter().any(|p| {
        line.get(1..)
            .is_some_and(|rest| rest.starts_with(p) && rest[p.len()..].starts_with(' '))
    })
}

/// "must", "should never", "is not allowed" … anywhere ("must have been"
/// is a guess, not an obligation); "we always" / "we never" before a verb
/// in the present.
fn is_obligation(s: &Sentence) -> bool {
    let line = s
        .line
        .replace(" must have been ", " ")
        .replace(" must've been ", " ");
    if OBLIGATION_PHRASES.iter().any(|p| has_phrase(&line, p)) {
        return true;
    }
    s.words
        .windows(3)
        .any(|w| w[0] == "we" && (w[1] == "always" || w[1] == "never") && !is_past(&w[2]))
}

/// Whether the text names a time: a relative or calendar expression
/// ([`parse_time`]: "yesterday", "last week", "3 days ago", "on Monday")
/// or a time of day ("3pm", "10:30").
fn names_a_time(text: &str) -> bool {
    CLOCK.is_match(text) || parse_time(text, REFERENCE).is_some()
}

/// Whether a lowercase word is a past tense: an irregular one, or a word
/// of five letters or more ending in "-ed" that is not a known exception.
fn is_past(word: &str) -> bool {
    IRREGULAR_PAST.contains(&word)
        || (word.len() >= 5 && word.ends_with("ed") && !NOT_PAST.contains(&word))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_section_heading_names_the_type_under_it() {
        let kind = |h: &str| section_route(h).map(|r| r.kind);
        assert_eq!(kind("Rules"), Some(MemoryType::Rule));
        assert_eq!(kind("rules for deploys:"), Some(MemoryType::Rule));
        assert_eq!(kind("2. Procedure"), Some(MemoryType::Procedure));
        assert_eq!(kind("How to roll back"), Some(MemoryType::Procedure));
        assert_eq!(kind("Decisions"), Some(MemoryType::Decision));
        assert_eq!(kind("Preferences"), Some(MemoryType::Preference));
        assert_eq!(kind("Deploy rules"), None);
        assert_eq!(kind("Rulers of Gondor"), None);
        assert_eq!(kind("Overview"), None);
        let r = route_in_section("Friday is quiet.", &["Runbook".into(), "Rules".into()]);
        assert_eq!((r.kind, r.rule), (MemoryType::Rule, SECTION_RULE));
        assert_eq!(
            route_in_section("Friday is quiet.", &[]).kind,
            MemoryType::Fact
        );
    }

    #[test]
    fn routes_text_to_a_type() {
        use MemoryType::*;
        let cases: &[(&str, MemoryType, &str)] = &[
            ("", Note, "empty"),
            ("  ... !!", Note, "empty"),
            // Procedures.
            (
                "1. Clone the repository.\n2. Run cargo build.\n3. Start the server.",
                Procedure,
                "numbered-steps",
            ),
            (
                "Step 1: open the dashboard. Step 2: click Deploy.",
                Procedure,
                "numbered-steps",
            ),
            (
                "First, install Rust, then run cargo build.",
                Procedure,
                "sequence",
            ),
            (
                "First back up the database. Next, run the migration.",
                Procedure,
                "sequence",
            ),
            (
                "To deploy, run make release and push the tag.",
                Procedure,
                "how-to",
            ),
            (
                "In order to reset a password, open the admin panel.",
                Procedure,
                "how-to",
            ),
            (
                "How to rotate keys: generate a new one and revoke the old.",
                Procedure,
                "how-to",
            ),
            // Rules.
            ("Always run the tests before pushing.", Rule, "imperative"),
            (
                "Never commit secrets to the repository.",
                Rule,
                "imperative",
            ),
            ("Don't use unwrap in library code.", Rule, "imperative"),
            ("Please do not force-push to main.", Rule, "imperative"),
            (
                "From now on, always answer in British English.",
                Rule,
                "imperative",
            ),
            ("Make sure the linter passes.", Rule, "imperative"),
            (
                "Passwords must be at least 12 characters.",
                Rule,
                "obligation",
            ),
            ("API keys should never appear in logs.", Rule, "obligation"),
            ("Direct pushes to main are not allowed.", Rule, "obligation"),
            (
                "We always squash commits before merging.",
                Rule,
                "obligation",
            ),
            // Decisions.
            (
                "We decided to move the cache to Redis.",
                Decision,
                "decision",
            ),
            ("The team agreed on weekly releases.", Decision, "decision"),
            (
                "We will use PostgreSQL for the main store.",
                Decision,
                "decision",
            ),
            (
                "We're going with Axum for the server.",
                Decision,
                "decision",
            ),
            (
                "We chose SQLite because it needs no server.",
                Decision,
                "decision",
            ),
            // Preferences.
            (
                "Dana prefers dark mode in every editor.",
                Preference,
                "preference",
            ),
            (
                "I like short answers with code first.",
                Preference,
                "preference",
            ),
            ("The user hates long preambles.", Preference, "preference"),
            ("I'd rather use tabs than spaces.", Preference, "preference"),
            ("My favourite language is Rust.", Preference, "preference"),
            ("She loves green tea.", Preference, "preference"),
            // Feedback.
            ("Great job on the refactor, thanks.", Feedback, "feedback"),
            ("That's wrong, the port is 8080.", Feedback, "feedback"),
            // Episodes.
            ("The outage happened on 2024-03-05.", Episode, "date"),
            ("Dana joined the team on 3 May 2023.", Episode, "date"),
            ("Release 1.2 shipped March 14th.", Episode, "date"),
            (
                "Yesterday we migrated the users table.",
                Episode,
                "past-event",
            ),
            ("I met Sam for lunch last week.", Episode, "past-event"),
            ("The build broke at 3pm.", Episode, "past-event"),
            ("The demo will run next Tuesday.", Episode, "planned-event"),
            // Questions and facts.
            ("What port does the server listen on?", Note, "question"),
            ("The server listens on port 8080.", Fact, "statement"),
            ("Paris is the capital of France.", Fact, "statement"),
            ("Dana works on the billing team.", Fact, "statement"),
            ("It looks like the cache is cold.", Fact, "statement"),
            ("I don't know the answer yet.", Fact, "statement"),
            ("It must have been the cache.", Fact, "statement"),
            (
                "Rust uses ownership to manage memory. Is that clear?",
                Fact,
                "statement",
            ),
            ("Vec<String> holds owned strings.", Fact, "statement"),
        ];
        for (text, kind, rule) in cases {
            let r = route(text);
            assert_eq!((r.kind, r.rule), (*kind, *rule), "{text:?}");
            assert_eq!(r.tier, kind.tier());
        }
        assert!(cases.len() >= 25);
    }

    #[test]
    fn every_rule_is_listed_once_with_its_tier() {
        for (i, (name, _)) in RULES.iter().enumerate() {
            assert!(!RULES[..i].iter().any(|(n, _)| n == name), "{name}");
        }
        assert_eq!(route("Always lint.").tier, Tier::Procedural);
        assert_eq!(route("Yesterday it rained.").tier, Tier::Episodic);
        assert_eq!(route("Water boils at 100 °C.").tier, Tier::Semantic);
        assert_eq!(route("Why?").tier, Tier::Working);
    }

    #[test]
    fn is_deterministic() {
        let text = "Last Monday we decided nothing. Always check.";
        assert_eq!(route(text), route(text));
    }
}
