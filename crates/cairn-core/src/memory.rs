//! The memory record: one type that every feature describes with fields.
//!
//! Scopes, types, tags, TTLs and supersession are all fields of [`Memory`];
//! so are memcord's named slots ([`Memory::slot`]) and Memorg's session →
//! conversation → topic hierarchy ([`Memory::thread`]): further fields of
//! this same record, searched by the same index, never parallel stores.

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::{Error, ModelInfo, Result};

/// The largest content a memory may hold: 1 MiB of UTF-8.
pub const MAX_CONTENT_BYTES: usize = 1 << 20;

/// The tenant of a local, single-user installation.
pub const DEFAULT_TENANT: &str = "default";

pub use cairn_text::kind::Timestamp;

/// A memory's identifier: a UUIDv7 (time-ordered).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct MemoryId(pub uuid::Uuid);

impl MemoryId {
    /// A new UUIDv7 for a memory created at `now` (ms since epoch).
    pub fn new_at(now: Timestamp) -> Self {
        let secs = now.div_euclid(1000) as u64;
        let nanos = (now.rem_euclid(1000) * 1_000_000) as u32;
        let ts = uuid::Timestamp::from_unix(uuid::NoContext, secs, nanos);
        MemoryId(uuid::Uuid::new_v7(ts))
    }

    /// When the memory was created, as its UUIDv7 records it (ms since
    /// epoch; 0 for an id of another version). What ranking reads when
    /// only a search hit, not the memory, is at hand.
    pub fn created_at(&self) -> Timestamp {
        self.0.get_timestamp().map_or(0, |t| {
            let (secs, nanos) = t.to_unix();
            secs as i64 * 1000 + i64::from(nanos / 1_000_000)
        })
    }
}

impl fmt::Display for MemoryId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.hyphenated().fmt(f)
    }
}

impl FromStr for MemoryId {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        uuid::Uuid::parse_str(s.trim())
            .map(MemoryId)
            .map_err(|_| Error::invalid(format!("`{s}` is not a valid memory id (a UUID)")))
    }
}

#[cfg(test)]
#[test]
fn an_id_tells_when_it_was_made() {
    let at = 1_683_730_800_123;
    assert_eq!(MemoryId::new_at(at).created_at(), at);
}

/// Normalise what a user typed as an id or id prefix: lowercase hex, with or
/// without hyphens. Returns the hyphenated prefix to match against stored ids.
///
/// A prefix needs at least 4 hex digits.
pub fn normalize_id_prefix(input: &str) -> Result<String> {
    let trimmed = input.trim().to_ascii_lowercase();
    let hex: String = trimmed.chars().filter(|c| *c != '-').collect();
    if hex.len() < 4 {
        return Err(Error::invalid(format!(
            "id prefix `{input}` is too short: give at least 4 characters of the id"
        )));
    }
    if hex.len() > 32 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(Error::invalid(format!(
            "`{input}` is not a memory id or id prefix (ids are hexadecimal UUIDs)"
        )));
    }
    // Re-insert hyphens at the UUID positions 8-4-4-4-12.
    let mut out = String::with_capacity(36);
    for (i, c) in hex.chars().enumerate() {
        if matches!(i, 8 | 12 | 16 | 20) {
            out.push('-');
        }
        out.push(c);
    }
    Ok(out)
}

pub use cairn_text::kind::{MemoryType, Tier};

/// Check and normalise a project name: 1–128 characters, no control
/// characters, surrounding white space trimmed.
pub fn normalize_project(project: &str) -> Result<String> {
    let p = project.trim();
    if p.is_empty() {
        return Err(Error::invalid("project name is empty"));
    }
    if p.chars().count() > 128 || p.chars().any(char::is_control) {
        return Err(Error::invalid(format!(
            "project name `{p}` is invalid: use at most 128 printable characters"
        )));
    }
    Ok(p.to_string())
}

