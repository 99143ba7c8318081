//! Conformance checks of writes and reads in bulk: bulk loads, restores,
//! batched reads, `insert_unless_duplicate`, and the API key store.

#[allow(unused_imports)]
use super::*;

/// Bulk writes (a batch of hundreds of inserts, which a backend may copy
/// rather than insert row by row) keep a batch's guarantees: a stored or
/// repeated id refuses the whole batch, first versions are version 1, and
/// keyword and vector search find every row, inside and after a bulk load.
pub fn check_bulk_writes(store: Arc<dyn Store>) {
    store
        .set_model(&ModelInfo {
            name: "lexical-test".into(),
            dim: DIM,
        })
        .unwrap();
    let make = |from: u32, n: u32| -> Vec<(Memory, Vec<f32>)> {
        (from..from + n)
            .map(|i| {
                let m = sample(
                    i,
                    "default",
                    None,
                    MemoryType::Note,
                    &format!("bulk row r{i} zebra"),
                );
                (m, scattered(i, DIM))
            })
            .collect()
    };
    let first = make(0, 300);
    store.maintenance().begin_bulk(first.len()).unwrap();
    let changes = first
        .iter()
        .map(|(m, _)| Change::new(m.id, ChangeKind::Imported, LOCAL_ACTOR, T0))
        .collect();
    store
        .write(WriteBatch {
            inserts: first.clone(),
            changes,
            ..Default::default()
        })
        .unwrap();
    // A stored id anywhere in a big batch refuses it whole, naming the id.
    let mut second = make(300, 300);
    second.push(first[7].clone());
    match store.write(WriteBatch {
        inserts: second.clone(),
        ..Default::default()
    }) {
        Err(Error::DuplicateId(id)) => assert_eq!(id, first[7].0.id.to_string()),
        other => panic!("expected DuplicateId, got {other:?}"),
    }
    // So does an id given twice.
    second.pop();
    second.push(second[0].clone());
    assert!(matches!(
        store.write(WriteBatch {
            inserts: second.clone(),
            ..Default::default()
        }),
        Err(Error::DuplicateId(_))
    ));
    assert!(store.get("default", &[second[1].0.id]).unwrap().is_empty());
    let all = Filter::new("default", T0 + 10_000_000).everything();
    assert_eq!(store.count(&all).unwrap(), 300);
    // Searches answer during the bulk load and after it.
    for round in 0..2 {
        let hits = store.keyword_search("r123", &all, 5).unwrap();
        assert_eq!(
            hits.first().map(|h| h.id),
            Some(first[123].0.id),
            "round {round}"
        );
        let hits = store.vector_search(&first[42].1, &all, 3).unwrap();
        assert_eq!(
            hits.first().map(|h| h.id),
            Some(first[42].0.id),
            "round {round}"
        );
        store.maintenance().end_bulk().unwrap();
    }
    let history = store
        .histories("default", &[first[299].0.id])
        .unwrap()
        .remove(0);
    assert_eq!(history.len(), 1);
    assert_eq!(
        (history[0].number, history[0].kind, &history[0].memory),
        (1, ChangeKind::Imported, &first[299].0)
    );
    assert_eq!(
        store.embeddings("default", &[first[5].0.id]).unwrap(),
        vec![Some(first[5].1.clone())]
    );
}

