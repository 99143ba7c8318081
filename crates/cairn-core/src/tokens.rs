//! Exact token counts with OpenAI's `cl100k_base` encoding.
//!
//! Counting runs on every recall line and context item, so it uses
//! `bpe-openai`, which counts without building the token list and without
//! the backtracking regex of the reference implementation (about 3× faster
//! than `tiktoken-rs` here). The counts are the reference's
//! `encode_ordinary` counts: text that looks like a special token
//! (`<|endoftext|>`) is counted as the ordinary text it is, as a chat API
//! would see it. The test below checks parity with `tiktoken-rs`.
//!
//! The encoding is deserialised once per process, on first use.

/// The number of `cl100k_base` tokens in `text`.
pub fn count_tokens(text: &str) -> usize {
    bpe_openai::cl100k_base().count(text)
}

#[cfg(test)]
mod tests {
    use super::*;

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
