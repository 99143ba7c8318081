//! The wire format shared by every front end: the JSON Lines record of
//! `import`/`export` (also the body of every memory in an answer, see
//! [`crate::api::MemoryView`]), and its streaming reader.
//!
//! This is a stable contract (other tools depend on it): fields are only
//! ever added, never renamed. Times are RFC 3339 strings in UTC with
//! milliseconds; `project: null` means a global memory; `slot` is written
//! only for a memory in a slot.

use serde::{Deserialize, Serialize};

use crate::history::DeletionReceipt;
use crate::memory::{
    normalize_project, normalize_slot_name, normalize_tags, normalize_thread_id, validate_content,
    validate_unit, Memory, MemoryId, MemoryType, Thread, Timestamp, MAX_CONTENT_BYTES,
};
use crate::time::{format_timestamp, parse_timestamp};
use crate::{Error, Result};

/// One memory as a JSON object: a line of `cairn export`, a line `cairn
/// import` accepts (where only `content` is required), and the body of a
/// recall result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MemoryRecord {
    /// Full UUID; generated when absent on import.
    #[serde(default)]
    pub id: Option<String>,
    /// The text (required).
    pub content: String,
    /// Memory type name (default `note`).
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
    /// Project name; `null` = global.
    #[serde(default)]
    pub project: Option<String>,
    /// Tags.
    #[serde(default)]
    pub tags: Vec<String>,
    /// A JSON object.
    #[serde(default)]
    pub metadata: Option<serde_json::Map<String, serde_json::Value>>,
    /// 0–1.
    #[serde(default)]
    pub importance: Option<f64>,
    /// Score multiplier.
    #[serde(default)]
    pub weight: Option<f64>,
    /// Origin (`manual`, `import`, ...).
    #[serde(default)]
    pub source: Option<String>,
    /// RFC 3339.
    #[serde(default)]
    pub created_at: Option<String>,
    /// RFC 3339.
    #[serde(default)]
    pub updated_at: Option<String>,
    /// RFC 3339.
    #[serde(default)]
    pub last_accessed_at: Option<String>,
    /// Number of accesses.
    #[serde(default)]
    pub access_count: Option<u64>,
    /// RFC 3339.
    #[serde(default)]
    pub expires_at: Option<String>,
    /// RFC 3339.
    #[serde(default)]
    pub valid_from: Option<String>,
    /// RFC 3339.
    #[serde(default)]
    pub valid_to: Option<String>,
    /// Id of the memory this one replaces.
    #[serde(default)]
    pub supersedes: Option<String>,
    /// Id of the memory that replaced this one.
    #[serde(default)]
    pub superseded_by: Option<String>,
    /// The slot (a named memory collection) the memory is an entry of:
    /// 1–64 ASCII letters, digits, `-` or `_`. Absent: in no slot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slot: Option<String>,
    /// The session of a conversation message (given with `conversation`
    /// and `topic`, or not at all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// The conversation of a message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation: Option<String>,
    /// The topic of a message within its conversation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topic: Option<String>,
    /// Text keyword search reads besides the content (a message's
    /// neighbours), never shown as what the memory says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search_context: Option<String>,
    /// A precomputed embedding (import), or the stored one (export with
    /// embeddings).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub embedding: Option<Vec<f32>>,
}

