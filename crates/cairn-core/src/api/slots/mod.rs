//! Slots (memcord): named, long-lived collections of entries. A slot is a
//! small record ([`Slot`]) plus its entries, which are memories whose
//! [`crate::Memory::slot`] names it — so recall, history, tenants, export
//! and every backend work on them unchanged.
//!
//! - Saving appends an entry (never replaces one); saving progress appends
//!   an extractive summary of the text at a compression ratio.
//! - Zero mode (per slot, or for the whole tenant) refuses every save,
//!   writing nothing.
//! - An archived slot's entries leave default recall and listing
//!   ([`hide_archived`]); naming the slot, or `include_archived`, finds
//!   them. Its entries over [`crate::packing::PACK_MIN_BYTES`] are kept
//!   compressed at rest ([`crate::store::Maintenance::pack_contents`]) with their sizes
//!   recorded. Restoring is lossless: the same ids, text and history.
//! - Export renders a slot as memcord's Markdown, plain text or JSON.

mod entries;
#[cfg(test)]
mod tests;
mod transfer;

use serde::{Deserialize, Serialize};

use super::{non_empty, Caller, Selection};
use crate::collections::{CollectionBody, CollectionKind, CollectionRecord, Slot, SlotPacking};
use crate::engine::{Cairn, UpdateRequest};
use crate::memory::{normalize_slot_name, normalize_tags, Memory};
use crate::store::{Filter, ListOrder};
use crate::time::{format_timestamp, parse_timestamp};
use crate::{Error, Result};

pub use entries::{
    slot_read, slot_save, slot_select, EntryView, SaveInput, SaveOutput, Selected, SlotRead,
};
pub(crate) use transfer::ready_foreign_slot;
pub use transfer::{
    slot_export, slot_import, slot_merge, split_document, DuplicatePair, ExportFormat,
    ImportedFile, MergeReport, SlotImportReport,
};
/// The default share of a text a progress summary keeps.
pub const DEFAULT_SUMMARY_RATIO: f64 = 0.15;

/// Entries a merge compares against as duplicates at or above this
/// similarity (memcord's).
pub const MERGE_DUPLICATE: f32 = 0.8;

/// The most entries a slot operation reads.
const MAX_ENTRIES: usize = 100_000;

/// The setting record of tenant-wide zero mode.
const ZERO_SETTING: &str = "zero_mode";

/// A slot as answered: its record and its entries' aggregates.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct SlotView {
    /// Its name.
    pub name: String,
    /// What it is for.
    pub description: String,
    /// Tags.
    pub tags: Vec<String>,
    /// Its group path.
    pub group: Option<String>,
    /// 1 (highest) to 5.
    pub priority: u8,
    /// When it was created (RFC 3339).
    pub created_at: String,
    /// When it last changed (RFC 3339).
    pub updated_at: String,
    /// When it was archived (RFC 3339), if it is.
    pub archived_at: Option<String>,
    /// Why.
    pub archive_reason: Option<String>,
    /// Whether saving to it is paused.
    pub zero: bool,
    /// Entries.
    pub entries: usize,
    /// Characters of all entries.
    pub characters: usize,
    /// When a progress summary was last saved (RFC 3339).
    pub last_summary_at: Option<String>,
    /// Who wrote its entries.
    pub contributors: Vec<String>,
    /// Its search keywords: the words its entries use most (stop words
    /// aside), most used first.
    pub keywords: Vec<String>,
    /// When it or an entry was last written or recalled (RFC 3339).
    pub last_access: String,
    /// While archived: its long entries compressed at rest.
    pub compression: Option<CompressionView>,
}

/// What archiving a slot compressed.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct CompressionView {
    /// What compressed the entries.
    pub algorithm: String,
    /// Entries kept compressed (those over 1 KiB that compress).
    pub entries: usize,
    /// Their texts' bytes.
    pub original_bytes: u64,
    /// What they take compressed.
    pub stored_bytes: u64,
    /// Compressed over original (0.25: a quarter of the size).
    pub ratio: f64,
    /// Bytes saved.
    pub saved_bytes: u64,
}

