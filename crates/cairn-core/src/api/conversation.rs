//! Conversations for any front end: transcripts imported as JSON Lines,
//! messages logged one by one, and the hierarchy listed and shown.

use std::collections::BTreeMap;
use std::io::BufRead;

use serde::Serialize;

use super::Caller;
use crate::collections::{CollectionBody, CollectionKind, Conversation, Topic};
use crate::engine::{
    redaction_counts, Cairn, KeptMessage, LoggedMessage, Message, ObserveReport, ObserveRequest,
    WindowRequest, DEFAULT_WORKING_TOKENS,
};
use crate::store::{Filter, ListOrder, ThreadScope};
use crate::time::format_timestamp;
use crate::tokens::Tokenizer;
use crate::window::{Window, WindowFormat};
use crate::wire::MessageRecord;
use crate::{Error, Result};

/// What a transcript import did.
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
pub struct ConversationImportReport {
    /// Messages written.
    pub imported: usize,
    /// Messages kept pending: the embedding endpoint failed (see
    /// `pending_reason`); they are logged when it answers.
    pub pending: usize,
    /// Why messages were kept pending, when some were.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pending_reason: Option<String>,
    /// Messages whose id was already stored (left as they were).
    pub skipped_existing: usize,
    /// Topics started.
    pub topics_started: usize,
    /// Conversations the messages belong to.
    pub conversations: Vec<String>,
    /// Bad lines: (line number, problem), skipped unless strict.
    pub errors: Vec<(usize, String)>,
    /// Secrets replaced before the messages were stored, by kind.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub redacted: BTreeMap<String, usize>,
    /// The messages that change what an earlier message or memory said
    /// ("I moved to Denver"), each with the one it conflicts with.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub conflicts: Vec<MessageConflictView>,
}

/// A logged message that conflicts with an earlier memory.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct MessageConflictView {
    /// The message's memory id.
    pub message: String,
    /// The earlier memory, why, and what the conflict policy did to it.
    #[serde(flatten)]
    pub conflict: super::write::ConflictView,
}

fn request(caller: &Caller, project: Option<String>) -> ObserveRequest {
    ObserveRequest {
        tenant: caller.tenant.clone(),
        project: project.or_else(|| caller.project.clone()),
        actor: caller.actor.clone(),
    }
}

/// Import a transcript: JSON Lines of [`MessageRecord`]s read from
/// `reader`, logged in order (see [`Cairn::observe`]). Bad lines are
/// reported by number and skipped; with `strict`, any bad line refuses the
/// whole text before anything is written. `progress` is told how many
/// messages are done.
pub fn import_transcript(
    cairn: &Cairn,
    caller: &Caller,
    project: Option<String>,
    reader: impl BufRead,
    strict: bool,
    progress: &mut dyn FnMut(usize),
) -> Result<ConversationImportReport> {
    let mut errors: Vec<(usize, String)> = Vec::new();
    let mut read_error: Option<Error> = None;
    let messages = reader
        .lines()
        .enumerate()
        .map_while(|(i, line)| match line {
            Ok(l) => Some((i + 1, l)),
            Err(e) => {
                read_error = Some(Error::invalid(format!("reading line {}: {e}", i + 1)));
                None
            }
        })
        .filter(|(_, l)| !l.trim().is_empty())
        .filter_map(|(n, l)| {
            let parsed = serde_json::from_str::<MessageRecord>(&l)
                .map_err(|e| Error::invalid(format!("not a message record: {e}")))
                .and_then(MessageRecord::into_message);
            parsed.map_err(|e| errors.push((n, e.to_string()))).ok()
        });
    let req = request(caller, project);
    let report = if strict {
        let all: Vec<Message> = messages.collect();
        if let Some((line, msg)) = errors.first() {
            return Err(Error::invalid(format!(
                "line {line}: {msg} ({} bad line(s) in all; --strict imports nothing)",
                errors.len()
            )));
        }
        cairn.observe(&req, all, progress)?
    } else {
        cairn.observe(&req, messages, progress)?
    };
    if let Some(e) = read_error {
        return Err(Error::invalid(format!(
            "{e}; the {} messages before it were imported (importing again skips them)",
            report.logged.len()
        )));
    }
    Ok(summarise(report, errors))
}

