//! Conformance checks of slots (memcord's named memory collections): a
//! memory's [`crate::Memory::slot`] stored, read back and kept in history;
//! every search and listing confined to some slots ([`Filter::slots`]) or
//! leaving some out ([`Filter::hidden_slots`]); near-duplicates looked for
//! within a memory's own slot only; the engine's remember, update, revert,
//! import and export carrying the slot.

use std::sync::Arc;

use super::{axis, engine, filter_all, insert, sample, with_model, DIM, T0};
use crate::engine::{RememberRequest, UpdateRequest, WriteStatus};
use crate::history::{Change, ChangeKind, LOCAL_ACTOR};
use crate::memory::{Memory, MemoryId, MemoryType};
use crate::store::{Filter, Inserted, ListOrder, Store, WriteBatch};
use crate::wire::parse_record_line;
use crate::Error;

/// A fact of `tenant` in `slot` (or in none).
fn entry(i: u32, tenant: &str, slot: Option<&str>, content: &str) -> Memory {
    let mut m = sample(i, tenant, None, MemoryType::Fact, content);
    m.slot = slot.map(str::to_string);
    m
}

fn names(slots: &[&str]) -> Vec<String> {
    slots.iter().map(|s| s.to_string()).collect()
}

fn sorted(mut ids: Vec<MemoryId>) -> Vec<MemoryId> {
    ids.sort();
    ids
}

/// The ids `filter` admits, by each way of reading a store: listing,
/// keyword search (for `word`) and vector search (near `near`); and the
/// count, which must agree with the listing.
fn admitted(store: &dyn Store, filter: &Filter, word: &str, near: &[f32]) -> [Vec<MemoryId>; 3] {
    let listed: Vec<MemoryId> = store
        .list(filter, ListOrder::Oldest, 100, 0)
        .unwrap()
        .into_iter()
        .map(|m| m.id)
        .collect();
    assert_eq!(
        store.count(filter).unwrap(),
        listed.len(),
        "count under {filter:?}"
    );
    let found = store.keyword_search(word, filter, 100).unwrap();
    let near = store.vector_search(near, filter, 100).unwrap();
    [
        sorted(listed),
        sorted(found.into_iter().map(|h| h.id).collect()),
        sorted(near.into_iter().map(|h| h.id).collect()),
    ]
}

/// A memory's slot comes back from `get`, from a listing of everything in
/// id order (what an export reads) and in its first version; a memory in
/// no slot comes back in none.
pub fn check_slot_roundtrip(store: Arc<dyn Store>) {
    let mut inbox = entry(1, "default", Some("inbox"), "a slotted memory");
    inbox.project = Some("atlas".into());
    let work = entry(2, "default", Some("Work_2-b"), "another slot, mixed case");
    let loose = entry(3, "default", None, "in no slot at all");
    let changes = [&inbox, &work, &loose]
        .iter()
        .map(|m| Change::new(m.id, ChangeKind::Created, LOCAL_ACTOR, m.updated_at))
        .collect();
    store
        .write(WriteBatch {
            inserts: vec![
                (inbox.clone(), axis(1, DIM)),
                (work.clone(), axis(2, DIM)),
                (loose.clone(), axis(3, DIM)),
            ],
            changes,
            ..Default::default()
        })
        .unwrap();
    let got = store
        .get("default", &[work.id, loose.id, inbox.id])
        .unwrap();
    assert_eq!(got, vec![work.clone(), loose.clone(), inbox.clone()]);
    let listed = store
        .list(
            &Filter::new("default", T0).everything(),
            ListOrder::Id,
            100,
            0,
        )
        .unwrap();
    assert_eq!(listed, vec![inbox.clone(), work.clone(), loose.clone()]);
    for m in [&inbox, &work, &loose] {
        let versions = store.histories("default", &[m.id]).unwrap().remove(0);
        assert_eq!(versions.len(), 1);
        assert_eq!(versions[0].memory.slot, m.slot, "{}", m.content);
    }
    // Another tenant reads none of them.
    assert!(store.get("other", &[inbox.id]).unwrap().is_empty());
}