impl MemoryRecord {
    /// The record of a stored memory.
    pub fn from_memory(m: &Memory) -> Self {
        let ts = |t: Option<Timestamp>| t.map(format_timestamp);
        MemoryRecord {
            id: Some(m.id.to_string()),
            content: m.content.clone(),
            kind: Some(m.kind.as_str().to_string()),
            project: m.project.clone(),
            tags: m.tags.clone(),
            metadata: Some(m.metadata.clone()),
            importance: Some(m.importance),
            weight: Some(m.weight),
            source: Some(m.source.clone()),
            created_at: ts(Some(m.created_at)),
            updated_at: ts(Some(m.updated_at)),
            last_accessed_at: ts(m.last_accessed_at),
            access_count: Some(m.access_count),
            expires_at: ts(m.expires_at),
            valid_from: ts(m.valid_from),
            valid_to: ts(m.valid_to),
            supersedes: m.supersedes.map(|i| i.to_string()),
            superseded_by: m.superseded_by.map(|i| i.to_string()),
            slot: m.slot.clone(),
            session: m.thread.as_ref().map(|t| t.session.clone()),
            conversation: m.thread.as_ref().map(|t| t.conversation.clone()),
            topic: m.thread.as_ref().map(|t| t.topic.clone()),
            search_context: m.search_context.clone(),
            embedding: None,
        }
    }

    /// Validate the record and turn it into a memory of `tenant`; missing
    /// fields get their defaults (`now` for times, `source` = `import`).
    pub fn into_memory(self, tenant: &str, now: Timestamp) -> Result<(Memory, Option<Vec<f32>>)> {
        validate_content(&self.content)?;
        let time = |field: &str, v: &Option<String>| -> Result<Option<Timestamp>> {
            v.as_deref()
                .map(|s| parse_timestamp(s).map_err(|e| Error::invalid(format!("{field}: {e}"))))
                .transpose()
        };
        let id_of = |field: &str, v: &Option<String>| -> Result<Option<MemoryId>> {
            v.as_deref()
                .map(|s| {
                    s.parse()
                        .map_err(|e| Error::invalid(format!("{field}: {e}")))
                })
                .transpose()
        };
        let created_at = time("created_at", &self.created_at)?.unwrap_or(now);
        let kind = match &self.kind {
            Some(k) => k.parse::<MemoryType>()?,
            None => MemoryType::default(),
        };
        let importance = self.importance.unwrap_or(0.5);
        validate_unit("importance", importance)?;
        let weight = self.weight.unwrap_or(1.0);
        if !(0.0..=100.0).contains(&weight) {
            return Err(Error::invalid(format!(
                "weight must be between 0 and 100, got {weight}"
            )));
        }
        let thread = match (&self.session, &self.conversation, &self.topic) {
            (None, None, None) => None,
            (Some(s), Some(c), Some(t)) => Some(Thread {
                session: normalize_thread_id("session", s)?,
                conversation: normalize_thread_id("conversation", c)?,
                topic: normalize_thread_id("topic", t)?,
            }),
            _ => {
                return Err(Error::invalid(
                    "a message's `session`, `conversation` and `topic` come together: give all three or none",
                ))
            }
        };
        if let Some(c) = &self.search_context {
            if c.len() > MAX_CONTENT_BYTES {
                return Err(Error::invalid(format!(
                    "search_context is {} bytes; at most {MAX_CONTENT_BYTES} are allowed",
                    c.len()
                )));
            }
        }
        let memory = Memory {
            id: id_of("id", &self.id)?.unwrap_or_else(|| MemoryId::new_at(created_at)),
            tenant: tenant.to_string(),
            content: self.content,
            kind,
            project: self.project.as_deref().map(normalize_project).transpose()?,
            tags: normalize_tags(&self.tags)?,
            metadata: self.metadata.unwrap_or_default(),
            importance,
            weight,
            source: self.source.unwrap_or_else(|| "import".to_string()),
            created_at,
            updated_at: time("updated_at", &self.updated_at)?.unwrap_or(created_at),
            last_accessed_at: time("last_accessed_at", &self.last_accessed_at)?,
            access_count: self.access_count.unwrap_or(0),
            expires_at: time("expires_at", &self.expires_at)?,
            valid_from: time("valid_from", &self.valid_from)?,
            valid_to: time("valid_to", &self.valid_to)?,
            supersedes: id_of("supersedes", &self.supersedes)?,
            superseded_by: id_of("superseded_by", &self.superseded_by)?,
            thread,
            slot: self.slot.as_deref().map(normalize_slot_name).transpose()?,
            search_context: self.search_context,
        };
        Ok((memory, self.embedding))
    }
}

