//! Sentence splitting: the unit the summariser picks and the window
//! optimiser shortens by, so that nothing is ever cut mid-sentence.
//!
//! The text is first cut into blocks by lines:
//! - a blank line ends a paragraph;
//! - a Markdown heading (`#` … `######` then a space) is a sentence of its
//!   own;
//! - a Markdown list item (`-`, `*`, `+`, `1.`, `1)` then a space), with the
//!   lines that continue it up to the next blank line, item or heading, is a
//!   sentence of its own; so is a table row (a line starting with `|`);
//! - a fenced code block (from a ```` ``` ```` or `~~~` line to the next)
//!   is one sentence.
//!
//! A paragraph is then split after a run of terminators (`.`, `!`, `?`, `…`,
//! `。`, `！`, `？`), with any closing quotes or brackets after it, when
//! whitespace and more text follow, except:
//! - an ellipsis (`...` or `…`) is a pause, never an end;
//! - a single `.` after a known abbreviation (`e.g.`, `i.e.`, `Dr.`, `vs.`,
//!   [`ABBREVIATIONS`]) or a single-letter initial (`J. Smith`) is not an
//!   end;
//! - a single `.` followed by a lowercase letter is not an end (sentences
//!   start with a capital, a digit or a symbol; this keeps unknown
//!   abbreviations whole, at the cost of joining a lowercase chat reply to
//!   the sentence before it).
//!
//! A terminator must be followed by whitespace, so decimals (`3.14`),
//! versions (`v1.2`), file names and URLs (`example.com/a.b`) never split.
//! CJK terminators (`。！？`) end a sentence without a following space.

use std::ops::Range;

/// Words (lowercase, without their final period) whose period does not end
/// a sentence.
pub const ABBREVIATIONS: &[&str] = &[
    "e.g", "i.e", "eg", "ie", "cf", "vs", "viz", "al", "approx", "ca", "resp", "dr", "mr", "mrs",
    "ms", "prof", "sr", "jr", "st", "mt", "gen", "col", "capt", "lt", "sgt", "rev", "hon", "fig",
    "figs", "no", "nos", "vol", "vols", "pp", "ed", "eds", "dept", "est", "inc", "ltd", "corp",
    "co", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
    "a.m", "p.m", "u.s", "u.k", "ph.d", "min", "max", "sec", "ref", "refs", "ch", "sect",
];

/// The sentences of `text`, trimmed, in order, as slices of `text`.
pub fn split_sentences(text: &str) -> Vec<&str> {
    sentence_spans(text).into_iter().map(|r| &text[r]).collect()
}

