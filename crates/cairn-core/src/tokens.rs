//! Exact token counts with OpenAI's `cl100k_base` encoding.
//!
//! The encoding is loaded once per process, on first use.

use std::sync::OnceLock;

use tiktoken_rs::CoreBPE;

fn bpe() -> &'static CoreBPE {
    static BPE: OnceLock<CoreBPE> = OnceLock::new();
    BPE.get_or_init(|| {
        // The encoding ships inside the tiktoken-rs crate; this cannot fail
        // unless the crate itself is broken.
        tiktoken_rs::cl100k_base().expect("tiktoken-rs ships cl100k_base")
    })
}

/// The number of `cl100k_base` tokens in `text`.
pub fn count_tokens(text: &str) -> usize {
    bpe().encode_with_special_tokens(text).len()
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
}
