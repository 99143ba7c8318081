//! Synthetic memories and queries, deterministic from a seed.

use cairn_core::{Embedder, ModelInfo, Result};

/// A small, fast, seeded PRNG (xorshift64*).
#[derive(Clone)]
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A 5,000-word vocabulary with Zipf-distributed word frequencies, whose
/// most frequent words are English stop words.
#[derive(Clone)]
pub struct Corpus {
    seed: u64,
    words: Vec<String>,
    cumulative: Vec<f64>,
}

const SYLLABLES: &[&str] = &[
    "ka", "lo", "mi", "ne", "ru", "ta", "vo", "shi", "den", "bar", "tor", "mel", "zin", "qua",
    "pex", "lum",
];

impl Corpus {
    pub fn new(seed: u64) -> Self {
        let mut rng = Rng::new(seed);
        // The most frequent words of real text are function words: the Zipf
        // head is English stop words (which keyword queries leave out).
        let stop = cairn_core::store::STOP_WORDS;
        let words: Vec<String> = (0..5000)
            .map(|i| {
                if i < stop.len() {
                    return stop[i].to_string();
                }
                let n = 2 + (rng.next() % 3) as usize;
                let mut w: String = (0..n)
                    .map(|_| SYLLABLES[(rng.next() % 16) as usize])
                    .collect();
                w.push_str(&i.to_string());
                w
            })
            .collect();
        let mut total = 0.0;
        let cumulative = (1..=words.len())
            .map(|r| {
                total += 1.0 / r as f64;
                total
            })
            .collect::<Vec<_>>();
        let cumulative = cumulative.iter().map(|c| c / total).collect();
        Corpus {
            seed,
            words,
            cumulative,
        }
    }

    fn word(&self, rng: &mut Rng) -> &str {
        let u = rng.unit();
        let i = self
            .cumulative
            .partition_point(|c| *c < u)
            .min(self.words.len() - 1);
        &self.words[i]
    }

    fn text(&self, seed: u64, min: u64, max: u64) -> String {
        let mut rng = Rng::new(seed ^ self.seed);
        let n = min + rng.next() % (max - min + 1);
        (0..n)
            .map(|_| self.word(&mut rng).to_string())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Memory `i`: 10–40 words.
    pub fn memory_text(&self, i: u64) -> String {
        self.text(i.wrapping_mul(2) + 1, 10, 40)
    }

    /// Query `i`: 3–8 words.
    pub fn query_text(&self, i: u64) -> String {
        self.text(i.wrapping_mul(2) + 0x5555_5555, 3, 8)
    }
}

/// Common English content words, for sentences shaped like real memories
/// (about 1.3 WordPiece tokens per word, unlike the synthetic vocabulary).
const ENGLISH: &[&str] = &[
    "project",
    "database",
    "server",
    "deploy",
    "release",
    "user",
    "team",
    "meeting",
    "decision",
    "config",
    "staging",
    "production",
    "backup",
    "nightly",
    "weekly",
    "review",
    "merge",
    "branch",
    "test",
    "build",
    "error",
    "timeout",
    "retry",
    "queue",
    "cache",
    "memory",
    "disk",
    "network",
    "latency",
    "budget",
    "customer",
    "invoice",
    "payment",
    "report",
    "dashboard",
    "metric",
    "alert",
    "incident",
    "oncall",
    "runbook",
    "python",
    "rust",
    "docker",
    "cluster",
    "region",
    "bucket",
    "storage",
    "schema",
    "migration",
    "index",
    "prefers",
    "likes",
    "wants",
    "uses",
    "runs",
    "moved",
    "changed",
    "fixed",
    "broke",
    "added",
    "morning",
    "friday",
    "monday",
    "yesterday",
    "tomorrow",
    "month",
    "year",
    "week",
    "today",
    "later",
    "small",
    "large",
    "fast",
    "slow",
    "new",
    "old",
    "main",
    "shared",
    "private",
    "public",
    "sister",
    "brother",
    "friend",
    "dog",
    "cat",
    "garden",
    "holiday",
    "trip",
    "concert",
    "painting",
    "book",
    "music",
    "guitar",
    "running",
    "hiking",
    "camping",
    "beach",
    "mountain",
    "city",
    "school",
];

impl Corpus {
    /// English-like sentence `i`: 10–40 words.
    pub fn english_text(&self, i: u64) -> String {
        let mut rng = Rng::new(i ^ self.seed ^ 0xABCD);
        let n = 10 + rng.next() % 31;
        (0..n)
            .map(|k| {
                if k % 3 == 1 {
                    STOP[(rng.next() % STOP.len() as u64) as usize]
                } else {
                    ENGLISH[(rng.next() % ENGLISH.len() as u64) as usize]
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

const STOP: &[&str] = &[
    "the", "a", "on", "in", "with", "for", "and", "to", "of", "is",
];

/// Deterministic unit vectors from text: the sum of a seeded random vector
/// per word, normalised, so texts sharing words are close — cheap enough to
/// embed a million memories, and shaped like real embeddings for the index.
pub struct SyntheticEmbedder {
    corpus: Corpus,
}

impl SyntheticEmbedder {
    pub fn new(corpus: Corpus) -> Self {
        SyntheticEmbedder { corpus }
    }

    pub fn vector(&self, text: &str) -> Vec<f32> {
        let mut v = vec![0f32; 384];
        for word in text.split_whitespace() {
            let mut h: u64 = self.corpus.seed;
            for b in word.bytes() {
                h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
            }
            let mut rng = Rng::new(h);
            for x in v.iter_mut() {
                *x += rng.unit() as f32 - 0.5;
            }
        }
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-9);
        v.iter_mut().for_each(|x| *x /= n);
        v
    }
}

impl Embedder for SyntheticEmbedder {
    fn model(&self) -> ModelInfo {
        ModelInfo {
            name: "synthetic-384".into(),
            dim: 384,
        }
    }

    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        Ok(texts.iter().map(|t| self.vector(t)).collect())
    }
}
