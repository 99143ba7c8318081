//! The chunking stage: clean text to pieces of whole sentences, each within
//! a token budget, cut where the text changes paragraph or subject. The
//! rules are in the [module doc of `ingest`](super).

use std::ops::Range;

use crate::analysis::sentences::{is_heading, is_list_item, sentence_spans};
use crate::ingest::route::section_route;
use crate::kind::MemoryType;
use crate::similarity::cosine;
use crate::tokens::Tokenizer;

/// Tokens a chunk reaches before a paragraph or subject change may end it.
pub const DEFAULT_MIN_TOKENS: usize = 50;

/// Most tokens in a chunk of more than one sentence.
pub const DEFAULT_MAX_TOKENS: usize = 300;

/// Cosine similarity between consecutive sentences below which the second
/// starts a new subject (all-MiniLM-L6-v2; see [`ChunkOptions::drift`]).
pub const DEFAULT_DRIFT: f32 = 0.1;

/// How [`chunk`] cuts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChunkOptions {
    /// Tokens a chunk must hold before a paragraph break or a change of
    /// subject ends it; also the size under which the last piece joins the
    /// chunk before it. Default [`DEFAULT_MIN_TOKENS`] (50). Taken as
    /// `max_tokens` when larger.
    pub min_tokens: usize,
    /// Most tokens in a chunk; only a single sentence longer than this
    /// makes a chunk that exceeds it. Default [`DEFAULT_MAX_TOKENS`] (300).
    pub max_tokens: usize,
    /// The encoding tokens are counted in (exactly). Default `cl100k_base`.
    pub tokenizer: Tokenizer,
    /// Cosine similarity of two consecutive sentences' embeddings below
    /// which the second starts a new subject. Default [`DEFAULT_DRIFT`]
    /// (0.1), for all-MiniLM-L6-v2, whose consecutive sentences on one
    /// subject score about 0.1 to 0.75 (nine in ten above 0.13) and across
    /// a change of subject about −0.07 to 0.1. Two single sentences are a
    /// noisy signal, so the threshold sits at the bottom of the one-subject
    /// range: a higher one cuts inside a subject, and the cut chunk, under
    /// `min_tokens`, then cannot end at the real change a sentence or two
    /// later. A break is taken only once the chunk holds `min_tokens`.
    /// `f32::NEG_INFINITY` never breaks.
    pub drift: f32,
}

impl Default for ChunkOptions {
    fn default() -> Self {
        ChunkOptions {
            min_tokens: DEFAULT_MIN_TOKENS,
            max_tokens: DEFAULT_MAX_TOKENS,
            tokenizer: Tokenizer::default(),
            drift: DEFAULT_DRIFT,
        }
    }
}

/// A piece of the input: whole sentences, from the start of the first to
/// the end of the last.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// The text, exactly `input[start..end]` (paragraph breaks inside it
    /// kept).
    pub text: String,
    /// Byte offset in the input where the chunk's first sentence starts.
    pub start: usize,
    /// Byte offset in the input just after the chunk's last sentence.
    pub end: usize,
    /// The exact number of tokens in `text`.
    pub tokens: usize,
    /// Its sentences: their indexes among the sentences [`chunk`] handed
    /// to its `embed` (those of the whole input).
    pub sentences: Range<usize>,
    /// The Markdown headings it sits under, outermost first (without their
    /// `#`s); empty outside any heading. Headings are not part of `text`.
    pub section: Vec<String>,
}

/// Why a chunk may end before a sentence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Break {
    /// The sentence follows the one before it in the same paragraph, on
    /// the same subject.
    None,
    /// A blank line, or the sentence is a Markdown heading.
    Paragraph,
    /// The sentence's embedding drifted from the one before it.
    Subject,
    /// Another section starts (a heading came between), or a list item
    /// starts in a section whose heading names a type of atomic
    /// statements (Rules, Decisions, Preferences): always a cut.
    Section,
}

/// A run of sentences, by index, and its token count.
#[derive(Debug, Clone, Copy)]
struct Piece {
    first: usize,
    last: usize,
    tokens: usize,
}

