//! One function per command: build a request, call the engine, print.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use anyhow::{Context as _, Result};
use cairn_core::api::{
    self, Caller, ContextInput, ForgetInput, ListInput, ListSort, MemoryView, RecallInput,
    RememberInput, RememberOutput, Selection, UpdateInput,
};
use cairn_core::engine::ConflictAction;
use cairn_core::project::detect_project;
use cairn_core::{
    Cairn, ChatProvider, Embedder, Error, MemoryId, SearchMode, Store, WriteStatus, DEFAULT_TENANT,
    SHORT_ID_MIN,
};
use cairn_sqlite::SqliteStore;
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{Map, Value};

use crate::args::*;
use crate::config::ServeSettings;
use crate::lazy::LazyEmbedder;
use crate::out::{self, paint};

mod maintenance;
mod relevance;
use maintenance::{embed_pending, export, gc, import, reindex, stats};
pub(crate) use relevance::recall;
use relevance::{context, prompt};

/// The tenant `--tenant` names, set once by [`run`] before any command.
static TENANT: OnceLock<String> = OnceLock::new();

/// The tenant the command line acts for: `--tenant`, else the store's
/// default tenant (the one `cairn serve --no-auth` and keys made without
/// `--tenant` use).
pub(crate) fn tenant() -> &'static str {
    TENANT.get().map_or(DEFAULT_TENANT, String::as_str)
}

/// Whether `--tenant` named a tenant.
pub(crate) fn tenant_named() -> Option<String> {
    TENANT.get().cloned()
}

/// The local user: the CLI's `--project` is always explicit.
pub(crate) fn caller() -> Caller {
    Caller::new(tenant())
}

/// The default store file: `$XDG_DATA_HOME/cairn/cairn.db`.
pub fn default_db_path() -> PathBuf {
    dirs::data_dir()
        .unwrap_or_else(|| PathBuf::from("."))
        .join("cairn")
        .join("cairn.db")
}

/// Whether a command may create the store: those that write memories, and
/// servers. The others, given a store that does not exist, say so instead
/// of creating an empty one (a typo in `--db` would look like lost
/// memories). The default store is created by any command.
fn creates_store(command: &Command) -> bool {
    matches!(
        command,
        Command::Remember(_)
            | Command::Ingest(_)
            | Command::Slot {
                action: SlotAction::Save { .. }
                    | SlotAction::SaveProgress { .. }
                    | SlotAction::Create { .. }
                    | SlotAction::Import { .. }
                    | SlotAction::Zero { .. }
            }
            | Command::Supersede(_)
            | Command::Import(_)
            | Command::Conversation {
                action: ConversationAction::Import { .. } | ConversationAction::Log { .. }
            }
            | Command::Mcp(_)
            | Command::Serve(_)
            | Command::Keys {
                action: KeyAction::Create { .. }
            }
            | Command::Settings {
                action: Some(SettingsAction::Set { .. })
            }
    )
}

/// Which store a command line names.
#[derive(Debug, PartialEq)]
pub enum StoreSpec {
    /// A SQLite file.
    Sqlite(PathBuf),
    /// A PostgreSQL database's URL.
    Postgres(String),
}

impl StoreSpec {
    /// `postgres://…` or `postgresql://…` is PostgreSQL; `sqlite:PATH` or
    /// any other text is a SQLite file's path.
    pub fn parse(text: &str) -> StoreSpec {
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            StoreSpec::Postgres(text.to_string())
        } else {
            StoreSpec::Sqlite(PathBuf::from(text.strip_prefix("sqlite:").unwrap_or(text)))
        }
    }
}

/// The store the command line names: `--store`, else `--db`, else none.
pub(crate) fn store_spec(cli: &Cli) -> Result<Option<StoreSpec>> {
    match (&cli.store, &cli.db) {
        (Some(_), Some(_)) => Err(Error::invalid(
            "give the store once: --store (CAIRN_STORE) or --db (CAIRN_DB), not both",
        )
        .into()),
        (Some(text), None) => Ok(Some(StoreSpec::parse(text))),
        (None, Some(path)) => Ok(Some(StoreSpec::parse(&path.to_string_lossy()))),
        (None, None) => Ok(None),
    }
}

