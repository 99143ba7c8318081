//! The LoCoMo evidence-recall benchmark.
//!
//! LoCoMo (Maharana et al., 2024) has 10 long conversations, each with
//! questions annotated with the turns (`dia_id`s) that hold their answers.
//! For each conversation, every turn becomes a memory in a store of its own,
//! written through [`Cairn::remember`] with the session's date as the
//! memory's time; then every question of categories 1–4 is asked in each
//! search mode, and the ranked turns are scored against the evidence with
//! [`crate::metrics`]. Nothing of the questions, answers, categories or
//! evidence reaches the engine: they are only used to score its answers.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use cairn_core::api::EngineBuilder;
use cairn_core::engine::Profile;
use cairn_core::engine::{Message, ObserveRequest};
use cairn_core::rank::Fusion;
use cairn_core::{Cairn, MemoryId, MemoryType, RecallRequest, RememberRequest, SearchMode};
use serde_json::{json, Map, Value};

use crate::metrics::{self, Summary, DEPTH};

/// The tenant every conversation is stored under (one store each).
const TENANT: &str = "locomo";

/// The question categories scored (5, adversarial, has no evidence to find).
pub const CATEGORIES: [u8; 4] = [1, 2, 3, 4];

/// LoCoMo's names for the categories, as in its own code.
pub fn category_name(c: u8) -> &'static str {
    match c {
        1 => "multi-hop",
        2 => "temporal",
        3 => "open-domain",
        4 => "single-hop",
        _ => "other",
    }
}

/// One turn of a conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    /// `D<session>:<turn>`.
    pub dia_id: String,
    /// Who spoke.
    pub speaker: String,
    /// What was said.
    pub text: String,
    /// The caption of an image shared with the turn.
    pub caption: Option<String>,
    /// Session number.
    pub session: u32,
    /// The session's date and time, ms since the epoch (UTC).
    pub time: i64,
}

impl Turn {
    /// The memory's content: the speaker's line, and the photo they shared.
    pub fn content(&self) -> String {
        match &self.caption {
            Some(c) => format!("{}: {} [shares a photo: {c}]", self.speaker, self.text),
            None => format!("{}: {}", self.speaker, self.text),
        }
    }
}

/// One question.
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    /// The question as asked.
    pub text: String,
    /// LoCoMo category (1–5).
    pub category: u8,
    /// Normalised `dia_id`s of the turns holding the answer.
    pub evidence: Vec<String>,
}

/// One conversation with its questions.
#[derive(Debug, Clone)]
pub struct Conversation {
    /// `sample_id`.
    pub id: String,
    /// Every turn, in order.
    pub turns: Vec<Turn>,
    /// Every question.
    pub questions: Vec<Question>,
}

/// Reads `locomo10.json`.
pub fn load(path: &Path) -> Result<Vec<Conversation>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("read {} (LoCoMo's locomo10.json)", path.display()))?;
    let value: Value =
        serde_json::from_str(&text).with_context(|| format!("parse {}", path.display()))?;
    let Value::Array(items) = value else {
        bail!("{}: expected a JSON list of conversations", path.display());
    };
    items
        .iter()
        .enumerate()
        .map(|(i, v)| parse_conversation(v).with_context(|| format!("conversation #{}", i + 1)))
        .collect()
}

