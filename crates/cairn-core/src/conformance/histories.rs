//! Many memories' histories in one call, in the order asked, each
//! tenant's only.

use std::sync::Arc;

use super::{axis, sample, DIM, T0};
use crate::history::{Change, ChangeKind};
use crate::memory::{MemoryId, MemoryType};
use crate::store::{Store, WriteBatch};

/// [`Reading::histories`](crate::store::Reading::histories) answers one
/// list of versions per id asked, in the order asked (an id repeated
/// answers twice); an id that is not stored, or is another tenant's,
/// answers an empty list; each memory's versions come oldest first.
pub fn check_histories_in_one_call(store: Arc<dyn Store>) {
    let a = sample(1, "alice", None, MemoryType::Fact, "alice's first note");
    let b = sample(2, "alice", None, MemoryType::Fact, "alice's second note");
    let c = sample(3, "bob", None, MemoryType::Fact, "bob's note");
    let created = |m: &crate::Memory| Change::new(m.id, ChangeKind::Created, "alice", m.updated_at);
    store
        .write(WriteBatch {
            inserts: vec![
                (a.clone(), axis(1, DIM)),
                (b.clone(), axis(2, DIM)),
                (c.clone(), axis(3, DIM)),
            ],
            changes: vec![created(&a), created(&b), created(&c)],
            ..Default::default()
        })
        .unwrap();
    let mut b2 = b.clone();
    b2.content = "alice's second note, corrected".into();
    b2.updated_at = T0 + 60_000;
    store
        .write(WriteBatch {
            updates: vec![(b2.clone(), None)],
            changes: vec![
                Change::new(b.id, ChangeKind::Updated, "alice", b2.updated_at).because("typo"),
            ],
            ..Default::default()
        })
        .unwrap();
    let missing = MemoryId::new_at(T0 + 5_000);

    let asked = [b.id, missing, c.id, a.id, b.id];
    let got = store.histories("alice", &asked).unwrap();
    let summary: Vec<Vec<(u32, ChangeKind, String)>> = got
        .iter()
        .map(|versions| {
            versions
                .iter()
                .map(|v| (v.number, v.kind, v.memory.content.clone()))
                .collect()
        })
        .collect();
    let b_versions = vec![
        (1, ChangeKind::Created, b.content.clone()),
        (2, ChangeKind::Updated, b2.content.clone()),
    ];
    assert_eq!(
        summary,
        vec![
            b_versions.clone(),
            vec![],
            vec![],
            vec![(1, ChangeKind::Created, a.content.clone())],
            b_versions,
        ],
        "one answer per id asked, in order; bob's memory and an unknown id answer nothing"
    );
    assert_eq!(got[0][1].reason.as_deref(), Some("typo"));
    assert!(got.iter().flatten().all(|v| v.memory.tenant == "alice"));
    assert_eq!(store.histories("bob", &[c.id]).unwrap()[0].len(), 1);
    assert!(store.histories("alice", &[]).unwrap().is_empty());
}
