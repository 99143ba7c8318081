//! `cairn import --from SYSTEM`: another memory system's export, read
//! from a file or a folder of files, imported (or shown, dry).

use std::path::Path;

use anyhow::{Context as _, Result};
use cairn_core::api::Foreign;
use cairn_core::api::{self, ForeignFile, ForeignInput, ForeignReport};
use cairn_core::{Cairn, Error};
use indicatif::ProgressBar;

use crate::args::ImportArgs;
use crate::cmd::{caller, print_json, styled};
use crate::out::{self, paint};

/// Items a dry run prints (all of them are in `--json`).
const SHOWN: usize = 20;

/// The files to read: the file itself, or a folder's files with one of
/// `extensions`, in name order.
pub(crate) fn files(path: &Path, extensions: &[&str]) -> Result<Vec<ForeignFile>> {
    let read = |p: &Path| -> Result<ForeignFile> {
        let text =
            std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?;
        Ok(ForeignFile {
            name: p.display().to_string(),
            text,
        })
    };
    if !path.is_dir() {
        return Ok(vec![read(path)?]);
    }
    let mut paths: Vec<_> = std::fs::read_dir(path)
        .with_context(|| format!("reading the folder {}", path.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.is_file()
                && p.extension()
                    .is_some_and(|x| extensions.iter().any(|e| x.eq_ignore_ascii_case(e)))
        })
        .collect();
    paths.sort();
    if paths.is_empty() {
        return Err(Error::invalid(format!(
            "{} holds no .{} file to import",
            path.display(),
            extensions.join(", .")
        ))
        .into());
    }
    paths.iter().map(|p| read(p)).collect()
}

/// Run `cairn import --from SYSTEM FILE|FOLDER`.
pub fn import(cairn: &Cairn, from: &str, a: &ImportArgs, json: bool) -> Result<()> {
    let from: Foreign = from.parse()?;
    let input = ForeignInput {
        from,
        files: files(&a.file, &["json", "jsonl"])?,
        project: a.project.clone(),
        dry_run: a.dry_run,
    };
    let bar = styled(ProgressBar::new_spinner(), "{spinner} {msg}");
    bar.set_message(format!("importing from {from}"));
    let report = api::import_foreign(cairn, &caller(), input, &mut |n| {
        bar.set_message(format!("importing from {from} ({n} written)"));
    });
    bar.finish_and_clear();
    let report = report?;
    if json {
        return print_json(&report);
    }
    print_report(&report);
    Ok(())
}

fn print_report(r: &ForeignReport) {
    if r.dry_run {
        println!(
            "{} {} memories and {} messages ({} conversations) would be imported from {}; nothing was written",
            paint("dry run:", out::YELLOW),
            r.memories,
            r.messages,
            r.conversations.len(),
            r.from
        );
        for item in r.items.iter().take(SHOWN) {
            println!(
                "  {:<7} {:<12} {}",
                item.kind,
                out::one_line(&item.label, 12),
                out::one_line(&item.text, 90)
            );
        }
        if r.items.len() > SHOWN {
            println!(
                "  … and {} more (--json lists them all)",
                r.items.len() - SHOWN
            );
        }
    } else {
        println!(
            "{} {} memories and {} messages from {} ({} already present)",
            paint("imported", out::GREEN),
            r.imported,
            r.logged,
            r.from,
            r.skipped_existing
        );
    }
    if !r.slots.is_empty() {
        println!("  into slots: {}", r.slots.join(", "));
    }
    if r.passed_over > 0 {
        println!(
            "  {} of {}'s side files passed over (slot settings, not memories)",
            r.passed_over, r.from
        );
    }
    if !r.redacted.is_empty() {
        let kinds: Vec<String> = r.redacted.iter().map(|(k, n)| format!("{n} {k}")).collect();
        println!(
            "{} {}",
            paint(
                if r.dry_run {
                    "would redact"
                } else {
                    "redacted"
                },
                out::YELLOW
            ),
            kinds.join(", ")
        );
    }
    for p in &r.problems {
        eprintln!(
            "{} {} {}: {} (skipped)",
            paint("warning:", out::YELLOW),
            p.file,
            p.at,
            p.message
        );
    }
}