fn summarise(report: ObserveReport, errors: Vec<(usize, String)>) -> ConversationImportReport {
    let mut conversations: Vec<String> = report
        .logged
        .iter()
        .map(|m| m.conversation.clone())
        .collect();
    conversations.extend(report.pending.iter().map(|m| m.conversation.clone()));
    conversations.sort();
    conversations.dedup();
    let message_conflicts = report
        .logged
        .iter()
        .flat_map(|m| {
            m.conflicts.iter().map(|c| MessageConflictView {
                message: m.id.to_string(),
                conflict: c.clone().into(),
            })
        })
        .collect();
    ConversationImportReport {
        conflicts: message_conflicts,
        imported: report.logged.len(),
        pending: report.pending.len(),
        pending_reason: report.pending_reason,
        skipped_existing: report.skipped_existing,
        topics_started: report.logged.iter().filter(|m| m.new_topic).count(),
        conversations,
        errors,
        redacted: redaction_counts(&report.redacted),
    }
}

/// One logged message, as answered.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct LoggedView {
    /// Its memory's id.
    pub id: String,
    /// Its session.
    pub session: String,
    /// Its conversation.
    pub conversation: String,
    /// Its topic.
    pub topic: String,
    /// Whether it started that topic (the conversation changed subject).
    pub new_topic: bool,
    /// Its importance, 0–1 (`0.6·novelty + 0.4·salience`).
    pub importance: f64,
    /// The earlier memories it conflicts with (it changes what they said),
    /// why, and what the conflict policy did to each.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub conflicts: Vec<super::write::ConflictView>,
}

impl From<LoggedMessage> for LoggedView {
    fn from(m: LoggedMessage) -> Self {
        LoggedView {
            id: m.id.to_string(),
            session: m.session,
            conversation: m.conversation,
            topic: m.topic,
            new_topic: m.new_topic,
            importance: m.importance,
            conflicts: m.conflicts.into_iter().map(Into::into).collect(),
        }
    }
}

/// A message kept pending, as answered.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct PendingView {
    /// The memory id it will have.
    pub id: String,
    /// Its session.
    pub session: String,
    /// Its conversation.
    pub conversation: String,
}

impl From<KeptMessage> for PendingView {
    fn from(m: KeptMessage) -> Self {
        PendingView {
            id: m.id.to_string(),
            session: m.session,
            conversation: m.conversation,
        }
    }
}

/// What logging messages did.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct LogOutput {
    /// The messages logged, in order.
    pub logged: Vec<LoggedView>,
    /// The messages kept pending, in order: the embedding endpoint failed,
    /// or earlier messages of their conversation wait for it. Each is
    /// logged in its conversation, with this id, when the endpoint answers
    /// (`cairn reindex --pending`, or `cairn serve` in the background);
    /// not recallable until then.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pending: Vec<PendingView>,
    /// Why messages were kept pending, when some were.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pending_reason: Option<String>,
    /// Secrets replaced before the messages were stored, by kind.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub redacted: BTreeMap<String, usize>,
}

/// Messages to log, as front ends receive them.
#[derive(Debug, Clone, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LogInput {
    /// The project of the messages (default: the caller's, else global).
    #[serde(default)]
    pub project: Option<String>,
    /// The messages, in order (usually a user message and its reply), each
    /// as a line of a transcript import.
    pub messages: Vec<MessageRecord>,
}

/// Log messages given as records (an agent's exchange: its user message
/// and reply); every record is checked before any is written.
pub fn log(cairn: &Cairn, caller: &Caller, input: LogInput) -> Result<LogOutput> {
    let LogInput { project, messages } = input;
    let messages = messages
        .into_iter()
        .map(MessageRecord::into_message)
        .collect::<Result<Vec<_>>>()?;
    if messages.is_empty() {
        return Err(Error::invalid("nothing to log: give at least one message"));
    }
    let report = cairn.observe(&request(caller, project), messages, &mut |_| ())?;
    Ok(LogOutput {
        redacted: redaction_counts(&report.redacted),
        logged: report.logged.into_iter().map(LoggedView::from).collect(),
        pending: report.pending.into_iter().map(PendingView::from).collect(),
        pending_reason: report.pending_reason,
    })
}

/// A conversation as listed.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ConversationView {
    /// Its id.
    pub id: String,
    /// Its title (its first topic's).
    pub title: String,
    /// An outline: its topics' titles.
    pub summary: String,
    /// How many of its messages are stored (forgotten ones not counted).
    pub messages: usize,
    /// How many topics.
    pub topics: usize,
    /// When it started (RFC 3339).
    pub created_at: String,
    /// Its latest message (RFC 3339).
    pub updated_at: String,
}

