//! Conformance check of recall's order for a known conflict: whatever the
//! policy, when both sides come back the newer (current) side is
//! immediately before the older it contests — the same on every backend.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use super::{LexicalEmbedder, T0};
use crate::engine::{Cairn, ConflictPolicy, RecallRequest, RememberRequest};
use crate::history::LOCAL_ACTOR;
use crate::memory::{MemoryId, MemoryType};
use crate::store::Store;

const OLD: &str = "Dana Whitfield leads the atlas platform team";
const NEW: &str = "Leadership changed: Sam Okafor is now the lead of the atlas platform";
const OTHER: &str = "The atlas platform team reviews designs on Mondays";
const QUESTION: &str = "who leads the atlas platform team";

/// Under `flag` and `prefer-newer`: the newer immediately before the
/// older in recall.
pub fn engine_recalls_the_newer_side_first(store: Arc<dyn Store>) {
    for policy in [ConflictPolicy::Flag, ConflictPolicy::PreferNewer] {
        newer_first_under(store.clone(), policy);
    }
}

fn newer_first_under(store: Arc<dyn Store>, policy: ConflictPolicy) {
    let tenant = format!("newer-first-{}", policy.as_str());
    let clock = Arc::new(AtomicI64::new(T0));
    let cairn = Cairn::new(store, Arc::new(LexicalEmbedder))
        .with_clock(Arc::new(move || clock.fetch_add(1000, Ordering::SeqCst)));
    let fact = |text: &str| {
        let mut req = RememberRequest::new(&tenant, text);
        req.kind = MemoryType::Fact;
        req.conflicts = Some(policy);
        req.actor = LOCAL_ACTOR.into();
        req
    };
    cairn.remember(fact(OTHER)).unwrap();
    let old = cairn.remember(fact(OLD)).unwrap();
    let new = cairn.remember(fact(NEW)).unwrap();
    assert!(
        new.conflicts.iter().any(|c| c.id == old.id),
        "{policy:?}: {:?}",
        new.conflicts
    );
    let found: Vec<MemoryId> = cairn
        .recall(&RecallRequest::new(&tenant, QUESTION))
        .unwrap()
        .into_iter()
        .map(|r| r.memory.id)
        .collect();
    let at = |id: MemoryId| found.iter().position(|&f| f == id);
    let (Some(n), Some(o)) = (at(new.id), at(old.id)) else {
        panic!("{policy:?}: both sides recalled: {found:?}");
    };
    assert_eq!(n + 1, o, "{policy:?}: newer immediately before older");
}