/// [`Writing::restore`](crate::store::Writing::restore) writes another store's
/// records as they were: every memory with its embedding and history, every
/// receipt, every tenant; a stored id refuses the batch; a wrong dimension is
/// refused.
pub fn check_restore(store: Arc<dyn Store>, empty: Arc<dyn Store>) {
    let model = ModelInfo {
        name: "lexical-test".into(),
        dim: DIM,
    };
    store.set_model(&model).unwrap();
    let a = sample(
        1,
        "default",
        Some("atlas"),
        MemoryType::Fact,
        "first memory",
    );
    let b = sample(2, "default", None, MemoryType::Note, "second memory");
    let c = sample(3, "other", None, MemoryType::Note, "other tenant's memory");
    let changes = [&a, &b, &c]
        .iter()
        .map(|m| Change::new(m.id, ChangeKind::Created, LOCAL_ACTOR, m.created_at))
        .collect();
    store
        .write(WriteBatch {
            inserts: vec![
                (a.clone(), axis(1, DIM)),
                (b.clone(), axis(2, DIM)),
                (c.clone(), axis(3, DIM)),
            ],
            changes,
            ..Default::default()
        })
        .unwrap();
    let mut a2 = a.clone();
    a2.content = "first memory, changed".into();
    a2.updated_at += 5;
    store
        .write(WriteBatch {
            updates: vec![(a2.clone(), Some(axis(4, DIM)))],
            changes: vec![
                Change::new(a.id, ChangeKind::Updated, "alice", a2.updated_at).because("typo"),
            ],
            ..Default::default()
        })
        .unwrap();
    store
        .record_access("default", &[a.id], T0 + 99_000)
        .unwrap();
    store.delete("default", &[b.id], &forgotten()).unwrap();
    store
        .collections()
        .put_collection(&crate::collections::CollectionRecord {
            tenant: "third".into(),
            kind: crate::collections::CollectionKind::Session,
            id: "s1".into(),
            parent: None,
            body: Default::default(),
            created_at: T0,
            updated_at: T0,
        })
        .unwrap();
    assert_eq!(
        store.tenants(crate::TenantsWith::Anything).unwrap(),
        ["default", "other", "third"]
    );

    let source = everything(&*store);
    assert_eq!(source[0].1.len(), 1, "a remains in default");
    assert_eq!(source[0].1[0].2.len(), 2, "a has two versions");
    assert_eq!(source[0].2.len(), 1, "b's receipt");
    let batch = crate::store::Restore {
        memories: source
            .iter()
            .flat_map(|(_, rows, _)| rows.clone())
            .map(|(m, v, h)| (m, v.unwrap(), h))
            .collect(),
        receipts: source.iter().flat_map(|(_, _, r)| r.clone()).collect(),
    };
    // A wrong dimension is refused once a model is recorded.
    empty.set_model(&model).unwrap();
    let mut wrong = batch.clone();
    wrong.memories[0].1.push(0.0);
    assert!(matches!(empty.restore(wrong), Err(Error::InvalidInput(_))));
    empty.restore(batch.clone()).unwrap();
    let copied = everything(&*empty);
    // The collection's tenant has nothing but its collection, which the
    // store keeps apart: compare the tenants with records.
    let with_records = |all: &[(String, _, Vec<_>)]| -> Vec<String> {
        all.iter().map(|(t, _, _)| t.clone()).collect()
    };
    assert_eq!(with_records(&copied), ["default", "other"]);
    assert_eq!(copied, source[..2].to_vec());
    // Again: the ids are stored, nothing is written twice.
    assert!(matches!(empty.restore(batch), Err(Error::DuplicateId(_))));
    assert_eq!(everything(&*empty), copied);
}

/// Embeddings and id neighbours of many ids in one call: in the order
/// asked, confined to the tenant, `None` for what is not there.
pub fn check_batched_reads(store: Arc<dyn Store>) {
    let ms: Vec<Memory> = (0..4)
        .map(|i| sample(i, "default", None, MemoryType::Note, &format!("note {i}")))
        .collect();
    insert(
        &*store,
        ms.iter()
            .enumerate()
            .map(|(i, m)| (m.clone(), axis(i + 1, DIM)))
            .collect(),
    );
    let theirs = sample(9, "other", None, MemoryType::Note, "not yours");
    insert(&*store, vec![(theirs.clone(), axis(9, DIM))]);
    let unknown = MemoryId::new_at(T0 + 500);
    let asked = [ms[2].id, unknown, ms[0].id, theirs.id];
    let got = store.embeddings("default", &asked).unwrap();
    assert_eq!(got.len(), 4);
    assert_eq!(got[0].as_deref(), Some(axis(3, DIM).as_slice()));
    assert!(got[1].is_none() && got[3].is_none());
    assert_eq!(got[2].as_deref(), Some(axis(1, DIM).as_slice()));
    let near = store
        .id_neighbours("default", &[ms[1].id, ms[0].id, ms[3].id])
        .unwrap();
    assert_eq!(near[0], (Some(ms[0].id), Some(ms[2].id)));
    assert_eq!(near[1], (None, Some(ms[1].id)));
    assert_eq!(near[2].0, Some(ms[2].id), "not another tenant's");
    assert!(store.embeddings("default", &[]).unwrap().is_empty());
}