impl From<&SlotPacking> for CompressionView {
    fn from(p: &SlotPacking) -> Self {
        CompressionView {
            algorithm: p.algorithm.clone(),
            entries: p.entries,
            original_bytes: p.original_bytes,
            stored_bytes: p.stored_bytes,
            ratio: if p.original_bytes == 0 {
                1.0
            } else {
                p.stored_bytes as f64 / p.original_bytes as f64
            },
            saved_bytes: p.original_bytes.saturating_sub(p.stored_bytes),
        }
    }
}

/// Search keywords a slot view lists.
const KEYWORDS: usize = 10;

/// The `n` words `entries` use most, stop words and one-letter words
/// aside (ties: the word first met first).
fn keywords(entries: &[Memory], n: usize) -> Vec<String> {
    let mut counts: Vec<(String, usize)> = Vec::new();
    let mut at = std::collections::HashMap::new();
    for m in entries {
        for term in crate::store::query_terms(&m.content) {
            if term.chars().count() < 2 || crate::store::STOP_WORDS.contains(&term.as_str()) {
                continue;
            }
            let i = *at.entry(term.clone()).or_insert_with(|| {
                counts.push((term, 0));
                counts.len() - 1
            });
            counts[i].1 += 1;
        }
    }
    // Stable: equal counts keep the order the words were met in.
    counts.sort_by_key(|c| std::cmp::Reverse(c.1));
    counts.into_iter().take(n).map(|(t, _)| t).collect()
}

/// When a slot or one of its entries was last written or recalled.
fn last_access(record: &CollectionRecord, entries: &[Memory]) -> i64 {
    entries
        .iter()
        .map(|m| m.updated_at.max(m.last_accessed_at.unwrap_or(0)))
        .fold(record.updated_at, i64::max)
}

fn record(cairn: &Cairn, tenant: &str, name: &str) -> Result<Option<(CollectionRecord, Slot)>> {
    cairn
        .store()
        .collections()
        .collection(tenant, CollectionKind::Slot, name)?
        .map(|r| Slot::from_record(&r).map(|s| (r, s)))
        .transpose()
}

fn existing(cairn: &Cairn, tenant: &str, name: &str) -> Result<(CollectionRecord, Slot)> {
    let name = normalize_slot_name(name)?;
    record(cairn, tenant, &name)?.ok_or_else(|| {
        Error::NotFound(format!(
            "slot `{name}` (`cairn slot list` shows the slots; saving to a name creates it)"
        ))
    })
}

fn put(cairn: &Cairn, record: &CollectionRecord, slot: &Slot) -> Result<()> {
    let mut r = record.clone();
    r.body = slot.to_body();
    r.updated_at = cairn.now();
    cairn.store().collections().put_collection(&r)
}

/// The metadata key of an entry's place in its slot when it was saved.
const SEQ_KEY: &str = "slot_seq";

/// Every entry of a slot (expired and superseded ones too).
fn entry_filter(cairn: &Cairn, tenant: &str, name: &str) -> Filter {
    let mut filter = Filter::new(tenant, cairn.now()).everything();
    filter.slots = vec![name.to_string()];
    filter
}

/// A slot's entries, oldest first (in the order saved).
fn entries(cairn: &Cairn, tenant: &str, name: &str) -> Result<Vec<Memory>> {
    let mut all = cairn.store().list(
        &entry_filter(cairn, tenant, name),
        ListOrder::Oldest,
        MAX_ENTRIES,
        0,
    )?;
    let seq = |m: &Memory| m.metadata.get(SEQ_KEY).and_then(|v| v.as_u64());
    all.sort_by_key(|m| (m.created_at, seq(m)));
    Ok(all)
}

