//! Prompt templates: the prompt builder's memory block in a caller's own
//! words — a header, a footer and a line per memory, per tier if wanted.
//!
//! ```toml
//! header = "Things you know about the user:"
//! footer = ""
//! line = "- {text}"
//! [lines]
//! episodic = "- on {date}: {text}"
//! procedural = "- RULE: {text}"
//! ```
//!
//! Placeholders: `{text}` (the memory, its white space runs made single
//! spaces, with its note after it in parentheses when it has one: which
//! side of a known conflict it is), `{tier}` (`Episodic`, `Semantic`, `Procedural`, `Working`),
//! `{date}` (`YYYY-MM-DD` of an episodic memory, else empty), `{id}`.
//! `{{` and `}}` write braces. Anything else in braces is refused, so a
//! typo is an error rather than text in a prompt. Left out: the header
//! `<memory>`, the footer `</memory>`, the line `[{tier}] {text}` (with
//! `{date}: ` before the text of a dated episodic memory) — the default
//! block. The output is the header's line, a line per memory, the
//! footer's line; empty parts are left out.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::kind::Tier;
use crate::window::{date, noted_text, tier_label, WindowEntry};
use crate::{Error, Result};

/// The longest template, in bytes of all its parts.
pub const MAX_TEMPLATE_BYTES: usize = 4096;

/// A memory block's template (see the module doc).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct PromptTemplate {
    /// Before the lines (default `<memory>`; empty: none).
    pub header: Option<String>,
    /// After the lines (default `</memory>`; empty: none).
    pub footer: Option<String>,
    /// A memory's line (default `[{tier}] {text}`, dated episodes
    /// `[{tier}] {date}: {text}`).
    pub line: Option<String>,
    /// Lines for some tiers only, overriding `line`: `episodic`,
    /// `semantic`, `procedural`, `working`.
    pub lines: BTreeMap<Tier, String>,
}

/// A piece of a parsed pattern.
enum Piece<'a> {
    Text(&'a str),
    Brace(char),
    Field(&'a str),
}

fn pieces(pattern: &str) -> Result<Vec<Piece<'_>>> {
    let mut out = Vec::new();
    let mut rest = pattern;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("{{") {
            out.push(Piece::Brace('{'));
            rest = r;
        } else if let Some(r) = rest.strip_prefix("}}") {
            out.push(Piece::Brace('}'));
            rest = r;
        } else if let Some(r) = rest.strip_prefix('{') {
            let end = r.find('}').ok_or_else(|| {
                Error::invalid(format!("template {pattern:?}: a `{{` is not closed"))
            })?;
            let name = &r[..end];
            if !matches!(name, "text" | "tier" | "date" | "id") {
                return Err(Error::invalid(format!(
                    "template {pattern:?}: unknown placeholder {{{name}}} (use {{text}}, {{tier}}, {{date}} or {{id}}; {{{{ for a brace)"
                )));
            }
            out.push(Piece::Field(name));
            rest = &r[end + 1..];
        } else if rest.starts_with('}') {
            return Err(Error::invalid(format!(
                "template {pattern:?}: a lone `}}` (write `}}}}`)"
            )));
        } else {
            let end = rest.find(['{', '}']).unwrap_or(rest.len());
            out.push(Piece::Text(&rest[..end]));
            rest = &rest[end..];
        }
    }
    Ok(out)
}

impl PromptTemplate {
    /// Check every part: its size and placeholders.
    pub fn validate(&self) -> Result<()> {
        let parts = [&self.header, &self.footer, &self.line];
        let size: usize = parts
            .iter()
            .filter_map(|p| p.as_ref())
            .map(String::len)
            .sum::<usize>()
            + self.lines.values().map(String::len).sum::<usize>();
        if size > MAX_TEMPLATE_BYTES {
            return Err(Error::invalid(format!(
                "the template is {size} bytes; at most {MAX_TEMPLATE_BYTES}"
            )));
        }
        for p in parts.into_iter().flatten().chain(self.lines.values()) {
            pieces(p)?;
        }
        Ok(())
    }

