//! The context-window optimiser: from candidate items in sections, the
//! context an LLM call gets, within a token budget counted exactly.
//!
//! A pure function ([`assemble`]): the engine maps memories and exchanges
//! to [`WindowItem`]s; this module knows nothing of the store.
//!
//! ## Sections
//! Output order is fixed ([`Section::ALL`]): procedural memories and rules,
//! working memory (the latest exchanges, verbatim), earlier exchanges and
//! topic summaries, long-term memories. Within a section, items keep the
//! caller's order (exchanges chronologically, say).
//!
//! ## Filling the budget
//! Candidates are admitted in this order:
//! 1. procedural items, by decreasing relevance;
//! 2. every other item, by decreasing relevance across the three other
//!    sections (ties: the section earlier in the output first, then the
//!    caller's order). Relevances must therefore be comparable across
//!    sections; a caller that wants the latest exchanges always in gives
//!    them a relevance above the rest.
//!
//! Each candidate costs the exact tokens of its rendered piece (its line or
//! JSON object), plus, for the first item of a section, the section's
//! heading, and for the first item of all, the format's frame. One that
//! fits is admitted whole. One that does not is shortened to the room left,
//! whole sentences only ([`crate::analysis::sentences`]): with
//! [`crate::analysis::summary`] over its sentence vectors when it has one per
//! sentence, else its leading sentences; if not even one sentence fits (or
//! it is a single sentence), it is left out. Later, smaller candidates may
//! still fit.
//!
//! The output is then rendered and counted exactly; the sum of the pieces'
//! counts is the count of the whole except where the tokenizer merges across
//! a joint (blank lines), so if the exact count is over the budget, the
//! last admitted item is dropped until it fits. The rendered output never
//! exceeds the budget.
//!
//! ## Formats
//! [`render`] (and the small template functions beside it) turn admitted
//! entries into text, so that a prompt builder can reuse them:
//! - Markdown: a `## heading` per section, an item per `- ` line (its
//!   further lines indented by two spaces);
//! - JSON: `{"items":[…]}`, each with section, id, text, tokens (of its
//!   text), summarised, tier and date;
//! - a `<memory>` block, a line per item (its whitespace runs and line
//!   breaks made single spaces) labelled with its tier, dated episodic
//!   lines prefixed with their date (UTC):
//!   ```text
//!   <memory>
//!   [Semantic] …
//!   [Episodic] 2024-01-15: …
//!   [Procedural] …
//!   </memory>
//!   ```

use std::str::FromStr;

use serde::Serialize;

use crate::analysis::sentences::split_sentences;
use crate::analysis::summary::{summarise, Target};
use crate::kind::{Tier, Timestamp};
use crate::tokens::Tokenizer;
use crate::{Error, Result};

mod render;
pub use render::{
    date, frame, item_piece, noted_text, render, section_gap, section_heading, tier_label,
};
use render::{section_blocks, ser_date};

/// Where an item goes in the window, in output order.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Section {
    /// Procedural memories and rules: always first, filled first.
    Procedural,
    /// Working memory: the latest exchanges, verbatim.
    Working,
    /// Relevant older exchanges and topic summaries.
    History,
    /// Relevant long-term memories.
    LongTerm,
}

impl Section {
    /// Every section, in output order.
    pub const ALL: [Section; 4] = [
        Section::Procedural,
        Section::Working,
        Section::History,
        Section::LongTerm,
    ];

    /// The section's heading in Markdown.
    pub fn title(self) -> &'static str {
        match self {
            Section::Procedural => "Procedures and rules",
            Section::Working => "Working memory",
            Section::History => "Earlier in this conversation",
            Section::LongTerm => "Long-term memory",
        }
    }
}

/// How the window is rendered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum WindowFormat {
    /// A `## heading` per section, a `- ` line per item.
    #[default]
    Markdown,
    /// `{"items":[…]}`.
    Json,
    /// A `<memory>` block, a `[Tier]` line per item.
    Memory,
}

