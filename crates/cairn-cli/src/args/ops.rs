//! Arguments of the commands that run, move or maintain a store.

use std::path::PathBuf;

use clap::Args;

/// `cairn ingest`.
#[derive(Debug, Args)]
pub struct ConsolidateArgs {
    /// Show what would be consolidated without writing anything.
    #[arg(long)]
    pub dry_run: bool,
    /// Every tenant of the store (not with --tenant).
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
    /// How long the lease on the background jobs lasts unrenewed: of the
    /// servers on one store one runs them, and when it dies another takes
    /// over within this and a third of it [default: 30s].
    #[arg(long, env = "CAIRN_JOB_LEASE", value_name = "DURATION")]
    pub job_lease: Option<String>,
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
    /// The URL clients reach this server by (`https://cairn.example`, behind
    /// a proxy), for the OAuth metadata hosted MCP clients sign in with;
    /// default: each request's Host header over http.
    #[arg(long, env = "CAIRN_PUBLIC_URL", value_name = "URL")]
    pub public_url: Option<String>,
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

/// `cairn backup` and `cairn restore`
#[derive(Debug, Args)]
pub struct BackupArgs {
    /// The backup file.
    pub file: PathBuf,
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