    /// One entry's line, without its line break.
    pub fn line(&self, entry: &WindowEntry) -> Result<String> {
        let dated = entry.date.filter(|_| entry.tier == Tier::Episodic);
        let default = if dated.is_some() {
            "[{tier}] {date}: {text}"
        } else {
            "[{tier}] {text}"
        };
        let pattern = self
            .lines
            .get(&entry.tier)
            .or(self.line.as_ref())
            .map_or(default, String::as_str);
        let mut out = String::new();
        for piece in pieces(pattern)? {
            match piece {
                Piece::Text(t) => out.push_str(t),
                Piece::Brace(c) => out.push(c),
                Piece::Field("text") => {
                    let text = noted_text(entry);
                    out.push_str(&text.split_whitespace().collect::<Vec<_>>().join(" "))
                }
                Piece::Field("tier") => out.push_str(tier_label(entry.tier)),
                Piece::Field("date") => out.push_str(&dated.map(date).unwrap_or_default()),
                Piece::Field(_) => out.push_str(&entry.id),
            }
        }
        Ok(out)
    }

    /// The block of `entries` (empty for none; braces in the header and
    /// footer unescaped).
    pub fn render(&self, entries: &[WindowEntry]) -> Result<String> {
        if entries.is_empty() {
            return Ok(String::new());
        }
        let fixed = |part: &Option<String>, default: &str| -> Result<String> {
            let p = part.as_deref().unwrap_or(default);
            Ok(pieces(p)?
                .into_iter()
                .map(|piece| match piece {
                    Piece::Text(t) => t.to_string(),
                    Piece::Brace(c) => c.to_string(),
                    Piece::Field(f) => format!("{{{f}}}"),
                })
                .collect())
        };
        let mut lines = Vec::with_capacity(entries.len() + 2);
        let header = fixed(&self.header, "<memory>")?;
        if !header.is_empty() {
            lines.push(header);
        }
        for e in entries {
            lines.push(self.line(e)?);
        }
        let footer = fixed(&self.footer, "</memory>")?;
        if !footer.is_empty() {
            lines.push(footer);
        }
        Ok(lines.join("\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::window::Section;

    fn entry(tier: Tier, text: &str, date: Option<i64>) -> WindowEntry {
        WindowEntry {
            section: Section::LongTerm,
            id: "0190abcd".into(),
            text: text.into(),
            tokens: 0,
            summarised: false,
            tier,
            date,
            note: None,
        }
    }

    const DAY: i64 = 86_400_000;

    #[test]
    fn the_default_is_the_memory_block() {
        let entries = [
            entry(Tier::Procedural, "Run the tests.", None),
            entry(
                Tier::Episodic,
                "Discussed\n the  migration.",
                Some(19_737 * DAY),
            ),
        ];
        assert_eq!(
            PromptTemplate::default().render(&entries).unwrap(),
            "<memory>\n[Procedural] Run the tests.\n[Episodic] 2024-01-15: Discussed the migration.\n</memory>"
        );
        assert_eq!(PromptTemplate::default().render(&[]).unwrap(), "");
    }

    #[test]
    fn lines_per_tier_placeholders_and_braces() {
        let t = PromptTemplate {
            header: Some("Known {{facts}}:".into()),
            footer: Some(String::new()),
            line: Some("- {text} ({id})".into()),
            lines: BTreeMap::from([(Tier::Episodic, "- on {date}: {text}".into())]),
        };
        t.validate().unwrap();
        let entries = [
            entry(Tier::Semantic, "Alice likes tea.", None),
            entry(Tier::Episodic, "Met Bob.", Some(19_737 * DAY)),
        ];
        assert_eq!(
            t.render(&entries).unwrap(),
            "Known {facts}:\n- Alice likes tea. (0190abcd)\n- on 2024-01-15: Met Bob."
        );
    }

    #[test]
    fn mistakes_are_refused_by_name() {
        for (bad, says) in [
            ("- {txt}", "{txt}"),
            ("- {text", "not closed"),
            ("- text}", "lone"),
        ] {
            let t = PromptTemplate {
                line: Some(bad.into()),
                ..Default::default()
            };
            let err = t.validate().unwrap_err().to_string();
            assert!(err.contains(says), "{bad}: {err}");
        }
        let huge = PromptTemplate {
            header: Some("x".repeat(MAX_TEMPLATE_BYTES + 1)),
            ..Default::default()
        };
        assert!(huge.validate().is_err());
    }
}