/// The caller's conversations, oldest first.
pub fn list_conversations(cairn: &Cairn, caller: &Caller) -> Result<Vec<ConversationView>> {
    cairn
        .store()
        .collections()
        .list_collections(&caller.tenant, CollectionKind::Conversation, None)?
        .into_iter()
        .map(|r| {
            let body = Conversation::from_record(&r)?;
            // Counted in the store, not the record's running count: a
            // forgotten message leaves the record's count as it was.
            let mut filter = Filter::new(&caller.tenant, cairn.now()).everything();
            filter.thread = Some(ThreadScope::Conversation(r.id.clone()));
            let messages = cairn.store().count(&filter)?;
            Ok(ConversationView {
                id: r.id,
                title: body.title,
                summary: body.summary,
                messages,
                topics: body.topics,
                created_at: format_timestamp(r.created_at),
                updated_at: format_timestamp(r.updated_at),
            })
        })
        .collect()
}

/// One message as shown in a conversation.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct MessageView {
    /// Its memory's id.
    pub id: String,
    /// Its session.
    pub session: String,
    /// `Speaker: text`.
    pub content: String,
    /// When (RFC 3339).
    pub at: String,
    /// Importance, 0–1.
    pub importance: f64,
}

/// A topic with its messages.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct TopicView {
    /// Its id.
    pub id: String,
    /// Its title.
    pub title: String,
    /// How the title was made, when a chat model is configured: `llm`
    /// (with the model), or `extractive` with the model's failure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub titled_by: Option<crate::chat::Generated>,
    /// Its extractive summary.
    pub summary: String,
    /// Its key entities.
    pub entities: Vec<String>,
    /// Its messages, oldest first.
    pub messages: Vec<MessageView>,
}

/// A conversation as a tree: its topics, each with its messages.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ConversationTree {
    /// The conversation.
    #[serde(flatten)]
    pub conversation: ConversationView,
    /// Its key entities: those of its topics, in topic order.
    pub entities: Vec<String>,
    /// Its topics, oldest first.
    pub topic_list: Vec<TopicView>,
}

/// Messages shown per conversation at most.
const SHOW_MESSAGES: usize = 10_000;