/// The PostgreSQL store at `url`. A server (`serving`) starts while the
/// database is unreachable and connects when it can; any other command
/// fails at once.
#[cfg(feature = "postgres")]
fn open_postgres(url: &str, serving: bool) -> Result<Arc<dyn Store>> {
    let options = cairn_postgres::PostgresOptions {
        wait_for_database: serving,
        ..Default::default()
    };
    Ok(Arc::new(cairn_postgres::PostgresStore::open_with(
        url, options,
    )?))
}

#[cfg(not(feature = "postgres"))]
fn open_postgres(_url: &str, _serving: bool) -> Result<Arc<dyn Store>> {
    Err(Error::invalid(
        "this cairn was built without PostgreSQL: rebuild with `--features postgres`",
    )
    .into())
}

/// The store `text` names (see [`StoreSpec::parse`]); a SQLite file is made
/// when `create`, else it must exist.
pub(crate) fn open_store(text: &str, create: bool) -> Result<Arc<dyn Store>> {
    Ok(match StoreSpec::parse(text) {
        StoreSpec::Postgres(url) => open_postgres(&url, false)?,
        StoreSpec::Sqlite(path) if create => Arc::new(SqliteStore::open(path)?),
        StoreSpec::Sqlite(path) => Arc::new(SqliteStore::open_existing(path)?),
    })
}

/// `cairn migrate`: copy, then compare both stores' counts and checksums.
fn migrate(a: MigrateArgs, json: bool) -> Result<()> {
    use cairn_core::migrate::{self, MigrateOptions};
    if StoreSpec::parse(&a.from) == StoreSpec::parse(&a.to) {
        return Err(Error::invalid("--from and --to name the same store").into());
    }
    let from = open_store(&a.from, false)?;
    // A PostgreSQL schema is made when opened: a mistyped one is empty.
    if from.model()?.is_none() && from.tenants(cairn_core::TenantsWith::Anything)?.is_empty() {
        return Err(Error::invalid(format!("{}: the store to copy is empty", a.from)).into());
    }
    let to = open_store(&a.to, true)?;
    let bar = progress_bar(0);
    bar.set_message("migrating");
    let outcome = migrate::migrate(
        &*from,
        &*to,
        MigrateOptions {
            batch: a.batch,
            progress: &mut |done, total| {
                bar.set_length(total as u64);
                bar.set_position(done as u64);
            },
        },
    );
    bar.finish_and_clear();
    let report = outcome?;
    let (source, copy) = (migrate::checksums(&*from)?, migrate::checksums(&*to)?);
    let same = source == copy;
    if json {
        print_json(&serde_json::json!({
            "report": report,
            "source": source,
            "destination": copy,
            "identical": same,
        }))?;
    } else {
        println!(
            "{} {} memories, {} receipts, {} keys, {} collection records ({} memories already there)",
            paint("copied", out::GREEN),
            report.memories,
            report.receipts,
            report.keys,
            report.collections,
            report.skipped
        );
        println!("{:<12} {:>9} {:>9}  sha256", "records", "source", "copy");
        for (s, c) in source.iter().zip(&copy) {
            let mark = if s == c { "=" } else { "DIFFERENT" };
            println!(
                "{:<12} {:>9} {:>9}  {} {mark}",
                s.table,
                s.count,
                c.count,
                &s.sha256[..16]
            );
        }
    }
    if !same {
        return Err(Error::storage(
            "the copy differs from the source (see the table): was either store written to \
             during the migration?",
        )
        .into());
    }
    Ok(())
}

fn open(cli: &Cli) -> Result<Cairn> {
    let durability: Option<cairn_sqlite::Durability> =
        cli.durability.as_deref().map(str::parse).transpose()?;
    let store = match store_spec(cli)? {
        None => SqliteStore::open(default_db_path())?,
        Some(StoreSpec::Postgres(url)) => {
            let serving = matches!(cli.command, Command::Serve(_));
            return engine(cli, open_postgres(&url, serving)?);
        }
        Some(StoreSpec::Sqlite(path)) if creates_store(&cli.command) => SqliteStore::open(path)?,
        Some(StoreSpec::Sqlite(path)) => SqliteStore::open_existing(path)?,
    };
    if let Some(durability) = durability {
        store.set_durability(durability)?;
    }
    engine(cli, Arc::new(store))
}

