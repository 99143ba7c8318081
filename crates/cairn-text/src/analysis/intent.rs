//! What a message does: asks, requests, states, decides, expresses a
//! preference or greets. Rule-based, on lowercase words, sentence by
//! sentence.
//!
//! Each sentence gets the intents whose cue it carries; a sentence with no
//! cue (or a long one that merely opens with a greeting) is a
//! [`Intent::Statement`]. A polite question that asks for an action
//! ("can you send it?") is a [`Intent::Request`], not a
//! [`Intent::Question`]. The message's intents are the union over its
//! sentences, in the order of the [`Intent`] enum.

use serde::{Deserialize, Serialize};

/// One thing a message does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Intent {
    /// Asks for information: ends with `?` or starts with a wh-word.
    Question,
    /// Asks for an action: "can you", "could you", "please", an imperative
    /// verb at the start.
    Request,
    /// States something; the intent of a sentence with no other cue.
    Statement,
    /// Records a choice: "we decided", "let's go with", "we'll use".
    Decision,
    /// States a like or dislike: "I prefer", "I like", "I'd rather", "I hate".
    Preference,
    /// Greets, thanks or says goodbye: "hi", "hello", "thanks".
    Greeting,
}

impl Intent {
    /// The lowercase name, as serialised.
    pub fn as_str(self) -> &'static str {
        match self {
            Intent::Question => "question",
            Intent::Request => "request",
            Intent::Statement => "statement",
            Intent::Decision => "decision",
            Intent::Preference => "preference",
            Intent::Greeting => "greeting",
        }
    }
}

impl std::fmt::Display for Intent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Words that open a question.
const WH_WORDS: &[&str] = &[
    "what", "why", "how", "when", "where", "who", "whom", "whose", "which",
];

/// Phrases (anywhere in a sentence) that ask for an action.
const REQUEST_PHRASES: &[&str] = &[
    "can you",
    "could you",
    "would you",
    "will you",
    "can u",
    "please",
    "pls",
    "plz",
    "i need you to",
    "i want you to",
    "i'd like you to",
    "would you mind",
    "help me",
    "make sure",
    "don't forget to",
    "remember to",
];

/// Verbs that make an imperative when they open a sentence.
const IMPERATIVE_VERBS: &[&str] = &[
    "add",
    "change",
    "check",
    "create",
    "delete",
    "explain",
    "find",
    "fix",
    "give",
    "list",
    "look",
    "move",
    "remove",
    "rename",
    "run",
    "send",
    "show",
    "tell",
    "update",
    "write",
    "summarize",
    "summarise",
    "translate",
    "implement",
    "refactor",
    "install",
    "open",
    "stop",
    "use",
    "try",
    "set",
    "make",
    "deploy",
    "review",
];

/// Phrases that record a decision.
const DECISION_PHRASES: &[&str] = &[
    "we decided",
    "i decided",
    "we've decided",
    "i've decided",
    "we have decided",
    "decided to",
    "decided on",
    "decided against",
    "let's go with",
    "lets go with",
    "let's use",
    "let's do",
    "lets do",
    "we'll use",
    "we will use",
    "we'll go with",
    "we will go with",
    "i'll go with",
    "we're going with",
    "we are going with",
    "we agreed",
    "agreed to",
    "the decision is",
    "our decision",
    "settled on",
    "we chose",
    "we picked",
    "we'll stick with",
    "going forward we",
    "from now on",
];

/// Phrases that state a preference.
const PREFERENCE_PHRASES: &[&str] = &[
    "i prefer",
    "i'd prefer",
    "i would prefer",
    "i like",
    "i love",
    "i'd rather",
    "i would rather",
    "i hate",
    "i dislike",
    "i don't like",
    "i do not like",
    "i can't stand",
    "i enjoy",
    "my favorite",
    "my favourite",
    "i'm a fan of",
    "i am a fan of",
    "i'm not a fan of",
    "i prefer not",
];

/// Words or phrases that greet, thank or say goodbye when they open a
/// sentence.
const GREETING_PHRASES: &[&str] = &[
    "hi",
    "hello",
    "hey",
    "hiya",
    "yo",
    "greetings",
    "good morning",
    "good afternoon",
    "good evening",
    "good night",
    "thanks",
    "thank you",
    "thx",
    "ty",
    "cheers",
    "bye",
    "goodbye",
    "see you",
    "see ya",
    "welcome",
    "much appreciated",
];

/// The intents of a message, deduplicated, in the order of [`Intent`].
/// Empty text has none.
pub fn classify_intents(text: &str) -> Vec<Intent> {
    let mut found = [false; 6];
    for sentence in sentences(text) {
        for intent in sentence_intents(sentence) {
            found[intent as usize] = true;
        }
    }
    ALL.iter().copied().filter(|i| found[*i as usize]).collect()
}

const ALL: [Intent; 6] = [
    Intent::Question,
    Intent::Request,
    Intent::Statement,
    Intent::Decision,
    Intent::Preference,
    Intent::Greeting,
];

