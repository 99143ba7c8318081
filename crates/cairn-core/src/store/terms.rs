//! How user text becomes search terms, the same for every backend.

/// Split user text into search terms the way every backend does: maximal
/// runs of alphanumeric characters, lowercased. Punctuation, quotes,
/// operators and emoji separate terms and are never syntax.
pub fn query_terms(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// English function words that carry no topic: left out of keyword
/// queries, where matching them would rank memories by their grammar.
pub const STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "all",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "down",
    "during",
    "each",
    "few",
    "for",
    "from",
    "further",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "itself",
    "just",
    "me",
    "more",
    "most",
    "my",
    "myself",
    "no",
    "nor",
    "not",
    "now",
    "of",
    "off",
    "on",
    "once",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "same",
    "she",
    "should",
    "so",
    "some",
    "such",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "very",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "would",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
];

/// The terms of a keyword query: [`query_terms`] without [`STOP_WORDS`]
/// and without repeats — unless the query is made of stop words only, in
/// which case they are kept (a search for "the who" still means something).
pub fn keyword_terms(text: &str) -> Vec<String> {
    let mut all = query_terms(text);
    let mut seen = std::collections::HashSet::new();
    all.retain(|t| seen.insert(t.clone()));
    let content: Vec<String> = all
        .iter()
        .filter(|t| !STOP_WORDS.contains(&t.as_str()))
        .cloned()
        .collect();
    if content.is_empty() {
        all
    } else {
        content
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keyword_terms_drop_stop_words_unless_nothing_is_left() {
        assert_eq!(
            keyword_terms("Where does the pre-production database live? the database"),
            vec!["pre", "production", "database", "live"]
        );
        assert_eq!(keyword_terms("the who"), vec!["the", "who"]);
        assert!(
            STOP_WORDS.windows(2).all(|w| w[0] < w[1]),
            "keep the list sorted"
        );
    }

    #[test]
    fn terms_ignore_syntax() {
        assert_eq!(
            query_terms(r#"pre-production "db" AND (x*) NEAR:y 🦀"#),
            vec!["pre", "production", "db", "and", "x", "near", "y"]
        );
        assert!(query_terms("?!… 🦀").is_empty());
    }
}
