//! SQL of the store: the memory columns and their row codec, filters and
//! orders as SQL, blob codecs, the `meta` table, error mapping.

use std::path::Path;

use cairn_core::store::{Filter, ListOrder, ScopeFilter, ThreadScope};
use cairn_core::{Error, Memory, ModelInfo, RankFactors, Result, Thread};
use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension};

use crate::vector_index::quantize;

/// What makes a [`Memory`], read from its row `m` (and its `accessed`
/// row), in the order [`row_to_memory`] uses (a macro, so that statements
/// can be built with `concat!`).
macro_rules! memory_columns {
    () => {
        concat!("m.id, m.tenant, ", row_snapshot!())
    };
}

/// A memory's own columns in `memories`, in [`snapshot_columns`]' order
/// without the access count and last access (kept in `accessed`).
macro_rules! row_columns {
    () => {
        "id, tenant, content, kind, project, tags, metadata, importance, weight, source, \
         created_at, updated_at, expires_at, valid_from, valid_to, supersedes, superseded_by, \
         session, conversation, topic, search_context, slot"
    };
}
pub(crate) use row_columns;

/// [`snapshot_columns`] read from the memory's row `m` and its `accessed`
/// row.
macro_rules! row_snapshot {
    () => {
        concat!(
            "m.content, m.kind, m.project, m.tags, m.metadata, m.importance, m.weight, m.source, \
             m.created_at, m.updated_at, ",
            last_access_of!("m"),
            ", ",
            access_count_of!("m"),
            ", m.expires_at, m.valid_from, m.valid_to, m.supersedes, m.superseded_by, \
             m.session, m.conversation, m.topic, m.search_context, m.slot"
        )
    };
}
pub(crate) use row_snapshot;

/// The access count of the row aliased `$row` (0 when never accessed).
/// A subquery, not a join: see [`EMBEDDING_SQL`].
macro_rules! access_count_of {
    ($row:literal) => {
        concat!(
            "coalesce((SELECT count FROM accessed WHERE rowid = ",
            $row,
            ".rowid), 0)"
        )
    };
}
pub(crate) use access_count_of;

/// The last access of the row aliased `$row` (NULL when never accessed).
macro_rules! last_access_of {
    ($row:literal) => {
        concat!(
            "(SELECT last_at FROM accessed WHERE rowid = ",
            $row,
            ".rowid)"
        )
    };
}
pub(crate) use last_access_of;

/// The columns of a memory besides its id and tenant: what a version keeps.
macro_rules! snapshot_columns {
    () => {
        "content, kind, project, tags, metadata, importance, weight, source, \
         created_at, updated_at, last_accessed_at, access_count, expires_at, valid_from, valid_to, supersedes, superseded_by, \
         session, conversation, topic, search_context, slot"
    };
}
pub(crate) use snapshot_columns;
pub(crate) const MEMORY_COLUMNS: &str = memory_columns!();
/// How many columns [`MEMORY_COLUMNS`] names.
pub(crate) const MEMORY_COLUMN_COUNT: usize = 24;

/// The embedding model recorded in the store, if any.
pub(crate) fn recorded_model(conn: &Connection) -> Result<Option<ModelInfo>> {
    let get = |key: &str| -> Result<Option<String>> {
        conn.prepare_cached("SELECT value FROM meta WHERE key = ?1")
            .and_then(|mut s| s.query_row([key], |r| r.get(0)))
            .optional()
            .map_err(sql_err)
    };
    match (get("model_name")?, get("model_dim")?) {
        (Some(name), Some(dim)) => Ok(Some(ModelInfo {
            name,
            dim: dim.parse().map_err(Error::storage)?,
        })),
        _ => Ok(None),
    }
}

/// Refuse a vector whose length is not the recorded model's dimension.
pub(crate) fn check_vector(conn: &Connection, vector: &[f32]) -> Result<()> {
    cairn_core::memstore::check_dimension(recorded_model(conn)?.as_ref(), vector)
}