/// The byte ranges of [`split_sentences`]'s sentences in `text`.
pub fn sentence_spans(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    for block in blocks(text) {
        match block.kind {
            BlockKind::Whole => push_trimmed(text, block.range, &mut out),
            BlockKind::Prose => split_prose(text, block.range, &mut out),
        }
    }
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BlockKind {
    /// One sentence whatever it holds (heading, list item, table row, code).
    Whole,
    /// A paragraph, split by punctuation.
    Prose,
}

struct Block {
    kind: BlockKind,
    range: Range<usize>,
}

/// Whether `line` (without its indentation) is a Markdown heading: one to
/// six `#` then a space or the end of the line.
pub(crate) fn is_heading(line: &str) -> bool {
    let hashes = line.bytes().take_while(|b| *b == b'#').count();
    (1..=6).contains(&hashes)
        && line[hashes..]
            .chars()
            .next()
            .is_none_or(|c| c.is_whitespace())
}

pub(crate) fn is_list_item(line: &str) -> bool {
    let mut chars = line.chars();
    match chars.next() {
        Some('-' | '*' | '+') => chars.next().is_some_and(|c| c == ' ' || c == '\t'),
        Some(c) if c.is_ascii_digit() => {
            let digits = line.bytes().take_while(u8::is_ascii_digit).count();
            let rest = &line[digits..];
            digits <= 9
                && (rest.starts_with(". ") || rest.starts_with(") ") || rest.starts_with(".\t"))
        }
        _ => false,
    }
}

fn is_fence(line: &str) -> bool {
    line.starts_with("```") || line.starts_with("~~~")
}

/// Cut `text` into blocks (see the module doc).
fn blocks(text: &str) -> Vec<Block> {
    let mut out: Vec<Block> = Vec::new();
    let mut current: Option<Block> = None;
    let mut in_fence = false;
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let range = start..start + line.len();
        start = range.end;
        let trimmed = line.trim_start();
        if in_fence {
            if let Some(b) = current.as_mut() {
                b.range.end = range.end;
            }
            if is_fence(trimmed) {
                in_fence = false;
                out.extend(current.take());
            }
            continue;
        }
        if trimmed.trim().is_empty() {
            out.extend(current.take());
            continue;
        }
        if is_fence(trimmed) {
            out.extend(current.take());
            in_fence = true;
            current = Some(Block {
                kind: BlockKind::Whole,
                range,
            });
            continue;
        }
        if is_heading(trimmed) || trimmed.starts_with('|') {
            out.extend(current.take());
            out.push(Block {
                kind: BlockKind::Whole,
                range,
            });
            continue;
        }
        if is_list_item(trimmed) {
            out.extend(current.take());
            current = Some(Block {
                kind: BlockKind::Whole,
                range,
            });
            continue;
        }
        match current.as_mut() {
            Some(b) => b.range.end = range.end,
            None => {
                current = Some(Block {
                    kind: BlockKind::Prose,
                    range,
                })
            }
        }
    }
    out.extend(current);
    out
}

fn push_trimmed(text: &str, range: Range<usize>, out: &mut Vec<Range<usize>>) {
    let s = &text[range.clone()];
    let lead = s.len() - s.trim_start().len();
    let trail = s.len() - s.trim_end().len();
    if lead + trail < s.len() {
        out.push(range.start + lead..range.end - trail);
    }
}

fn is_terminator(c: char) -> bool {
    matches!(c, '.' | '!' | '?' | '…' | '。' | '！' | '？')
}

fn is_closer(c: char) -> bool {
    matches!(
        c,
        '"' | '\'' | '”' | '’' | ')' | ']' | '}' | '»' | '*' | '_' | '`'
    )
}

/// Split one paragraph after its sentence ends (see the module doc).
fn split_prose(text: &str, range: Range<usize>, out: &mut Vec<Range<usize>>) {
    let end = range.end;
    let mut sentence_start = range.start;
    let mut i = range.start;
    while i < end {
        let c = text[i..end].chars().next().unwrap_or(' ');
        if !is_terminator(c) {
            i += c.len_utf8();
            continue;
        }
        // The run of terminators, then its closers.
        let run_start = i;
        let mut j = i;
        while let Some(c) = text[j..end].chars().next().filter(|c| is_terminator(*c)) {
            j += c.len_utf8();
        }
        let run = &text[run_start..j];
        while let Some(c) = text[j..end].chars().next().filter(|c| is_closer(*c)) {
            j += c.len_utf8();
        }
        let cjk = run.contains(['。', '！', '？']);
        let next = text[j..end].chars().next();
        let spaced = next.is_some_and(char::is_whitespace);
        if next.is_none() || !(spaced || cjk) {
            i = j.max(run_start + 1);
            continue;
        }
        // The first character of what follows.
        let k = j + (text[j..end].len() - text[j..end].trim_start().len());
        let following = text[k..end].chars().next();
        let Some(following) = following else {
            i = j;
            continue;
        };
        if ends_sentence(&text[sentence_start..run_start], run, following, cjk) {
            push_trimmed(text, sentence_start..j, out);
            sentence_start = k;
            i = k;
        } else {
            i = j;
        }
    }
    push_trimmed(text, sentence_start..end, out);
}

