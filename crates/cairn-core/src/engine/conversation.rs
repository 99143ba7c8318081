//! Conversations: logging messages as episode memories in Memorg's
//! session → conversation → topic hierarchy.
//!
//! A message becomes one `episode` memory (`Speaker: text`) carrying its
//! [`Thread`], its importance (`0.6·novelty + 0.4·salience`), its parsed
//! content (entities, intents, sentiment) in the metadata, and as its
//! search context the messages just before and after it in the same
//! session, so that keyword search finds a reply by what it answers.
//! Topics start by themselves when a message drifts from the running topic
//! ([`crate::analysis::segment`]); the records of sessions, conversations
//! and topics are kept in the [`crate::collections::CollectionStore`].
//!
//! Messages are written a batch at a time, each batch one transaction with
//! its versions; the topic and conversation records follow each batch. A
//! crash between the two leaves every message stored and a topic record
//! one batch behind, which the next batch of that conversation brings up
//! to date from the messages themselves.

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use super::transfer::{copy_id, follow_copies, names_are_tenant_scoped};
use super::Cairn;
use crate::analysis;
use crate::analysis::segment::{SegmentConfig, TopicTracker};
use crate::analysis::summary;
use crate::collections::{
    CollectionBody, CollectionKind, CollectionRecord, Conversation, Session, Topic,
};
use crate::history::{Change, ChangeKind};
use crate::memory::{
    normalize_project, normalize_thread_id, validate_content, Memory, MemoryId, MemoryType, Thread,
    Timestamp, PARSED_KEY,
};
use crate::rank::{cosine, exchange_importance};
use crate::store::{Filter, ListOrder, ScopeFilter, ThreadScope, WriteBatch};
use crate::tokens::Tokenizer;
use crate::{Error, Result};

/// Messages embedded and written per transaction.
const MESSAGE_BATCH: usize = 256;

/// One message to log.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// The conversation (required).
    pub conversation: String,
    /// The session; by default one per conversation per UTC day
    /// (`<conversation>@<YYYY-MM-DD>`).
    pub session: Option<String>,
    /// Who said it: a name or a role (`user`, `assistant`).
    pub speaker: String,
    /// What was said.
    pub text: String,
    /// When (default: now).
    pub at: Option<Timestamp>,
    /// The memory id to give it: kept as given for the local user; for an
    /// API key's caller, its tenant's own id for that name
    /// (see `copy_id`). A message whose id (or that own id)
    /// the tenant holds is skipped.
    pub id: Option<MemoryId>,
    /// Anything else.
    pub metadata: Map<String, Value>,
}

/// Messages to log, in order.
#[derive(Debug, Clone)]
pub struct ObserveRequest {
    /// Owner.
    pub tenant: String,
    /// The project the messages belong to (`None` = global).
    pub project: Option<String>,
    /// Who logs them (see [`crate::history::Change::actor`]).
    pub actor: String,
}

/// What happened to one logged message.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct LoggedMessage {
    /// Its memory's id.
    pub id: MemoryId,
    /// Its session.
    pub session: String,
    /// Its conversation.
    pub conversation: String,
    /// Its topic.
    pub topic: String,
    /// Whether it started that topic.
    pub new_topic: bool,
    /// Its importance, 0–1.
    pub importance: f64,
    /// The memories it conflicts with (an earlier message or memory whose
    /// value it changes: "I moved to Denver"), why, and what the engine's
    /// conflict policy did to each.
    pub conflicts: Vec<super::ConflictingMemory>,
}

/// A message kept until the embedding endpoint answers (see
/// [`crate::engine::pending`]): logged in its conversation, with this id,
/// when the kept writes are embedded.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct KeptMessage {
    /// The memory id it will have.
    pub id: MemoryId,
    /// Its session.
    pub session: String,
    /// Its conversation.
    pub conversation: String,
}