/// A conversation with its topics and messages.
pub fn show_conversation(cairn: &Cairn, caller: &Caller, id: &str) -> Result<ConversationTree> {
    let id = id.trim();
    let conversation = list_conversations(cairn, caller)?
        .into_iter()
        .find(|c| c.id == id)
        .ok_or_else(|| Error::NotFound(format!("conversation `{id}`")))?;
    let mut filter = Filter::new(&caller.tenant, cairn.now()).everything();
    filter.thread = Some(ThreadScope::Conversation(id.to_string()));
    let messages = cairn
        .store()
        .list(&filter, ListOrder::Oldest, SHOW_MESSAGES, 0)?;
    let topics = cairn.store().collections().list_collections(
        &caller.tenant,
        CollectionKind::Topic,
        Some(id),
    )?;
    let topic_list = topics
        .iter()
        .map(|r| {
            let t = Topic::from_record(r)?;
            let messages = messages
                .iter()
                .filter(|m| m.thread.as_ref().is_some_and(|th| th.topic == r.id))
                .map(|m| MessageView {
                    id: m.id.to_string(),
                    session: m
                        .thread
                        .as_ref()
                        .map(|th| th.session.clone())
                        .unwrap_or_default(),
                    content: m.content.clone(),
                    at: format_timestamp(m.created_at),
                    importance: m.importance,
                })
                .collect();
            Ok(TopicView {
                id: r.id.clone(),
                title: t.title,
                titled_by: t.titled_by,
                summary: t.summary,
                entities: t.entities,
                messages,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let mut entities: Vec<String> = Vec::new();
    for e in topic_list.iter().flat_map(|t| &t.entities) {
        if !entities.iter().any(|k| k.eq_ignore_ascii_case(e)) {
            entities.push(e.clone());
        }
    }
    Ok(ConversationTree {
        conversation,
        entities,
        topic_list,
    })
}

/// What to assemble a context window for, as front ends receive it.
#[derive(Debug, Clone, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct WindowInput {
    /// The session of the call (required).
    pub session: String,
    /// The new user message (optional).
    pub message: String,
    /// The project whose memories count (default: the caller's, else
    /// global ones).
    pub project: Option<String>,
    /// Most tokens of the window (default 2,000).
    pub budget: Option<usize>,
    /// Most tokens of the working memory, the latest exchanges (default
    /// 4,096).
    pub working_tokens: Option<usize>,
    /// `cl100k_base` (default) or `o200k_base`.
    pub tokenizer: Option<String>,
    /// `markdown` (default), `json` or `memory` (a `<memory>` block).
    pub format: Option<String>,
}

/// The default budget of a window.
pub const DEFAULT_WINDOW_BUDGET: usize = 2000;

/// The context an LLM call of a session should get (see
/// [`Cairn::window`]).
pub fn window(cairn: &Cairn, caller: &Caller, input: WindowInput) -> Result<Window> {
    let (tokenizer, format) = super::prompt::rendering(
        input.tokenizer.as_deref(),
        input.format.as_deref(),
        WindowFormat::default(),
    )?;
    cairn.window(&WindowRequest {
        tenant: caller.tenant.clone(),
        session: input.session,
        message: input.message,
        project: super::non_empty(input.project.as_deref()).or_else(|| caller.project.clone()),
        budget: input.budget.unwrap_or(DEFAULT_WINDOW_BUDGET),
        working_tokens: input.working_tokens.unwrap_or(DEFAULT_WORKING_TOKENS),
        tokenizer,
        format,
    })
}

/// Room for the rules beside the latest messages in [`working_memory`].
pub const WORKING_RULES_TOKENS: usize = 1024;

/// A session's working memory: the rules to follow and its latest
/// messages, up to [`DEFAULT_WORKING_TOKENS`] of them (what MCP's
/// `cairn://session/{id}/working-memory` resource and REST's
/// `/v1/sessions/{id}/working-memory` show).
pub fn working_memory(cairn: &Cairn, caller: &Caller, session: &str) -> Result<Window> {
    window(
        cairn,
        caller,
        WindowInput {
            session: session.to_string(),
            budget: Some(DEFAULT_WORKING_TOKENS + WORKING_RULES_TOKENS),
            ..Default::default()
        },
    )
}

/// Token totals of one session, conversation or topic.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ThreadTokens {
    /// `session`, `conversation` or `topic`.
    pub level: CollectionKind,
    /// Its id.
    pub id: String,
    /// Its messages.
    pub messages: usize,
    /// The exact tokens of its messages' text, with the tokenizer asked for.
    pub tokens: usize,
}

/// Exact token totals of the caller's conversations.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ConversationStats {
    /// How tokens were counted.
    pub tokenizer: Tokenizer,
    /// Every conversation, then every session, then every topic, each by id.
    pub totals: Vec<ThreadTokens>,
}

/// Exact token totals per session, conversation and topic, of one
/// conversation or of all the caller's.
pub fn conversation_stats(
    cairn: &Cairn,
    caller: &Caller,
    conversation: Option<&str>,
    tokenizer: Option<&str>,
) -> Result<ConversationStats> {
    let tokenizer = match super::non_empty(tokenizer) {
        Some(t) => t.parse::<Tokenizer>()?,
        None => Tokenizer::default(),
    };
    let mut filter = Filter::new(&caller.tenant, cairn.now()).everything();
    if let Some(c) = super::non_empty(conversation) {
        if cairn
            .store()
            .collections()
            .collection(&caller.tenant, CollectionKind::Conversation, &c)?
            .is_none()
        {
            return Err(Error::NotFound(format!("conversation `{c}`")));
        }
        filter.thread = Some(ThreadScope::Conversation(c));
    }
    let mut totals: std::collections::BTreeMap<(CollectionKind, String), (usize, usize)> =
        Default::default();
    let mut cursor = None;
    loop {
        filter.after = cursor;
        let page = cairn.store().list(&filter, ListOrder::Id, STATS_PAGE, 0)?;
        for m in &page {
            let Some(t) = &m.thread else { continue };
            let tokens = tokenizer.count(&m.content);
            for key in [
                (CollectionKind::Conversation, t.conversation.clone()),
                (CollectionKind::Session, t.session.clone()),
                (CollectionKind::Topic, t.topic.clone()),
            ] {
                let e = totals.entry(key).or_default();
                e.0 += 1;
                e.1 += tokens;
            }
        }
        match page.last() {
            Some(last) if page.len() == STATS_PAGE => cursor = Some(last.id),
            _ => break,
        }
    }
    let mut totals: Vec<ThreadTokens> = totals
        .into_iter()
        .map(|((level, id), (messages, tokens))| ThreadTokens {
            level,
            id,
            messages,
            tokens,
        })
        .collect();
    totals.sort_by_key(|t| (level_order(t.level), t.id.clone()));
    Ok(ConversationStats { tokenizer, totals })
}

/// Memories read per page by [`conversation_stats`].
const STATS_PAGE: usize = 1000;

fn level_order(kind: CollectionKind) -> u8 {
    match kind {
        CollectionKind::Conversation => 0,
        CollectionKind::Session => 1,
        CollectionKind::Topic => 2,
        CollectionKind::Slot | CollectionKind::Setting | CollectionKind::Pending => 3,
    }
}
