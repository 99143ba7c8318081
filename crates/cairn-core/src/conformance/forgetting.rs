//! Forgetting leaves nothing behind in what was made from a memory: the
//! consolidation summary of its group, its own earlier versions, the
//! keyword index.

use std::sync::Arc;

use serde_json::Map;

use super::{engine, T0};
use crate::engine::{
    ConsolidateRequest, Message, ObserveRequest, RecallRequest, RememberRequest, SearchMode,
    UpdateRequest,
};
use crate::history::LOCAL_ACTOR;
use crate::memory::Memory;
use crate::store::{Filter, ListOrder, ScopeFilter, Store};

const DAY: i64 = 86_400_000;

/// Words only the forgotten text has.
fn holds_secret(text: &str) -> bool {
    text.contains("wombat") || text.contains("xylophone")
}

/// Every memory of `tenant`, superseded and expired included.
fn everything(store: &dyn Store, tenant: &str) -> Vec<Memory> {
    let filter = Filter::new(tenant, T0).scope(ScopeFilter::All).everything();
    store
        .list(&filter, ListOrder::Oldest, 1000, 0)
        .expect("list")
}

/// Whether keyword recall of `tenant`, consolidated memories included,
/// finds anything for the secret's words.
fn keyword_finds_secret(cairn: &crate::Cairn, tenant: &str) -> bool {
    let mut recall = RecallRequest::new(tenant, "wombat xylophone");
    recall.mode = SearchMode::Keyword;
    recall.filter.include_superseded = true;
    recall.min_relevance = Some(0.0);
    !cairn.recall(&recall).expect("recall").is_empty()
}

/// Two sessions, consolidated into a summary each; a message of the first
/// says the secret and is forgotten: its summary (which held its text in
/// content or search context) is forgotten with it, with a receipt; the
/// first session's other message is a plain episode again; the second
/// session's summary is untouched; keyword recall finds nothing.
pub fn engine_forgetting_a_source_forgets_its_summary(store: Arc<dyn Store>) {
    let cairn = engine(store.clone());
    let says = |session: &str, at: i64, text: &str| Message {
        conversation: "diary".into(),
        session: Some(session.into()),
        speaker: "Ana".into(),
        text: text.into(),
        at: Some(at),
        id: None,
        metadata: Map::new(),
    };
    let day1 = T0 - 3 * DAY;
    let day2 = T0 - 2 * DAY;
    let messages = vec![
        says("d1", day1, "the wombat plays the xylophone at midnight"),
        says(
            "d1",
            day1 + 1000,
            "we walked along the river in the morning",
        ),
        says("d2", day2, "the garden needs new tomato plants"),
        says("d2", day2 + 1000, "the garden fence was painted green"),
    ];
    let req = ObserveRequest {
        tenant: "t".into(),
        project: None,
        actor: LOCAL_ACTOR.into(),
    };
    let logged = cairn.observe(&req, messages, &mut |_| ()).unwrap().logged;
    let report = cairn
        .consolidate(&ConsolidateRequest {
            keep: 0,
            ..ConsolidateRequest::new("t")
        })
        .unwrap();
    assert_eq!(report.groups.len(), 2, "{report:?}");
    let summary_of = |id| {
        report
            .groups
            .iter()
            .find(|g| g.sources.contains(&id))
            .and_then(|g| g.summary_id)
            .unwrap()
    };
    let (first, second) = (summary_of(logged[0].id), summary_of(logged[2].id));
    let held = store.get("t", &[first]).unwrap();
    assert!(
        held.iter()
            .any(|s| holds_secret(&s.content)
                || s.search_context.as_deref().is_some_and(holds_secret)),
        "the summary was made of the secret: {held:?}"
    );

    cairn
        .forget("t", &[logged[0].id.to_string()], LOCAL_ACTOR)
        .unwrap();

    let after = everything(&*store, "t");
    for m in &after {
        let text = serde_json::to_string(&(&m.content, &m.search_context, &m.metadata)).unwrap();
        assert!(!holds_secret(&text), "{}: {text}", m.id);
        for v in store.histories("t", &[m.id]).unwrap().remove(0) {
            let text = serde_json::to_string(&v.memory.content).unwrap();
            assert!(!holds_secret(&text), "a version of {}: {text}", m.id);
        }
    }
    assert!(store.get("t", &[first]).unwrap().is_empty());
    let receipts = store.receipts("t", &first.to_string(), 10).unwrap();
    assert_eq!(receipts.len(), 1, "{receipts:?}");
    assert!(receipts[0].deletion.reason.contains("forgotten memory"));
    let kept = store.get("t", &[logged[1].id]).unwrap();
    assert_eq!(kept[0].superseded_by, None, "{kept:?}");
    assert!(!kept[0].metadata.contains_key("consolidated_into"));
    let other = store.get("t", &[logged[2].id, second]).unwrap();
    assert_eq!(other.len(), 2);
    assert!(other.iter().any(|m| m.superseded_by == Some(second)));
    assert!(!keyword_finds_secret(&cairn, "t"));
}

/// A memory that once said the secret and was then changed keeps it in
/// its first version; forgetting it erases every version and its keyword
/// index entries: no history, no keyword match, a receipt without text.
pub fn engine_forgetting_erases_versions_and_index(store: Arc<dyn Store>) {
    let cairn = engine(store.clone());
    let id = cairn
        .remember(RememberRequest::new(
            "t",
            "the wombat hides the xylophone key",
        ))
        .unwrap()
        .id;
    cairn
        .remember(RememberRequest::new("t", "an unrelated note about lunch"))
        .unwrap();
    let change = UpdateRequest {
        content: Some("nothing to see here".into()),
        ..Default::default()
    };
    cairn
        .update("t", &id.to_string(), change, LOCAL_ACTOR)
        .unwrap();
    let versions = store.histories("t", &[id]).unwrap().remove(0);
    assert!(
        versions.iter().any(|v| holds_secret(&v.memory.content)),
        "{versions:?}"
    );
    cairn.forget("t", &[id.to_string()], LOCAL_ACTOR).unwrap();
    assert!(store.histories("t", &[id]).unwrap().remove(0).is_empty());
    let history = cairn.history("t", &id.to_string()).unwrap();
    assert!(history.versions.is_empty() && history.deleted.is_some());
    assert!(!keyword_finds_secret(&cairn, "t"));
    let mut recall = RecallRequest::new("t", "nothing to see here");
    recall.mode = SearchMode::Keyword;
    let found = cairn.recall(&recall).unwrap();
    assert!(found.iter().all(|r| r.memory.id != id), "{found:?}");
    let receipts = store.receipts("t", &id.to_string(), 10).unwrap();
    assert_eq!(receipts.len(), 1);
    let receipt = format!("{receipts:?}");
    assert!(!holds_secret(&receipt) && !receipt.contains("nothing to see"));
    for m in everything(&*store, "t") {
        assert!(!holds_secret(&m.content), "{m:?}");
    }
}
