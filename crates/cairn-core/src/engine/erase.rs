//! What forgetting a conversation message leaves to clean: its text is
//! copied into fields derived from it — its neighbours' search context,
//! its topic's title, summary and entities, and its conversation's title
//! and summary (its topics' titles). Forgetting rebuilds each of them from
//! the messages that remain, so the text survives nowhere.
//!
//! A consolidation summary is made of its sources' text (its content and
//! search context): forgetting one of its sources forgets the summary too
//! (a receipt of its own says why), and the sources that remain are plain
//! episodes again, consolidated anew by the next run. Forgetting a summary
//! likewise gives its sources back to recall.
//!
//! Descriptions are rebuilt locally (extractive title and summary), never
//! by a chat model: forgetting must not depend on an endpoint answering.

use std::collections::BTreeSet;

use super::conversation::{
    key_entities, said, same_session, TOPIC_SUMMARY_MESSAGES, TOPIC_SUMMARY_TOKENS,
};
use super::Cairn;
use crate::analysis::summary;
use crate::collections::{CollectionBody, CollectionKind, Conversation, Topic};
use crate::history::{Change, ChangeKind, Deletion, SYSTEM_ACTOR};
use crate::memory::{Memory, MemoryId};
use crate::store::{ListOrder, ThreadScope, WriteBatch};
use crate::tokens::Tokenizer;
use crate::Result;

impl Cairn {
    /// Rebuild what the forgotten messages `gone` (as they were before
    /// the deletion) live on in: their sessions' search contexts, their
    /// topics' and conversations' descriptions.
    pub(super) fn scrub_forgotten(&self, tenant: &str, gone: &[Memory]) -> Result<()> {
        self.unconsolidate(tenant, gone)?;
        self.scrub_corrections(tenant, gone)?;
        let threads: Vec<_> = gone.iter().filter_map(|m| m.thread.clone()).collect();
        if threads.is_empty() {
            return Ok(());
        }
        let texts: Vec<&str> = gone.iter().map(|m| m.content.as_str()).collect();
        let sessions: BTreeSet<&str> = threads.iter().map(|t| t.session.as_str()).collect();
        for session in sessions {
            self.rebuild_contexts(tenant, session, &texts)?;
        }
        let topics: BTreeSet<&str> = threads.iter().map(|t| t.topic.as_str()).collect();
        for topic in topics {
            self.redescribe_topic(tenant, topic)?;
        }
        let ids: Vec<MemoryId> = gone.iter().map(|m| m.id).collect();
        let conversations: BTreeSet<&str> =
            threads.iter().map(|t| t.conversation.as_str()).collect();
        for conversation in conversations {
            self.redescribe_conversation(tenant, conversation, &ids)?;
        }
        Ok(())
    }

    /// Forget the consolidation summaries made of a memory of `gone`, and
    /// give the remaining sources of those and of the summaries in `gone`
    /// back to recall (no longer superseded, no `consolidated_into`).
    fn unconsolidate(&self, tenant: &str, gone: &[Memory]) -> Result<()> {
        let gone_ids: BTreeSet<MemoryId> = gone.iter().map(|m| m.id).collect();
        let made_of_gone: Vec<MemoryId> = gone
            .iter()
            .filter(|m| m.metadata.contains_key("consolidated_into"))
            .filter_map(|m| m.superseded_by)
            .filter(|s| !gone_ids.contains(s))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let summaries = self.store.get(tenant, &made_of_gone)?;
        if !summaries.is_empty() {
            let now = self.now();
            let why = Deletion::new(SYSTEM_ACTOR, "made from a forgotten memory", now);
            self.store.delete(tenant, &made_of_gone, &why)?;
        }
        let sources: Vec<MemoryId> = summaries
            .iter()
            .chain(gone)
            .filter_map(|s| s.metadata.get("consolidated_from")?.as_array().cloned())
            .flatten()
            .filter_map(|v| v.as_str()?.parse().ok())
            .filter(|id| !gone_ids.contains(id))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        if sources.is_empty() {
            return Ok(());
        }
        let now = self.now();
        let mut batch = WriteBatch::default();
        for mut m in self.store.get(tenant, &sources)? {
            let Some(summary) = m.metadata.remove("consolidated_into") else {
                continue;
            };
            m.superseded_by = None;
            m.updated_at = now;
            batch.changes.push(
                Change::new(m.id, ChangeKind::Updated, SYSTEM_ACTOR, now).because(format!(
                    "its consolidation summary {} was forgotten",
                    summary.as_str().unwrap_or_default()
                )),
            );
            batch.updates.push((m, None));
        }
        self.store.write(batch)
    }

