//! The formats of other memory systems' exports Cairn reads, and what
//! reading one gives: the contract between the application layer's
//! imports (`api::import_foreign`, `api::slot_import`) and the readers in
//! the `cairn-importers` crate, which an engine is given as an
//! [`Importer`] (`api::EngineBuilder::importer`). The core names the
//! formats and checks what an import writes; it parses none of them.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use crate::wire::{MemoryRecord, MessageRecord};
use crate::{Error, Result};

/// Reads other systems' exports as Cairn records (`cairn-importers`).
pub trait Importer: Send + Sync {
    /// Read `text`, an export of `from`, as Cairn records. Bad items are
    /// skipped and reported in [`Parsed::problems`]; a text that is not that
    /// format at all is an [`Error::InvalidInput`] naming the shape expected.
    fn parse(&self, from: Foreign, text: &str) -> Result<Parsed>;

    /// Whether a file of a folder of `from`'s is one the system keeps beside
    /// its exports, to be passed over, judged by its name.
    fn is_side_file(&self, from: Foreign, name: &str) -> bool;
}

/// A memory system or chat service whose export Cairn reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Foreign {
    /// mem0's `get_all` answer: `{"results": [...]}` or a list.
    Mem0,
    /// Memori's `memori export`: JSON Lines, one memory a line.
    Memori,
    /// mememory's JSON export: a list, or `{"memories": [...]}`.
    Mememory,
    /// One memcord slot file (`memory_slots/<slot>.json`).
    Memcord,
    /// ChatGPT's data export, `conversations.json`.
    ChatGpt,
    /// Claude's data export, `conversations.json`.
    Claude,
}

impl Foreign {
    /// Every format, in the order `--from` lists them.
    pub const ALL: &'static [Foreign] = &[
        Foreign::Mem0,
        Foreign::Memori,
        Foreign::Mememory,
        Foreign::Memcord,
        Foreign::ChatGpt,
        Foreign::Claude,
    ];

    /// The name `--from` takes.
    pub fn as_str(self) -> &'static str {
        match self {
            Foreign::Mem0 => "mem0",
            Foreign::Memori => "memori",
            Foreign::Mememory => "mememory",
            Foreign::Memcord => "memcord",
            Foreign::ChatGpt => "chatgpt",
            Foreign::Claude => "claude",
        }
    }
}

impl fmt::Display for Foreign {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Foreign {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let lower = s.trim().to_ascii_lowercase();
        Foreign::ALL
            .iter()
            .copied()
            .find(|f| f.as_str() == lower)
            .ok_or_else(|| {
                let names: Vec<&str> = Foreign::ALL.iter().map(|f| f.as_str()).collect();
                Error::invalid(format!(
                    "unknown format `{s}` to import from; use one of: {}",
                    names.join(", ")
                ))
            })
    }
}

/// What an export holds, as Cairn records.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Parsed {
    /// Memories, for `cairn import`, in the export's order.
    pub memories: Vec<MemoryRecord>,
    /// Conversation messages, for `cairn conversation import`, each
    /// conversation's in the order they were said.
    pub messages: Vec<MessageRecord>,
    /// The items skipped, and why.
    pub problems: Vec<Problem>,
    /// Slots the export describes (memcord's), each memory of one naming
    /// it in [`MemoryRecord::slot`].
    pub slots: Vec<ForeignSlot>,
}

/// A slot of another system, as a Cairn slot's fields.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ForeignSlot {
    /// Its name, a valid Cairn slot name.
    pub name: String,
    /// What it is for.
    pub description: Option<String>,
    /// Its tags.
    pub tags: Vec<String>,
    /// Its group path.
    pub group: Option<String>,
    /// Its priority, 1 (highest) to 5.
    pub priority: Option<u8>,
}

/// A bad item of an export, skipped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// Which item: a path in the JSON (`results[3]`,
    /// `conversations[1].chat_messages[4]`, zero-based) or a line
    /// (`line 4`, one-based).
    pub at: String,
    /// What is wrong with it.
    pub message: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_ones_list_the_valid() {
        for f in Foreign::ALL {
            assert_eq!(f.as_str().parse::<Foreign>().unwrap(), *f);
            assert_eq!(f.to_string(), f.as_str());
        }
        assert_eq!(" ChatGPT ".parse::<Foreign>().unwrap(), Foreign::ChatGpt);
        let err = "zep".parse::<Foreign>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown format `zep` to import from; use one of: mem0, memori, mememory, memcord, chatgpt, claude"
        );
    }
}
