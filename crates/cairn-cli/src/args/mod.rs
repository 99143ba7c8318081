//! Command-line arguments.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

mod actions;
mod memory;
mod ops;

pub use actions::*;
pub use memory::*;
pub use ops::*;

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
    /// The tenant to act for [default: the store's default tenant,
    /// `default`, which `cairn serve --no-auth` and keys made without
    /// --tenant share]. Other tenants stay apart from it.
    #[arg(long, global = true, env = "CAIRN_TENANT", value_name = "NAME")]
    pub tenant: Option<String>,
    /// How far a SQLite commit is on disk when Cairn answers: `normal`
    /// (the default: survives a crash of the process, the last writes may
    /// be lost on a power cut) or `full` (survives a power cut; every
    /// write waits for the disk). See docs/CONFIG.md.
    #[arg(long, global = true, env = "CAIRN_DURABILITY", value_name = "LEVEL")]
    pub durability: Option<String>,
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

const INGEST_EXAMPLES: &str = "Examples:
  cairn ingest notes.md --project atlas --dry-run
  cairn ingest - --tag web < page.html";

const BACKUP_EXAMPLES: &str = "Examples:
  cairn backup ~/cairn-2026-11-27.backup
  cairn --db restored.db restore ~/cairn-2026-11-27.backup";

const SLOT_EXAMPLES: &str = "Examples:
  cairn slot save atlas-dev \"Decided to move the queue to NATS\"
  cairn slot save-progress atlas-dev - < meeting-notes.txt
  cairn slot read atlas-dev
  cairn slot select atlas-dev \"yesterday 15:00\"
  cairn slot export atlas-dev --format md -o atlas-dev.md";

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
    #[command(after_help = INGEST_EXAMPLES)]
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
    /// Copy the whole store into one backup file, while servers and other
    /// commands go on using it.
    ///
    /// Everything is in it: memories with their versions and deletion
    /// receipts, slots, conversations, API keys (their hashes) and
    /// settings, as the store stood at one instant (SQLite's `VACUUM
    /// INTO`; a PostgreSQL store is copied record by record and compared).
    /// The file is a SQLite file readable by its owner only, with each
    /// kind of record's count and SHA-256 in it; it is written as
    /// FILE.partial and renamed to FILE once complete and checked.
    /// `export` is not a backup: it writes memories only.
    #[command(after_help = BACKUP_EXAMPLES)]
    Backup(BackupArgs),
    /// Restore a backup (`cairn backup`) into a new, empty store: SQLite
    /// (`--db NEW`) or PostgreSQL (`--store URL`).
    ///
    /// The backup's records are checked against its checksums first, and
    /// the restored store's checksums against them at the end.
    Restore(BackupArgs),
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
    /// The tenant's settings: show them, or `set` one.
    ///
    /// redact_personal (default on): redact e-mail addresses and phone
    /// numbers from what is written. Keys, tokens and passwords are
    /// redacted whatever it says. Turn it off for a personal store whose
    /// agent should remember how to reach you; keep it on for a store a
    /// team shares.
    Settings {
        #[command(subcommand)]
        action: Option<SettingsAction>,
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
    #[command(after_help = SLOT_EXAMPLES)]
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