/// Whether the terminator run `run`, after `before` (the sentence so far)
/// and followed by whitespace then `following`, ends a sentence.
fn ends_sentence(before: &str, run: &str, following: char, cjk: bool) -> bool {
    if cjk || run.contains(['!', '?']) {
        return true;
    }
    if run.contains('…') || run.len() > 1 {
        // An ellipsis is a pause.
        return false;
    }
    if following.is_lowercase() {
        return false;
    }
    let word = before
        .rsplit(char::is_whitespace)
        .next()
        .unwrap_or("")
        .trim_start_matches(|c: char| !c.is_alphanumeric());
    let mut letters = word.chars();
    if let (Some(c), None) = (letters.next(), letters.next()) {
        if c.is_alphabetic() && c.is_uppercase() {
            // An initial: "J. Smith".
            return false;
        }
    }
    let lower = word.to_lowercase();
    !ABBREVIATIONS.contains(&lower.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_sentences_and_paragraphs() {
        let cases: &[(&str, &[&str])] = &[
            ("", &[]),
            ("   \n\n ", &[]),
            ("One sentence", &["One sentence"]),
            (
                "First one. Second one! Third one? Fourth.",
                &["First one.", "Second one!", "Third one?", "Fourth."],
            ),
            (
                "Use a tool, e.g. ripgrep. It is fast.",
                &["Use a tool, e.g. ripgrep.", "It is fast."],
            ),
            (
                "Ask Dr. Smith about it. She knows.",
                &["Ask Dr. Smith about it.", "She knows."],
            ),
            (
                "Pi is 3.14 roughly. Upgrade to v1.2 today.",
                &["Pi is 3.14 roughly.", "Upgrade to v1.2 today."],
            ),
            (
                "See https://example.com/a.b?q=1. Then read docs.rs/serde.",
                &["See https://example.com/a.b?q=1.", "Then read docs.rs/serde."],
            ),
            (
                "Wait... what happened? I thought… Maybe not.",
                &["Wait... what happened?", "I thought… Maybe not."],
            ),
            (
                "He said \"stop.\" Then he left.",
                &["He said \"stop.\"", "Then he left."],
            ),
            (
                "Line one of a paragraph\ncontinues here. New sentence.\n\nNew paragraph",
                &[
                    "Line one of a paragraph\ncontinues here.",
                    "New sentence.",
                    "New paragraph",
                ],
            ),
            (
                "# Heading\nIntro text. More text.\n- item one. still item\n- item two\n1. numbered\n2) other\n## Next",
                &[
                    "# Heading",
                    "Intro text.",
                    "More text.",
                    "- item one. still item",
                    "- item two",
                    "1. numbered",
                    "2) other",
                    "## Next",
                ],
            ),
            (
                "J. R. R. Tolkien wrote it. Nice.",
                &["J. R. R. Tolkien wrote it.", "Nice."],
            ),
            (
                "done. then it broke. Really.",
                &["done. then it broke.", "Really."],
            ),
            ("Run it (see fig. 3). OK.", &["Run it (see fig. 3).", "OK."]),
            ("in version 2. Then", &["in version 2.", "Then"]),
            ("你好。今天天气很好！好", &["你好。", "今天天气很好！", "好"]),
            (
                "Code:\n```\nlet x = 1. y\n\nz\n```\nAfter.",
                &["Code:", "```\nlet x = 1. y\n\nz\n```", "After."],
            ),
            ("- a\n  continued. More\n\nText", &["- a\n  continued. More", "Text"]),
            ("#hashtag is prose. Yes.", &["#hashtag is prose.", "Yes."]),
        ];
        for (text, want) in cases {
            assert_eq!(split_sentences(text), *want, "{text:?}");
        }
    }

    #[test]
    fn spans_index_the_text() {
        let text = "  Alpha beta. Gamma!\n\n- delta\n";
        for r in sentence_spans(text) {
            assert_eq!(text[r.clone()].trim(), &text[r]);
        }
        assert_eq!(sentence_spans(text).len(), 3);
    }
}
