//! SQL pieces: numbered parameters, the row codec, filters and orders as
//! SQL, and PostgreSQL errors as [`cairn_core::Error`]s.

use cairn_core::store::{Filter, ListOrder, RankFactors, ScopeFilter, ThreadScope};
use cairn_core::{Error, Memory, MemoryId, Result, Thread};
use postgres::error::SqlState;
use postgres::types::ToSql;
use postgres::Row;
use uuid::Uuid;

/// A statement's parameters, numbered as they are pushed.
#[derive(Default)]
pub(crate) struct Params {
    values: Vec<Box<dyn ToSql + Sync + Send>>,
}

impl Params {
    /// Add a value; returns its placeholder (`$n`).
    pub(crate) fn push(&mut self, value: impl ToSql + Sync + Send + 'static) -> String {
        self.values.push(Box::new(value));
        format!("${}", self.values.len())
    }

    /// The values, as the client takes them.
    pub(crate) fn refs(&self) -> Vec<&(dyn ToSql + Sync)> {
        self.values
            .iter()
            .map(|v| v.as_ref() as &(dyn ToSql + Sync))
            .collect()
    }
}

/// The columns [`memory_from_row`] reads, from `memories m`.
pub(crate) const MEMORY_COLUMNS: &str = "m.id, m.tenant, m.content, m.kind, m.project, m.tags, \
     m.metadata, m.importance, m.weight, m.source, m.created_at, m.updated_at, \
     m.last_accessed_at, m.access_count, m.expires_at, m.valid_from, m.valid_to, \
     m.supersedes, m.superseded_by, m.session, m.conversation, m.topic, m.search_context, \
     m.slot";

/// The columns [`factors_from_row`] reads (from `start` on), from `memories m`.
pub(crate) const FACTOR_COLUMNS: &str =
    "m.access_count, m.last_accessed_at, m.project IS NULL, m.weight";

/// A memory from a row of [`MEMORY_COLUMNS`].
pub(crate) fn memory_from_row(row: &Row) -> Result<Memory> {
    let kind: String = get(row, 3)?;
    let metadata: String = get(row, 6)?;
    let access_count: i64 = get(row, 13)?;
    let supersedes: Option<Uuid> = get(row, 17)?;
    let superseded_by: Option<Uuid> = get(row, 18)?;
    let thread: [Option<String>; 3] = [get(row, 19)?, get(row, 20)?, get(row, 21)?];
    Ok(Memory {
        id: MemoryId(get(row, 0)?),
        tenant: get(row, 1)?,
        content: get(row, 2)?,
        kind: kind.parse()?,
        project: get(row, 4)?,
        tags: get(row, 5)?,
        metadata: serde_json::from_str(&metadata)
            .map_err(|e| Error::storage_from("a stored memory's metadata is not JSON", e))?,
        importance: get(row, 7)?,
        weight: get(row, 8)?,
        source: get(row, 9)?,
        created_at: get(row, 10)?,
        updated_at: get(row, 11)?,
        last_accessed_at: get(row, 12)?,
        access_count: access_count.max(0) as u64,
        expires_at: get(row, 14)?,
        valid_from: get(row, 15)?,
        valid_to: get(row, 16)?,
        supersedes: supersedes.map(MemoryId),
        superseded_by: superseded_by.map(MemoryId),
        thread: match thread {
            [Some(session), Some(conversation), Some(topic)] => Some(Thread {
                session,
                conversation,
                topic,
            }),
            _ => None,
        },
        search_context: get(row, 22)?,
        slot: get(row, 23)?,
    })
}

/// Ranking factors from a row of [`FACTOR_COLUMNS`] starting at `start`.
pub(crate) fn factors_from_row(row: &Row, start: usize) -> Result<RankFactors> {
    let access_count: i64 = get(row, start)?;
    Ok(RankFactors {
        access_count: access_count.max(0) as u64,
        last_accessed_at: get(row, start + 1)?,
        global: get(row, start + 2)?,
        weight: get(row, start + 3)?,
    })
}

