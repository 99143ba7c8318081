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
mod tests;
