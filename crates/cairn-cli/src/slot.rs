//! `cairn slot …`: memcord's slots over the application layer.

use anyhow::Result;
use cairn_core::api::{
    self, EntryView, GroupNode, SaveInput, SlotInput, SlotListInput, SlotSearchInput, SlotView,
};
use std::path::PathBuf;

use cairn_core::memory::normalize_slot_name;
use cairn_core::project::{detect_slot, find_project_file, set_project_file_value, PROJECT_FILE};
use cairn_core::Cairn;
use indicatif::ProgressBar;

use crate::args::{OnOff, SlotAction};
use crate::cmd::{caller, print_json, styled, text_arg};
use crate::out::{self, paint, BOLD, DIM, GREEN, YELLOW};

/// Run a `cairn slot` command.
pub fn run(cairn: &Cairn, mut action: SlotAction, json: bool) -> Result<()> {
    resolve_bound_slot(&mut action)?;
    match action {
        SlotAction::Bind { name, dir } => bind(&name, dir, json),
        SlotAction::Unbind { dir } => unbind(dir, json),
        SlotAction::Create {
            name,
            description,
            tags,
            group,
            priority,
        } => set(
            cairn,
            SlotInput {
                name,
                description,
                add_tags: tags,
                group,
                priority,
                ..Default::default()
            },
            json,
        ),
        SlotAction::Save { name, text, author } => save(
            cairn,
            SaveInput {
                name,
                text: text_arg(&text)?,
                author,
                ..Default::default()
            },
            json,
        ),
        SlotAction::SaveProgress { name, text, ratio } => save(
            cairn,
            SaveInput {
                name,
                text: text_arg(&text)?,
                progress: true,
                ratio,
                ..Default::default()
            },
            json,
        ),
        SlotAction::Read {
            name,
            offset,
            limit,
            summaries,
        } => read(cairn, &name, offset, limit, summaries, json),
        SlotAction::Select { name, which } => select(cairn, &name, &which.join(" "), json),
        SlotAction::Search {
            query,
            slots,
            group,
            tags,
            exclude_tags,
            include_archived,
            limit,
        } => search(
            cairn,
            SlotSearchInput {
                query: query.join(" "),
                slots,
                group,
                tags,
                exclude_tags,
                include_archived,
                limit,
            },
            json,
        ),
        SlotAction::Query {
            name,
            question,
            limit,
        } => search(
            cairn,
            SlotSearchInput {
                query: question.join(" "),
                slots: vec![name],
                limit: Some(limit),
                ..Default::default()
            },
            json,
        ),
        SlotAction::List {
            group,
            tags,
            include_archived,
            archived,
        } => list(
            cairn,
            SlotListInput {
                group,
                tags,
                include_archived,
                archived_only: archived,
            },
            json,
        ),
        SlotAction::Tree { include_archived } => tree(cairn, include_archived, json),
        SlotAction::Tag { name, tags } => tag(cairn, name, tags, json),
        SlotAction::Group { name, group } => set(
            cairn,
            SlotInput {
                name,
                group: Some(group),
                ..Default::default()
            },
            json,
        ),
        SlotAction::Rename { name, new_name } => set(
            cairn,
            SlotInput {
                name,
                rename: Some(new_name),
                ..Default::default()
            },
            json,
        ),
        SlotAction::Archive { name, reason } => {
            show_slot(&api::slot_archive(cairn, &caller(), &name, reason)?, json)
        }
        SlotAction::Restore { name } => {
            show_slot(&api::slot_restore(cairn, &caller(), &name)?, json)
        }
        SlotAction::ArchiveCandidates { days } => archive_candidates(cairn, days, json),
        SlotAction::Import {
            name,
            paths,
            dry_run,
        } => import(cairn, &name, &paths, dry_run, json),
        SlotAction::Export {
            name,
            format,
            output,
        } => export(cairn, &name, &format, output),
        SlotAction::Merge {
            sources,
            into,
            yes,
            delete_sources,
        } => merge(cairn, &sources, &into, !yes, delete_sources, json),
        SlotAction::Zero { state, slot } => zero(cairn, slot, state == OnOff::On, json),
    }
}

/// `.` as a slot's name: the slot bound to the current directory.
fn resolve_bound_slot(action: &mut SlotAction) -> Result<()> {
    if let SlotAction::Save { name, .. }
    | SlotAction::SaveProgress { name, .. }
    | SlotAction::Read { name, .. }
    | SlotAction::Select { name, .. }
    | SlotAction::Query { name, .. }
    | SlotAction::Tag { name, .. }
    | SlotAction::Group { name, .. }
    | SlotAction::Rename { name, .. }
    | SlotAction::Archive { name, .. }
    | SlotAction::Restore { name }
    | SlotAction::Import { name, .. }
    | SlotAction::Export { name, .. } = action
    {
        if name == "." {
            *name = bound_slot(None)?.0;
        }
    }
    Ok(())
}

