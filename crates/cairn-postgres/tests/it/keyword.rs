//! Keyword search's top k over the impact-ordered postings: on a corpus
//! where one word is in nearly every memory (more than a first round
//! reads of it), in every field and at many frequencies, every answer is
//! the exact BM25 top k of `rank::bm25_term`, with and without a filter
//! that lets few memories through, and after memories change and go.
//! With the default options, a query made only of such common words is
//! answered from one bounded read: its own memories, scored exactly.

use cairn_core::conformance::{axis, sample, DIM};
use cairn_core::history::Deletion;
use cairn_core::store::prelude::*;
use cairn_core::store::{query_terms, ScopeFilter};
use cairn_core::{Filter, Memory, MemoryId, MemoryType, WriteBatch};
use serde_json::json;

use crate::Schema;
use cairn_postgres::{PostgresOptions, PostgresStore};

/// Words Snowball's English stemmer leaves as they are.
const WORDS: [&str; 12] = [
    "fox", "owl", "cart", "tree", "sea", "box", "cup", "pen", "map", "sun", "hat", "bed",
];

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }

    /// "fox" at about one word in three, "owl" one in ten, the rest evenly.
    fn word(&mut self) -> &'static str {
        match self.below(30) {
            0..=9 => "fox",
            10..=12 => "owl",
            _ => WORDS[2 + self.below(10) as usize],
        }
    }
}

fn corpus(tenant: &str, from: u32, count: u32, rng: &mut Rng) -> Vec<(Memory, Vec<f32>)> {
    (from..from + count)
        .map(|i| {
            let len = 1 + rng.below(30);
            let content: Vec<&str> = (0..len).map(|_| rng.word()).collect();
            let kind = match rng.below(20) {
                0 => MemoryType::Fact,
                _ => MemoryType::Note,
            };
            let mut m = sample(i, tenant, None, kind, &content.join(" "));
            if rng.below(4) == 0 {
                m.tags = vec![rng.word().to_string(), rng.word().to_string()];
            }
            if rng.below(4) == 0 {
                let about = format!("{} {}", rng.word(), rng.word());
                m.metadata = json!({ "about": about }).as_object().cloned().unwrap();
            }
            (m, axis(i as usize, DIM))
        })
        .collect()
}

/// Each memory's words by field: content, tags, metadata.
fn words(m: &Memory) -> [Vec<String>; 3] {
    [
        query_terms(&m.content),
        query_terms(&m.tags.join(" ")),
        query_terms(&m.keyword_context()),
    ]
}

/// Every memory of `tenant` that `keep` lets through and that holds a term
/// of `query`, with its score by `rank::bm25_term` over `all`.
fn expected(
    all: &[Memory],
    tenant: &str,
    query: &str,
    keep: impl Fn(&Memory) -> bool,
) -> Vec<(MemoryId, f64)> {
    let fields: Vec<[Vec<String>; 3]> = all.iter().map(words).collect();
    let len = |f: &[Vec<String>; 3]| f.iter().map(Vec::len).sum::<usize>() as f64;
    let rows = all.len() as f64;
    let avgdl = fields.iter().map(len).sum::<f64>() / rows;
    let terms = cairn_core::store::keyword_terms(query);
    let with: Vec<f64> = terms
        .iter()
        .map(|t| {
            fields
                .iter()
                .filter(|f| f.iter().flatten().any(|w| w == t))
                .count() as f64
        })
        .collect();
    let mut out: Vec<(MemoryId, f64)> = all
        .iter()
        .zip(&fields)
        .filter(|(m, _)| m.tenant == tenant && keep(m))
        .filter_map(|(m, f)| {
            let mut score = 0.0;
            let mut matched = false;
            for (t, n) in terms.iter().zip(&with) {
                let freq: f64 = f
                    .iter()
                    .zip(cairn_core::rank::BM25_FIELD_WEIGHTS)
                    .map(|(ws, w)| w * ws.iter().filter(|x| *x == t).count() as f64)
                    .sum();
                if freq > 0.0 {
                    matched = true;
                    score += cairn_core::rank::bm25_term(rows, *n, freq, len(f), avgdl);
                }
            }
            matched.then_some((m.id, score))
        })
        .collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then(b.0.cmp(&a.0)));
    out
}