/// The providers of `cli`: the environment over the configuration file's
/// `[providers]` (docs/CONFIG.md).
pub fn providers(cli: &Cli) -> Result<cairn_providers::ProviderSettings> {
    let config = match &cli.command {
        Command::Serve(a) => a.config.as_deref(),
        _ => None,
    };
    crate::config::provider_settings(config)
}

/// The engine over `store`, with the command line's redaction and the
/// providers configured: an embedding endpoint or a model directory
/// replaces the default model (the store's model check applies as to any
/// embedder); a chat model writes summaries, titles and ingested facts.
fn engine(cli: &Cli, store: Arc<dyn Store>) -> Result<Cairn> {
    let mut providers = providers(cli)?;
    // A store already embedded by the endpoint's model (with any recipe)
    // knows its dimension: no probe, so a command starts (and keeps writes
    // pending) while the endpoint is down.
    if let Some(e) = providers.embed.as_mut().filter(|e| e.dim.is_none()) {
        let name = format!("{}:{}", e.api.as_str(), e.model);
        e.dim = store
            .model()?
            .filter(|m| {
                let endpoint = cairn_core::ModelInfo { name, dim: m.dim };
                cairn_core::EmbedRecipe::of_model(m, &endpoint).is_some()
            })
            .map(|m| m.dim);
    }
    let embedder: Arc<dyn Embedder> = match providers.embedder()? {
        Some(remote) => Arc::new(remote),
        None => Arc::new(LazyEmbedder::new(crate::model::local_model(&providers)?)),
    };
    let chat = providers
        .chat_provider()
        .map(|c| Arc::new(c) as Arc<dyn ChatProvider>);
    Ok(api::EngineBuilder::new(store, embedder)
        .chat(chat)
        .reranker(providers.reranker())
        .importer(Some(Arc::new(cairn_importers::Importers)))
        .redaction(cli.redact.as_deref())
        .conflict_policy(Some(crate::config::conflict_policy(match &cli.command {
            Command::Serve(a) => a.config.as_deref(),
            _ => None,
        })?))
        .environment()?
        .build()?)
}

/// Run a parsed command line.
pub fn run(mut cli: Cli) -> Result<()> {
    if let Some(name) = &cli.tenant {
        let name = api::tenant_name(name)?.to_string();
        TENANT.get_or_init(|| name);
    }
    match cli.command {
        Command::Model { ref action } => return crate::model::model(action, cli.json),
        Command::Init(a) => return crate::serve::init(a),
        Command::Migrate(a) => return migrate(a, cli.json),
        Command::Backup(ref a) => return crate::backup::backup(&cli, &a.file),
        Command::Restore(ref a) => return crate::backup::restore(&cli, &a.file),
        Command::Setup(a) => return crate::serve::setup(cli.db, a),
        // Needs no store: the providers only.
        Command::Providers(ref a) => {
            let cairn = engine(&cli, Arc::new(cairn_core::MemoryStore::new()))?;
            let settings = providers(&cli)?;
            return crate::consolidate::providers(&cairn, &settings.sources, a, cli.json);
        }
        _ => {}
    }
    // A server's settings may name its store.
    let serving = match &cli.command {
        Command::Serve(a) => Some(ServeSettings::resolve(a)?),
        _ => None,
    };
    // The file's store counts when neither `--store` nor `--db` (nor
    // their variables) names one.
    if let Some(store) = serving.as_ref().and_then(|s| s.store.clone()) {
        if cli.store.is_none() && cli.db.is_none() {
            cli.store = Some(store);
        }
    }
    let cairn = open(&cli)?;
    let json = cli.json;
    let store = cairn.store().clone();
    match serving {
        Some(settings) => crate::serve::serve(cairn, settings)?,
        None => run_command(cairn, cli.command, json)?,
    }
    // After the answer is out (or the server stopped): what the next
    // process opens faster with. Failing to save it loses nothing, so it
    // only warns.
    if let Some(Err(e)) = store.maintenance().caches().map(|c| c.save_caches()) {
        eprintln!(
            "{} {e}",
            paint("warning: could not save caches:", out::YELLOW)
        );
    }
    Ok(())
}

