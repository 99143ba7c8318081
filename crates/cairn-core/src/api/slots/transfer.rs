//! Slots in and out: export as memcord's formats, import of files and
//! folders, merge with a preview.

use std::collections::BTreeMap;

use serde::Serialize;

use super::super::{Caller, ForeignFile};
use super::entries::refuse_in_zero_mode;
use crate::collections::CollectionKind;
use crate::engine::{Cairn, UpdateRequest};
use crate::foreign::{Foreign, ForeignSlot};
use crate::memory::{normalize_slot_name, Memory, MemoryId};
use crate::rank::cosine;
use crate::wire::MemoryRecord;
use crate::{Error, Result};

use super::*;

/// A slot's export formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    /// memcord's Markdown.
    Markdown,
    /// memcord's plain text.
    Text,
    /// Every field, as JSON (reads back with `cairn slot import`).
    Json,
}

impl std::str::FromStr for ExportFormat {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "md" | "markdown" => Ok(ExportFormat::Markdown),
            "txt" | "text" => Ok(ExportFormat::Text),
            "json" => Ok(ExportFormat::Json),
            _ => Err(Error::invalid(format!(
                "unknown export format `{s}`: use md, txt or json"
            ))),
        }
    }
}

fn entry_heading(e: &EntryView) -> &'static str {
    if e.entry_type == "auto_summary" {
        "Auto Summary"
    } else {
        "Manual Save"
    }
}

fn compression_note(e: &EntryView) -> Option<(usize, usize, usize)> {
    match (e.original_length, e.summary_length) {
        (Some(o), Some(s)) if o > 0 => Some(((s * 100 + o / 2) / o, o, s)),
        _ => None,
    }
}

/// A slot rendered in `format` (memcord's layouts).
pub fn slot_export(
    cairn: &Cairn,
    caller: &Caller,
    name: &str,
    format: ExportFormat,
) -> Result<String> {
    let read = slot_read(cairn, caller, name, 0, None, false)?;
    let s = &read.slot;
    let tags = s.tags.join(", ");
    let group = s.group.clone().unwrap_or_default();
    Ok(match format {
        ExportFormat::Json => {
            let value = serde_json::json!({
                "slot_name": s.name,
                "created_at": s.created_at,
                "updated_at": s.updated_at,
                "tags": s.tags,
                "group_path": s.group,
                "description": s.description,
                "priority": s.priority,
                "is_archived": s.archived_at.is_some(),
                "archived_at": s.archived_at,
                "archive_reason": s.archive_reason,
                "metadata": {
                    "total_entries": s.entries,
                    "total_characters": s.characters,
                    "last_summary_at": s.last_summary_at,
                    "contributors": s.contributors,
                },
                // memcord's fields, and the whole record (every field,
                // as `cairn export` writes it), which import restores.
                "entries": read.entries.iter().map(|e| serde_json::json!({
                    "id": e.memory.record.id,
                    "type": e.entry_type,
                    "content": e.memory.record.content,
                    "timestamp": e.memory.record.created_at,
                    "original_length": e.original_length,
                    "summary_length": e.summary_length,
                    "record": e.memory.record,
                })).collect::<Vec<_>>(),
            });
            let mut text = serde_json::to_string_pretty(&value).map_err(Error::storage)?;
            text.push('\n');
            text
        }
        ExportFormat::Markdown => {
            // What the slot has no value for is left out, not shown empty.
            let mut out = format!(
                "# Memory Slot: {}\n\n**Created:** {}\n**Updated:** {}\n",
                s.name, s.created_at, s.updated_at
            );
            if !tags.is_empty() {
                out.push_str(&format!("**Tags:** {tags}\n"));
            }
            if !group.is_empty() {
                out.push_str(&format!("**Group:** {group}\n"));
            }
            if !s.description.trim().is_empty() {
                out.push_str(&format!("\n## Description\n\n{}\n", s.description));
            }
            out.push_str("\n## Entries\n");
            for e in &read.entries {
                out.push_str(&format!(
                    "\n### Entry {} - {} ({})\n\n",
                    e.index,
                    entry_heading(e),
                    e.memory.record.created_at.as_deref().unwrap_or("")
                ));
                if let Some((pct, o, s)) = compression_note(e) {
                    out.push_str(&format!(
                        "*Summary ({pct}% compression: {o} → {s} characters)*\n\n"
                    ));
                }
                out.push_str(e.memory.record.content.trim_end());
                out.push('\n');
            }
            out
        }
        ExportFormat::Text => {
            let title = format!("MEMORY SLOT: {}", s.name);
            let mut out = format!(
                "{title}\n{}\nCreated: {}\nUpdated: {}\nTags: {tags}\nGroup: {group}\nDescription: {}\n\nENTRIES\n-------\n",
                "=".repeat(32),
                s.created_at,
                s.updated_at,
                s.description
            );
            for e in &read.entries {
                let kind = match compression_note(e) {
                    Some((pct, _, _)) => format!("{} ({pct}% compression)", entry_heading(e)),
                    None => entry_heading(e).to_string(),
                };
                out.push_str(&format!(
                    "\n[{}] {kind}:\n{}\n",
                    e.memory.record.created_at.as_deref().unwrap_or(""),
                    e.memory.record.content.trim_end()
                ));
            }
            out
        }
    })
}

