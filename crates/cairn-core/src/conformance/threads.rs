//! Conformance checks of conversation messages ([`crate::Thread`] on a
//! memory, searched with [`ThreadScope`]; the search context of a
//! message) and of the [`crate::collections::CollectionStore`].

use std::sync::Arc;

use serde_json::json;

use super::{axis, filter_all, insert, sample, DIM, T0};
use crate::collections::{CollectionKind, CollectionRecord};
use crate::history::{Change, ChangeKind, LOCAL_ACTOR};
use crate::memory::{MemoryType, Thread};
use crate::store::{ListOrder, Store, ThreadScope, WriteBatch};

fn thread(session: &str, conversation: &str, topic: &str) -> Option<Thread> {
    Some(Thread {
        session: session.into(),
        conversation: conversation.into(),
        topic: topic.into(),
    })
}

/// A message's thread is stored, read back, kept in history, and every
/// search and listing can be confined to a session, conversation or topic;
/// its search context is kept and keyword search finds it by it.
pub fn check_thread_scopes(store: Arc<dyn Store>) {
    let texts = [
        ("s1", "c1", "c1#1", "the harbour migration plan"),
        ("s1", "c1", "c1#2", "the harbour holiday in portugal"),
        ("s2", "c1", "c1#2", "portugal harbour trip booked"),
        ("s2", "c2", "c2#1", "harbour css build failed"),
    ];
    let mut items = Vec::new();
    for (i, (s, c, t, text)) in texts.iter().enumerate() {
        let mut m = sample(i as u32, "default", None, MemoryType::Episode, text);
        m.thread = thread(s, c, t);
        items.push((m, axis(i + 1, DIM)));
    }
    // The last message is found by a word only its neighbour says.
    items[3].0.search_context = Some("did the zebra stylesheet compile".into());
    let outside = sample(
        9,
        "default",
        None,
        MemoryType::Fact,
        "harbour outside any chat",
    );
    items.push((outside.clone(), axis(9, DIM)));
    insert(&*store, items.clone());

    let got = store.get("default", &[items[1].0.id]).unwrap();
    assert_eq!(got[0].thread, thread("s1", "c1", "c1#2"));
    assert_eq!(store.get("default", &[outside.id]).unwrap()[0].thread, None);
    let last = &store.get("default", &[items[3].0.id]).unwrap()[0];
    assert_eq!(last, &items[3].0);
    let by_context = store
        .keyword_search("zebra", &filter_all("default"), 10)
        .unwrap();
    assert_eq!(by_context.len(), 1);
    assert_eq!(by_context[0].id, items[3].0.id);

    let scopes = [
        (ThreadScope::Session("s1".into()), vec![0, 1]),
        (ThreadScope::Conversation("c1".into()), vec![0, 1, 2]),
        (ThreadScope::Topic("c1#2".into()), vec![1, 2]),
        (ThreadScope::Conversation("nope".into()), vec![]),
    ];
    for (scope, expected) in scopes {
        let mut filter = filter_all("default");
        filter.thread = Some(scope.clone());
        let mut want: Vec<_> = expected.iter().map(|&i| items[i].0.id).collect();
        want.sort();
        let mut listed: Vec<_> = store
            .list(&filter, ListOrder::Oldest, 100, 0)
            .unwrap()
            .into_iter()
            .map(|m| m.id)
            .collect();
        listed.sort();
        assert_eq!(listed, want, "list in {scope:?}");
        assert_eq!(store.count(&filter).unwrap(), want.len(), "{scope:?}");
        let mut found: Vec<_> = store
            .keyword_search("harbour", &filter, 100)
            .unwrap()
            .into_iter()
            .map(|h| h.id)
            .collect();
        found.sort();
        assert_eq!(found, want, "keyword search in {scope:?}");
        let mut near: Vec<_> = store
            .vector_search(&axis(2, DIM), &filter, 100)
            .unwrap()
            .into_iter()
            .map(|h| h.id)
            .collect();
        near.sort();
        assert_eq!(near, want, "vector search in {scope:?}");
    }

    // Moving a message to another topic is a change history keeps: two
    // moves, so that the first version's state is what the second
    // overwrote.
    let mut moved = items[0].0.clone();
    for topic in ["c1#2", "c1#3"] {
        moved.thread = thread("s1", "c1", topic);
        moved.updated_at += 10;
        store
            .write(WriteBatch {
                updates: vec![(moved.clone(), None)],
                changes: vec![Change::new(
                    moved.id,
                    ChangeKind::Updated,
                    LOCAL_ACTOR,
                    moved.updated_at,
                )],
                ..Default::default()
            })
            .unwrap();
    }
    let mut filter = filter_all("default");
    filter.thread = Some(ThreadScope::Topic("c1#1".into()));
    assert_eq!(store.count(&filter).unwrap(), 0);
    let versions: Vec<_> = store
        .histories("default", &[moved.id])
        .unwrap()
        .remove(0)
        .into_iter()
        .map(|v| v.memory.thread)
        .collect();
    assert_eq!(
        versions,
        [thread("s1", "c1", "c1#2"), thread("s1", "c1", "c1#3")]
    );
}