fn run_command(cairn: Cairn, command: Command, json: bool) -> Result<()> {
    match command {
        Command::Remember(a) => remember(&cairn, a, json),
        Command::Recall(a) => recall(&cairn, a, json),
        Command::Context(a) => context(&cairn, a, json),
        Command::Prompt(a) => prompt(&cairn, a, json),
        Command::Ingest(a) => crate::ingest::run(&cairn, a, json),
        Command::Get { id } => get(&cairn, &id, json),
        Command::List(a) => list(&cairn, a, json),
        Command::Update(a) => update(&cairn, a, json),
        Command::Tag { id, tags } => tag(&cairn, &id, tags, json),
        Command::History { id, full } => history(&cairn, &id, full, json),
        Command::Revert { id, version } => revert(&cairn, &id, version, json),
        Command::Forget(a) => forget(&cairn, a, json),
        Command::Supersede(a) => supersede(&cairn, a, json),
        Command::Import(a) => import(&cairn, a, json),
        Command::Export(a) => export(&cairn, a),
        Command::Stats => stats(&cairn, json),
        Command::Gc => gc(&cairn, json),
        Command::Reindex { pending: false } => reindex(&cairn, json),
        Command::Reindex { pending: true } => embed_pending(&cairn, json),
        Command::Consolidate(a) => crate::consolidate::run(&cairn, a, json),
        Command::Mcp(a) => crate::serve::mcp(cairn, a),
        Command::Serve(_) => unreachable!("served by `run`"),
        Command::Keys { action } => crate::keys::run(&cairn, action, tenant_named(), json),
        Command::Settings { action } => crate::keys::settings(&cairn, action, json),
        Command::Conversation { action } => crate::conversation::run(&cairn, action, json),
        Command::Slot { action } => crate::slot::run(&cairn, action, json),
        Command::Model { .. }
        | Command::Init(_)
        | Command::Setup(_)
        | Command::Migrate(_)
        | Command::Backup(_)
        | Command::Restore(_)
        | Command::Providers(_) => {
            unreachable!("handled above")
        }
    }
}

pub(crate) fn print_json(v: &impl serde::Serialize) -> Result<()> {
    let mut stdout = std::io::stdout().lock();
    serde_json::to_writer(&mut stdout, v)?;
    writeln!(stdout)?;
    Ok(())
}

/// Join words given on the command line; `-` alone reads stdin.
pub(crate) fn text_arg(words: &[String]) -> Result<String> {
    if words.len() == 1 && words[0] == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .context("reading stdin")?;
        Ok(s.trim_end_matches('\n').to_string())
    } else {
        Ok(words.join(" "))
    }
}

fn parse_meta(pairs: &[String], json: Option<&str>) -> Result<Map<String, Value>> {
    let mut map = match json {
        Some(j) => match serde_json::from_str::<Value>(j) {
            Ok(Value::Object(o)) => o,
            _ => {
                return Err(
                    Error::invalid(format!("--metadata must be a JSON object, got `{j}`")).into(),
                )
            }
        },
        None => Map::new(),
    };
    for pair in pairs {
        let (k, v) = pair
            .split_once('=')
            .ok_or_else(|| Error::invalid(format!("--meta takes KEY=VALUE, got `{pair}`")))?;
        if k.trim().is_empty() {
            return Err(Error::invalid(format!("--meta `{pair}` has an empty key")).into());
        }
        let value = if v.is_empty() {
            Value::Null
        } else {
            Value::String(v.to_string())
        };
        map.insert(k.trim().to_string(), value);
    }
    Ok(map)
}

/// The selection of a command's filter flags.
fn selection(f: &FilterArgs) -> Selection {
    Selection {
        // `--global` overrides a project set by CAIRN_PROJECT.
        project: if f.scope.global {
            None
        } else {
            f.scope.project.clone()
        },
        global: f.scope.global,
        all_projects: f.scope.all_projects,
        types: f.types.clone(),
        tags: f.tags.clone(),
        sources: f.sources.clone(),
        since: f.since.clone(),
        until: f.until.clone(),
        valid_at: f.valid_at.clone(),
        as_of: f.as_of.clone(),
        include_expired: f.include_expired,
        include_superseded: f.include_superseded,
        only_superseded: f.only_superseded,
        include_consolidated: f.include_consolidated,
        session: f.session.clone(),
        conversation: f.conversation.clone(),
        topic: f.topic.clone(),
        slots: f.slots.clone(),
        include_archived: f.include_archived,
    }
}