/// The most characters one imported entry holds: a longer section is cut
/// at paragraphs.
const IMPORT_ENTRY_CHARS: usize = 4000;

/// A document cut into entries: at Markdown headings (a heading starts an
/// entry) and, within a section longer than 4,000 characters, at
/// blank lines between paragraphs.
pub fn split_document(text: &str) -> Vec<String> {
    let mut sections: Vec<String> = Vec::new();
    let mut current = String::new();
    for line in text.lines() {
        if line.trim_start().starts_with('#') && !current.trim().is_empty() {
            sections.push(std::mem::take(&mut current));
        }
        current.push_str(line);
        current.push('\n');
    }
    sections.push(current);
    let mut out = Vec::new();
    for section in sections {
        let section = section.trim();
        if section.is_empty() {
            continue;
        }
        if section.chars().count() <= IMPORT_ENTRY_CHARS {
            out.push(section.to_string());
            continue;
        }
        let mut piece = String::new();
        for para in section
            .split("\n\n")
            .map(str::trim)
            .filter(|p| !p.is_empty())
        {
            let fits = piece.chars().count() + para.chars().count() + 2 <= IMPORT_ENTRY_CHARS;
            if !piece.is_empty() && !fits {
                out.push(std::mem::take(&mut piece));
            }
            if !piece.is_empty() {
                piece.push_str("\n\n");
            }
            piece.push_str(para);
        }
        if !piece.is_empty() {
            out.push(piece);
        }
    }
    out
}

/// One file of a slot import, and what came of it.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ImportedFile {
    /// The file.
    pub file: String,
    /// Entries it gave (saved, or in a dry run, that would be).
    pub entries: usize,
    /// Why it was skipped, if it was.
    pub error: Option<String>,
}

/// What a slot import did (or would do).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct SlotImportReport {
    /// The slot.
    pub slot: String,
    /// Whether nothing was written.
    pub dry_run: bool,
    /// Entries saved (or that would be).
    pub entries: usize,
    /// Every file, in order.
    pub files: Vec<ImportedFile>,
}

/// What a file gives a slot.
enum FileEntries {
    /// Texts, each saved as a new entry.
    Texts(Vec<String>),
    /// Whole entries of a slot's own JSON export (`record`s), restored
    /// with their ids, times and fields, and the slot's description, tags,
    /// group and priority (for a slot the import makes).
    Records(Vec<MemoryRecord>, SlotInput),
}

/// The records of a slot's JSON export (its entries' `record`s) and the
/// slot's fields, if it is one.
fn exported_records(text: &str) -> Result<Option<(Vec<MemoryRecord>, SlotInput)>> {
    let Ok(value) = serde_json::from_str::<serde_json::Value>(text) else {
        return Ok(None);
    };
    let Some(entries) = value.get("entries").and_then(|e| e.as_array()) else {
        return Ok(None);
    };
    if entries.is_empty() || !entries.iter().all(|e| e.get("record").is_some()) {
        return Ok(None);
    }
    let records = entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            serde_json::from_value(e["record"].clone())
                .map_err(|err| Error::invalid(format!("entry {}: {err}", i + 1)))
        })
        .collect::<Result<_>>()?;
    let text = |k: &str| value.get(k).and_then(|v| v.as_str()).map(str::to_string);
    let slot = SlotInput {
        description: text("description"),
        tags: value
            .get("tags")
            .and_then(|t| serde_json::from_value(t.clone()).ok()),
        group: text("group_path"),
        priority: value
            .get("priority")
            .and_then(|p| p.as_u64())
            .and_then(|p| u8::try_from(p).ok()),
        ..Default::default()
    };
    Ok(Some((records, slot)))
}

