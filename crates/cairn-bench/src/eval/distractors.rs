//! Distractor memories: hand-written templates and vocabularies
//! (`eval/distractors.json`) expanded by a small deterministic generator.
//!
//! A distractor is one template with its slots filled: `{name}` takes a
//! word of the vocabulary `name` (the same word wherever it repeats in the
//! template), and five slots are special: `{P}`/`{p}` the project's name,
//! `{T}` a ticket of the project (`ATL-1234`), `{SVC}` the `svc` word in
//! upper snake case (an environment variable's prefix), `{mig}` a
//! migration number. The project is drawn by weight (a `null` name is the
//! global scope, which only takes templates marked `"scope": "global"`);
//! the age, uniformly up to `max_age_days` before the reference time.
//! Texts are unique; the same file and seed always give the same list.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use anyhow::{bail, ensure, Context, Result};
use serde::Deserialize;

/// `distractors.json` (its `about` is a remark for readers, not read).
#[derive(Debug, Clone, Deserialize)]
pub struct Spec {
    /// The generator's seed.
    pub seed: u64,
    /// How many distractors.
    pub count: usize,
    /// The oldest a distractor may be, in days before the reference time.
    pub max_age_days: u32,
    /// The projects, with their weights.
    pub projects: Vec<ProjectSpec>,
    /// Word lists by slot name.
    pub vocab: BTreeMap<String, Vec<String>>,
    /// The templates.
    pub templates: Vec<Template>,
}

/// A project distractors are written in.
#[derive(Debug, Clone, Deserialize)]
pub struct ProjectSpec {
    /// Its name; `null` = global memories.
    pub name: Option<String>,
    /// Relative share of the distractors.
    pub weight: u32,
    /// Its tickets' prefix.
    pub ticket: String,
}

/// One template.
#[derive(Debug, Clone, Deserialize)]
pub struct Template {
    /// The text with `{slot}`s.
    pub text: String,
    /// Memory type.
    #[serde(rename = "type")]
    pub kind: String,
    /// Tags.
    #[serde(default)]
    pub tags: Vec<String>,
    /// `global` for templates of global memories; else project memories.
    #[serde(default)]
    pub scope: Option<String>,
}

impl Template {
    fn is_global(&self) -> bool {
        self.scope.as_deref() == Some("global")
    }
}

/// One generated distractor.
#[derive(Debug, Clone, PartialEq)]
pub struct Distractor {
    /// The text.
    pub content: String,
    /// Memory type.
    pub kind: String,
    /// Project (`None` = global).
    pub project: Option<String>,
    /// Tags.
    pub tags: Vec<String>,
    /// Milliseconds before the reference time.
    pub age_ms: i64,
}

const SPECIAL: [&str; 5] = ["P", "p", "T", "SVC", "mig"];

/// SplitMix64: a tiny, well-mixed deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The slot names of a template text, in order of first appearance.
fn slots(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close)
                if close > 0
                    && after[..close]
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_') =>
            {
                if !out.contains(&&after[..close]) {
                    out.push(&after[..close]);
                }
                rest = &after[close + 1..];
            }
            _ => rest = after,
        }
    }
    out
}

