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
//!   them. Restoring is lossless: the entries were never changed.
//! - Export renders a slot as memcord's Markdown, plain text or JSON.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{non_empty, Caller, MemoryView, Selection};
use crate::analysis::sentences::split_sentences;
use crate::analysis::summary::{summarise, Target};
use crate::analysis::temporal::parse_time;
use crate::collections::{CollectionBody, CollectionKind, CollectionRecord, Slot};
use crate::engine::{Cairn, RememberRequest, UpdateRequest};
use crate::memory::{normalize_slot_name, normalize_tags, Memory, MemoryId, MemoryType, Timestamp};
use crate::rank::cosine;
use crate::store::{Filter, ListOrder};
use crate::time::{format_timestamp, parse_timestamp};
use crate::{Error, Result};

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

/// A slot's entries, oldest first (in the order saved).
fn entries(cairn: &Cairn, tenant: &str, name: &str) -> Result<Vec<Memory>> {
    let mut filter = Filter::new(tenant, cairn.now()).everything();
    filter.slots = vec![name.to_string()];
    let mut all = cairn
        .store()
        .list(&filter, ListOrder::Oldest, MAX_ENTRIES, 0)?;
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
    if let Some(d) = input.description {
        slot.description = d.trim().to_string();
    }
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

/// One entry of a slot as answered.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct EntryView {
    /// Its place in the slot, from 1 (oldest).
    pub index: usize,
    /// `manual_save` or `auto_summary`.
    pub entry_type: String,
    /// The memory.
    pub memory: MemoryView,
    /// For a summary: characters of the text it summarises.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub original_length: Option<usize>,
    /// For a summary: its characters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary_length: Option<usize>,
}

fn entry_views(cairn: &Cairn, tenant: &str, all: &[Memory], from: usize) -> Result<Vec<EntryView>> {
    let views = MemoryView::of_all(cairn, tenant, all)?;
    Ok(all
        .iter()
        .zip(views)
        .enumerate()
        .map(|(i, (m, memory))| {
            let number = |k: &str| {
                m.metadata
                    .get(k)
                    .and_then(|v| v.as_u64())
                    .map(|n| n as usize)
            };
            EntryView {
                index: from + i + 1,
                entry_type: m
                    .metadata
                    .get("entry_type")
                    .and_then(|v| v.as_str())
                    .unwrap_or("manual_save")
                    .to_string(),
                memory,
                original_length: number("original_length"),
                summary_length: number("summary_length"),
            }
        })
        .collect())
}

/// What to save to a slot.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct SaveInput {
    /// The slot (made if it does not exist).
    pub name: String,
    /// The text.
    pub text: String,
    /// Save an extractive summary of the text instead, at `ratio`.
    pub progress: bool,
    /// The share of the text a summary keeps, 0.05–0.5 (default 0.15).
    pub ratio: Option<f64>,
    /// Who wrote it (kept as a contributor).
    pub author: Option<String>,
    /// Zero mode of the caller's session (MCP): refuse the save.
    #[serde(skip)]
    pub session_zero: bool,
}

/// What a save did.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct SaveOutput {
    /// The slot, after the save.
    pub slot: SlotView,
    /// The entry appended.
    pub entry: EntryView,
}

/// Whether saving is paused for the tenant (zero mode).
fn tenant_zero(cairn: &Cairn, tenant: &str) -> Result<bool> {
    Ok(cairn
        .store()
        .collections()
        .collection(tenant, CollectionKind::Setting, ZERO_SETTING)?
        .is_some_and(|r| r.body.get("on").and_then(|v| v.as_bool()) == Some(true)))
}