/// The entries of one file: `.md` and `.txt` cut by [`split_document`],
/// `.json` a slot's own JSON export's records or a memcord slot file's
/// entries, `.jsonl` Cairn's JSON Lines records' contents.
fn file_entries(cairn: &Cairn, name: &str, text: &str) -> Result<FileEntries> {
    let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    if ext.as_deref() == Some("json") {
        if let Some((records, slot)) = exported_records(text)? {
            return Ok(FileEntries::Records(records, slot));
        }
        let memcord = cairn
            .importer(Foreign::Memcord)?
            .parse(Foreign::Memcord, text)?;
        let fields = memcord.slots.into_iter().next().map(|s| SlotInput {
            description: s.description,
            tags: Some(s.tags),
            group: s.group,
            priority: s.priority,
            ..Default::default()
        });
        return Ok(FileEntries::Records(
            memcord.memories,
            fields.unwrap_or_default(),
        ));
    }
    file_texts(ext.as_deref(), text).map(FileEntries::Texts)
}

fn file_texts(ext: Option<&str>, text: &str) -> Result<Vec<String>> {
    match ext {
        Some("md" | "markdown" | "txt" | "text") => Ok(split_document(text)),
        Some("jsonl") => text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .enumerate()
            .map(|(i, l)| {
                crate::wire::parse_record_line(l)
                    .map(|r| r.content)
                    .map_err(|e| Error::invalid(format!("line {}: {e}", i + 1)))
            })
            .collect(),
        _ => Err(Error::invalid(
            "not a .md, .txt, .json (a memcord slot file) or .jsonl file",
        )),
    }
}

/// Import files into a slot: each file's entries (`.md` and `.txt` cut by
/// [`split_document`], `.json` a memcord slot file's, `.jsonl` Cairn records')
/// appended in order; a file that cannot be read is reported and the rest
/// go on. `progress` is told how many files are done.
pub fn slot_import(
    cairn: &Cairn,
    caller: &Caller,
    name: &str,
    files: Vec<ForeignFile>,
    dry_run: bool,
    progress: &mut dyn FnMut(usize),
) -> Result<SlotImportReport> {
    let slot = normalize_slot_name(name)?;
    let mut report = SlotImportReport {
        slot: slot.clone(),
        dry_run,
        entries: 0,
        files: Vec::new(),
    };
    // memcord's `<slot>_config.json` beside a slot file is passed over.
    let side = |f: &ForeignFile| {
        cairn
            .importer(Foreign::Memcord)
            .is_ok_and(|i| i.is_side_file(Foreign::Memcord, &f.name))
    };
    let all_side = files.iter().all(side);
    let files = files.into_iter().filter(|f| all_side || !side(f));
    for (done, f) in files.enumerate() {
        let mut line = ImportedFile {
            file: f.name.clone(),
            entries: 0,
            error: None,
        };
        match file_entries(cairn, &f.name, &f.text) {
            Err(e) => line.error = Some(e.to_string()),
            Ok(FileEntries::Records(records, _)) if dry_run => line.entries = records.len(),
            Ok(FileEntries::Records(mut records, fields)) => {
                refuse_in_zero_mode(cairn, caller, &slot)?;
                if record(cairn, &caller.tenant, &slot)?.is_none() {
                    slot_set(
                        cairn,
                        caller,
                        SlotInput {
                            name: slot.clone(),
                            ..fields
                        },
                    )?;
                }
                let mut redacted = Default::default();
                let policy = cairn.redaction_policy(&caller.tenant)?;
                for r in &mut records {
                    r.slot = Some(slot.clone());
                    policy.redact_text(&mut r.content, &mut redacted);
                    if let Some(meta) = r.metadata.as_mut() {
                        policy.redact_metadata(meta, &mut redacted);
                    }
                }
                let done = cairn.import(
                    &caller.tenant,
                    records.into_iter().enumerate().map(|(i, r)| (i + 1, Ok(r))),
                    false,
                    &caller.actor,
                    &mut |_| {},
                )?;
                line.entries = done.imported;
                let mut problems: Vec<String> = done
                    .errors
                    .iter()
                    .map(|(n, e)| format!("entry {n}: {e}"))
                    .collect();
                if done.skipped_existing > 0 {
                    problems.push(format!(
                        "{} entries skipped: their ids are stored already",
                        done.skipped_existing
                    ));
                }
                line.error = (!problems.is_empty()).then(|| problems.join("; "));
            }
            Ok(FileEntries::Texts(texts)) => {
                for text in texts {
                    if !dry_run {
                        slot_save(
                            cairn,
                            caller,
                            SaveInput {
                                name: slot.clone(),
                                text,
                                ..Default::default()
                            },
                        )?;
                    }
                    line.entries += 1;
                }
            }
        }
        report.entries += line.entries;
        report.files.push(line);
        progress(done + 1);
    }
    Ok(report)
}