fn view(record: &CollectionRecord, slot: &Slot, entries: &[Memory]) -> SlotView {
    let mut contributors: Vec<String> = entries
        .iter()
        .filter_map(|m| {
            m.metadata
                .get("author")
                .and_then(|v| v.as_str())
                .map(str::to_string)
        })
        .collect();
    contributors.sort();
    contributors.dedup();
    SlotView {
        name: record.id.clone(),
        description: slot.description.clone(),
        tags: slot.tags.clone(),
        group: slot.group.clone(),
        priority: slot.priority,
        created_at: format_timestamp(record.created_at),
        updated_at: format_timestamp(record.updated_at),
        archived_at: slot.archived_at.map(format_timestamp),
        archive_reason: slot.archive_reason.clone(),
        zero: slot.zero,
        entries: entries.len(),
        characters: entries.iter().map(|m| m.content.chars().count()).sum(),
        last_summary_at: slot.last_summary_at.map(format_timestamp),
        contributors,
        keywords: keywords(entries, KEYWORDS),
        last_access: format_timestamp(last_access(record, entries)),
        compression: slot.packed.as_ref().map(CompressionView::from),
    }
}

/// A group path: segments of letters, digits, `-` and `_` separated by
/// `/`, no leading or trailing slash.
fn normalize_group(group: &str) -> Result<String> {
    let g = group.trim();
    let ok = !g.is_empty()
        && g.len() <= 256
        && g.split('/').all(|s| {
            !s.is_empty()
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        });
    if ok {
        Ok(g.to_string())
    } else {
        Err(Error::invalid(format!(
            "group `{g}` is invalid: use segments of letters, digits, `-` and `_` separated by `/` (projects/alpha/dev), with no leading or trailing slash"
        )))
    }
}

/// Leave archived slots' entries out of `filter`, unless the selection
/// names slots or asks for archived ones.
pub(crate) fn hide_archived(
    cairn: &Cairn,
    tenant: &str,
    selection: &Selection,
    filter: &mut Filter,
) -> Result<()> {
    if selection.include_archived || !selection.slots.is_empty() {
        return Ok(());
    }
    filter.hidden_slots = cairn.archived_slots(tenant)?;
    Ok(())
}

/// What a slot is made with (or changed to).
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct SlotInput {
    /// Its name: letters, digits, `-` and `_`, 1–64 characters.
    pub name: String,
    /// What it is for.
    pub description: Option<String>,
    /// Tags (replace them all).
    pub tags: Option<Vec<String>>,
    /// Tags to add.
    pub add_tags: Vec<String>,
    /// Tags to remove.
    pub remove_tags: Vec<String>,
    /// Its group path (`projects/alpha/dev`; empty: none).
    pub group: Option<String>,
    /// 1 (highest) to 5.
    pub priority: Option<u8>,
    /// A new name: its entries follow, and their history records it.
    pub rename: Option<String>,
}

/// Make a slot, or change one: description, tags, group, priority, name.
pub fn slot_set(cairn: &Cairn, caller: &Caller, input: SlotInput) -> Result<SlotView> {
    let tenant = caller.tenant.as_str();
    let name = normalize_slot_name(&input.name)?;
    let now = cairn.now();
    let (mut rec, mut slot) = record(cairn, tenant, &name)?.unwrap_or_else(|| {
        (
            CollectionRecord {
                tenant: tenant.to_string(),
                kind: CollectionKind::Slot,
                id: name.clone(),
                parent: None,
                body: Default::default(),
                created_at: now,
                updated_at: now,
            },
            Slot::default(),
        )
    });
    let policy = cairn.redaction_policy(tenant)?;
    if let Some(mut d) = input.description {
        policy.redact_text(&mut d, &mut Default::default());
        slot.description = d.trim().to_string();
    }
    policy.refuse_secrets("tag", input.tags.iter().flatten().chain(&input.add_tags))?;
    if let Some(t) = input.tags {
        slot.tags = normalize_tags(&t)?;
    }
    let mut tags = slot.tags.clone();
    tags.extend(normalize_tags(&input.add_tags)?);
    let remove = normalize_tags(&input.remove_tags)?;
    tags.retain(|t| !remove.contains(t));
    slot.tags = normalize_tags(&tags)?;
    if let Some(g) = input.group {
        slot.group = match g.trim() {
            "" => None,
            g => Some(normalize_group(g)?),
        };
        policy.refuse_secrets("group", &slot.group)?;
    }
    if let Some(p) = input.priority {
        if !(1..=5).contains(&p) {
            return Err(Error::invalid(format!(
                "priority must be 1 (highest) to 5, got {p}"
            )));
        }
        slot.priority = p;
    }
    if let Some(new) = non_empty(input.rename.as_deref()) {
        let new = normalize_slot_name(&new)?;
        if new != name {
            if record(cairn, tenant, &new)?.is_some() {
                return Err(Error::invalid(format!(
                    "slot `{new}` exists: merge into it instead (`cairn slot merge {name} --into {new}`)"
                )));
            }
            for m in entries(cairn, tenant, &name)? {
                cairn.update(
                    tenant,
                    &m.id.to_string(),
                    UpdateRequest {
                        slot: Some(Some(new.clone())),
                        ..Default::default()
                    },
                    &caller.actor,
                )?;
            }
            cairn
                .store()
                .collections()
                .delete_collection(tenant, CollectionKind::Slot, &name)?;
            rec.id = new;
        }
    }
    put(cairn, &rec, &slot)?;
    let (rec, slot) = existing(cairn, tenant, &rec.id)?;
    Ok(view(&rec, &slot, &entries(cairn, tenant, &rec.id)?))
}

