//! Writes kept while the embedding endpoint fails ([`crate::engine::pending`]),
//! on every backend: nothing is lost, nothing is recallable before its
//! vector exists, and once the endpoint answers every write is stored with
//! the id and creation time its answer gave.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::{LexicalEmbedder, T0};
use crate::engine::{Cairn, Decision, IngestRequest, RecallRequest, RememberRequest, WriteStatus};
use crate::store::Store;
use crate::{Embedder, Error, ModelInfo, Result};

/// The lexical embedder, failing like an endpoint that gave up while
/// `down` is set.
struct Endpoint {
    down: AtomicBool,
}

impl Embedder for Endpoint {
    fn model(&self) -> ModelInfo {
        LexicalEmbedder.model()
    }

    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        if self.down.load(Ordering::SeqCst) {
            return Err(Error::provider("HTTP 503 after 3 tries"));
        }
        LexicalEmbedder.embed_batch(texts)
    }
}

/// A failing endpoint keeps writes pending; they are embedded and stored
/// once it answers, keeping their ids; their time to live counts from the
/// write; a crash after storing one (its record left) stores nothing twice.
pub fn engine_keeps_writes_pending(store: Arc<dyn Store>) {
    let endpoint = Arc::new(Endpoint {
        down: AtomicBool::new(true),
    });
    let clock = Arc::new(std::sync::atomic::AtomicI64::new(T0));
    let time = clock.clone();
    let cairn = Cairn::new(store.clone(), endpoint.clone())
        .with_clock(Arc::new(move || time.load(Ordering::SeqCst)));

    let mut req = RememberRequest::new("a", "The deploy key rotates every Monday at 9.");
    req.tags = vec!["ops".into()];
    let kept = cairn.remember(req).unwrap();
    assert_eq!(kept.status, WriteStatus::Pending);
    let mut short = RememberRequest::new("a", "A reminder that lives one minute.");
    short.ttl_ms = Some(60_000);
    cairn.remember(short).unwrap();
    let mut ingest = IngestRequest::new("b", "Ana prefers tea. The staging cluster is in fra1.");
    ingest.threshold = 0.9;
    let receipt = cairn.ingest(ingest, &mut |_, _| {}).unwrap();
    assert!(!receipt.chunks.is_empty());
    assert!(receipt
        .chunks
        .iter()
        .all(|l| l.decision == Decision::Pending
            && l.id.is_some()
            && l.reason.contains("pending")));
    assert_eq!(cairn.pending_count("a").unwrap(), 2);
    assert_eq!(cairn.pending_count("b").unwrap(), receipt.chunks.len());
    assert!(
        store.get("a", &[kept.id]).unwrap().is_empty(),
        "not stored yet"
    );

    // Still failing: everything stays, and the report says why.
    let report = cairn.embed_pending().unwrap();
    assert_eq!(
        (report.embedded, report.remaining),
        (0, 2 + receipt.chunks.len())
    );
    assert!(report.failure.unwrap().contains("HTTP 503"));

    // The endpoint answers, two minutes later: the one-minute memory has
    // expired; the rest are stored with their ids and times.
    endpoint.down.store(false, Ordering::SeqCst);
    clock.store(T0 + 120_000, Ordering::SeqCst);
    let report = cairn.embed_pending().unwrap();
    assert_eq!(report.embedded, 1 + receipt.chunks.len());
    assert_eq!(
        (report.expired, report.remaining, report.failure),
        (1, 0, None)
    );
    let stored = store.get("a", &[kept.id]).unwrap().remove(0);
    assert_eq!(stored.content, "The deploy key rotates every Monday at 9.");
    assert_eq!(stored.tags, vec!["ops".to_string()]);
    assert_eq!(stored.created_at, T0);
    assert!(store.embeddings("a", &[kept.id]).unwrap()[0].is_some());
    for line in &receipt.chunks {
        let m = store.get("b", &[line.id.unwrap()]).unwrap().remove(0);
        assert_eq!(
            (m.content.as_str(), m.kind),
            (line.chunk.text.as_str(), line.kind)
        );
    }
    assert_eq!(cairn.pending_count("a").unwrap(), 0);
    let found = cairn
        .recall(&RecallRequest::new("a", "deploy key Monday"))
        .unwrap();
    assert_eq!(found.first().map(|r| r.memory.id), Some(kept.id));

    // A record whose memory was stored (a crash before it was deleted) is
    // deleted, not stored again.
    endpoint.down.store(true, Ordering::SeqCst);
    let again = cairn
        .remember(RememberRequest::new("a", "Backups run nightly."))
        .unwrap();
    endpoint.down.store(false, Ordering::SeqCst);
    let record = store
        .collections()
        .collection(
            "a",
            crate::collections::CollectionKind::Pending,
            &again.id.to_string(),
        )
        .unwrap()
        .unwrap();
    cairn.embed_pending().unwrap();
    store.collections().put_collection(&record).unwrap();
    let report = cairn.embed_pending().unwrap();
    assert_eq!((report.embedded, report.remaining), (1, 0));
    assert_eq!(store.get("a", &[again.id]).unwrap().len(), 1);
    assert_eq!(cairn.pending_count("a").unwrap(), 0);
}

