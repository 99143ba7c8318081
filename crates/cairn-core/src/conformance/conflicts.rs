//! Conformance checks of writes that keep the truth: a changed value is
//! never merged as a duplicate, a conflict names the older memory, the
//! conflict policy marks, supersedes or only flags it, recall ranks the
//! newer first, `as_of` gives what was believed before, and a contest is
//! undone by reverting — the same on every backend.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use super::{LexicalEmbedder, T0};
use crate::api::as_of;
use crate::engine::{
    Cairn, ConflictAction, ConflictPolicy, RecallRequest, RememberRequest, SearchMode, WriteStatus,
    CONTESTED_BY, CONTESTED_WEIGHT,
};
use crate::history::{ChangeKind, LOCAL_ACTOR};
use crate::memory::{MemoryId, MemoryType};
use crate::store::{Filter, Store};

/// Long enough that one changed word leaves the lexical cosine above the
/// dedup threshold (0.92).
const OLD: &str = "the nightly backup of the atlas billing database runs from the primary \
                   replica at night and keeps its copies in the cold storage bucket for 30 days, checked by the platform team every single morning";
const NEW: &str = "the nightly backup of the atlas billing database runs from the primary \
                   replica at night and keeps its copies in the cold storage bucket for 45 days, checked by the platform team every single morning";
const QUESTION: &str = "how long are atlas billing backup copies kept";

/// An engine whose clock moves one second per reading, from [`T0`].
fn ticking(store: Arc<dyn Store>) -> Cairn {
    let clock = Arc::new(AtomicI64::new(T0));
    Cairn::new(store, Arc::new(LexicalEmbedder))
        .with_clock(Arc::new(move || clock.fetch_add(1000, Ordering::SeqCst)))
}

fn fact(text: &str, policy: Option<ConflictPolicy>) -> RememberRequest {
    let mut req = RememberRequest::new("default", text);
    req.kind = MemoryType::Fact;
    req.conflicts = policy;
    req
}

fn top(cairn: &Cairn, filter: Filter) -> Vec<MemoryId> {
    let req = RecallRequest {
        query: QUESTION.into(),
        filter,
        limit: 5,
        mode: SearchMode::Hybrid,
        reference: None,
        entity: None,
        profile: Default::default(),
        min_relevance: Some(0.0),
    };
    cairn
        .recall(&req)
        .unwrap()
        .into_iter()
        .map(|r| r.memory.id)
        .collect()
}

/// Prefer-newer: a changed value is a new memory naming the
/// older, which is marked contested (validity closed, weight lowered) and
/// ranks below; `as_of` the older's time gives the older alone; reverting
/// the older undoes the contest; a true restatement still merges.
pub fn engine_conflicts_prefer_newer(store: Arc<dyn Store>) {
    let cairn = ticking(store.clone());
    let old = cairn.remember(fact(OLD, None)).unwrap();
    let new = cairn
        .remember(fact(NEW, Some(ConflictPolicy::PreferNewer)))
        .unwrap();
    assert_eq!(new.status, WriteStatus::Created, "a changed value merged");
    assert_ne!(new.id, old.id);
    assert_eq!(new.conflicts.len(), 1, "{:?}", new.conflicts);
    let c = &new.conflicts[0];
    assert_eq!((c.id, c.action), (old.id, ConflictAction::Contested));
    assert!(c.reason.contains("30 → 45"), "{}", c.reason);
    assert!(
        c.similarity >= crate::rank::DEDUP_THRESHOLD,
        "{}",
        c.similarity
    );

    let older = cairn.get("default", &old.id.to_string()).unwrap();
    let newer = cairn.get("default", &new.id.to_string()).unwrap();
    assert_eq!(older.content, OLD);
    assert_eq!(older.valid_to, Some(newer.created_at));
    assert_eq!(older.weight, CONTESTED_WEIGHT);
    assert_eq!(older.metadata[CONTESTED_BY], new.id.to_string());
    assert_eq!(older.superseded_by, None);
    let versions = store.histories("default", &[old.id]).unwrap().remove(0);
    let last = versions.last().unwrap();
    assert_eq!(last.kind, ChangeKind::Updated);
    assert!(last
        .reason
        .as_deref()
        .is_some_and(|r| r.starts_with(&format!("contested by {}", new.id))));

    let now = top(&cairn, Filter::new("default", 0));
    assert_eq!(
        now[..2],
        [new.id, old.id],
        "the newer first, the older kept"
    );
    let mut then = Filter::new("default", 0);
    as_of(&mut then, older.created_at);
    assert_eq!(top(&cairn, then), [old.id], "as of the older's time");

    // Reverting to the version before the contest undoes it.
    let before = versions[versions.len() - 2].number;
    cairn
        .revert("default", &old.id.to_string(), before, LOCAL_ACTOR)
        .unwrap();
    let restored = cairn.get("default", &old.id.to_string()).unwrap();
    assert_eq!((restored.valid_to, restored.weight), (None, 1.0));
    assert!(!restored.metadata.contains_key(CONTESTED_BY));

    // The same text again is a restatement: merged.
    let again = cairn.remember(fact(NEW, None)).unwrap();
    assert_eq!(again.status, WriteStatus::Deduplicated);
    assert_eq!(again.id, new.id);
    assert!(again.conflicts.is_empty());
}

/// Supersede hides the older from default recall (kept for `as_of`);
/// flag changes nothing but still names it.
pub fn engine_conflicts_supersede_and_flag(store: Arc<dyn Store>) {
    let cairn = ticking(store.clone());
    let old = cairn.remember(fact(OLD, None)).unwrap();
    let flagged = cairn
        .remember(fact(NEW, Some(ConflictPolicy::Flag)))
        .unwrap();
    assert_eq!(flagged.status, WriteStatus::Created);
    assert_eq!(flagged.conflicts[0].id, old.id);
    assert_eq!(flagged.conflicts[0].action, ConflictAction::Flagged);
    let untouched = cairn.get("default", &old.id.to_string()).unwrap();
    assert_eq!((untouched.valid_to, untouched.weight), (None, 1.0));

    let third = NEW.replace("45 days", "60 days");
    let sup = cairn
        .remember(fact(&third, Some(ConflictPolicy::Supersede)))
        .unwrap();
    let ids: Vec<MemoryId> = sup.conflicts.iter().map(|c| c.id).collect();
    assert!(
        ids.contains(&old.id) && ids.contains(&flagged.id),
        "{ids:?}"
    );
    assert!(sup
        .conflicts
        .iter()
        .all(|c| c.action == ConflictAction::Superseded));
    let gone = cairn.get("default", &old.id.to_string()).unwrap();
    assert_eq!(gone.superseded_by, Some(sup.id));
    let now = top(&cairn, Filter::new("default", 0));
    assert_eq!(now, [sup.id]);
    let mut then = Filter::new("default", 0);
    as_of(&mut then, gone.created_at);
    assert_eq!(top(&cairn, then), [old.id]);
}
