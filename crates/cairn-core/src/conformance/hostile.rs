//! Hostile input stays with its tenant: whatever one tenant writes
//! (tokens longer than every index's limit, every Unicode plane, control
//! characters, 1 MiB single words), every read of another tenant still
//! answers, and so do the writer's own reads.

use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::engine;
use crate::engine::{Cairn, RecallRequest, RememberRequest, SearchMode};
use crate::history::LOCAL_ACTOR;
use crate::memory::MemoryType;
use crate::store::{ListOrder, ScopeFilter, Store};
use crate::{Error, MAX_CONTENT_BYTES};

/// Byte lengths around the token limits of the backends' keyword indexes:
/// PostgreSQL's 2,047-byte lexemes and FTS5's 32,768-byte tokens.
const TOKEN_LIMITS: [usize; 2] = [2_047, 32_768];

/// One character of each UTF-8 width.
const WIDTHS: [char; 4] = ['a', 'ж', '漢', '𝒜'];

/// Texts that have broken a keyword index or a store, or are built to: a
/// label and the text.
pub fn hostile_texts() -> Vec<(String, String)> {
    let mut out = vec![
        ("cjk run".to_string(), format!("a{}", "漢".repeat(11_000))),
        ("cyrillic run".into(), "ж".repeat(17_000)),
        ("ascii 1 MiB word".into(), "x".repeat(MAX_CONTENT_BYTES)),
        ("cjk 1 MiB word".into(), "漢".repeat(MAX_CONTENT_BYTES / 3)),
        ("every plane".into(), every_plane()),
        ("control characters".into(), control_characters()),
        ("emoji run".into(), "🦀".repeat(9_000)),
    ];
    // Every character width, starting 0–3 bytes into the run, so that a
    // limit falls on every byte of a character, at and just past each
    // limit.
    for limit in TOKEN_LIMITS {
        for c in WIDTHS {
            let w = c.len_utf8();
            for shift in 0..w {
                let run = c.to_string().repeat((limit + w) / w + 1);
                out.push((
                    format!("{w}-byte run past {limit} shifted {shift}"),
                    format!("{}{run} tail", "b".repeat(shift)),
                ));
            }
        }
    }
    out
}

/// A character every 97 code points across all of Unicode (every plane,
/// every script, unassigned and private-use code points too), in runs of
/// 40 separated by spaces.
fn every_plane() -> String {
    let chars: Vec<char> = (0..0x11_0000u32)
        .step_by(97)
        .filter_map(char::from_u32)
        .filter(|c| *c != '\0')
        .collect();
    chars
        .chunks(40)
        .map(|c| c.iter().collect::<String>())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Every C0 and C1 control character but NUL, between letters.
fn control_characters() -> String {
    (1u32..0x20)
        .chain(0x7f..0xa0)
        .filter_map(char::from_u32)
        .map(|c| format!("ctl{c}x"))
        .collect()
}

/// Remember `text` as `tenant` in content, metadata (as a key and a
/// value), and project: a write either succeeds or is refused as the
/// caller's mistake, never fails inside the store.
fn write_hostile(cairn: &Cairn, tenant: &str, label: &str, text: &str) {
    let mut attempts = Vec::new();
    let mut req = RememberRequest::new(tenant, text);
    req.kind = MemoryType::Note;
    req.dedup = false;
    attempts.push(("content", req.clone()));
    let short: String = text.chars().take(4_000).collect();
    let mut meta = RememberRequest::new(tenant, format!("metadata of {label}"));
    meta.metadata = Map::from_iter([
        ("value".to_string(), Value::String(text.to_string())),
        (short.clone(), json!(1)),
    ]);
    meta.dedup = false;
    attempts.push(("metadata", meta));
    let mut project = RememberRequest::new(tenant, format!("project of {label}"));
    project.project = Some(short);
    project.dedup = false;
    attempts.push(("project", project));
    for (field, req) in attempts {
        if let Err(e) = cairn.remember(req) {
            assert!(
                e.kind().is_callers(),
                "{label} in {field}: a store fault instead of a refusal: {e}"
            );
        }
    }
}

/// Every read of `tenant` answers (a query the engine refuses as too long
/// counts as an answer: it is the caller's mistake, named).
fn reads_answer(cairn: &Cairn, store: &dyn Store, tenant: &str, query: &str, context: &str) {
    let check = |what: &str, r: Result<usize, Error>| match r {
        Err(e) if !e.kind().is_callers() => panic!("{context}: {what} of {tenant} failed: {e}"),
        Err(e) if tenant == "default" => panic!("{context}: {what} of {tenant} refused: {e}"),
        _ => {}
    };
    for mode in [
        SearchMode::Hybrid,
        SearchMode::Keyword,
        SearchMode::Semantic,
    ] {
        let mut req = RecallRequest::new(tenant, query);
        req.mode = mode;
        check(
            &format!("{mode:?} recall"),
            cairn.recall(&req).map(|r| r.len()),
        );
    }
    let filter = cairn.filter(tenant).scope(ScopeFilter::All);
    check(
        "keyword search",
        store.keyword_search(query, &filter, 10).map(|h| h.len()),
    );
    check("keyword rarity", store.keyword_rarity(query).map(|_| 0));
    check(
        "list",
        cairn
            .list(&filter, ListOrder::Newest, 50, 0)
            .map(|l| l.len()),
    );
    check("count", store.count(&filter));
    check("stats", cairn.stats(tenant).map(|_| 0));
    check(
        "tenants",
        store.tenants(crate::TenantsWith::Memories).map(|t| t.len()),
    );
    check("receipts", store.receipts(tenant, "", 10).map(|r| r.len()));
}

/// One tenant writes every text of [`hostile_texts`]; the other's reads
/// answer and find what they found before, before and after the hostile
/// memories are forgotten, and the writer's own reads answer too.
pub fn engine_hostile_input_stays_with_its_tenant(store: Arc<dyn Store>) {
    let cairn = engine(store.clone());
    let victim = cairn
        .remember(RememberRequest::new(
            "default",
            "the staging database runs in Falkenstein",
        ))
        .unwrap()
        .id;
    let found = |context: &str| {
        let mut req = RecallRequest::new("default", "staging database");
        req.mode = SearchMode::Keyword;
        let ids: Vec<_> = cairn
            .recall(&req)
            .unwrap()
            .iter()
            .map(|r| r.memory.id)
            .collect();
        assert_eq!(ids, vec![victim], "{context}");
    };
    found("before");
    let texts = hostile_texts();
    for (label, text) in &texts {
        write_hostile(&cairn, "mallory", label, text);
        reads_answer(&cairn, &*store, "default", "staging database", label);
    }
    // NUL is refused as the caller's mistake, by every backend.
    let nul = cairn.remember(RememberRequest::new("mallory", "nul\0here"));
    assert!(nul.is_err_and(|e| e.kind().is_callers()));
    found("after the hostile writes");
    for (label, text) in &texts {
        let start: String = text.chars().take(50_000).collect();
        reads_answer(&cairn, &*store, "mallory", &start, label);
    }
    let filter = cairn.filter("mallory").scope(ScopeFilter::All);
    let forgotten = cairn.forget_matching(&filter, LOCAL_ACTOR).unwrap();
    assert!(forgotten.len() >= texts.len(), "{}", forgotten.len());
    found("after forgetting");
    reads_answer(
        &cairn,
        &*store,
        "default",
        "staging database",
        "after forgetting",
    );
    reads_answer(&cairn, &*store, "mallory", &texts[0].1, "after forgetting");
    assert_eq!(store.count(&filter).unwrap(), 0);
}