/// Which slots to list.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct SlotListInput {
    /// Only slots in this group or below it.
    pub group: Option<String>,
    /// Only slots with all of these tags.
    pub tags: Vec<String>,
    /// Archived slots too (only archived ones with `archived_only`).
    pub include_archived: bool,
    /// Only archived slots (the archive index).
    pub archived_only: bool,
}

/// The caller's slots, by priority then name.
pub fn slot_list(cairn: &Cairn, caller: &Caller, input: SlotListInput) -> Result<Vec<SlotView>> {
    let tenant = caller.tenant.as_str();
    let mut out = Vec::new();
    for (r, slot) in matching_slots(cairn, tenant, &input)? {
        out.push(view(&r, &slot, &entries(cairn, tenant, &r.id)?));
    }
    out.sort_by(|a, b| a.priority.cmp(&b.priority).then(a.name.cmp(&b.name)));
    Ok(out)
}

/// The names of the caller's slots `input` admits, by name: read from
/// their records alone, none of their entries.
pub fn slot_names(cairn: &Cairn, caller: &Caller, input: SlotListInput) -> Result<Vec<String>> {
    let mut names: Vec<String> = matching_slots(cairn, &caller.tenant, &input)?
        .into_iter()
        .map(|(r, _)| r.id)
        .collect();
    names.sort();
    Ok(names)
}

/// The slot records of `tenant` that `input`'s archive state, tags and
/// group admit.
fn matching_slots(
    cairn: &Cairn,
    tenant: &str,
    input: &SlotListInput,
) -> Result<Vec<(CollectionRecord, Slot)>> {
    let tags = normalize_tags(&input.tags)?;
    let group = non_empty(input.group.as_deref())
        .map(|g| normalize_group(&g))
        .transpose()?;
    let mut out = Vec::new();
    for r in cairn
        .store()
        .collections()
        .list_collections(tenant, CollectionKind::Slot, None)?
    {
        let slot = Slot::from_record(&r)?;
        let archived = slot.archived_at.is_some();
        if (archived && !input.include_archived && !input.archived_only)
            || (!archived && input.archived_only)
        {
            continue;
        }
        if !tags.iter().all(|t| slot.tags.contains(t)) {
            continue;
        }
        if let Some(g) = &group {
            let within = slot
                .group
                .as_deref()
                .is_some_and(|s| s == g || s.starts_with(&format!("{g}/")));
            if !within {
                continue;
            }
        }
        out.push((r, slot));
    }
    Ok(out)
}

/// A group of the slot tree.
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
pub struct GroupNode {
    /// The group's last segment (empty at the root).
    pub name: String,
    /// Its full path (empty at the root).
    pub path: String,
    /// Slots in it and below it.
    pub slots: usize,
    /// Entries of those slots.
    pub entries: usize,
    /// The slots directly in it.
    pub slot_names: Vec<String>,
    /// Its subgroups, by name.
    pub groups: Vec<GroupNode>,
}