/// Cuts `text` into chunks of whole sentences (the rules are in the
/// [module doc](super)). `embed` is called at most once, with every
/// sentence in order, and returns one vector per sentence; when it returns
/// anything else (an empty `Vec` included), the chunks ignore subject
/// changes. It is not called for text of fewer than two sentences. Text
/// without a sentence (empty, only whitespace) has no chunks.
pub fn chunk(
    text: &str,
    options: &ChunkOptions,
    embed: &mut dyn FnMut(&[&str]) -> Vec<Vec<f32>>,
) -> Vec<Chunk> {
    let all = sentence_spans(text);
    if all.is_empty() {
        return Vec::new();
    }
    let vectors = if all.len() > 1 {
        let sentences: Vec<&str> = all.iter().map(|r| &text[r.clone()]).collect();
        embed(&sentences)
    } else {
        Vec::new()
    };
    let semantic = vectors.len() == all.len();
    let layout = Layout::of(text, &all);
    // Body sentences, by index into `all`; headings only name sections
    // (unless the text is nothing but headings: then they are the text).
    let body: Vec<usize> = (0..all.len())
        .filter(|&i| layout.sections[i].is_none() || layout.all_headings)
        .collect();
    let spans: Vec<Range<usize>> = body.iter().map(|&i| all[i].clone()).collect();
    let section_of = |k: usize| layout.section_at(body[k]);
    let breaks: Vec<Break> = (0..spans.len())
        .map(|k| {
            let (i, prev) = (body[k], body[k.max(1) - 1]);
            if k == 0 {
                Break::None
            } else if section_of(k) != section_of(k - 1)
                || (layout.itemised[i] && is_list_item(text[all[i].clone()].trim_start()))
            {
                Break::Section
            } else if starts_paragraph(text, &all[prev], &all[i]) {
                Break::Paragraph
            } else if semantic && cosine(&vectors[prev], &vectors[i]) < options.drift {
                Break::Subject
            } else {
                Break::None
            }
        })
        .collect();
    let max = options.max_tokens;
    let min = options.min_tokens.min(max);
    let count = |first: usize, last: usize| {
        options
            .tokenizer
            .count(&text[spans[first].start..spans[last].end])
    };

    // Pack sentences into pieces, left to right.
    let mut pieces: Vec<Piece> = Vec::new();
    let mut current: Option<Piece> = None;
    for (i, brk) in breaks.iter().enumerate() {
        let alone = count(i, i);
        if alone > max {
            pieces.extend(current.take());
            pieces.push(Piece {
                first: i,
                last: i,
                tokens: alone,
            });
            continue;
        }
        if let Some(piece) = current.as_mut() {
            if *brk == Break::None || (*brk != Break::Section && piece.tokens < min) {
                let joined = count(piece.first, i);
                if joined <= max {
                    piece.last = i;
                    piece.tokens = joined;
                    continue;
                }
            }
            pieces.extend(current.take());
        }
        current = Some(Piece {
            first: i,
            last: i,
            tokens: alone,
        });
    }
    pieces.extend(current);

    // A piece under `min` joins the one before it when both fit, within
    // one section.
    let mut joined: Vec<Piece> = Vec::with_capacity(pieces.len());
    for piece in pieces {
        if piece.tokens < min && breaks[piece.first] != Break::Section {
            if let Some(previous) = joined.last_mut() {
                let tokens = count(previous.first, piece.last);
                if tokens <= max {
                    previous.last = piece.last;
                    previous.tokens = tokens;
                    continue;
                }
            }
        }
        joined.push(piece);
    }

    joined
        .into_iter()
        .map(|piece| {
            let (start, end) = (spans[piece.first].start, spans[piece.last].end);
            Chunk {
                text: text[start..end].to_string(),
                start,
                end,
                tokens: piece.tokens,
                sentences: body[piece.first]..body[piece.last] + 1,
                section: layout.section_at(body[piece.first]).to_vec(),
            }
        })
        .collect()
}

/// The Markdown structure of a text's sentences.
struct Layout {
    /// For a heading sentence, the section path it opens; `None` for body.
    sections: Vec<Option<Vec<String>>>,
    /// For each sentence, the index of the heading whose section it is in.
    owner: Vec<Option<usize>>,
    /// Whether the sentence's section cuts at each list item.
    itemised: Vec<bool>,
    /// Every sentence is a heading.
    all_headings: bool,
}