/// Append an entry to a slot (never replacing one), or, with `progress`,
/// an extractive summary of the text. Refused, writing nothing, in zero
/// mode.
pub fn slot_save(cairn: &Cairn, caller: &Caller, input: SaveInput) -> Result<SaveOutput> {
    let tenant = caller.tenant.as_str();
    let name = normalize_slot_name(&input.name)?;
    let found = record(cairn, tenant, &name)?;
    let off = |how: &str| {
        Err(Error::invalid(format!(
            "zero mode is on {how}: nothing was saved to `{name}`; turn it off with {}",
            match how {
                "for this session" => "`slot` action `zero` with `on: false`".to_string(),
                "for every slot" => "`cairn slot zero off`".to_string(),
                _ => format!("`cairn slot zero off --slot {name}`"),
            }
        )))
    };
    if input.session_zero {
        return off("for this session");
    }
    if tenant_zero(cairn, tenant)? {
        return off("for every slot");
    }
    if found.as_ref().is_some_and(|(_, s)| s.zero) {
        return off("for this slot");
    }
    if input.text.trim().is_empty() {
        return Err(Error::invalid("nothing to save: the text is empty"));
    }
    if found.is_none() {
        slot_set(
            cairn,
            caller,
            SlotInput {
                name: name.clone(),
                ..Default::default()
            },
        )?;
    }
    let (rec, mut slot) = existing(cairn, tenant, &name)?;
    let mut req = RememberRequest::new(tenant, input.text.clone());
    req.slot = Some(name.clone());
    req.dedup = false;
    req.source = Some("slot".into());
    req.actor.clone_from(&caller.actor);
    req.kind = MemoryType::Note;
    if let Some(a) = non_empty(input.author.as_deref()) {
        req.metadata.insert("author".into(), a.into());
    }
    // Entries saved within one millisecond keep the order they were saved.
    let seq = entries(cairn, tenant, &name)?.len() + 1;
    req.metadata.insert(SEQ_KEY.into(), seq.into());
    if input.progress {
        let ratio = input.ratio.unwrap_or(DEFAULT_SUMMARY_RATIO);
        if !(0.05..=0.5).contains(&ratio) {
            return Err(Error::invalid(format!(
                "the compression ratio must be between 0.05 and 0.5, got {ratio}"
            )));
        }
        let sentences = split_sentences(&input.text);
        let vectors = cairn.embedder().embed_batch(&sentences)?;
        let summary = summarise(&sentences, &vectors, Target::Ratio(ratio))?;
        req.content = summary.text;
        req.kind = MemoryType::Summary;
        for (k, v) in [
            ("entry_type", serde_json::json!("auto_summary")),
            (
                "original_length",
                serde_json::json!(input.text.chars().count()),
            ),
            ("summary_length", serde_json::json!(summary.summary_chars)),
            ("compression_ratio", serde_json::json!(ratio)),
        ] {
            req.metadata.insert(k.into(), v);
        }
        slot.last_summary_at = Some(cairn.now());
    } else {
        req.metadata
            .insert("entry_type".into(), "manual_save".into());
    }
    let outcome = cairn.remember(req)?;
    put(cairn, &rec, &slot)?;
    let all = entries(cairn, tenant, &name)?;
    let at = all.iter().position(|m| m.id == outcome.id).unwrap_or(0);
    let entry = entry_views(cairn, tenant, &all[at..=at], at)?
        .pop()
        .ok_or_else(|| Error::storage("the saved entry is missing"))?;
    let (rec, slot) = existing(cairn, tenant, &name)?;
    Ok(SaveOutput {
        slot: view(&rec, &slot, &all),
        entry,
    })
}

/// A slot with a page of its entries.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct SlotRead {
    /// The slot.
    pub slot: SlotView,
    /// The page of entries, oldest first.
    pub entries: Vec<EntryView>,
    /// Entries in all.
    pub total: usize,
}

/// A slot's entries in order, a page at a time (`offset` from the
/// oldest), all of them or only the summaries.
pub fn slot_read(
    cairn: &Cairn,
    caller: &Caller,
    name: &str,
    offset: usize,
    limit: Option<usize>,
    summaries_only: bool,
) -> Result<SlotRead> {
    let tenant = caller.tenant.as_str();
    let (rec, slot) = existing(cairn, tenant, name)?;
    let all = entries(cairn, tenant, &rec.id)?;
    let mut page = entry_views(cairn, tenant, &all, 0)?;
    if summaries_only {
        page.retain(|e| e.entry_type == "auto_summary");
    }
    let total = page.len();
    let page: Vec<EntryView> = page
        .into_iter()
        .skip(offset)
        .take(limit.unwrap_or(usize::MAX))
        .collect();
    Ok(SlotRead {
        slot: view(&rec, &slot, &all),
        entries: page,
        total,
    })
}

