//! The conformance suite every [`Store`] backend runs (feature
//! `conformance`).
//!
//! Written once, run against the in-memory store, SQLite, and later
//! PostgreSQL, like tantivy's directory tests. A backend's test file calls
//! [`store_conformance_tests!`](crate::store_conformance_tests) with an
//! expression that makes a fresh, empty store.
//!
//! Besides the store checks, the `engine_*` checks run the [`Cairn`] engine
//! over the backend with [`LexicalEmbedder`], a small deterministic
//! embedder, so that dedup, supersession, TTL and import/export are proven
//! on every backend without loading a neural model.

use std::sync::Arc;

use serde_json::json;

use crate::engine::{
    Cairn, RecallRequest, RememberRequest, SearchMode, UpdateRequest, WriteStatus,
};
use crate::history::{Change, ChangeKind, Deletion, LOCAL_ACTOR};
use crate::memory::{EmbedRecipe, Memory, MemoryId, MemoryType};
use crate::store::{Filter, Hit, Inserted, ListOrder, RankFactors, ScopeFilter, Store, WriteBatch};
use crate::wire::{parse_record_line, MemoryRecord};
use crate::{Embedder, Error, ModelInfo, Result};

mod access;
mod batches;
mod conflicts;
mod current_side;
mod engine_checks;
mod erasure;
mod forgetting;
mod histories;
mod hostile;
mod isolation;
mod listing;
mod newer_first;
mod oauth;
mod pending;
mod records;
mod redaction;
mod relevance;
mod same_ranking;
mod search;
pub use cairn_text::secrets;
mod shared_state;
mod slots;
mod threads;
pub use access::{check_batched_accesses, check_update_keeps_accesses, engine_batched_accesses};
pub use batches::{
    check_batched_reads, check_bulk_writes, check_insert_unless_duplicate, check_keys,
    check_restore,
};
pub use conflicts::{engine_conflicts_prefer_newer, engine_conflicts_supersede_and_flag};
pub use current_side::engine_marks_the_current_side;
pub use engine_checks::{
    engine_concurrent_dedup, engine_dedup_and_warnings, engine_history, engine_import_export,
    engine_model_mismatch, engine_recall_scopes_and_prefixes, engine_reindex_covers_every_tenant,
    engine_supersede_and_ttl,
};
pub use erasure::engine_forgotten_messages_leave_no_trace;
pub use forgetting::{
    engine_forgetting_a_source_forgets_its_summary, engine_forgetting_erases_versions_and_index,
};
pub use histories::check_histories_in_one_call;
pub use hostile::{engine_hostile_input_stays_with_its_tenant, hostile_texts};
pub use isolation::{
    check_receipts_are_per_tenant, engine_message_ids_never_reveal_another_tenant,
};
pub use listing::check_sources_superseded_and_expiry;
pub use newer_first::engine_recalls_the_newer_side_first;
pub use oauth::check_oauth;
pub use pending::{engine_keeps_messages_pending, engine_keeps_writes_pending};
pub use records::{
    check_batches_are_atomic, check_delete_and_prefix, check_filters_and_listing,
    check_paging_with_a_cursor, check_roundtrip, check_short_ids, check_update,
    check_wrong_dimension_is_a_clear_error,
};
pub use redaction::engine_secrets_never_reach_the_store_through_any_field;
pub use relevance::{engine_relevance_floor, engine_relevance_unknown_words};
pub use same_ranking::engine_ranks_the_fixed_set_as_the_reference;
pub use search::{
    check_access_expiry_stats, check_bm25_matches_the_formula, check_exact_vector_search,
    check_hit_factors, check_keyword_search, check_model, check_vector_search,
};
pub use shared_state::{check_leases, check_rate_buckets, check_ui_sessions};
pub use slots::{
    check_packing, check_slot_dedup, check_slot_filters, check_slot_moves, check_slot_roundtrip,
    engine_slots,
};
pub use threads::{check_collections, check_thread_scopes};

/// The one dimension of every vector in the suite: MiniLM's, so that a
/// backend with a typed vector column passes it as it is.
pub const DIM: usize = 384;

/// A deterministic bag-of-words embedder: each lowercase word is hashed
/// (FNV-1a) to one of [`DIM`] dimensions with a sign, and the sum is
/// L2-normalised. Texts sharing words are similar; identical texts have
/// cosine 1. For tests of the engine's logic only.
pub struct LexicalEmbedder;

