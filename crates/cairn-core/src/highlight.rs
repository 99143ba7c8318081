//! Which of a query's words a text contains, where, and a snippet around
//! them with each match marked — for search results a person (or a model)
//! reads.
//!
//! A word of the text matches a query term when both reduce to the same
//! stem ([`stem`]: a few English suffixes off), so `deploys` matches
//! `deploy` as the keyword index's stemming would. Query terms are the
//! keyword side's ([`crate::store::keyword_terms`]: stop words dropped).

use schemars::JsonSchema;
use serde::Serialize;

use crate::store::keyword_terms;

/// The query's words found in a text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Highlight {
    /// The query terms the text contains, in the query's order.
    pub terms: Vec<String>,
    /// Each matching word's byte range in the text, `[start, end)`, in
    /// order.
    pub spans: Vec<[usize; 2]>,
    /// About `width` characters of the text around the first match, each
    /// match marked `**like this**`, `…` where the text was cut.
    pub snippet: String,
}

/// A word's stem: lowercase, without a plural or verb ending when at
/// least three letters remain (`deploys`, `deployed`, `deploying` →
/// `deploy`).
pub fn stem(word: &str) -> String {
    let w = word.to_lowercase();
    for suffix in ["ing", "ed", "es", "s"] {
        if let Some(base) = w.strip_suffix(suffix) {
            if base.chars().count() >= 3 {
                return base.to_string();
            }
        }
    }
    w
}

/// The words of `text` (runs of letters and digits) with their byte
/// ranges.
fn words(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut start = None;
    let mut chars = text.char_indices().peekable();
    std::iter::from_fn(move || loop {
        let (i, c) = match chars.next() {
            Some(x) => x,
            None => return start.take().map(|s| (s, &text[s..])),
        };
        let in_word = c.is_alphanumeric();
        match (start, in_word) {
            (None, true) => start = Some(i),
            (Some(s), false) => {
                start = None;
                return Some((s, &text[s..i]));
            }
            _ => {}
        }
    })
}

/// Where `query`'s terms occur in `text`, and a snippet of about `width`
/// characters; `None` when no term occurs (a match by meaning only).
pub fn highlight(text: &str, query: &str, width: usize) -> Option<Highlight> {
    let terms = keyword_terms(query);
    let stems: Vec<String> = terms.iter().map(|t| stem(t)).collect();
    let mut found = vec![false; terms.len()];
    let mut spans = Vec::new();
    for (at, word) in words(text) {
        let s = stem(word);
        if let Some(i) = stems.iter().position(|t| *t == s) {
            found[i] = true;
            spans.push([at, at + word.len()]);
        }
    }
    if spans.is_empty() {
        return None;
    }
    let snippet = snippet(text, &spans, width);
    Some(Highlight {
        terms: terms
            .into_iter()
            .zip(found)
            .filter_map(|(t, f)| f.then_some(t))
            .collect(),
        spans,
        snippet,
    })
}

/// About `width` characters of `text` from a little before the first span,
/// cut at word boundaries, spans marked.
fn snippet(text: &str, spans: &[[usize; 2]], width: usize) -> String {
    let first = spans[0][0];
    // Start a quarter of the width before the first match, at a word.
    let lead = width / 4;
    let mut start = text[..first]
        .char_indices()
        .rev()
        .nth(lead.saturating_sub(1))
        .map_or(0, |(i, _)| i);
    if start > 0 {
        start = text[start..first]
            .find(char::is_whitespace)
            .map_or(first, |i| start + i + 1);
    }
    let mut end = text[start..]
        .char_indices()
        .nth(width)
        .map_or(text.len(), |(i, _)| start + i);
    if end < text.len() {
        end = text[start..end]
            .rfind(char::is_whitespace)
            .map_or(end, |i| start + i)
            .max(spans[0][1].min(text.len()));
    }
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    let mut at = start;
    for &[s, e] in spans.iter().filter(|[s, e]| *s >= start && *e <= end) {
        out.push_str(&text[at..s]);
        out.push_str("**");
        out.push_str(&text[s..e]);
        out.push_str("**");
        at = e;
    }
    out.push_str(&text[at..end]);
    if end < text.len() {
        out.push('…');
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_meet_in_the_middle() {
        assert_eq!(stem("Deploys"), "deploy");
        assert_eq!(stem("deployed"), "deploy");
        assert_eq!(stem("deploying"), "deploy");
        assert_eq!(stem("is"), "is", "too short to cut");
        assert_eq!(stem("bus"), "bus");
    }

    #[test]
    fn terms_spans_and_marks() {
        let text = "We deployed the gateway on Friday. Gateways need TLS.";
        let h = highlight(text, "when do we deploy the gateway?", 200).unwrap();
        assert_eq!(h.terms, ["deploy", "gateway"]);
        let words: Vec<&str> = h.spans.iter().map(|[s, e]| &text[*s..*e]).collect();
        assert_eq!(words, ["deployed", "gateway", "Gateways"]);
        assert_eq!(
            h.snippet,
            "We **deployed** the **gateway** on Friday. **Gateways** need TLS."
        );
    }

    #[test]
    fn a_match_by_meaning_only_has_no_highlight() {
        assert_eq!(highlight("the cat sat", "automobile", 80), None);
    }

    #[test]
    fn long_texts_are_cut_around_the_first_match_at_words() {
        let text = format!(
            "{} the zeppelin manifest is here {}",
            "lorem ipsum ".repeat(50),
            "dolor sit ".repeat(50)
        );
        let h = highlight(&text, "zeppelin", 60).unwrap();
        assert!(
            h.snippet.starts_with('…') && h.snippet.ends_with('…'),
            "{}",
            h.snippet
        );
        assert!(h.snippet.contains("**zeppelin**"), "{}", h.snippet);
        assert!(h.snippet.chars().count() <= 60 + 6, "{}", h.snippet);
        assert!(!h.snippet.contains("ipsu "), "cut at words: {}", h.snippet);
        // Unicode text cuts at characters, never inside one.
        let text = format!(
            "{} Zürich ist schön {}",
            "über ".repeat(30),
            "schöner ".repeat(30)
        );
        let h = highlight(&text, "zürich", 20).unwrap();
        assert!(h.snippet.contains("**Zürich**"), "{}", h.snippet);
    }
}
