//! How a [`crate::PostgresStore`] is opened: [`PostgresOptions`], their
//! defaults, and Cairn's own parameters in the URL.

use std::time::Duration;

use cairn_core::{Error, Result};

use crate::schema;

/// How to open a [`crate::PostgresStore`].
#[derive(Debug, Clone)]
pub struct PostgresOptions {
    /// The schema the store's tables live in (made if missing). Several
    /// stores can share a database, one schema each.
    pub schema: String,
    /// At most this many connections.
    pub pool_size: u32,
    /// How long to wait for a connection before the store is
    /// [`cairn_core::ErrorKind::Unavailable`]: both one attempt to connect
    /// (unless the URL gives `connect_timeout`) and a wait for a pooled
    /// connection. Default [`CONNECT_TIMEOUT`].
    pub connect_timeout: Duration,
    /// The HNSW search's candidate list (`hnsw.ef_search`) at least: larger
    /// finds the true nearest neighbours more often, slower. A search for
    /// more results than this uses its limit. Default
    /// [`DEFAULT_EF_SEARCH`]; the URL's `?ef_search=N` wins.
    pub ef_search: usize,
    /// When the database cannot be reached at open: `false` fails the
    /// open as [`cairn_core::ErrorKind::Unavailable`]; `true` opens the
    /// store anyway, every call unavailable until one reaches the
    /// database, which then migrates the schema (a server started before
    /// its database). Default `false`.
    pub wait_for_database: bool,
    /// A keyword query whose every term has an idf (`rank::bm25_idf`) of
    /// at most this is answered from one bounded read of the postings:
    /// the best of the memories read there, each scored exactly, not
    /// always the exact top k (see `postings.rs`). Its terms are each held
    /// by many memories, so an exact answer would read their long lists
    /// deep. Default [`COMMON_TERM_IDF`]; 0 answers every query exactly.
    pub common_term_idf: f64,
    /// The most memory, in MiB, building the vector index may use
    /// (`maintenance_work_mem`): the HNSW graph is built in memory while
    /// it fits, and far more slowly once it does not. The build asks for
    /// what the graph needs (about 4 bytes a dimension and 1 KiB a
    /// memory), up to this. Default [`INDEX_MEMORY_MIB`]; the URL's
    /// `?index_memory=MiB` wins.
    pub index_memory_mib: u64,
}

/// The default [`PostgresOptions::ef_search`]: 100, with which hybrid
/// recall on LoCoMo matches SQLite's exact vector search (see
/// `docs/BENCHMARKS.md`).
pub const DEFAULT_EF_SEARCH: usize = 100;

/// The default [`PostgresOptions::common_term_idf`]: 3, the idf of a
/// term held by about one memory in 21 (a stop word, in most stores).
pub const COMMON_TERM_IDF: f64 = 3.0;

/// The default [`PostgresOptions::index_memory_mib`]: 1 GiB, the graph of
/// about 450,000 memories of 384 dimensions.
pub const INDEX_MEMORY_MIB: u64 = 1024;

/// The default [`PostgresOptions::connect_timeout`]: 3 seconds. Long
/// enough for a connection across a data centre (and PostgreSQL's own
/// authentication) under load; short enough that a request while the
/// database is unreachable gets its 503 well within a client's patience
/// and the server's request timeout (30 s by default).
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);

/// How long data sent on a connection may go unacknowledged (or a
/// connection stay silent past its keepalives) before the connection
/// counts as lost (`tcp_user_timeout`, unless the URL gives it): 10
/// seconds. A database host that vanishes without closing its
/// connections (power loss, a network partition) then fails the queries
/// under way as unavailable within seconds rather than after the
/// kernel's retransmissions (about 15 minutes).
pub const TCP_USER_TIMEOUT: Duration = Duration::from_secs(10);

impl Default for PostgresOptions {
    fn default() -> Self {
        PostgresOptions {
            schema: "cairn".into(),
            pool_size: 16,
            connect_timeout: CONNECT_TIMEOUT,
            ef_search: DEFAULT_EF_SEARCH,
            wait_for_database: false,
            common_term_idf: COMMON_TERM_IDF,
            index_memory_mib: INDEX_MEMORY_MIB,
        }
    }
}