/// The slots as a tree of groups with counts.
pub fn slot_tree(cairn: &Cairn, caller: &Caller, include_archived: bool) -> Result<GroupNode> {
    let slots = slot_list(
        cairn,
        caller,
        SlotListInput {
            include_archived,
            ..Default::default()
        },
    )?;
    let mut root = GroupNode::default();
    for s in &slots {
        let mut node = &mut root;
        node.slots += 1;
        node.entries += s.entries;
        let mut path = String::new();
        for seg in s
            .group
            .as_deref()
            .unwrap_or("")
            .split('/')
            .filter(|x| !x.is_empty())
        {
            path = if path.is_empty() {
                seg.to_string()
            } else {
                format!("{path}/{seg}")
            };
            let at = match node.groups.iter().position(|g| g.name == seg) {
                Some(i) => i,
                None => {
                    node.groups.push(GroupNode {
                        name: seg.to_string(),
                        path: path.clone(),
                        ..Default::default()
                    });
                    node.groups.len() - 1
                }
            };
            node = &mut node.groups[at];
            node.slots += 1;
            node.entries += s.entries;
        }
        node.slot_names.push(s.name.clone());
    }
    fn sort(n: &mut GroupNode) {
        n.groups.sort_by(|a, b| a.name.cmp(&b.name));
        n.slot_names.sort();
        n.groups.iter_mut().for_each(sort);
    }
    sort(&mut root);
    Ok(root)
}

/// Archive a slot: its entries leave default recall and listing (kept
/// as they are, found by naming the slot or with `include_archived`).
pub fn slot_archive(
    cairn: &Cairn,
    caller: &Caller,
    name: &str,
    reason: Option<String>,
) -> Result<SlotView> {
    let tenant = caller.tenant.as_str();
    let (rec, mut slot) = existing(cairn, tenant, name)?;
    if slot.archived_at.is_some() {
        return Err(Error::invalid(format!(
            "slot `{}` is archived already (restore it with `cairn slot restore {}`)",
            rec.id, rec.id
        )));
    }
    let ids: Vec<_> = entries(cairn, tenant, &rec.id)?
        .iter()
        .map(|m| m.id)
        .collect();
    let packed = cairn
        .store()
        .maintenance()
        .pack_contents(tenant, &ids, true)?;
    slot.packed = packed.first().map(|p| SlotPacking {
        algorithm: p.algorithm.to_string(),
        entries: packed.len(),
        original_bytes: packed.iter().map(|p| p.original_bytes as u64).sum(),
        stored_bytes: packed.iter().map(|p| p.stored_bytes as u64).sum(),
    });
    slot.archived_at = Some(cairn.now());
    slot.archive_reason = non_empty(reason.as_deref());
    put(cairn, &rec, &slot)?;
    let (rec, slot) = existing(cairn, tenant, &rec.id)?;
    Ok(view(&rec, &slot, &entries(cairn, tenant, &rec.id)?))
}

/// Restore an archived slot: its entries are in default recall again,
/// unchanged.
pub fn slot_restore(cairn: &Cairn, caller: &Caller, name: &str) -> Result<SlotView> {
    let tenant = caller.tenant.as_str();
    let (rec, mut slot) = existing(cairn, tenant, name)?;
    if slot.archived_at.is_none() {
        return Err(Error::invalid(format!("slot `{}` is not archived", rec.id)));
    }
    let ids: Vec<_> = entries(cairn, tenant, &rec.id)?
        .iter()
        .map(|m| m.id)
        .collect();
    cairn
        .store()
        .maintenance()
        .pack_contents(tenant, &ids, false)?;
    slot.archived_at = None;
    slot.archive_reason = None;
    slot.packed = None;
    put(cairn, &rec, &slot)?;
    let (rec, slot) = existing(cairn, tenant, &rec.id)?;
    Ok(view(&rec, &slot, &entries(cairn, tenant, &rec.id)?))
}

