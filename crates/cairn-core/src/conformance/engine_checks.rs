//! Conformance checks of the engine over a backend (with
//! [`LexicalEmbedder`](super::LexicalEmbedder)): dedup and warnings,
//! supersession and TTL, history, recall's scopes, import and export, the
//! model check, reindex and concurrent dedup.

#[allow(unused_imports)]
use super::*;

/// Remember dedups near-identical memories of the same type and scope,
/// never episodes, and warns about related ones.
pub fn engine_dedup_and_warnings(store: Arc<dyn Store>) {
    let cairn = engine(store.clone());
    let mut req = RememberRequest::new("default", "deploys happen on tuesdays after the standup");
    req.kind = MemoryType::Fact;
    req.tags = vec!["ops".into()];
    let first = cairn.remember(req.clone()).unwrap();
    assert_eq!(first.status, WriteStatus::Created);
    let mut again = req.clone();
    again.tags = vec!["release".into()];
    let second = cairn.remember(again).unwrap();
    assert_eq!(second.status, WriteStatus::Deduplicated);
    assert_eq!(second.id, first.id);
    let m = cairn.get("default", &first.id.to_string()).unwrap();
    assert_eq!(m.tags, vec!["ops", "release"]);
    // Another type, another scope, or --no-dedup: a new memory.
    let mut other_type = req.clone();
    other_type.kind = MemoryType::Decision;
    assert_eq!(
        cairn.remember(other_type).unwrap().status,
        WriteStatus::Created
    );
    let mut no_dedup = req.clone();
    no_dedup.dedup = false;
    assert_eq!(
        cairn.remember(no_dedup).unwrap().status,
        WriteStatus::Created
    );
    // Episodes are distinct events.
    let mut ep = RememberRequest::new("default", "Thanks, see you tomorrow!");
    ep.kind = MemoryType::Episode;
    let e1 = cairn.remember(ep.clone()).unwrap();
    let e2 = cairn.remember(ep).unwrap();
    assert_ne!(e1.id, e2.id);
    assert_eq!(e2.status, WriteStatus::Created);
    // Related but different: stored, with a warning naming the other.
    let mut related = RememberRequest::new(
        "default",
        "deploys happen on tuesdays after the standup meeting ends",
    );
    related.kind = MemoryType::Fact;
    let out = cairn.remember(related).unwrap();
    assert_eq!(out.status, WriteStatus::Created);
    assert!(
        out.similar.iter().any(|s| s.id == first.id),
        "{:?}",
        out.similar
    );
}

/// Supersede hides the old memory from recall and marks it.
pub fn engine_supersede_and_ttl(store: Arc<dyn Store>) {
    let cairn = engine(store.clone());
    let old = cairn
        .remember(RememberRequest::new("default", "the api runs on port 8080"))
        .unwrap();
    let mut newer = RememberRequest::new("default", "the api moved to port 9090");
    newer.supersedes = Some(old.id.to_string()[..8].to_string());
    let new = cairn.remember(newer).unwrap();
    assert_eq!(new.superseded, Some(old.id));
    let o = cairn.get("default", &old.id.to_string()).unwrap();
    assert_eq!(o.weight, 0.1);
    assert_eq!(o.superseded_by, Some(new.id));
    assert_eq!(o.valid_to, Some(T0));
    let ids = |r: &RecallRequest| -> Vec<MemoryId> {
        cairn
            .recall(r)
            .unwrap()
            .into_iter()
            .map(|r| r.memory.id)
            .collect()
    };
    let mut q = RecallRequest::new("default", "api port");
    assert_eq!(ids(&q), vec![new.id]);
    q.filter.include_superseded = true;
    assert!(ids(&q).contains(&old.id));
    // TTL: gone from recall once expired, deleted by gc.
    let mut temp = RememberRequest::new("default", "temporary staging password rotation");
    temp.ttl_ms = Some(60_000);
    let t = cairn.remember(temp).unwrap();
    let later =
        Cairn::new(store.clone(), Arc::new(LexicalEmbedder)).with_clock(Arc::new(|| T0 + 120_000));
    let q = RecallRequest::new("default", "staging password");
    assert!(cairn
        .search(&q)
        .unwrap()
        .iter()
        .any(|r| r.memory.id == t.id));
    assert!(!later
        .search(&q)
        .unwrap()
        .iter()
        .any(|r| r.memory.id == t.id));
    assert_eq!(later.gc().unwrap(), 1);
    assert!(matches!(
        cairn.get("default", &t.id.to_string()),
        Err(Error::NotFound(_))
    ));
}