/// The connection `url` names with `options`: Cairn's own parameters
/// (`schema`, `ef_search`, `index_memory`) taken out into the options, the connection's
/// timeouts set unless the URL gives them. Also how long to wait for a
/// pooled connection: the URL's `connect_timeout`, else the options'.
pub(crate) fn resolve(
    url: &str,
    options: &mut PostgresOptions,
) -> Result<(postgres::Config, Duration)> {
    let (url, named) = split_schema(url);
    if let Some(name) = named {
        options.schema = name;
    }
    let (url, ef_search) = split_param(&url, "ef_search");
    if let Some(ef) = ef_search {
        options.ef_search = ef
            .parse()
            .ok()
            .filter(|n| (1..=1000).contains(n))
            .ok_or_else(|| {
                Error::invalid(format!("ef_search={ef}: give a number from 1 to 1000"))
            })?;
    }
    let (url, index_memory) = split_param(&url, "index_memory");
    if let Some(mib) = index_memory {
        options.index_memory_mib = mib
            .parse()
            .ok()
            .filter(|n| (64..=1 << 20).contains(n))
            .ok_or_else(|| {
                Error::invalid(format!(
                    "index_memory={mib}: give the MiB the vector index's build may use, \
                     from 64 to 1048576"
                ))
            })?;
    }
    schema::check_schema_name(&options.schema)?;
    let mut config: postgres::Config = url
        .parse()
        .map_err(|e| Error::invalid(format!("not a PostgreSQL URL: {e}")))?;
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(options.connect_timeout);
    }
    let wait = *config
        .get_connect_timeout()
        .unwrap_or(&options.connect_timeout);
    if config.get_tcp_user_timeout().is_none() {
        config.tcp_user_timeout(TCP_USER_TIMEOUT);
    }
    Ok((config, wait))
}

/// The URL without Cairn's own parameter, `schema` (which PostgreSQL's
/// URL syntax does not have), and that parameter's value.
fn split_schema(url: &str) -> (String, Option<String>) {
    split_param(url, "schema")
}

/// The URL without the query parameter `name`, and its value.
fn split_param(url: &str, name: &str) -> (String, Option<String>) {
    let Some((base, query)) = url.split_once('?') else {
        return (url.to_string(), None);
    };
    let mut value = None;
    let prefix = format!("{name}=");
    let rest: Vec<&str> = query
        .split('&')
        .filter(|pair| match pair.strip_prefix(prefix.as_str()) {
            Some(v) => {
                value = Some(v.to_string());
                false
            }
            None => !pair.is_empty(),
        })
        .collect();
    if rest.is_empty() {
        (base.to_string(), value)
    } else {
        (format!("{base}?{}", rest.join("&")), value)
    }
}

#[cfg(test)]
mod tests {
    use super::{resolve, split_schema, PostgresOptions, INDEX_MEMORY_MIB};

    #[test]
    fn the_schema_parameter_is_taken_out_of_the_url() {
        let url = "postgres://cairn@db/cairn";
        assert_eq!(split_schema(url), (url.to_string(), None));
        assert_eq!(
            split_schema("postgres://cairn@db/cairn?schema=team_a"),
            (url.to_string(), Some("team_a".to_string()))
        );
        assert_eq!(
            split_schema("postgres://db/c?sslmode=disable&schema=s1&connect_timeout=2"),
            (
                "postgres://db/c?sslmode=disable&connect_timeout=2".to_string(),
                Some("s1".to_string())
            )
        );
    }

    #[test]
    fn index_memory_is_read_from_the_url_and_checked() {
        let mut options = PostgresOptions::default();
        resolve("postgres://db/c", &mut options).unwrap();
        assert_eq!(options.index_memory_mib, INDEX_MEMORY_MIB);
        resolve("postgres://db/c?index_memory=4096&schema=s1", &mut options).unwrap();
        assert_eq!(
            (options.index_memory_mib, options.schema.as_str()),
            (4096, "s1")
        );
        for bad in ["lots", "8", "4GB"] {
            let e =
                resolve(&format!("postgres://db/c?index_memory={bad}"), &mut options).unwrap_err();
            assert!(e.to_string().contains("index_memory"), "{e}");
        }
    }
}