/// The store's answer is a top `limit` of `want`: the same scores in the
/// same places, each hit's score its own (so only exact ties may differ).
fn check(store: &dyn Store, all: &[Memory], query: &str, filter: &Filter, limit: usize) {
    let types = filter.types.clone();
    let want = expected(all, &filter.tenant, query, |m| {
        types.is_empty() || types.contains(&m.kind)
    });
    let hits = store.keyword_search(query, filter, limit).unwrap();
    let what = format!("{query:?}, limit {limit}, types {types:?}");
    assert_eq!(hits.len(), want.len().min(limit), "{what}");
    let own: std::collections::HashMap<MemoryId, f64> = want.iter().copied().collect();
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1e-12);
    for (i, (hit, (_, score))) in hits.iter().zip(&want).enumerate() {
        assert!(
            close(hit.score, *score),
            "{what}: #{i} {} against {score}",
            hit.score
        );
        let mine = own.get(&hit.id).copied().unwrap_or(f64::NAN);
        assert!(
            close(hit.score, mine),
            "{what}: #{i} scored {} but is {mine}",
            hit.score
        );
    }
    let distinct: std::collections::HashSet<MemoryId> = hits.iter().map(|h| h.id).collect();
    assert_eq!(distinct.len(), hits.len(), "{what}");
}

/// The test corpus, written to `store`: 6,000 memories of `default` and
/// 300 of `other`.
fn fill(store: &dyn Store) -> Vec<Memory> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut items = corpus("default", 0, 6000, &mut rng);
    items.extend(corpus("other", 6000, 300, &mut rng));
    for chunk in items.chunks(1000) {
        store
            .write(WriteBatch {
                inserts: chunk.to_vec(),
                ..Default::default()
            })
            .unwrap();
    }
    items.into_iter().map(|(m, _)| m).collect()
}

#[test]
fn keyword_search_finds_the_exact_top_k_of_common_terms() {
    let schema = Schema::new();
    // Every query exactly, however common its terms.
    let options = PostgresOptions {
        common_term_idf: 0.0,
        ..schema.options()
    };
    let store = PostgresStore::open_with(&crate::url(), options).unwrap();
    let mut all = fill(&store);
    let queries = [
        "fox",
        "fox owl",
        "owl",
        "sea cart",
        "fox owl cup pen hat",
        "fox fox sea",
    ];
    let every = Filter::new("default", 0).scope(ScopeFilter::All);
    let mut facts = every.clone();
    facts.types = vec![MemoryType::Fact];
    for query in queries {
        for limit in [1, 7, 30, 300] {
            check(&store, &all, query, &every, limit);
        }
        check(&store, &all, query, &facts, 30);
    }
    // Changed words and deleted memories leave the postings as the
    // memories now are.
    let changed: Vec<Memory> = all[..200]
        .iter()
        .map(|m| Memory {
            content: "fox".into(),
            ..m.clone()
        })
        .collect();
    let gone: Vec<MemoryId> = all[200..400].iter().map(|m| m.id).collect();
    store
        .write(WriteBatch {
            updates: changed.iter().map(|m| (m.clone(), None)).collect(),
            ..Default::default()
        })
        .unwrap();
    let deletion = Deletion {
        actor: "test".into(),
        reason: "test".into(),
        at: 1,
    };
    assert_eq!(store.delete("default", &gone, &deletion).unwrap(), 200);
    all.retain(|m| !gone.contains(&m.id));
    all.splice(..200, changed);
    for query in ["fox", "fox owl"] {
        check(&store, &all, query, &every, 30);
    }
}

#[test]
fn a_query_of_common_terms_only_returns_its_own_memories_scored_exactly() {
    let schema = Schema::new();
    let store = schema.open();
    let all = fill(&store);
    let every = Filter::new("default", 0).scope(ScopeFilter::All);
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1e-12);
    // Each word is in two memories of three or more (all at the idf
    // floor); "fox" and "owl" in more than a first round reads whole.
    for query in ["fox owl", "fox owl cup pen hat", "sea cart"] {
        let want = expected(&all, "default", query, |_| true);
        let own: std::collections::HashMap<MemoryId, f64> = want.iter().copied().collect();
        for limit in [1, 7, 30] {
            let hits = store.keyword_search(query, &every, limit).unwrap();
            assert_eq!(hits.len(), limit, "{query:?}, limit {limit}");
            for pair in hits.windows(2) {
                assert!(pair[0].score >= pair[1].score, "{query:?}: best first");
            }
            for hit in &hits {
                let mine = own.get(&hit.id).copied().unwrap_or(f64::NAN);
                assert!(
                    close(hit.score, mine),
                    "{query:?}: scored {} but is {mine}",
                    hit.score
                );
            }
        }
    }
}

