//! A slot's entries: saving (and saving progress), reading, and picking
//! one by index or time.

use serde::{Deserialize, Serialize};

use super::super::{non_empty, Caller, MemoryView};
use crate::analysis::temporal::parse_time;
use crate::engine::{Cairn, RememberRequest};
use crate::memory::{normalize_slot_name, Memory, MemoryType, Timestamp};
use crate::time::{format_timestamp, parse_timestamp};
use crate::{Error, Result};

use super::*;

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
}

/// What a save did.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct SaveOutput {
    /// The slot, after the save.
    pub slot: SlotView,
    /// The entry appended.
    pub entry: EntryView,
    /// For a progress summary: whether the chat model or the extractive
    /// summariser wrote it, and why the model was not used if it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summarised_by: Option<crate::chat::Generated>,
}

/// Whether saving is paused for the tenant (zero mode).
pub(super) fn tenant_zero(cairn: &Cairn, tenant: &str) -> Result<bool> {
    Ok(cairn
        .store()
        .collections()
        .collection(tenant, CollectionKind::Setting, ZERO_SETTING)?
        .is_some_and(|r| r.body.get("on").and_then(|v| v.as_bool()) == Some(true)))
}

/// An error saying how to turn zero mode off if it is on for every slot
/// or for slot `name`: nothing may be written.
pub(super) fn refuse_in_zero_mode(cairn: &Cairn, caller: &Caller, name: &str) -> Result<()> {
    let (whom, flag) = if tenant_zero(cairn, &caller.tenant)? {
        ("every slot".to_string(), String::new())
    } else if record(cairn, &caller.tenant, name)?.is_some_and(|(_, s)| s.zero) {
        (format!("slot `{name}`"), format!(" --slot {name}"))
    } else {
        return Ok(());
    };
    Err(Error::invalid(format!(
        "zero mode is on for {whom}: nothing was saved to `{name}`; turn it off to save \
         (`cairn slot zero off{flag}`, the `slot` tool's `zero` action, or `PUT /v1/zero-mode`)"
    )))
}

/// Append an entry to a slot (never replacing one), or, with `progress`,
/// an extractive summary of the text. Refused, writing nothing, in zero
/// mode.
pub fn slot_save(cairn: &Cairn, caller: &Caller, input: SaveInput) -> Result<SaveOutput> {
    let tenant = caller.tenant.as_str();
    let name = normalize_slot_name(&input.name)?;
    let found = record(cairn, tenant, &name)?;
    refuse_in_zero_mode(cairn, caller, &name)?;
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
    let seq = cairn.store().count(&entry_filter(cairn, tenant, &name))? + 1;
    req.metadata.insert(SEQ_KEY.into(), seq.into());
    let mut summarised_by = None;
    if input.progress {
        let ratio = input.ratio.unwrap_or(DEFAULT_SUMMARY_RATIO);
        if !(0.05..=0.5).contains(&ratio) {
            return Err(Error::invalid(format!(
                "the compression ratio must be between 0.05 and 0.5, got {ratio}"
            )));
        }
        let (summary, made) = cairn.summary_by_ratio(&input.text, ratio)?;
        let generated = summarised_by.insert(made);
        let summary_chars = summary.chars().count();
        req.content = summary;
        req.kind = MemoryType::Summary;
        for (k, v) in [
            ("entry_type", serde_json::json!("auto_summary")),
            (
                "original_length",
                serde_json::json!(input.text.chars().count()),
            ),
            ("summary_length", serde_json::json!(summary_chars)),
            ("compression_ratio", serde_json::json!(ratio)),
            (
                "summarised_by",
                serde_json::json!(match &generated.model {
                    Some(m) => format!("llm:{m}"),
                    None => generated.by.clone(),
                }),
            ),
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
        summarised_by,
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