impl Spec {
    /// Reads and checks `distractors.json`.
    pub fn load(path: &Path) -> Result<Spec> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("read {}", path.display()))?;
        let spec: Spec =
            serde_json::from_str(&text).with_context(|| format!("parse {}", path.display()))?;
        spec.check().with_context(|| path.display().to_string())?;
        Ok(spec)
    }

    /// Every slot has a vocabulary, every type parses, both scopes have
    /// templates and weights are positive.
    pub fn check(&self) -> Result<()> {
        for t in &self.templates {
            for s in slots(&t.text) {
                ensure!(
                    SPECIAL.contains(&s) || self.vocab.get(s).is_some_and(|v| !v.is_empty()),
                    "template `{}`: no vocabulary `{s}`",
                    t.text
                );
            }
            t.kind
                .parse::<cairn_core::MemoryType>()
                .map_err(|e| anyhow::anyhow!("template `{}`: {e}", t.text))?;
            ensure!(
                !(t.is_global() && slots(&t.text).iter().any(|s| ["P", "p", "T"].contains(s))),
                "global template `{}` names a project",
                t.text
            );
        }
        ensure!(
            self.projects.iter().all(|p| p.weight > 0),
            "a project has weight 0"
        );
        for global in [true, false] {
            let has_project = self.projects.iter().any(|p| p.name.is_none() == global);
            let has_template = self.templates.iter().any(|t| t.is_global() == global);
            ensure!(
                !has_project || has_template,
                "no template for {} memories",
                if global { "global" } else { "project" }
            );
        }
        Ok(())
    }

    /// The distractors, `count` of them (or `limit` if given), always the
    /// same for the same spec.
    pub fn generate(&self, limit: Option<usize>) -> Result<Vec<Distractor>> {
        let count = limit.unwrap_or(self.count);
        let mut rng = Rng(self.seed);
        let total: u32 = self.projects.iter().map(|p| p.weight).sum();
        let (global, local): (Vec<&Template>, Vec<&Template>) =
            self.templates.iter().partition(|t| t.is_global());
        let mut seen = HashSet::with_capacity(count);
        let mut out = Vec::with_capacity(count);
        let mut attempts = 0usize;
        while out.len() < count {
            attempts += 1;
            if attempts > count * 50 + 1000 {
                bail!(
                    "only {} distinct distractors after {attempts} draws: add templates or words",
                    out.len()
                );
            }
            let mut pick = (rng.next() % u64::from(total)) as u32;
            let project = self
                .projects
                .iter()
                .find(|p| {
                    if pick < p.weight {
                        true
                    } else {
                        pick -= p.weight;
                        false
                    }
                })
                .expect("pick < total");
            let pool = if project.name.is_none() {
                &global
            } else {
                &local
            };
            let t = pool[rng.below(pool.len())];
            let content = self.fill(&t.text, project, &mut rng);
            let age_ms = (rng.next() % (u64::from(self.max_age_days) * 86_400_000)) as i64;
            if seen.insert(content.clone()) {
                out.push(Distractor {
                    content,
                    kind: t.kind.clone(),
                    project: project.name.clone(),
                    tags: t.tags.clone(),
                    age_ms,
                });
            }
        }
        Ok(out)
    }

    fn fill(&self, text: &str, project: &ProjectSpec, rng: &mut Rng) -> String {
        let name = project.name.as_deref().unwrap_or("global");
        let mut words: BTreeMap<&str, String> = BTreeMap::new();
        let svc = &self.vocab["svc"];
        let svc = svc[rng.below(svc.len())].clone();
        for s in slots(text) {
            let word = match s {
                "P" | "p" => name.to_string(),
                "T" => format!("{}-{}", project.ticket, 1000 + rng.below(9000)),
                "SVC" => svc.to_uppercase().replace('-', "_"),
                "svc" => svc.clone(),
                "mig" => format!("{:04}", 50 + rng.below(400)),
                _ => {
                    let v = &self.vocab[s];
                    v[rng.below(v.len())].clone()
                }
            };
            words.insert(s, word);
        }
        let mut out = text.to_string();
        for (s, w) in words {
            out = out.replace(&format!("{{{s}}}"), &w);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn committed() -> Spec {
        Spec::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../eval/distractors.json"))
            .unwrap()
    }

    #[test]
    fn slots_are_found_once_each_and_literals_kept() {
        assert_eq!(
            slots("{svc} on {port}, {svc} again; {not a slot} {} {x"),
            ["svc", "port"]
        );
    }

    #[test]
    fn the_committed_templates_give_thousands_of_distinct_realistic_texts() {
        let spec = committed();
        let d = spec.generate(None).unwrap();
        assert_eq!(d.len(), spec.count);
        assert!(d.len() >= 3000);
        assert!(d.iter().all(|x| !x.content.contains('{')));
        let distinct: HashSet<_> = d.iter().map(|x| &x.content).collect();
        assert_eq!(distinct.len(), d.len());
        let global = d.iter().filter(|x| x.project.is_none()).count();
        assert!(
            global > d.len() / 10 && global < d.len() / 2,
            "{global} global"
        );
        let max = i64::from(spec.max_age_days) * 86_400_000;
        assert!(d.iter().all(|x| (0..max).contains(&x.age_ms)));
        // Deterministic, and a limit gives a prefix of the full list.
        assert_eq!(spec.generate(Some(100)).unwrap(), d[..100].to_vec());
    }

    #[test]
    fn distractors_never_repeat_a_case_memory() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../eval");
        let cases = super::super::set::load_cases(&dir.join("cases.jsonl")).unwrap();
        let case_texts: HashSet<String> = cases
            .iter()
            .flat_map(|c| c.memories.iter().map(|m| m.content.to_lowercase()))
            .collect();
        for d in committed().generate(None).unwrap() {
            assert!(
                !case_texts.contains(&d.content.to_lowercase()),
                "{}",
                d.content
            );
        }
    }

    #[test]
    fn unknown_slots_are_refused() {
        let mut spec = committed();
        spec.templates[0].text = "{nope} is here".into();
        assert!(spec.check().is_err());
    }
}