impl Layout {
    fn of(text: &str, spans: &[Range<usize>]) -> Layout {
        let mut stack: Vec<(usize, String)> = Vec::new();
        let mut sections = Vec::with_capacity(spans.len());
        let mut owner = Vec::with_capacity(spans.len());
        let mut itemised = Vec::with_capacity(spans.len());
        let mut current: Option<usize> = None;
        let mut cut_items = false;
        for (i, span) in spans.iter().enumerate() {
            let line = text[span.clone()].trim();
            if is_heading(line) {
                let level = line.bytes().take_while(|b| *b == b'#').count();
                let title = line[level..]
                    .trim()
                    .trim_end_matches('#')
                    .trim()
                    .to_string();
                stack.retain(|(l, _)| *l < level);
                stack.push((level, title.clone()));
                sections.push(Some(stack.iter().map(|(_, t)| t.clone()).collect()));
                current = Some(i);
                cut_items = section_route(&title).is_some_and(|r| {
                    matches!(
                        r.kind,
                        MemoryType::Rule | MemoryType::Decision | MemoryType::Preference
                    )
                });
            } else {
                sections.push(None);
            }
            owner.push(current);
            itemised.push(cut_items);
        }
        let all_headings = sections.iter().all(Option::is_some);
        Layout {
            sections,
            owner,
            itemised,
            all_headings,
        }
    }

    /// The section path sentence `i` is in.
    fn section_at(&self, i: usize) -> &[String] {
        if self.all_headings {
            return &[];
        }
        self.owner[i]
            .and_then(|h| self.sections[h].as_deref())
            .unwrap_or(&[])
    }
}

/// [`chunk`] without subject changes: paragraphs and the token bounds
/// alone decide.
pub fn chunk_without_embeddings(text: &str, options: &ChunkOptions) -> Vec<Chunk> {
    chunk(text, options, &mut |_| Vec::new())
}

