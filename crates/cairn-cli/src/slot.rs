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
    let c = caller();
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
    | SlotAction::Export { name, .. } = &mut action
    {
        if name == "." {
            *name = bound_slot(None)?.0;
        }
    }
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
        SlotAction::Save { name, text, author } => {
            let out = api::slot_save(
                cairn,
                &c,
                SaveInput {
                    name,
                    text: text_arg(&text)?,
                    author,
                    ..Default::default()
                },
            )?;
            saved(&out, json)
        }
        SlotAction::SaveProgress { name, text, ratio } => {
            let out = api::slot_save(
                cairn,
                &c,
                SaveInput {
                    name,
                    text: text_arg(&text)?,
                    progress: true,
                    ratio: Some(ratio),
                    ..Default::default()
                },
            )?;
            saved(&out, json)
        }
        SlotAction::Read {
            name,
            offset,
            limit,
            summaries,
        } => {
            let read = api::slot_read(cairn, &c, &name, offset, limit, summaries)?;
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
        SlotAction::Select { name, which } => {
            let picked = api::slot_select(cairn, &c, &name, &which.join(" "))?;
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
                limit: Some(limit),
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
        } => {
            let slots = api::slot_list(
                cairn,
                &c,
                SlotListInput {
                    group,
                    tags,
                    include_archived,
                    archived_only: archived,
                },
            )?;
            if json {
                return print_json(&slots);
            }
            if slots.is_empty() {
                println!("no slots (`cairn slot save NAME TEXT` makes one)");
            }
            for s in &slots {
                println!(
                    "{:<24} p{} {:>5} entries  {:<24} {}{}",
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
        SlotAction::Tree { include_archived } => {
            let tree = api::slot_tree(cairn, &c, include_archived)?;
            if json {
                return print_json(&tree);
            }
            print_tree(&tree, 0);
            Ok(())
        }
        SlotAction::Tag { name, tags } => {
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
            show_slot(&api::slot_archive(cairn, &c, &name, reason)?, json)
        }
        SlotAction::Restore { name } => show_slot(&api::slot_restore(cairn, &c, &name)?, json),
        SlotAction::ArchiveCandidates { days } => {
            let slots = api::archive_candidates(cairn, &c, days)?;
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
        SlotAction::Import {
            name,
            paths,
            dry_run,
        } => {
            let mut files = Vec::new();
            for p in &paths {
                files.extend(crate::foreign::files(
                    p,
                    &["md", "markdown", "txt", "json", "jsonl"],
                )?);
            }
            let bar = styled(
                ProgressBar::new(files.len() as u64),
                "{spinner} importing [{bar:30}] {pos}/{len} files",
            );
            let report = api::slot_import(cairn, &c, &name, files, dry_run, &mut |n| {
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
        SlotAction::Export {
            name,
            format,
            output,
        } => {
            let text = api::slot_export(cairn, &c, &name, format.parse()?)?;
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
        SlotAction::Merge {
            sources,
            into,
            yes,
            delete_sources,
        } => {
            let report = api::slot_merge(cairn, &c, &sources, &into, !yes, delete_sources)?;
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
        SlotAction::Zero { state, slot } => {
            let on = api::slot_zero(cairn, &c, slot.as_deref(), state == OnOff::On)?;
            if json {
                return print_json(&serde_json::json!({"zero": on, "slot": slot}));
            }
            let whom = slot.map_or("every slot".to_string(), |s| format!("slot {s}"));
            println!(
                "zero mode {} for {whom}{}",
                if on { "on" } else { "off" },
                if on { ": saves are refused" } else { "" }
            );
            Ok(())
        }
    }
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