/// Slots not written or read for `days` days: candidates to archive.
pub fn archive_candidates(cairn: &Cairn, caller: &Caller, days: u32) -> Result<Vec<SlotView>> {
    let cutoff = cairn.now() - i64::from(days) * 86_400_000;
    Ok(slot_list(cairn, caller, SlotListInput::default())?
        .into_iter()
        .filter(|s| parse_timestamp(&s.last_access).unwrap_or(0) < cutoff)
        .collect())
}

/// Zero mode turned on or off: for one slot, or (no slot) for every slot
/// of the tenant. Stored, so every front end and session sees it.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct ZeroInput {
    /// On: every save is refused; off: saves are taken again.
    pub on: bool,
    /// This slot only (default: every slot).
    pub slot: Option<String>,
}

/// Zero mode after the change.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ZeroOutput {
    /// Whether it is on.
    pub zero: bool,
    /// The slot it is about (`None`: every slot).
    pub slot: Option<String>,
}

/// Turn zero mode on or off for one slot, or (no slot) for every slot of
/// the tenant.
pub fn slot_zero(cairn: &Cairn, caller: &Caller, input: ZeroInput) -> Result<ZeroOutput> {
    let tenant = caller.tenant.as_str();
    let slot = non_empty(input.slot.as_deref());
    match &slot {
        Some(name) => {
            let (rec, mut s) = existing(cairn, tenant, name)?;
            s.zero = input.on;
            put(cairn, &rec, &s)?;
        }
        None => {
            let now = cairn.now();
            let mut body = serde_json::Map::new();
            body.insert("on".into(), input.on.into());
            cairn
                .store()
                .collections()
                .put_collection(&CollectionRecord {
                    tenant: tenant.to_string(),
                    kind: CollectionKind::Setting,
                    id: ZERO_SETTING.into(),
                    parent: None,
                    body,
                    created_at: now,
                    updated_at: now,
                })?;
        }
    }
    Ok(ZeroOutput {
        zero: input.on,
        slot,
    })
}

/// Whether zero mode is on for the tenant (every slot).
pub fn zero_mode(cairn: &Cairn, caller: &Caller) -> Result<bool> {
    entries::tenant_zero(cairn, &caller.tenant)
}

/// A search of slots' entries.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct SlotSearchInput {
    /// The question or keywords.
    pub query: String,
    /// Only these slots (default: every slot the other filters admit).
    pub slots: Vec<String>,
    /// Only slots in this group or below it.
    pub group: Option<String>,
    /// Only slots with every one of these tags.
    pub tags: Vec<String>,
    /// Leave out slots with any of these tags.
    pub exclude_tags: Vec<String>,
    /// Archived slots too.
    pub include_archived: bool,
    /// Most results, 1 to 1000 (default 10).
    pub limit: Option<usize>,
}

/// Search slots' entries: hybrid recall restricted to the slots chosen,
/// each result with the query's words it contains marked in a snippet.
pub fn slot_search(
    cairn: &Cairn,
    caller: &Caller,
    input: SlotSearchInput,
) -> Result<super::RecallOutput> {
    let exclude = normalize_tags(&input.exclude_tags)?;
    let slots = if input.slots.is_empty() {
        let filter = SlotListInput {
            group: input.group,
            tags: input.tags,
            include_archived: input.include_archived,
            archived_only: false,
        };
        matching_slots(cairn, &caller.tenant, &filter)?
            .into_iter()
            .filter(|(_, s)| !s.tags.iter().any(|t| exclude.contains(t)))
            .map(|(r, _)| r.id)
            .collect()
    } else {
        input
            .slots
            .iter()
            .map(|s| normalize_slot_name(s))
            .collect::<Result<Vec<_>>>()?
    };
    if slots.is_empty() {
        return Err(Error::invalid(
            "no slot matches the search's filters (`cairn slot list` shows the slots)",
        ));
    }
    super::recall(
        cairn,
        caller,
        super::RecallInput {
            query: input.query,
            selection: Selection {
                slots,
                ..Default::default()
            },
            limit: input.limit,
            highlight: true,
            ..Default::default()
        },
    )
}