/// A pair a merge drops as a duplicate.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct DuplicatePair {
    /// The entry dropped (of a source slot).
    pub dropped: String,
    /// The entry it duplicates (already kept).
    pub kept: String,
    /// Their similarity.
    pub similarity: f32,
}

/// What a merge does (its preview) or did.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct MergeReport {
    /// The slots merged from.
    pub sources: Vec<String>,
    /// The slot merged into.
    pub target: String,
    /// Whether this is only the preview.
    pub preview: bool,
    /// Entries moved into the target.
    pub moved: Vec<String>,
    /// Entries dropped as duplicates (similarity ≥ 0.8), with what they
    /// duplicate.
    pub duplicates: Vec<DuplicatePair>,
    /// Whether the emptied source slots were deleted.
    pub deleted_sources: bool,
}

/// Merge slots into `target`: each source entry moves to the target
/// unless it duplicates (cosine ≥ [`MERGE_DUPLICATE`]) an entry already
/// there or moved before it, in which case it is dropped (forgotten).
/// With `preview`, answers the same report without changing anything.
pub fn slot_merge(
    cairn: &Cairn,
    caller: &Caller,
    sources: &[String],
    target: &str,
    preview: bool,
    delete_sources: bool,
) -> Result<MergeReport> {
    let tenant = caller.tenant.as_str();
    let target = normalize_slot_name(target)?;
    let sources: Vec<String> = sources
        .iter()
        .map(|s| normalize_slot_name(s))
        .collect::<Result<_>>()?;
    if sources.is_empty() {
        return Err(Error::invalid("name at least one slot to merge from"));
    }
    if sources.contains(&target) {
        return Err(Error::invalid(format!(
            "`{target}` is both a source and the target"
        )));
    }
    for s in &sources {
        existing(cairn, tenant, s)?;
    }
    let kept_entries = match record(cairn, tenant, &target)? {
        Some(_) => entries(cairn, tenant, &target)?,
        None => Vec::new(),
    };
    let vectors_of = |ms: &[Memory]| -> Result<Vec<(MemoryId, Vec<f32>)>> {
        let ids: Vec<MemoryId> = ms.iter().map(|m| m.id).collect();
        Ok(ids
            .iter()
            .zip(cairn.store().embeddings(tenant, &ids)?)
            .filter_map(|(id, v)| v.map(|v| (*id, v)))
            .collect())
    };
    let mut kept: Vec<(String, Vec<f32>)> = vectors_of(&kept_entries)?
        .into_iter()
        .map(|(id, v)| (id.to_string(), v))
        .collect();
    let mut report = MergeReport {
        sources: sources.clone(),
        target: target.clone(),
        preview,
        moved: Vec::new(),
        duplicates: Vec::new(),
        deleted_sources: false,
    };
    let mut moves = Vec::new();
    let mut drops = Vec::new();
    for s in &sources {
        let all = entries(cairn, tenant, s)?;
        let vectors: BTreeMap<MemoryId, Vec<f32>> = vectors_of(&all)?.into_iter().collect();
        for m in &all {
            let Some(v) = vectors.get(&m.id) else {
                continue;
            };
            let best = kept
                .iter()
                .map(|(id, k)| (id, cosine(k, v)))
                .max_by(|a, b| a.1.total_cmp(&b.1));
            match best {
                Some((id, sim)) if sim >= MERGE_DUPLICATE => {
                    report.duplicates.push(DuplicatePair {
                        dropped: m.id.to_string(),
                        kept: id.clone(),
                        similarity: sim,
                    });
                    drops.push(m.id);
                }
                _ => {
                    report.moved.push(m.id.to_string());
                    kept.push((m.id.to_string(), v.clone()));
                    moves.push(m.id);
                }
            }
        }
    }
    if preview {
        return Ok(report);
    }
    if record(cairn, tenant, &target)?.is_none() {
        slot_set(
            cairn,
            caller,
            SlotInput {
                name: target.clone(),
                ..Default::default()
            },
        )?;
    }
    for id in moves {
        cairn.update(
            tenant,
            &id.to_string(),
            UpdateRequest {
                slot: Some(Some(target.clone())),
                ..Default::default()
            },
            &caller.actor,
        )?;
    }
    if !drops.is_empty() {
        let drops: Vec<String> = drops.iter().map(MemoryId::to_string).collect();
        cairn.forget(tenant, &drops, &caller.actor)?;
    }
    if delete_sources {
        for s in &sources {
            cairn
                .store()
                .collections()
                .delete_collection(tenant, CollectionKind::Slot, s)?;
        }
        report.deleted_sources = true;
    }
    Ok(report)
}

