//! Exact token counts with OpenAI's encodings: `cl100k_base` (the default,
//! [`count_tokens`]) and `o200k_base`, chosen by a [`Tokenizer`].
//!
//! Counting runs on every recall line and context item, so `cl100k_base`
//! uses `bpe-openai`, which counts without building the token list and
//! without the backtracking regex of the reference implementation.
//! `o200k_base`, asked for by name only (windows and prompts), uses
//! `tiktoken-rs`, the reference itself: `bpe-openai`'s precomputed
//! `o200k_base` table would put 32 MB into every binary. The counts are the
//! reference's `encode_ordinary` counts: text that looks like a special
//! token (`<|endoftext|>`) is counted as the ordinary text it is, as a chat
//! API would see it. The tests below check each against the other library.
//!
//! `bpe-openai`'s own `cl100k_base()` would link its 15 MB table into every
//! binary; this crate's build script writes the same table deflated (about
//! half the size), and `cl100k` inflates and deserialises it once per
//! process, on first use. A call that will count `cl100k_base` tokens
//! starts that early with [`preload`]. `o200k_base` too is built on first
//! use.

use std::collections::HashMap;
use std::fmt;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::io::Read;
use std::str::FromStr;
use std::sync::{Arc, Mutex, MutexGuard, Once, OnceLock};

use serde::{Deserialize, Serialize};

use crate::{Error, Result};

/// An encoding to count tokens with: `cl100k_base` (GPT-4, GPT-3.5; the
/// default) or `o200k_base` (GPT-4o and later). Names parse and print as
/// OpenAI spells them.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
pub enum Tokenizer {
    /// `cl100k_base`.
    #[default]
    #[serde(rename = "cl100k_base")]
    Cl100kBase,
    /// `o200k_base`.
    #[serde(rename = "o200k_base")]
    O200kBase,
}

impl Tokenizer {
    /// Every tokenizer, in the order errors list them.
    pub const ALL: &'static [Tokenizer] = &[Tokenizer::Cl100kBase, Tokenizer::O200kBase];

    /// The encoding's name: `cl100k_base` or `o200k_base`.
    pub fn as_str(self) -> &'static str {
        match self {
            Tokenizer::Cl100kBase => "cl100k_base",
            Tokenizer::O200kBase => "o200k_base",
        }
    }

    /// The exact number of tokens in `text` (the reference's
    /// `encode_ordinary` count: special-token look-alikes are plain text).
    pub fn count(&self, text: &str) -> usize {
        match self {
            Tokenizer::Cl100kBase => cl100k().count(text),
            Tokenizer::O200kBase => tiktoken_rs::o200k_base_singleton()
                .encode_ordinary(text)
                .len(),
        }
    }
}

impl fmt::Display for Tokenizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Tokenizer {
    type Err = Error;

    /// Parse `cl100k_base` or `o200k_base` (case and surrounding spaces
    /// ignored).
    fn from_str(s: &str) -> Result<Self> {
        let wanted = s.trim().to_ascii_lowercase();
        Tokenizer::ALL
            .iter()
            .copied()
            .find(|t| t.as_str() == wanted)
            .ok_or_else(|| {
                let names: Vec<&str> = Tokenizer::ALL.iter().map(|t| t.as_str()).collect();
                Error::invalid(format!(
                    "unknown tokenizer {s:?}: expected one of {}",
                    names.join(", ")
                ))
            })
    }
}

/// Start deserialising the encoding on a thread of its own, once per
/// process, so that a short-lived process (`cairn recall`) does it while it
/// searches instead of after. Counting waits for it if it is not done.
pub fn preload() {
    static STARTED: Once = Once::new();
    STARTED.call_once(|| {
        std::thread::spawn(cl100k);
    });
}

/// The number of `cl100k_base` tokens in `text`.
pub fn count_tokens(text: &str) -> usize {
    cl100k().count(text)
}

/// `cl100k_base`'s byte-pair table as `bpe-openai` serialises it (MessagePack),
/// deflated by `build.rs`.
static CL100K_TABLE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/cl100k_base.bpe.deflate"));