fn parse_conversation(v: &Value) -> Result<Conversation> {
    let id = v["sample_id"].as_str().unwrap_or("?").to_string();
    let conv = v["conversation"]
        .as_object()
        .context("no `conversation` object")?;
    let mut sessions: Vec<u32> = conv
        .keys()
        .filter_map(|k| k.strip_prefix("session_")?.parse().ok())
        .collect();
    sessions.sort_unstable();
    let mut turns = Vec::new();
    for s in sessions {
        let date = conv
            .get(&format!("session_{s}_date_time"))
            .and_then(Value::as_str)
            .with_context(|| format!("session {s} has no date"))?;
        let time = parse_session_time(date)?;
        for t in conv[&format!("session_{s}")]
            .as_array()
            .into_iter()
            .flatten()
        {
            let field = |k: &str| t.get(k).and_then(Value::as_str).map(str::to_string);
            turns.push(Turn {
                dia_id: field("dia_id").context("a turn has no dia_id")?,
                speaker: field("speaker").context("a turn has no speaker")?,
                text: field("text").unwrap_or_default(),
                caption: field("blip_caption").filter(|c| !c.trim().is_empty()),
                session: s,
                time,
            });
        }
    }
    let questions = v["qa"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|q| Question {
            text: q["question"].as_str().unwrap_or_default().to_string(),
            category: q["category"].as_u64().unwrap_or(0) as u8,
            evidence: q["evidence"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .flat_map(normalize_evidence)
                .collect(),
        })
        .collect();
    Ok(Conversation {
        id,
        turns,
        questions,
    })
}

/// Normalises an evidence reference: `"D8:6; D9:17"` → `D8:6`, `D9:17`;
/// `"D:11:26"` → `D11:26`; `"D30:05"` → `D30:5`. Anything else that does not
/// read as `D<session>:<turn>` is dropped.
pub fn normalize_evidence(raw: &str) -> Vec<String> {
    raw.split([';', ',', ' '])
        .filter_map(|part| {
            let digits: Vec<u32> = part
                .trim()
                .strip_prefix('D')?
                .split(':')
                .filter(|s| !s.is_empty())
                .map(|s| s.parse().ok())
                .collect::<Option<_>>()?;
            match digits[..] {
                [session, turn] => Some(format!("D{session}:{turn}")),
                _ => None,
            }
        })
        .collect()
}

/// Parses LoCoMo's session dates, e.g. `1:56 pm on 8 May, 2023`, as UTC.
pub fn parse_session_time(s: &str) -> Result<i64> {
    let t = chrono::NaiveDateTime::parse_from_str(s.trim(), "%I:%M %p on %d %B, %Y")
        .with_context(|| format!("unreadable session date `{s}`"))?;
    Ok(t.and_utc().timestamp_millis())
}

/// The match types asked, in report order: the three retrieval modes, and
/// temporal (time words in the question as a filter, relative to the
/// conversation's last session).
pub const MODES: [SearchMode; 4] = [
    SearchMode::Keyword,
    SearchMode::Semantic,
    SearchMode::Hybrid,
    SearchMode::Temporal,
];

/// How the benchmark stores a conversation's turns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Ingest {
    /// `cairn conversation import`: messages in sessions and topics, each
    /// indexed with its neighbours as keyword context.
    Conversation,
    /// `cairn remember` of each turn: plain episodes.
    Plain,
}

/// An engine whose clock the benchmark sets (to each session's date while
/// writing), over `store`.
pub struct Harness {
    /// The engine.
    pub cairn: Cairn,
    clock: Arc<AtomicI64>,
    /// How questions' candidates are ranked.
    pub profile: Profile,
    /// Each conflict conversation import linked, as `newer ⇐ older (reason)`.
    pub conflicts: std::sync::Mutex<Vec<String>>,
}

impl Harness {
    /// One conversation's line on stderr: its turns, its questions and
    /// the conflicts its import linked, each listed after it.
    pub fn report_conversation(&self, conv: &Conversation, asked: usize) {
        let linked = std::mem::take(&mut *self.conflicts.lock().expect("conflict list lock"));
        eprintln!(
            "{}: {} turns, {asked} questions, {} conflicts linked",
            conv.id,
            conv.turns.len(),
            linked.len()
        );
        for c in &linked {
            eprintln!("  conflict: {c}");
        }
    }

    /// Rerank recall's best candidates by maximal marginal relevance with
    /// this λ (`None`: recall's own order).
    pub fn with_mmr(mut self, lambda: Option<f64>) -> Self {
        let reranker = lambda.map(|lambda| {
            std::sync::Arc::new(cairn_core::rerank::Mmr { lambda })
                as std::sync::Arc<dyn cairn_core::rerank::Reranker>
        });
        self.cairn = self.cairn.clone().with_reranker(reranker);
        self
    }

    /// An engine over `store` and `embedder` with a settable clock.
    pub fn new(
        store: Arc<dyn cairn_core::Store>,
        embedder: Arc<dyn cairn_core::Embedder>,
        fusion: Fusion,
    ) -> Self {
        let clock = Arc::new(AtomicI64::new(0));
        let reader = clock.clone();
        let cairn = EngineBuilder::new(store, embedder)
            .fusion(fusion)
            .build()
            .expect("an engine without a redaction setting builds")
            .with_clock(Arc::new(move || reader.load(Ordering::Relaxed)));
        Harness {
            cairn,
            clock,
            profile: Profile::Cairn,
            conflicts: Default::default(),
        }
    }

    /// Writes every turn as a memory, timed at its session's date, the
    /// way `ingest` says; returns each memory's `dia_id`.
    pub fn ingest(&self, conv: &Conversation, ingest: Ingest) -> Result<HashMap<MemoryId, String>> {
        let ids = match ingest {
            Ingest::Conversation => self.ingest_conversation(conv)?,
            Ingest::Plain => self.ingest_plain(conv)?,
        };
        if let Some(last) = conv.turns.iter().map(|t| t.time).max() {
            self.clock.store(last + 86_400_000, Ordering::Relaxed);
        }
        Ok(ids)
    }

