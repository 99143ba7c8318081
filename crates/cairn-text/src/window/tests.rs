//! Tests of the window optimiser.

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
