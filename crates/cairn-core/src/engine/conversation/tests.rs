//! Tests of the conversation engine: observing messages into topics, threads and neighbours.

use std::sync::Arc;

use super::*;
use crate::conformance::LexicalEmbedder;
use crate::engine::{RecallRequest, SearchMode};
use crate::{MemoryStore, Store};

/// 2023-05-10T15:00:00Z, a Wednesday.
const NOW: Timestamp = 1_683_730_800_000;
const DAY: Timestamp = 86_400_000;

fn engine() -> Cairn {
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    Cairn::new(store, Arc::new(LexicalEmbedder)).with_clock(Arc::new(|| NOW))
}

fn message(conversation: &str, speaker: &str, text: &str, at: Timestamp) -> Message {
    Message {
        conversation: conversation.into(),
        session: None,
        speaker: speaker.into(),
        text: text.into(),
        at: Some(at),
        id: None,
        metadata: Map::new(),
    }
}

fn request() -> ObserveRequest {
    ObserveRequest {
        tenant: "t".into(),
        project: None,
        actor: "local".into(),
    }
}

#[test]
fn messages_become_episodes_with_threads_and_neighbours() {
    let c = engine();
    let messages = vec![
        message(
            "c1",
            "Ana",
            "Shall we move the store to Postgres?",
            NOW - 2 * DAY,
        ),
        message("c1", "Ben", "Yes, next sprint.", NOW - 2 * DAY + 1000),
        message("c1", "Ana", "Great, I'll write the migration.", NOW - DAY),
    ];
    let report = c.observe(&request(), messages, &mut |_| ()).unwrap();
    assert_eq!(report.logged.len(), 3);
    let ids: Vec<MemoryId> = report.logged.iter().map(|m| m.id).collect();
    let stored = c.store().get("t", &ids).unwrap();
    assert!(stored.iter().all(|m| m.kind == MemoryType::Episode));
    assert_eq!(
        stored[0].content,
        "Ana: Shall we move the store to Postgres?"
    );
    let sessions: Vec<&str> = stored
        .iter()
        .map(|m| m.thread.as_ref().unwrap().session.as_str())
        .collect();
    assert_eq!(
        sessions,
        ["c1@2023-05-08", "c1@2023-05-08", "c1@2023-05-09"]
    );
    // The reply is found by what it answers; neighbours stop at the
    // end of a session.
    assert_eq!(
        stored[1].search_context.as_deref(),
        Some("Ana: Shall we move the store to Postgres?")
    );
    assert_eq!(
        stored[0].search_context.as_deref(),
        Some("Ben: Yes, next sprint.")
    );
    assert_eq!(stored[2].search_context, None);
    assert!(stored.iter().all(|m| (0.0..=1.0).contains(&m.importance)));

    // Logging later messages gives the last stored one its neighbour,
    // without a version.
    let more = vec![message(
        "c1",
        "Ben",
        "Send it over when done.",
        NOW - DAY + 1000,
    )];
    c.observe(&request(), more, &mut |_| ()).unwrap();
    let last = c.store().get("t", &ids[2..]).unwrap().remove(0);
    assert_eq!(
        last.search_context.as_deref(),
        Some("Ben: Send it over when done.")
    );
    assert_eq!(
        c.store()
            .histories("t", &[last.id])
            .unwrap()
            .remove(0)
            .len(),
        1
    );

    let threads = c.store().collections();
    let conversation = threads
        .collection("t", CollectionKind::Conversation, "c1")
        .unwrap()
        .unwrap();
    let body = Conversation::from_record(&conversation).unwrap();
    assert_eq!(body.messages, 4);
    assert!(body.topic.is_some());
    assert!(threads
        .collection("t", CollectionKind::Session, "c1@2023-05-09")
        .unwrap()
        .is_some());
}

#[test]
fn an_import_run_again_skips_what_it_wrote() {
    let c = engine();
    let mut m = message("c1", "Ana", "Hello there", NOW - DAY);
    m.id = Some(MemoryId::new_at(NOW - DAY));
    let first = c.observe(&request(), vec![m.clone()], &mut |_| ()).unwrap();
    assert_eq!(first.logged[0].id, m.id.unwrap());
    let again = c.observe(&request(), vec![m], &mut |_| ()).unwrap();
    assert_eq!((again.logged.len(), again.skipped_existing), (0, 1));
}

#[test]
fn bad_messages_are_refused_with_the_reason() {
    let c = engine();
    let cases = [
        (message("c1", " ", "text", NOW), "speaker"),
        (message("c1", "Ana", "  ", NOW), "empty"),
        (message("a/b", "Ana", "text", NOW), "conversation id"),
        (message("c1", "Ana", "text", NOW + 3 * DAY), "future"),
    ];
    for (m, expected) in cases {
        let err = c.observe(&request(), vec![m], &mut |_| ()).unwrap_err();
        assert!(err.to_string().contains(expected), "{err}");
    }
    assert_eq!(c.store().stats("t", NOW).unwrap().total, 0);
}

#[test]
fn temporal_and_importance_recall() {
    let c = engine();
    let messages = vec![
        message("c1", "Ana", "We picked the blue logo", NOW - 5 * DAY),
        message("c1", "Ana", "We picked the green logo", NOW - DAY),
        message("c1", "Ben", "ok", NOW - DAY + 1000),
    ];
    c.observe(&request(), messages, &mut |_| ()).unwrap();
    let mut req = RecallRequest::new("t", "which logo did we pick yesterday");
    req.mode = SearchMode::Temporal;
    let found = c.search(&req).unwrap();
    assert!(found[0].memory.content.contains("green"));
    assert!(found
        .iter()
        .all(|r| r.memory.created_at >= NOW - DAY - 15 * 3_600_000));
    assert!(found.iter().all(|r| r.matched == SearchMode::Temporal));

    // Relative to another reference time, "yesterday" is another day.
    req.reference = Some(NOW - 4 * DAY);
    let found = c.search(&req).unwrap();
    assert_eq!(found.len(), 1);
    assert!(found[0].memory.content.contains("blue"));
    // Without the mode, the time words are only words.
    req.mode = SearchMode::Hybrid;
    assert_eq!(c.search(&req).unwrap().len(), 2, "`ok` is not relevant");
    req.min_relevance = Some(0.0);
    assert_eq!(c.search(&req).unwrap().len(), 3);

    // Nothing left but the time: the newest of that day first.
    let mut req = RecallRequest::new("t", "yesterday");
    req.mode = SearchMode::Temporal;
    let found = c.search(&req).unwrap();
    assert_eq!(found.len(), 2);
    assert!(found[0].memory.content.starts_with("Ben"));

    // Importance: most important first.
    let mut req = RecallRequest::new("t", "");
    req.mode = SearchMode::Importance;
    let found = c.search(&req).unwrap();
    assert_eq!(found.len(), 3);
    assert!(found
        .windows(2)
        .all(|w| w[0].memory.importance >= w[1].memory.importance));
    assert!(found[0].memory.importance > found[2].memory.importance);
}
