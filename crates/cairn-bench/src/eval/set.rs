//! The evaluation set's cases: their file format, loading, and the checks
//! that make a malformed case an error instead of a silent zero.
//!
//! `cases.jsonl` holds one [`Case`] per line (the format is documented in
//! `eval/README.md`). A case names the memories it needs by keys local to
//! the case; [`Case::memory_id`] makes them unique across the set
//! (`<case id>/<key>`), which is how results are scored.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use anyhow::{bail, ensure, Context, Result};
use cairn_core::MemoryType;
use serde::Deserialize;

/// What a case tests. The order is the order of the report's rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// The right memory shares no content word with the question.
    Paraphrase,
    /// Identifiers and code symbols: error codes, functions, env vars, paths.
    Identifier,
    /// Numbers and versions.
    NumberVersion,
    /// A newer memory replaces an older one; the old one must not win.
    Supersession,
    /// A memory of another project must not be returned.
    Scope,
    /// Negation in the question or the memory ("not Postgres").
    Negation,
    /// Relative time ("last week", "yesterday").
    Temporal,
    /// The answer needs two memories.
    MultiFact,
    /// A fact, then a correction of it in other words, then a question
    /// about the current state: the correction must come first and the
    /// fact it corrects be marked as outdated (written without a
    /// `supersedes` link: the write must find the conflict itself).
    Correction,
    /// The answer is not stored: the right answer is an empty one. Scored
    /// apart, as the share of empty answers (no hit@k).
    Abstain,
}

impl Kind {
    /// Every kind, in report order.
    pub const ALL: [Kind; 10] = [
        Kind::Paraphrase,
        Kind::Identifier,
        Kind::NumberVersion,
        Kind::Supersession,
        Kind::Scope,
        Kind::Negation,
        Kind::Temporal,
        Kind::MultiFact,
        Kind::Correction,
        Kind::Abstain,
    ];

    /// The name used in the file and the report.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Paraphrase => "paraphrase",
            Kind::Identifier => "identifier",
            Kind::NumberVersion => "number_version",
            Kind::Supersession => "supersession",
            Kind::Scope => "scope",
            Kind::Negation => "negation",
            Kind::Temporal => "temporal",
            Kind::MultiFact => "multi_fact",
            Kind::Correction => "correction",
            Kind::Abstain => "abstain",
        }
    }
}

/// One memory a case needs.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaseMemory {
    /// Its name within the case.
    pub key: String,
    /// The text remembered.
    pub content: String,
    /// Memory type (default `note`).
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
    /// Project; default: the case's project.
    #[serde(default)]
    pub project: Option<String>,
    /// Stored as a global memory even when the case has a project.
    #[serde(default)]
    pub global: bool,
    /// Tags.
    #[serde(default)]
    pub tags: Vec<String>,
    /// How long before the reference time it was written (`3h`, `8d`,
    /// `2w`); default: a fixed age derived from its id (1–120 days).
    #[serde(default)]
    pub age: Option<String>,
    /// Key of an earlier memory of the case that this one supersedes.
    #[serde(default)]
    pub supersedes: Option<String>,
    /// Who said it, in a conversation case (default `user`).
    #[serde(default)]
    pub speaker: Option<String>,
}

/// One question with the memories it needs.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// Unique id, e.g. `paraphrase-07`.
    pub id: String,
    /// What it tests.
    pub kind: Kind,
    /// The project the question is asked from (and the default project of
    /// its memories); none: asked without a project (global memories only).
    #[serde(default)]
    pub project: Option<String>,
    /// The question, as an agent would ask it.
    pub question: String,
    /// The memories are messages of one conversation, logged in order
    /// through the conversation path (`cairn conversation log`) rather
    /// than remembered.
    #[serde(default)]
    pub conversation: bool,
    /// The memories written for this case (none for an abstain case).
    #[serde(default)]
    pub memories: Vec<CaseMemory>,
    /// Keys of the memories that answer the question (none for an
    /// abstain case).
    #[serde(default)]
    pub relevant: Vec<String>,
    /// Keys of outdated memories that must not rank above the relevant
    /// ones (supersession).
    #[serde(default)]
    pub stale: Vec<String>,
    /// A remark for readers (e.g. `unlinked`); parsed so that the field is
    /// known, never used.
    #[serde(default)]
    #[allow(dead_code)]
    pub note: Option<String>,
}

impl Case {
    /// The set-wide id of one of its memories: `<case id>/<key>`.
    pub fn memory_id(&self, key: &str) -> String {
        format!("{}/{key}", self.id)
    }