/// Make ready a slot another system's import fills (see
/// [`ForeignSlot`]): refused in zero mode; a new slot
/// gets the foreign slot's description, tags, group and priority, an
/// existing one keeps its fields and gains the tags.
pub(crate) fn ready_foreign_slot(cairn: &Cairn, caller: &Caller, slot: &ForeignSlot) -> Result<()> {
    refuse_in_zero_mode(cairn, caller, &slot.name)?;
    let input = if record(cairn, &caller.tenant, &slot.name)?.is_some() {
        SlotInput {
            name: slot.name.clone(),
            add_tags: slot.tags.clone(),
            ..Default::default()
        }
    } else {
        SlotInput {
            name: slot.name.clone(),
            description: slot.description.clone(),
            tags: Some(slot.tags.clone()),
            group: slot.group.clone(),
            priority: slot.priority,
            ..Default::default()
        }
    };
    slot_set(cairn, caller, input).map(|_| ())
}

#[cfg(test)]
mod import_tests {
    use std::sync::Arc;

    use super::*;
    use crate::api::ForeignFile;
    use crate::conformance::LexicalEmbedder;
    use crate::MemoryStore;

    #[test]
    fn documents_split_at_headings_and_long_sections_at_paragraphs() {
        let doc = "intro line\n\n# One\nfirst section\n\nstill first\n## Two\nsecond";
        assert_eq!(
            split_document(doc),
            [
                "intro line",
                "# One\nfirst section\n\nstill first",
                "## Two\nsecond"
            ]
        );
        let long = (0..10)
            .map(|i| format!("paragraph {i} {}", "word ".repeat(150).trim_end()))
            .collect::<Vec<_>>()
            .join("\n\n");
        let parts = split_document(&long);
        assert!(parts.len() > 1);
        assert!(parts
            .iter()
            .all(|p| p.chars().count() <= IMPORT_ENTRY_CHARS));
        assert_eq!(parts.join("\n\n"), long.trim());
        assert!(split_document("  \n\n ").is_empty());
    }

    #[test]
    fn files_are_imported_in_order_and_a_bad_one_does_not_stop_the_rest() {
        let c = Cairn::new(Arc::new(MemoryStore::new()), Arc::new(LexicalEmbedder));
        let caller = Caller::new("t");
        let files = vec![
            ForeignFile {
                name: "notes.md".into(),
                text: "# Plan\nShip on Friday.\n# Risks\nThe migration.".into(),
            },
            ForeignFile {
                name: "broken.json".into(),
                text: "{not json".into(),
            },
            ForeignFile {
                name: "records.jsonl".into(),
                text: "{\"content\": \"from a Cairn export\"}\n".into(),
            },
            ForeignFile {
                name: "image.png".into(),
                text: String::new(),
            },
        ];
        let dry = slot_import(&c, &caller, "docs", files.clone(), true, &mut |_| ()).unwrap();
        assert_eq!(dry.entries, 3);
        assert!(
            slot_read(&c, &caller, "docs", 0, None, false).is_err(),
            "dry"
        );
        let mut seen = 0;
        let done = slot_import(&c, &caller, "docs", files, false, &mut |n| seen = n).unwrap();
        assert_eq!(seen, 4);
        assert_eq!(done.entries, 3);
        assert!(done.files[1].error.is_some() && done.files[3].error.is_some());
        let read = slot_read(&c, &caller, "docs", 0, None, false).unwrap();
        let texts: Vec<&str> = read
            .entries
            .iter()
            .map(|e| e.memory.record.content.as_str())
            .collect();
        assert_eq!(
            texts,
            [
                "# Plan\nShip on Friday.",
                "# Risks\nThe migration.",
                "from a Cairn export"
            ]
        );
    }
}