/// Every change is a version, with who and why; revert restores an
/// earlier one as a new version; forget erases the versions and leaves a
/// receipt; tenants never see each other's history.
pub fn engine_history(store: Arc<dyn Store>) {
    use crate::history::ChangeKind::*;
    let cairn = engine(store.clone());
    let kinds = |id: MemoryId| version_kinds(&cairn, id);
    let mut req = RememberRequest::new("default", "the staging database lives on db-3");
    req.kind = MemoryType::Fact;
    req.actor = "key-a".into();
    let a = cairn.remember(req.clone()).unwrap().id;
    let h = cairn.history("default", &a.to_string()).unwrap();
    assert_eq!(h.versions.len(), 1);
    let first = &h.versions[0];
    assert_eq!(
        (first.number, first.kind, first.actor.as_str()),
        (1, Created, "key-a")
    );
    assert_eq!(first.memory.content, "the staging database lives on db-3");
    // A near-duplicate merges: a version saying how similar.
    req.content = "The staging database lives on db-3.".into();
    req.actor = "key-b".into();
    assert_eq!(
        cairn.remember(req).unwrap().status,
        WriteStatus::Deduplicated
    );
    let h = cairn.history("default", &a.to_string()).unwrap();
    assert_eq!(h.versions[1].kind, Deduplicated);
    assert!(
        h.versions[1]
            .reason
            .as_deref()
            .unwrap()
            .contains("similarity"),
        "{:?}",
        h.versions[1].reason
    );
    // Updates name the fields changed; reads and re-embedding are not changes.
    let tags = UpdateRequest {
        add_tags: vec!["infra".into()],
        ..Default::default()
    };
    cairn
        .update("default", &a.to_string(), tags, "key-c")
        .unwrap();
    let content = UpdateRequest {
        content: Some("the staging database moved to db-7".into()),
        ..Default::default()
    };
    cairn
        .update("default", &a.to_string(), content, "key-c")
        .unwrap();
    cairn.get("default", &a.to_string()).unwrap();
    cairn.reindex(&mut |_, _| {}).unwrap();
    let h = cairn.history("default", &a.to_string()).unwrap();
    assert_eq!(kinds(a), vec![Created, Deduplicated, Updated, Updated]);
    assert_eq!(h.versions[2].reason.as_deref(), Some("tags"));
    assert_eq!(h.versions[3].reason.as_deref(), Some("content"));
    assert_eq!(h.versions[3].actor, "key-c");
    assert_eq!(
        h.versions[3].memory.content,
        "the staging database moved to db-7"
    );
    // Revert restores version 1's text and fields as version 5.
    let back = cairn
        .revert("default", &a.to_string()[..18], 1, "key-d")
        .unwrap();
    assert_eq!(back.content, "the staging database lives on db-3");
    assert!(back.tags.is_empty());
    let h = cairn.history("default", &a.to_string()).unwrap();
    let v5 = &h.versions[4];
    assert_eq!(
        (v5.number, v5.kind, v5.actor.as_str()),
        (5, Reverted, "key-d")
    );
    assert_eq!(
        v5.reason.as_deref(),
        Some("restored version 1: content, tags")
    );
    let hits = cairn
        .search(&RecallRequest::new("default", "db-3 staging"))
        .unwrap();
    assert_eq!(
        hits.first().map(|r| r.memory.id),
        Some(a),
        "re-embedded and re-indexed"
    );
    assert!(matches!(
        cairn.revert("default", &a.to_string(), 9, "key-d"),
        Err(Error::InvalidInput(_))
    ));
    // Supersession is a version of both.
    let mut newer = RememberRequest::new("default", "staging now runs on the shared cluster");
    newer.supersedes = Some(a.to_string());
    let b = cairn.remember(newer).unwrap().id;
    assert_eq!(kinds(a).last(), Some(&Superseded));
    let hb = cairn.history("default", &b.to_string()).unwrap();
    assert_eq!(hb.versions[0].reason, Some(format!("supersedes {a}")));
    // Another tenant sees none of it.
    assert!(matches!(
        cairn.history("other", &a.to_string()),
        Err(Error::NotFound(_))
    ));
    assert!(store.histories("other", &[a]).unwrap().remove(0).is_empty());
    history_refusals_and_receipts(&store, &cairn, a, b);
}