    /// The memories that contest or supersede one of `gone` hold its text
    /// in their search context ([`super::conflicts::correction_context`]):
    /// it is taken out.
    fn scrub_corrections(&self, tenant: &str, gone: &[Memory]) -> Result<()> {
        let newer: Vec<MemoryId> = gone
            .iter()
            .filter_map(|m| {
                m.superseded_by
                    .or_else(|| m.metadata.get(super::CONTESTED_BY)?.as_str()?.parse().ok())
            })
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        if newer.is_empty() {
            return Ok(());
        }
        let texts: Vec<String> = gone.iter().map(|m| m.content.replace('\n', " ")).collect();
        let mut batch = WriteBatch::default();
        for mut m in self.store.get(tenant, &newer)? {
            let Some(context) = m.search_context.as_deref() else {
                continue;
            };
            let kept: Vec<&str> = context
                .split('\n')
                .filter(|line| !texts.iter().any(|t| t == line))
                .collect();
            if kept.len() == context.split('\n').count() {
                continue;
            }
            m.search_context = (!kept.is_empty()).then(|| kept.join("\n"));
            // The index text changes, not what the memory says: no version.
            batch.updates.push((m, None));
        }
        if batch.updates.is_empty() {
            return Ok(());
        }
        self.store.write(batch)
    }

    /// The remaining messages of `session` whose search context holds one
    /// of `texts` get it again from their neighbours as they are now
    /// (the message before and the one after, as logging gives it).
    fn rebuild_contexts(&self, tenant: &str, session: &str, texts: &[&str]) -> Result<()> {
        let mut filter = self.filter(tenant).everything();
        filter.thread = Some(ThreadScope::Session(session.to_string()));
        let messages = self.store.list(&filter, ListOrder::Oldest, usize::MAX, 0)?;
        let mut batch = WriteBatch::default();
        for (i, m) in messages.iter().enumerate() {
            let stale = m
                .search_context
                .as_deref()
                .is_some_and(|c| texts.iter().any(|t| c.contains(t)));
            if !stale {
                continue;
            }
            let neighbour = |j: Option<usize>| {
                j.and_then(|j| messages.get(j))
                    .filter(|n| same_session(n, session))
                    .map(|n| n.content.clone())
            };
            let context: Vec<String> = [neighbour(i.checked_sub(1)), neighbour(Some(i + 1))]
                .into_iter()
                .flatten()
                .collect();
            let mut m = m.clone();
            m.search_context = (!context.is_empty()).then(|| context.join("\n"));
            // The index text changes, not what the message says: no version.
            batch.updates.push((m, None));
        }
        if batch.updates.is_empty() {
            return Ok(());
        }
        self.store.write(batch)
    }

    /// `topic`'s title, summary and entities from its remaining messages
    /// (all empty when none remain).
    fn redescribe_topic(&self, tenant: &str, topic: &str) -> Result<()> {
        let threads = self.store.collections();
        let Some(mut record) = threads.collection(tenant, CollectionKind::Topic, topic)? else {
            return Ok(());
        };
        let mut described = Topic::from_record(&record)?;
        let mut filter = self.filter(tenant).everything();
        filter.thread = Some(ThreadScope::Topic(topic.to_string()));
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
        let said: Vec<&str> = messages.iter().map(said).collect();
        let lines: Vec<&str> = messages.iter().map(|m| m.content.as_str()).collect();
        described.titled_by = None;
        described.titled_at = 0;
        (described.title, described.summary) = if messages.is_empty() {
            (String::new(), String::new())
        } else {
            let title = summary::title(&said, &vectors)?;
            let summary = summary::summarise(
                &lines,
                &vectors,
                summary::Target::Tokens {
                    budget: TOPIC_SUMMARY_TOKENS,
                    tokenizer: Tokenizer::default(),
                },
            )?
            .text;
            (title, summary)
        };
        described.entities = key_entities(&messages);
        described.messages = self.store.count(&filter)?;
        record.body = described.to_body();
        threads.put_collection(&record)
    }

    /// `conversation`'s title and summary from its topics' titles, as
    /// logging makes them; the forgotten `ids` leave its held messages.
    fn redescribe_conversation(
        &self,
        tenant: &str,
        conversation: &str,
        ids: &[MemoryId],
    ) -> Result<()> {
        let threads = self.store.collections();
        let Some(mut record) =
            threads.collection(tenant, CollectionKind::Conversation, conversation)?
        else {
            return Ok(());
        };
        let mut body = Conversation::from_record(&record)?;
        let titles: Vec<String> = threads
            .list_collections(tenant, CollectionKind::Topic, Some(conversation))?
            .iter()
            .map(Topic::from_record)
            .map(|t| t.map(|t| t.title))
            .collect::<Result<_>>()?;
        body.title = titles.first().cloned().unwrap_or_default();
        body.summary = titles
            .iter()
            .filter(|t| !t.is_empty())
            .cloned()
            .collect::<Vec<_>>()
            .join("; ");
        body.held.retain(|id| !ids.contains(id));
        record.body = body.to_body();
        threads.put_collection(&record)
    }
}
