//! The deflated `cl100k_base` table ([`super::cl100k`]) gives the tokens
//! `bpe-openai`'s own table gives (linked into tests only), and the counts
//! of the reference implementation (`tiktoken-rs`), on text of every kind.

use super::{cl100k, count_tokens};

/// Texts that exercise the encoder's tables and the pre-tokeniser: code,
/// CJK, emoji sequences, long words and runs, scripts with combining marks.
fn fixed_texts() -> Vec<String> {
    let mut texts: Vec<String> = [
        "",
        " ",
        "fn main() {\n    let v: Vec<u8> = (0..10).map(|i| i * 2).collect();\n}\n",
        "def f(x):\n\treturn {'a': [1, 2, 3], \"b\": None}  # comment\n",
        "SELECT id, content FROM memories WHERE tenant = $1 AND project IS NULL;",
        "{\"id\":\"0196a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b\",\"tags\":[\"x\",\"y\"]}",
        "中文字符的分词测试，包括标点符号。日本語のテキストとカタカナ、ひらがな。한국어 문장도 있습니다.",
        "🎉🎉🎉 👨‍👩‍👧‍👦 family, 👍🏽 skin tone, 🇫🇷🇯🇵 flags, ❤️‍🔥 and ✊🏿",
        "Donaudampfschifffahrtselektrizitätenhauptbetriebswerkbauunterbeamtengesellschaft",
        "pneumonoultramicroscopicsilicovolcanoconiosis antidisestablishmentarianism",
        "Ελληνικά, русский текст, עברית, العربية, हिन्दी, ภาษาไทย, ქართული",
        "e\u{301}te\u{301} cafe\u{301} n\u{303} — combining marks, and NFC: été café ñ",
        "numbers 1234567 3.14159 1,000,000 ٣٤٥ ⅷ 10^-9 0xDEADBEEF",
        "I'm can't we've they'll he'd SHE'S O'Neil's 'quoted' ‘curly’",
        "   \n\n\t  \r\n\u{a0}\u{2003}\u{3000}x  \n",
        "a<|endoftext|>b<|fim_prefix|>",
        "https://example.com/a/b?q=1&r=two#frag user@example.com /usr/local/bin",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    texts.push("a".repeat(5_000));
    texts.push("ab1 ".repeat(700));
    texts.push("xyzzy".repeat(300) + "!!!" + &"?".repeat(400));
    texts.push("QmFzZTY0IGlzIGEgbG9uZyB3b3JkIHdpdGhvdXQgc3BhY2Vz".repeat(40));
    texts.push("漢".repeat(1_000));
    texts.push("🦀".repeat(500));
    texts
}

/// Texts drawn from a pool of scripts, symbols and spaces by a fixed
/// generator: the same texts every run.
fn drawn_texts() -> Vec<String> {
    const POOL: &[&str] = &[
        "a", "Z", "e", "th", "ing", " ", "  ", "\n", "\t", "\r\n", "'", "'s", "1", "42", "2024",
        ".", ",", "!", "?", "-", "_", "/", "::", "()", "{}", "<|", "é", "ü", "ß", "中", "文", "の",
        "カ", "한", "я", "ж", "α", "ע", "ع", "ह", "ไ", "🎉", "👍🏽", "🇫🇷", "\u{301}", "\u{200d}",
        "\u{a0}", "€", "∑",
    ];
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) as usize
    };
    (0..300)
        .map(|_| {
            let len = next() % 120;
            (0..len).map(|_| POOL[next() % POOL.len()]).collect()
        })
        .collect()
}

#[test]
fn the_deflated_table_encodes_as_bpe_openai_and_counts_as_the_reference() {
    let ours = cl100k();
    let theirs = bpe_openai::cl100k_base();
    let reference = tiktoken_rs::cl100k_base().expect("tiktoken-rs ships cl100k_base");
    for text in fixed_texts().iter().chain(&drawn_texts()) {
        let tokens = ours.encode(text.as_str());
        assert_eq!(tokens, theirs.encode(text.as_str()), "{text:?}");
        assert_eq!(count_tokens(text), theirs.count(text.as_str()), "{text:?}");
        assert_eq!(
            count_tokens(text),
            reference.encode_ordinary(text).len(),
            "{text:?}"
        );
    }
}

#[test]
fn the_encoder_is_built_once_per_process() {
    assert!(std::ptr::eq(cl100k(), cl100k()));
    let a = std::thread::spawn(|| cl100k() as *const _ as usize);
    assert_eq!(a.join().unwrap(), cl100k() as *const _ as usize);
}