/// What a call to [`Cairn::observe`] did.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct ObserveReport {
    /// The messages written, in order.
    pub logged: Vec<LoggedMessage>,
    /// The messages kept pending, in order: the embedding endpoint failed,
    /// or earlier messages of their conversation wait already.
    pub pending: Vec<KeptMessage>,
    /// Why messages were kept pending, when some were.
    pub pending_reason: Option<String>,
    /// Messages whose id was already stored (left as they were).
    pub skipped_existing: usize,
    /// The secrets replaced before the messages were embedded and stored.
    pub redacted: super::Redactions,
}

/// A conversation's running state while a batch is logged.
struct Running {
    record: CollectionRecord,
    body: Conversation,
    /// The current topic and its record, if the conversation has one.
    topic: Option<(CollectionRecord, Topic)>,
    /// The last message written before this batch, if any: it gets the
    /// first new message of its session as search context.
    last: Option<Memory>,
    /// Whether `last` took a new neighbour in this batch.
    last_changed: bool,
}

impl Cairn {
    /// Log `messages` (see the module docs); `progress` is told how many
    /// are done after each batch. When the embedding endpoint fails, the
    /// messages are kept pending ([`crate::engine::pending`]) and the
    /// report lists them.
    pub fn observe(
        &self,
        req: &ObserveRequest,
        messages: impl IntoIterator<Item = Message>,
        progress: &mut dyn FnMut(usize),
    ) -> Result<ObserveReport> {
        self.observe_with(req, messages, progress, true)
    }

    /// [`Cairn::observe`]; with `keep` false (the kept messages being
    /// logged), an endpoint's failure is returned, not kept.
    pub(crate) fn observe_with(
        &self,
        req: &ObserveRequest,
        messages: impl IntoIterator<Item = Message>,
        progress: &mut dyn FnMut(usize),
        keep: bool,
    ) -> Result<ObserveReport> {
        let project = req.project.as_deref().map(normalize_project).transpose()?;
        let policy = self.redaction_policy(&req.tenant)?;
        policy.refuse_secrets("project", &project)?;
        let mut report = ObserveReport::default();
        let mut running: HashMap<String, Running> = HashMap::new();
        let mut messages = messages.into_iter().peekable();
        if messages.peek().is_some() {
            self.ensure_model()?;
        }
        let mut done = 0;
        loop {
            let chunk: Vec<Message> = messages.by_ref().take(MESSAGE_BATCH).collect();
            if chunk.is_empty() {
                break;
            }
            done += chunk.len();
            let project = (project.as_deref(), policy);
            self.observe_batch(req, project, chunk, &mut running, &mut report, keep)?;
            progress(done);
        }
        Ok(report)
    }

