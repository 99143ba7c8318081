//! The slot operations on an in-memory store with a fixed clock.

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
    let zero = |slot: Option<&str>, on| ZeroInput {
        on,
        slot: slot.map(str::to_string),
    };
    for slot in [Some("notes"), None] {
        let out = slot_zero(&c, &caller, zero(slot, true)).unwrap();
        assert!(out.zero);
        assert_eq!(zero_mode(&c, &caller).unwrap(), slot.is_none());
        let e = slot_save(
            &c,
            &caller,
            SaveInput {
                name: "notes".into(),
                text: "must not be stored".into(),
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
                ..Default::default()
            },
        );
        // A slot's own zero mode leaves the other slots alone.
        assert_eq!(e.is_ok(), slot.is_some());
        assert!(!slot_zero(&c, &caller, zero(slot, false)).unwrap().zero);
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
    let preview = slot_merge(&c, &caller, &["a".into(), "b".into()], "all", true, false).unwrap();
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

#[test]
fn a_slot_lists_its_entries_most_used_words_as_keywords() {
    let (c, _) = engine();
    save(
        &c,
        "ops",
        "The deploy pipeline failed: the deploy key expired.",
    );
    let out = save(&c, "ops", "Rotated the deploy key; pipeline green again.");
    assert_eq!(
        out.slot.keywords[..3],
        ["deploy", "pipeline", "key"],
        "{:?}",
        out.slot.keywords
    );
    assert!(!out.slot.keywords.iter().any(|k| k == "the"));
}