/// `cairn slot save` and `save-progress`.
fn save(cairn: &Cairn, input: SaveInput, json: bool) -> Result<()> {
    saved(&api::slot_save(cairn, &caller(), input)?, json)
}

/// `cairn slot read`.
fn read(
    cairn: &Cairn,
    name: &str,
    offset: usize,
    limit: Option<usize>,
    summaries: bool,
    json: bool,
) -> Result<()> {
    let read = api::slot_read(cairn, &caller(), name, offset, limit, summaries)?;
    if json {
        return print_json(&read);
    }
    println!(
        "{} — {} entries, {} characters",
        paint(&read.slot.name, BOLD),
        read.slot.entries,
        read.slot.characters
    );
    for e in &read.entries {
        print_entry(e);
    }
    Ok(())
}

/// `cairn slot select`.
fn select(cairn: &Cairn, name: &str, which: &str, json: bool) -> Result<()> {
    let picked = api::slot_select(cairn, &caller(), name, which)?;
    if json {
        return print_json(&picked);
    }
    if let Some(asked) = &picked.asked {
        println!(
            "{}",
            paint(
                &format!(
                    "nearest to {asked}: {}",
                    human_seconds(picked.distance_seconds)
                ),
                DIM
            )
        );
    }
    print_entry(&picked.entry);
    Ok(())
}

/// `cairn slot list`.
fn list(cairn: &Cairn, input: SlotListInput, json: bool) -> Result<()> {
    let archived = input.archived_only;
    let slots = api::slot_list(cairn, &caller(), input)?;
    if json {
        return print_json(&slots);
    }
    if slots.is_empty() {
        println!("no slots (`cairn slot save NAME TEXT` makes one)");
    }
    for s in &slots {
        println!(
            "{:<24} priority {} {:>5} entries  {:<24} {}{}",
            paint(&s.name, BOLD),
            s.priority,
            s.entries,
            s.group.as_deref().unwrap_or("-"),
            s.tags.join(","),
            s.archived_at
                .as_deref()
                .map(|a| paint(&format!("  archived {a}"), YELLOW))
                .unwrap_or_default()
        );
        if s.archived_at.is_some() {
            println!(
                "{:<24} last access {}{}",
                "",
                s.last_access,
                compression_note(s)
                    .map(|n| format!(", {n}"))
                    .unwrap_or_default()
            );
        }
    }
    if archived {
        let saved: u64 = slots
            .iter()
            .filter_map(|s| s.compression.as_ref())
            .map(|c| c.saved_bytes)
            .sum();
        println!("space saved by compression: {}", out::bytes(saved));
    }
    Ok(())
}

/// `cairn slot tree`.
fn tree(cairn: &Cairn, include_archived: bool, json: bool) -> Result<()> {
    let tree = api::slot_tree(cairn, &caller(), include_archived)?;
    if json {
        return print_json(&tree);
    }
    print_tree(&tree, 0);
    Ok(())
}

/// `cairn slot tag`: `-tag` removes, `tag` adds.
fn tag(cairn: &Cairn, name: String, tags: Vec<String>, json: bool) -> Result<()> {
    let (remove, add): (Vec<String>, Vec<String>) =
        tags.into_iter().partition(|t| t.starts_with('-'));
    set(
        cairn,
        SlotInput {
            name,
            add_tags: add,
            remove_tags: remove
                .into_iter()
                .map(|t| t.trim_start_matches('-').to_string())
                .collect(),
            ..Default::default()
        },
        json,
    )
}

/// `cairn slot archive-candidates`.
fn archive_candidates(cairn: &Cairn, days: u32, json: bool) -> Result<()> {
    let slots = api::archive_candidates(cairn, &caller(), days)?;
    if json {
        return print_json(&slots);
    }
    if slots.is_empty() {
        println!("no slot has been inactive for {days} days");
    }
    for s in &slots {
        println!(
            "{:<24} {:>5} entries, updated {}",
            s.name, s.entries, s.updated_at
        );
    }
    Ok(())
}

