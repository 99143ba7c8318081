//! One function per command: build a request, call the engine, print.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, IsTerminal, Read, Write};
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context as _, Result};
use cairn_core::context::ContextRequest;
use cairn_core::store::{Filter, ListOrder, ScopeFilter};
use cairn_core::time::{format_timestamp, parse_duration, parse_timestamp};
use cairn_core::wire::{JsonLines, MemoryRecord, RecallItem, RecallResponse};
use cairn_core::{
    Cairn, Error, MemoryType, RecallRequest, RememberRequest, SearchMode, Store, UpdateRequest,
    WriteStatus, DEFAULT_TENANT,
};
use cairn_sqlite::SqliteStore;
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{Map, Value};

use crate::args::*;
use crate::lazy::LazyMiniLm;
use crate::out::{self, paint};

/// The local user's tenant.
const TENANT: &str = DEFAULT_TENANT;

/// The default store file: `$XDG_DATA_HOME/cairn/cairn.db`.
pub fn default_db_path() -> PathBuf {
    dirs::data_dir()
        .unwrap_or_else(|| PathBuf::from("."))
        .join("cairn")
        .join("cairn.db")
}

fn open(cli: &Cli) -> Result<Cairn> {
    let path = cli.db.clone().unwrap_or_else(default_db_path);
    let store: Arc<dyn Store> = Arc::new(SqliteStore::open(&path)?);
    let embedder = Arc::new(LazyMiniLm::new(cairn_embed::default_model_dir()));
    Ok(Cairn::new(store, embedder))
}

/// Run a parsed command line.
pub fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Model { ref action } => return model(action, cli.json),
        Command::Init(a) => return crate::serve::init(a),
        Command::Setup(a) => return crate::serve::setup(cli.db, a),
        _ => {}
    }
    let cairn = open(&cli)?;
    let json = cli.json;
    let store = cairn.store().clone();
    run_command(cairn, cli.command, json)?;
    // After the answer is out (or the server stopped): what the next
    // process opens faster with. Failing to save it loses nothing, so it
    // only warns.
    if let Err(e) = store.save_caches() {
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
        Command::Get { id } => get(&cairn, &id, json),
        Command::List(a) => list(&cairn, a, json),
        Command::Update(a) => update(&cairn, a, json),
        Command::Tag { id, tags } => tag(&cairn, &id, tags, json),
        Command::Forget(a) => forget(&cairn, a, json),
        Command::Supersede(a) => supersede(&cairn, a, json),
        Command::Import(a) => import(&cairn, a, json),
        Command::Export(a) => export(&cairn, a),
        Command::Stats => stats(&cairn, json),
        Command::Gc => gc(&cairn, json),
        Command::Reindex => reindex(&cairn, json),
        Command::Mcp(a) => crate::serve::mcp(cairn, a),
        Command::Serve(a) => crate::serve::serve(cairn, a),
        Command::Model { .. } | Command::Init(_) | Command::Setup(_) => {
            unreachable!("handled above")
        }
    }
}

/// The shortest unique prefix of an id, for humans.
fn short(cairn: &Cairn, id: cairn_core::MemoryId) -> String {
    cairn
        .short_id(TENANT, id)
        .unwrap_or_else(|_| id.to_string())
}

fn print_json(v: &impl serde::Serialize) -> Result<()> {
    let mut stdout = std::io::stdout().lock();
    serde_json::to_writer(&mut stdout, v)?;
    writeln!(stdout)?;
    Ok(())
}