/// Normalise tags: trimmed, lowercase, deduplicated, sorted; empty tags
/// dropped. A tag is at most 64 characters without commas or control
/// characters.
pub fn normalize_tags<I, S>(tags: I) -> Result<Vec<String>>
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let mut out: Vec<String> = Vec::new();
    for tag in tags {
        let t = tag.as_ref().trim().to_lowercase();
        if t.is_empty() {
            continue;
        }
        if t.chars().count() > 64 || t.contains(',') || t.chars().any(char::is_control) {
            return Err(Error::invalid(format!(
                "tag `{t}` is invalid: tags are at most 64 characters, without commas"
            )));
        }
        out.push(t);
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// Check content: non-empty after trimming, at most [`MAX_CONTENT_BYTES`],
/// no NUL character (PostgreSQL's text cannot hold one, so no backend
/// takes it).
pub fn validate_content(content: &str) -> Result<()> {
    if content.len() > MAX_CONTENT_BYTES {
        return Err(Error::ContentTooLarge {
            size: content.len(),
            max: MAX_CONTENT_BYTES,
        });
    }
    if content.trim().is_empty() {
        return Err(Error::invalid("content is empty: a memory needs some text"));
    }
    if let Some(at) = content.find('\0') {
        return Err(Error::invalid(format!(
            "content has a NUL character (\\0) at byte {at}: remove it (no store keeps one)"
        )));
    }
    Ok(())
}

/// Check a score-like value lies in 0..=1.
pub fn validate_unit(name: &str, value: f64) -> Result<()> {
    if !(0.0..=1.0).contains(&value) || value.is_nan() {
        return Err(Error::invalid(format!(
            "{name} must be between 0 and 1, got {value}"
        )));
    }
    Ok(())
}

/// The metadata key of what Cairn derives from a message's text
/// (entities, intents, sentiment, salience): kept with the memory, left
/// out of keyword search.
pub const PARSED_KEY: &str = "parsed";

/// The text of the keyword index's third field: the metadata's values
/// (except [`PARSED_KEY`]'s, which only restate the content, and the
/// conflict links' [`crate::engine::LINK_KEYS`], ids and reasons that are
/// not what the memory says), then the search context. Every backend
/// indexes this text.
pub fn keyword_context(
    metadata: &serde_json::Map<String, serde_json::Value>,
    search_context: Option<&str>,
) -> String {
    let left_out = |k: &str| k == PARSED_KEY || crate::engine::LINK_KEYS.contains(&k);
    let mut text = if metadata.keys().any(|k| left_out(k)) {
        let mut own = metadata.clone();
        own.retain(|k, _| !left_out(k));
        crate::memstore::metadata_text(&own)
    } else {
        crate::memstore::metadata_text(metadata)
    };
    text.push_str(search_context.unwrap_or_default());
    text
}

/// What a memory's vector is made from: its content, and optionally its
/// tags and the entities its content names ([`crate::analysis::entities`]).
///
/// The engine embeds the content and its names ([`EmbedRecipe::NAMES`]):
/// measured on LoCoMo and the evaluation set (docs/BENCHMARKS.md, "What
/// each memory's vector is made from"), the names help the first and are
/// neutral on the second. The names come from the content, so the vector
/// stays a function of what a memory says: dedup and contradiction checks,
/// which compare vectors, stay about the content, never about tags or
/// metadata (those are searched by the keyword index). The other recipes
/// are measured by `cairn-bench locomo|eval --embed-text`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EmbedRecipe {
    /// Add the memory's tags.
    pub tags: bool,
    /// Add the entities its content names.
    pub entities: bool,
}

impl EmbedRecipe {
    /// The content alone.
    pub const CONTENT: EmbedRecipe = EmbedRecipe {
        tags: false,
        entities: false,
    };

    /// The content and the entities it names: the engine's recipe.
    pub const NAMES: EmbedRecipe = EmbedRecipe {
        tags: false,
        entities: true,
    };