/// An SQLite error as Cairn's: a lock still held after the busy timeout
/// is [`Error::Unavailable`] (retry later), anything else a storage fault;
/// the SQLite error is kept as the cause.
pub(crate) fn sql_err(e: rusqlite::Error) -> Error {
    use rusqlite::ErrorCode::{DatabaseBusy, DatabaseLocked};
    match e.sqlite_error_code() {
        Some(DatabaseBusy | DatabaseLocked) => {
            Error::unavailable_from("the database is locked by another writer", e)
        }
        _ => Error::storage_from("", e),
    }
}

/// Create `dir` and its missing parents, those created readable by their
/// owner only (memories are private); an existing directory is left as it
/// is.
pub(crate) fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// Create the store file, readable and writable by its owner only, unless
/// it exists (an existing file is left as it is). SQLite gives the files
/// it makes beside it (`-wal`, `-shm`) the same permissions.
pub(crate) fn create_private_file(path: &Path) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
    }
}

/// The text of `memories_fts`'s tags and metadata columns, from a
/// memory's stored tags and metadata (JSON) and search context: the
/// metadata column holds [`Memory::keyword_context`].
pub(crate) fn fts_columns(
    tags: &str,
    metadata: &str,
    search_context: Option<&str>,
) -> Result<(String, String)> {
    let tags: Vec<String> = serde_json::from_str(tags).map_err(Error::storage)?;
    let metadata = serde_json::from_str(metadata).map_err(Error::storage)?;
    Ok((
        tags.join(" "),
        cairn_core::memory::keyword_context(&metadata, search_context),
    ))
}

/// One read transaction around `statements` lookups, when there are
/// several: each statement outside a transaction takes and releases the
/// file's read lock on its own, which costs more than the lookup.
pub(crate) fn read_transaction(
    conn: &Connection,
    statements: usize,
) -> Result<Option<rusqlite::Transaction<'_>>> {
    (statements > 1)
        .then(|| conn.unchecked_transaction().map_err(sql_err))
        .transpose()
}

/// End a [`read_transaction`].
pub(crate) fn end_read(tx: Option<rusqlite::Transaction<'_>>) -> Result<()> {
    tx.map_or(Ok(()), |tx| tx.commit().map_err(sql_err))
}

/// The four columns [`row_factors`] reads, of the memory's row `m`.
pub(crate) const ROW_FACTORS: &str = concat!(
    access_count_of!("m"),
    ", ",
    last_access_of!("m"),
    ", m.project IS NULL, m.weight"
);

/// [`RankFactors`] from four columns starting at `first`: access count,
/// last access, whether global, weight.
pub(crate) fn row_factors(row: &rusqlite::Row<'_>, first: usize) -> rusqlite::Result<RankFactors> {
    Ok(RankFactors {
        access_count: row.get::<_, i64>(first)?.max(0) as u64,
        last_accessed_at: row.get(first + 1)?,
        global: row.get(first + 2)?,
        weight: row.get(first + 3)?,
    })
}

/// Terms (with their document frequencies) taken rarest first while the
/// frequencies add up to at most `budget`; the rarest is always kept.
pub(crate) fn rarest_within(mut counted: Vec<(i64, String)>, budget: i64) -> Vec<String> {
    counted.sort();
    let mut used = 0;
    let mut kept = Vec::new();
    for (i, (df, term)) in counted.into_iter().enumerate() {
        used += df;
        if i == 0 || used <= budget {
            kept.push(term);
        }
    }
    kept
}

/// Text column `i` of `row`, read in place (no copy), `None` for NULL.
pub(crate) fn text<'r>(row: &'r rusqlite::Row, i: usize) -> Result<Option<&'r str>> {
    row.get_ref(i)
        .map_err(sql_err)?
        .as_str_or_null()
        .map_err(Error::storage)
}

pub(crate) fn meta_int(conn: &Connection, key: &str) -> Result<i64> {
    conn.prepare_cached("SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?1")
        .and_then(|mut s| s.query_row([key], |r| r.get(0)))
        .map_err(sql_err)
}

pub(crate) fn add_docs(conn: &Connection, delta: i64) -> Result<()> {
    conn.prepare_cached("UPDATE meta SET value = CAST(value AS INTEGER) + ?1 WHERE key = 'docs'")
        .and_then(|mut s| s.execute([delta]))
        .map_err(sql_err)?;
    Ok(())
}

