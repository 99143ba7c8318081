//! Exact token counts with OpenAI's `cl100k_base` encoding.
//!
//! Counting runs on every recall line and context item, so it uses
//! `bpe-openai`, which counts without building the token list and without
//! the backtracking regex of the reference implementation. The counts are the reference's
//! `encode_ordinary` counts: text that looks like a special token
//! (`<|endoftext|>`) is counted as the ordinary text it is, as a chat API
//! would see it. The test below checks parity with `tiktoken-rs`.
//!
//! The encoding is deserialised once per process, on first use; a call
//! that will count tokens starts that early with [`preload`].

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::{Arc, Mutex, Once};

/// Start deserialising the encoding on a thread of its own, once per
/// process, so that a short-lived process (`cairn recall`) does it while it
/// searches instead of after. Counting waits for it if it is not done.
pub fn preload() {
    static STARTED: Once = Once::new();
    STARTED.call_once(|| {
        std::thread::spawn(bpe_openai::cl100k_base);
    });
}

/// The number of `cl100k_base` tokens in `text`.
pub fn count_tokens(text: &str) -> usize {
    bpe_openai::cl100k_base().count(text)
}

/// Most entries a [`TokenCounter`] holds before it starts again.
const MEMO_ENTRIES: usize = 100_000;

/// Token counts of memory contents, remembered by content: recall answers
/// count each result against a budget, and the same memories come back
/// again and again. Keyed by a hash of the content itself, so an edit can
/// never leave a stale count. Cheap to clone (shared).
#[derive(Clone, Default)]
pub struct TokenCounter(Arc<Mutex<HashMap<(u64, usize), usize>>>);

impl TokenCounter {
    /// Tokens of `" " + content`: what a content adds after a line prefix
    /// that ends in punctuation (see [`TokenCounter::line`]).
    pub fn spaced(&self, content: &str) -> usize {
        let mut h = DefaultHasher::new();
        content.hash(&mut h);
        let key = (h.finish(), content.len());
        if let Some(n) = self.0.lock().ok().and_then(|m| m.get(&key).copied()) {
            return n;
        }
        let n = count_tokens(&format!(" {content}"));
        if let Ok(mut m) = self.0.lock() {
            if m.len() >= MEMO_ENTRIES {
                m.clear();
            }
            m.insert(key, n);
        }
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
        let tokens = count_tokens(prefix) + self.spaced(content);
        (format!("{prefix} {content}"), tokens)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