    /// As `cairn conversation import` of the transcript: one message per
    /// turn (the photo a speaker shared is part of the text), each LoCoMo
    /// session a session of the conversation, the turn's `dia_id` in the
    /// metadata.
    fn ingest_conversation(&self, conv: &Conversation) -> Result<HashMap<MemoryId, String>> {
        let messages: Vec<Message> = conv
            .turns
            .iter()
            .enumerate()
            .map(|(i, turn)| {
                let mut metadata = Map::new();
                metadata.insert("dia_id".into(), json!(turn.dia_id));
                let text = turn.content();
                Message {
                    conversation: conv.id.clone(),
                    session: Some(format!("{}-session-{}", conv.id, turn.session)),
                    speaker: turn.speaker.clone(),
                    text: text[turn.speaker.len() + 2..].to_string(),
                    // Turns of a session keep their order, a second apart.
                    at: Some(turn.time + i as i64 * 1000),
                    id: None,
                    metadata,
                }
            })
            .collect();
        if let Some(last) = messages.iter().filter_map(|m| m.at).max() {
            self.clock.store(last, Ordering::Relaxed);
        }
        let req = ObserveRequest {
            tenant: TENANT.into(),
            project: None,
            actor: "locomo".into(),
        };
        let texts: Vec<String> = messages.iter().map(|m| m.text.clone()).collect();
        let report = self.cairn.observe(&req, messages, &mut |_| ())?;
        let mut linked = self.conflicts.lock().expect("conflict list lock");
        for (m, text) in report.logged.iter().zip(&texts) {
            for c in &m.conflicts {
                linked.push(format!("{text} ⇐ {} ({})", c.content, c.reason).replace('\n', " "));
            }
        }
        drop(linked);
        if report.logged.len() != conv.turns.len() {
            bail!(
                "{} of {} turns were logged",
                report.logged.len(),
                conv.turns.len()
            );
        }
        Ok(report
            .logged
            .iter()
            .zip(&conv.turns)
            .map(|(m, t)| (m.id, t.dia_id.clone()))
            .collect())
    }

    /// As `cairn remember` of each turn (dedup on, as by default): the
    /// speaker's line (with the photo they shared) is the content;
    /// speaker, dia_id and session are metadata.
    fn ingest_plain(&self, conv: &Conversation) -> Result<HashMap<MemoryId, String>> {
        let mut ids = HashMap::with_capacity(conv.turns.len());
        for (i, turn) in conv.turns.iter().enumerate() {
            self.clock
                .store(turn.time + i as i64 * 1000, Ordering::Relaxed);
            let mut req = RememberRequest::new(TENANT, turn.content());
            req.kind = MemoryType::Episode;
            req.source = Some("locomo".into());
            let mut meta = Map::new();
            meta.insert("speaker".into(), json!(turn.speaker));
            meta.insert("dia_id".into(), json!(turn.dia_id));
            meta.insert("session".into(), json!(turn.session));
            req.metadata = meta;
            let out = self
                .cairn
                .remember(req)
                .with_context(|| format!("remember turn {}", turn.dia_id))?;
            if ids.insert(out.id, turn.dia_id.clone()).is_some() {
                bail!("turn {} was merged into another memory", turn.dia_id);
            }
        }
        Ok(ids)
    }

    /// The `dia_id`s of the top [`DEPTH`] memories for `question`;
    /// `reference` is the time a temporal question's "last week" is read
    /// against.
    pub fn ask(
        &self,
        question: &str,
        mode: SearchMode,
        reference: Option<i64>,
        ids: &HashMap<MemoryId, String>,
    ) -> Result<Vec<String>> {
        let mut req = RecallRequest::new(TENANT, question);
        req.limit = DEPTH;
        req.mode = mode;
        req.reference = reference;
        req.profile = self.profile;
        Ok(self
            .cairn
            .search(&req)?
            .into_iter()
            .filter_map(|r| ids.get(&r.memory.id).cloned())
            .collect())
    }
}

/// The scores of one mode: per category and overall, with query times.
#[derive(Debug, Clone, Default)]
pub struct ModeResult {
    /// Per category, in [`CATEGORIES`] order.
    pub by_category: [Summary; CATEGORIES.len()],
    /// Milliseconds per query.
    pub query_ms: Vec<f64>,
}

impl ModeResult {
    /// Scores one question's ranked turns.
    pub fn add(&mut self, q: &Question, ranked: &[String]) {
        let Some(c) = CATEGORIES.iter().position(|&c| c == q.category) else {
            return;
        };
        let ranked: Vec<&str> = ranked.iter().map(String::as_str).collect();
        let evidence: Vec<&str> = q.evidence.iter().map(String::as_str).collect();
        if let Some(s) = metrics::score(&ranked, &evidence) {
            self.by_category[c].add(&s);
        }
    }

