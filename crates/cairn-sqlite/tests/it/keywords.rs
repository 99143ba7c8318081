//! The in-memory keyword index (built by `preload`) ranks exactly as FTS5
//! does: two stores on one file, one answering from FTS5 and one from
//! memory, must return the same memories in the same order with the same
//! scores, before and after the other one writes, updates and deletes.

use cairn_core::conformance::{axis, forgotten, sample, T0};
use cairn_core::store::prelude::*;
use cairn_core::store::{Filter, ScopeFilter, WriteBatch};
use cairn_core::{Memory, MemoryType};
use cairn_sqlite::{SqliteStore, PRUNE_ABOVE_DOCS};

/// Words that exercise FTS5's tokenizer: stems, diacritics, case, digits,
/// joined words, CJK, emoji, and a Zipf-ish head of common words.
const WORDS: &[&str] = &[
    "the",
    "database",
    "databases",
    "run",
    "running",
    "runs",
    "ran",
    "café",
    "CAFE",
    "Été",
    "naïve",
    "naive",
    "staging",
    "Falkenstein",
    "hetzner",
    "pre-production",
    "v2.3.1",
    "k8s",
    "東京",
    "数据库",
    "🚀",
    "deploy",
    "deployed",
    "deploying",
    "atlas",
    "ATLAS",
    "postgres",
    "pgvector",
    "rust's",
    "O'Brien",
    "e-mail",
    "email",
    "connection",
    "connections",
    "timeout",
    "retry",
    "retries",
    "cache",
    "caching",
    "cached",
    "index",
    "indexes",
    "indices",
    "query",
    "queries",
    "a",
    "of",
    "to",
    "is",
    "and",
    "in",
    "on",
    "straße",
    "strasse",
    "ǅemal",
    "İstanbul",
];

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// A word, common ones more often.
    fn word(&mut self) -> &'static str {
        let a = self.below(WORDS.len());
        WORDS[self.below(a + 1)]
    }

    fn words(&mut self, n: usize) -> String {
        (0..n).map(|_| self.word()).collect::<Vec<_>>().join(" ")
    }
}

fn random_memory(rng: &mut Rng, i: u32) -> Memory {
    let project = ["atlas", "borealis"].get(rng.below(3)).copied();
    let kind = [MemoryType::Fact, MemoryType::Decision, MemoryType::Episode][rng.below(3)];
    let len = 3 + rng.below(20);
    let mut m = sample(i, "default", project, kind, &rng.words(len));
    m.tags = (0..rng.below(3))
        .map(|_| rng.word().to_lowercase())
        .collect();
    m.tags.sort();
    m.tags.dedup();
    let context_len = rng.below(6);
    m.metadata = serde_json::json!({ "context": rng.words(context_len), "n": i })
        .as_object()
        .cloned()
        .unwrap_or_default();
    if i.is_multiple_of(7) {
        m.tenant = "other".into();
    }
    m.slot = ["inbox", "archive"]
        .get(i as usize % 5)
        .map(|s| s.to_string());
    m
}

fn filters() -> Vec<Filter> {
    let base = || Filter::new("default", T0);
    let mut typed = base();
    typed.types = vec![MemoryType::Decision, MemoryType::Fact];
    let mut tagged = base().scope(ScopeFilter::All);
    tagged.tags = vec!["cache".into()];
    let mut in_inbox = base().scope(ScopeFilter::All);
    in_inbox.slots = vec!["inbox".into()];
    let mut archive_hidden = base().scope(ScopeFilter::All);
    archive_hidden.hidden_slots = vec!["archive".into()];
    vec![
        base(),
        base().scope(ScopeFilter::All),
        base().scope(ScopeFilter::Project("atlas".into())),
        base().scope(ScopeFilter::Exactly(Some("borealis".into()))),
        typed,
        tagged,
        in_inbox,
        archive_hidden,
        Filter::new("other", T0).scope(ScopeFilter::All),
        Filter::new("nobody", T0),
    ]
}