/// One message of a transcript: a line of `cairn conversation import`, the
/// stable contract other tools write. Only `conversation`, `text` and one
/// of `speaker` / `role` are required.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MessageRecord {
    /// The conversation's id.
    pub conversation: String,
    /// The session's id; by default one per conversation per UTC day.
    #[serde(default)]
    pub session: Option<String>,
    /// Who said it (a name).
    #[serde(default)]
    pub speaker: Option<String>,
    /// Or the role that said it (`user`, `assistant`, `system`).
    #[serde(default)]
    pub role: Option<String>,
    /// What was said.
    pub text: String,
    /// When it was said (RFC 3339); default now.
    #[serde(default)]
    pub at: Option<String>,
    /// The memory id to give it (a UUID): kept as given for the local user,
    /// the tenant's own id for that name for an API key (see SECURITY.md).
    #[serde(default)]
    pub id: Option<String>,
    /// A JSON object of anything else.
    #[serde(default)]
    pub metadata: Option<serde_json::Map<String, serde_json::Value>>,
}

impl MessageRecord {
    /// The message this record describes; the speaker is `speaker`, else
    /// `role` (a record giving both keeps the role in the metadata).
    pub fn into_message(self) -> Result<crate::engine::Message> {
        let mut metadata = self.metadata.unwrap_or_default();
        let speaker = match (self.speaker, self.role) {
            (Some(s), Some(r)) => {
                metadata.insert("role".into(), serde_json::Value::String(r));
                s
            }
            (Some(s), None) | (None, Some(s)) => s,
            (None, None) => return Err(Error::invalid("a message needs a `speaker` or a `role`")),
        };
        Ok(crate::engine::Message {
            conversation: self.conversation,
            session: self.session,
            speaker,
            text: self.text,
            at: self
                .at
                .as_deref()
                .map(|s| parse_timestamp(s).map_err(|e| Error::invalid(format!("at: {e}"))))
                .transpose()?,
            id: self.id.as_deref().map(str::parse).transpose()?,
            metadata,
        })
    }
}

/// What is left of a deleted memory, never its content: in history, and
/// a line of an export (`{"deleted": {...}}`, after the memories), which
/// an import skips.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReceiptRecord {
    /// The memory's id.
    pub id: String,
    /// When it was deleted (RFC 3339).
    pub deleted_at: String,
    /// Who deleted it: an API key's id, `local` or `system`.
    pub actor: String,
    /// `forgotten`, or `expired` (its time to live ran out).
    pub reason: String,
    /// How many versions were erased with it.
    pub versions: usize,
}

impl ReceiptRecord {
    /// The record of a receipt.
    pub fn of(r: &DeletionReceipt) -> Self {
        ReceiptRecord {
            id: r.id.to_string(),
            deleted_at: format_timestamp(r.deletion.at),
            actor: r.deletion.actor.clone(),
            reason: r.deletion.reason.clone(),
            versions: r.versions,
        }
    }

    /// The receipt's line of an export (without its newline).
    pub fn line(&self) -> Result<Vec<u8>> {
        serde_json::to_vec(&ReceiptLine {
            deleted: self.clone(),
        })
        .map_err(|e| Error::storage_from("writing a deletion receipt", e))
    }

    /// Whether `line` is a receipt's line.
    pub fn is_line(line: &str) -> bool {
        serde_json::from_str::<ReceiptLine>(line).is_ok()
    }
}

/// A receipt's line of an export.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ReceiptLine {
    deleted: ReceiptRecord,
}

/// Parse one line of JSON Lines into a record, with an error that names the
/// problem (not the parser's internals).
pub fn parse_record_line(line: &str) -> Result<MemoryRecord> {
    serde_json::from_str::<MemoryRecord>(line)
        .map_err(|e| Error::invalid(format!("not a valid memory record: {e}")))
}