/// `insert_unless_duplicate` finds a stored near-twin of the same tenant,
/// type and project that is neither expired nor superseded, and writes
/// nothing then; anything else is inserted.
pub fn check_insert_unless_duplicate(store: Arc<dyn Store>) {
    with_model(&*store);
    let v = axis(7, DIM);
    let twin = |i: u32, tenant: &str, project: Option<&str>, kind: MemoryType| {
        sample(
            i,
            tenant,
            project,
            kind,
            "the deploy key lives in the vault",
        )
    };
    let first = twin(1, "default", Some("atlas"), MemoryType::Fact);
    assert_eq!(
        store
            .insert_unless_duplicate(first.clone(), v.clone(), 0.92, LOCAL_ACTOR)
            .unwrap(),
        Inserted::New
    );
    match store
        .insert_unless_duplicate(
            twin(2, "default", Some("atlas"), MemoryType::Fact),
            v.clone(),
            0.92,
            LOCAL_ACTOR,
        )
        .unwrap()
    {
        Inserted::Duplicate { id, similarity } => {
            assert_eq!(id, first.id);
            assert!(similarity > 0.99, "{similarity}");
        }
        other => panic!("expected a duplicate, got {other:?}"),
    }
    assert_eq!(store.count(&filter_all("default")).unwrap(), 1);
    let others = [
        twin(3, "default", Some("atlas"), MemoryType::Rule),
        twin(4, "default", None, MemoryType::Fact),
        twin(5, "other", Some("atlas"), MemoryType::Fact),
    ];
    for m in others {
        assert_eq!(
            store
                .insert_unless_duplicate(m, v.clone(), 0.92, LOCAL_ACTOR)
                .unwrap(),
            Inserted::New
        );
    }
    // A near-twin that expired or was superseded does not count.
    let mut expired = twin(6, "default", Some("beta"), MemoryType::Fact);
    expired.expires_at = Some(T0);
    let mut superseded = twin(7, "default", Some("gamma"), MemoryType::Fact);
    superseded.superseded_by = Some(first.id);
    insert(&*store, vec![(expired, v.clone()), (superseded, v.clone())]);
    for (i, project) in [(8, "beta"), (9, "gamma")] {
        let m = twin(i, "default", Some(project), MemoryType::Fact);
        assert_eq!(
            store
                .insert_unless_duplicate(m, v.clone(), 0.92, LOCAL_ACTOR)
                .unwrap(),
            Inserted::New,
            "{project}"
        );
    }
    // Below the threshold: inserted.
    let far = twin(10, "default", Some("atlas"), MemoryType::Fact);
    assert_eq!(
        store
            .insert_unless_duplicate(far, axis(8, DIM), 0.92, LOCAL_ACTOR)
            .unwrap(),
        Inserted::New
    );
    // An id that is stored: refused.
    let e = store
        .insert_unless_duplicate(first, axis(9, DIM), 0.92, LOCAL_ACTOR)
        .unwrap_err();
    assert!(matches!(e, Error::DuplicateId(_)), "{e:?}");
}

/// API keys: stored without their secret, found by id, listed by tenant
/// oldest first; a taken id is [`Error::DuplicateId`]; revoking keeps the
/// first revocation time; use is recorded.
pub fn check_keys(store: Arc<dyn Store>) {
    use crate::keys::{ApiKey, Role};
    let keys = store.key_store();
    let key = |id: &str, tenant: &str, at: i64| ApiKey {
        id: id.into(),
        tenant: tenant.into(),
        role: Role::Write,
        label: Some(format!("{tenant}'s {id}")),
        hash: [at as u8; 32],
        created_at: at,
        expires_at: Some(at + 1_000),
        last_used_at: None,
        revoked_at: None,
    };
    let a1 = key("aaaaaaaaaaa1", "alice", 20);
    let a2 = ApiKey {
        role: Role::Read,
        label: None,
        expires_at: None,
        ..key("aaaaaaaaaaa2", "alice", 10)
    };
    let b1 = ApiKey {
        role: Role::Admin,
        ..key("bbbbbbbbbbb1", "bob", 15)
    };
    for k in [&a1, &a2, &b1] {
        keys.insert_key(k).unwrap();
    }
    assert!(matches!(
        keys.insert_key(&key("aaaaaaaaaaa1", "bob", 30)),
        Err(Error::DuplicateId(id)) if id == "aaaaaaaaaaa1"
    ));
    assert_eq!(
        keys.key("aaaaaaaaaaa1").unwrap().as_ref(),
        Some(&a1),
        "the first key was kept whole"
    );
    assert_eq!(keys.key("aaaaaaaaaaa2").unwrap().as_ref(), Some(&a2));
    assert_eq!(keys.key("cccccccccccc").unwrap(), None);
    let ids = |tenant: Option<&str>| -> Vec<String> {
        keys.keys(tenant)
            .unwrap()
            .into_iter()
            .map(|k| k.id)
            .collect()
    };
    assert_eq!(ids(None), ["aaaaaaaaaaa2", "bbbbbbbbbbb1", "aaaaaaaaaaa1"]);
    assert_eq!(ids(Some("alice")), ["aaaaaaaaaaa2", "aaaaaaaaaaa1"]);
    assert!(ids(Some("carol")).is_empty());

    assert!(keys.revoke_key("aaaaaaaaaaa1", 40).unwrap());
    assert!(keys.revoke_key("aaaaaaaaaaa1", 50).unwrap());
    assert!(!keys.revoke_key("cccccccccccc", 50).unwrap());
    assert_eq!(
        keys.key("aaaaaaaaaaa1").unwrap().unwrap().revoked_at,
        Some(40)
    );
    assert_eq!(keys.key("bbbbbbbbbbb1").unwrap().unwrap().revoked_at, None);

    keys.touch_key("bbbbbbbbbbb1", 60).unwrap();
    keys.touch_key("cccccccccccc", 60).unwrap();
    let b = keys.key("bbbbbbbbbbb1").unwrap().unwrap();
    assert_eq!(
        (b.last_used_at, b.role, b.hash),
        (Some(60), Role::Admin, [15; 32])
    );
}
