//! Conformance checks of the filters and the order the web UI's memory
//! browser and overview rely on: a memory's source, superseded memories
//! alone, and listing by expiry.

use std::sync::Arc;

use super::{axis, filter_all, insert, sample, DIM, T0};
use crate::memory::{MemoryId, MemoryType};
use crate::store::{Filter, ListOrder, Store};

/// `Filter::sources` and `Filter::only_superseded` hold in listing,
/// counting, keyword and vector search; `ListOrder::Expiring` puts the
/// soonest expiry first and memories without one last.
pub fn check_sources_superseded_and_expiry(store: Arc<dyn Store>) {
    let mut manual = sample(0, "default", None, MemoryType::Fact, "harbour manual fact");
    manual.expires_at = Some(T0 + 90_000);
    let mut imported = sample(
        1,
        "default",
        Some("atlas"),
        MemoryType::Fact,
        "harbour imported fact",
    );
    imported.source = "import:mem0".into();
    imported.expires_at = Some(T0 + 30_000);
    let mut logged = sample(
        2,
        "default",
        None,
        MemoryType::Episode,
        "harbour logged message",
    );
    logged.source = "conversation".into();
    let mut replaced = sample(
        3,
        "default",
        None,
        MemoryType::Fact,
        "harbour replaced fact",
    );
    replaced.superseded_by = Some(manual.id);
    replaced.expires_at = Some(T0 + 60_000);
    let mut gone = sample(4, "default", None, MemoryType::Note, "harbour expired note");
    gone.expires_at = Some(T0 - 1);
    let mut foreign = sample(5, "other", None, MemoryType::Fact, "harbour foreign fact");
    foreign.source = "import:mem0".into();
    let all = [&manual, &imported, &logged, &replaced, &gone, &foreign];
    insert(
        &*store,
        all.iter()
            .enumerate()
            .map(|(i, m)| ((*m).clone(), axis(i + 1, DIM)))
            .collect(),
    );
    let listed = |f: &Filter, order: ListOrder| -> Vec<MemoryId> {
        store
            .list(f, order, 100, 0)
            .unwrap()
            .into_iter()
            .map(|m| m.id)
            .collect()
    };
    let sorted = |mut ids: Vec<MemoryId>| {
        ids.sort();
        ids
    };
    let searched = |f: &Filter| {
        let keyword = sorted(
            store
                .keyword_search("harbour", f, 100)
                .unwrap()
                .into_iter()
                .map(|h| h.id)
                .collect(),
        );
        let vector = sorted(
            store
                .vector_search(&axis(1, DIM), f, 100)
                .unwrap()
                .into_iter()
                .map(|h| h.id)
                .collect(),
        );
        (keyword, vector)
    };

    // Sources: any of those named, in this tenant only.
    let mut f = filter_all("default");
    f.sources = vec!["import:mem0".into()];
    assert_eq!(listed(&f, ListOrder::Id), vec![imported.id]);
    assert_eq!(store.count(&f).unwrap(), 1);
    assert_eq!(searched(&f), (vec![imported.id], vec![imported.id]));
    f.sources = vec!["conversation".into(), "manual".into()];
    assert_eq!(listed(&f, ListOrder::Id), vec![manual.id, logged.id]);
    assert_eq!(store.count(&f).unwrap(), 2);
    assert_eq!(
        searched(&f),
        (vec![manual.id, logged.id], vec![manual.id, logged.id])
    );
    f.include_superseded = true;
    f.include_expired = true;
    assert_eq!(
        listed(&f, ListOrder::Id),
        vec![manual.id, logged.id, replaced.id, gone.id],
        "superseded and expired memories keep their source"
    );
    f.sources = vec!["nowhere".into()];
    assert!(listed(&f, ListOrder::Id).is_empty());
    assert_eq!(searched(&f), (vec![], vec![]));

    // Superseded memories alone, whatever `include_superseded` says.
    let mut f = filter_all("default");
    f.only_superseded = true;
    assert_eq!(listed(&f, ListOrder::Id), vec![replaced.id]);
    assert_eq!(store.count(&f).unwrap(), 1);
    assert_eq!(searched(&f), (vec![replaced.id], vec![replaced.id]));
    f.include_superseded = true;
    assert_eq!(listed(&f, ListOrder::Id), vec![replaced.id]);
    f.sources = vec!["import:mem0".into()];
    assert!(listed(&f, ListOrder::Id).is_empty());

    // Soonest expiry first, no expiry last (by id), expired ones only
    // when asked for.
    let mut f = filter_all("default");
    assert_eq!(
        listed(&f, ListOrder::Expiring),
        vec![imported.id, manual.id, logged.id]
    );
    f.include_expired = true;
    f.include_superseded = true;
    assert_eq!(
        listed(&f, ListOrder::Expiring),
        vec![gone.id, imported.id, replaced.id, manual.id, logged.id]
    );
    let page: Vec<MemoryId> = store
        .list(&f, ListOrder::Expiring, 2, 1)
        .unwrap()
        .into_iter()
        .map(|m| m.id)
        .collect();
    assert_eq!(page, vec![imported.id, replaced.id]);
}