impl WindowFormat {
    /// Every format, in the order errors list them.
    pub const ALL: [WindowFormat; 3] = [
        WindowFormat::Markdown,
        WindowFormat::Json,
        WindowFormat::Memory,
    ];

    /// The format's name: `markdown`, `json` or `memory`.
    pub fn as_str(self) -> &'static str {
        match self {
            WindowFormat::Markdown => "markdown",
            WindowFormat::Json => "json",
            WindowFormat::Memory => "memory",
        }
    }
}

impl std::fmt::Display for WindowFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for WindowFormat {
    type Err = Error;

    /// `markdown` (or `md`), `json`, `memory` (or `vault`, Memory Vault
    /// AI's name for the block); case ignored.
    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "markdown" | "md" => Ok(WindowFormat::Markdown),
            "json" => Ok(WindowFormat::Json),
            "memory" | "vault" => Ok(WindowFormat::Memory),
            _ => Err(Error::invalid(format!(
                "unknown format {s:?}: expected one of markdown, json, memory (or vault)"
            ))),
        }
    }
}

/// A candidate for the window.
#[derive(Debug, Clone, PartialEq)]
pub struct WindowItem {
    /// The item's id (a memory's or an exchange's).
    pub id: String,
    /// Where it goes.
    pub section: Section,
    /// Its text.
    pub text: String,
    /// How relevant it is to the call; comparable across the non-procedural
    /// sections (see the module doc).
    pub relevance: f64,
    /// Its tier: the label of its line in the `<memory>` format.
    pub tier: Tier,
    /// When it happened (shown for episodic items).
    pub date: Option<Timestamp>,
    /// The unit-norm vector of each sentence of `split_sentences(&text)`,
    /// in order, to summarise it by centrality; ignored unless there is one
    /// per sentence.
    pub vectors: Option<Vec<Vec<f32>>>,
    /// A note shown after its text, never shortened (which side of a
    /// known conflict it is: "outdated: …" or "current: …").
    pub note: Option<String>,
}

impl WindowItem {
    /// An item with no date and no vectors.
    pub fn new(
        id: impl Into<String>,
        section: Section,
        tier: Tier,
        text: impl Into<String>,
        relevance: f64,
    ) -> Self {
        WindowItem {
            id: id.into(),
            section,
            text: text.into(),
            relevance,
            tier,
            date: None,
            vectors: None,
            note: None,
        }
    }
}

/// What to assemble the window for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowOptions {
    /// Most tokens of the rendered output.
    pub budget: usize,
    /// The encoding to count with.
    pub tokenizer: Tokenizer,
    /// The output format.
    pub format: WindowFormat,
}

/// An item in the window.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct WindowEntry {
    /// Its section.
    pub section: Section,
    /// Its id.
    pub id: String,
    /// Its text in the window: whole, or whole sentences of it.
    pub text: String,
    /// Tokens of [`WindowEntry::text`].
    pub tokens: usize,
    /// Whether the text is shortened.
    pub summarised: bool,
    /// Its tier.
    pub tier: Tier,
    /// When it happened (`YYYY-MM-DD`, UTC).
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "ser_date")]
    #[schemars(with = "Option<String>")]
    pub date: Option<Timestamp>,
    /// The note shown after its text (which side of a known conflict it
    /// is).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Tokens spent on one section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct SectionTokens {
    /// The section.
    pub section: Section,
    /// Items in it.
    pub items: usize,
    /// Tokens of its rendered block (heading and pieces) alone.
    pub tokens: usize,
}

/// A candidate left out.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct LeftOut {
    /// Its id.
    pub id: String,
    /// Its section.
    pub section: Section,
    /// Tokens its piece would have taken (whole, or as admitted before
    /// being dropped).
    pub tokens: usize,
}

