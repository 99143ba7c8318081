//! Ingestion: Memory Vault AI's pipeline over the stages of
//! [`crate::ingest`], written once for every front end.
//!
//! ```text
//! raw text → clean → redact → chunk → embed → importance → route → store or skip
//! ```
//!
//! Every sentence is embedded, for the subject breaks, then every chunk
//! whole (as the engine's [`crate::EmbedRecipe`] makes its text), for its
//! memory's vector; with `pooled_vectors` a chunk's vector pools its
//! sentences' ([`pooled`]) with that of what the recipe adds (its names
//! line), and the text is embedded once (faster, slightly worse recall:
//! `cairn-bench ingest` measures both).
//!
//! Every chunk ends in the receipt with what became of it — stored as what,
//! merged into which memory at what similarity, or skipped and why —
//! so nothing is dropped silently; a dry run computes the same receipt
//! without writing.
//!
//! With a chat model configured, the text gets a title (stored in each
//! memory's `metadata.ingest.title`), and with [`IngestRequest::facts`]
//! each chunk kept is also read for atomic facts, each routed and stored
//! or skipped like a chunk ([`super::facts`]); the model is never needed.

use serde_json::{json, Map};

use super::{Cairn, Redactions, RememberRequest, WriteStatus};
use crate::analysis;
use crate::chat::Generated;
use crate::history::LOCAL_ACTOR;
use crate::ingest::{chunk, clean, route_in_section, Chunk, ChunkOptions};
use crate::memory::{normalize_project, normalize_tags, EmbedRecipe, MemoryId, MemoryType, Tier};
use crate::rank::{cosine, exchange_importance, DEDUP_THRESHOLD};
use crate::store::{Filter, ScopeFilter};
use crate::{Error, Result};

/// Chunks below this importance are skipped (Memory Vault AI's threshold).
pub const DEFAULT_INGEST_THRESHOLD: f64 = 0.3;

/// Chunks embedded per model call.
const EMBED_BATCH: usize = 64;

/// What to ingest.
#[derive(Debug, Clone)]
pub struct IngestRequest {
    /// Owner.
    pub tenant: String,
    /// The raw text (plain, Markdown or HTML).
    pub text: String,
    /// The project of the memories (`None`: global).
    pub project: Option<String>,
    /// Tags of every memory stored.
    pub tags: Vec<String>,
    /// Origin (default `ingest`).
    pub source: Option<String>,
    /// Who writes.
    pub actor: String,
    /// Chunks of lower importance are skipped.
    pub threshold: f64,
    /// Compute the receipt without writing.
    pub dry_run: bool,
    /// Redact with the engine's redactor before chunking.
    pub redact: bool,
    /// How the text is cut.
    pub chunking: ChunkOptions,
    /// Make each chunk's vector by pooling its sentences' vectors
    /// (`pooled`) instead of embedding the chunk whole: the text is
    /// embedded once, about 1.5× faster, at a small cost in recall (on
    /// LoCoMo's text, hit@10 0.854 against 0.870) and more chunks skipped
    /// as not new (pooled vectors of neighbouring chunks are closer).
    pub pooled_vectors: bool,
    /// Ask the chat model for the atomic facts of each chunk kept, and
    /// store them too (each with its own receipt line); without a chat
    /// model, or when it fails, the chunks alone are stored and their
    /// lines say why.
    pub facts: bool,
}

impl IngestRequest {
    /// A request with the defaults: global, threshold 0.3, redacted.
    pub fn new(tenant: impl Into<String>, text: impl Into<String>) -> Self {
        IngestRequest {
            tenant: tenant.into(),
            text: text.into(),
            project: None,
            tags: Vec::new(),
            source: None,
            actor: LOCAL_ACTOR.to_string(),
            threshold: DEFAULT_INGEST_THRESHOLD,
            dry_run: false,
            redact: true,
            chunking: ChunkOptions::default(),
            pooled_vectors: false,
            facts: false,
        }
    }
}

/// What became of a chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    /// Stored as a new memory (or, in a dry run, would be).
    Stored,
    /// Merged into a near-identical memory of the same type (or would be).
    Merged,
    /// Left out: its importance was below the threshold.
    Skipped,
    /// Kept in the store until the embedding endpoint, which failed,
    /// answers again (or, in a dry run, would be); its novelty is not known
    /// yet, so no threshold applies. See [`super::pending`].
    Pending,
}