/// Unique prefixes of one width for a table, as every front end shows
/// them ([`SHORT_ID_MIN`]+ characters), in one store call.
fn shorts(cairn: &Cairn, ids: &[MemoryId]) -> Result<Vec<String>> {
    Ok(cairn.short_ids(tenant(), ids, SHORT_ID_MIN)?)
}

/// [`shorts`] of ids given as text; one that is not an id stays whole.
pub(crate) fn short_texts(cairn: &Cairn, ids: &[&str]) -> Vec<String> {
    let parsed: Vec<MemoryId> = ids.iter().filter_map(|id| id.parse().ok()).collect();
    let mut shorts = shorts(cairn, &parsed).unwrap_or_default().into_iter();
    ids.iter()
        .map(|id| match id.parse::<MemoryId>() {
            Ok(_) => shorts.next().unwrap_or_else(|| id.to_string()),
            Err(_) => id.to_string(),
        })
        .collect()
}

fn short(cairn: &Cairn, id: &str) -> String {
    short_texts(cairn, &[id]).remove(0)
}

fn ids_of(views: &[MemoryView]) -> Vec<MemoryId> {
    views.iter().filter_map(|v| v.id().parse().ok()).collect()
}

fn remember(cairn: &Cairn, a: RememberArgs, json: bool) -> Result<()> {
    let input = RememberInput {
        content: text_arg(&a.content)?,
        kind: a.kind,
        project: a.project,
        global: false,
        tags: Some(a.tags),
        metadata: Some(parse_meta(&a.meta, a.metadata.as_deref())?),
        importance: a.importance,
        ttl: a.ttl,
        supersedes: a.supersedes,
        dedup: Some(!a.no_dedup),
        conflicts: a.conflicts,
        source: a.source,
        redact: Some(!a.no_redact),
    };
    let out = api::remember(cairn, &caller(), input)?;
    if json {
        return print_json(&out);
    }
    print_remembered(cairn, &out);
    Ok(())
}

fn print_remembered(cairn: &Cairn, out: &RememberOutput) {
    match out.status {
        WriteStatus::Created => {
            println!(
                "{} {}",
                paint("remembered", out::GREEN),
                short(cairn, &out.id)
            )
        }
        WriteStatus::Pending => println!(
            "{} {} (the embedding endpoint failed; stored when it answers: `cairn reindex --pending`, or `cairn serve` in the background)",
            paint("kept pending", out::YELLOW),
            out.id
        ),
        WriteStatus::Deduplicated => println!(
            "{} into {} (a near-identical memory existed{}; content replaced, tags merged)",
            paint("deduplicated", out::YELLOW),
            short(cairn, &out.id),
            out.dedup
                .map(|d| format!(": similarity {:.2} ≥ {:.2}", d.similarity, d.threshold))
                .unwrap_or_default()
        ),
    }
    if !out.redacted.is_empty() {
        let kinds: Vec<String> = out
            .redacted
            .iter()
            .map(|(kind, n)| format!("{n} {kind}"))
            .collect();
        println!(
            "{} {} (stored as [REDACTED:kind]; --no-redact keeps the text as given)",
            paint("redacted", out::YELLOW),
            kinds.join(", ")
        );
        if out.redacted.keys().any(|k| k == "email" || k == "phone") {
            println!("  e-mail addresses and phone numbers are kept from now on after `cairn settings set redact_personal off`");
        }
    }
    if let Some(old) = &out.superseded {
        println!(
            "superseded {} (weight 0.1, hidden from recall)",
            short(cairn, old)
        );
    }
    for c in &out.conflicts {
        println!(
            "{} {} [{}] {} ({}; {})",
            paint("conflicts with", out::YELLOW),
            c.short_id,
            c.kind,
            c.content,
            c.reason,
            match c.action {
                ConflictAction::Flagged => "flagged only",
                ConflictAction::Contested => "marked contested, ranked below the new one",
                ConflictAction::Superseded => "superseded, hidden from recall",
            }
        );
    }
    if !out.similar.is_empty() {
        println!(
            "{} similar memories exist; if one is now wrong, `cairn supersede` or `cairn forget` it:",
            paint("note:", out::YELLOW)
        );
        for s in &out.similar {
            println!(
                "  {}  {:.2}  {}",
                short(cairn, &s.id),
                s.similarity,
                out::one_line(&s.content, 80)
            );
        }
    }
}