/// Column `i` of a row, its decoding error a storage error.
pub(crate) fn get<'a, T: postgres::types::FromSql<'a>>(row: &'a Row, i: usize) -> Result<T> {
    row.try_get(i)
        .map_err(|e| Error::storage_from(format!("reading column {i}"), e))
}

/// `filter` as an SQL condition on `memories m`, its values pushed onto
/// `params`. It begins with the tenant's term (row-level security holds
/// the connection to the same tenant besides).
///
/// Destructured without `..`: a new filter field does not compile until it
/// is handled here.
pub(crate) fn filter_sql(filter: &Filter, params: &mut Params) -> String {
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
    let mut sql = format!("m.tenant = {}", params.push(tenant.clone()));
    match scope {
        ScopeFilter::Global | ScopeFilter::Exactly(None) => sql.push_str(" AND m.project IS NULL"),
        ScopeFilter::Project(p) => sql.push_str(&format!(
            " AND (m.project IS NULL OR m.project = {})",
            params.push(p.clone())
        )),
        ScopeFilter::Exactly(Some(p)) => {
            sql.push_str(&format!(" AND m.project = {}", params.push(p.clone())))
        }
        ScopeFilter::All => {}
    }
    if let Some(t) = thread {
        let (column, id) = match t {
            ThreadScope::Session(s) => ("session", s),
            ThreadScope::Conversation(c) => ("conversation", c),
            ThreadScope::Topic(p) => ("topic", p),
        };
        sql.push_str(&format!(" AND m.{column} = {}", params.push(id.clone())));
    }
    if !slots.is_empty() {
        sql.push_str(&format!(
            " AND m.slot = ANY({})",
            params.push(slots.clone())
        ));
    }
    if !hidden_slots.is_empty() {
        // `<> ALL` is never true of null: memories in no slot are kept by
        // their own term.
        sql.push_str(&format!(
            " AND (m.slot IS NULL OR m.slot <> ALL({}))",
            params.push(hidden_slots.clone())
        ));
    }
    if !types.is_empty() {
        let kinds: Vec<String> = types.iter().map(|t| t.as_str().to_string()).collect();
        sql.push_str(&format!(" AND m.kind = ANY({})", params.push(kinds)));
    }
    if !tags.is_empty() {
        sql.push_str(&format!(
            " AND m.tags @> {}::text[]",
            params.push(tags.clone())
        ));
    }
    if !sources.is_empty() {
        sql.push_str(&format!(
            " AND m.source = ANY({})",
            params.push(sources.clone())
        ));
    }
    if let Some(a) = created_after {
        sql.push_str(&format!(" AND m.created_at >= {}", params.push(*a)));
    }
    if let Some(b) = created_before {
        sql.push_str(&format!(" AND m.created_at < {}", params.push(*b)));
    }
    if let Some(cursor) = after {
        sql.push_str(&format!(" AND m.id > {}", params.push(cursor.0)));
    }
    if let Some(a) = valid_after {
        sql.push_str(&format!(
            " AND (m.valid_to IS NULL OR m.valid_to > {})",
            params.push(*a)
        ));
    }
    if let Some(b) = valid_before {
        sql.push_str(&format!(
            " AND coalesce(m.valid_from, m.created_at) < {}",
            params.push(*b)
        ));
    }
    if !include_expired {
        sql.push_str(&format!(
            " AND (m.expires_at IS NULL OR m.expires_at > {})",
            params.push(*now)
        ));
    }
    if *only_superseded {
        sql.push_str(" AND m.superseded_by IS NOT NULL");
    } else if !include_superseded {
        sql.push_str(" AND m.superseded_by IS NULL");
    }
    sql
}