/// `cairn slot import`.
fn import(cairn: &Cairn, name: &str, paths: &[PathBuf], dry_run: bool, json: bool) -> Result<()> {
    let mut files = Vec::new();
    for p in paths {
        files.extend(crate::foreign::files(
            p,
            &["md", "markdown", "txt", "json", "jsonl"],
        )?);
    }
    let bar = styled(
        ProgressBar::new(files.len() as u64),
        "{spinner} importing [{bar:30}] {pos}/{len} files",
    );
    let report = api::slot_import(cairn, &caller(), name, files, dry_run, &mut |n| {
        bar.set_position(n as u64)
    });
    bar.finish_and_clear();
    let report = report?;
    if json {
        return print_json(&report);
    }
    for f in &report.files {
        match &f.error {
            Some(e) => eprintln!("{} {}: {e} (skipped)", paint("warning:", YELLOW), f.file),
            None => println!("{:>5} entries  {}", f.entries, f.file),
        }
    }
    println!(
        "{} {} entries into {}{}",
        paint(
            if report.dry_run {
                "would import"
            } else {
                "imported"
            },
            BOLD
        ),
        report.entries,
        report.slot,
        if report.dry_run {
            " (dry run: nothing written)"
        } else {
            ""
        }
    );
    Ok(())
}

/// `cairn slot export`: to `output`, or to standard output.
fn export(cairn: &Cairn, name: &str, format: &str, output: Option<PathBuf>) -> Result<()> {
    let text = api::slot_export(cairn, &caller(), name, format.parse()?)?;
    match output {
        Some(path) => {
            crate::out::write_private(&path, text.as_bytes()).map_err(|e| {
                cairn_core::Error::invalid(format!("writing {}: {e}", path.display()))
            })?;
            eprintln!("wrote {} ({} bytes)", path.display(), text.len());
        }
        None => print!("{text}"),
    }
    Ok(())
}

/// `cairn slot merge`: a preview unless `--yes`.
fn merge(
    cairn: &Cairn,
    sources: &[String],
    into: &str,
    preview: bool,
    delete_sources: bool,
    json: bool,
) -> Result<()> {
    let report = api::slot_merge(cairn, &caller(), sources, into, preview, delete_sources)?;
    if json {
        return print_json(&report);
    }
    println!(
        "{} {} entries into {}, {} dropped as duplicates{}",
        paint(
            if report.preview {
                "would move"
            } else {
                "moved"
            },
            BOLD
        ),
        report.moved.len(),
        report.target,
        report.duplicates.len(),
        if report.deleted_sources {
            "; sources deleted"
        } else {
            ""
        }
    );
    for d in &report.duplicates {
        println!(
            "  drop {} (similarity {:.2} to {})",
            &d.dropped[..13],
            d.similarity,
            &d.kept[..13]
        );
    }
    if report.preview {
        println!("{}", paint("preview only: add --yes to merge", YELLOW));
    }
    Ok(())
}

/// `cairn slot zero on|off [SLOT]`.
fn zero(cairn: &Cairn, slot: Option<String>, on: bool, json: bool) -> Result<()> {
    let out = api::slot_zero(cairn, &caller(), api::ZeroInput { on, slot })?;
    if json {
        return print_json(&out);
    }
    let whom = out
        .slot
        .map_or("every slot".to_string(), |s| format!("slot {s}"));
    println!(
        "zero mode {} for {whom}{}",
        if out.zero { "on" } else { "off" },
        if out.zero { ": saves are refused" } else { "" }
    );
    Ok(())
}

/// Make or change a slot and show it.
fn set(cairn: &Cairn, input: SlotInput, json: bool) -> Result<()> {
    show_slot(&api::slot_set(cairn, &caller(), input)?, json)
}

fn search(cairn: &Cairn, input: SlotSearchInput, json: bool) -> Result<()> {
    let out = api::slot_search(cairn, &caller(), input)?;
    if json {
        return print_json(&out);
    }
    if out.results.is_empty() {
        println!("no entry matches");
    }
    for r in &out.results {
        let text = match &r.highlight {
            Some(h) => bold_marks(&h.snippet),
            None => out::one_line(&r.memory.record.content, 100),
        };
        println!(
            "{} {:.3}  {text}",
            paint(r.memory.record.slot.as_deref().unwrap_or("-"), GREEN),
            r.score,
        );
    }
    Ok(())
}

/// A snippet's `**marks**` in bold (as they are when colour is off).
fn bold_marks(snippet: &str) -> String {
    snippet
        .split("**")
        .enumerate()
        .map(|(i, part)| {
            if i % 2 == 1 {
                paint(part, BOLD)
            } else {
                part.to_string()
            }
        })
        .collect()
}

fn saved(out: &api::SaveOutput, json: bool) -> Result<()> {
    if json {
        return print_json(out);
    }
    let by = match &out.summarised_by {
        Some(b) => match (&b.model, &b.fallback) {
            (Some(m), _) => format!(", by {m}"),
            (None, Some(f)) => format!(", extractive: the chat model failed: {f}"),
            (None, None) => ", extractive".to_string(),
        },
        None => String::new(),
    };
    let note = match (out.entry.original_length, out.entry.summary_length) {
        (Some(o), Some(s)) => format!(" (summary: {o} → {s} characters{by})"),
        _ => String::new(),
    };
    println!(
        "{} entry {} to {}{note}",
        paint("saved", GREEN),
        out.entry.index,
        out.slot.name
    );
    Ok(())
}