    fn observe_batch(
        &self,
        req: &ObserveRequest,
        (project, policy): (Option<&str>, super::RedactionPolicy),
        chunk: Vec<Message>,
        running: &mut HashMap<String, Running>,
        report: &mut ObserveReport,
        keep: bool,
    ) -> Result<()> {
        let tenant = req.tenant.as_str();
        let now = self.now();
        let Some((chunk, mut seq)) = self.admit(req, project, policy, chunk, report, keep)? else {
            return Ok(());
        };
        let contents: Vec<String> = chunk
            .iter()
            .map(|m| format!("{}: {}", m.speaker, m.text))
            .collect();
        let recipe = self.ensure_model()?;
        let texts: Vec<_> = contents.iter().map(|c| recipe.text(c, &[])).collect();
        let refs: Vec<&str> = texts.iter().map(AsRef::as_ref).collect();
        let vectors = match self.embedder.embed_batch(&refs) {
            Err(e @ Error::Provider { .. }) if keep => {
                return self.keep_messages(req, project, chunk, Some(&e), &mut seq, report);
            }
            vectors => vectors?,
        };
        if vectors.len() != chunk.len() {
            return Err(Error::embedding("embedder returned too few vectors"));
        }

        // What each message is compared with: the scope it is logged in.
        let mut filter = Filter::new(tenant, now);
        filter.scope = match project {
            Some(p) => ScopeFilter::Project(p.to_string()),
            None => ScopeFilter::Global,
        };
        let mut batch = WriteBatch::default();
        // Where each conversation's latest message of this batch is in
        // `batch.inserts`.
        let mut latest: HashMap<String, usize> = HashMap::new();
        let mut touched_sessions: HashMap<String, Timestamp> = HashMap::new();
        // Topics that ended in this batch, described once it is written.
        let mut ended: Vec<(CollectionRecord, Topic)> = Vec::new();
        for ((message, content), vector) in chunk.into_iter().zip(contents).zip(vectors) {
            let at = message.at.unwrap_or(now);
            let session = match &message.session {
                Some(s) => s.clone(),
                None => default_session(&message.conversation, at),
            };
            touched_sessions.entry(session.clone()).or_insert(at);
            if !running.contains_key(&message.conversation) {
                let state = self.running(tenant, &message.conversation, at)?;
                running.insert(message.conversation.clone(), state);
            }
            let state = running
                .get_mut(&message.conversation)
                .ok_or_else(|| Error::storage("conversation state lost"))?;

            let id = message.id.unwrap_or_else(|| MemoryId::new_at(at));
            let started = self.advance_topic(
                tenant,
                state,
                (&message.conversation, id, at),
                &vector,
                &mut batch,
                &mut ended,
            )?;
            let topic_id = state.body.topic.clone().unwrap_or_default();

            // Importance: how new (against what is stored and this batch)
            // and how salient.
            let parsed = analysis::parse(&message.text);
            let novelty = self.novelty(&filter, &batch, &vector)?;
            let importance = exchange_importance(novelty, parsed.salience);

            let mut metadata = message.metadata;
            metadata.insert("speaker".into(), json!(message.speaker));
            metadata.insert(
                PARSED_KEY.into(),
                serde_json::to_value(&parsed).map_err(Error::storage)?,
            );
            let thread = Thread {
                session: session.clone(),
                conversation: message.conversation.clone(),
                topic: topic_id,
            };
            let mut memory = episode(id, (tenant, project), content, metadata, importance, at);
            memory.thread = Some(thread);

            let conflicts =
                self.message_conflicts(&filter, &mut memory, &vector, &mut batch, &req.actor)?;

            // Neighbours: the previous message of the same session gives
            // this one its context, and takes this one as its own.
            let in_batch = latest.get(&message.conversation).copied();
            let previous = match in_batch {
                Some(i) => Some(&mut batch.inserts[i].0),
                None => state.last.as_mut(),
            };
            if let Some(prev) = previous.filter(|p| same_session(p, &session)) {
                memory.search_context = Some(prev.content.clone());
                append_context(prev, &memory.content);
                state.last_changed |= in_batch.is_none();
            }
            report.logged.push(LoggedMessage {
                id,
                session,
                conversation: message.conversation.clone(),
                topic: memory
                    .thread
                    .as_ref()
                    .map(|t| t.topic.clone())
                    .unwrap_or_default(),
                new_topic: started,
                importance,
                conflicts,
            });
            batch
                .changes
                .push(Change::new(id, ChangeKind::Created, &req.actor, at));
            latest.insert(message.conversation.clone(), batch.inserts.len());
            batch.inserts.push((memory, vector));
        }
        // Messages written before this batch that took a new neighbour:
        // their index text changes, not what they say (no version).
        for state in running.values_mut() {
            if std::mem::take(&mut state.last_changed) {
                if let Some(last) = state.last.take() {
                    // A conflict may have marked it already: keep both.
                    match batch.updates.iter_mut().find(|(m, _)| m.id == last.id) {
                        Some((m, _)) => m.search_context = last.search_context,
                        None => batch.updates.push((last, None)),
                    }
                }
            }
        }
        let renamed = self.write_taking_copies(tenant, &mut batch)?;
        let held = running.values_mut().flat_map(|s| s.body.held.iter_mut());
        follow_copies(
            &renamed,
            held.chain(report.logged.iter_mut().map(|l| &mut l.id)),
        );

        self.write_records(tenant, touched_sessions, ended, latest, running, &batch)
    }