    /// The model a store records for vectors made by `embedder` with this
    /// recipe: the embedder's, its name followed by `+tags` and `+names`
    /// for what the recipe adds. A recipe changes the vector space as a
    /// model does, so a store records it: the engine writes a store with
    /// the recipe it records ([`EmbedRecipe::of_model`]) until `cairn
    /// reindex` re-embeds it, and never mixes two. The content alone adds
    /// nothing: such stores keep the embedder's own name.
    pub fn model(self, embedder: ModelInfo) -> ModelInfo {
        let mut name = embedder.name;
        if self.tags {
            name.push_str("+tags");
        }
        if self.entities {
            name.push_str("+names");
        }
        ModelInfo { name, ..embedder }
    }

    /// The recipe whose [`EmbedRecipe::model`] for `embedder` is
    /// `stored`, if any: how a store's vectors were made.
    pub fn of_model(stored: &ModelInfo, embedder: &ModelInfo) -> Option<EmbedRecipe> {
        [false, true]
            .into_iter()
            .flat_map(|tags| [false, true].map(|entities| EmbedRecipe { tags, entities }))
            .find(|r| r.model(embedder.clone()) == *stored)
    }

    /// The text embedded for a memory of `content` and `tags`: the content,
    /// then, when the recipe asks and there are any, a line `Tags: a, b.`
    /// and a line of the entities named (`Names: Ana, Pixel.`). The content
    /// comes first, so a model that truncates long input cuts the
    /// additions, never the content.
    pub fn text<'a>(self, content: &'a str, tags: &[String]) -> Cow<'a, str> {
        let mut lines = Vec::new();
        if self.tags && !tags.is_empty() {
            lines.push(format!("Tags: {}.", tags.join(", ")));
        }
        if self.entities {
            let names: Vec<String> = crate::analysis::extract_entities(content)
                .into_iter()
                .map(|e| e.text)
                .collect();
            if !names.is_empty() {
                lines.push(format!("Names: {}.", names.join(", ")));
            }
        }
        if lines.is_empty() {
            return Cow::Borrowed(content);
        }
        Cow::Owned(format!("{content}\n{}", lines.join("\n")))
    }
}

/// One memory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Memory {
    /// UUIDv7.
    pub id: MemoryId,
    /// Who owns the memory; [`DEFAULT_TENANT`] for a local user.
    pub tenant: String,
    /// The text (UTF-8, at most 1 MiB).
    pub content: String,
    /// What kind of memory this is.
    #[serde(rename = "type")]
    pub kind: MemoryType,
    /// `None` = global; `Some(project)` = visible only within that project.
    pub project: Option<String>,
    /// Lowercase, deduplicated, sorted.
    pub tags: Vec<String>,
    /// A JSON object of anything else.
    pub metadata: serde_json::Map<String, serde_json::Value>,
    /// How important the memory is, 0–1 (default 0.5).
    pub importance: f64,
    /// A multiplier on its recall score (default 1.0; 0.1 once superseded).
    pub weight: f64,
    /// Where the memory came from: manual, import, merge, summary, ...
    pub source: String,
    /// When it was created.
    pub created_at: Timestamp,
    /// When its content, tags or metadata last changed.
    pub updated_at: Timestamp,
    /// When it was last returned by recall/context or read by get.
    pub last_accessed_at: Option<Timestamp>,
    /// How many times it was accessed.
    pub access_count: u64,
    /// When it expires (TTL); expired memories leave recall at once.
    pub expires_at: Option<Timestamp>,
    /// From when what it says holds (defaults to `created_at`).
    pub valid_from: Option<Timestamp>,
    /// Until when what it says held (set when superseded).
    pub valid_to: Option<Timestamp>,
    /// The memory this one replaces.
    pub supersedes: Option<MemoryId>,
    /// The memory that replaced this one.
    pub superseded_by: Option<MemoryId>,
    /// The conversation this memory is a message of, if it is one.
    pub thread: Option<Thread>,
    /// The slot (memcord's named memory collection) this memory is an
    /// entry of, as [`normalize_slot_name`] leaves it; `None`: in no slot.
    pub slot: Option<String>,
    /// Text keyword search reads besides the content, at the weight of
    /// metadata, and that is never shown as what the memory says: a
    /// message's neighbouring messages, so that a reply ("Yes, last
    /// Tuesday") is found by what it answers.
    pub search_context: Option<String>,
}

