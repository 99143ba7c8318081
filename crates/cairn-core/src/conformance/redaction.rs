//! Secrets never reach the store through a field besides the content:
//! metadata keys, a message's speaker and a slot's description are
//! redacted; a project, a tag, a conversation or session id and a slot
//! group holding one are refused, naming the field.

use std::sync::Arc;

use serde_json::{json, Map};

use super::engine;
use crate::api::{slot_set, Caller, SlotInput};
use crate::collections::CollectionKind;
use crate::engine::{Message, ObserveRequest, RememberRequest, UpdateRequest};
use crate::history::LOCAL_ACTOR;
use crate::store::{ListOrder, ScopeFilter, Store};

const AWS: &str = "AKIAIOSFODNN7EXAMPLE";
const OPENAI: &str =
    "sk-proj-fjORS-6ilI8ihN5KXSc7Tvo-hBKqFYY-kv5ZJr3J-TAwR4y9ojfljoQoaF1LlqsajAIxNKu";
const GITHUB: &str = "ghp_6yYTWmE4lBYOvfZ8UzDzV8fUkkibjL5DZPjN";

/// A refusal naming `field`, never a write.
fn refused<T: std::fmt::Debug>(r: crate::Result<T>, field: &str) {
    match r {
        Err(crate::Error::InvalidInput(m)) => {
            assert!(m.contains(field) && m.contains("secret"), "{m}");
            assert!(
                !m.contains(AWS) && !m.contains(GITHUB),
                "the error repeats it: {m}"
            );
        }
        other => panic!("{field}: expected a refusal, got {other:?}"),
    }
}

/// Secrets in every field but the content are redacted or refused (see
/// the module), on every backend.
pub fn engine_secrets_never_reach_the_store_through_any_field(store: Arc<dyn Store>) {
    let cairn = engine(store.clone());
    let mut tagged = RememberRequest::new("default", "the deploy checklist");
    tagged.tags = vec![AWS.into()];
    refused(cairn.remember(tagged), "tag");
    let mut project = RememberRequest::new("default", "the deploy checklist");
    project.project = Some(GITHUB.into());
    refused(cairn.remember(project), "project");
    let mut keyed = RememberRequest::new("default", "the deploy checklist");
    keyed.metadata = json!({ OPENAI: "value", "nested": { GITHUB: 1 } })
        .as_object()
        .cloned()
        .unwrap();
    let id = cairn.remember(keyed).unwrap().id;
    let update = |req: UpdateRequest| cairn.update("default", &id.to_string(), req, LOCAL_ACTOR);
    refused(
        update(UpdateRequest {
            add_tags: vec![AWS.into()],
            redact: true,
            ..Default::default()
        }),
        "tag",
    );
    refused(
        update(UpdateRequest {
            project: Some(Some(format!("team-{AWS}"))),
            redact: true,
            ..Default::default()
        }),
        "project",
    );
    let message = |conversation: &str, session: Option<&str>, speaker: &str| Message {
        conversation: conversation.into(),
        session: session.map(str::to_string),
        speaker: speaker.into(),
        text: "the build is green".into(),
        at: None,
        id: None,
        metadata: Map::new(),
    };
    let req = ObserveRequest {
        tenant: "default".into(),
        project: None,
        actor: LOCAL_ACTOR.into(),
    };
    let observe = |m: Message| cairn.observe(&req, [m], &mut |_| {});
    refused(observe(message(AWS, None, "Ana")), "conversation id");
    refused(observe(message("ci", Some(AWS), "Ana")), "session id");
    observe(message("ci", None, GITHUB)).unwrap();
    let caller = Caller::new("default");
    let slot = |description: &str, group: Option<&str>| SlotInput {
        name: "ops".into(),
        description: Some(description.into()),
        group: group.map(str::to_string),
        ..Default::default()
    };
    refused(
        slot_set(&cairn, &caller, slot("ops notes", Some(AWS))),
        "group",
    );
    slot_set(&cairn, &caller, slot(&format!("key {OPENAI}"), None)).unwrap();

    // Nothing stored holds any of them.
    let filter = cairn.filter("default").scope(ScopeFilter::All).everything();
    let memories = store.list(&filter, ListOrder::Oldest, 100, 0).unwrap();
    let mut stored = serde_json::to_string(
        &memories
            .iter()
            .map(|m| {
                json!([
                    m.content,
                    m.project,
                    m.tags,
                    m.metadata,
                    m.search_context,
                    m.thread.as_ref().map(|t| [&t.session, &t.conversation])
                ])
            })
            .collect::<Vec<_>>(),
    )
    .unwrap();
    for kind in [
        CollectionKind::Slot,
        CollectionKind::Conversation,
        CollectionKind::Session,
    ] {
        for r in store
            .collections()
            .list_collections("default", kind, None)
            .unwrap()
        {
            stored.push_str(&r.id);
            stored.push_str(&serde_json::to_string(&r.body).unwrap());
        }
    }
    assert_eq!(memories.len(), 2, "{stored}");
    for secret in [AWS, OPENAI, GITHUB] {
        assert!(!stored.contains(secret), "{secret} was stored: {stored}");
    }
}