/// An assembled window.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Window {
    /// The rendered output.
    pub text: String,
    /// Its format.
    pub format: WindowFormat,
    /// The encoding counted with.
    pub tokenizer: Tokenizer,
    /// Exact tokens of [`Window::text`]; never above the budget.
    pub total_tokens: usize,
    /// The budget.
    pub budget: usize,
    /// `total_tokens / budget` (0 for a zero budget).
    pub budget_used: f64,
    /// Tokens per section, in output order (sections with items only).
    pub sections: Vec<SectionTokens>,
    /// The items in output order.
    pub items: Vec<WindowEntry>,
    /// The candidates left out, in admission order.
    pub left_out: Vec<LeftOut>,
}

/// An admitted candidate: its input index, entry and piece's tokens.
struct Admitted {
    index: usize,
    entry: WindowEntry,
}

/// Assemble the window (see the module doc).
pub fn assemble(items: &[WindowItem], options: WindowOptions) -> Window {
    let WindowOptions {
        budget,
        tokenizer,
        format,
    } = options;
    let count = |s: &str| tokenizer.count(s);
    let (open, close) = frame(format);
    let frame_cost = count(open) + count(close);
    let gap_cost = count(section_gap(format));
    let heading_cost: Vec<usize> = Section::ALL
        .iter()
        .map(|s| count(&section_heading(format, *s)) + gap_cost)
        .collect();

    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by(|&a, &b| {
        let (x, y) = (&items[a], &items[b]);
        let proc = |i: &WindowItem| i.section != Section::Procedural;
        proc(x)
            .cmp(&proc(y))
            .then(y.relevance.total_cmp(&x.relevance))
            .then(x.section.cmp(&y.section))
            .then(a.cmp(&b))
    });

    let mut used = 0usize;
    let mut open_sections = [false; 4];
    let mut admitted: Vec<Admitted> = Vec::new();
    let mut left_out: Vec<LeftOut> = Vec::new();
    for &i in &order {
        let item = &items[i];
        let whole = entry(item, item.text.clone(), false, tokenizer, format);
        let extra = if admitted.is_empty() { frame_cost } else { 0 }
            + if open_sections[item.section as usize] {
                0
            } else {
                heading_cost[item.section as usize]
            };
        let piece = count(&item_piece(format, &whole, false));
        let whole_tokens = piece;
        let room = budget.saturating_sub(used + extra);
        let fitted = if piece <= room {
            Some((whole, piece))
        } else {
            shorten(item, room, format, tokenizer)
        };
        match fitted {
            Some((mut entry, piece)) => {
                if format != WindowFormat::Json {
                    entry.tokens = count(&entry.text);
                }
                used += extra + piece;
                open_sections[item.section as usize] = true;
                admitted.push(Admitted { index: i, entry });
            }
            None => left_out.push(LeftOut {
                id: item.id.clone(),
                section: item.section,
                tokens: whole_tokens,
            }),
        }
    }

    loop {
        let mut shown: Vec<&Admitted> = admitted.iter().collect();
        shown.sort_by_key(|a| (a.entry.section, a.index));
        let entries: Vec<WindowEntry> = shown.iter().map(|a| a.entry.clone()).collect();
        let text = render(format, &entries);
        let total_tokens = count(&text);
        if total_tokens <= budget {
            let sections = section_blocks(&entries)
                .into_iter()
                .enumerate()
                .map(|(k, (section, es))| {
                    let mut block = section_heading(format, section);
                    for (j, e) in es.iter().enumerate() {
                        block.push_str(&item_piece(format, e, k == 0 && j == 0));
                    }
                    SectionTokens {
                        section,
                        items: es.len(),
                        tokens: count(&block),
                    }
                })
                .collect();
            return Window {
                text,
                format,
                tokenizer,
                total_tokens,
                budget,
                budget_used: if budget == 0 {
                    0.0
                } else {
                    total_tokens as f64 / budget as f64
                },
                sections,
                items: entries,
                left_out,
            };
        }
        // The tokenizer merged across a joint: drop the last admitted.
        if let Some(last) = admitted.pop() {
            let item = &items[last.index];
            left_out.push(LeftOut {
                id: item.id.clone(),
                section: item.section,
                tokens: count(&item_piece(format, &last.entry, false)),
            });
        }
    }
}