/// An entry picked by index or time.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Selected {
    /// The entry.
    pub entry: EntryView,
    /// How far its time is from the time asked for, in seconds (0 for an
    /// index).
    pub distance_seconds: i64,
    /// The time asked for (RFC 3339), for a time.
    pub asked: Option<String>,
}

/// The index `which` names, from 0: `-1` / `latest` / `last` (the newest),
/// `-2` / `2nd latest`, `1` / `first` (the oldest), `3`.
fn index_of(which: &str, len: usize) -> Option<usize> {
    let w = which.trim().to_ascii_lowercase();
    let from_end = |n: usize| (n >= 1 && n <= len).then(|| len - n);
    match w.as_str() {
        "latest" | "last" | "newest" => return from_end(1),
        "first" | "oldest" => return (len > 0).then_some(0),
        _ => {}
    }
    if let Ok(n) = w.parse::<i64>() {
        return match n {
            n if n < 0 => from_end(n.unsigned_abs() as usize),
            n if n >= 1 && (n as usize) <= len => Some(n as usize - 1),
            _ => None,
        };
    }
    let words: Vec<&str> = w.split_whitespace().collect();
    if let [ord, "latest" | "last" | "newest"] = words.as_slice() {
        let digits: String = ord.chars().take_while(char::is_ascii_digit).collect();
        return digits.parse::<usize>().ok().and_then(from_end);
    }
    None
}

const DAY_MS: i64 = 86_400_000;

/// `HH:MM` (24-hour) as milliseconds into the day.
fn clock_time(text: &str) -> Option<i64> {
    let (h, m) = text.trim().split_once(':')?;
    let (h, m): (i64, i64) = (h.trim().parse().ok()?, m.trim().parse().ok()?);
    ((0..24).contains(&h) && (0..60).contains(&m)).then_some((h * 60 + m) * 60_000)
}

/// The time `which` asks for: an RFC 3339 time; a time of day (`15:00`,
/// today); a day with a time of day (`yesterday 15:00`); or the middle of
/// a relative expression's range (`2 hours ago` is the window from three
/// to one hour ago, so its middle is two hours ago; `last Monday` is noon
/// of that Monday).
fn asked_time(which: &str, now: Timestamp) -> Option<Timestamp> {
    if let Ok(t) = parse_timestamp(which.trim()) {
        return Some(t);
    }
    if let Some(ms) = clock_time(which) {
        return Some(now - now.rem_euclid(DAY_MS) + ms);
    }
    let e = parse_time(which, now)?;
    let r = e.range;
    if r.start == crate::analysis::temporal::TimeRange::UNBOUNDED_START
        || r.end == crate::analysis::temporal::TimeRange::UNBOUNDED_END
    {
        return None;
    }
    let rest = crate::analysis::temporal::remove_time(which, &e);
    match clock_time(&rest) {
        Some(ms) if r.end - r.start == DAY_MS => Some(r.start + ms),
        _ => Some(r.start + (r.end - r.start) / 2),
    }
}