/// `ORDER BY` of a listing order (ties broken by id, as the in-memory
/// store breaks them).
pub(crate) fn order_sql(order: ListOrder) -> &'static str {
    match order {
        ListOrder::Newest => "m.created_at DESC, m.id DESC",
        ListOrder::Oldest => "m.created_at, m.id",
        ListOrder::Id => "m.id",
        ListOrder::RecentlyUpdated => "m.updated_at DESC, m.id DESC",
        ListOrder::MostAccessed => "m.access_count DESC, m.id DESC",
        ListOrder::Stalest => "coalesce(m.last_accessed_at, m.created_at), m.id",
        ListOrder::Expiring => "m.expires_at NULLS LAST, m.id",
    }
}

/// The ids a normalised id prefix covers, as an inclusive range.
pub(crate) fn prefix_range(prefix: &str) -> Option<(Uuid, Uuid)> {
    let hex: String = prefix.chars().filter(|c| *c != '-').collect();
    if hex.len() > 32 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let pad = |fill: char| {
        let mut s = hex.clone();
        while s.len() < 32 {
            s.push(fill);
        }
        Uuid::parse_str(&s).ok()
    };
    Some((pad('0')?, pad('f')?))
}

/// Whether PostgreSQL reports this error as one that passes: the server
/// unreachable, shutting down or out of connections, a lock or a
/// serialisation conflict. These are [`Error::Unavailable`] (HTTP 503).
fn is_transient(e: &postgres::Error) -> bool {
    match e.code() {
        Some(code) => {
            code.code().starts_with("08")
                || [
                    SqlState::ADMIN_SHUTDOWN,
                    SqlState::CRASH_SHUTDOWN,
                    SqlState::CANNOT_CONNECT_NOW,
                    SqlState::TOO_MANY_CONNECTIONS,
                    SqlState::T_R_SERIALIZATION_FAILURE,
                    SqlState::T_R_DEADLOCK_DETECTED,
                    SqlState::LOCK_NOT_AVAILABLE,
                    SqlState::QUERY_CANCELED,
                ]
                .contains(code)
        }
        // No answer from the server: transient when the connection failed,
        // was closed or timed out; not when a value could not be encoded.
        None => {
            let io = std::error::Error::source(e)
                .is_some_and(|s| s.downcast_ref::<std::io::Error>().is_some());
            let text = e.to_string();
            io || e.is_closed()
                || text.starts_with("error connecting")
                || text.starts_with("timeout")
                || text.starts_with("error communicating")
        }
    }
}

/// A PostgreSQL error as Cairn's: passing conditions are
/// [`Error::Unavailable`]; a value PostgreSQL's text cannot hold (a NUL
/// character, SQLSTATE 22021) is the caller's mistake,
/// [`Error::InvalidInput`]; the rest [`Error::Storage`], the cause kept.
pub(crate) fn pg_err(context: impl std::fmt::Display, e: postgres::Error) -> Error {
    if e.code() == Some(&SqlState::CHARACTER_NOT_IN_REPERTOIRE) {
        return Error::invalid("a value holds a NUL character, which no field of Cairn accepts");
    }
    if is_transient(&e) {
        Error::unavailable_from(format!("PostgreSQL: {context}"), e)
    } else {
        Error::storage_from(format!("PostgreSQL: {context}"), e)
    }
}

/// Whether the error is a unique-key violation.
pub(crate) fn is_unique_violation(e: &postgres::Error) -> bool {
    e.code() == Some(&SqlState::UNIQUE_VIOLATION)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_cover_their_ids() {
        let (lo, hi) = prefix_range("0193aaaa-bb").unwrap();
        assert_eq!(lo.to_string(), "0193aaaa-bb00-0000-0000-000000000000");
        assert_eq!(hi.to_string(), "0193aaaa-bbff-ffff-ffff-ffffffffffff");
        assert!(prefix_range("xyz").is_none());
        assert!(prefix_range("").is_some());
    }
}