impl Embedder for LexicalEmbedder {
    fn model(&self) -> ModelInfo {
        ModelInfo {
            name: "lexical-test".into(),
            dim: DIM,
        }
    }

    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        Ok(texts.iter().map(|t| lexical_vector(t, DIM)).collect())
    }
}

fn lexical_vector(text: &str, dim: usize) -> Vec<f32> {
    let mut v = vec![0f32; dim];
    for word in crate::store::query_terms(text) {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in word.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        let sign = if h >> 63 == 0 { 1.0 } else { -1.0 };
        v[(h % dim as u64) as usize] += sign;
    }
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
    v
}

/// A fixed clock for reproducible checks: 2026-01-01T00:00:00Z.
pub const T0: i64 = 1_767_225_600_000;

/// A deletion by the local user at [`T0`].
pub fn forgotten() -> Deletion {
    Deletion::new(LOCAL_ACTOR, "forgotten", T0)
}

/// A memory with every field set to something non-default.
pub fn sample(
    i: u32,
    tenant: &str,
    project: Option<&str>,
    kind: MemoryType,
    content: &str,
) -> Memory {
    let created = T0 + i64::from(i) * 1000;
    Memory {
        id: MemoryId::new_at(created),
        tenant: tenant.into(),
        content: content.into(),
        kind,
        project: project.map(str::to_string),
        tags: vec!["alpha".into(), format!("t{}", i % 3)],
        metadata: json!({"speaker": "Ada", "n": i})
            .as_object()
            .cloned()
            .unwrap_or_default(),
        importance: 0.25,
        weight: 1.0,
        source: "manual".into(),
        created_at: created,
        updated_at: created,
        last_accessed_at: None,
        access_count: 0,
        expires_at: None,
        valid_from: None,
        valid_to: None,
        supersedes: None,
        superseded_by: None,
        thread: None,
        slot: None,
        search_context: None,
    }
}

/// A unit vector along axis `i` of `dim` (with a little of axis 0 so that
/// cosines are distinct).
pub fn axis(i: usize, dim: usize) -> Vec<f32> {
    let mut v = vec![0f32; dim];
    v[i % dim] = 1.0;
    v[0] += 0.1;
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter_mut().for_each(|x| *x /= n);
    v
}

fn insert(store: &dyn Store, items: Vec<(Memory, Vec<f32>)>) {
    store
        .write(WriteBatch {
            inserts: items,
            ..Default::default()
        })
        .expect("insert");
}

fn filter_all(tenant: &str) -> Filter {
    Filter::new(tenant, T0).scope(ScopeFilter::All)
}

fn engine(store: Arc<dyn Store>) -> Cairn {
    Cairn::new(store, Arc::new(LexicalEmbedder)).with_clock(Arc::new(|| T0))
}

/// The model's dimension for a store: 384-d vectors are allowed from then on.
fn with_model(store: &dyn Store) {
    store
        .set_model(&ModelInfo {
            name: "conformance".into(),
            dim: DIM,
        })
        .expect("set_model");
}

/// Everything a store holds, read through the trait: per tenant, its
/// memories (id order) with embeddings and histories, and its receipts.
#[allow(clippy::type_complexity)]
pub fn everything(
    store: &dyn Store,
) -> Vec<(
    String,
    Vec<(Memory, Option<Vec<f32>>, Vec<crate::history::Version>)>,
    Vec<crate::history::DeletionReceipt>,
)> {
    store
        .tenants(crate::TenantsWith::Anything)
        .unwrap()
        .into_iter()
        .map(|tenant| {
            let ms = store
                .list(
                    &filter_all(&tenant).everything(),
                    ListOrder::Id,
                    usize::MAX >> 1,
                    0,
                )
                .unwrap();
            let ids: Vec<MemoryId> = ms.iter().map(|m| m.id).collect();
            let vectors = store.embeddings(&tenant, &ids).unwrap();
            let histories = store.histories(&tenant, &ids).unwrap();
            let receipts = store.receipts(&tenant, "", usize::MAX >> 1).unwrap();
            let rows = ms
                .into_iter()
                .zip(vectors)
                .zip(histories)
                .map(|((m, v), h)| (m, v, h))
                .collect();
            (tenant, rows, receipts)
        })
        .collect()
}

