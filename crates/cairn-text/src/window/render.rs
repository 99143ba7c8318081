//! The window's templates. The output is `open`, then per section with
//! items its heading and its items' pieces (sections separated as
//! [`section_gap`] says), then `close`; no items at all render as the
//! empty string.

use super::{Section, WindowEntry, WindowFormat};
use crate::kind::{Tier, Timestamp};

pub(super) fn ser_date<S: serde::Serializer>(
    d: &Option<Timestamp>,
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    match d {
        Some(t) => s.serialize_str(&date(*t)),
        None => s.serialize_none(),
    }
}

/// `YYYY-MM-DD` of a time (UTC).
pub fn date(t: Timestamp) -> String {
    chrono::DateTime::from_timestamp_millis(t)
        .map_or_else(|| t.to_string(), |d| d.format("%Y-%m-%d").to_string())
}

/// What opens and closes the output.
pub fn frame(format: WindowFormat) -> (&'static str, &'static str) {
    match format {
        WindowFormat::Markdown => ("", ""),
        WindowFormat::Json => ("{\"items\":[", "\n]}"),
        WindowFormat::Memory => ("<memory>\n", "</memory>"),
    }
}

/// What comes before a section's first item (after `section_gap` for all
/// but the first section).
pub fn section_heading(format: WindowFormat, section: Section) -> String {
    match format {
        WindowFormat::Markdown => format!("## {}\n", section.title()),
        WindowFormat::Json | WindowFormat::Memory => String::new(),
    }
}

/// What separates two sections.
pub fn section_gap(format: WindowFormat) -> &'static str {
    match format {
        WindowFormat::Markdown => "\n",
        WindowFormat::Json | WindowFormat::Memory => "",
    }
}

/// The date prefix of an entry's line: `2024-01-15: ` for a dated episodic
/// entry, else nothing.
fn date_prefix(entry: &WindowEntry) -> String {
    match (entry.tier, entry.date) {
        (Tier::Episodic, Some(t)) => format!("{}: ", date(t)),
        _ => String::new(),
    }
}

/// The tier's label in the `<memory>` format.
pub fn tier_label(tier: Tier) -> &'static str {
    match tier {
        Tier::Episodic => "Episodic",
        Tier::Semantic => "Semantic",
        Tier::Procedural => "Procedural",
        Tier::Working => "Working",
    }
}

/// The entry's text with its note after it, in parentheses.
pub fn noted_text(entry: &WindowEntry) -> String {
    match &entry.note {
        Some(note) => format!("{} ({note})", entry.text.trim_end()),
        None => entry.text.clone(),
    }
}

/// One entry's piece. `first` says whether it is the output's first item
/// (JSON puts a comma before the others).
pub fn item_piece(format: WindowFormat, entry: &WindowEntry, first: bool) -> String {
    match format {
        WindowFormat::Markdown => {
            let text = noted_text(entry).trim_end().replace('\n', "\n  ");
            format!("- {}{}\n", date_prefix(entry), text)
        }
        WindowFormat::Json => {
            let object = serde_json::to_string(entry).unwrap_or_default();
            format!("{}\n{object}", if first { "" } else { "," })
        }
        WindowFormat::Memory => {
            let text = noted_text(entry)
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            format!(
                "[{}] {}{}\n",
                tier_label(entry.tier),
                date_prefix(entry),
                text
            )
        }
    }
}

/// Render entries (in output order, grouped by section) in `format`.
pub fn render(format: WindowFormat, entries: &[WindowEntry]) -> String {
    if entries.is_empty() {
        return String::new();
    }
    let (open, close) = frame(format);
    let mut out = String::from(open);
    let mut first = true;
    for (k, block) in section_blocks(entries).into_iter().enumerate() {
        if k > 0 {
            out.push_str(section_gap(format));
        }
        out.push_str(&section_heading(format, block.0));
        for e in block.1 {
            out.push_str(&item_piece(format, e, first));
            first = false;
        }
    }
    out.push_str(close);
    out
}

/// The entries grouped by section, in output order; sections without
/// entries are left out.
pub(super) fn section_blocks(entries: &[WindowEntry]) -> Vec<(Section, Vec<&WindowEntry>)> {
    Section::ALL
        .iter()
        .map(|s| {
            (
                *s,
                entries
                    .iter()
                    .filter(|e| e.section == *s)
                    .collect::<Vec<_>>(),
            )
        })
        .filter(|(_, es)| !es.is_empty())
        .collect()
}