/// Where a message sits in Memorg's hierarchy: the ids of its session,
/// conversation and topic (records of [`crate::collections::CollectionStore`]).
/// Recall's session, conversation and topic scopes filter on these.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Thread {
    /// The session (by default one per conversation per day).
    pub session: String,
    /// The conversation.
    pub conversation: String,
    /// The topic of the conversation the message belongs to.
    pub topic: String,
}

/// Check a session, conversation or topic id: 1–128 characters, no control
/// characters or `/`, surrounding white space trimmed. `what` names it in
/// the error.
pub fn normalize_thread_id(what: &str, id: &str) -> Result<String> {
    let t = id.trim();
    if t.is_empty() {
        return Err(Error::invalid(format!("{what} id is empty")));
    }
    if t.chars().count() > 128 || t.chars().any(|c| c.is_control() || c == '/') {
        return Err(Error::invalid(format!(
            "{what} id `{t}` is invalid: use at most 128 printable characters, without `/`"
        )));
    }
    Ok(t.to_string())
}

/// The longest slot name, in characters.
pub const MAX_SLOT_NAME: usize = 64;

/// Check a slot name: surrounding white space trimmed, then 1–64 ASCII
/// letters, digits, `-` or `_`. Case is kept (`Notes` and `notes` are two
/// slots). Only ASCII, so that a name is safe wherever a slot is named
/// again (a file, a URL path, a command line) and two names that look the
/// same are the same: `../x`, `a b`, `a/b` and `café` are refused.
pub fn normalize_slot_name(name: &str) -> Result<String> {
    const RULE: &str = "a slot name is 1 to 64 ASCII letters, digits, `-` or `_`";
    let n = name.trim();
    if n.is_empty() {
        return Err(Error::invalid(format!("slot name is empty: {RULE}")));
    }
    let length = n.chars().count();
    if length > MAX_SLOT_NAME {
        return Err(Error::invalid(format!(
            "slot name of {length} characters is too long: {RULE}"
        )));
    }
    if let Some(c) = n
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_'))
    {
        let shown = if c.is_whitespace() || c.is_control() {
            format!("{c:?}")
        } else {
            format!("`{c}`")
        };
        return Err(Error::invalid(format!(
            "slot name `{}` contains {shown}: {RULE}",
            n.escape_default()
        )));
    }
    Ok(n.to_string())
}

impl Memory {
    /// Whether the memory has expired at `now`.
    pub fn is_expired(&self, now: Timestamp) -> bool {
        self.expires_at.is_some_and(|e| e <= now)
    }