fn get(cairn: &Cairn, id: &str, json: bool) -> Result<()> {
    let view = api::get(cairn, &caller(), id)?;
    if json {
        return print_json(&view);
    }
    out::memory_detail(&view, &short(cairn, view.id()));
    Ok(())
}

fn history(cairn: &Cairn, id: &str, full: bool, json: bool) -> Result<()> {
    let out = api::history(cairn, &caller(), id)?;
    if json {
        return print_json(&out);
    }
    out::history(&out, full);
    Ok(())
}

fn revert(cairn: &Cairn, id: &str, version: u32, json: bool) -> Result<()> {
    let out = api::revert(cairn, &caller(), id, api::RevertInput { version })?;
    if json {
        return print_json(&out);
    }
    println!(
        "restored version {} of {} as version {}",
        out.restored, out.memory.short_id, out.version
    );
    Ok(())
}

fn list(cairn: &Cairn, a: ListArgs, json: bool) -> Result<()> {
    let sort = match a.sort {
        Sort::Newest => ListSort::Newest,
        Sort::Oldest => ListSort::Oldest,
        Sort::Updated => ListSort::Updated,
        Sort::Accessed => ListSort::Accessed,
        Sort::Stale => ListSort::Stale,
        Sort::Id => ListSort::Id,
        Sort::Expiring => ListSort::Expiring,
    };
    let input = ListInput {
        selection: selection(&a.filter),
        sort: Some(format!("{sort:?}").to_lowercase()),
        limit: a.limit,
        offset: a.offset,
        cursor: a.cursor,
    };
    let all = ListInput {
        selection: Selection {
            all_projects: true,
            project: None,
            global: false,
            ..input.selection.clone()
        },
        limit: Some(1),
        offset: None,
        cursor: None,
        sort: None,
    };
    let out = api::list(cairn, &caller(), input)?;
    if json {
        return print_json(&out);
    }
    // Global memories only, by default: say so when projects hold more.
    let in_projects = match out.scope.as_str() {
        "global" => api::list(cairn, &caller(), all)?
            .total
            .saturating_sub(out.total),
        _ => 0,
    };
    let why = (in_projects > 0).then(|| {
        format!(
            "global memories only: {in_projects} in projects (--project NAME, or --all-projects)"
        )
    });
    if out.memories.is_empty() {
        println!(
            "no memories{}",
            why.map(|w| format!(" ({w})")).unwrap_or_default()
        );
        return Ok(());
    }
    let ids = shorts(cairn, &ids_of(&out.memories))?;
    out::table(
        &["ID", "TYPE", "SCOPE", "TAGS", "UPDATED", "CONTENT"],
        &out::memory_rows(&out.memories, &ids, cairn.now()),
    );
    if out.next_offset.is_some() {
        println!(
            "{}",
            paint(
                &format!(
                    "{} of {} shown (--limit, --offset{})",
                    out.memories.len(),
                    out.total,
                    if sort == ListSort::Id {
                        ", --cursor"
                    } else {
                        ""
                    }
                ),
                out::DIM
            )
        );
    }
    if let Some(why) = why {
        println!("{}", paint(&why, out::DIM));
    }
    Ok(())
}

fn update(cairn: &Cairn, a: UpdateArgs, json: bool) -> Result<()> {
    let meta = parse_meta(&a.meta, None)?;
    let input = UpdateInput {
        content: a.content.map(|c| text_arg(&[c])).transpose()?,
        kind: a.kind,
        project: a.project,
        global: a.global,
        tags: (!a.tags.is_empty()).then_some(a.tags),
        add_tags: a.add_tags,
        remove_tags: a.remove_tags,
        metadata: (!meta.is_empty()).then_some(meta),
        importance: a.importance,
        weight: a.weight,
        ttl: a.ttl,
        clear_ttl: a.no_ttl,
    };
    let out = api::update(cairn, &caller(), &a.id, input)?;
    if json {
        return print_json(&out);
    }
    println!(
        "{} {}",
        paint("updated", out::GREEN),
        short(cairn, out.memory.id())
    );
    Ok(())
}