/// Whether the sentence at `next` starts a paragraph: a blank line lies
/// between it and the sentence at `previous`, or it is a Markdown heading
/// (which happens only when the text is nothing but headings).
fn starts_paragraph(text: &str, previous: &Range<usize>, next: &Range<usize>) -> bool {
    let gap = &text[previous.end..next.start];
    gap.matches('\n').count() >= 2 || is_heading(&text[next.clone()])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::sentences::split_sentences;

    fn options(min_tokens: usize, max_tokens: usize) -> ChunkOptions {
        ChunkOptions {
            min_tokens,
            max_tokens,
            ..ChunkOptions::default()
        }
    }

    /// Checks what holds for every chunking: each chunk is the input's
    /// slice, starts at a sentence start and ends at a sentence end, its
    /// token count is exact, and the chunks hold every sentence but the
    /// headings once, in order.
    fn check(text: &str, chunks: &[Chunk], options: &ChunkOptions) {
        let spans = sentence_spans(text);
        let starts: Vec<usize> = spans.iter().map(|r| r.start).collect();
        let ends: Vec<usize> = spans.iter().map(|r| r.end).collect();
        let heading = |i: usize| is_heading(text[spans[i].clone()].trim());
        let only_headings = (0..spans.len()).all(heading);
        let mut next_sentence = 0;
        for c in chunks {
            while !only_headings && heading(next_sentence) {
                next_sentence += 1;
            }
            assert_eq!(c.text, &text[c.start..c.end]);
            assert!(
                starts.contains(&c.start),
                "{:?} starts mid-sentence",
                c.text
            );
            assert!(ends.contains(&c.end), "{:?} ends mid-sentence", c.text);
            assert_eq!(c.tokens, options.tokenizer.count(&c.text));
            assert_eq!(c.start, starts[next_sentence], "a sentence was skipped");
            assert_eq!(
                c.sentences.start, next_sentence,
                "its first sentence's index"
            );
            next_sentence = ends.iter().position(|e| *e == c.end).unwrap() + 1;
            assert_eq!(c.sentences.end, next_sentence, "its last sentence's index");
            let sentences = split_sentences(&c.text).len();
            assert!(
                c.tokens <= options.max_tokens || sentences == 1,
                "{} tokens in {sentences} sentences",
                c.tokens
            );
        }
        assert_eq!(next_sentence, spans.len(), "sentences left out");
    }

    /// `n` sentences about one subject, each a dozen tokens.
    fn sentences(subject: &str, n: usize) -> String {
        (0..n)
            .map(|i| format!("The {subject} note number {i} says something plain and short."))
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn no_sentences_no_chunks() {
        for text in ["", "   ", "\n\n\t \n"] {
            let mut calls = 0;
            let chunks = chunk(text, &ChunkOptions::default(), &mut |s| {
                calls += 1;
                vec![vec![1.0]; s.len()]
            });
            assert!(chunks.is_empty(), "{text:?}");
            assert_eq!(calls, 0);
        }
    }

    #[test]
    fn a_short_text_is_one_chunk() {
        let text = "  Hello there. This is short.\n";
        let o = ChunkOptions::default();
        let chunks = chunk_without_embeddings(text, &o);
        check(text, &chunks, &o);
        assert_eq!(chunks.len(), 1);
        assert_eq!(chunks[0].text, "Hello there. This is short.");
        assert_eq!((chunks[0].start, chunks[0].end), (2, 29));
    }

    #[test]
    fn packs_sentences_up_to_max_tokens_without_cutting_one() {
        let text = sentences("alpha", 40);
        let o = options(20, 60);
        let chunks = chunk_without_embeddings(&text, &o);
        check(&text, &chunks, &o);
        assert!(chunks.len() > 5);
        for c in &chunks {
            assert!(c.tokens <= 60, "{}", c.tokens);
            assert!(c.tokens >= 20, "{}", c.tokens);
            assert!(c.text.ends_with('.'));
        }
        // Packed: another sentence would not have fitted.
        let sentence = o.tokenizer.count(split_sentences(&text)[0]);
        for c in &chunks[..chunks.len() - 1] {
            assert!(
                c.tokens + sentence > 60,
                "{} tokens could take more",
                c.tokens
            );
        }
    }

    #[test]
    fn breaks_at_paragraphs_once_min_tokens_is_reached() {
        let text = format!(
            "{}\n\n{}\n\n{}",
            sentences("first", 6),
            sentences("second", 6),
            sentences("third", 6)
        );
        let o = options(30, 300);
        let chunks = chunk_without_embeddings(&text, &o);
        check(&text, &chunks, &o);
        assert_eq!(chunks.len(), 3);
        assert!(chunks[0].text.starts_with("The first"));
        assert!(chunks[1].text.starts_with("The second"));
        assert!(chunks[2].text.starts_with("The third"));
        assert!(chunks.iter().all(|c| !c.text.contains("\n\n")));

        // Paragraphs under min_tokens are packed together.
        let o = options(200, 300);
        let chunks = chunk_without_embeddings(&text, &o);
        check(&text, &chunks, &o);
        assert_eq!(chunks.len(), 1);
        assert_eq!(chunks[0].text, text);
    }

    #[test]
    fn a_heading_starts_a_paragraph() {
        let text = format!(
            "# One\n{}\n# Two\n{}",
            sentences("first", 6),
            sentences("second", 6)
        );
        let o = options(30, 300);
        let chunks = chunk_without_embeddings(&text, &o);
        check(&text, &chunks, &o);
        assert_eq!(chunks.len(), 2);
        assert!(
            chunks[1].text.starts_with("The second"),
            "{:?}",
            chunks[1].text
        );
        assert_eq!(chunks[0].section, ["One"]);
        assert_eq!(chunks[1].section, ["Two"]);
    }

    #[test]
    fn a_heading_always_cuts_and_names_the_sections_below_it() {
        let text = "# Atlas deploy runbook\nAtlas is deployed from main.\n\n## Rules\n- Never deploy on Friday.\n- Always run migrations first.\n\n## Procedure\n1. Tag the release.\n2. Run the deploy job.\n";
        let o = options(50, 300);
        let chunks = chunk_without_embeddings(text, &o);
        check(text, &chunks, &o);
        let got: Vec<(&str, Vec<String>)> = chunks
            .iter()
            .map(|c| (c.text.as_str(), c.section.clone()))
            .collect();
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            got,
            vec![
                ("Atlas is deployed from main.", s(&["Atlas deploy runbook"])),
                (
                    "- Never deploy on Friday.",
                    s(&["Atlas deploy runbook", "Rules"])
                ),
                (
                    "- Always run migrations first.",
                    s(&["Atlas deploy runbook", "Rules"])
                ),
                (
                    "1. Tag the release.\n2. Run the deploy job.",
                    s(&["Atlas deploy runbook", "Procedure"])
                ),
            ]
        );
        assert!(chunks.iter().all(|c| !c.text.contains('#')));
    }

    #[test]
    fn a_text_of_only_headings_is_kept_as_text() {
        let text = "# One\n## Two";
        let o = options(5, 300);
        let chunks = chunk_without_embeddings(text, &o);
        check(text, &chunks, &o);
        assert_eq!(chunks.len(), 1);
        assert_eq!(chunks[0].text, text);
        assert!(chunks[0].section.is_empty());
    }

    /// An embedder that knows two subjects: sentences naming "cats" point
    /// one way, all others at right angles to them.
    fn two_subjects(sentences: &[&str]) -> Vec<Vec<f32>> {
        sentences
            .iter()
            .map(|s| {
                if s.contains("cats") {
                    vec![1.0, 0.0]
                } else {
                    vec![0.0, 1.0]
                }
            })
            .collect()
    }

    #[test]
    fn breaks_where_the_subject_changes() {
        let text = format!("{} {}", sentences("cats", 8), sentences("tax", 8));
        let o = options(30, 300);
        let mut calls = Vec::new();
        let chunks = chunk(&text, &o, &mut |s| {
            calls.push(s.len());
            two_subjects(s)
        });
        check(&text, &chunks, &o);
        assert_eq!(calls, [16], "one batched call with every sentence");
        assert_eq!(chunks.len(), 2);
        assert!(chunks[0]
            .text
            .ends_with("cats note number 7 says something plain and short."));
        assert!(chunks[1].text.starts_with("The tax note number 0"));

        // Without embeddings the same text is one chunk.
        let chunks = chunk_without_embeddings(&text, &o);
        assert_eq!(chunks.len(), 1);

        // A vector count that does not match the sentences is ignored.
        let chunks = chunk(&text, &o, &mut |_| vec![vec![1.0, 0.0]]);
        assert_eq!(chunks.len(), 1);
    }

    #[test]
    fn a_subject_change_waits_for_min_tokens() {
        // One sentence about cats, then tax: the cat sentence alone is under
        // min_tokens, so it stays with the tax sentences.
        let text = format!("{} {}", sentences("cats", 1), sentences("tax", 8));
        let o = options(30, 300);
        let chunks = chunk(&text, &o, &mut two_subjects);
        check(&text, &chunks, &o);
        assert_eq!(chunks.len(), 1);
    }

    #[test]
    fn a_sentence_longer_than_max_tokens_is_a_chunk_of_its_own() {
        let long = format!(
            "This sentence goes on {} and only then ends.",
            "and on ".repeat(60)
        );
        let text = format!(
            "{} {long} {}",
            sentences("before", 3),
            sentences("after", 3)
        );
        let o = options(20, 50);
        let chunks = chunk_without_embeddings(&text, &o);
        check(&text, &chunks, &o);
        let whole: Vec<&Chunk> = chunks.iter().filter(|c| c.text == long).collect();
        assert_eq!(whole.len(), 1, "{chunks:#?}");
        assert!(whole[0].tokens > 50);
        assert!(chunks[0].text.starts_with("The before"));
        assert!(chunks.last().unwrap().text.starts_with("The after"));
    }

    #[test]
    fn a_small_trailing_piece_joins_the_chunk_before() {
        let text = format!("{}\n\nThanks.", sentences("main", 6));
        let o = options(30, 300);
        let chunks = chunk_without_embeddings(&text, &o);
        check(&text, &chunks, &o);
        assert_eq!(chunks.len(), 1);
        assert!(chunks[0].text.ends_with("\n\nThanks."));

        // Unless the join would pass max_tokens.
        let full = o.tokenizer.count(&sentences("main", 6));
        let o = options(30, full + 1);
        let chunks = chunk_without_embeddings(&text, &o);
        check(&text, &chunks, &o);
        assert_eq!(chunks.len(), 2);
        assert_eq!(chunks[1].text, "Thanks.");
    }

    #[test]
    fn offsets_map_back_to_the_input() {
        let text =
            "Café au lait coûte 3 €. Ça va?\n\n  Überall: naïve résumé!\n\n\n你好。今天天气很好！";
        let o = options(1, 8);
        let chunks = chunk_without_embeddings(text, &o);
        check(text, &chunks, &o);
        assert!(chunks.len() > 1);
        for c in &chunks {
            assert!(text.is_char_boundary(c.start) && text.is_char_boundary(c.end));
            assert_eq!(&text[c.start..c.end], c.text);
        }
    }

    #[test]
    fn counts_tokens_with_the_chosen_encoding() {
        let text = sentences("count", 10);
        for tokenizer in Tokenizer::ALL {
            let o = ChunkOptions {
                tokenizer: *tokenizer,
                ..options(10, 40)
            };
            let chunks = chunk_without_embeddings(&text, &o);
            check(&text, &chunks, &o);
        }
    }
}
