//! Imports from other memory systems: an export of mem0, Memori,
//! mememory, memcord, ChatGPT or Claude read by the engine's
//! [`Importer`](crate::foreign::Importer) (`cairn-importers`),
//! redacted, and written — memories as `cairn import` writes them,
//! conversations as `cairn conversation import` logs them — or, as a dry
//! run, shown without writing anything.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{non_empty, Caller};
use crate::engine::{redaction_counts, Cairn, ObserveRequest, Redactions};
use crate::foreign::{Foreign, ForeignSlot};
use crate::wire::MessageRecord;
use crate::Result;

/// One file of an export.
#[derive(Debug, Clone)]
pub struct ForeignFile {
    /// Its name, as problems name it.
    pub name: String,
    /// Its text.
    pub text: String,
}

/// How to import an export.
#[derive(Debug, Clone)]
pub struct ForeignInput {
    /// The system it comes from.
    pub from: Foreign,
    /// Its files (a memcord folder holds one slot a file).
    pub files: Vec<ForeignFile>,
    /// The project of memories that have none (default: the caller's,
    /// else global).
    pub project: Option<String>,
    /// Show what would be imported, and redacted, writing nothing.
    pub dry_run: bool,
}

/// An item of an export as a dry run shows it.
#[derive(Debug, Clone, Serialize)]
pub struct ForeignItem {
    /// `memory` or `message`.
    pub kind: &'static str,
    /// Its id, when the export gave one Cairn keeps.
    pub id: Option<String>,
    /// The memory's type, or the message's speaker.
    pub label: String,
    /// Its text as it would be stored (redacted).
    pub text: String,
}

/// A problem of one file's item, skipped.
#[derive(Debug, Clone, Serialize)]
pub struct ForeignProblem {
    /// The file.
    pub file: String,
    /// The item (`results[4]`, `line 5`, …).
    pub at: String,
    /// What is wrong with it.
    pub message: String,
}

/// What an import from another system did (or, dry, would do).
#[derive(Debug, Clone, Serialize)]
pub struct ForeignReport {
    /// The system.
    pub from: String,
    /// Whether nothing was written.
    pub dry_run: bool,
    /// Memories read from the export.
    pub memories: usize,
    /// Conversation messages read from the export.
    pub messages: usize,
    /// Memories written.
    pub imported: usize,
    /// Messages logged.
    pub logged: usize,
    /// Items whose id was already stored (left as they were).
    pub skipped_existing: usize,
    /// Conversations the messages belong to.
    pub conversations: Vec<String>,
    /// Slots the memories were written to (made if new), each once.
    pub slots: Vec<String>,
    /// Files passed over: those the system keeps beside its exports
    /// (memcord's `<slot>_config.json`).
    pub passed_over: usize,
    /// Secrets replaced (or that would be), by kind.
    pub redacted: BTreeMap<String, usize>,
    /// Items skipped, and why.
    pub problems: Vec<ForeignProblem>,
    /// A dry run's items, as they would be stored.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub items: Vec<ForeignItem>,
}