    /// The project a memory is stored in (`None` = global).
    pub fn project_of<'a>(&'a self, m: &'a CaseMemory) -> Option<&'a str> {
        if m.global {
            None
        } else {
            m.project.as_deref().or(self.project.as_deref())
        }
    }

    /// Set-wide ids of the relevant memories.
    pub fn relevant_ids(&self) -> Vec<String> {
        self.relevant.iter().map(|k| self.memory_id(k)).collect()
    }

    /// Set-wide ids of the stale memories.
    pub fn stale_ids(&self) -> Vec<String> {
        self.stale.iter().map(|k| self.memory_id(k)).collect()
    }

    /// Checks the case on its own: keys unique, every referenced key
    /// exists (a superseded memory before the one superseding it), types
    /// and ages readable, and each kind's needs met.
    pub fn check(&self) -> Result<()> {
        ensure!(!self.question.trim().is_empty(), "empty question");
        match self.kind {
            Kind::Abstain => ensure!(
                self.relevant.is_empty() && self.stale.is_empty(),
                "an abstain case names no relevant or stale memory"
            ),
            _ => {
                ensure!(!self.memories.is_empty(), "no memories");
                ensure!(!self.relevant.is_empty(), "no relevant memory");
            }
        }
        let mut keys = HashSet::new();
        for m in &self.memories {
            ensure!(!m.content.trim().is_empty(), "memory `{}` is empty", m.key);
            ensure!(
                self.conversation || m.speaker.is_none(),
                "memory `{}` has a speaker outside a conversation case",
                m.key
            );
            ensure!(
                !self.conversation
                    || (m.kind.is_none()
                        && m.supersedes.is_none()
                        && m.project.is_none()
                        && !m.global),
                "message `{}` of a conversation case has a type, project or supersedes",
                m.key
            );
            ensure!(keys.insert(m.key.as_str()), "key `{}` repeated", m.key);
            if let Some(k) = &m.kind {
                k.parse::<MemoryType>()
                    .map_err(|e| anyhow::anyhow!("memory `{}`: {e}", m.key))?;
            }
            if let Some(a) = &m.age {
                cairn_core::time::parse_duration(a)
                    .map_err(|e| anyhow::anyhow!("memory `{}`: age: {e}", m.key))?;
            }
            if let Some(old) = &m.supersedes {
                ensure!(
                    keys.contains(old.as_str()) && old != &m.key,
                    "memory `{}` supersedes `{old}`, which is not an earlier memory of the case",
                    m.key
                );
            }
        }
        for k in self.relevant.iter().chain(&self.stale) {
            ensure!(keys.contains(k.as_str()), "no memory `{k}`");
        }
        ensure!(
            self.stale.iter().all(|s| !self.relevant.contains(s)),
            "a memory is both relevant and stale"
        );
        match self.kind {
            Kind::Supersession => ensure!(!self.stale.is_empty(), "supersession without stale"),
            Kind::Correction => ensure!(
                !self.stale.is_empty() && self.memories.iter().all(|m| m.supersedes.is_none()),
                "a correction names its stale memory and links none by supersedes"
            ),
            Kind::MultiFact => ensure!(self.relevant.len() >= 2, "multi_fact needs 2+ relevant"),
            Kind::Scope => ensure!(
                self.memories.iter().any(|m| self
                    .project_of(m)
                    .is_some_and(|p| Some(p) != self.project.as_deref())),
                "scope case without a memory of another project"
            ),
            _ => {}
        }
        for k in &self.relevant {
            let m = self.memories.iter().find(|m| &m.key == k).expect("checked");
            let p = self.project_of(m);
            ensure!(
                p.is_none() || p == self.project.as_deref(),
                "relevant memory `{k}` cannot be seen from the question's project"
            );
        }
        Ok(())
    }
}

/// Reads and checks `cases.jsonl`: every line a case, ids unique.
pub fn load_cases(path: &Path) -> Result<Vec<Case>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("read {}", path.display()))?;
    parse_cases(&text).with_context(|| path.display().to_string())
}

/// Parses and checks the text of `cases.jsonl` (blank lines skipped).
pub fn parse_cases(text: &str) -> Result<Vec<Case>> {
    let mut cases = Vec::new();
    let mut ids = HashSet::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let case: Case = serde_json::from_str(line).with_context(|| format!("line {}", n + 1))?;
        case.check()
            .with_context(|| format!("line {}: case {}", n + 1, case.id))?;
        if !ids.insert(case.id.clone()) {
            bail!("line {}: case id {} repeated", n + 1, case.id);
        }
        cases.push(case);
    }
    Ok(cases)
}