/// `slots` confines listing, counting, keyword and vector search to the
/// entries of those slots; `hidden_slots` leaves their entries out and
/// keeps everything else (memories in no slot, in other slots); a slot
/// named in both is left out; names are compared exactly; and another
/// tenant's entries of a slot of the same name never appear.
pub fn check_slot_filters(store: Arc<dyn Store>) {
    let layout: [(&str, Option<&str>, &str); 10] = [
        ("default", None, "harbour plan, in no slot"),
        ("default", Some("inbox"), "harbour inbox one"),
        ("default", Some("inbox"), "harbour inbox two"),
        ("default", Some("work"), "harbour work item"),
        (
            "default",
            Some("archive"),
            "harbour harbour harbour archived",
        ),
        ("default", Some("archive"), "harbour archived in a project"),
        ("other", Some("inbox"), "harbour inbox of another tenant"),
        (
            "other",
            Some("archive"),
            "harbour archive of another tenant",
        ),
        ("other", None, "harbour of another tenant, in no slot"),
        (
            "default",
            Some("inbox2"),
            "harbour in a slot named like inbox",
        ),
    ];
    let items: Vec<(Memory, Vec<f32>)> = layout
        .iter()
        .enumerate()
        .map(|(i, (tenant, slot, text))| {
            let mut m = entry(i as u32, tenant, *slot, text);
            if i == 5 {
                m.project = Some("atlas".into());
            }
            (m, axis(i + 1, DIM))
        })
        .collect();
    insert(&*store, items.clone());
    let id = |i: usize| items[i].0.id;
    // (tenant, slots, hidden slots, the memories admitted)
    type Case<'a> = (&'a str, &'a [&'a str], &'a [&'a str], &'a [usize]);
    let cases: [Case; 11] = [
        ("default", &[], &[], &[0, 1, 2, 3, 4, 5, 9]),
        ("default", &["inbox"], &[], &[1, 2]),
        ("default", &["inbox", "work"], &[], &[1, 2, 3]),
        ("default", &["nope"], &[], &[]),
        ("default", &["Inbox"], &[], &[]),
        ("default", &[], &["archive"], &[0, 1, 2, 3, 9]),
        ("default", &[], &["archive", "inbox"], &[0, 3, 9]),
        ("default", &["inbox", "archive"], &["archive"], &[1, 2]),
        ("other", &["inbox"], &[], &[6]),
        ("other", &[], &["archive"], &[6, 8]),
        ("nobody", &["inbox"], &[], &[]),
    ];
    for (tenant, slots, hidden, expected) in cases {
        let mut filter = filter_all(tenant);
        filter.slots = names(slots);
        filter.hidden_slots = names(hidden);
        let want = sorted(expected.iter().map(|&i| id(i)).collect());
        let [listed, found, near] = admitted(&*store, &filter, "harbour", &axis(2, DIM));
        assert_eq!(
            listed, want,
            "list of {tenant} in {slots:?}, hiding {hidden:?}"
        );
        assert_eq!(
            found, want,
            "keyword search of {tenant} in {slots:?}, hiding {hidden:?}"
        );
        assert_eq!(
            near, want,
            "vector search of {tenant} in {slots:?}, hiding {hidden:?}"
        );
    }
    // The best matches are hidden: the searches answer the next ones, up
    // to their limit, rather than fewer.
    let mut hiding = filter_all("default");
    hiding.hidden_slots = names(&["archive"]);
    let best = store
        .keyword_search("harbour", &filter_all("default"), 1)
        .unwrap();
    assert_eq!(best[0].id, id(4));
    let found = store.keyword_search("harbour", &hiding, 2).unwrap();
    assert_eq!(found.len(), 2);
    assert!(found.iter().all(|h| h.id != id(4) && h.id != id(5)));
    let near = store
        .vector_search(&axis(5, DIM), &filter_all("default"), 1)
        .unwrap();
    assert_eq!(near[0].id, id(4));
    let near = store.vector_search(&axis(5, DIM), &hiding, 2).unwrap();
    assert_eq!(near.len(), 2);
    assert!(near.iter().all(|h| h.id != id(4) && h.id != id(5)));
    // Slots and the other conditions hold together: the scope still
    // applies inside a slot.
    let mut global_archive = Filter::new("default", T0);
    global_archive.slots = names(&["archive"]);
    let [listed, found, near] = admitted(&*store, &global_archive, "harbour", &axis(2, DIM));
    assert_eq!(listed, vec![id(4)]);
    assert_eq!(found, vec![id(4)]);
    assert_eq!(near, vec![id(4)]);
}