/// Memories `from..from + count` of `default` holding "yak" (a word the
/// corpus does not use) `times` times each.
fn yaks(from: u32, count: u32, times: usize) -> Vec<(Memory, Vec<f32>)> {
    (from..from + count)
        .map(|i| {
            let content = format!("{} fox", vec!["yak"; times].join(" "));
            let m = sample(i, "default", None, MemoryType::Note, &content);
            (m, axis(i as usize, DIM))
        })
        .collect()
}

/// Write `items` to `store`; their memories.
fn insert(store: &dyn Store, items: Vec<(Memory, Vec<f32>)>) -> Vec<Memory> {
    let memories = items.iter().map(|(m, _)| m.clone()).collect();
    store
        .write(WriteBatch {
            inserts: items,
            ..Default::default()
        })
        .unwrap();
    memories
}

/// Two stores on one new schema (two servers), the corpus with 40
/// memories of "yak" written through the first, and a filter that lets
/// every memory through. The schema comes first: bound first, it is
/// dropped after the stores.
fn two_servers_on_yaks() -> (Schema, PostgresStore, PostgresStore, Vec<Memory>, Filter) {
    let schema = Schema::new();
    let store = schema.open();
    let other = schema.open();
    let mut all = fill(&store);
    all.extend(insert(&store, yaks(10_000, 40, 1)));
    let every = Filter::new("default", 0).scope(ScopeFilter::All);
    (schema, store, other, all, every)
}

/// A rare term's whole posting list, kept by a store after a search, is
/// read again as soon as any memory's words change: through this store or
/// through another one on the same schema (another server).
#[test]
fn a_kept_posting_list_is_read_again_once_words_change_anywhere() {
    let (_schema, store, other, mut all, every) = two_servers_on_yaks();
    let search = |all: &[Memory]| {
        for query in ["yak", "yak sea", "yak"] {
            check(&store, all, query, &every, 30);
        }
    };
    search(&all);

    // Another server adds memories that outscore every earlier one.
    all.extend(insert(&other, yaks(10_100, 20, 3)));
    search(&all);

    // This store changes words; the other deletes.
    let changed: Vec<Memory> = all[..30]
        .iter()
        .map(|m| Memory {
            content: "yak yak yak yak".into(),
            ..m.clone()
        })
        .collect();
    store
        .write(WriteBatch {
            updates: changed.iter().map(|m| (m.clone(), None)).collect(),
            ..Default::default()
        })
        .unwrap();
    all.splice(..30, changed);
    search(&all);
    let gone: Vec<MemoryId> = all[..10].iter().map(|m| m.id).collect();
    let deletion = Deletion {
        actor: "test".into(),
        reason: "test".into(),
        at: 1,
    };
    assert_eq!(other.delete("default", &gone, &deletion).unwrap(), 10);
    all.drain(..10);
    search(&all);
}

/// A search takes the statistics a rarity read of its terms just read
/// (a hybrid recall's feedback search) only on the thread that read them
/// and only just after: a search on another thread, or later, reads them
/// again and sees the words another server changed meanwhile.
#[test]
fn a_rarity_read_serves_only_its_own_threads_next_search() {
    let (_schema, store, other, mut all, every) = two_servers_on_yaks();
    check(&store, &all, "yak sea", &every, 30);

    store.keyword_rarity("yak sea").unwrap();
    all.extend(insert(&other, yaks(10_100, 20, 3)));
    std::thread::scope(|s| {
        s.spawn(|| check(&store, &all, "yak sea", &every, 30))
            .join()
            .unwrap()
    });

    store.keyword_rarity("yak sea").unwrap();
    all.extend(insert(&other, yaks(10_200, 20, 4)));
    std::thread::sleep(std::time::Duration::from_millis(150));
    check(&store, &all, "yak sea", &every, 30);
}