/// A failing endpoint keeps logged messages pending, and messages behind
/// them in their conversation wait too; once it answers they are logged in
/// order, in their conversation and topic, with the ids the answers gave.
pub fn engine_keeps_messages_pending(store: Arc<dyn Store>) {
    use crate::collections::{CollectionBody, CollectionKind, Conversation};
    use crate::engine::{Message, ObserveRequest};
    use crate::store::{Filter, ListOrder, ThreadScope};

    let endpoint = Arc::new(Endpoint {
        down: AtomicBool::new(false),
    });
    let cairn = Cairn::new(store.clone(), endpoint.clone()).with_clock(Arc::new(|| T0 + 60_000));
    let req = ObserveRequest {
        tenant: "a".into(),
        project: None,
        actor: "test".into(),
    };
    let message = |conversation: &str, n: i64, text: &str| Message {
        conversation: conversation.into(),
        session: None,
        speaker: if n % 2 == 1 { "user" } else { "assistant" }.into(),
        text: text.into(),
        at: Some(T0 + n * 1000),
        id: None,
        metadata: Default::default(),
    };
    let log = |messages: Vec<Message>| cairn.observe(&req, messages, &mut |_| ()).unwrap();
    assert_eq!(
        log(vec![message("c1", 1, "Where does the deploy key live?")])
            .logged
            .len(),
        1
    );

    endpoint.down.store(true, Ordering::SeqCst);
    let kept = log(vec![
        message("c1", 2, "The deploy key lives in the ops vault."),
        message("c1", 3, "Who rotates the deploy key?"),
    ]);
    assert!(kept.logged.is_empty());
    assert_eq!(kept.pending.len(), 2);
    assert!(kept.pending_reason.unwrap().contains("HTTP 503"));
    assert!(store.get("a", &[kept.pending[0].id]).unwrap().is_empty());

    // The endpoint answers: a message behind kept ones of its conversation
    // waits with them; another conversation's is logged.
    endpoint.down.store(false, Ordering::SeqCst);
    let behind = log(vec![message(
        "c1",
        4,
        "Ana rotates the deploy key monthly.",
    )]);
    assert_eq!((behind.logged.len(), behind.pending.len()), (0, 1));
    assert!(behind.pending_reason.unwrap().contains("behind"));
    let other = log(vec![message("c2", 5, "Lunch is at noon.")]);
    assert_eq!((other.logged.len(), other.pending.len()), (1, 0));
    assert_eq!(cairn.pending_count("a").unwrap(), 3);

    let report = cairn.embed_pending().unwrap();
    assert_eq!(
        (report.embedded, report.remaining, report.failure),
        (3, 0, None)
    );
    let mut filter = Filter::new("a", T0 + 60_000).everything();
    filter.thread = Some(ThreadScope::Conversation("c1".into()));
    let stored = store.list(&filter, ListOrder::Oldest, 10, 0).unwrap();
    let texts: Vec<&str> = stored.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(
        texts,
        [
            "user: Where does the deploy key live?",
            "assistant: The deploy key lives in the ops vault.",
            "user: Who rotates the deploy key?",
            "assistant: Ana rotates the deploy key monthly.",
        ]
    );
    let ids: Vec<_> = stored[1..].iter().map(|m| m.id).collect();
    let kept_ids = kept.pending.iter().chain(&behind.pending).map(|m| m.id);
    assert_eq!(ids, kept_ids.collect::<Vec<_>>());
    for m in &stored {
        let thread = m.thread.as_ref().unwrap();
        assert_eq!(thread.conversation, "c1");
        assert!(thread.topic.starts_with("c1#"), "{thread:?}");
    }
    // The second message gives the third its search context, as when
    // logged at once.
    let context = stored[2].search_context.as_deref().unwrap();
    assert!(context.contains(&stored[1].content), "{context}");
    let conversation = store
        .collections()
        .collection("a", CollectionKind::Conversation, "c1")
        .unwrap()
        .unwrap();
    let body = Conversation::from_record(&conversation).unwrap();
    assert_eq!(body.messages, 4);
    assert_eq!(cairn.pending_count("a").unwrap(), 0);
    let found = cairn
        .recall(&RecallRequest::new("a", "who rotates the deploy key"))
        .unwrap();
    assert!(found.iter().any(|r| r.memory.id == ids[2]));
}