/// Moving a memory between slots (an update) moves it between filters
/// in every way of reading the store, and its versions keep the slot each
/// change left it in.
pub fn check_slot_moves(store: Arc<dyn Store>) {
    let mut m = entry(1, "default", Some("inbox"), "the quarry report is due");
    let stay = entry(2, "default", Some("archive"), "the quarry was closed");
    store
        .write(WriteBatch {
            inserts: vec![(m.clone(), axis(1, DIM)), (stay.clone(), axis(2, DIM))],
            changes: vec![Change::new(
                m.id,
                ChangeKind::Created,
                LOCAL_ACTOR,
                m.updated_at,
            )],
            ..Default::default()
        })
        .unwrap();
    let in_slot = |slot: &str| {
        let mut f = filter_all("default");
        f.slots = names(&[slot]);
        admitted(&*store, &f, "quarry", &axis(1, DIM))
    };
    let hiding_archive = || {
        let mut f = filter_all("default");
        f.hidden_slots = names(&["archive"]);
        admitted(&*store, &f, "quarry", &axis(1, DIM))
    };
    assert_eq!(in_slot("inbox"), [vec![m.id], vec![m.id], vec![m.id]]);
    assert_eq!(hiding_archive(), [vec![m.id], vec![m.id], vec![m.id]]);

    for slot in [Some("archive"), None] {
        m.slot = slot.map(str::to_string);
        m.updated_at += 10;
        store
            .write(WriteBatch {
                updates: vec![(m.clone(), None)],
                changes: vec![Change::new(
                    m.id,
                    ChangeKind::Updated,
                    LOCAL_ACTOR,
                    m.updated_at,
                )],
                ..Default::default()
            })
            .unwrap();
        assert_eq!(store.get("default", &[m.id]).unwrap(), vec![m.clone()]);
        let none = [vec![], vec![], vec![]];
        assert_eq!(in_slot("inbox"), none, "moved to {slot:?}");
        let archived = sorted(vec![m.id, stay.id]);
        match slot {
            Some(_) => {
                assert_eq!(in_slot("archive"), [(); 3].map(|_| archived.clone()));
                assert_eq!(hiding_archive(), none);
            }
            None => {
                assert_eq!(in_slot("archive"), [(); 3].map(|_| vec![stay.id]));
                assert_eq!(hiding_archive(), [vec![m.id], vec![m.id], vec![m.id]]);
            }
        }
    }
    let versions: Vec<Option<String>> = store
        .histories("default", &[m.id])
        .unwrap()
        .remove(0)
        .into_iter()
        .map(|v| v.memory.slot)
        .collect();
    assert_eq!(
        versions,
        [Some("inbox".to_string()), Some("archive".to_string()), None]
    );
}

/// `insert_unless_duplicate` looks for a near-twin in the memory's own
/// slot only (or among the memories in no slot), however many near-twins
/// other slots hold.
pub fn check_slot_dedup(store: Arc<dyn Store>) {
    with_model(&*store);
    let v = axis(7, DIM);
    let text = "the deploy key lives in the vault";
    // More near-twins in other slots than a search for candidates reads.
    let crowd: Vec<(Memory, Vec<f32>)> = (0..12)
        .map(|i| {
            let slot = format!("s{i}");
            (entry(20 + i, "default", Some(&slot), text), v.clone())
        })
        .collect();
    insert(&*store, crowd);
    let offer = |m: &Memory| {
        store
            .insert_unless_duplicate(m.clone(), v.clone(), 0.92, LOCAL_ACTOR)
            .unwrap()
    };
    let duplicate_of = |outcome: Inserted| match outcome {
        Inserted::Duplicate { id, .. } => id,
        other => panic!("expected a duplicate, got {other:?}"),
    };
    for (i, slot) in [(1, Some("inbox")), (3, Some("work")), (5, None)] {
        let first = entry(i, "default", slot, text);
        assert_eq!(offer(&first), Inserted::New, "{slot:?}");
        let twin = entry(i + 1, "default", slot, text);
        assert_eq!(duplicate_of(offer(&twin)), first.id, "{slot:?}");
    }
    // The twelve, the inbox's, the work slot's and the one in no slot.
    assert_eq!(store.count(&filter_all("default")).unwrap(), 15);
}