/// An entry for `item` with `text`. Its text's tokens are counted here only
/// for JSON, whose pieces show them; [`assemble`] counts the others' once
/// admitted.
fn entry(
    item: &WindowItem,
    text: String,
    summarised: bool,
    tokenizer: Tokenizer,
    format: WindowFormat,
) -> WindowEntry {
    WindowEntry {
        section: item.section,
        id: item.id.clone(),
        tokens: if format == WindowFormat::Json {
            tokenizer.count(&text)
        } else {
            0
        },
        text,
        summarised,
        tier: item.tier,
        date: item.date,
        note: item.note.clone(),
    }
}

/// The item shortened to whole sentences whose piece fits in `room`
/// tokens, with the piece's tokens; `None` if not even one sentence fits.
fn shorten(
    item: &WindowItem,
    room: usize,
    format: WindowFormat,
    tokenizer: Tokenizer,
) -> Option<(WindowEntry, usize)> {
    let count = |s: &str| tokenizer.count(s);
    let empty = entry(item, String::new(), true, tokenizer, format);
    let overhead = count(&item_piece(format, &empty, false));
    if overhead >= room {
        return None;
    }
    let sentences = split_sentences(&item.text);
    if sentences.len() < 2 {
        return None;
    }
    let vectors = item.vectors.as_ref().filter(|v| v.len() == sentences.len());
    let mut text_room = room - overhead;
    // The piece's count is the overhead plus the text's in the usual case;
    // where a joint merges, tighten the text's room and try again.
    for _ in 0..3 {
        let text = match vectors {
            Some(v) => {
                let target = Target::Tokens {
                    budget: text_room,
                    tokenizer,
                };
                let s = summarise(&sentences, v, target).ok()?;
                if !s.fits {
                    return None;
                }
                s.text
            }
            None => leading(&sentences, text_room, tokenizer)?,
        };
        let e = entry(item, text, true, tokenizer, format);
        let piece = count(&item_piece(format, &e, false));
        if piece <= room {
            return Some((e, piece));
        }
        text_room = text_room.checked_sub(piece - room)?;
    }
    None
}

