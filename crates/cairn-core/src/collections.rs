//! Collections: the small records that describe groups of memories —
//! Memorg's sessions, conversations and topics.
//!
//! The members are memories: a conversation's messages are `episode`
//! memories whose [`crate::Thread`] names their session, conversation and
//! topic, searched by the same indexes as every other memory. What is kept
//! here describes the groups themselves — titles, summaries, key entities,
//! where a conversation's subject stands — as one JSON body per record.
//!
//! Storage is behind [`CollectionStore`], one table of
//! [`CollectionRecord`]s keyed by tenant, kind and id, which every backend
//! implements (the conformance suite checks it) and hands out through
//! [`crate::Store::collections`].

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::{Error, Result, Timestamp};

/// Which level of the hierarchy a record describes.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum CollectionKind {
    /// A session: one sitting of a user with a system configuration.
    Session,
    /// A conversation: one exchange of messages, over one or more sessions.
    Conversation,
    /// A topic: a run of a conversation's messages about one subject.
    Topic,
    /// A slot: memcord's named, long-lived collection of entries.
    Slot,
    /// A tenant-wide setting (id: its name), such as zero mode.
    Setting,
    /// A write kept until the embedding endpoint answers (id: the memory
    /// id it will have; see `engine::pending`).
    Pending,
}

impl CollectionKind {
    /// Every kind, top level first.
    pub const ALL: [CollectionKind; 6] = [
        CollectionKind::Session,
        CollectionKind::Conversation,
        CollectionKind::Topic,
        CollectionKind::Slot,
        CollectionKind::Setting,
        CollectionKind::Pending,
    ];

    /// The kind's name, as stored.
    pub fn as_str(self) -> &'static str {
        match self {
            CollectionKind::Session => "session",
            CollectionKind::Conversation => "conversation",
            CollectionKind::Topic => "topic",
            CollectionKind::Slot => "slot",
            CollectionKind::Setting => "setting",
            CollectionKind::Pending => "pending",
        }
    }

    /// The kind named `name`.
    pub fn parse(name: &str) -> Result<Self> {
        CollectionKind::ALL
            .into_iter()
            .find(|k| k.as_str() == name)
            .ok_or_else(|| Error::storage(format!("unknown collection kind `{name}`")))
    }
}

impl fmt::Display for CollectionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One stored record of the hierarchy: its key, its parent (a topic's
/// conversation; none for sessions and conversations), its times and a
/// JSON body the typed views ([`Session`], [`Conversation`], [`Topic`])
/// are read from.
#[derive(Debug, Clone, PartialEq)]
pub struct CollectionRecord {
    /// Owner.
    pub tenant: String,
    /// Level.
    pub kind: CollectionKind,
    /// Id, unique per tenant and kind.
    pub id: String,
    /// The conversation of a topic.
    pub parent: Option<String>,
    /// The record's fields, as a JSON object.
    pub body: Map<String, Value>,
    /// When it was created.
    pub created_at: Timestamp,
    /// When it last changed.
    pub updated_at: Timestamp,
}

/// Where sessions, conversations and topics are kept: one small table.
///
/// # The contract
/// - Keyed by `(tenant, kind, id)`; tenants never see each other's records.
/// - [`CollectionStore::put_collection`] inserts or replaces a record whole.
/// - Listings are in creation order (then id).
pub trait CollectionStore: Send + Sync {
    /// Insert the record, or replace the one with its key.
    fn put_collection(&self, record: &CollectionRecord) -> Result<()>;

    /// The record with this key.
    fn collection(
        &self,
        tenant: &str,
        kind: CollectionKind,
        id: &str,
    ) -> Result<Option<CollectionRecord>>;

    /// The tenant's records of `kind` (those of `parent` when given),
    /// oldest first.
    fn list_collections(
        &self,
        tenant: &str,
        kind: CollectionKind,
        parent: Option<&str>,
    ) -> Result<Vec<CollectionRecord>>;

    /// Delete the record with this key; whether it existed.
    fn delete_collection(&self, tenant: &str, kind: CollectionKind, id: &str) -> Result<bool>;
}

/// A session.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Session {
    /// The system configuration the session ran with (free-form).
    #[serde(default)]
    pub config: Map<String, Value>,
    /// Anything else.
    #[serde(default)]
    pub metadata: Map<String, Value>,
}

/// A conversation.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Conversation {
    /// A short title: its first topic's.
    #[serde(default)]
    pub title: String,
    /// An outline of the conversation so far: its topics' titles.
    #[serde(default)]
    pub summary: String,
    /// Anything else.
    #[serde(default)]
    pub metadata: Map<String, Value>,
    /// Its current topic (the latest).
    #[serde(default)]
    pub topic: Option<String>,
    /// How many topics it has had.
    #[serde(default)]
    pub topics: usize,
    /// How many messages it holds.
    #[serde(default)]
    pub messages: usize,
    /// Where the conversation's subject stands: the running topic the next
    /// message is compared with.
    #[serde(default)]
    pub tracker: Option<crate::analysis::segment::TopicTracker>,
    /// The latest messages, off the running topic, that the next message
    /// may confirm as the start of a new one.
    #[serde(default)]
    pub held: Vec<crate::MemoryId>,
}