fn tag(cairn: &Cairn, id: &str, tags: Vec<String>, json: bool) -> Result<()> {
    let (remove, add): (Vec<String>, Vec<String>) =
        tags.into_iter().partition(|t| t.starts_with('-'));
    let input = UpdateInput {
        add_tags: add
            .into_iter()
            .map(|t| t.trim_start_matches('+').to_string())
            .collect(),
        remove_tags: remove.into_iter().map(|t| t[1..].to_string()).collect(),
        ..Default::default()
    };
    let out = api::update(cairn, &caller(), id, input)?;
    if json {
        return print_json(&out);
    }
    let tags = &out.memory.record.tags;
    println!(
        "{} {}: {}",
        paint("tagged", out::GREEN),
        short(cairn, out.memory.id()),
        if tags.is_empty() {
            "(no tags)".into()
        } else {
            tags.join(", ")
        }
    );
    Ok(())
}

fn forget(cairn: &Cairn, a: ForgetArgs, json: bool) -> Result<()> {
    let input = ForgetInput {
        ids: a.ids,
        selection: selection(&a.filter),
        confirm: a.yes,
    };
    let out = api::forget(cairn, &caller(), input)?;
    if json {
        return print_json(&out);
    }
    match out.would_forget {
        Some(n) => println!(
            "{} match (scope: {}); nothing deleted. Run again with --yes to delete {}.",
            api::plural(n, "memory", "memories"),
            out.scope.as_deref().unwrap_or("all"),
            if n == 1 { "it" } else { "them" }
        ),
        None => println!(
            "{} {}",
            paint("forgot", out::GREEN),
            api::plural(out.forgotten, "memory", "memories")
        ),
    }
    Ok(())
}

fn supersede(cairn: &Cairn, a: SupersedeArgs, json: bool) -> Result<()> {
    let input = RememberInput {
        content: text_arg(&a.content)?,
        kind: a.kind,
        tags: Some(a.tags),
        supersedes: Some(a.old),
        ..Default::default()
    };
    let out = api::remember(cairn, &caller(), input)?;
    if json {
        return print_json(&out);
    }
    println!(
        "{} {} with {}",
        paint("superseded", out::GREEN),
        short(cairn, out.superseded.as_deref().unwrap_or_default()),
        short(cairn, &out.id)
    );
    Ok(())
}

/// A bar over `len` bytes of input (a spinner when the length is unknown).
pub(crate) fn bytes_bar(len: Option<u64>) -> ProgressBar {
    match len {
        Some(len) => styled(
            ProgressBar::new(len),
            "{spinner} {msg} [{bar:30}] {bytes}/{total_bytes} ({bytes_per_sec}, eta {eta})",
        ),
        None => styled(
            ProgressBar::no_length(),
            "{spinner} {msg} {bytes} read ({bytes_per_sec})",
        ),
    }
}

/// A bar over `len` items.
fn progress_bar(len: u64) -> ProgressBar {
    styled(
        ProgressBar::new(len),
        "{spinner} {msg} [{bar:30}] {pos}/{len} ({per_sec}, eta {eta})",
    )
}

/// `bar` drawn with `template`, or hidden when stderr is not a terminal.
pub(crate) fn styled(bar: ProgressBar, template: &str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    bar.set_style(
        ProgressStyle::with_template(template)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar
}

/// A JSON Lines input: stdin for `-`, else the file, with its size when
/// known (for a progress bar).
pub(crate) fn open_lines(file: &Path) -> Result<(Box<dyn BufRead + Send>, Option<u64>)> {
    if file.as_os_str() == "-" {
        return Ok((Box::new(BufReader::new(std::io::stdin())), None));
    }
    let f = File::open(file)
        .map_err(|e| Error::invalid(format!("cannot read {}: {e}", file.display())))?;
    let meta = f.metadata().ok();
    if meta.as_ref().is_some_and(|m| m.is_dir()) {
        return Err(Error::invalid(format!(
            "cannot read {}: it is a directory, not a JSON Lines file",
            file.display()
        ))
        .into());
    }
    let size = meta.map(|m| m.len());
    Ok((Box::new(BufReader::new(f)), size))
}