fn record(
    tenant: &str,
    kind: CollectionKind,
    id: &str,
    parent: Option<&str>,
    at: i64,
) -> CollectionRecord {
    let mut body = serde_json::Map::new();
    body.insert("title".into(), json!(format!("{id} ✓")));
    CollectionRecord {
        tenant: tenant.into(),
        kind,
        id: id.into(),
        parent: parent.map(Into::into),
        body,
        created_at: at,
        updated_at: at,
    }
}

/// Collection records are kept per tenant and kind, replaced whole, listed in
/// creation order (by parent when asked) and deleted.
pub fn check_collections(store: Arc<dyn Store>) {
    let threads = store.collections();
    let conversation = record("a", CollectionKind::Conversation, "c1", None, T0);
    let topics = [
        record("a", CollectionKind::Topic, "c1#2", Some("c1"), T0 + 2),
        record("a", CollectionKind::Topic, "c1#1", Some("c1"), T0 + 1),
        record("a", CollectionKind::Topic, "c2#1", Some("c2"), T0 + 3),
    ];
    threads.put_collection(&conversation).unwrap();
    for t in &topics {
        threads.put_collection(t).unwrap();
    }
    // Same id, another tenant or kind: separate records.
    threads
        .put_collection(&record("b", CollectionKind::Conversation, "c1", None, T0))
        .unwrap();
    threads
        .put_collection(&record("a", CollectionKind::Session, "c1", None, T0))
        .unwrap();

    assert_eq!(
        threads
            .collection("a", CollectionKind::Conversation, "c1")
            .unwrap(),
        Some(conversation.clone())
    );
    assert_eq!(
        threads
            .collection("a", CollectionKind::Topic, "c9")
            .unwrap(),
        None
    );
    let ids = |records: Vec<CollectionRecord>| -> Vec<String> {
        records.into_iter().map(|r| r.id).collect()
    };
    assert_eq!(
        ids(threads
            .list_collections("a", CollectionKind::Topic, None)
            .unwrap()),
        ["c1#1", "c1#2", "c2#1"]
    );
    assert_eq!(
        ids(threads
            .list_collections("a", CollectionKind::Topic, Some("c1"))
            .unwrap()),
        ["c1#1", "c1#2"]
    );
    assert_eq!(
        ids(threads
            .list_collections("b", CollectionKind::Conversation, None)
            .unwrap()),
        ["c1"]
    );
    assert!(threads
        .list_collections("c", CollectionKind::Topic, None)
        .unwrap()
        .is_empty());

    let mut renamed = conversation.clone();
    renamed.body.insert("title".into(), json!("Renamed"));
    renamed.updated_at = T0 + 50;
    threads.put_collection(&renamed).unwrap();
    assert_eq!(
        threads
            .collection("a", CollectionKind::Conversation, "c1")
            .unwrap(),
        Some(renamed)
    );
    assert_eq!(
        threads
            .collection("b", CollectionKind::Conversation, "c1")
            .unwrap()
            .unwrap()
            .body["title"],
        json!("c1 ✓")
    );

    assert!(threads
        .delete_collection("a", CollectionKind::Topic, "c1#1")
        .unwrap());
    assert!(!threads
        .delete_collection("a", CollectionKind::Topic, "c1#1")
        .unwrap());
    assert!(threads
        .collection("b", CollectionKind::Conversation, "c1")
        .unwrap()
        .is_some());
    assert_eq!(
        ids(threads
            .list_collections("a", CollectionKind::Topic, None)
            .unwrap()),
        ["c1#2", "c2#1"]
    );
}