/// Packing (an archived slot's long entries kept compressed) changes no
/// read: `get`, a listing, history, keyword and vector search answer the
/// same text byte for byte, packed and unpacked again; short texts and
/// other tenants' memories are left alone; every size a backend reports is
/// its text's length and what it keeps smaller.
pub fn check_packing(store: Arc<dyn Store>) {
    with_model(&*store);
    // A long text (Unicode, a NUL, 1 MiB) that compresses well, and
    // a short one.
    let long: String = "Grüße — 日本語 the zeppelin manifest lists every crate. "
        .repeat(16_000)
        .chars()
        .take(1 << 20)
        .collect();
    let big = entry(1, "default", Some("archive"), &long);
    let small = entry(2, "default", Some("archive"), "a short zeppelin note");
    let other = entry(3, "other", Some("archive"), &long);
    insert(
        &*store,
        vec![
            (big.clone(), axis(1, DIM)),
            (small.clone(), axis(2, DIM)),
            (other.clone(), axis(3, DIM)),
        ],
    );
    let reads = |id: MemoryId, tenant: &str| {
        let got = store.get(tenant, &[id]).unwrap().remove(0).content;
        let history = store.histories(tenant, &[id]).unwrap().remove(0);
        let listed = store
            .list(&filter_all(tenant), ListOrder::Oldest, 10, 0)
            .unwrap()
            .into_iter()
            .find(|m| m.id == id)
            .unwrap()
            .content;
        let found = store
            .keyword_search("zeppelin manifest", &filter_all(tenant), 10)
            .unwrap()
            .iter()
            .any(|h| h.id == id);
        (got, history.len(), listed, found)
    };
    let before = reads(big.id, "default");
    assert!(before.0 == long && before.3, "stored and found");

    let ids = [big.id, small.id, other.id];
    let packed = store
        .maintenance()
        .pack_contents("default", &ids, true)
        .unwrap();
    for p in &packed {
        assert_eq!(p.id, big.id, "only the long entry of the tenant: {p:?}");
        assert_eq!(p.original_bytes, long.len());
        assert!(p.stored_bytes < p.original_bytes / 4, "{p:?}");
        assert!(!p.algorithm.is_empty());
    }
    assert!(reads(big.id, "default") == before, "packed reads differ");
    assert_eq!(
        store.get("default", &[small.id]).unwrap()[0].content,
        small.content
    );
    assert!(
        store
            .vector_search(&axis(1, DIM), &filter_all("default"), 1)
            .unwrap()[0]
            .id
            == big.id
    );
    // Packing twice changes nothing more.
    let again = store
        .maintenance()
        .pack_contents("default", &ids, true)
        .unwrap();
    assert!(again.len() <= packed.len());

    store
        .maintenance()
        .pack_contents("default", &ids, false)
        .unwrap();
    assert!(reads(big.id, "default") == before, "unpacked reads differ");
    assert!(store.get("other", &[other.id]).unwrap()[0].content == long);

    // An update of a packed memory stores the new text.
    store
        .maintenance()
        .pack_contents("default", &ids, true)
        .unwrap();
    let mut changed = store.get("default", &[big.id]).unwrap().remove(0);
    changed.content.push_str(" One more line.");
    changed.updated_at += 1;
    store
        .write(WriteBatch {
            updates: vec![(changed.clone(), None)],
            changes: vec![Change::new(
                big.id,
                ChangeKind::Updated,
                LOCAL_ACTOR,
                changed.updated_at,
            )],
            ..Default::default()
        })
        .unwrap();
    assert!(store.get("default", &[big.id]).unwrap()[0].content == changed.content);
    let history = store.histories("default", &[big.id]).unwrap().remove(0);
    assert_eq!(
        history.len(),
        before.1 + 1,
        "the update is one version more"
    );
    let last = &history.last().unwrap().memory.content;
    assert!(
        *last == changed.content,
        "the update's version has its text"
    );
}