    /// How new a message embedded as `vector` is: 1 − its best cosine
    /// with what is stored in `filter`'s scope and with `batch`.
    fn novelty(&self, filter: &Filter, batch: &WriteBatch, vector: &[f32]) -> Result<f64> {
        let stored_best = self
            .store
            .vector_search(vector, filter, 1)?
            .first()
            .map_or(0.0, |h| h.score);
        let batch_best = batch
            .inserts
            .iter()
            .map(|(_, v)| f64::from(cosine(v, vector)))
            .fold(0.0, f64::max);
        Ok(1.0 - stored_best.max(batch_best))
    }

    /// Put message `id` of `conversation`, written at `at` with `vector`,
    /// in its topic: the current one unless the tracker confirms a change
    /// of subject, which starts a new topic at the held messages (moved
    /// in `batch`; the ended topic goes to `ended`). Whether a topic
    /// started.
    fn advance_topic(
        &self,
        tenant: &str,
        state: &mut Running,
        (conversation, id, at): (&str, MemoryId, Timestamp),
        vector: &[f32],
        batch: &mut WriteBatch,
        ended: &mut Vec<(CollectionRecord, Topic)>,
    ) -> Result<bool> {
        // Topic: continue the current one unless the tracker confirms
        // a change of subject, which starts at the held messages.
        let step = state
            .body
            .tracker
            .get_or_insert_with(|| TopicTracker::new(SegmentConfig::default()))
            .push(vector);
        let started = state.topic.is_none() || step.boundary.is_some();
        if started {
            ended.extend(state.topic.take());
            state.body.topics += 1;
            let id = format!("{}#{}", conversation, state.body.topics);
            let record = CollectionRecord {
                tenant: tenant.to_string(),
                kind: CollectionKind::Topic,
                id,
                parent: Some(conversation.to_string()),
                body: Map::new(),
                created_at: at,
                updated_at: at,
            };
            let new_topic = record.id.clone();
            for held in std::mem::take(&mut state.body.held) {
                self.move_to_topic(tenant, held, &new_topic, batch, state)?;
            }
            state.topic = Some((record, Topic::default()));
        }
        if step.held {
            state.body.held.push(id);
        } else {
            state.body.held.clear();
        }
        let (topic_record, topic) = state
            .topic
            .as_mut()
            .ok_or_else(|| Error::storage("topic state lost"))?;
        topic.messages += 1;
        topic_record.updated_at = topic_record.updated_at.max(at);
        state.body.messages += 1;
        state.body.topic = Some(topic_record.id.clone());
        Ok(started)
    }

    /// The messages of `chunk` to log now, checked and redacted, and the
    /// sequence number of kept messages: those already stored are
    /// skipped, and (with `keep`) those behind a conversation's kept
    /// messages are kept with them. `None` when nothing is left.
    fn admit(
        &self,
        req: &ObserveRequest,
        project: Option<&str>,
        policy: super::RedactionPolicy,
        chunk: Vec<Message>,
        report: &mut ObserveReport,
        keep: bool,
    ) -> Result<Option<(Vec<Message>, usize)>> {
        let tenant = req.tenant.as_str();
        let now = self.now();
        let mut chunk = chunk
            .into_iter()
            .map(|m| checked(m, now))
            .collect::<Result<Vec<_>>>()?;
        for m in &mut chunk {
            policy.refuse_secrets("conversation id", [&m.conversation])?;
            policy.refuse_secrets("session id", &m.session)?;
            policy.redact_text(&mut m.speaker, &mut report.redacted);
            policy.redact_text(&mut m.text, &mut report.redacted);
            policy.redact_metadata(&mut m.metadata, &mut report.redacted);
        }
        // Named ids already stored are skipped (an import run again), and
        // so are those stored as this tenant's copy: an id another tenant
        // holds is written under `copy_id`, as an import does, so that
        // the answer never tells whether another tenant has it.
        let named: Vec<MemoryId> = chunk.iter().filter_map(|m| m.id).collect();
        if !named.is_empty() {
            let copies = named.iter().map(|id| copy_id(tenant, *id));
            let asked: Vec<MemoryId> = named.iter().copied().chain(copies).collect();
            let stored: std::collections::HashSet<MemoryId> = self
                .store
                .get(tenant, &asked)?
                .into_iter()
                .map(|m| m.id)
                .collect();
            let before = chunk.len();
            chunk.retain(|m| {
                m.id.is_none_or(|id| {
                    !stored.contains(&id) && !stored.contains(&copy_id(tenant, id))
                })
            });
            report.skipped_existing += before - chunk.len();
            // A key's caller names ids in its tenant only: every named id
            // becomes the tenant's own (see `names_are_tenant_scoped`), so
            // the answer is the same whether another tenant has it or not.
            // Kept messages are renamed here, before they are kept, once.
            if keep && names_are_tenant_scoped(&req.actor) {
                for id in chunk.iter_mut().filter_map(|m| m.id.as_mut()) {
                    *id = copy_id(tenant, *id);
                }
            }
        }
        let seq = if keep {
            // A conversation is logged in order: messages behind kept ones
            // wait with them.
            let (waiting, mut seq) = self.pending_conversations(tenant)?;
            let (behind, rest) = chunk
                .into_iter()
                .partition(|m| waiting.contains(&m.conversation));
            chunk = rest;
            self.keep_messages(req, project, behind, None, &mut seq, report)?;
            seq
        } else {
            0
        };
        Ok((!chunk.is_empty()).then_some((chunk, seq)))
    }