/// A pseudo-random unit vector for `i` (a fixed linear congruential
/// sequence): rows spread as real embeddings are, which an approximate
/// index searches well, unlike [`axis`]'s equidistant ones.
pub fn scattered(i: u32, dim: usize) -> Vec<f32> {
    let mut state = u64::from(i).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut v: Vec<f32> = (0..dim)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((state >> 40) as f32 / (1u64 << 24) as f32) - 0.5
        })
        .collect();
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter_mut().for_each(|x| *x /= n);
    v
}

/// What a backend's test gives the suite: a fresh, empty store, and
/// whatever must live as long as it (a temporary directory), dropped after
/// the check.
pub trait Fixture {
    /// The store.
    fn store(&self) -> Arc<dyn Store>;
}

impl Fixture for Arc<dyn Store> {
    fn store(&self) -> Arc<dyn Store> {
        self.clone()
    }
}

impl<T: Send + Sync> Fixture for (Arc<dyn Store>, T) {
    fn store(&self) -> Arc<dyn Store> {
        self.0.clone()
    }
}

/// Generate one `#[test]` per conformance check for a backend.
///
/// `$make` is an expression evaluating to a fresh [`Fixture`] each time it
/// is evaluated: an `Arc<dyn Store>`, or the store with a guard that owns
/// what it lives in (`(store, temp_dir)`), dropped when the check ends.
#[macro_export]
macro_rules! store_conformance_tests {
    ($make:expr) => {
        mod store_conformance {
            #[allow(unused_imports)]
            use super::*;
            use $crate::conformance as c;
            #[test]
            fn roundtrip() {
                {
                    let fixture = $make;
                    c::check_roundtrip(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn batches_are_atomic() {
                {
                    let fixture = $make;
                    c::check_batches_are_atomic(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn update() {
                {
                    let fixture = $make;
                    c::check_update(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn histories_in_one_call() {
                {
                    let fixture = $make;
                    c::check_histories_in_one_call(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn delete_and_prefix() {
                {
                    let fixture = $make;
                    c::check_delete_and_prefix(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn short_ids() {
                {
                    let fixture = $make;
                    c::check_short_ids(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn filters_and_listing() {
                {
                    let fixture = $make;
                    c::check_filters_and_listing(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn paging_with_a_cursor() {
                {
                    let fixture = $make;
                    c::check_paging_with_a_cursor(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn engine_hostile_input_stays_with_its_tenant() {
                {
                    let fixture = $make;
                    c::engine_hostile_input_stays_with_its_tenant(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn receipts_are_per_tenant() {
                {
                    let fixture = $make;
                    c::check_receipts_are_per_tenant(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn engine_message_ids_never_reveal_another_tenant() {
                {
                    let fixture = $make;
                    c::engine_message_ids_never_reveal_another_tenant(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn engine_forgetting_a_source_forgets_its_summary() {
                {
                    let fixture = $make;
                    c::engine_forgetting_a_source_forgets_its_summary(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn engine_forgetting_erases_versions_and_index() {
                {
                    let fixture = $make;
                    c::engine_forgetting_erases_versions_and_index(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn engine_forgotten_messages_leave_no_trace() {
                {
                    let fixture = $make;
                    c::engine_forgotten_messages_leave_no_trace(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn engine_secrets_never_reach_the_store_through_any_field() {
                {
                    let fixture = $make;
                    c::engine_secrets_never_reach_the_store_through_any_field(c::Fixture::store(
                        &fixture,
                    ))
                }
            }
            #[test]
            fn keyword_search() {
                {
                    let fixture = $make;
                    c::check_keyword_search(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn vector_search() {
                {
                    let fixture = $make;
                    c::check_vector_search(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn exact_vector_search() {
                {
                    let fixture = $make;
                    c::check_exact_vector_search(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn access_expiry_stats() {
                {
                    let fixture = $make;
                    c::check_access_expiry_stats(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn batched_accesses() {
                {
                    let fixture = $make;
                    c::check_batched_accesses(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn update_keeps_accesses() {
                {
                    let fixture = $make;
                    c::check_update_keeps_accesses(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn engine_batched_accesses() {
                {
                    let fixture = $make;
                    c::engine_batched_accesses(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn hit_factors() {
                {
                    let fixture = $make;
                    c::check_hit_factors(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn model() {
                {
                    let fixture = $make;
                    c::check_model(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn engine_dedup_and_warnings() {
                {
                    let fixture = $make;
                    c::engine_dedup_and_warnings(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn engine_supersede_and_ttl() {
                {
                    let fixture = $make;
                    c::engine_supersede_and_ttl(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn engine_recall_scopes_and_prefixes() {
                {
                    let fixture = $make;
                    c::engine_recall_scopes_and_prefixes(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn engine_import_export() {
                {
                    let (a, b) = ($make, $make);
                    c::engine_import_export(c::Fixture::store(&a), c::Fixture::store(&b))
                }
            }
            #[test]
            fn engine_keeps_writes_pending() {
                {
                    let fixture = $make;
                    c::engine_keeps_writes_pending(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn engine_keeps_messages_pending() {
                {
                    let fixture = $make;
                    c::engine_keeps_messages_pending(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn engine_model_mismatch() {
                {
                    let fixture = $make;
                    c::engine_model_mismatch(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn engine_reindex_covers_every_tenant() {
                {
                    let fixture = $make;
                    c::engine_reindex_covers_every_tenant(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn wrong_dimension_is_a_clear_error() {
                {
                    let fixture = $make;
                    c::check_wrong_dimension_is_a_clear_error(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn bulk_writes() {
                {
                    let fixture = $make;
                    c::check_bulk_writes(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn restore() {
                {
                    let (a, b) = ($make, $make);
                    c::check_restore(c::Fixture::store(&a), c::Fixture::store(&b))
                }
            }
            #[test]
            fn batched_reads() {
                {
                    let fixture = $make;
                    c::check_batched_reads(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn insert_unless_duplicate() {
                {
                    let fixture = $make;
                    c::check_insert_unless_duplicate(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn engine_concurrent_dedup() {
                {
                    let fixture = $make;
                    c::engine_concurrent_dedup(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn bm25_matches_the_formula() {
                {
                    let fixture = $make;
                    c::check_bm25_matches_the_formula(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn engine_ranks_the_fixed_set_as_the_reference() {
                {
                    let fixture = $make;
                    c::engine_ranks_the_fixed_set_as_the_reference(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn engine_relevance_floor() {
                {
                    let fixture = $make;
                    c::engine_relevance_floor(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn engine_relevance_unknown_words() {
                {
                    let fixture = $make;
                    c::engine_relevance_unknown_words(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn engine_history() {
                {
                    let fixture = $make;
                    c::engine_history(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn keys() {
                {
                    let fixture = $make;
                    c::check_keys(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn oauth() {
                {
                    let fixture = $make;
                    c::check_oauth(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn sources_superseded_and_expiry() {
                {
                    let fixture = $make;
                    c::check_sources_superseded_and_expiry(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn thread_scopes() {
                {
                    let fixture = $make;
                    c::check_thread_scopes(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn thread_records() {
                {
                    let fixture = $make;
                    c::check_collections(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn slot_roundtrip() {
                {
                    let fixture = $make;
                    c::check_slot_roundtrip(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn slot_filters() {
                {
                    let fixture = $make;
                    c::check_slot_filters(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn slot_moves() {
                {
                    let fixture = $make;
                    c::check_slot_moves(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn slot_dedup() {
                {
                    let fixture = $make;
                    c::check_slot_dedup(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn packing() {
                {
                    let fixture = $make;
                    c::check_packing(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn engine_conflicts_prefer_newer() {
                {
                    let fixture = $make;
                    c::engine_conflicts_prefer_newer(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn engine_conflicts_supersede_and_flag() {
                {
                    let fixture = $make;
                    c::engine_conflicts_supersede_and_flag(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn engine_marks_the_current_side() {
                {
                    let fixture = $make;
                    c::engine_marks_the_current_side(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn engine_recalls_the_newer_side_first() {
                {
                    let fixture = $make;
                    c::engine_recalls_the_newer_side_first(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn shared_ui_sessions() {
                {
                    let fixture = $make;
                    c::check_ui_sessions(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn shared_rate_buckets() {
                {
                    let fixture = $make;
                    c::check_rate_buckets(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn shared_leases() {
                {
                    let fixture = $make;
                    c::check_leases(c::Fixture::store(&fixture))
                }
            }
            #[test]
            fn engine_slots() {
                {
                    let (a, b) = ($make, $make);
                    c::engine_slots(c::Fixture::store(&a), c::Fixture::store(&b))
                }
            }
        }
    };
}