/// `cl100k_base`'s pre-tokeniser: OpenAI's published split pattern, with
/// its negative look-ahead `\s+(?!\S)` (which `regex-automata` lacks)
/// written as the look-ahead pattern `\s+\s` (whose last character
/// `bpe-openai` gives back) followed by `\s+`, as `bpe-openai` builds it.
const CL100K_SPLIT: [(&str, bool); 3] = [
    (
        r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+$",
        false,
    ),
    (r"\s+\s", true),
    (r"\s+", false),
];

/// The `cl100k_base` encoder, built on first use (inflating and
/// deserialising [`CL100K_TABLE`]) and kept for the process.
fn cl100k() -> &'static bpe_openai::Tokenizer {
    static CL100K: OnceLock<bpe_openai::Tokenizer> = OnceLock::new();
    CL100K.get_or_init(|| {
        let mut table = Vec::with_capacity(16 << 20);
        flate2::read::DeflateDecoder::new(CL100K_TABLE)
            .read_to_end(&mut table)
            .expect("build.rs deflated the table");
        let bpe = rmp_serde::from_slice(&table).expect("build.rs serialised the table");
        bpe_openai::Tokenizer::new_lookahead(bpe, &CL100K_SPLIT, false)
            .expect("the split pattern compiles")
    })
}

/// Entries a [`TokenCounter`] fills its newer generation with before that
/// becomes the older one (dropping the older): it holds between this many
/// and twice this many counts, those asked for lately.
const MEMO_ENTRIES: usize = 100_000;

/// Two generations of remembered counts: a count asked for is kept in
/// the newer; when the newer is full it replaces the older, so the counts
/// in use survive and the memo never starts again from nothing.
#[derive(Default)]
struct Memo {
    newer: HashMap<(u64, usize), usize>,
    older: HashMap<(u64, usize), usize>,
}

impl Memo {
    fn get(&mut self, key: (u64, usize)) -> Option<usize> {
        if let Some(&n) = self.newer.get(&key) {
            return Some(n);
        }
        let n = self.older.remove(&key)?;
        self.insert(key, n);
        Some(n)
    }

    fn insert(&mut self, key: (u64, usize), n: usize) {
        if self.newer.len() >= MEMO_ENTRIES {
            self.older = std::mem::take(&mut self.newer);
        }
        self.newer.insert(key, n);
    }
}

/// Token counts of memory contents and of the tokeniser's pieces,
/// remembered: recall answers count each result against a budget, and
/// the same memories come back again and again; a content never seen
/// before is mostly words seen before, each a piece of the tokeniser's
/// pre-split, counted on its own. Keyed by a hash of the text itself, so
/// an edit can never leave a stale count. Cheap to clone (shared).
#[derive(Clone, Default)]
pub struct TokenCounter(Arc<Mutex<Memo>>);

/// What a [`TokenCounter`] remembers a count of: the key of `text` as
/// `kind`.
fn memo_key(kind: u8, text: &str) -> (u64, usize) {
    let mut h = DefaultHasher::new();
    (kind, text).hash(&mut h);
    (h.finish(), text.len())
}

/// Memo keys' kinds.
const SPACED: u8 = 0;
const PIECE: u8 = 1;

impl TokenCounter {
    fn memo(&self) -> MutexGuard<'_, Memo> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The number of `cl100k_base` tokens in `text` ([`count_tokens`]),
    /// as the sum of its pre-split pieces' counts, each remembered.
    pub fn count(&self, text: &str) -> usize {
        let cl100k = cl100k();
        let pieces: Vec<(&str, (u64, usize))> = cl100k
            .split(text)
            .map(|piece| (piece, memo_key(PIECE, piece)))
            .collect();
        let mut total = 0;
        let mut unseen = Vec::new();
        let mut memo = self.memo();
        for &(piece, key) in &pieces {
            match memo.get(key) {
                Some(n) => total += n,
                None => unseen.push((piece, key)),
            }
        }
        drop(memo);
        if unseen.is_empty() {
            return total;
        }
        let counted: Vec<((u64, usize), usize)> = unseen
            .into_iter()
            .map(|(piece, key)| (key, cl100k.bpe.count(piece.as_bytes())))
            .collect();
        let mut memo = self.memo();
        for (key, n) in counted {
            total += n;
            memo.insert(key, n);
        }
        total
    }