/// Every query, under every filter, ranks the same on both stores.
fn assert_same_rankings(fts: &SqliteStore, memory: &SqliteStore, rng: &mut Rng) {
    let mut queries: Vec<String> = (0..150)
        .map(|_| {
            let n = 1 + rng.below(6);
            rng.words(n)
        })
        .collect();
    queries.extend(
        [
            "\"unbalanced",
            "a AND b OR NEAR(c)",
            "*:^()",
            "🚀🚀",
            "the of a",
            "RUNNING Databases",
        ]
        .map(String::from),
    );
    let mut compared = 0;
    for (i, q) in queries.iter().enumerate() {
        let filter = &filters()[i % filters().len()];
        let expected = fts.keyword_search(q, filter, 30).unwrap();
        let got = memory.keyword_search(q, filter, 30).unwrap();
        let ids = |h: &[cairn_core::Hit]| h.iter().map(|h| h.id).collect::<Vec<_>>();
        assert_eq!(ids(&got), ids(&expected), "query {q:?} under {filter:?}");
        for (g, e) in got.iter().zip(&expected) {
            assert!(
                (g.score - e.score).abs() <= 1e-9 * e.score.abs().max(1.0),
                "query {q:?}: score {} against FTS5's {}",
                g.score,
                e.score
            );
        }
        compared += expected.len();
    }
    assert!(compared > 1000, "only {compared} hits compared");
}

#[test]
fn in_memory_keyword_index_ranks_as_fts5_and_follows_other_writers() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cairn.db");
    let fts = SqliteStore::open(&path).unwrap();
    let mut rng = Rng(0x5eed);
    // Above the pruning threshold, so that pruning is compared too.
    let n = PRUNE_ABOVE_DOCS as u32 + 1000;
    let all: Vec<Memory> = (0..n).map(|i| random_memory(&mut rng, i)).collect();
    let inserts = all
        .iter()
        .map(|m| (m.clone(), axis(m.created_at as usize % 8, 8)))
        .collect();
    fts.write(WriteBatch {
        inserts,
        ..Default::default()
    })
    .unwrap();

    let memory = SqliteStore::open(&path).unwrap();
    assert_eq!(memory.keyword_index_rows().unwrap(), None);
    memory.preload().unwrap();
    assert_eq!(memory.keyword_index_rows().unwrap(), Some(n as usize));
    assert_same_rankings(&fts, &memory, &mut rng);

    // The other store inserts, updates and deletes; the in-memory index
    // follows at its next search.
    let fresh: Vec<Memory> = (n..n + 200).map(|i| random_memory(&mut rng, i)).collect();
    let updates = all[..300]
        .iter()
        .map(|m| {
            let mut m = m.clone();
            m.content = rng.words(8);
            m.tags = vec!["cache".into()];
            m.slot = match m.slot.as_deref() {
                Some("inbox") => Some("archive".into()),
                Some(_) => None,
                None => Some("inbox".into()),
            };
            (m, None)
        })
        .collect();
    fts.write(WriteBatch {
        inserts: fresh.iter().map(|m| (m.clone(), axis(3, 8))).collect(),
        updates,
        ..Default::default()
    })
    .unwrap();
    let gone: Vec<_> = all[300..400].iter().map(|m| m.id).collect();
    fts.delete("default", &gone, &forgotten()).unwrap();
    fts.delete("other", &gone, &forgotten()).unwrap();
    // A new FTS5-side store: `fts` keeps the document frequencies it
    // pruned with until the store's size drifts by 2% (the in-memory index
    // has exact ones), which would compare pruning, not ranking.
    let fts = SqliteStore::open(&path).unwrap();
    assert_same_rankings(&fts, &memory, &mut rng);
    assert_eq!(
        memory.keyword_index_rows().unwrap(),
        Some(n as usize + 200 - 100)
    );

    // So many changes that the index is rebuilt from FTS5 instead.
    let bulk: Vec<Memory> = (n + 200..n + 1400)
        .map(|i| random_memory(&mut rng, i))
        .collect();
    fts.write(WriteBatch {
        inserts: bulk.iter().map(|m| (m.clone(), axis(4, 8))).collect(),
        ..Default::default()
    })
    .unwrap();
    let fts = SqliteStore::open(&path).unwrap();
    assert_same_rankings(&fts, &memory, &mut rng);
    assert_eq!(
        memory.keyword_index_rows().unwrap(),
        Some(n as usize + 1400 - 100)
    );
    assert_eq!(memory.integrity_check().unwrap(), "ok");
}