/// Text read and parsed at a time by [`JsonLines`].
const BLOCK_BYTES: usize = 1 << 20;
/// Parsed blocks [`JsonLines`] may hold ahead of whoever takes them: more
/// than an import's write transaction (8,192 pre-embedded records, about
/// 40 MB of text), so that reading goes on while a transaction is written
/// instead of waiting for it.
const BLOCKS_AHEAD: usize = 64;

/// One parsed block, or the read error that ended the text.
enum Block {
    Parsed {
        records: Vec<(usize, Result<MemoryRecord>)>,
        /// Bytes of text read up to the end of this block.
        read: u64,
    },
    Failed(Error),
}

/// Numbered records read from JSON Lines text (`cairn import`'s input).
///
/// A thread of its own reads and parses the text a block (1 MiB) at a
/// time, up to 64 blocks ahead of whoever takes the records:
/// parsing overlaps the import's writing instead of preceding it, and
/// memory holds those blocks, never the whole file. Blank lines and
/// deletion receipts ([`ReceiptRecord`]) are skipped; a line that is not UTF-8 or not a valid record comes out as an
/// error with its line number (the import reports it and goes on, or with
/// `--strict` refuses the file). A read error ends the records;
/// [`JsonLines::finish`] returns it.
pub struct JsonLines {
    blocks: std::sync::mpsc::Receiver<Block>,
    current: std::vec::IntoIter<(usize, Result<MemoryRecord>)>,
    progress: Box<dyn FnMut(u64)>,
    failed: Option<Error>,
    reader: std::thread::JoinHandle<()>,
}

impl JsonLines {
    /// Start reading `reader`; `progress` is told the bytes of text behind
    /// the records handed out so far, as each block is reached.
    pub fn spawn(
        reader: impl std::io::BufRead + Send + 'static,
        progress: Box<dyn FnMut(u64)>,
    ) -> Self {
        Self::with_blocks_of(BLOCK_BYTES, reader, progress)
    }

    fn with_blocks_of(
        block_size: usize,
        reader: impl std::io::BufRead + Send + 'static,
        progress: Box<dyn FnMut(u64)>,
    ) -> Self {
        let (tx, blocks) = std::sync::mpsc::sync_channel(BLOCKS_AHEAD);
        let reader = std::thread::spawn(move || read_blocks(reader, block_size, &tx));
        JsonLines {
            blocks,
            current: Vec::new().into_iter(),
            progress,
            failed: None,
            reader,
        }
    }

    /// After the last record: the read error that ended the text early, if
    /// one did. (Called before the last record, it waits for the reading
    /// thread to notice that nobody listens.)
    pub fn finish(self) -> Result<()> {
        let JsonLines {
            blocks,
            failed,
            reader,
            ..
        } = self;
        if let Some(e) = failed {
            return Err(e);
        }
        drop(blocks);
        // A closed channel is the end of the text, unless the thread died.
        reader
            .join()
            .map_err(|_| Error::invalid("reading the JSON Lines failed (the reader panicked)"))
    }
}

impl Iterator for JsonLines {
    type Item = (usize, Result<MemoryRecord>);

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(record) = self.current.next() {
                return Some(record);
            }
            // A closed channel: the reader is done (or failed, and said so).
            match self.blocks.recv().ok()? {
                Block::Parsed { records, read } => {
                    (self.progress)(read);
                    self.current = records.into_iter();
                }
                Block::Failed(e) => {
                    self.failed = Some(e);
                    return None;
                }
            }
        }
    }
}