/// The longest run of leading sentences, joined by a space, within
/// `budget` tokens.
fn leading(sentences: &[&str], budget: usize, tokenizer: Tokenizer) -> Option<String> {
    let mut estimate = 0;
    let mut n = 0;
    for (k, s) in sentences.iter().enumerate() {
        let cost = if k == 0 {
            tokenizer.count(s)
        } else {
            tokenizer.count(&format!(" {s}"))
        };
        if estimate + cost > budget {
            break;
        }
        estimate += cost;
        n = k + 1;
    }
    // Exact check; drop trailing sentences in the rare case a joint merged.
    while n > 0 {
        let text = sentences[..n].join(" ");
        if tokenizer.count(&text) <= budget {
            return Some(text);
        }
        n -= 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(budget: usize, format: WindowFormat) -> WindowOptions {
        WindowOptions {
            budget,
            tokenizer: Tokenizer::Cl100kBase,
            format,
        }
    }

    fn sample() -> Vec<WindowItem> {
        let mut episode = WindowItem::new(
            "e1",
            Section::History,
            Tier::Episodic,
            "We chose PostgreSQL for the orders service.",
            0.7,
        );
        episode.date = Some(1_705_276_800_000); // 2024-01-15
        vec![
            WindowItem::new(
                "f1",
                Section::LongTerm,
                Tier::Semantic,
                "The staging database runs on a Hetzner box.",
                0.9,
            ),
            episode,
            WindowItem::new(
                "w1",
                Section::Working,
                Tier::Working,
                "user: why is the build red?",
                0.5,
            ),
            WindowItem::new(
                "r1",
                Section::Procedural,
                Tier::Procedural,
                "Always run the tests before pushing.",
                0.1,
            ),
        ]
    }

    #[test]
    fn memory_block_format() {
        let w = assemble(&sample(), options(1000, WindowFormat::Memory));
        assert_eq!(
            w.text,
            "<memory>\n\
             [Procedural] Always run the tests before pushing.\n\
             [Working] user: why is the build red?\n\
             [Episodic] 2024-01-15: We chose PostgreSQL for the orders service.\n\
             [Semantic] The staging database runs on a Hetzner box.\n\
             </memory>"
        );
        assert_eq!(w.total_tokens, Tokenizer::Cl100kBase.count(&w.text));
        assert!(w.left_out.is_empty());
        assert_eq!(w.sections.len(), 4);
        assert!((w.budget_used - w.total_tokens as f64 / 1000.0).abs() < 1e-12);
        let report = serde_json::to_value(&w).expect("serialises");
        assert_eq!(report["tokenizer"], "cl100k_base");
        assert_eq!(report["format"], "memory");
        assert_eq!(report["sections"][0]["section"], "procedural");
    }

    #[test]
    fn markdown_format() {
        let w = assemble(&sample(), options(1000, WindowFormat::Markdown));
        assert_eq!(
            w.text,
            "## Procedures and rules\n\
             - Always run the tests before pushing.\n\
             \n\
             ## Working memory\n\
             - user: why is the build red?\n\
             \n\
             ## Earlier in this conversation\n\
             - 2024-01-15: We chose PostgreSQL for the orders service.\n\
             \n\
             ## Long-term memory\n\
             - The staging database runs on a Hetzner box.\n"
        );
    }

    #[test]
    fn json_format() {
        let w = assemble(&sample(), options(1000, WindowFormat::Json));
        let v: serde_json::Value = serde_json::from_str(&w.text).expect("valid JSON");
        let items = v["items"].as_array().expect("items");
        assert_eq!(items.len(), 4);
        assert_eq!(items[0]["section"], "procedural");
        assert_eq!(items[0]["id"], "r1");
        assert_eq!(items[0]["summarised"], false);
        assert_eq!(items[2]["date"], "2024-01-15");
        assert_eq!(items[3]["section"], "long_term");
        assert_eq!(
            items[3]["tokens"],
            Tokenizer::Cl100kBase.count("The staging database runs on a Hetzner box.")
        );
        assert!(items[0].get("date").is_none());
    }

    #[test]
    fn formats_parse() {
        for f in WindowFormat::ALL {
            assert_eq!(f.to_string().parse::<WindowFormat>().unwrap(), f);
        }
        let err = "xml".parse::<WindowFormat>().unwrap_err().to_string();
        assert!(err.contains("markdown, json, memory"), "{err}");
    }

    #[test]
    fn procedural_first_then_by_relevance() {
        let mut items = sample();
        // Room for the frame, the rule and one more line only.
        let rule = "[Procedural] Always run the tests before pushing.\n";
        let fact = "[Semantic] The staging database runs on a Hetzner box.\n";
        let budget = Tokenizer::Cl100kBase.count(&format!("<memory>\n{rule}{fact}</memory>"));
        let w = assemble(&items, options(budget, WindowFormat::Memory));
        let ids: Vec<&str> = w.items.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids, ["r1", "f1"]);
        let out: Vec<&str> = w.left_out.iter().map(|l| l.id.as_str()).collect();
        assert_eq!(out, ["e1", "w1"]);
        // The rule goes in even with the lowest relevance of all.
        items[3].relevance = -5.0;
        let w = assemble(&items, options(20, WindowFormat::Memory));
        assert_eq!(w.items[0].id, "r1");
    }

    #[test]
    fn an_item_too_long_is_shortened_to_whole_sentences() {
        let text = "The first sentence matters most. The second adds detail. \
                    The third adds more detail still. The fourth is padding text here.";
        let item = WindowItem::new("x", Section::LongTerm, Tier::Semantic, text, 1.0);
        let full = assemble(
            std::slice::from_ref(&item),
            options(1000, WindowFormat::Memory),
        );
        assert!(!full.items[0].summarised);
        let w = assemble(
            std::slice::from_ref(&item),
            options(full.total_tokens - 8, WindowFormat::Memory),
        );
        assert_eq!(w.items.len(), 1, "{w:?}");
        let e = &w.items[0];
        assert!(e.summarised);
        assert!(e.text.starts_with("The first sentence matters most."));
        for s in split_sentences(&e.text) {
            assert!(text.contains(s));
        }
        assert!(w.total_tokens <= full.total_tokens - 8);
        // With vectors, the summariser picks: the central sentences (here
        // the last three are alike, the first is not).
        let mut with = item.clone();
        with.vectors = Some(vec![
            vec![0.0, 1.0],
            vec![1.0, 0.0],
            vec![0.96, 0.28],
            vec![0.96, -0.28],
        ]);
        let w = assemble(
            &[with],
            options(full.total_tokens - 8, WindowFormat::Memory),
        );
        assert!(w.items[0].summarised);
        assert!(!w.items[0].text.contains("first sentence"), "{w:?}");
        // Too small for one sentence: left out.
        let w = assemble(
            std::slice::from_ref(&item),
            options(12, WindowFormat::Memory),
        );
        assert!(w.items.is_empty() && w.text.is_empty() && w.total_tokens == 0);
        assert_eq!(w.left_out.len(), 1);
    }

    #[test]
    fn zero_budget_and_no_items() {
        let w = assemble(&sample(), options(0, WindowFormat::Markdown));
        assert!(w.items.is_empty());
        assert_eq!(w.left_out.len(), 4);
        assert_eq!(w.budget_used, 0.0);
        let w = assemble(&[], options(100, WindowFormat::Json));
        assert_eq!(w.text, "");
    }

    /// A small deterministic generator (xorshift64*).
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    const WORDS: &[&str] = &[
        "the",
        "database",
        "migration",
        "Lisbon",
        "CSS",
        "build",
        "e.g.",
        "v1.2",
        "3.14",
        "naïve",
        "中文",
        "🎉",
        "https://example.com/a.b",
        "\"quoted\"",
        "- item",
        "## Head",
        "```",
        "fn",
        "x",
        "{",
        "}",
        "Dr.",
        "12345",
        "  ",
        "\n",
        "\n\n",
        "...",
    ];

    fn random_text(rng: &mut Rng) -> String {
        let mut s = String::new();
        for _ in 0..rng.below(60) {
            s.push_str(WORDS[rng.below(WORDS.len())]);
            s.push_str(match rng.below(8) {
                0 => ". ",
                1 => "! ",
                2 => "\n",
                3 => ", ",
                _ => " ",
            });
        }
        s
    }

    /// Whether `text` is some of `sentences`, in order, joined by a space.
    fn joins_sentences(text: &str, sentences: &[&str]) -> bool {
        text.is_empty()
            || (0..sentences.len()).any(|j| {
                text.strip_prefix(sentences[j]).is_some_and(|rest| {
                    rest.is_empty()
                        || rest
                            .strip_prefix(' ')
                            .is_some_and(|r| joins_sentences(r, &sentences[j + 1..]))
                })
            })
    }

    /// For random items, budgets, formats and tokenizers: the output fits
    /// the budget, its count is exact, procedural items come first, every
    /// candidate is either in or left out, and a shortened item is made of
    /// whole sentences of its text.
    #[test]
    fn never_over_budget() {
        let mut rng = Rng(0x5EED_CA1F);
        let tiers = [
            Tier::Episodic,
            Tier::Semantic,
            Tier::Procedural,
            Tier::Working,
        ];
        let (mut shortened, mut whole, mut out) = (0, 0, 0);
        for case in 0..400 {
            let n = rng.below(14);
            let items: Vec<WindowItem> = (0..n)
                .map(|k| {
                    let section = Section::ALL[rng.below(4)];
                    let mut item = WindowItem::new(
                        format!("id{k}"),
                        section,
                        tiers[rng.below(4)],
                        random_text(&mut rng),
                        rng.below(1000) as f64 / 1000.0,
                    );
                    if rng.below(2) == 0 {
                        item.date = Some(rng.below(2_000_000_000) as i64 * 1000);
                    }
                    if rng.below(3) == 0 {
                        let count = split_sentences(&item.text).len();
                        item.vectors = Some(
                            (0..count)
                                .map(|_| {
                                    let a = rng.below(628) as f32 / 100.0;
                                    vec![a.cos(), a.sin()]
                                })
                                .collect(),
                        );
                    }
                    item
                })
                .collect();
            let budget = rng.below(400);
            let format = WindowFormat::ALL[rng.below(3)];
            let tokenizer = Tokenizer::ALL[rng.below(2)];
            let w = assemble(
                &items,
                WindowOptions {
                    budget,
                    tokenizer,
                    format,
                },
            );
            let ctx = format!("case {case}: budget {budget} {format} {tokenizer}");
            assert!(w.total_tokens <= budget, "{ctx}: {}", w.total_tokens);
            assert_eq!(w.total_tokens, tokenizer.count(&w.text), "{ctx}");
            assert_eq!(w.items.len() + w.left_out.len(), n, "{ctx}");
            let first_other = w
                .items
                .iter()
                .position(|e| e.section != Section::Procedural)
                .unwrap_or(w.items.len());
            assert!(
                w.items[first_other..]
                    .iter()
                    .all(|e| e.section != Section::Procedural),
                "{ctx}"
            );
            assert!(w.items.windows(2).all(|p| p[0].section <= p[1].section));
            out += w.left_out.len();
            shortened += w.items.iter().filter(|e| e.summarised).count();
            whole += w.items.iter().filter(|e| !e.summarised).count();
            let per_section: usize = w.sections.iter().map(|s| s.items).sum();
            assert_eq!(per_section, w.items.len(), "{ctx}");
            for e in &w.items {
                assert_eq!(e.tokens, tokenizer.count(&e.text), "{ctx}");
                let original = &items.iter().find(|i| i.id == e.id).expect("known id").text;
                if e.summarised {
                    let whole = split_sentences(original);
                    assert!(
                        joins_sentences(&e.text, &whole),
                        "{ctx}: {:?} is not whole sentences of {original:?}",
                        e.text
                    );
                } else {
                    assert_eq!(&e.text, original);
                }
            }
            if format == WindowFormat::Json && !w.items.is_empty() {
                serde_json::from_str::<serde_json::Value>(&w.text).expect("valid JSON");
            }
        }
        // Every path was taken, many times.
        assert!(
            shortened > 50 && whole > 200 && out > 200,
            "{shortened} {whole} {out}"
        );
    }

    /// 1,000 items with a budget that takes about a tenth of them: prints
    /// the time (benchmarks are not assertions).
    #[test]
    fn a_thousand_items() {
        let items: Vec<WindowItem> = (0..1000)
            .map(|k| {
                WindowItem::new(
                    format!("m{k}"),
                    Section::ALL[k % 4],
                    Tier::Semantic,
                    format!(
                        "Memory {k} says the staging database {k} is backed up nightly. \
                         It keeps thirty days of snapshots. Restores take an hour."
                    ),
                    (k * 7919 % 1000) as f64 / 1000.0,
                )
            })
            .collect();
        let start = std::time::Instant::now();
        let w = assemble(&items, options(3000, WindowFormat::Markdown));
        eprintln!(
            "1,000 items: {:?}, {} in, {} tokens",
            start.elapsed(),
            w.items.len(),
            w.total_tokens
        );
        assert!(w.total_tokens <= 3000);
        assert!(w.items.len() > 50);
    }
}