/// One chunk's line of the receipt.
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkReceipt {
    /// The chunk (its text is what was, or would be, stored).
    pub chunk: Chunk,
    /// The type and tier it was routed to, and by which rule.
    pub kind: MemoryType,
    /// Its tier.
    pub tier: Tier,
    /// The routing rule that decided.
    pub rule: &'static str,
    /// `1 −` its highest similarity to what is stored or came before it.
    pub novelty: f64,
    /// How much it carries worth remembering ([`mod@analysis::salience`]).
    pub salience: f64,
    /// `0.6·novelty + 0.4·salience`.
    pub importance: f64,
    /// What became of it.
    pub decision: Decision,
    /// The memory it was stored as or merged into (none in a dry run).
    pub id: Option<MemoryId>,
    /// The most similar stored memory and its similarity, when there is
    /// one.
    pub nearest: Option<(MemoryId, f32)>,
    /// Why, in words.
    pub reason: String,
    /// For a fact: the line of the chunk it was read from.
    pub fact_of: Option<usize>,
    /// For a chunk whose facts were asked for: how they were made (by the
    /// model, or none, with the reason).
    pub facts: Option<Generated>,
}

/// What an ingest did (or, dry, would do).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct IngestReceipt {
    /// Every chunk, in order.
    pub chunks: Vec<ChunkReceipt>,
    /// Secrets replaced before chunking, by kind.
    pub redacted: Redactions,
    /// Whether nothing was written.
    pub dry_run: bool,
    /// The text's title and how it was made, when a chat model is
    /// configured.
    pub title: Option<(String, Generated)>,
}

/// What every chunk of one ingest shares.
struct Run<'a> {
    req: &'a IngestRequest,
    project: Option<String>,
    filter: Filter,
    title: Option<String>,
    /// Vectors of the lines kept so far: one repeating them is not new,
    /// stored yet or not (a dry run stores nothing).
    kept: Vec<Vec<f32>>,
    /// The request's tags, normalised: what the recipe may embed.
    tags: Vec<String>,
    /// What the store's vectors are made from.
    recipe: EmbedRecipe,
}

/// A chunk's vector from its sentences' (vector, characters): their mean
/// weighted by length, normalised — as the model's own mean pooling weighs
/// each token alike. One embedding pass serves both the subject breaks
/// and the chunks' vectors, and a chunk longer than the model's 256-token
/// window is represented whole rather than cut off.
pub(super) fn pooled(sentences: &[(Vec<f32>, usize)]) -> Vec<f32> {
    let dim = sentences.first().map_or(0, |(v, _)| v.len());
    let mut sum = vec![0f32; dim];
    for (v, weight) in sentences {
        let w = (*weight).max(1) as f32;
        for (s, x) in sum.iter_mut().zip(v) {
            *s += w * x;
        }
    }
    let norm = sum.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        sum.iter_mut().for_each(|x| *x /= norm);
    }
    sum
}