    /// The records that follow a written batch: sessions first seen, the
    /// topics that ended, then each touched conversation, its current
    /// topic and its outline.
    fn write_records(
        &self,
        tenant: &str,
        touched_sessions: HashMap<String, Timestamp>,
        ended: Vec<(CollectionRecord, Topic)>,
        latest: HashMap<String, usize>,
        running: &mut HashMap<String, Running>,
        batch: &WriteBatch,
    ) -> Result<()> {
        for (session, at) in touched_sessions {
            self.ensure_session(tenant, &session, at)?;
        }
        for (mut record, mut topic) in ended {
            self.describe_topic(tenant, &record, &mut topic, true)?;
            record.body = topic.to_body();
            self.store.collections().put_collection(&record)?;
        }
        for (conversation, i) in latest {
            let state = running
                .get_mut(&conversation)
                .ok_or_else(|| Error::storage("conversation state lost"))?;
            state.last = Some(batch.inserts[i].0.clone());
            if let Some((record, topic)) = &mut state.topic {
                self.describe_topic(tenant, record, topic, false)?;
                record.body = topic.to_body();
                self.store.collections().put_collection(record)?;
            }
            // The conversation's outline: its topics' titles.
            let titles: Vec<String> = self
                .store
                .collections()
                .list_collections(tenant, CollectionKind::Topic, Some(&conversation))?
                .iter()
                .map(Topic::from_record)
                .map(|t| t.map(|t| t.title))
                .collect::<Result<_>>()?;
            state.body.title = titles.first().cloned().unwrap_or_default();
            state.body.summary = titles
                .iter()
                .filter(|t| !t.is_empty())
                .cloned()
                .collect::<Vec<_>>()
                .join("; ");
            state.record.body = state.body.to_body();
            state.record.updated_at = state.record.updated_at.max(batch.inserts[i].0.created_at);
            self.store.collections().put_collection(&state.record)?;
        }
        Ok(())
    }

    /// A conversation's state: its record (made when new), its current
    /// topic and its latest message.
    fn running(&self, tenant: &str, conversation: &str, at: Timestamp) -> Result<Running> {
        let threads = self.store.collections();
        let record = threads
            .collection(tenant, CollectionKind::Conversation, conversation)?
            .unwrap_or_else(|| CollectionRecord {
                tenant: tenant.to_string(),
                kind: CollectionKind::Conversation,
                id: conversation.to_string(),
                parent: None,
                body: Map::new(),
                created_at: at,
                updated_at: at,
            });
        let body = Conversation::from_record(&record)?;
        let topic = match &body.topic {
            Some(id) => threads
                .collection(tenant, CollectionKind::Topic, id)?
                .map(|r| Topic::from_record(&r).map(|t| (r, t)))
                .transpose()?,
            None => None,
        };
        let mut filter = Filter::new(tenant, self.now()).everything();
        filter.thread = Some(ThreadScope::Conversation(conversation.to_string()));
        let last = self
            .store
            .list(&filter, ListOrder::Newest, 1, 0)?
            .into_iter()
            .next();
        Ok(Running {
            record,
            body,
            topic,
            last,
            last_changed: false,
        })
    }