    /// The text embedded for this memory by `recipe`: see
    /// [`EmbedRecipe::text`].
    pub fn embedding_text(&self, recipe: EmbedRecipe) -> Cow<'_, str> {
        recipe.text(&self.content, &self.tags)
    }

    /// The text of the keyword index's third field (weighted as
    /// [`crate::rank::BM25_FIELD_WEIGHTS`] says): see [`keyword_context`].
    pub fn keyword_context(&self) -> String {
        keyword_context(&self.metadata, self.search_context.as_deref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_normalisation() {
        assert_eq!(normalize_id_prefix("0193ABCD").unwrap(), "0193abcd");
        assert_eq!(normalize_id_prefix("0193abcd12").unwrap(), "0193abcd-12");
        assert_eq!(
            normalize_id_prefix("0193abcd-1234-7").unwrap(),
            "0193abcd-1234-7"
        );
        assert!(normalize_id_prefix("abc").is_err());
        assert!(normalize_id_prefix("zzzz").is_err());
    }

    #[test]
    fn ids_are_time_ordered_and_round_trip() {
        let a = MemoryId::new_at(1_700_000_000_000);
        let b = MemoryId::new_at(1_700_000_000_001);
        assert!(a < b);
        assert_eq!(a.to_string().parse::<MemoryId>().unwrap(), a);
    }

    #[test]
    fn tags_are_normalised() {
        let t = normalize_tags(["Infra", " infra ", "", "DB"]).unwrap();
        assert_eq!(t, vec!["db".to_string(), "infra".to_string()]);
        assert!(normalize_tags(["a,b"]).is_err());
    }

    #[test]
    fn types_parse_and_map_to_tiers() {
        assert_eq!("Rule".parse::<MemoryType>().unwrap(), MemoryType::Rule);
        assert_eq!(MemoryType::Rule.tier(), Tier::Procedural);
        assert_eq!(MemoryType::Episode.tier(), Tier::Episodic);
        let err = "bogus".parse::<MemoryType>().unwrap_err().to_string();
        assert!(err.contains("fact"), "{err}");
    }

    #[test]
    fn embed_recipes_add_tags_and_names_after_the_content() {
        let content = "Ana adopted a greyhound called Pixel.";
        let tags = ["dogs".to_string(), "family".to_string()];
        let text = |tags_on, entities| {
            EmbedRecipe {
                tags: tags_on,
                entities,
            }
            .text(content, &tags)
        };
        assert!(
            matches!(EmbedRecipe::CONTENT.text(content, &tags), Cow::Borrowed(c) if c == content)
        );
        assert_eq!(text(true, false), format!("{content}\nTags: dogs, family."));
        let names = text(false, true);
        assert!(names.starts_with(&format!("{content}\nNames: ")), "{names}");
        assert!(names.contains("Ana") && names.contains("Pixel"), "{names}");
        let both = text(true, true);
        assert!(both.contains("\nTags: dogs, family.\nNames: "), "{both}");
        // Nothing to add: the content alone.
        let plain = EmbedRecipe {
            tags: true,
            entities: true,
        }
        .text("nothing named here", &[]);
        assert_eq!(plain, "nothing named here");
    }

    #[test]
    fn keyword_context_leaves_out_what_is_parsed() {
        let metadata = serde_json::json!({"speaker": "Ana", "parsed": {"intents": ["question"]}});
        let text = keyword_context(metadata.as_object().unwrap(), Some("the reply"));
        assert!(
            text.contains("Ana") && text.ends_with("the reply"),
            "{text}"
        );
        assert!(!text.contains("question"), "{text}");
    }

    #[test]
    fn slot_names() {
        let (longest, too_long, far_too_long) = ("z".repeat(64), "z".repeat(65), "z".repeat(300));
        let good = [
            ("inbox", "inbox"),
            ("  Project-X_2 ", "Project-X_2"),
            ("a", "a"),
            ("_", "_"),
            ("-draft", "-draft"),
            ("Notes", "Notes"),
            (longest.as_str(), longest.as_str()),
        ];
        for (name, normalised) in good {
            assert_eq!(normalize_slot_name(name).unwrap(), normalised, "{name:?}");
        }
        let bad = [
            ("", "empty"),
            ("   ", "empty"),
            ("../x", "`.`"),
            ("a/b", "`/`"),
            ("a b", "' '"),
            ("tab\there", "'\\t'"),
            ("café", "`é`"),
            ("日本", "`日`"),
            ("a.b", "`.`"),
            ("x\u{0}", "'\\0'"),
            (too_long.as_str(), "65 characters"),
            (far_too_long.as_str(), "300 characters"),
        ];
        for (name, problem) in bad {
            let e = normalize_slot_name(name).unwrap_err();
            assert!(matches!(e, Error::InvalidInput(_)), "{name:?}: {e:?}");
            let text = e.to_string();
            assert!(text.contains(problem), "{name:?}: {text}");
            assert!(text.contains("1 to 64 ASCII letters"), "{name:?}: {text}");
        }
    }

    #[test]
    fn content_limits() {
        assert!(validate_content("x").is_ok());
        assert!(validate_content("   ").is_err());
        let nul = validate_content("a\0b").unwrap_err().to_string();
        assert!(nul.contains("NUL") && nul.contains("byte 1"), "{nul}");
        let big = "a".repeat(MAX_CONTENT_BYTES + 1);
        assert!(matches!(
            validate_content(&big),
            Err(Error::ContentTooLarge { .. })
        ));
    }
}