/// The rest of [`engine_history`]: a batch with a stray version is
/// refused whole; forgetting, expiry and import leave their versions and
/// receipts.
fn history_refusals_and_receipts(store: &Arc<dyn Store>, cairn: &Cairn, a: MemoryId, b: MemoryId) {
    use crate::history::ChangeKind::*;
    let kinds = |id: MemoryId| version_kinds(cairn, id);
    // A batch recording a version of a memory it does not write is refused
    // whole.
    let stray = sample(7, "default", None, MemoryType::Note, "never written");
    let dim = LexicalEmbedder.model().dim;
    let err = store.write(WriteBatch {
        inserts: vec![(stray.clone(), vec![0.5; dim])],
        changes: vec![Change::new(b, Updated, "key-x", T0)],
        ..Default::default()
    });
    assert!(err.is_err());
    assert!(store.get("default", &[stray.id]).unwrap().is_empty());
    let twice = store.write(WriteBatch {
        inserts: vec![(stray.clone(), vec![0.5; dim])],
        changes: vec![
            Change::new(stray.id, Created, "key-x", T0),
            Change::new(stray.id, Updated, "key-x", T0),
        ],
        ..Default::default()
    });
    assert!(matches!(twice, Err(Error::InvalidInput(_))), "{twice:?}");
    assert!(store.get("default", &[stray.id]).unwrap().is_empty());
    assert_eq!(kinds(b), vec![Created]);
    // Forget erases every version and leaves a receipt, found by prefix.
    cairn.forget("default", &[a.to_string()], "key-e").unwrap();
    assert!(store
        .histories("default", &[a])
        .unwrap()
        .remove(0)
        .is_empty());
    let h = cairn.history("default", &a.to_string()[..18]).unwrap();
    assert_eq!(h.id, a);
    assert!(h.versions.is_empty());
    let receipt = h.deleted.unwrap();
    assert_eq!(
        (
            receipt.deletion.actor.as_str(),
            receipt.deletion.reason.as_str(),
            receipt.versions
        ),
        ("key-e", "forgotten", 6)
    );
    assert!(store.receipts("other", "", 10).unwrap().is_empty());
    // Expiry leaves a receipt by the system.
    let mut temp = RememberRequest::new("default", "a temporary note about the office wifi");
    temp.ttl_ms = Some(1_000);
    let t = cairn.remember(temp).unwrap().id;
    let later =
        Cairn::new(store.clone(), Arc::new(LexicalEmbedder)).with_clock(Arc::new(|| T0 + 5_000));
    assert_eq!(later.gc().unwrap(), 1);
    let receipt = later
        .history("default", &t.to_string())
        .unwrap()
        .deleted
        .unwrap();
    assert_eq!(
        (
            receipt.deletion.actor.as_str(),
            receipt.deletion.reason.as_str()
        ),
        ("system", "expired")
    );
    // An import records `imported`, and supersedes a stored memory with a
    // version saying so.
    let line =
        format!(r#"{{"content":"staging moved again, to the new cluster","supersedes":"{b}"}}"#);
    cairn
        .import(
            "default",
            [(1, parse_record_line(&line))],
            true,
            "key-f",
            &mut |_| {},
        )
        .unwrap();
    let hb = cairn.history("default", &b.to_string()).unwrap();
    assert_eq!(kinds(b), vec![Created, Superseded]);
    assert_eq!(hb.versions[1].actor, "key-f");
    let c = hb.versions[1].memory.superseded_by.unwrap();
    let hc = cairn.history("default", &c.to_string()).unwrap();
    assert_eq!(
        (hc.versions[0].kind, hc.versions[0].actor.as_str()),
        (Imported, "key-f")
    );
}

/// The kinds of a memory's versions, oldest first.
fn version_kinds(cairn: &Cairn, id: MemoryId) -> Vec<ChangeKind> {
    let h = cairn.history("default", &id.to_string()).unwrap();
    h.versions.iter().map(|v| v.kind).collect()
}

/// Recall respects scopes, modes and counts accesses; prefixes resolve.
pub fn engine_recall_scopes_and_prefixes(store: Arc<dyn Store>) {
    let cairn = engine(store.clone());
    let mut a = RememberRequest::new("default", "atlas uses postgres for billing");
    a.project = Some("atlas".into());
    let a = cairn.remember(a).unwrap();
    let mut b = RememberRequest::new("default", "borealis uses postgres for search");
    b.project = Some("borealis".into());
    let b = cairn.remember(b).unwrap();
    let g = cairn
        .remember(RememberRequest::new(
            "default",
            "postgres backups run nightly",
        ))
        .unwrap();
    let mut q = RecallRequest::new("default", "postgres");
    q.filter.scope = ScopeFilter::Project("atlas".into());
    for mode in [
        SearchMode::Hybrid,
        SearchMode::Keyword,
        SearchMode::Semantic,
    ] {
        q.mode = mode;
        let got: Vec<MemoryId> = cairn
            .search(&q)
            .unwrap()
            .into_iter()
            .map(|r| r.memory.id)
            .collect();
        assert!(
            got.contains(&a.id) && got.contains(&g.id) && !got.contains(&b.id),
            "{mode:?}: {got:?}"
        );
    }
    q.mode = SearchMode::Hybrid;
    let top = cairn.recall(&q).unwrap();
    assert_eq!(
        top[0].memory.id, a.id,
        "project memories outrank global ones (scope weight)"
    );
    assert_eq!(top[0].explain.scope_weight, 1.0);
    let global = top.iter().find(|r| r.memory.id == g.id).unwrap();
    assert_eq!(global.explain.scope_weight, 0.8);
    assert_eq!(store.get("default", &[a.id]).unwrap()[0].access_count, 1);
    // Another tenant sees nothing.
    let mut foreign = q.clone();
    foreign.filter.tenant = "mallory".into();
    assert!(cairn.search(&foreign).unwrap().is_empty());
    assert!(matches!(
        cairn.get("mallory", &a.id.to_string()),
        Err(Error::NotFound(_))
    ));
    // Prefixes: a, b, g were made in the same millisecond, so their first
    // 8 characters are equal: ambiguous; the full id resolves.
    match cairn.resolve("default", &a.id.to_string()[..8]) {
        Err(Error::AmbiguousId { candidates, .. }) => assert_eq!(candidates.len(), 3),
        other => panic!("expected ambiguity, got {other:?}"),
    }
    assert_eq!(cairn.resolve("default", &a.id.to_string()).unwrap(), a.id);
    assert!(matches!(
        cairn.resolve("default", "abc"),
        Err(Error::InvalidInput(_))
    ));
    assert!(matches!(
        cairn.resolve("default", "ffffffff"),
        Err(Error::NotFound(_))
    ));
}

/// Export → import into an empty store → export is identical; strict
/// imports write nothing when a line is bad.
pub fn engine_import_export(store: Arc<dyn Store>, empty: Arc<dyn Store>) {
    let cairn = engine(store.clone());
    for i in 0..5 {
        let mut r =
            RememberRequest::new("default", format!("memory number {i} with some words w{i}"));
        r.tags = vec![format!("tag{i}")];
        r.metadata = json!({"i": i}).as_object().cloned().unwrap();
        if i == 3 {
            r.ttl_ms = Some(1000);
        }
        cairn.remember(r).unwrap();
    }
    let first = cairn.export("default", false, &mut |_| Ok(())).unwrap();
    assert_eq!(first, 5);
    let mut lines = Vec::new();
    cairn
        .export("default", false, &mut |r| {
            lines.push(serde_json::to_string(&r).unwrap());
            Ok(())
        })
        .unwrap();
    let target = engine(empty);
    let records = lines
        .iter()
        .enumerate()
        .map(|(i, l)| (i + 1, parse_record_line(l)));
    let report = target
        .import("default", records, true, LOCAL_ACTOR, &mut |_| {})
        .unwrap();
    assert_eq!(report.imported, 5);
    let mut again = Vec::new();
    target
        .export("default", false, &mut |r| {
            again.push(serde_json::to_string(&r).unwrap());
            Ok(())
        })
        .unwrap();
    assert_eq!(lines, again);
    // Importing the same records again skips them.
    let records = lines
        .iter()
        .enumerate()
        .map(|(i, l)| (i + 1, parse_record_line(l)));
    assert_eq!(
        target
            .import("default", records, false, LOCAL_ACTOR, &mut |_| {})
            .unwrap()
            .skipped_existing,
        5
    );
    // Strict: one bad line, nothing written.
    let bad = vec![
        (1, parse_record_line(r#"{"content":"good line"}"#)),
        (2, parse_record_line(r#"{"content":"bad","type":"nope"}"#)),
    ];
    let before = target.store().count(&filter_all("default")).unwrap();
    let err = target
        .import("default", bad, true, LOCAL_ACTOR, &mut |_| {})
        .unwrap_err()
        .to_string();
    assert!(err.contains("line 2"), "{err}");
    assert_eq!(
        target.store().count(&filter_all("default")).unwrap(),
        before
    );
    let lenient = vec![
        (1, parse_record_line(r#"{"content":"good line"}"#)),
        (2, parse_record_line("{not json")),
    ];
    let report = target
        .import("default", lenient, false, LOCAL_ACTOR, &mut |_| {})
        .unwrap();
    assert_eq!(report.imported, 1);
    assert_eq!(report.errors.len(), 1);
    assert_eq!(report.errors[0].0, 2);
    let _ = MemoryRecord::default();
}

/// A store embedded by one model refuses another until reindexed.
pub fn engine_model_mismatch(store: Arc<dyn Store>) {
    let cairn = engine(store.clone());
    cairn
        .remember(RememberRequest::new("default", "something to embed"))
        .unwrap();
    store
        .set_model(&ModelInfo {
            name: "another-model".into(),
            dim: DIM,
        })
        .unwrap();
    let err = cairn
        .remember(RememberRequest::new("default", "more"))
        .unwrap_err();
    assert!(matches!(err, Error::ModelMismatch { .. }));
    assert!(err.to_string().contains("cairn reindex"));
    let mut kw = RecallRequest::new("default", "something");
    kw.mode = SearchMode::Keyword;
    assert_eq!(
        cairn.search(&kw).unwrap().len(),
        1,
        "keyword recall needs no embeddings"
    );
    assert_eq!(cairn.reindex(&mut |_, _| {}).unwrap(), 1);
    cairn
        .remember(RememberRequest::new("default", "more"))
        .unwrap();
}

/// Reindex re-embeds every memory of every tenant, a model batch at a time,
/// and reports its progress up to the total.
pub fn engine_reindex_covers_every_tenant(store: Arc<dyn Store>) {
    let cairn = engine(store.clone());
    let dim = LexicalEmbedder.model().dim;
    let stones = |tenant: &str, n: u32| -> Vec<(Memory, Vec<f32>)> {
        (0..n)
            .map(|i| {
                let text = format!("stone {i} of the {tenant} cairn");
                let m = sample(i, tenant, None, MemoryType::Fact, &text);
                (m, axis(i as usize, dim))
            })
            .collect()
    };
    // More than one model batch (256) for one tenant.
    insert(&*store, stones("default", 300));
    insert(&*store, stones("other", 2));
    let mut progress = Vec::new();
    let done = cairn
        .reindex(&mut |done, total| progress.push((done, total)))
        .unwrap();
    assert_eq!(done, 302);
    assert_eq!(progress.len(), 3, "{progress:?}");
    assert_eq!(progress.last(), Some(&(302, 302)));
    assert!(progress.windows(2).all(|w| w[0].0 < w[1].0), "{progress:?}");
    for tenant in ["default", "other"] {
        let all = filter_all(tenant).everything();
        for m in store.list(&all, ListOrder::Id, 1000, 0).unwrap() {
            let want = LexicalEmbedder
                .embed(&m.embedding_text(EmbedRecipe::NAMES))
                .unwrap();
            assert_eq!(
                store.embeddings(tenant, &[m.id]).unwrap().remove(0),
                Some(want)
            );
        }
    }
    let model = EmbedRecipe::NAMES.model(LexicalEmbedder.model());
    assert_eq!(store.model().unwrap(), Some(model));
}

/// Two threads remembering the same text at the same moment leave one
/// memory (the store re-checks inside the insert's transaction).
pub fn engine_concurrent_dedup(store: Arc<dyn Store>) {
    let cairn = engine(store.clone());
    for round in 0..20 {
        let text = format!("round {round}: the build cache lives on the ci runner");
        let barrier = std::sync::Barrier::new(2);
        std::thread::scope(|s| {
            for _ in 0..2 {
                s.spawn(|| {
                    let mut req = RememberRequest::new("default", text.clone());
                    req.kind = MemoryType::Fact;
                    barrier.wait();
                    cairn.remember(req).unwrap()
                });
            }
        });
        let mut f = filter_all("default");
        f.types = vec![MemoryType::Fact];
        let same = store
            .list(&f, ListOrder::Oldest, 100, 0)
            .unwrap()
            .into_iter()
            .filter(|m| m.content == text)
            .count();
        assert_eq!(same, 1, "round {round}");
    }
}