/// Join words given on the command line; `-` alone reads stdin.
fn text_arg(words: &[String]) -> Result<String> {
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

fn scope_of(s: &ScopeArgs) -> ScopeFilter {
    match (&s.project, s.all_projects) {
        (_, true) => ScopeFilter::All,
        (Some(p), false) => ScopeFilter::Project(p.trim().to_string()),
        (None, false) => ScopeFilter::Global,
    }
}

fn types_of(types: &[String]) -> Result<Vec<MemoryType>> {
    Ok(types
        .iter()
        .map(|t| t.parse())
        .collect::<cairn_core::Result<_>>()?)
}

fn time_arg(v: &Option<String>) -> Result<Option<i64>> {
    Ok(v.as_deref().map(parse_timestamp).transpose()?)
}

fn filter_of(cairn: &Cairn, f: &FilterArgs) -> Result<Filter> {
    let mut filter = cairn.filter(TENANT).scope(scope_of(&f.scope));
    filter.types = types_of(&f.types)?;
    filter.tags = cairn_core::memory::normalize_tags(&f.tags)?;
    filter.created_after = time_arg(&f.since)?;
    filter.created_before = time_arg(&f.until)?;
    if let Some(at) = time_arg(&f.valid_at)? {
        filter.valid_after = Some(at);
        filter.valid_before = Some(at + 1);
    }
    filter.include_expired = f.include_expired;
    filter.include_superseded = f.include_superseded;
    Ok(filter)
}

fn remember(cairn: &Cairn, a: RememberArgs, json: bool) -> Result<()> {
    let mut req = RememberRequest::new(TENANT, text_arg(&a.content)?);
    req.kind = a.kind.parse()?;
    req.project = a.project;
    req.tags = a.tags;
    req.metadata = parse_meta(&a.meta, a.metadata.as_deref())?;
    req.metadata.retain(|_, v| !v.is_null());
    req.importance = a.importance;
    req.ttl_ms = a.ttl.as_deref().map(parse_duration).transpose()?;
    req.supersedes = a.supersedes;
    req.dedup = !a.no_dedup;
    req.source = a.source;
    let outcome = cairn.remember(req)?;
    if json {
        return print_json(&outcome);
    }
    match outcome.status {
        WriteStatus::Created => println!(
            "{} {}",
            paint("remembered", out::GREEN),
            short(cairn, outcome.id)
        ),
        WriteStatus::Deduplicated => println!(
            "{} into {} (a near-identical memory existed; content replaced, tags merged)",
            paint("deduplicated", out::YELLOW),
            short(cairn, outcome.id)
        ),
    }
    if let Some(old) = outcome.superseded {
        println!(
            "superseded {} (weight 0.1, hidden from recall)",
            short(cairn, old)
        );
    }
    if !outcome.similar.is_empty() {
        println!(
            "{} similar memories exist; if one is now wrong, `cairn supersede` or `cairn forget` it:",
            paint("note:", out::YELLOW)
        );
        for s in &outcome.similar {
            println!(
                "  {}  {:.2}  {}",
                short(cairn, s.id),
                s.similarity,
                out::one_line(&s.content, 80)
            );
        }
    }
    Ok(())
}

fn recall(cairn: &Cairn, a: RecallArgs, json: bool) -> Result<()> {
    let req = RecallRequest {
        query: a.query.join(" "),
        filter: filter_of(cairn, &a.filter)?,
        limit: a.limit,
        mode: match a.mode {
            Mode::Hybrid => SearchMode::Hybrid,
            Mode::Keyword => SearchMode::Keyword,
            Mode::Semantic => SearchMode::Semantic,
        },
    };
    let results = cairn.recall(&req)?;
    if json {
        let response = RecallResponse {
            results: results
                .iter()
                .map(|r| RecallItem {
                    memory: MemoryRecord::from_memory(&r.memory),
                    short_id: short(cairn, r.memory.id),
                    score: r.explain.score,
                    explain: a.explain.then(|| r.explain.clone()),
                })
                .collect(),
        };
        return print_json(&response);
    }
    if results.is_empty() {
        println!("no memories match");
        return Ok(());
    }
    let rows: Vec<Vec<String>> = results
        .iter()
        .map(|r| {
            let m = &r.memory;
            vec![
                short(cairn, m.id),
                format!("{:.4}", r.explain.score),
                m.kind.to_string(),
                m.project.clone().unwrap_or_else(|| "(global)".into()),
                out::one_line(&m.content, 80),
            ]
        })
        .collect();
    out::table(&["ID", "SCORE", "TYPE", "SCOPE", "CONTENT"], &rows);
    if a.explain {
        println!();
        let rank = |r: Option<usize>| r.map_or("-".to_string(), |r| r.to_string());
        let rows: Vec<Vec<String>> = results
            .iter()
            .map(|r| {
                let e = &r.explain;
                vec![
                    short(cairn, r.memory.id),
                    rank(e.bm25_rank),
                    e.bm25_score.map_or("-".into(), |s| format!("{s:.3}")),
                    rank(e.vector_rank),
                    e.cosine.map_or("-".into(), |c| format!("{c:.3}")),
                    format!("{:.5}", e.rrf),
                    format!("{:.3}", e.boost),
                    format!("{:.3}", e.decay),
                    format!("{:.1}", e.scope_weight),
                    format!("{:.2}", e.weight),
                    format!("{:.5}", e.score),
                ]
            })
            .collect();
        out::table(
            &[
                "ID", "BM25#", "BM25", "VEC#", "COSINE", "RRF", "BOOST", "DECAY", "SCOPE",
                "WEIGHT", "SCORE",
            ],
            &rows,
        );
    }
    Ok(())
}

fn context(cairn: &Cairn, a: ContextArgs, json: bool) -> Result<()> {
    let topic = (!a.topic.is_empty()).then(|| a.topic.join(" "));
    let project = match a.project {
        Some(p) => Some(p),
        None if a.auto_project => std::env::current_dir()
            .ok()
            .and_then(|d| cairn_mcp::project::detect_project(&d))
            .map(|d| d.name),
        None => None,
    };
    if a.budget < 50 {
        return Err(Error::invalid(format!(
            "--budget {} is too small: give at least 50 tokens",
            a.budget
        ))
        .into());
    }
    let pack = cairn.context(&ContextRequest {
        tenant: TENANT.into(),
        topic,
        project: project.map(|p| p.trim().to_string()),
        budget: a.budget,
    })?;
    if json || a.format == ContextFormat::Json {
        print_json(&pack)
    } else {
        print!("{}", pack.markdown);
        Ok(())
    }
}

fn get(cairn: &Cairn, id: &str, json: bool) -> Result<()> {
    let m = cairn.get(TENANT, id)?;
    if json {
        return print_json(&MemoryRecord::from_memory(&m));
    }
    out::memory_detail(&m);
    Ok(())
}

fn list(cairn: &Cairn, a: ListArgs, json: bool) -> Result<()> {
    let filter = filter_of(cairn, &a.filter)?;
    let order = match a.sort {
        Sort::Newest => ListOrder::Newest,
        Sort::Oldest => ListOrder::Oldest,
        Sort::Updated => ListOrder::RecentlyUpdated,
        Sort::Accessed => ListOrder::MostAccessed,
        Sort::Stale => ListOrder::Stalest,
    };
    let list = cairn.list(&filter, order, a.limit, a.offset)?;
    if json {
        let records: Vec<MemoryRecord> = list.iter().map(MemoryRecord::from_memory).collect();
        return print_json(&serde_json::json!({ "memories": records }));
    }
    if list.is_empty() {
        println!("no memories");
        return Ok(());
    }
    let total = cairn.store().count(&filter)?;
    out::table(
        &["ID", "TYPE", "SCOPE", "TAGS", "UPDATED", "CONTENT"],
        &out::memory_rows(&list, cairn.now(), |id| short(cairn, id)),
    );
    if total > list.len() + a.offset {
        println!(
            "{}",
            paint(
                &format!("{} of {total} shown (--limit, --offset)", list.len()),
                out::DIM
            )
        );
    }
    Ok(())
}

fn print_memory_result(
    cairn: &Cairn,
    m: &cairn_core::Memory,
    verb: &str,
    json: bool,
) -> Result<()> {
    if json {
        return print_json(&MemoryRecord::from_memory(m));
    }
    println!("{} {}", paint(verb, out::GREEN), short(cairn, m.id));
    Ok(())
}

fn update(cairn: &Cairn, a: UpdateArgs, json: bool) -> Result<()> {
    let meta = parse_meta(&a.meta, None)?;
    let req = UpdateRequest {
        content: a.content.map(|c| text_arg(&[c])).transpose()?,
        kind: a.kind.as_deref().map(str::parse).transpose()?,
        project: if a.global {
            Some(None)
        } else {
            a.project.map(Some)
        },
        tags: (!a.tags.is_empty()).then_some(a.tags),
        add_tags: a.add_tags,
        remove_tags: a.remove_tags,
        metadata: (!meta.is_empty()).then_some(meta),
        importance: a.importance,
        weight: a.weight,
        ttl_ms: a.ttl.as_deref().map(parse_duration).transpose()?,
        clear_ttl: a.no_ttl,
    };
    let m = cairn.update(TENANT, &a.id, req)?;
    print_memory_result(cairn, &m, "updated", json)
}

fn tag(cairn: &Cairn, id: &str, tags: Vec<String>, json: bool) -> Result<()> {
    let (remove, add): (Vec<String>, Vec<String>) =
        tags.into_iter().partition(|t| t.starts_with('-'));
    let req = UpdateRequest {
        add_tags: add
            .into_iter()
            .map(|t| t.trim_start_matches('+').to_string())
            .collect(),
        remove_tags: remove.into_iter().map(|t| t[1..].to_string()).collect(),
        ..Default::default()
    };
    let m = cairn.update(TENANT, id, req)?;
    if json {
        return print_json(&MemoryRecord::from_memory(&m));
    }
    println!(
        "{} {}: {}",
        paint("tagged", out::GREEN),
        short(cairn, m.id),
        if m.tags.is_empty() {
            "(no tags)".into()
        } else {
            m.tags.join(", ")
        }
    );
    Ok(())
}

fn forget(cairn: &Cairn, a: ForgetArgs, json: bool) -> Result<()> {
    let has_filter = a.filter.scope.project.is_some()
        || a.filter.scope.all_projects
        || !a.filter.types.is_empty()
        || !a.filter.tags.is_empty()
        || a.filter.since.is_some()
        || a.filter.until.is_some();
    let ids = match (a.ids.is_empty(), has_filter) {
        (false, false) => cairn.forget(TENANT, &a.ids)?,
        (true, true) => {
            let mut filter = filter_of(cairn, &a.filter)?;
            // Forgetting in a project means that project's memories only,
            // never the global ones a recall there would also see.
            if let ScopeFilter::Project(p) = &filter.scope {
                filter.scope = ScopeFilter::Exactly(Some(p.clone()));
            }
            if !a.yes {
                let n = cairn.store().count(&filter)?;
                if json {
                    return print_json(&serde_json::json!({"would_forget": n, "forgotten": 0}));
                }
                println!("{n} memories match; nothing deleted. Run again with --yes to delete them.");
                return Ok(());
            }
            cairn.forget_matching(&filter)?
        }
        (false, true) => return Err(Error::invalid("give ids or a filter (--project, --type, --tag, --since, --until), not both").into()),
        (true, false) => {
            return Err(Error::invalid(
                "nothing to forget: give ids, or a filter (--project, --type, --tag, --since, --until) with --yes",
            )
            .into())
        }
    };
    if json {
        let ids: Vec<String> = ids.iter().map(|i| i.to_string()).collect();
        return print_json(&serde_json::json!({"forgotten": ids.len(), "ids": ids}));
    }
    println!(
        "{} {} memor{}",
        paint("forgot", out::GREEN),
        ids.len(),
        if ids.len() == 1 { "y" } else { "ies" }
    );
    Ok(())
}

fn supersede(cairn: &Cairn, a: SupersedeArgs, json: bool) -> Result<()> {
    let old = cairn.get(TENANT, &a.old)?;
    let mut req = RememberRequest::new(TENANT, text_arg(&a.content)?);
    req.kind = match a.kind {
        Some(k) => k.parse()?,
        None => old.kind,
    };
    req.project = old.project.clone();
    req.tags = if a.tags.is_empty() {
        old.tags.clone()
    } else {
        a.tags
    };
    let outcome = cairn.supersede(&old.id.to_string(), req)?;
    if json {
        return print_json(&outcome);
    }
    println!(
        "{} {} with {}",
        paint("superseded", out::GREEN),
        short(cairn, old.id),
        short(cairn, outcome.id)
    );
    Ok(())
}

/// A bar over `len` bytes of input (a spinner when the length is unknown).
fn bytes_bar(len: Option<u64>) -> ProgressBar {
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
fn styled(bar: ProgressBar, template: &str) -> ProgressBar {
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

fn import(cairn: &Cairn, a: ImportArgs, json: bool) -> Result<()> {
    let (reader, size): (Box<dyn BufRead + Send>, Option<u64>) = if a.file.as_os_str() == "-" {
        (Box::new(BufReader::new(std::io::stdin())), None)
    } else {
        let f = File::open(&a.file)
            .map_err(|e| Error::invalid(format!("cannot read {}: {e}", a.file.display())))?;
        let meta = f.metadata().ok();
        if meta.as_ref().is_some_and(|m| m.is_dir()) {
            return Err(Error::invalid(format!(
                "cannot read {}: it is a directory, not a JSON Lines file",
                a.file.display()
            ))
            .into());
        }
        let size = meta.map(|m| m.len());
        (Box::new(BufReader::new(f)), size)
    };
    // Read and parsed on another thread while this one writes; the bar
    // follows the text handed over, the message the memories written.
    let bar = bytes_bar(size);
    bar.set_message("importing");
    let position = bar.clone();
    let mut lines = JsonLines::spawn(reader, Box::new(move |read| position.set_position(read)));
    let mut written = |done: usize| bar.set_message(format!("importing ({done} memories)"));
    let outcome = if a.strict {
        // Every line is read and checked before anything is written.
        let records: Vec<_> = lines.by_ref().collect();
        lines
            .finish()
            .and_then(|()| cairn.import(TENANT, records, true, &mut written))
    } else {
        cairn
            .import(TENANT, lines.by_ref(), false, &mut written)
            .and_then(|report| match lines.finish() {
                Ok(()) => Ok(report),
                Err(e) => Err(Error::invalid(format!(
                    "{e}; the {} memories before it were imported (importing the file again skips them)",
                    report.imported
                ))),
            })
    };
    bar.finish_and_clear();
    let report = outcome?;
    if json {
        return print_json(&report);
    }
    println!(
        "{} {} memories ({} embedded here, {} already present)",
        paint("imported", out::GREEN),
        report.imported,
        report.embedded,
        report.skipped_existing
    );
    for (line, msg) in &report.errors {
        eprintln!(
            "{} line {line}: {msg} (skipped)",
            paint("warning:", out::YELLOW)
        );
    }
    Ok(())
}

fn export(cairn: &Cairn, a: ExportArgs) -> Result<()> {
    let write_all = |w: &mut dyn Write| -> Result<usize> {
        let n = cairn.export(TENANT, a.embeddings, &mut |record| {
            serde_json::to_writer(&mut *w, &record).map_err(Error::storage)?;
            w.write_all(b"\n").map_err(Error::storage)
        })?;
        w.flush()?;
        Ok(n)
    };
    match &a.output {
        None => {
            let mut stdout = BufWriter::new(std::io::stdout().lock());
            write_all(&mut stdout)?;
        }
        Some(path) => {
            let dir = path
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(std::path::Path::new("."));
            let mut tmp = tempfile_in(dir)?;
            let n = {
                let mut w = BufWriter::new(&mut tmp.1);
                write_all(&mut w)?
            };
            tmp.1.sync_all()?;
            std::fs::rename(&tmp.0, path).with_context(|| format!("writing {}", path.display()))?;
            eprintln!("exported {n} memories to {}", path.display());
        }
    }
    Ok(())
}

/// A new file in `dir` with a unique name, for write-then-rename.
fn tempfile_in(dir: &std::path::Path) -> Result<(PathBuf, File)> {
    for i in 0..100u32 {
        let path = dir.join(format!(".cairn-export-{}-{i}.tmp", std::process::id()));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(f) => return Ok((path, f)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(
                    Error::invalid(format!("cannot write in {}: {e}", dir.display())).into(),
                )
            }
        }
    }
    Err(Error::storage("could not create a temporary file").into())
}

fn stats(cairn: &Cairn, json: bool) -> Result<()> {
    let (s, model) = cairn.stats(TENANT)?;
    if json {
        return print_json(&serde_json::json!({"stats": s, "model": model}));
    }
    println!("{} {}", paint("memories:", out::BOLD), s.total);
    println!(
        "{} {}  {} {}",
        paint("expired:", out::BOLD),
        s.expired,
        paint("superseded:", out::BOLD),
        s.superseded
    );
    if !s.by_type.is_empty() {
        let types: Vec<String> = s.by_type.iter().map(|(t, n)| format!("{t} {n}")).collect();
        println!("{} {}", paint("by type:", out::BOLD), types.join(", "));
        let projects: Vec<String> = s
            .by_project
            .iter()
            .map(|(p, n)| format!("{} {n}", p.as_deref().unwrap_or("(global)")))
            .collect();
        println!(
            "{} {}",
            paint("by project:", out::BOLD),
            projects.join(", ")
        );
    }
    if let (Some(o), Some(n)) = (s.oldest, s.newest) {
        println!(
            "{} {} → {}",
            paint("created:", out::BOLD),
            format_timestamp(o),
            format_timestamp(n)
        );
    }
    println!(
        "{} {}",
        paint("model:", out::BOLD),
        model.map_or("(none yet)".to_string(), |m| m.to_string())
    );
    if let Some(b) = s.size_bytes {
        println!(
            "{} {:.1} MiB",
            paint("file size:", out::BOLD),
            b as f64 / 1_048_576.0
        );
    }
    Ok(())
}

fn gc(cairn: &Cairn, json: bool) -> Result<()> {
    let n = cairn.gc()?;
    if json {
        return print_json(&serde_json::json!({"deleted": n}));
    }
    println!(
        "deleted {n} expired memor{}",
        if n == 1 { "y" } else { "ies" }
    );
    Ok(())
}

fn reindex(cairn: &Cairn, json: bool) -> Result<()> {
    let bar = progress_bar(0);
    bar.set_message("re-embedding");
    let n = cairn.reindex(&mut |done, total| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    })?;
    bar.finish_and_clear();
    if json {
        return print_json(&serde_json::json!({"reindexed": n, "model": cairn.embedder().model()}));
    }
    println!("re-embedded {n} memories with {}", cairn.embedder().model());
    Ok(())
}

fn model(action: &ModelAction, json: bool) -> Result<()> {
    let dir = cairn_embed::default_model_dir();
    match action {
        ModelAction::Status => {
            let status = cairn_embed::model_status(&dir);
            let state = match status.state {
                cairn_embed::ModelState::Ready => "ready",
                cairn_embed::ModelState::Missing => "missing (run `cairn model fetch`)",
                cairn_embed::ModelState::Corrupt => {
                    "damaged (run `cairn model fetch` to replace it)"
                }
            };
            if json {
                let files: Vec<Value> = status
                    .files
                    .iter()
                    .map(|f| serde_json::json!({"name": f.file.name, "size": f.size, "state": format!("{:?}", f.state)}))
                    .collect();
                return print_json(&serde_json::json!({
                    "model": cairn_embed::model_info(),
                    "dir": dir,
                    "ready": status.is_ready(),
                    "files": files,
                }));
            }
            println!(
                "{} {}",
                paint("model:", out::BOLD),
                cairn_embed::model_info()
            );
            println!("{} {}", paint("directory:", out::BOLD), dir.display());
            println!("{} {state}", paint("status:", out::BOLD));
            let rows: Vec<Vec<String>> = status
                .files
                .iter()
                .map(|f| {
                    vec![
                        f.file.name.to_string(),
                        f.size.map_or("-".into(), |s| s.to_string()),
                        format!("{:?}", f.state),
                    ]
                })
                .collect();
            out::table(&["FILE", "BYTES", "CHECK"], &rows);
        }
        ModelAction::Fetch => {
            cairn_embed::fetch_model(&dir, &mut |msg| eprintln!("cairn: {msg}"))?;
            if json {
                return print_json(&serde_json::json!({"dir": dir, "fetched": true}));
            }
            println!("model ready in {}", dir.display());
        }
    }
    Ok(())
}