/// A topic of a conversation.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Topic {
    /// A short title: by the chat model when one is configured, else from
    /// its most central message.
    #[serde(default)]
    pub title: String,
    /// How the title was made, when a chat model is configured (by it, or
    /// extractive with the model's failure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub titled_by: Option<crate::chat::Generated>,
    /// How many messages the topic held when the chat model last titled
    /// it (0: never).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub titled_at: usize,
    /// An extractive summary of its messages.
    #[serde(default)]
    pub summary: String,
    /// Its key entities, most salient first.
    #[serde(default)]
    pub entities: Vec<String>,
    /// How many messages it holds.
    #[serde(default)]
    pub messages: usize,
}

/// A slot: its description and grouping, whether it is archived, whether
/// saving to it is paused (zero mode). Its entries are memories whose
/// [`crate::Memory::slot`] is its name; counts are read from them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Slot {
    /// What it is for.
    #[serde(default)]
    pub description: String,
    /// Lowercase tags.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Its group, a path such as `projects/alpha/dev`.
    #[serde(default)]
    pub group: Option<String>,
    /// 1 (highest) to 5.
    #[serde(default = "default_priority")]
    pub priority: u8,
    /// When it was archived (then it leaves default recall).
    #[serde(default)]
    pub archived_at: Option<Timestamp>,
    /// Why.
    #[serde(default)]
    pub archive_reason: Option<String>,
    /// Saving is refused while on.
    #[serde(default)]
    pub zero: bool,
    /// When a progress summary was last saved.
    #[serde(default)]
    pub last_summary_at: Option<Timestamp>,
    /// How its entries are kept while it is archived (long ones
    /// compressed at rest).
    #[serde(default)]
    pub packed: Option<SlotPacking>,
}

/// An archived slot's entries at rest: what archiving compressed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SlotPacking {
    /// What compressed them (`zstd`; PostgreSQL's own `pglz` or `lz4`).
    pub algorithm: String,
    /// Entries kept compressed.
    pub entries: usize,
    /// Their texts' bytes.
    pub original_bytes: u64,
    /// What they take compressed.
    pub stored_bytes: u64,
}

fn default_priority() -> u8 {
    3
}

impl Default for Slot {
    fn default() -> Self {
        Slot {
            description: String::new(),
            tags: Vec::new(),
            group: None,
            priority: default_priority(),
            archived_at: None,
            archive_reason: None,
            zero: false,
            last_summary_at: None,
            packed: None,
        }
    }
}

/// A typed view of a record's body.
pub trait CollectionBody: Serialize + for<'de> Deserialize<'de> {
    /// The kind of record it describes.
    const KIND: CollectionKind;

    /// The body of a stored record of this kind.
    fn from_record(record: &CollectionRecord) -> Result<Self> {
        if record.kind != Self::KIND {
            return Err(Error::storage(format!(
                "{} `{}` read as a {}",
                record.kind,
                record.id,
                Self::KIND
            )));
        }
        serde_json::from_value(Value::Object(record.body.clone())).map_err(|e| {
            Error::storage_from(format!("{} `{}` is unreadable", record.kind, record.id), e)
        })
    }

    /// This body as a record's.
    fn to_body(&self) -> Map<String, Value> {
        match serde_json::to_value(self) {
            Ok(Value::Object(m)) => m,
            _ => Map::new(),
        }
    }
}

impl CollectionBody for Session {
    const KIND: CollectionKind = CollectionKind::Session;
}
impl CollectionBody for Conversation {
    const KIND: CollectionKind = CollectionKind::Conversation;
}
impl CollectionBody for Topic {
    const KIND: CollectionKind = CollectionKind::Topic;
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl CollectionBody for Slot {
    const KIND: CollectionKind = CollectionKind::Slot;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_round_trip_through_records() {
        let topic = Topic {
            title: "Moving to Postgres".into(),
            summary: "We move the store.".into(),
            entities: vec!["Postgres".into()],
            messages: 3,
            ..Topic::default()
        };
        let record = CollectionRecord {
            tenant: "t".into(),
            kind: CollectionKind::Topic,
            id: "c#1".into(),
            parent: Some("c".into()),
            body: topic.to_body(),
            created_at: 1,
            updated_at: 2,
        };
        assert_eq!(Topic::from_record(&record).unwrap(), topic);
        let err = Session::from_record(&record).unwrap_err().to_string();
        assert!(err.contains("read as a session"), "{err}");
        for kind in CollectionKind::ALL {
            assert_eq!(CollectionKind::parse(kind.as_str()).unwrap(), kind);
        }
    }
}