    /// Move a message held at the end of the last topic into the new one
    /// it turned out to start: in `batch` if it is written there, else as
    /// an update of the stored message (its thread only: no version).
    fn move_to_topic(
        &self,
        tenant: &str,
        id: MemoryId,
        topic: &str,
        batch: &mut WriteBatch,
        state: &mut Running,
    ) -> Result<()> {
        let retopic = |m: &mut Memory| {
            if let Some(t) = &mut m.thread {
                t.topic = topic.to_string();
            }
        };
        if let Some((m, _)) = batch.inserts.iter_mut().find(|(m, _)| m.id == id) {
            retopic(m);
        } else if let Some(last) = state.last.as_mut().filter(|m| m.id == id) {
            retopic(last);
            state.last_changed = true;
        } else if let Some(mut m) = self.store.get(tenant, &[id])?.pop() {
            retopic(&mut m);
            batch.updates.push((m, None));
        }
        Ok(())
    }

    /// Make the session's record unless it exists.
    fn ensure_session(&self, tenant: &str, session: &str, at: Timestamp) -> Result<()> {
        let threads = self.store.collections();
        if threads
            .collection(tenant, CollectionKind::Session, session)?
            .is_none()
        {
            threads.put_collection(&CollectionRecord {
                tenant: tenant.to_string(),
                kind: CollectionKind::Session,
                id: session.to_string(),
                parent: None,
                body: Session::default().to_body(),
                created_at: at,
                updated_at: at,
            })?;
        }
        Ok(())
    }

    /// Give a topic its title, summary and key entities, from its messages
    /// as stored (`ended`: the conversation moved on to another topic).
    ///
    /// Without a chat model the title is extractive (the most central
    /// message), made again each time. With one, the model titles the
    /// topic when it starts, each time its messages double and when it
    /// ends (if it grew since), so a conversation costs a few calls per
    /// topic, not one per message; a model that fails leaves the extractive title, with the
    /// failure in [`Topic::titled_by`].
    fn describe_topic(
        &self,
        tenant: &str,
        record: &CollectionRecord,
        topic: &mut Topic,
        ended: bool,
    ) -> Result<()> {
        let mut filter = Filter::new(tenant, self.now()).everything();
        filter.thread = Some(ThreadScope::Topic(record.id.clone()));
        let messages = self
            .store
            .list(&filter, ListOrder::Oldest, TOPIC_SUMMARY_MESSAGES, 0)?;
        let ids: Vec<MemoryId> = messages.iter().map(|m| m.id).collect();
        let vectors: Vec<Vec<f32>> = self
            .store
            .embeddings(tenant, &ids)?
            .into_iter()
            .map(Option::unwrap_or_default)
            .collect();
        if messages.is_empty() {
            return Ok(());
        }
        // Titles from what was said, summaries with who said it.
        let said: Vec<&str> = messages.iter().map(said).collect();
        let lines: Vec<&str> = messages.iter().map(|m| m.content.as_str()).collect();
        let count = self.store.count(&filter)?;
        let retitle = topic.titled_at == 0
            || count >= 2 * topic.titled_at
            || (ended && count > topic.titled_at);
        if self.chat.is_none() {
            topic.title = summary::title(&said, &vectors)?;
            topic.titled_by = None;
        } else if retitle {
            if let Some((title, by)) = self.model_title(&lines.join("\n"), &said, &vectors)? {
                topic.title = title;
                topic.titled_by = Some(by);
                topic.titled_at = count;
            }
        }
        topic.summary = summary::summarise(
            &lines,
            &vectors,
            summary::Target::Tokens {
                budget: TOPIC_SUMMARY_TOKENS,
                tokenizer: Tokenizer::default(),
            },
        )?
        .text;
        topic.entities = key_entities(&messages);
        topic.messages = count;
        Ok(())
    }
}

