//! The kinds a memory can be ([`MemoryType`]), the tiers they belong to
//! ([`Tier`]) and the time every record carries ([`Timestamp`]): the
//! vocabulary routing and the context window speak, shared with the core's
//! memory record.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::{Error, Result};

/// Milliseconds since the Unix epoch, UTC. Every time in Cairn is one of these.
pub type Timestamp = i64;

/// The four memory tiers of Memory Vault AI.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    /// Events: what happened, when (episodes).
    Episodic,
    /// Knowledge: facts, preferences, decisions, summaries.
    Semantic,
    /// How to act: rules and procedures. Filled first into a token budget.
    Procedural,
    /// Short-lived task state: context, notes.
    Working,
}

macro_rules! memory_types {
    ($( $(#[$attr:meta])* $variant:ident => $name:literal, $tier:ident, $doc:literal; )*) => {
        /// What kind of thing a memory is. Covers the vocabularies of the seed
        /// systems; each type belongs to one [`Tier`].
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Default, schemars::JsonSchema)]
        #[serde(rename_all = "lowercase")]
        pub enum MemoryType {
            $( #[doc = $doc] $(#[$attr])* $variant, )*
        }

        impl MemoryType {
            /// Every type, in display order.
            pub const ALL: &'static [MemoryType] = &[$(MemoryType::$variant),*];

            /// The lowercase name used on the wire and in the CLI.
            pub fn as_str(self) -> &'static str {
                match self { $(MemoryType::$variant => $name,)* }
            }

            /// The tier this type belongs to.
            pub fn tier(self) -> Tier {
                match self { $(MemoryType::$variant => Tier::$tier,)* }
            }

            /// One line describing the type (for `--help` and MCP descriptions).
            pub fn description(self) -> &'static str {
                match self { $(MemoryType::$variant => $doc,)* }
            }
        }
    };
}

memory_types! {
    Fact => "fact", Semantic, "A fact about the world, the project or the user (semantic).";
    Preference => "preference", Semantic, "How the user likes things done (semantic).";
    Rule => "rule", Procedural, "A rule that must be followed (procedural).";
    Decision => "decision", Semantic, "A decision taken, with its reason (semantic).";
    Feedback => "feedback", Semantic, "Feedback the user gave on work done (semantic).";
    Context => "context", Working, "Background on the current task or situation (working).";
    Episode => "episode", Episodic, "Something that happened at a given time: a turn, an event (episodic).";
    Summary => "summary", Semantic, "A summary of other memories or of a conversation (semantic).";
    Procedure => "procedure", Procedural, "Steps for doing something (procedural).";
    #[default] Note => "note", Working, "A free-form note (working); the default type.";
}

impl fmt::Display for MemoryType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for MemoryType {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let lower = s.trim().to_ascii_lowercase();
        MemoryType::ALL
            .iter()
            .copied()
            .find(|t| t.as_str() == lower)
            .ok_or_else(|| {
                let names: Vec<&str> = MemoryType::ALL.iter().map(|t| t.as_str()).collect();
                Error::invalid(format!(
                    "unknown memory type `{s}`; use one of: {}",
                    names.join(", ")
                ))
            })
    }
}