/// The body of [`JsonLines`]' thread: read and parse lines into blocks,
/// send each. Stops when the text ends, reading fails, or nobody listens.
fn read_blocks(
    mut reader: impl std::io::BufRead,
    block_size: usize,
    tx: &std::sync::mpsc::SyncSender<Block>,
) {
    let (mut records, mut block_bytes, mut read, mut number) = (Vec::new(), 0, 0u64, 0usize);
    let mut bytes = Vec::new();
    loop {
        bytes.clear();
        let n = match reader.read_until(b'\n', &mut bytes) {
            Ok(n) => n,
            Err(e) => {
                let e = Error::invalid(format!("reading line {}: {e}", number + 1));
                let _ = tx.send(Block::Failed(e));
                return;
            }
        };
        if n > 0 {
            number += 1;
            read += n as u64;
            block_bytes += n;
            match std::str::from_utf8(&bytes) {
                Ok(line) if line.trim().is_empty() => {}
                Ok(line) => match parse_record_line(line) {
                    Err(_) if ReceiptRecord::is_line(line) => {}
                    parsed => records.push((number, parsed)),
                },
                Err(e) => records.push((
                    number,
                    Err(Error::invalid(format!("not valid UTF-8 text ({e})"))),
                )),
            }
        }
        if n == 0 || block_bytes >= block_size {
            let block = Block::Parsed {
                records: std::mem::take(&mut records),
                read,
            };
            if tx.send(block).is_err() {
                return;
            }
            block_bytes = 0;
        }
        if n == 0 {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn many_lines_parse_in_order_with_their_numbers() {
        let text: Vec<String> = (0..2000)
            .map(|i| {
                if i % 97 == 0 {
                    format!("{{\"content\": {i}}}")
                } else {
                    format!("{{\"content\": \"memory {i}\"}}")
                }
            })
            .collect();
        // A blank line after each: the records are lines 1, 3, 5…
        let input: String = text.iter().map(|l| format!("{l}\n\n")).collect();
        let mut lines =
            JsonLines::with_blocks_of(4096, std::io::Cursor::new(input), Box::new(|_| {}));
        let parsed: Vec<_> = lines.by_ref().collect();
        lines.finish().unwrap();
        assert_eq!(parsed.len(), 2000);
        for (i, (n, r)) in parsed.iter().enumerate() {
            assert_eq!(*n, i * 2 + 1);
            match r {
                Ok(r) => assert_eq!(r.content, format!("memory {i}")),
                Err(e) => {
                    assert_eq!(i % 97, 0);
                    assert!(e.to_string().contains("invalid type"), "{e}");
                }
            }
        }
        assert_eq!(parsed.iter().filter(|(_, r)| r.is_err()).count(), 21);
    }

    #[test]
    fn json_lines_come_numbered_across_blocks() {
        let mut text = Vec::new();
        for i in 1..=300 {
            match i % 50 {
                7 => text.extend_from_slice(b"   \n"),
                8 => text.extend_from_slice(b"{\"content\": \"caf\xe9\"}\n"),
                _ => text.extend_from_slice(format!("{{\"content\":\"memory {i}\"}}\n").as_bytes()),
            }
        }
        text.extend_from_slice(b"{\"content\":\"no newline at the end\"}");
        let total = text.len() as u64;
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let progress = seen.clone();
        let mut lines = JsonLines::with_blocks_of(
            100,
            std::io::Cursor::new(text),
            Box::new(move |read| progress.lock().unwrap().push(read)),
        );
        let records: Vec<_> = lines.by_ref().collect();
        lines.finish().unwrap();
        // 301 lines, 6 of them blank.
        assert_eq!(records.len(), 295);
        let numbers: Vec<usize> = records.iter().map(|(n, _)| *n).collect();
        assert!(numbers.windows(2).all(|w| w[0] < w[1]), "{numbers:?}");
        for (n, r) in &records {
            match r {
                Ok(r) if *n == 301 => assert_eq!(r.content, "no newline at the end"),
                Ok(r) => assert_eq!(r.content, format!("memory {n}")),
                Err(e) => {
                    assert_eq!(n % 50, 8);
                    assert!(e.to_string().contains("UTF-8"), "{e}");
                }
            }
        }
        let seen = seen.lock().unwrap();
        assert!(seen.len() > 10, "blocks: {}", seen.len());
        assert!(seen.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(*seen.last().unwrap(), total);
    }

    #[test]
    fn a_read_error_ends_the_records_and_is_returned() {
        struct Failing(std::io::Cursor<Vec<u8>>);
        impl std::io::Read for Failing {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                match self.0.read(buf)? {
                    0 => Err(std::io::Error::other("the disk went away")),
                    n => Ok(n),
                }
            }
        }
        let text = b"{\"content\":\"one\"}\n{\"content\":\"two\"}\n{\"content\":\"thr".to_vec();
        let mut lines = JsonLines::with_blocks_of(
            16,
            std::io::BufReader::new(Failing(std::io::Cursor::new(text))),
            Box::new(|_| {}),
        );
        let records: Vec<_> = lines.by_ref().collect();
        let contents: Vec<_> = records
            .iter()
            .map(|(_, r)| r.as_ref().unwrap().content.as_str())
            .collect();
        assert_eq!(contents, ["one", "two"]);
        let e = lines.finish().unwrap_err().to_string();
        assert!(
            e.contains("line 3") && e.contains("the disk went away"),
            "{e}"
        );
    }

    #[test]
    fn minimal_record_gets_defaults() {
        let r = parse_record_line(r#"{"content":"hello"}"#).unwrap();
        let (m, e) = r.into_memory("default", 1000).unwrap();
        assert_eq!(m.kind, MemoryType::Note);
        assert_eq!(m.created_at, 1000);
        assert_eq!(m.source, "import");
        assert!(e.is_none());
    }

    #[test]
    fn record_round_trips() {
        let r = parse_record_line(
            r#"{"content":"x","type":"fact","project":"atlas","tags":["B","a"],"created_at":"2024-01-02T03:04:05.006Z"}"#,
        )
        .unwrap();
        let (m, _) = r.into_memory("default", 0).unwrap();
        assert_eq!(m.tags, vec!["a", "b"]);
        let back = MemoryRecord::from_memory(&m);
        let (m2, _) = back.clone().into_memory("default", 0).unwrap();
        assert_eq!(m, m2);
        assert_eq!(back.created_at.as_deref(), Some("2024-01-02T03:04:05.006Z"));
    }

    #[test]
    fn a_slot_is_checked_on_import_and_written_only_when_set() {
        let r = parse_record_line(r#"{"content":"x","slot":" work-notes "}"#).unwrap();
        let (m, _) = r.into_memory("default", 0).unwrap();
        assert_eq!(m.slot.as_deref(), Some("work-notes"));
        let line = serde_json::to_string(&MemoryRecord::from_memory(&m)).unwrap();
        assert!(line.contains(r#""slot":"work-notes""#), "{line}");
        let (none, _) = parse_record_line(r#"{"content":"x"}"#)
            .unwrap()
            .into_memory("default", 0)
            .unwrap();
        assert_eq!(none.slot, None);
        let line = serde_json::to_string(&MemoryRecord::from_memory(&none)).unwrap();
        assert!(!line.contains("slot"), "{line}");
        let e = parse_record_line(r#"{"content":"x","slot":"../etc"}"#)
            .unwrap()
            .into_memory("default", 0)
            .unwrap_err()
            .to_string();
        assert!(e.contains("slot name") && e.contains("`.`"), "{e}");
    }

    #[test]
    fn bad_records_name_the_problem() {
        let e = parse_record_line(r#"{"contnet":"x"}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("contnet"), "{e}");
        let e = parse_record_line(r#"{"content":"x","type":"bogus"}"#)
            .unwrap()
            .into_memory("default", 0)
            .unwrap_err()
            .to_string();
        assert!(e.contains("bogus"), "{e}");
        let e = parse_record_line(r#"{"content":"x","created_at":"yesterday"}"#)
            .unwrap()
            .into_memory("default", 0)
            .unwrap_err()
            .to_string();
        assert!(e.contains("created_at"), "{e}");
    }
}