impl Cairn {
    /// Ingest `req.text` (see the module docs); `progress` is told how
    /// many chunks of how many are done.
    pub fn ingest(
        &self,
        req: IngestRequest,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<IngestReceipt> {
        if !(0.0..=1.0).contains(&req.threshold) {
            return Err(Error::invalid(format!(
                "the importance threshold must be between 0 and 1, got {}",
                req.threshold
            )));
        }
        let project = req.project.as_deref().map(normalize_project).transpose()?;
        let tags = normalize_tags(&req.tags)?;
        let mut text = clean(&req.text);
        let mut receipt = IngestReceipt {
            dry_run: req.dry_run,
            ..Default::default()
        };
        let policy = self.policy_if(&req.tenant, req.redact)?;
        policy.refuse_secrets("project", &project)?;
        policy.refuse_secrets("tag", &req.tags)?;
        policy.redact_text(&mut text, &mut receipt.redacted);
        if text.trim().is_empty() {
            return Err(Error::invalid(
                "nothing to ingest: the text is empty once cleaned",
            ));
        }
        let recipe = self.ensure_model()?;
        let mut embed_error = None;
        let mut sentences: Vec<(Vec<f32>, usize)> = Vec::new();
        let mut sentence_texts: Vec<String> = Vec::new();
        let chunks = chunk(&text, &req.chunking, &mut |texts| {
            sentence_texts = texts.iter().map(|t| t.to_string()).collect();
            let vectors = self.embedder.embed_batch(texts).unwrap_or_else(|e| {
                embed_error = Some(e);
                Vec::new()
            });
            sentences = vectors
                .iter()
                .zip(texts)
                .map(|(v, t)| (v.clone(), t.chars().count()))
                .collect();
            vectors
        });
        // An endpoint that fails keeps every chunk pending; another
        // embedder's failure is an error.
        let mut failed = match embed_error {
            Some(e @ Error::Provider { .. }) => Some(e),
            Some(e) => return Err(e),
            None => None,
        };
        let total = chunks.len();
        let mut filter = Filter::new(&req.tenant, self.now());
        filter.scope = match &project {
            Some(p) => ScopeFilter::Project(p.clone()),
            None => ScopeFilter::Global,
        };
        let texts: Vec<&str> = sentence_texts.iter().map(String::as_str).collect();
        let vectors: Vec<Vec<f32>> = sentences.iter().map(|(v, _)| v.clone()).collect();
        receipt.title = self.model_title(&text, &texts, &vectors)?;
        let mut run = Run {
            req: &req,
            project,
            filter,
            title: receipt.title.as_ref().map(|(t, _)| t.clone()),
            kept: Vec::new(),
            tags,
            recipe,
        };
        let mut done = 0;
        let pool = req.pooled_vectors && chunks.iter().all(|c| c.sentences.end <= sentences.len());
        for batch in chunks.chunks(EMBED_BATCH) {
            // What is embedded: each chunk whole, as the recipe makes its
            // text; when pooling, only what the recipe adds after the
            // content (its names line), pooled with the sentences.
            let texts: Vec<String> = batch
                .iter()
                .map(|c| {
                    let text = run.recipe.text(&c.text, &run.tags);
                    match pool {
                        true => text[c.text.len()..].trim().to_string(),
                        false => text.into_owned(),
                    }
                })
                .collect();
            let to_embed: Vec<&str> = texts
                .iter()
                .map(String::as_str)
                .filter(|t| !t.is_empty())
                .collect();
            let embedded = match (failed.is_some(), to_embed.is_empty()) {
                (true, _) | (false, true) => Vec::new(),
                (false, false) => match self.embedder.embed_batch(&to_embed) {
                    Ok(v) if v.len() == to_embed.len() => v,
                    Ok(_) => return Err(Error::embedding("embedder returned too few vectors")),
                    Err(e @ Error::Provider { .. }) => {
                        failed = Some(e);
                        Vec::new()
                    }
                    Err(e) => return Err(e),
                },
            };
            let vectors = match (failed.is_some(), pool) {
                (true, _) => Vec::new(),
                (false, false) => embedded,
                (false, true) => {
                    let mut added = embedded.into_iter();
                    batch
                        .iter()
                        .zip(&texts)
                        .map(|(c, extra)| {
                            let mut parts = sentences[c.sentences.clone()].to_vec();
                            if !extra.is_empty() {
                                let v = added.next().unwrap_or_default();
                                parts.push((v, extra.chars().count()));
                            }
                            pooled(&parts)
                        })
                        .collect()
                }
            };
            if let Some(e) = &failed {
                for c in batch {
                    receipt.chunks.push(self.pending_line(&run, c, None, e)?);
                    done += 1;
                    progress(done, total);
                }
                continue;
            }
            if vectors.len() != batch.len() {
                return Err(Error::embedding("embedder returned too few vectors"));
            }
            for (c, vector) in batch.iter().zip(vectors) {
                let mut line = self.ingest_chunk(&mut run, c, vector, None)?;
                let facts = (req.facts && line.decision != Decision::Skipped)
                    .then(|| self.facts_of(&c.text));
                line.facts = facts.as_ref().map(|(_, by)| by.clone());
                let parent = (receipt.chunks.len(), line.id);
                receipt.chunks.push(line);
                if let Some((facts, _)) = facts {
                    let lines = self.ingest_facts(&mut run, c, parent, &facts)?;
                    receipt.chunks.extend(lines);
                }
                done += 1;
                progress(done, total);
            }
        }
        Ok(receipt)
    }

    /// The lines of `facts`, read from chunk `c` (whose line and memory
    /// are `parent`), each embedded, routed, scored and stored or skipped
    /// like a chunk.
    fn ingest_facts(
        &self,
        run: &mut Run,
        c: &Chunk,
        parent: (usize, Option<MemoryId>),
        facts: &[String],
    ) -> Result<Vec<ChunkReceipt>> {
        if facts.is_empty() {
            return Ok(Vec::new());
        }
        let texts: Vec<_> = facts
            .iter()
            .map(|f| run.recipe.text(f, &run.tags))
            .collect();
        let texts: Vec<&str> = texts.iter().map(AsRef::as_ref).collect();
        let piece = |fact: &String| Chunk {
            text: fact.clone(),
            start: c.start,
            end: c.end,
            tokens: run.req.chunking.tokenizer.count(fact),
            sentences: c.sentences.clone(),
            section: c.section.clone(),
        };
        let vectors = match self.embedder.embed_batch(&texts) {
            Err(e @ Error::Provider { .. }) => {
                return facts
                    .iter()
                    .map(|f| self.pending_line(run, &piece(f), Some(parent), &e))
                    .collect()
            }
            other => other?,
        };
        if vectors.len() != facts.len() {
            return Err(Error::embedding("embedder returned too few vectors"));
        }
        let pieces: Vec<Chunk> = facts.iter().map(piece).collect();
        pieces
            .iter()
            .zip(vectors)
            .map(|(p, vector)| self.ingest_chunk(run, p, vector, Some(parent)))
            .collect()
    }

    /// The line of a chunk (or fact) the embedding endpoint could not
    /// embed (`failure`): kept pending, its importance taken with novelty
    /// 1 (not known yet), never skipped.
    fn pending_line(
        &self,
        run: &Run,
        c: &Chunk,
        fact_of: Option<(usize, Option<MemoryId>)>,
        failure: &Error,
    ) -> Result<ChunkReceipt> {
        let routed = route_in_section(&c.text, &c.section);
        let salience = analysis::parse(&c.text).salience;
        let importance = exchange_importance(1.0, salience);
        let mut line = ChunkReceipt {
            chunk: c.clone(),
            kind: routed.kind,
            tier: routed.tier,
            rule: routed.rule,
            novelty: 1.0,
            salience,
            importance,
            decision: Decision::Pending,
            id: None,
            nearest: None,
            reason: super::pending::pending_reason(failure),
            fact_of: fact_of.map(|(line, _)| line),
            facts: None,
        };
        if !run.req.dry_run {
            let remember =
                self.chunk_request(run, c, routed.kind, routed.rule, importance, fact_of);
            line.id = Some(self.keep_pending(remember, failure)?.id);
        }
        Ok(line)
    }

    /// The write of chunk (or fact) `c`.
    fn chunk_request(
        &self,
        run: &Run,
        c: &Chunk,
        kind: MemoryType,
        rule: &str,
        importance: f64,
        fact_of: Option<(usize, Option<MemoryId>)>,
    ) -> RememberRequest {
        let req = run.req;
        let mut about = json!({"rule": rule, "start": c.start, "end": c.end});
        if let Some(title) = &run.title {
            about["title"] = json!(title);
        }
        if !c.section.is_empty() {
            about["section"] = json!(c.section);
        }
        if let Some((_, chunk)) = fact_of {
            about["fact_of"] = json!(chunk.map(|id| id.to_string()));
        }
        let mut metadata = Map::new();
        metadata.insert("ingest".into(), about);
        let mut remember = RememberRequest::new(&req.tenant, c.text.clone());
        remember.kind = kind;
        remember.project.clone_from(&run.project);
        remember.tags.clone_from(&req.tags);
        remember.metadata = metadata;
        remember.importance = Some(importance);
        remember.source = Some(req.source.clone().unwrap_or_else(|| "ingest".into()));
        remember.actor.clone_from(&req.actor);
        remember
    }

    /// The line of chunk (or fact of chunk `fact_of`) `c`.
    fn ingest_chunk(
        &self,
        run: &mut Run,
        c: &Chunk,
        vector: Vec<f32>,
        fact_of: Option<(usize, Option<MemoryId>)>,
    ) -> Result<ChunkReceipt> {
        let req = run.req;
        let routed = route_in_section(&c.text, &c.section);
        let salience = analysis::parse(&c.text).salience;
        let nearest = self
            .store
            .vector_search_exact(&vector, &run.filter, 1)?
            .first()
            .map(|h| (h.id, h.score as f32));
        let earlier = run
            .kept
            .iter()
            .map(|v| f64::from(cosine(v, &vector)))
            .fold(0.0, f64::max);
        let stored_best = nearest.map_or(0.0, |(_, s)| f64::from(s));
        let novelty = 1.0 - stored_best.max(earlier);
        let importance = exchange_importance(novelty, salience);
        let mut line = ChunkReceipt {
            chunk: c.clone(),
            kind: routed.kind,
            tier: routed.tier,
            rule: routed.rule,
            novelty,
            salience,
            importance,
            decision: Decision::Skipped,
            id: None,
            nearest,
            reason: String::new(),
            fact_of: fact_of.map(|(line, _)| line),
            facts: None,
        };
        if importance < req.threshold {
            line.reason = format!(
                "importance {importance:.2} is below the threshold {:.2} (novelty {novelty:.2}, salience {salience:.2})",
                req.threshold
            );
            return Ok(line);
        }
        run.kept.push(vector.clone());
        if req.dry_run {
            // A near-identical memory would take it, unless episodes (never
            // merged); the type is checked when it is written.
            let merges =
                routed.tier != Tier::Episodic && nearest.is_some_and(|(_, s)| s >= DEDUP_THRESHOLD);
            line.decision = if merges {
                Decision::Merged
            } else {
                Decision::Stored
            };
            line.reason = match (line.decision, nearest) {
                (Decision::Merged, Some((_, similarity))) => {
                    format!("would merge into a near-identical memory (similarity {similarity:.2})")
                }
                _ => format!(
                    "would be stored as a {} (rule {})",
                    routed.kind, routed.rule
                ),
            };
            return Ok(line);
        }
        let remember = self.chunk_request(run, c, routed.kind, routed.rule, importance, fact_of);
        let outcome = self.remember_embedded(remember, vector)?;
        line.id = Some(outcome.id);
        match outcome.status {
            WriteStatus::Created => {
                line.decision = Decision::Stored;
                line.reason = format!("stored as a {} (rule {})", routed.kind, routed.rule);
                for c in &outcome.conflicts {
                    line.reason.push_str(&format!(
                        "; conflicts with {} ({}; {})",
                        c.id,
                        c.reason,
                        c.action.as_str()
                    ));
                }
            }
            WriteStatus::Pending => {
                line.decision = Decision::Pending;
                line.reason = "kept pending until the embedding endpoint answers".into();
            }
            WriteStatus::Deduplicated => {
                line.decision = Decision::Merged;
                line.reason = format!(
                    "merged into a near-identical {} (similarity {:.2})",
                    routed.kind,
                    outcome.merged_similarity.unwrap_or_default()
                );
            }
        }
        Ok(line)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::conformance::LexicalEmbedder;
    use crate::store::ListOrder;
    use crate::MemoryStore;

    const TEXT: &str = "<html><body>\
        <h1>Atlas deployment notes</h1>\
        <p>Always run the database migrations before deploying the API. Never deploy on a Friday afternoon.</p>\
        <p>Ana prefers short status updates in the team channel, with the ticket number first.</p>\
        <p>On 3 March 2024 we moved the staging cluster to fra1 after the outage; mail ops@atlas.example for access.</p>\
        </body></html>";

    fn engine() -> Cairn {
        Cairn::new(Arc::new(MemoryStore::new()), Arc::new(LexicalEmbedder))
    }

    fn small_chunks(req: &mut IngestRequest) {
        req.chunking.min_tokens = 5;
        req.chunking.max_tokens = 40;
    }

    fn count(c: &Cairn) -> usize {
        let f = Filter::new("t", c.now()).everything();
        c.store().list(&f, ListOrder::Id, 1000, 0).unwrap().len()
    }

    #[test]
    fn a_pooled_vector_weighs_sentences_by_length_and_is_unit_length() {
        let one = pooled(&[(vec![3.0, 4.0], 10)]);
        assert_eq!(one, vec![0.6, 0.8]);
        // Three times as long, three times the weight.
        let two = pooled(&[(vec![1.0, 0.0], 30), (vec![0.0, 1.0], 10)]);
        let expected = [3.0 / 10f32.sqrt(), 1.0 / 10f32.sqrt()];
        assert!(
            two.iter().zip(expected).all(|(a, b)| (a - b).abs() < 1e-6),
            "{two:?}"
        );
        assert!(pooled(&[]).is_empty());
    }

    #[test]
    fn pooled_vectors_are_the_chunks_sentences_pooled_and_exact_ones_the_chunks_own() {
        use crate::Embedder;
        let one = |t: &str| LexicalEmbedder.embed_batch(&[t]).unwrap().remove(0);
        for pool in [false, true] {
            let c = engine();
            let mut req = IngestRequest::new("t", TEXT);
            small_chunks(&mut req);
            req.redact = false;
            req.pooled_vectors = pool;
            let receipt = c.ingest(req, &mut |_, _| {}).unwrap();
            let stored = receipt
                .chunks
                .iter()
                .filter(|l| l.decision == Decision::Stored);
            assert!(stored.clone().count() >= 2);
            for line in stored {
                let id = line.id.unwrap();
                let stored = c.store().embeddings("t", &[id]).unwrap().remove(0).unwrap();
                let text = &line.chunk.text;
                // The engine embeds the content and its names.
                let full = EmbedRecipe::NAMES.text(text, &[]);
                let names = full[text.len()..].trim();
                assert!(names.starts_with("Names: "), "{full}");
                let expected = if pool {
                    let mut parts: Vec<(Vec<f32>, usize)> =
                        crate::analysis::sentences::split_sentences(text)
                            .iter()
                            .map(|s| (one(s), s.chars().count()))
                            .collect();
                    parts.push((one(names), names.chars().count()));
                    pooled(&parts)
                } else {
                    one(&full)
                };
                let similarity = cosine(&stored, &expected);
                assert!(
                    similarity > 0.9999,
                    "pooled {pool}: {similarity} for {text:?}"
                );
            }
        }
    }

    #[test]
    fn html_is_cleaned_redacted_chunked_routed_and_stored_with_a_receipt() {
        let c = engine();
        let mut req = IngestRequest::new("t", TEXT);
        small_chunks(&mut req);
        req.threshold = 0.0;
        let receipt = c.ingest(req, &mut |_, _| ()).unwrap();
        assert_eq!(receipt.redacted[&crate::redact::SecretKind::Email], 1);
        let texts: Vec<&str> = receipt
            .chunks
            .iter()
            .map(|l| l.chunk.text.as_str())
            .collect();
        assert!(texts.iter().all(|t| !t.contains('<')), "{texts:?}");
        assert!(texts.iter().all(|t| !t.contains("ops@atlas.example")));
        let kind_of = |needle: &str| {
            receipt
                .chunks
                .iter()
                .find(|l| l.chunk.text.contains(needle))
                .map(|l| l.kind)
        };
        assert_eq!(kind_of("Always run"), Some(MemoryType::Rule));
        assert_eq!(kind_of("prefers"), Some(MemoryType::Preference));
        assert_eq!(kind_of("3 March 2024"), Some(MemoryType::Episode));
        assert!(receipt
            .chunks
            .iter()
            .all(|l| l.decision == Decision::Stored));
        assert!(receipt.chunks.iter().all(|l| l.id.is_some()));
        assert_eq!(count(&c), receipt.chunks.len());
        for l in &receipt.chunks {
            let m = c.load("t", l.id.unwrap()).unwrap();
            assert_eq!(m.content, l.chunk.text);
            assert_eq!(m.kind, l.kind);
            assert!((m.importance - l.importance).abs() < 1e-9);
            assert_eq!(m.source, "ingest");
        }
    }

    #[test]
    fn a_markdown_runbook_keeps_its_sections_and_stores_each_rule() {
        let c = engine();
        let text = "# Atlas deploy runbook\n\nAtlas is deployed from the main branch by the release job.\n\n## Rules\n\n- Never deploy on Friday afternoon.\n- Always run the database migrations before the deploy.\n\n## Procedure\n\n1. Tag the release.\n2. Run the deploy job.\n3. Watch the error rate for ten minutes.\n\n## Decisions\n\n- Blue-green deploys replace rolling ones.\n";
        let mut req = IngestRequest::new("t", text);
        req.threshold = 0.0;
        let receipt = c.ingest(req, &mut |_, _| ()).unwrap();
        let lines: Vec<(&str, MemoryType)> = receipt
            .chunks
            .iter()
            .map(|l| (l.chunk.text.as_str(), l.kind))
            .collect();
        assert!(lines.iter().all(|(t, _)| !t.contains('#')), "{lines:?}");
        let rules: Vec<&str> = lines
            .iter()
            .filter(|(_, k)| *k == MemoryType::Rule)
            .map(|(t, _)| *t)
            .collect();
        assert_eq!(
            rules,
            [
                "- Never deploy on Friday afternoon.",
                "- Always run the database migrations before the deploy."
            ]
        );
        assert!(lines.contains(&(
            "1. Tag the release.\n2. Run the deploy job.\n3. Watch the error rate for ten minutes.",
            MemoryType::Procedure
        )));
        assert!(lines.contains(&(
            "- Blue-green deploys replace rolling ones.",
            MemoryType::Decision
        )));
        let rule = receipt
            .chunks
            .iter()
            .find(|l| l.kind == MemoryType::Rule)
            .unwrap();
        let m = c.load("t", rule.id.unwrap()).unwrap();
        assert_eq!(
            m.metadata["ingest"]["section"],
            json!(["Atlas deploy runbook", "Rules"])
        );
        assert_eq!(m.metadata["ingest"]["rule"], json!("section-heading"));
    }

    #[test]
    fn what_is_already_known_is_skipped_and_said_so() {
        let c = engine();
        let mut req = IngestRequest::new("t", TEXT);
        small_chunks(&mut req);
        req.threshold = 0.0;
        let first = c.ingest(req.clone(), &mut |_, _| ()).unwrap();
        let stored = count(&c);
        req.threshold = DEFAULT_INGEST_THRESHOLD;
        let again = c.ingest(req, &mut |_, _| ()).unwrap();
        assert_eq!(again.chunks.len(), first.chunks.len());
        for l in &again.chunks {
            assert!(l.novelty < 0.01, "{l:?}");
            // Nothing new: skipped for low importance, or merged into
            // itself; never a second copy.
            assert_ne!(l.decision, Decision::Stored, "{l:?}");
            assert!(!l.reason.is_empty());
            if l.decision == Decision::Skipped {
                assert!(l.reason.contains("below the threshold"), "{}", l.reason);
                assert!(l.nearest.is_some());
            }
        }
        let episodes = first
            .chunks
            .iter()
            .filter(|l| l.tier == Tier::Episodic)
            .count();
        assert!(count(&c) <= stored + episodes);
    }

    #[test]
    fn a_dry_run_writes_nothing_and_matches_the_real_run() {
        let c = engine();
        let mut req = IngestRequest::new("t", TEXT);
        small_chunks(&mut req);
        req.dry_run = true;
        let dry = c.ingest(req.clone(), &mut |_, _| ()).unwrap();
        assert_eq!(count(&c), 0);
        assert!(dry.dry_run && dry.chunks.iter().all(|l| l.id.is_none()));
        req.dry_run = false;
        let mut seen = Vec::new();
        let real = c
            .ingest(req, &mut |done, total| seen.push((done, total)))
            .unwrap();
        let decisions = |r: &IngestReceipt| -> Vec<(String, Decision, MemoryType)> {
            r.chunks
                .iter()
                .map(|l| (l.chunk.text.clone(), l.decision, l.kind))
                .collect()
        };
        assert_eq!(decisions(&dry), decisions(&real));
        assert_eq!(seen.last(), Some(&(real.chunks.len(), real.chunks.len())));
    }

    #[test]
    fn bad_input_is_refused_before_anything_is_written() {
        let c = engine();
        let e = c
            .ingest(IngestRequest::new("t", "  <p> </p>  "), &mut |_, _| ())
            .unwrap_err();
        assert!(e.to_string().contains("empty"), "{e}");
        let mut req = IngestRequest::new("t", "Some text worth keeping.");
        req.threshold = 1.5;
        let e = c.ingest(req, &mut |_, _| ()).unwrap_err();
        assert!(e.to_string().contains("threshold"), "{e}");
        let mut req = IngestRequest::new("t", "Some text worth keeping.");
        req.project = Some(" ".into());
        assert!(c.ingest(req, &mut |_, _| ()).is_err());
        let mut req = IngestRequest::new("t", "Some text worth keeping.");
        req.tags = vec!["a,b".into()];
        let e = c.ingest(req, &mut |_, _| ()).unwrap_err();
        assert!(e.to_string().contains("tag"), "{e}");
        assert_eq!(count(&c), 0);
    }
}
