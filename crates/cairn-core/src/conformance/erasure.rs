//! Forgetting erases: a forgotten message's text is gone from every field
//! derived from it, not only from its own row.

use std::sync::Arc;

use serde_json::Map;

use super::{engine, T0};
use crate::collections::CollectionKind;
use crate::engine::{Message, ObserveRequest, RecallRequest, SearchMode};
use crate::history::LOCAL_ACTOR;
use crate::store::{ListOrder, ScopeFilter, Store};

/// The secret the forgotten message says, in words no other message has.
const SECRET: &str = "zanzibar quokka vault combination";

/// Three messages of one session; the middle one, which says [`SECRET`],
/// is forgotten: its neighbours' search context, its topic's title,
/// summary and entities, and its conversation's title and summary no
/// longer hold it, and keyword recall does not find it through them.
pub fn engine_forgotten_messages_leave_no_trace(store: Arc<dyn Store>) {
    let cairn = engine(store.clone());
    let says = |speaker: &str, text: &str, at: i64| Message {
        conversation: "standup".into(),
        session: Some("standup@1".into()),
        speaker: speaker.into(),
        text: text.into(),
        at: Some(T0 - 10_000 + at),
        id: None,
        metadata: Map::new(),
    };
    let messages = vec![
        says("Ana", "what is the combination of the office vault", 0),
        says("Bo", &format!("the {SECRET} is 4711"), 1),
        says("Ana", "thanks, I will open it after lunch", 2),
    ];
    let req = ObserveRequest {
        tenant: "default".into(),
        project: None,
        actor: LOCAL_ACTOR.into(),
    };
    let report = cairn.observe(&req, messages, &mut |_| {}).unwrap();
    let secret_id = report.logged[1].id;
    let holds_secret = |text: &str| text.contains("zanzibar") || text.contains("quokka");
    let filter = cairn.filter("default").scope(ScopeFilter::All).everything();
    let before = store.list(&filter, ListOrder::Oldest, 10, 0).unwrap();
    assert!(
        before
            .iter()
            .any(|m| m.id != secret_id && m.search_context.as_deref().is_some_and(holds_secret)),
        "the neighbours hold the message in their context: {before:?}"
    );
    cairn
        .forget("default", &[secret_id.to_string()], LOCAL_ACTOR)
        .unwrap();

    let after = store.list(&filter, ListOrder::Oldest, 10, 0).unwrap();
    assert_eq!(after.len(), 2);
    for m in &after {
        let context = m.search_context.as_deref().unwrap_or_default();
        assert!(!holds_secret(context), "{context}");
        assert!(!holds_secret(&m.content));
    }
    // The two that remain are each other's neighbours now.
    assert_eq!(
        after[0].search_context.as_deref(),
        Some(after[1].content.as_str())
    );
    let threads = store.collections();
    let records = [CollectionKind::Topic, CollectionKind::Conversation]
        .into_iter()
        .flat_map(|kind| threads.list_collections("default", kind, None).unwrap());
    for record in records {
        let body = serde_json::to_string(&record.body).unwrap();
        assert!(
            !holds_secret(&body),
            "{:?} {}: {body}",
            record.kind,
            record.id
        );
    }
    let mut recall = RecallRequest::new("default", "zanzibar quokka");
    recall.mode = SearchMode::Keyword;
    assert!(cairn.recall(&recall).unwrap().is_empty());
}