/// Import an export of another memory system (see the module docs). A
/// file that is not that system's export at all is refused before
/// anything is written, naming the file; a bad item is reported and
/// skipped.
pub fn import_foreign(
    cairn: &Cairn,
    caller: &Caller,
    input: ForeignInput,
    progress: &mut dyn FnMut(usize),
) -> Result<ForeignReport> {
    let project = non_empty(input.project.as_deref()).or_else(|| caller.project.clone());
    let mut memories = Vec::new();
    let mut messages: Vec<MessageRecord> = Vec::new();
    let mut problems = Vec::new();
    let mut slots: Vec<ForeignSlot> = Vec::new();
    let importer = cairn.importer(input.from)?;
    // Files the system keeps beside its exports are passed over, unless
    // nothing else was given (then reading one says what it is).
    let side = |f: &&ForeignFile| importer.is_side_file(input.from, &f.name);
    let passed_over = input.files.iter().filter(side).count();
    let keep_side = passed_over == input.files.len();
    for file in input.files.iter().filter(|f| keep_side || !side(f)) {
        let parsed = importer
            .parse(input.from, &file.text)
            .map_err(|e| crate::Error::invalid(format!("{}: {e}", file.name)))?;
        memories.extend(parsed.memories);
        messages.extend(parsed.messages);
        slots.extend(parsed.slots);
        problems.extend(parsed.problems.into_iter().map(|p| ForeignProblem {
            file: file.name.clone(),
            at: p.at,
            message: p.message,
        }));
    }
    let mut redacted = Redactions::new();
    let policy = cairn.redaction_policy(&caller.tenant)?;
    for m in &mut memories {
        policy.redact_text(&mut m.content, &mut redacted);
        if let Some(meta) = m.metadata.as_mut() {
            policy.redact_metadata(meta, &mut redacted);
        }
        if m.project.is_none() {
            m.project.clone_from(&project);
        }
        m.source
            .get_or_insert_with(|| format!("import:{}", input.from));
    }
    for s in &mut slots {
        if let Some(d) = s.description.as_mut() {
            policy.redact_text(d, &mut redacted);
        }
    }
    let mut conversations: Vec<String> = messages.iter().map(|m| m.conversation.clone()).collect();
    conversations.sort();
    conversations.dedup();
    let mut report = ForeignReport {
        from: input.from.to_string(),
        dry_run: input.dry_run,
        memories: memories.len(),
        messages: messages.len(),
        imported: 0,
        logged: 0,
        skipped_existing: 0,
        conversations,
        slots: Vec::new(),
        passed_over: if keep_side { 0 } else { passed_over },
        redacted: BTreeMap::new(),
        problems,
        items: Vec::new(),
    };
    for s in &slots {
        if !report.slots.contains(&s.name) {
            report.slots.push(s.name.clone());
        }
    }
    if input.dry_run {
        // Messages are redacted when logged: count what would be.
        for m in &mut messages {
            policy.redact_text(&mut m.text, &mut redacted);
        }
        report.items = memories
            .iter()
            .map(|m| ForeignItem {
                kind: "memory",
                id: m.id.clone(),
                label: m.kind.clone().unwrap_or_else(|| "note".into()),
                text: m.content.clone(),
            })
            .chain(messages.iter().map(|m| {
                ForeignItem {
                    kind: "message",
                    id: m.id.clone(),
                    label: m
                        .speaker
                        .clone()
                        .or_else(|| m.role.clone())
                        .unwrap_or_default(),
                    text: m.text.clone(),
                }
            }))
            .collect();
        report.redacted = redaction_counts(&redacted);
        return Ok(report);
    }
    for s in &slots {
        super::slots::ready_foreign_slot(cairn, caller, s)?;
    }
    let done_memories = memories.len();
    let imported = cairn.import(
        &caller.tenant,
        memories
            .into_iter()
            .enumerate()
            .map(|(i, m)| (i + 1, Ok(m))),
        false,
        &caller.actor,
        progress,
    )?;
    report.imported = imported.imported;
    report.skipped_existing = imported.skipped_existing;
    report.problems.extend(
        imported
            .errors
            .into_iter()
            .map(|(n, message)| ForeignProblem {
                file: String::new(),
                at: format!("memory {n}"),
                message,
            }),
    );
    if !messages.is_empty() {
        let messages = messages
            .into_iter()
            .map(MessageRecord::into_message)
            .collect::<Result<Vec<_>>>()?;
        let observed = cairn.observe(
            &ObserveRequest {
                tenant: caller.tenant.clone(),
                project,
                actor: caller.actor.clone(),
            },
            messages,
            &mut |n| progress(done_memories + n),
        )?;
        report.logged = observed.logged.len();
        report.skipped_existing += observed.skipped_existing;
        for (kind, n) in observed.redacted {
            *redacted.entry(kind).or_default() += n;
        }
    }
    report.redacted = redaction_counts(&redacted);
    Ok(report)
}
