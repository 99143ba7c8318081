//! Conformance checks of the current side of a known conflict: whatever
//! the policy, the older memory names the newer and the newer lists the
//! older, the older's link is a recorded version, and the views an agent
//! reads (`context`, `prompt`) mark which side is current — the same on
//! every backend.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use serde_json::json;

use super::{LexicalEmbedder, T0};
use crate::context::ContextRequest;
use crate::engine::{
    Cairn, ConflictPolicy, PromptRequest, RememberRequest, WriteStatus, CONTESTED_BY, CONTESTS,
    FLAGGED_BY,
};
use crate::history::LOCAL_ACTOR;
use crate::memory::MemoryType;
use crate::store::Store;
use crate::tokens::Tokenizer;
use crate::window::WindowFormat;

const OLD: &str = "Dana Whitfield is the lead of the atlas platform team";
const NEW: &str = "Leadership changed: Sam Okafor is now the lead of the atlas platform team";
const QUESTION: &str = "who is the lead of the atlas platform team";

/// Under each policy: both sides linked and the views mark them.
pub fn engine_marks_the_current_side(store: Arc<dyn Store>) {
    for policy in [
        ConflictPolicy::Flag,
        ConflictPolicy::PreferNewer,
        ConflictPolicy::Supersede,
    ] {
        current_side_under(store.clone(), policy);
    }
}

fn current_side_under(store: Arc<dyn Store>, policy: ConflictPolicy) {
    let tenant = format!("side-{}", policy.as_str());
    let clock = Arc::new(AtomicI64::new(T0));
    let cairn = Cairn::new(store, Arc::new(LexicalEmbedder))
        .with_clock(Arc::new(move || clock.fetch_add(1000, Ordering::SeqCst)));
    let fact = |text: &str, policy: Option<ConflictPolicy>| {
        let mut req = RememberRequest::new(&tenant, text);
        req.kind = MemoryType::Fact;
        req.conflicts = policy;
        req.actor = LOCAL_ACTOR.into();
        req
    };
    let old = cairn.remember(fact(OLD, None)).unwrap();
    let new = cairn.remember(fact(NEW, Some(policy))).unwrap();
    assert_eq!(new.status, WriteStatus::Created, "{policy:?}");
    assert_eq!(
        new.conflicts.first().map(|c| c.id),
        Some(old.id),
        "{policy:?}"
    );

    // Both sides name each other.
    let older = cairn.peek(&tenant, &old.id.to_string()).unwrap();
    let newer = cairn.peek(&tenant, &new.id.to_string()).unwrap();
    assert_eq!(
        newer.metadata[CONTESTS],
        json!([old.id.to_string()]),
        "{policy:?}"
    );
    let link = match policy {
        ConflictPolicy::Flag => {
            assert_eq!(
                (older.weight, older.valid_to),
                (1.0, None),
                "flag demotes nothing"
            );
            older.metadata[FLAGGED_BY].as_str().map(str::to_string)
        }
        ConflictPolicy::PreferNewer => older.metadata[CONTESTED_BY].as_str().map(str::to_string),
        ConflictPolicy::Supersede => older.superseded_by.map(|id| id.to_string()),
    };
    assert_eq!(link, Some(new.id.to_string()), "{policy:?}: {older:?}");
    let history = cairn.history(&tenant, &old.id.to_string()).unwrap();
    let last = history.versions.last().unwrap();
    assert!(
        last.reason
            .as_deref()
            .is_some_and(|r| r.contains(&new.id.to_string())),
        "{policy:?}: {last:?}"
    );

    // The context marks both sides (the older is left out once superseded).
    let pack = cairn
        .context(&ContextRequest {
            tenant: tenant.clone(),
            topic: Some(QUESTION.into()),
            project: None,
            budget: 2000,
            hidden_slots: Vec::new(),
        })
        .unwrap();
    let line = |needle: &str| {
        pack.markdown
            .lines()
            .find(|l| l.contains(needle))
            .map(str::to_string)
    };
    let current = line("Sam Okafor").unwrap_or_else(|| panic!("{}", pack.markdown));
    assert!(
        current.contains("current: replaces"),
        "{policy:?}: {current}"
    );
    match line("Dana Whitfield is") {
        Some(l) => assert!(l.contains("outdated: contested by"), "{policy:?}: {l}"),
        None => assert_eq!(policy, ConflictPolicy::Supersede, "{}", pack.markdown),
    }

    // So does the prompt's block.
    let block = cairn
        .prompt(&PromptRequest {
            tenant: tenant.clone(),
            query: QUESTION.into(),
            project: None,
            budget: 1000,
            tokenizer: Tokenizer::default(),
            format: WindowFormat::Memory,
        })
        .unwrap();
    let noted = |id: String| {
        block
            .items
            .iter()
            .find(|e| e.id == id)
            .map(|e| e.note.clone())
    };
    let current = noted(new.id.to_string()).unwrap_or_else(|| panic!("{}", block.text));
    assert!(
        current.is_some_and(|n| n.starts_with("current: replaces")),
        "{policy:?}: {}",
        block.text
    );
    if let Some(note) = noted(old.id.to_string()) {
        assert!(
            note.is_some_and(|n| n.starts_with("outdated: contested by")),
            "{policy:?}: {}",
            block.text
        );
    }
    for l in block
        .text
        .lines()
        .filter(|l| l.contains("Dana Whitfield is"))
    {
        assert!(l.contains("(outdated: contested by"), "{policy:?}: {l}");
    }
}