/// Sentences: runs ending at `.`, `!`, `?` or a newline, with the ending
/// kept (a `?` decides a question).
fn sentences(text: &str) -> impl Iterator<Item = &str> {
    text.split_inclusive(['.', '!', '?', '\n'])
        .map(str::trim)
        .filter(|s| s.chars().any(char::is_alphanumeric))
}

/// Lowercase words of a sentence, apostrophes normalised to `'`.
pub(crate) fn words(sentence: &str) -> Vec<String> {
    sentence
        .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’'))
        .filter(|w| !w.is_empty())
        .map(|w| w.replace('’', "'").to_lowercase())
        .collect()
}

/// The words joined by single spaces, with a space at each end, so that a
/// phrase is found as a whole-word substring.
pub(crate) fn word_line(words: &[String]) -> String {
    let mut line = String::with_capacity(words.iter().map(|w| w.len() + 1).sum::<usize>() + 1);
    line.push(' ');
    for w in words {
        line.push_str(w);
        line.push(' ');
    }
    line
}

/// Whether `phrase` (lowercase words separated by single spaces) occurs as
/// whole words in a [`word_line`].
pub(crate) fn has_phrase(line: &str, phrase: &str) -> bool {
    let bytes = line.as_bytes();
    line.match_indices(phrase)
        .any(|(i, _)| i > 0 && bytes[i - 1] == b' ' && bytes.get(i + phrase.len()) == Some(&b' '))
}

/// Whether a [`word_line`] opens with `phrase`.
fn starts_with_phrase(line: &str, phrase: &str) -> bool {
    line.get(1..).is_some_and(|rest| {
        rest.starts_with(phrase) && rest.as_bytes().get(phrase.len()) == Some(&b' ')
    })
}

fn sentence_intents(sentence: &str) -> Vec<Intent> {
    let w = words(sentence);
    if w.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let line = word_line(&w);
    let greeting = GREETING_PHRASES
        .iter()
        .any(|p| starts_with_phrase(&line, p));
    if greeting {
        out.push(Intent::Greeting);
    }
    let request = REQUEST_PHRASES.iter().any(|p| has_phrase(&line, p))
        || IMPERATIVE_VERBS.contains(&w[0].as_str());
    if request {
        out.push(Intent::Request);
    }
    let asks = sentence.ends_with('?') || WH_WORDS.contains(&w[0].as_str());
    if asks && !request {
        out.push(Intent::Question);
    }
    if DECISION_PHRASES.iter().any(|p| has_phrase(&line, p)) {
        out.push(Intent::Decision);
    }
    if PREFERENCE_PHRASES.iter().any(|p| has_phrase(&line, p)) {
        out.push(Intent::Preference);
    }
    // A greeting with a few words after it ("hi there", "thanks a lot") is
    // only a greeting; a longer sentence that merely opens with one still
    // states something.
    let greeting_only = greeting && w.len() <= 4;
    if out.is_empty() || (greeting && !greeting_only && out.len() == 1) {
        out.push(Intent::Statement);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use Intent::*;

    #[test]
    fn classifies_messages() {
        let table: &[(&str, &[Intent])] = &[
            ("What is the capital of France?", &[Question]),
            ("where did we put the config", &[Question]),
            ("Is the build green?", &[Question]),
            ("Can you send me the report?", &[Request]),
            ("Could you look at the failing test", &[Request]),
            ("Please add a retry to the client.", &[Request]),
            ("Fix the typo in the README", &[Request]),
            ("The deploy finished at noon.", &[Statement]),
            ("Our API runs on port 8080", &[Statement]),
            ("We decided to use PostgreSQL for the queue.", &[Decision]),
            ("Let's go with the second option.", &[Decision]),
            ("we'll use tokio for the runtime", &[Decision]),
            ("Sounds good, let's do that tomorrow.", &[Decision]),
            ("I prefer tabs over spaces.", &[Preference]),
            ("I'd rather not use Docker here", &[Preference]),
            ("I hate flaky tests", &[Preference]),
            ("I don’t like long meetings", &[Preference]),
            ("Hi!", &[Greeting]),
            ("hello there", &[Greeting]),
            ("Thanks a lot!", &[Greeting]),
            ("Good morning", &[Greeting]),
            (
                "Hi! Can you check the logs? I think the cache is stale.",
                &[Request, Statement, Greeting],
            ),
            ("Thanks, what time is the meeting?", &[Question, Greeting]),
            (
                "I like this. Why does it fail on Windows?",
                &[Question, Preference],
            ),
            ("history of the Roman empire", &[Statement]),
            ("", &[]),
            ("...", &[]),
        ];
        for (text, want) in table {
            assert_eq!(&classify_intents(text), want, "{text:?}");
        }
    }

    #[test]
    fn serialises_lowercase() {
        assert_eq!(serde_json::to_string(&Decision).unwrap(), "\"decision\"");
        let back: Intent = serde_json::from_str("\"greeting\"").unwrap();
        assert_eq!(back, Greeting);
        assert_eq!(Preference.to_string(), "preference");
    }
}
