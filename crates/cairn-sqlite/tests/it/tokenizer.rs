//! Property tests of the keyword tokenizer's edges: whatever text a memory
//! holds (runs of one character past FTS5's 32,768-byte token limit in
//! every UTF-8 width, any Unicode), writing it and searching for it answer,
//! and the in-memory keyword index ranks exactly as FTS5 does.

use cairn_core::conformance::{axis, sample, T0};
use cairn_core::store::prelude::*;
use cairn_core::store::{Filter, ScopeFilter, WriteBatch};
use cairn_core::MemoryType;
use cairn_sqlite::keyword_index::fts_token;
use cairn_sqlite::SqliteStore;
use proptest::prelude::*;

/// A run of one character of each width, around FTS5's token limit, or
/// any text.
fn hostile_text() -> impl Strategy<Value = String> {
    let run = (
        prop::sample::select(vec!['a', 'ж', '漢', '𝒜', '9', 'é']),
        32_700usize..33_000,
        0usize..4,
    )
        .prop_map(|(c, bytes, shift)| {
            format!(
                "{}{} end",
                "b".repeat(shift),
                c.to_string().repeat(bytes / c.len_utf8())
            )
        });
    prop_oneof![run, any::<String>(), "[\\PC]{0,200}"]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// `fts_token` keeps the longest prefix that is UTF-8, whatever byte a
    /// token is cut at.
    #[test]
    fn fts_token_keeps_the_longest_whole_prefix(text in any::<String>(), cut in 0usize..64) {
        let bytes = text.as_bytes();
        let cut = cut.min(bytes.len());
        let token = fts_token(&bytes[..cut]);
        prop_assert!(bytes[..cut].starts_with(token.as_bytes()));
        prop_assert!(cut - token.len() < 4);
        prop_assert!(text.is_char_boundary(token.len()));
        let next_boundary = (token.len() + 1..=cut).find(|i| text.is_char_boundary(*i));
        prop_assert_eq!(next_boundary, None);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// A memory of any text is written, found by keyword search from FTS5
    /// and from the in-memory index alike, and leaves both answering for
    /// another tenant, after it is written and after it is deleted.
    #[test]
    fn any_text_is_indexed_and_searched(text in hostile_text()) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cairn.db");
        let fts = SqliteStore::open(&path).unwrap();
        let memory = SqliteStore::open(&path).unwrap();
        memory.preload().unwrap();
        let other = sample(1, "other", None, MemoryType::Fact, "the staging database");
        let mut m = sample(2, "default", None, MemoryType::Fact, "x");
        m.content = text.clone();
        let written = fts.write(WriteBatch {
            inserts: vec![(other.clone(), axis(1, 384)), (m.clone(), axis(2, 384))],
            ..Default::default()
        });
        prop_assume!(written.is_ok()); // an empty text is refused before the store
        let query: String = text.chars().take(40_000).collect();
        for tenant in ["default", "other"] {
            let f = Filter::new(tenant, T0).scope(ScopeFilter::All);
            for q in [query.as_str(), "staging database"] {
                let a = fts.keyword_search(q, &f, 10).unwrap();
                let b = memory.keyword_search(q, &f, 10).unwrap();
                let ids = |h: &[cairn_core::store::Hit]| h.iter().map(|h| h.id).collect::<Vec<_>>();
                prop_assert_eq!(ids(&a), ids(&b), "{} {:?}", tenant, q.chars().take(20).collect::<String>());
            }
        }
        fts.delete("default", &[m.id], &cairn_core::conformance::forgotten()).unwrap();
        let f = Filter::new("other", T0).scope(ScopeFilter::All);
        prop_assert_eq!(memory.keyword_search("staging", &f, 10).unwrap().len(), 1);
        prop_assert!(memory.keyword_search(&query, &f, 10).is_ok());
    }
}