    /// Tokens of `" " + content`: what a content adds after a line prefix
    /// that ends in punctuation (see [`TokenCounter::line`]).
    pub fn spaced(&self, content: &str) -> usize {
        let key = memo_key(SPACED, content);
        if let Some(n) = self.memo().get(key) {
            return n;
        }
        let n = self.count(&format!(" {content}"));
        self.memo().insert(key, n);
        n
    }

    /// The line `prefix + " " + content` and its exact token count.
    ///
    /// `prefix` must end in `]` (or other punctuation): the tokeniser's
    /// pre-split never joins punctuation with a following space, so the
    /// line's pieces are the prefix's followed by those of
    /// `" " + content`, and its count is their sum; the content's share
    /// comes from the memo.
    pub fn line(&self, prefix: &str, content: &str) -> (String, usize) {
        let tokens = self.count(prefix) + self.spaced(content);
        (format!("{prefix} {content}"), tokens)
    }
}

#[cfg(test)]
#[path = "tokens_table_tests.rs"]
mod table_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_memo_keeps_the_counts_in_use_when_it_turns_over() {
        let mut memo = Memo::default();
        memo.insert((0, 0), 7);
        for i in 1..MEMO_ENTRIES as u64 {
            memo.insert((i, 0), 1);
        }
        // Asked for again while the newer generation filled: moved over.
        assert_eq!(memo.get((0, 0)), Some(7));
        for i in 0..MEMO_ENTRIES as u64 {
            memo.insert((i, 1), 1);
        }
        assert_eq!(memo.get((0, 0)), Some(7), "kept through a turnover");
        assert_eq!(memo.get((5, 0)), None, "not asked for since: dropped");
        assert!(memo.newer.len() + memo.older.len() <= 2 * MEMO_ENTRIES);
    }

    /// What [`TokenCounter::line`] relies on: a line's count is its
    /// prefix's plus that of `" " + content`, whatever the content starts
    /// with.
    #[test]
    fn a_line_counts_as_its_prefix_plus_its_spaced_content() {
        let contents = [
            "atlas staging DB runs on a Hetzner box",
            "'s a contraction first",
            "123 starts with digits",
            "  two spaces first",
            "\nnewline first\r\n",
            "]] more brackets",
            "🎉 emoji, then 中文",
            "-dash",
            "",
            " ",
        ];
        let counter = TokenCounter::default();
        for (i, content) in contents.iter().enumerate() {
            for project in ["global", "atlas"] {
                let prefix = format!("- 0196a1b2c3d4e [fact · {project} · {:.4}]", 0.5 + i as f64);
                let (line, n) = counter.line(&prefix, content);
                assert_eq!(count_tokens(&line), n, "{line:?}");
                // A second call is answered by the memo, with the same count.
                assert_eq!(counter.line(&prefix, content).1, n);
            }
        }
    }

    #[test]
    fn counting_by_remembered_pieces_matches_the_encoder() {
        let counter = TokenCounter::default();
        let texts = [
            "the lighthouse keeper logs the fog every night at 03:00",
            "the lighthouse keeper's logbook, again: fog, fog and fog",
            "<|endoftext|> is counted as the text it is",
            "   leading spaces\n\n\ttabs and trailing   ",
            "émoji 🎉🎉 and ünïcödé, 中文字符 also Ελληνικά",
            "numbers 1234567 3.14159 and 1,000,000",
            "",
        ];
        for round in 0..2 {
            for text in texts {
                assert_eq!(
                    counter.count(text),
                    count_tokens(text),
                    "{text:?}, round {round}"
                );
            }
        }
        let long = texts.join(" ").repeat(50);
        assert_eq!(counter.count(&long), count_tokens(&long));
    }

    #[test]
    fn tokenizer_names_parse_and_print() {
        for t in Tokenizer::ALL {
            assert_eq!(t.to_string().parse::<Tokenizer>().unwrap(), *t);
        }
        assert_eq!(
            " O200K_BASE ".parse::<Tokenizer>().unwrap(),
            Tokenizer::O200kBase
        );
        assert_eq!(Tokenizer::default(), Tokenizer::Cl100kBase);
        let err = "gpt2".parse::<Tokenizer>().unwrap_err().to_string();
        assert!(
            err.contains("cl100k_base") && err.contains("o200k_base"),
            "{err}"
        );
        assert!(err.contains("gpt2"), "{err}");
        assert_eq!(
            serde_json::to_string(&Tokenizer::O200kBase).unwrap(),
            "\"o200k_base\""
        );
    }

    /// `o200k_base` is counted by `tiktoken-rs`; `bpe-openai` (a separate
    /// implementation, linked into tests only) must agree with it.
    #[test]
    fn o200k_matches_the_reference_implementation() {
        let reference = bpe_openai::o200k_base();
        for text in [
            "",
            "hello world",
            "émoji 🎉🎉 and ünïcödé, 中文字符 also Ελληνικά, русский текст",
            "numbers 1234567 3.14159 and 1,000,000",
            "code: fn main() { println!(\"{}\", x); }  // comment\n\tlet y = a->b;",
            "I'm can't we've they'll HE'D O'Neil's",
            "a<|endoftext|>b   \n\n\t  \r\n",
            "https://example.com/path?q=1&r=two#frag user@example.com",
        ] {
            assert_eq!(
                Tokenizer::O200kBase.count(text),
                reference.count(text),
                "{text:?}"
            );
            assert_eq!(Tokenizer::Cl100kBase.count(text), count_tokens(text));
        }
    }

    #[test]
    fn counts_known_strings() {
        assert_eq!(count_tokens(""), 0);
        // "hello world" is two tokens in cl100k_base.
        assert_eq!(count_tokens("hello world"), 2);
        assert!(count_tokens("a much longer sentence with several words") > 5);
    }

    /// Same counts as the reference implementation on text that exercises
    /// every branch of the pre-tokeniser: contractions, letters after
    /// punctuation, digit runs, whitespace runs before words and at the
    /// end, newlines, non-Latin scripts, emoji, code, and the line format
    /// of a recall answer.
    #[test]
    fn matches_the_reference_implementation() {
        let reference = tiktoken_rs::cl100k_base().expect("tiktoken-rs ships cl100k_base");
        let mut texts: Vec<String> = [
            "hello world",
            "  leading spaces and trailing   ",
            "tabs\tand\nnewlines\n\n  x\r\n\r\ny",
            "émoji 🎉🎉 and ünïcödé, 中文字符 also Ελληνικά, русский текст",
            "numbers 1234567 3.14159 and 1,000,000 and ٣٤٥",
            "code: fn main() { println!(\"{}\", x); }  // comment\n\tlet y = a->b;",
            "I'm can't we've they'll he'd SHE'S O'Neil's 'quoted'",
            "- 0196a1b2c3d4e [fact · atlas · 0.8123] atlas staging DB runs on a Hetzner box",
            "   \n\n\t  \r\n",
            "a<|endoftext|>b",
            "!!!???... ---- ==== ****",
            "https://example.com/path?q=1&r=two#frag user@example.com",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let doc = include_str!("../../../docs/ARCHITECTURE.md");
        let mut start = 0;
        while start < doc.len() {
            let mut end = (start + 300).min(doc.len());
            while !doc.is_char_boundary(end) {
                end += 1;
            }
            texts.push(doc[start..end].to_string());
            start = end;
        }
        for text in &texts {
            assert_eq!(
                count_tokens(text),
                reference.encode_ordinary(text).len(),
                "{text:?}"
            );
        }
    }
}