/// The engine stores a remembered memory's slot (checked), dedups within
/// a slot only, moves a memory between slots on update (a version naming
/// `slot`), restores a version's slot on revert, and carries slots
/// through export and import.
pub fn engine_slots(store: Arc<dyn Store>, empty: Arc<dyn Store>) {
    let cairn = engine(store.clone());
    let remember = |slot: Option<&str>| {
        let mut req = RememberRequest::new("default", "the staging database runs on port 5433");
        req.kind = MemoryType::Fact;
        req.slot = slot.map(str::to_string);
        cairn.remember(req)
    };
    let first = remember(Some(" inbox ")).unwrap();
    assert_eq!(first.status, WriteStatus::Created);
    let stored = cairn.peek("default", &first.id.to_string()).unwrap();
    assert_eq!(stored.slot.as_deref(), Some("inbox"));
    let other_slot = remember(Some("work")).unwrap();
    assert_eq!(other_slot.status, WriteStatus::Created);
    assert_ne!(other_slot.id, first.id);
    let loose = remember(None).unwrap();
    assert_eq!(loose.status, WriteStatus::Created);
    let again = remember(Some("inbox")).unwrap();
    assert_eq!(again.status, WriteStatus::Deduplicated);
    assert_eq!(again.id, first.id);
    let before = store.count(&filter_all("default")).unwrap();
    for bad in ["../inbox", "two words", ""] {
        let e = remember(Some(bad)).unwrap_err();
        assert!(matches!(e, Error::InvalidInput(_)), "{bad:?}: {e:?}");
    }
    assert_eq!(store.count(&filter_all("default")).unwrap(), before);

    let id = first.id.to_string();
    let moved = cairn
        .update(
            "default",
            &id,
            UpdateRequest {
                slot: Some(Some("archive".into())),
                ..Default::default()
            },
            LOCAL_ACTOR,
        )
        .unwrap();
    assert_eq!(moved.slot.as_deref(), Some("archive"));
    let e = cairn
        .update(
            "default",
            &id,
            UpdateRequest {
                slot: Some(Some("a/b".into())),
                ..Default::default()
            },
            LOCAL_ACTOR,
        )
        .unwrap_err();
    assert!(matches!(e, Error::InvalidInput(_)), "{e:?}");
    let out = cairn
        .update(
            "default",
            &id,
            UpdateRequest {
                slot: Some(None),
                ..Default::default()
            },
            LOCAL_ACTOR,
        )
        .unwrap();
    assert_eq!(out.slot, None);
    let history = cairn.history("default", &id).unwrap().versions;
    let slots: Vec<Option<&str>> = history.iter().map(|v| v.memory.slot.as_deref()).collect();
    // Created, deduplicated, moved to the archive, moved out.
    assert_eq!(slots, [Some("inbox"), Some("inbox"), Some("archive"), None]);
    assert_eq!(history[2].reason.as_deref(), Some("slot"));
    let reverted = cairn.revert("default", &id, 3, LOCAL_ACTOR).unwrap();
    assert_eq!(reverted.slot.as_deref(), Some("archive"));

    let mut lines = Vec::new();
    cairn
        .export("default", false, &mut |r| {
            lines.push(serde_json::to_string(&r).unwrap());
            Ok(())
        })
        .unwrap();
    assert_eq!(
        lines.iter().filter(|l| l.contains(r#""slot":"#)).count(),
        2,
        "{lines:#?}"
    );
    let target = engine(empty);
    let records = lines
        .iter()
        .enumerate()
        .map(|(i, l)| (i + 1, parse_record_line(l)));
    target
        .import("default", records, true, LOCAL_ACTOR, &mut |_| {})
        .unwrap();
    let mut again = Vec::new();
    target
        .export("default", false, &mut |r| {
            again.push(serde_json::to_string(&r).unwrap());
            Ok(())
        })
        .unwrap();
    assert_eq!(again, lines);
    let mut archived = Filter::new("default", T0).everything();
    archived.slots = names(&["archive"]);
    assert_eq!(target.store().count(&archived).unwrap(), 1);
}
