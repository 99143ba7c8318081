//! The store's SQL: query plans, statement caching and FTS quoting.

use super::*;

#[test]
fn listing_by_id_after_a_cursor_reads_the_id_index_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(dir.path().join("c.db")).unwrap();
    let mut filter = Filter::new("default", 0).everything();
    filter.after = Some(MemoryId::new_at(0));
    filter.types = vec![cairn_core::MemoryType::Fact];
    let (sql, mut args) = list_sql(&filter, ListOrder::Id);
    args.extend([Value::Integer(1000), Value::Integer(0)]);
    let plan = plan(&store, &sql, args);
    assert!(
        plan.contains("sqlite_autoindex_memories_1 (id>?)"),
        "{plan}"
    );
    assert!(!plan.contains("TEMP B-TREE"), "{plan}");
}

/// The plan of `sql` with `args`, a step a line.
fn plan(store: &SqliteStore, sql: &str, args: Vec<Value>) -> String {
    let conn = store.conn().unwrap();
    let steps: Vec<String> = conn
        .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
        .unwrap()
        .query_map(params_from_iter(args), |r| r.get(3))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    steps.join("\n")
}

#[test]
fn the_default_listing_and_its_count_read_the_live_index_alone() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(dir.path().join("c.db")).unwrap();
    let filter = Filter::new("default", 0).scope(cairn_core::ScopeFilter::All);
    let (sql, mut args) = list_sql(&filter, ListOrder::Newest);
    args.extend([Value::Integer(50), Value::Integer(0)]);
    let page = plan(&store, &sql, args);
    assert!(page.contains("INDEX memories_live"), "{page}");
    assert!(!page.contains("TEMP B-TREE"), "{page}");
    let (cond, args) = filter_sql(&filter);
    let count = plan(
        &store,
        &format!("SELECT COUNT(*) FROM memories m WHERE {cond}"),
        args,
    );
    assert!(count.contains("COVERING INDEX memories_live"), "{count}");
}

#[test]
fn short_ids_and_accesses_find_ids_in_the_id_tenant_index_alone() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(dir.path().join("c.db")).unwrap();
    let id = Value::Text(MemoryId::new_at(0).to_string());
    let tenant = Value::Text("default".into());
    let neighbours = plan(&store, NEIGHBOURS_SQL, vec![id.clone(), tenant.clone()]);
    assert_eq!(
        neighbours
            .matches("COVERING INDEX memories_id_tenant (id")
            .count(),
        2,
        "{neighbours}"
    );
    let record = plan(
        &store,
        crate::access::RECORD_SQL,
        vec![
            Value::Integer(1),
            Value::Integer(1),
            Value::Integer(0),
            id,
            tenant,
        ],
    );
    assert!(
        record.contains("COVERING INDEX memories_id_tenant (id=? AND tenant=?)"),
        "{record}"
    );
}

#[test]
fn reading_embeddings_never_recompiles_the_query() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(dir.path().join("c.db")).unwrap();
    for _ in 0..3 {
        store.embeddings("default", &[MemoryId::new_at(0)]).unwrap();
    }
    let conn = store.reader().unwrap();
    let stmt = conn.prepare_cached(EMBEDDING_SQL).unwrap();
    assert_eq!(stmt.get_status(rusqlite::StatementStatus::Run), 3);
    assert_eq!(stmt.get_status(rusqlite::StatementStatus::RePrepare), 0);
}

#[test]
fn fts_queries_quote_every_term() {
    let q = |t: &str| fts_query(&keyword_terms(t));
    assert_eq!(
        q("pre-production AND db").unwrap(),
        "\"pre\" OR \"production\" OR \"db\""
    );
    assert_eq!(q("a a a").unwrap(), "\"a\"");
    assert!(q("?!").is_none());
}