fn show_slot(s: &SlotView, json: bool) -> Result<()> {
    if json {
        return print_json(s);
    }
    println!(
        "{}  priority {}, {} entries, group {}, tags {}{}",
        paint(&s.name, BOLD),
        s.priority,
        s.entries,
        s.group.as_deref().unwrap_or("-"),
        if s.tags.is_empty() {
            "-".to_string()
        } else {
            s.tags.join(",")
        },
        match &s.archived_at {
            Some(a) => format!(", archived {a}"),
            None => String::new(),
        }
    );
    if let Some(note) = compression_note(s) {
        println!("{note}");
    }
    Ok(())
}

/// `2 entries compressed with zstd: 1.0 MiB → 12.3 KiB (1.2%), 1.0 MiB saved`.
fn compression_note(s: &SlotView) -> Option<String> {
    let c = s.compression.as_ref()?;
    Some(format!(
        "{} entries compressed with {}: {} → {} ({:.1}%), {} saved",
        c.entries,
        c.algorithm,
        out::bytes(c.original_bytes),
        out::bytes(c.stored_bytes),
        c.ratio * 100.0,
        out::bytes(c.saved_bytes)
    ))
}

fn print_entry(e: &EntryView) {
    println!(
        "{} {} {}",
        paint(&format!("#{}", e.index), BOLD),
        paint(&e.entry_type, DIM),
        e.memory.record.created_at.as_deref().unwrap_or("")
    );
    println!("{}\n", e.memory.record.content.trim_end());
}

fn print_tree(n: &GroupNode, depth: usize) {
    let pad = "  ".repeat(depth);
    if depth == 0 {
        println!("{} slots, {} entries", n.slots, n.entries);
    } else {
        println!(
            "{pad}{}/ ({} slots, {} entries)",
            n.name, n.slots, n.entries
        );
    }
    for s in &n.slot_names {
        println!("{pad}  {s}");
    }
    for g in &n.groups {
        print_tree(g, depth + 1);
    }
}

/// "3 h 5 min", "2 days".
fn human_seconds(s: i64) -> String {
    let a = s.unsigned_abs();
    let text = match a {
        0..=59 => format!("{a} s"),
        60..=3599 => format!("{} min", a / 60),
        3600..=86_399 => format!("{} h {} min", a / 3600, a % 3600 / 60),
        _ => format!("{} days", a / 86_400),
    };
    if s < 0 {
        format!("{text} earlier")
    } else {
        format!("{text} later")
    }
}

/// The slot bound to `dir` (default: the current directory), with its file.
fn bound_slot(dir: Option<PathBuf>) -> Result<(String, PathBuf)> {
    let dir = match dir {
        Some(d) => d,
        None => std::env::current_dir()?,
    };
    detect_slot(&dir).ok_or_else(|| {
        cairn_core::Error::invalid(format!(
            "no slot is bound to {} (`cairn slot bind NAME` binds one)",
            dir.display()
        ))
        .into()
    })
}

fn bind(name: &str, dir: Option<PathBuf>, json: bool) -> Result<()> {
    let name = normalize_slot_name(name)?;
    let dir = match dir {
        Some(d) => d,
        None => std::env::current_dir()?,
    };
    let file = find_project_file(&dir).unwrap_or_else(|| dir.join(PROJECT_FILE));
    let text = match std::fs::read_to_string(&file) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(anyhow::anyhow!("cannot read {}: {e}", file.display())),
    };
    write_file(&file, &set_project_file_value(&text, "slot", Some(&name)))?;
    if json {
        return print_json(&serde_json::json!({"slot": name, "file": file}));
    }
    println!("slot {} bound to {}", paint(&name, BOLD), file.display());
    Ok(())
}

fn unbind(dir: Option<PathBuf>, json: bool) -> Result<()> {
    let (name, file) = bound_slot(dir)?;
    let text = std::fs::read_to_string(&file)?;
    write_file(&file, &set_project_file_value(&text, "slot", None))?;
    if json {
        return print_json(&serde_json::json!({"unbound": name, "file": file}));
    }
    println!(
        "slot {} unbound from {}",
        paint(&name, BOLD),
        file.display()
    );
    Ok(())
}

/// Replace `file` with `text` whole (a temporary file renamed over it).
fn write_file(file: &std::path::Path, text: &str) -> Result<()> {
    let tmp = file.with_extension("cairn-tmp");
    std::fs::write(&tmp, text)
        .and_then(|_| std::fs::rename(&tmp, file))
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", file.display()))
}