/// Pick one entry of a slot: by index (`-1`, `2nd latest`, `first`, `3`),
/// by time (RFC 3339), or by a relative time ("2 hours ago", "yesterday
/// 15:00", "last Monday"): the entry nearest that time, and how far.
pub fn slot_select(cairn: &Cairn, caller: &Caller, name: &str, which: &str) -> Result<Selected> {
    let tenant = caller.tenant.as_str();
    let (rec, _) = existing(cairn, tenant, name)?;
    let all = entries(cairn, tenant, &rec.id)?;
    if all.is_empty() {
        return Err(Error::NotFound(format!("slot `{}` has no entries", rec.id)));
    }
    let pick = |i: usize, distance_seconds: i64, asked: Option<Timestamp>| -> Result<Selected> {
        let entry = entry_views(cairn, tenant, &all[i..=i], i)?
            .pop()
            .ok_or_else(|| Error::storage("entry missing"))?;
        Ok(Selected {
            entry,
            distance_seconds,
            asked: asked.map(format_timestamp),
        })
    };
    if let Some(i) = index_of(which, all.len()) {
        return pick(i, 0, None);
    }
    let Some(asked) = asked_time(which, cairn.now()) else {
        return Err(Error::invalid(format!(
            "cannot read `{which}` as an entry: give an index (-1, 2nd latest, first, 3), a time (2024-05-08T15:00:00Z) or a relative time (2 hours ago, yesterday 15:00, last Monday); the slot has {} entries",
            all.len()
        )));
    };
    let (i, m) = all
        .iter()
        .enumerate()
        .min_by_key(|(_, m)| (m.created_at - asked).abs())
        .ok_or_else(|| Error::storage("no entries"))?;
    pick(i, (m.created_at - asked) / 1000, Some(asked))
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
        out.push(view(&r, &slot, &entries(cairn, tenant, &r.id)?));
    }
    out.sort_by(|a, b| a.priority.cmp(&b.priority).then(a.name.cmp(&b.name)));
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
    slot.archived_at = None;
    slot.archive_reason = None;
    put(cairn, &rec, &slot)?;
    let (rec, slot) = existing(cairn, tenant, &rec.id)?;
    Ok(view(&rec, &slot, &entries(cairn, tenant, &rec.id)?))
}

/// Slots not written or read for `days` days: candidates to archive.
pub fn archive_candidates(cairn: &Cairn, caller: &Caller, days: u32) -> Result<Vec<SlotView>> {
    let tenant = caller.tenant.as_str();
    let cutoff = cairn.now() - i64::from(days) * 86_400_000;
    let mut out = Vec::new();
    for s in slot_list(cairn, caller, SlotListInput::default())? {
        let all = entries(cairn, tenant, &s.name)?;
        let last = all
            .iter()
            .map(|m| m.updated_at.max(m.last_accessed_at.unwrap_or(0)))
            .max()
            .unwrap_or(0);
        let touched = parse_timestamp(&s.updated_at).unwrap_or(0).max(last);
        if touched < cutoff {
            out.push(s);
        }
    }
    Ok(out)
}