/// Messages of a topic its description is read from (the first ones).
pub(super) const TOPIC_SUMMARY_MESSAGES: usize = 200;

/// Most tokens of a topic's summary.
pub(super) const TOPIC_SUMMARY_TOKENS: usize = 120;

/// What a message says, without the `Speaker: ` its content starts with.
pub(super) fn said(m: &Memory) -> &str {
    let speaker = m.metadata.get("speaker").and_then(Value::as_str);
    speaker
        .and_then(|s| m.content.strip_prefix(s))
        .and_then(|rest| rest.strip_prefix(": "))
        .unwrap_or(&m.content)
}

/// Entities a topic lists.
const TOPIC_ENTITIES: usize = 8;

/// The most salient entities of `messages`, by summed salience.
pub(super) fn key_entities(messages: &[Memory]) -> Vec<String> {
    let mut score: HashMap<String, f64> = HashMap::new();
    for m in messages {
        let Some(parsed) = m.metadata.get(PARSED_KEY) else {
            continue;
        };
        let Ok(parsed) = serde_json::from_value::<analysis::Parsed>(parsed.clone()) else {
            continue;
        };
        for e in parsed.entities {
            *score.entry(e.text).or_default() += f64::from(e.salience);
        }
    }
    let mut ranked: Vec<(String, f64)> = score.into_iter().collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    ranked
        .into_iter()
        .take(TOPIC_ENTITIES)
        .map(|(e, _)| e)
        .collect()
}

/// A message checked: ids normalised, text and speaker present.
fn checked(mut m: Message, now: Timestamp) -> Result<Message> {
    m.conversation = normalize_thread_id("conversation", &m.conversation)?;
    m.session = m
        .session
        .as_deref()
        .map(|s| normalize_thread_id("session", s))
        .transpose()?;
    m.speaker = m.speaker.trim().to_string();
    if m.speaker.is_empty() || m.speaker.chars().count() > 128 {
        return Err(Error::invalid(
            "a message needs a `speaker` or `role` of 1–128 characters",
        ));
    }
    validate_content(&m.text)?;
    if m.at.is_some_and(|at| at > now + FUTURE_SLACK_MS) {
        return Err(Error::invalid(
            "a message's `at` is in the future: give the time it was said",
        ));
    }
    Ok(m)
}

/// How far in the future a message's time may be (clocks differ).
const FUTURE_SLACK_MS: i64 = 24 * 3_600_000;

/// The default session of a message: its conversation's UTC day.
pub(super) fn default_session(conversation: &str, at: Timestamp) -> String {
    let day = chrono::DateTime::from_timestamp_millis(at)
        .map(|t| t.format("%Y-%m-%d").to_string())
        .unwrap_or_else(|| "undated".into());
    format!("{conversation}@{day}")
}

pub(super) fn same_session(m: &Memory, session: &str) -> bool {
    m.thread.as_ref().is_some_and(|t| t.session == session)
}

/// Add `next` (the following message) to `m`'s search context.
fn append_context(m: &mut Memory, next: &str) {
    match &mut m.search_context {
        Some(c) => {
            c.push('\n');
            c.push_str(next);
        }
        None => m.search_context = Some(next.to_string()),
    }
}

/// A logged message's memory: an episode of `tenant` in `project`, written
/// at `at`, its thread set by the caller.
fn episode(
    id: MemoryId,
    (tenant, project): (&str, Option<&str>),
    content: String,
    metadata: Map<String, Value>,
    importance: f64,
    at: Timestamp,
) -> Memory {
    Memory {
        id,
        tenant: tenant.to_string(),
        content,
        kind: MemoryType::Episode,
        project: project.map(str::to_string),
        tags: Vec::new(),
        metadata,
        importance,
        weight: 1.0,
        source: "conversation".into(),
        created_at: at,
        updated_at: at,
        last_accessed_at: None,
        access_count: 0,
        expires_at: None,
        valid_from: None,
        valid_to: None,
        supersedes: None,
        superseded_by: None,
        thread: None,
        slot: None,
        search_context: None,
    }
}

#[cfg(test)]
mod tests;