/// Add one to the counter `key` in `meta` (`rev` or `arev`); returns the
/// new value.
pub(crate) fn bump(conn: &Connection, key: &str) -> Result<i64> {
    conn.prepare_cached(
        "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = ?1 RETURNING CAST(value AS INTEGER)",
    )
    .and_then(|mut s| s.query_row([key], |r| r.get(0)))
    .map_err(sql_err)
}

pub(crate) fn vector_blob(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub(crate) fn blob_vector(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

pub(crate) fn code_blob(v: &[f32]) -> Vec<u8> {
    let (codes, scale) = quantize(v);
    let mut out = Vec::with_capacity(4 + codes.len());
    out.extend_from_slice(&scale.to_le_bytes());
    out.extend(codes.iter().map(|c| *c as u8));
    out
}

pub(crate) fn tags_json(tags: &[String]) -> String {
    serde_json::to_string(tags).unwrap_or_else(|_| "[]".into())
}

pub(crate) fn row_to_memory(
    row: &rusqlite::Row<'_>,
) -> rusqlite::Result<std::result::Result<Memory, Error>> {
    let id: String = row.get(0)?;
    let kind: String = row.get(3)?;
    let tags: String = row.get(5)?;
    let metadata: String = row.get(6)?;
    let supersedes: Option<String> = row.get(17)?;
    let superseded_by: Option<String> = row.get(18)?;
    let access_count: i64 = row.get(13)?;
    let thread: [Option<String>; 3] = [row.get(19)?, row.get(20)?, row.get(21)?];
    let build = || -> Result<Memory> {
        Ok(Memory {
            id: id.parse()?,
            tenant: row.get(1).map_err(sql_err)?,
            content: row
                .get::<_, crate::packing::StoredText>(2)
                .map_err(sql_err)?
                .0,
            kind: kind.parse()?,
            project: row.get(4).map_err(sql_err)?,
            tags: serde_json::from_str(&tags).map_err(Error::storage)?,
            metadata: serde_json::from_str(&metadata).map_err(Error::storage)?,
            importance: row.get(7).map_err(sql_err)?,
            weight: row.get(8).map_err(sql_err)?,
            source: row.get(9).map_err(sql_err)?,
            created_at: row.get(10).map_err(sql_err)?,
            updated_at: row.get(11).map_err(sql_err)?,
            last_accessed_at: row.get(12).map_err(sql_err)?,
            access_count: access_count.max(0) as u64,
            expires_at: row.get(14).map_err(sql_err)?,
            valid_from: row.get(15).map_err(sql_err)?,
            valid_to: row.get(16).map_err(sql_err)?,
            supersedes: supersedes.map(|s| s.parse()).transpose()?,
            superseded_by: superseded_by.map(|s| s.parse()).transpose()?,
            thread: thread_of(thread),
            search_context: row.get(22).map_err(sql_err)?,
            slot: row.get(23).map_err(sql_err)?,
        })
    };
    Ok(build())
}

/// A memory's thread from its three columns (all set or none).
pub(crate) fn thread_of([session, conversation, topic]: [Option<String>; 3]) -> Option<Thread> {
    Some(Thread {
        session: session?,
        conversation: conversation?,
        topic: topic?,
    })
}

/// A memory's thread as its three columns.
pub(crate) fn thread_columns(thread: Option<&Thread>) -> [Option<&str>; 3] {
    match thread {
        Some(t) => [Some(&t.session), Some(&t.conversation), Some(&t.topic)],
        None => [None; 3],
    }
}

/// Translate a [`Filter`] into a SQL condition on the `memories` table
/// aliased `m`, with its parameters. It begins with the tenant's term,
/// `m.tenant = ?`.
/// `filter` as an SQL condition on `memories m` and its arguments.
/// Destructured without `..`: a new filter field does not compile until it
/// is handled here.
pub(crate) fn filter_sql(filter: &Filter) -> (String, Vec<Value>) {
    let Filter {
        tenant,
        scope,
        thread,
        slots,
        hidden_slots,
        types,
        tags,
        sources,
        created_after,
        created_before,
        after,
        valid_after,
        valid_before,
        include_expired,
        include_superseded,
        only_superseded,
        now,
    } = filter;
    let mut sql = String::from("m.tenant = ?");
    let mut args: Vec<Value> = vec![Value::Text(tenant.clone())];
    match scope {
        ScopeFilter::Global | ScopeFilter::Exactly(None) => sql.push_str(" AND m.project IS NULL"),
        ScopeFilter::Project(p) => {
            sql.push_str(" AND (m.project IS NULL OR m.project = ?)");
            args.push(Value::Text(p.clone()));
        }
        ScopeFilter::Exactly(Some(p)) => {
            sql.push_str(" AND m.project = ?");
            args.push(Value::Text(p.clone()));
        }
        ScopeFilter::All => {}
    }
    if let Some(t) = thread {
        let (column, id) = match t {
            ThreadScope::Session(s) => ("session", s),
            ThreadScope::Conversation(c) => ("conversation", c),
            ThreadScope::Topic(p) => ("topic", p),
        };
        sql.push_str(&format!(" AND m.{column} = ?"));
        args.push(Value::Text(id.clone()));
    }
    // `NOT IN` is never true of NULL: memories in no slot are kept by
    // their own term.
    let names = |names: &[String]| vec!["?"; names.len()].join(", ");
    if !slots.is_empty() {
        sql.push_str(&format!(" AND m.slot IN ({})", names(slots)));
        args.extend(slots.iter().map(|s| Value::Text(s.clone())));
    }
    if !hidden_slots.is_empty() {
        sql.push_str(&format!(
            " AND (m.slot IS NULL OR m.slot NOT IN ({}))",
            names(hidden_slots)
        ));
        args.extend(hidden_slots.iter().map(|s| Value::Text(s.clone())));
    }
    if !types.is_empty() {
        sql.push_str(" AND m.kind IN (");
        sql.push_str(&vec!["?"; types.len()].join(", "));
        sql.push(')');
        args.extend(types.iter().map(|t| Value::Text(t.as_str().into())));
    }
    for tag in tags {
        sql.push_str(" AND EXISTS (SELECT 1 FROM json_each(m.tags) WHERE json_each.value = ?)");
        args.push(Value::Text(tag.clone()));
    }
    if !sources.is_empty() {
        sql.push_str(&format!(" AND m.source IN ({})", names(sources)));
        args.extend(sources.iter().map(|s| Value::Text(s.clone())));
    }
    let mut cond = |clause: &str, v: Option<i64>| {
        if let Some(v) = v {
            sql.push_str(clause);
            args.push(Value::Integer(v));
        }
    };
    cond(" AND m.created_at >= ?", *created_after);
    cond(" AND m.created_at < ?", *created_before);
    cond(" AND (m.valid_to IS NULL OR m.valid_to > ?)", *valid_after);
    cond(
        " AND COALESCE(m.valid_from, m.created_at) < ?",
        *valid_before,
    );
    if !include_expired {
        cond(
            " AND (m.expires_at IS NULL OR m.expires_at > ?)",
            Some(*now),
        );
    }
    if *only_superseded {
        sql.push_str(" AND m.superseded_by IS NOT NULL");
    } else if !include_superseded {
        sql.push_str(" AND m.superseded_by IS NULL");
    }
    if let Some(id) = after {
        sql.push_str(" AND m.id > ?");
        args.push(Value::Text(id.to_string()));
    }
    (sql, args)
}

pub(crate) fn order_sql(order: ListOrder) -> &'static str {
    match order {
        ListOrder::Newest => "m.created_at DESC, m.id DESC",
        ListOrder::Oldest => "m.created_at ASC, m.id ASC",
        ListOrder::Id => "m.id ASC",
        ListOrder::RecentlyUpdated => "m.updated_at DESC, m.id DESC",
        ListOrder::MostAccessed => concat!(access_count_of!("m"), " DESC, m.id DESC"),
        ListOrder::Stalest => concat!(
            "COALESCE(",
            last_access_of!("m"),
            ", m.created_at) ASC, m.id ASC"
        ),
        ListOrder::Expiring => "m.expires_at IS NULL, m.expires_at ASC, m.id ASC",
    }
}

/// The tenants with anything stored ([`cairn_core::TenantsWith::Anything`]):
/// memories, deletion receipts or collections.
pub(crate) const EVERY_TENANT_SQL: &str = "SELECT tenant FROM memories UNION \
     SELECT tenant FROM deletions UNION SELECT tenant FROM collections ORDER BY tenant";

/// A memory's neighbours in id order within its tenant (`?1` the id, `?2`
/// the tenant), for short ids: both sides in one statement, each a seek
/// in `memories_id_tenant` alone. `+tenant` keeps the planner on an id
/// index (a seek), not the tenant index (a scan of the tenant's memories).
pub(crate) const NEIGHBOURS_SQL: &str =
    "SELECT (SELECT id FROM memories WHERE id < ?1 AND +tenant = ?2 ORDER BY id DESC LIMIT 1), \
            (SELECT id FROM memories WHERE id > ?1 AND +tenant = ?2 ORDER BY id LIMIT 1)";

/// The query behind
/// [`Reading::embeddings`](cairn_core::store::Reading::embeddings). A
/// subquery, not a join: SQLite recompiles a join of this form each time
/// its parameters are rebound, a single-table lookup never.
pub(crate) const EMBEDDING_SQL: &str = "SELECT (SELECT vector FROM vectors WHERE rowid = m.rowid) \
     FROM memories m WHERE m.id = ?1 AND m.tenant = ?2";

/// The query behind [`Reading::list`](cairn_core::store::Reading::list)
/// and its parameters, up to the limit's and offset's.
pub(crate) fn list_sql(filter: &Filter, order: ListOrder) -> (String, Vec<Value>) {
    let (mut cond, args) = filter_sql(filter);
    if order == ListOrder::Id {
        // Walk the id index in order, so that a page costs its own rows:
        // `+` keeps the planner off the tenant indexes, from which it would
        // sort every memory of the tenant again for each page.
        cond.insert(0, '+');
    }
    let sql = format!(
        "SELECT {MEMORY_COLUMNS} FROM memories m WHERE {cond} ORDER BY {} LIMIT ? OFFSET ?",
        order_sql(order)
    );
    (sql, args)
}

/// An FTS5 query that matches any of the terms, each quoted as a string so
/// that nothing the user typed is syntax.
pub fn fts_query(terms: &[String]) -> Option<String> {
    if terms.is_empty() {
        return None;
    }
    let quoted: Vec<String> = terms
        .iter()
        .map(|t| format!("\"{}\"", t.replace('"', "\"\"")))
        .collect();
    Some(quoted.join(" OR "))
}

/// The versions of a memory, oldest first: the memory's columns (as the
/// version keeps them, or the memory's row for its latest version), then
/// number, change, actor, reason and time.
pub(crate) fn history_sql() -> String {
    let state: Vec<String> = snapshot_columns!()
        .split(',')
        .map(str::trim)
        .map(|c| {
            let row = match c {
                "last_accessed_at" => last_access_of!("m").to_string(),
                "access_count" => access_count_of!("m").to_string(),
                c => format!("m.{c}"),
            };
            format!("CASE WHEN v.content IS NULL THEN {row} ELSE v.{c} END")
        })
        .collect();
    format!(
        "SELECT m.id, m.tenant, {}, v.number, v.change, v.actor, v.reason, v.at \
         FROM memories m JOIN versions v ON v.memory = m.rowid \
         WHERE m.id = ?1 AND m.tenant = ?2 ORDER BY v.number",
        state.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pruning_keeps_the_rarest_terms_within_budget() {
        let c = |v: &[(i64, &str)]| {
            v.iter()
                .map(|(d, t)| (*d, t.to_string()))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            rarest_within(c(&[(4000, "common"), (10, "rare"), (900, "mid")]), 5000),
            vec!["rare", "mid", "common"]
        );
        assert_eq!(
            rarest_within(c(&[(4000, "common"), (10, "rare"), (1200, "mid")]), 5000),
            vec!["rare", "mid"]
        );
        assert_eq!(
            rarest_within(c(&[(9000, "a"), (8000, "b")]), 5000),
            vec!["b"]
        );
        assert!(rarest_within(vec![], 5000).is_empty());
    }

    #[test]
    fn the_column_count_is_the_columns_named() {
        // Each subquery holds one comma of its own.
        assert_eq!(MEMORY_COLUMNS.split(',').count(), MEMORY_COLUMN_COUNT + 1);
        assert_eq!(row_columns!().split(',').count() + 2, MEMORY_COLUMN_COUNT);
    }
}
