//! One tenant's ids never reach into another's records: receipts are kept
//! per tenant, and an id another tenant holds answers as an unknown one.

use std::sync::Arc;

use serde_json::Map;

use super::{axis, insert, sample, DIM, T0};
use crate::engine::{Message, ObserveRequest, RememberRequest};
use crate::history::Deletion;
use crate::memory::{MemoryId, MemoryType};
use crate::store::Store;

/// A memory id freed by tenant A's deletion and then taken by tenant B:
/// B's deletion leaves a receipt of its own, and A's receipt is unchanged.
pub fn check_receipts_are_per_tenant(store: Arc<dyn Store>) {
    let a = sample(1, "alice", None, MemoryType::Fact, "alice's secret plan");
    insert(&*store, vec![(a.clone(), axis(1, DIM))]);
    let by_alice = Deletion::new("alice-key", "forgotten", T0 + 10);
    assert_eq!(store.delete("alice", &[a.id], &by_alice).unwrap(), 1);
    let mut b = sample(2, "bob", None, MemoryType::Fact, "bob's copy");
    b.id = a.id;
    insert(&*store, vec![(b.clone(), axis(2, DIM))]);
    let by_bob = Deletion::new("bob-key", "forgotten by bob", T0 + 20);
    assert_eq!(store.delete("bob", &[b.id], &by_bob).unwrap(), 1);
    let prefix = a.id.to_string();
    let alice = store.receipts("alice", &prefix, 10).unwrap();
    assert_eq!(alice.len(), 1, "{alice:?}");
    assert_eq!(alice[0].tenant, "alice");
    assert_eq!(alice[0].deletion, by_alice);
    let bob = store.receipts("bob", &prefix, 10).unwrap();
    assert_eq!(bob.len(), 1, "{bob:?}");
    assert_eq!(bob[0].deletion, by_bob);
}

/// A message logged with the id of another tenant's memory is written as
/// for an unknown id (under this tenant's copy of it, as an import does):
/// no `duplicate_id`, the other tenant's memory untouched, and logging it
/// again skips it.
pub fn engine_message_ids_never_reveal_another_tenant(store: Arc<dyn Store>) {
    let cairn = super::engine(store.clone());
    let alice = cairn
        .remember(RememberRequest::new(
            "alice",
            "alice's launch date is May 3",
        ))
        .unwrap()
        .id;
    let message = Message {
        conversation: "chat".into(),
        session: None,
        speaker: "bob".into(),
        text: "bob guesses an id".into(),
        at: Some(T0 - 1_000),
        id: Some(alice),
        metadata: Map::new(),
    };
    let req = ObserveRequest {
        tenant: "bob".into(),
        project: None,
        actor: "bob-key".into(),
    };
    let report = cairn.observe(&req, [message.clone()], &mut |_| {}).unwrap();
    assert_eq!(report.logged.len(), 1);
    let copy = report.logged[0].id;
    // Bob's id for the name is his tenant's, whoever holds the name: an
    // unknown name is renamed the same way.
    assert_eq!(copy, crate::engine::copy_id("bob", alice));
    let unknown = MemoryId::new_at(T0);
    let fresh = Message {
        id: Some(unknown),
        ..message.clone()
    };
    let other = cairn.observe(&req, [fresh], &mut |_| {}).unwrap();
    let renamed = crate::engine::copy_id("bob", unknown);
    assert_eq!(other.logged[0].id, renamed);
    assert!(cairn
        .get("bob", &copy.to_string())
        .unwrap()
        .content
        .contains("bob guesses"));
    let kept = store.get("alice", &[alice]).unwrap();
    assert_eq!(kept[0].content, "alice's launch date is May 3");
    assert!(store.get("bob", &[alice]).unwrap().is_empty());
    let again = cairn.observe(&req, [message], &mut |_| {}).unwrap();
    assert_eq!((again.logged.len(), again.skipped_existing), (0, 1));
}