/// Turn zero mode on or off for one slot, or (no slot) for every slot of
/// the tenant. Answers whether it is on.
pub fn slot_zero(cairn: &Cairn, caller: &Caller, slot: Option<&str>, on: bool) -> Result<bool> {
    let tenant = caller.tenant.as_str();
    match non_empty(slot) {
        Some(name) => {
            let (rec, mut s) = existing(cairn, tenant, &name)?;
            s.zero = on;
            put(cairn, &rec, &s)?;
        }
        None => {
            let now = cairn.now();
            let mut body = serde_json::Map::new();
            body.insert("on".into(), on.into());
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
    Ok(on)
}

/// Whether zero mode is on for the tenant (every slot).
pub fn zero_mode(cairn: &Cairn, caller: &Caller) -> Result<bool> {
    tenant_zero(cairn, &caller.tenant)
}

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
                "entries": read.entries.iter().map(|e| serde_json::json!({
                    "id": e.memory.record.id,
                    "type": e.entry_type,
                    "content": e.memory.record.content,
                    "timestamp": e.memory.record.created_at,
                    "original_length": e.original_length,
                    "summary_length": e.summary_length,
                })).collect::<Vec<_>>(),
            });
            let mut text = serde_json::to_string_pretty(&value).map_err(Error::storage)?;
            text.push('\n');
            text
        }
        ExportFormat::Markdown => {
            let mut out = format!(
                "# Memory Slot: {}\n\n**Created:** {}\n**Updated:** {}\n**Tags:** {tags}\n**Group:** {group}\n\n## Description\n\n{}\n\n## Entries\n",
                s.name, s.created_at, s.updated_at, s.description
            );
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

/// The entries of one file: `.md` and `.txt` cut by [`split_document`],
/// `.json` a memcord slot file's entries, `.jsonl` Cairn's JSON Lines
/// records' contents.
fn file_entries(name: &str, text: &str) -> Result<Vec<String>> {
    let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    match ext.as_deref() {
        Some("md" | "markdown" | "txt" | "text") => Ok(split_document(text)),
        Some("json") => Ok(
            crate::importers::parse(crate::importers::Foreign::Memcord, text)?
                .memories
                .into_iter()
                .map(|m| m.content)
                .collect(),
        ),
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
    files: Vec<super::ForeignFile>,
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
    for (done, f) in files.into_iter().enumerate() {
        let mut line = ImportedFile {
            file: f.name.clone(),
            entries: 0,
            error: None,
        };
        match file_entries(&f.name, &f.text) {
            Err(e) => line.error = Some(e.to_string()),
            Ok(texts) => {
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

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicI64, Ordering};
    use std::sync::Arc;

    use super::*;
    use crate::api::{recall, RecallInput};
    use crate::conformance::LexicalEmbedder;
    use crate::MemoryStore;

    /// 2024-05-08T12:00:00Z, a Wednesday.
    const NOON: i64 = 1_715_169_600_000;
    const HOUR: i64 = 3_600_000;

    fn engine() -> (Cairn, Arc<AtomicI64>) {
        let clock = Arc::new(AtomicI64::new(NOON));
        let reader = clock.clone();
        let c = Cairn::new(Arc::new(MemoryStore::new()), Arc::new(LexicalEmbedder))
            .with_clock(Arc::new(move || reader.load(Ordering::Relaxed)));
        (c, clock)
    }

    fn save(c: &Cairn, name: &str, text: &str) -> SaveOutput {
        slot_save(
            c,
            &Caller::new("t"),
            SaveInput {
                name: name.into(),
                text: text.into(),
                ..Default::default()
            },
        )
        .unwrap()
    }

    fn recalled(c: &Cairn, query: &str, selection: Selection) -> Vec<String> {
        recall(
            c,
            &Caller::new("t"),
            RecallInput {
                query: query.into(),
                selection,
                ..Default::default()
            },
        )
        .unwrap()
        .results
        .into_iter()
        .map(|r| r.memory.record.content)
        .collect()
    }

    #[test]
    fn entries_are_selected_by_index_and_by_time_with_a_fixed_clock() {
        let (c, clock) = engine();
        let caller = Caller::new("t");
        // Entries at 08:00, 10:00 and 11:30 on 8 May 2024; now is noon.
        for (at, text) in [
            (NOON - 4 * HOUR, "first entry about the queue"),
            (NOON - 2 * HOUR, "second entry about the database"),
            (NOON - HOUR / 2, "third entry about the release"),
        ] {
            clock.store(at, Ordering::Relaxed);
            save(&c, "notes", text);
        }
        clock.store(NOON, Ordering::Relaxed);
        let text = |which: &str| {
            slot_select(&c, &caller, "notes", which)
                .unwrap()
                .entry
                .memory
                .record
                .content
        };
        assert_eq!(text("-1"), "third entry about the release");
        assert_eq!(text("latest"), "third entry about the release");
        assert_eq!(text("2nd latest"), "second entry about the database");
        assert_eq!(text("-3"), "first entry about the queue");
        assert_eq!(text("first"), "first entry about the queue");
        assert_eq!(text("2"), "second entry about the database");
        let two_hours = slot_select(&c, &caller, "notes", "2 hours ago").unwrap();
        assert_eq!(
            two_hours.entry.memory.record.content,
            "second entry about the database"
        );
        assert_eq!(two_hours.distance_seconds, 0);
        let at_ten = slot_select(&c, &caller, "notes", "today 10:05").unwrap();
        assert_eq!(at_ten.distance_seconds, -5 * 60);
        let yesterday = slot_select(&c, &caller, "notes", "yesterday 15:00").unwrap();
        assert_eq!(
            yesterday.entry.memory.record.content,
            "first entry about the queue"
        );
        assert_eq!(yesterday.asked.as_deref(), Some("2024-05-07T15:00:00.000Z"));
        let stamp = slot_select(&c, &caller, "notes", "2024-05-08T08:20:00Z").unwrap();
        assert_eq!(
            stamp.entry.memory.record.content,
            "first entry about the queue"
        );
        assert_eq!(stamp.distance_seconds, -20 * 60);
        let e = slot_select(&c, &caller, "notes", "-4").unwrap_err();
        assert!(e.to_string().contains("3 entries"), "{e}");
        assert!(slot_select(&c, &caller, "notes", "whenever").is_err());
    }

    #[test]
    fn zero_mode_refuses_every_save_and_writes_nothing() {
        let (c, _) = engine();
        let caller = Caller::new("t");
        save(&c, "notes", "kept before zero mode");
        let count = |c: &Cairn| {
            slot_read(c, &caller, "notes", 0, None, false)
                .unwrap()
                .total
        };
        for (slot, session) in [(Some("notes"), false), (None, false), (None, true)] {
            if !session {
                slot_zero(&c, &caller, slot, true).unwrap();
            }
            let e = slot_save(
                &c,
                &caller,
                SaveInput {
                    name: "notes".into(),
                    text: "must not be stored".into(),
                    session_zero: session,
                    ..Default::default()
                },
            )
            .unwrap_err();
            assert!(e.to_string().contains("zero mode is on"), "{e}");
            assert!(e.to_string().contains("turn it off"), "{e}");
            // A new slot is not made either.
            let e = slot_save(
                &c,
                &caller,
                SaveInput {
                    name: "other".into(),
                    text: "another slot's entry".into(),
                    session_zero: session,
                    ..Default::default()
                },
            );
            // A slot's own zero mode leaves the other slots alone.
            assert_eq!(e.is_ok(), slot.is_some());
            if !session {
                slot_zero(&c, &caller, slot, false).unwrap();
            }
        }
        assert_eq!(count(&c), 1);
        assert!(recalled(&c, "must not be stored", Selection::default())
            .iter()
            .all(|t| t != "must not be stored"));
    }

    #[test]
    fn archived_entries_leave_default_recall_and_come_back_unchanged() {
        let (c, _) = engine();
        let caller = Caller::new("t");
        let unicode = "Zürich → 東京: naïve café ☕ notes";
        let big = "x".repeat(1 << 20);
        save(&c, "trip", unicode);
        save(&c, "trip", &big);
        save(&c, "other", "a note about Zürich in another slot");
        let before = slot_read(&c, &caller, "trip", 0, None, false).unwrap();
        assert!(recalled(&c, "Zürich café", Selection::default())
            .iter()
            .any(|t| t == unicode));
        slot_archive(&c, &caller, "trip", Some("trip is over".into())).unwrap();
        let hidden = recalled(&c, "Zürich café", Selection::default());
        assert!(!hidden.iter().any(|t| t == unicode), "{hidden:?}");
        let prompt = crate::api::prompt(
            &c,
            &caller,
            crate::api::PromptInput {
                query: "Zürich café".into(),
                ..Default::default()
            },
        )
        .unwrap();
        assert!(!prompt.text.contains("naïve café"), "{}", prompt.text);
        assert!(prompt.text.contains("another slot"), "{}", prompt.text);
        assert!(hidden.iter().any(|t| t.contains("another slot")));
        let with = recalled(
            &c,
            "Zürich café",
            Selection {
                include_archived: true,
                ..Default::default()
            },
        );
        assert!(with.iter().any(|t| t == unicode));
        assert_eq!(
            slot_list(
                &c,
                &caller,
                SlotListInput {
                    archived_only: true,
                    ..Default::default()
                }
            )
            .unwrap()
            .len(),
            1
        );
        slot_restore(&c, &caller, "trip").unwrap();
        let after = slot_read(&c, &caller, "trip", 0, None, false).unwrap();
        let ids_and_text = |r: &SlotRead| {
            r.entries
                .iter()
                .map(|e| (e.memory.record.id.clone(), e.memory.record.content.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(ids_and_text(&before), ids_and_text(&after));
        assert_eq!(after.entries[1].memory.record.content.len(), 1 << 20);
        let e = slot_save(
            &c,
            &caller,
            SaveInput {
                name: "trip".into(),
                text: String::new(),
                ..Default::default()
            },
        )
        .unwrap_err();
        assert!(e.to_string().contains("empty"), "{e}");
    }

    #[test]
    fn a_merge_does_what_its_preview_said() {
        let (c, _) = engine();
        let caller = Caller::new("t");
        save(&c, "a", "the queue moves to NATS next sprint");
        save(&c, "a", "the release ships on friday");
        save(&c, "b", "the queue moves to NATS next sprint");
        save(&c, "b", "lunch options near the office");
        let preview =
            slot_merge(&c, &caller, &["a".into(), "b".into()], "all", true, false).unwrap();
        assert!(preview.preview);
        assert_eq!(preview.moved.len(), 3, "{preview:?}");
        assert_eq!(preview.duplicates.len(), 1);
        assert!(preview.duplicates[0].similarity >= MERGE_DUPLICATE);
        // The preview changed nothing.
        assert_eq!(
            slot_read(&c, &caller, "a", 0, None, false).unwrap().total,
            2
        );
        let done = slot_merge(&c, &caller, &["a".into(), "b".into()], "all", false, true).unwrap();
        assert_eq!(done.moved, preview.moved);
        assert_eq!(
            done.duplicates
                .iter()
                .map(|d| &d.dropped)
                .collect::<Vec<_>>(),
            preview
                .duplicates
                .iter()
                .map(|d| &d.dropped)
                .collect::<Vec<_>>()
        );
        let all = slot_read(&c, &caller, "all", 0, None, false).unwrap();
        let ids: Vec<String> = all
            .entries
            .iter()
            .map(|e| e.memory.id().to_string())
            .collect();
        let mut moved = done.moved.clone();
        moved.sort();
        let mut got = ids.clone();
        got.sort();
        assert_eq!(got, moved);
        assert!(
            slot_read(&c, &caller, "a", 0, None, false).is_err(),
            "sources deleted"
        );
    }

    #[test]
    fn renames_groups_tags_and_bad_names() {
        let (c, _) = engine();
        let caller = Caller::new("t");
        let saved = save(&c, "draft", "the plan for the migration");
        for bad in ["../x", "", "a b", &"n".repeat(300)] {
            let e = slot_set(
                &c,
                &caller,
                SlotInput {
                    name: bad.into(),
                    ..Default::default()
                },
            )
            .unwrap_err();
            assert_eq!(e.kind(), crate::ErrorKind::InvalidInput, "{bad}: {e}");
        }
        let e = slot_set(
            &c,
            &caller,
            SlotInput {
                name: "draft".into(),
                group: Some("/projects/".into()),
                ..Default::default()
            },
        )
        .unwrap_err();
        assert!(e.to_string().contains("group"), "{e}");
        let v = slot_set(
            &c,
            &caller,
            SlotInput {
                name: "draft".into(),
                rename: Some("plan".into()),
                group: Some("projects/alpha/dev".into()),
                add_tags: vec!["Infra".into()],
                priority: Some(1),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!((v.name.as_str(), v.entries, v.priority), ("plan", 1, 1));
        assert_eq!(v.tags, ["infra"]);
        let history = crate::api::history(&c, &caller, saved.entry.memory.id()).unwrap();
        assert!(
            serde_json::to_string(&history).unwrap().contains("slot"),
            "the move is in the history"
        );
        let tree = slot_tree(&c, &caller, false).unwrap();
        assert_eq!(tree.groups[0].name, "projects");
        assert_eq!(tree.groups[0].groups[0].groups[0].slot_names, ["plan"]);
        let md = slot_export(&c, &caller, "plan", ExportFormat::Markdown).unwrap();
        assert!(md.contains("**Group:** projects/alpha/dev"), "{md}");
    }
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