/// At most `per_kind` cases of each kind, in file order (a smoke run).
pub fn first_per_kind(cases: Vec<Case>, per_kind: usize) -> Vec<Case> {
    let mut taken: BTreeMap<Kind, usize> = BTreeMap::new();
    cases
        .into_iter()
        .filter(|c| {
            let n = taken.entry(c.kind).or_default();
            *n += 1;
            *n <= per_kind
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo_eval() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../eval")
    }

    #[test]
    fn the_committed_set_parses_and_is_big_enough() {
        let cases = load_cases(&repo_eval().join("cases.jsonl")).unwrap();
        assert!(cases.len() >= 150, "{} cases", cases.len());
        for kind in Kind::ALL {
            let n = cases.iter().filter(|c| c.kind == kind).count();
            assert!(n >= 15, "{}: {n} cases", kind.as_str());
        }
        // Memory ids are unique set-wide, and every relevant id is one.
        let mut ids = HashSet::new();
        for c in &cases {
            for m in &c.memories {
                assert!(ids.insert(c.memory_id(&m.key)));
            }
        }
        for c in &cases {
            for r in c.relevant_ids().iter().chain(&c.stale_ids()) {
                assert!(ids.contains(r), "{r}");
            }
        }
        // Supersession cases link the new memory to the old one, except the
        // few that test an agent that forgot to.
        let sup: Vec<_> = cases
            .iter()
            .filter(|c| c.kind == Kind::Supersession)
            .collect();
        let linked = sup
            .iter()
            .filter(|c| c.memories.iter().any(|m| m.supersedes.is_some()))
            .count();
        assert!(linked * 2 > sup.len(), "{linked} of {} linked", sup.len());
        // Corrections: half or more as conversations, half or more not.
        let corrections: Vec<_> = cases
            .iter()
            .filter(|c| c.kind == Kind::Correction)
            .collect();
        let talked = corrections.iter().filter(|c| c.conversation).count();
        assert!(corrections.len() >= 30, "{} corrections", corrections.len());
        assert!(talked * 2 >= corrections.len() && talked * 2 <= corrections.len() + 1);
    }

    #[test]
    fn malformed_cases_are_refused() {
        let ok = r#"{"id":"a","kind":"paraphrase","project":"p","question":"q?","memories":[{"key":"m","content":"x"}],"relevant":["m"]}"#;
        assert_eq!(parse_cases(ok).unwrap().len(), 1);
        let bad = [
            // relevant key that does not exist
            ok.replace(r#""relevant":["m"]"#, r#""relevant":["z"]"#),
            // unknown kind
            ok.replace("paraphrase", "vibes"),
            // unknown field
            ok.replace(r#""question""#, r#""questoin""#),
            // bad type and bad age
            ok.replace(r#""content":"x""#, r#""content":"x","type":"gossip""#),
            ok.replace(r#""content":"x""#, r#""content":"x","age":"soon""#),
            // supersedes a later or missing memory
            ok.replace(r#""content":"x""#, r#""content":"x","supersedes":"m""#),
            // a relevant memory of another project cannot be found from p
            ok.replace(r#""content":"x""#, r#""content":"x","project":"other""#),
            // supersession without stale; multi_fact with one relevant
            ok.replace("paraphrase", "supersession"),
            ok.replace("paraphrase", "multi_fact"),
            // a correction without stale; a speaker outside a conversation
            ok.replace("paraphrase", "correction"),
            ok.replace(r#""content":"x""#, r#""content":"x","speaker":"ana""#),
            // a message of a conversation case with a type
            ok.replace(r#""question""#, r#""conversation":true,"question""#)
                .replace(r#""content":"x""#, r#""content":"x","type":"fact""#),
        ];
        for b in &bad {
            assert!(parse_cases(b).is_err(), "accepted: {b}");
        }
        let twice = format!("{ok}\n{ok}");
        assert!(parse_cases(&twice).is_err(), "repeated id accepted");
    }

    #[test]
    fn per_kind_limit_keeps_file_order() {
        let line = |id: &str, kind: &str| {
            format!(
                r#"{{"id":"{id}","kind":"{kind}","question":"q","memories":[{{"key":"m","content":"x"}}],"relevant":["m"]}}"#
            )
        };
        let text = [
            line("p1", "paraphrase"),
            line("i1", "identifier"),
            line("p2", "paraphrase"),
            line("p3", "paraphrase"),
        ]
        .join("\n");
        let cases = first_per_kind(parse_cases(&text).unwrap(), 2);
        let ids: Vec<_> = cases.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["p1", "i1", "p2"]);
    }
}