    /// All categories together.
    pub fn overall(&self) -> Summary {
        let mut all = Summary::default();
        for s in &self.by_category {
            all.merge(s);
        }
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cairn_core::conformance::LexicalEmbedder;

    /// A tiny conversation in LoCoMo's format, with malformed evidence ids
    /// like the real file's.
    const TINY: &str = r#"[{
      "sample_id": "tiny",
      "conversation": {
        "speaker_a": "Ana", "speaker_b": "Ben",
        "session_1_date_time": "9:05 am on 3 March, 2023",
        "session_1": [
          {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a greyhound called Pixel."},
          {"speaker": "Ben", "dia_id": "D1:2", "text": "Lovely! I started pottery classes.",
           "img_url": ["x"], "blip_caption": "a photo of a clay bowl"}
        ],
        "session_2_date_time": "4:30 pm on 10 April, 2023",
        "session_2": [
          {"speaker": "Ana", "dia_id": "D2:1", "text": "Pixel loves the beach at Brighton."},
          {"speaker": "Ben", "dia_id": "D2:2", "text": "My kiln broke, so no pottery this week."}
        ]
      },
      "qa": [
        {"question": "What is the name of Ana's greyhound?", "answer": "Pixel",
         "evidence": ["D1:1"], "category": 4},
        {"question": "Which beach does the greyhound Pixel love?", "answer": "Brighton",
         "evidence": ["D1:1; D02:1"], "category": 1},
        {"question": "What broke?", "answer": "kiln", "evidence": ["D:2:2"], "category": 2},
        {"question": "No evidence here", "answer": "?", "evidence": [], "category": 4},
        {"question": "Adversarial", "adversarial_answer": "x", "evidence": ["D1:2"], "category": 5}
      ]
    }]"#;

    fn tiny() -> Conversation {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tiny.json");
        std::fs::write(&path, TINY).unwrap();
        load(&path).unwrap().remove(0)
    }

    #[test]
    fn parses_turns_dates_captions_and_messy_evidence() {
        let c = tiny();
        assert_eq!(c.turns.len(), 4);
        assert_eq!(
            c.turns[1].content(),
            "Ben: Lovely! I started pottery classes. [shares a photo: a photo of a clay bowl]"
        );
        assert_eq!(c.turns[2].session, 2);
        assert_eq!(c.turns[0].time, 1_677_834_300_000); // 2023-03-03 09:05 UTC
        assert_eq!(c.turns[3].time, 1_681_144_200_000); // 2023-04-10 16:30 UTC
        assert_eq!(c.questions[1].evidence, ["D1:1", "D2:1"]);
        assert_eq!(c.questions[2].evidence, ["D2:2"]);
        assert!(c.questions[3].evidence.is_empty());
        assert_eq!(normalize_evidence("D30:05"), ["D30:5"]);
        assert!(normalize_evidence("session 3").is_empty());
    }

    #[test]
    fn scores_a_tiny_conversation_end_to_end() {
        let c = tiny();
        let dir = tempfile::tempdir().unwrap();
        let store = cairn_sqlite::SqliteStore::open(dir.path().join("tiny.db")).unwrap();
        let h = Harness::new(
            Arc::new(store),
            Arc::new(LexicalEmbedder),
            Fusion::default(),
        );
        let ids = h.ingest(&c, Ingest::Conversation).unwrap();
        assert_eq!(ids.len(), 4, "every turn is its own memory");
        let mut result = ModeResult::default();
        for q in &c.questions {
            let ranked = h.ask(&q.text, SearchMode::Keyword, None, &ids).unwrap();
            result.add(q, &ranked);
        }
        // Category 5 and the question without evidence are not scored.
        let all = result.overall();
        assert_eq!(all.questions, 3);
        // Q1: "greyhound" only in D1:1 → rank 1 (recall 1).
        // Q2: evidence D1:1 and D2:1; D2:1 has "pixel", "loves" and "beach"
        //     in its content, D1:1 "greyhound" and "pixel"; the other turns
        //     have those words only in their context (half weight): both
        //     are found by rank 2, and one fits in the top 1 (recall@1 1/2).
        // Q3: "broke" only in D2:2 → rank 1.
        let single_hop = &result.by_category[3];
        assert_eq!(single_hop.questions, 1);
        assert_eq!(single_hop.recall(0), 1.0);
        assert_eq!(result.by_category[0].recall(0), 0.5);
        assert_eq!(result.by_category[0].recall(1), 1.0);
        assert_eq!(result.by_category[1].mrr(), 1.0);
        assert!((all.recall(0) - 2.5 / 3.0).abs() < 1e-12);
        assert_eq!(all.hit(0), 1.0);
    }
}
