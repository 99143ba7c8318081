//! # cairn-postgres
//!
//! Cairn's PostgreSQL backend: [`PostgresStore`] implements
//! [`cairn_core::Store`] (and its [`cairn_core::keys::KeyStore`]) on
//! PostgreSQL with the pgvector extension, for several Cairn processes on
//! one database.
//!
//! ## Design
//! - **Synchronous client, pooled.** The `Store` trait is synchronous, so
//!   this crate uses the `postgres` crate (a blocking client over
//!   `tokio-postgres`) in an `r2d2` pool rather than an async driver behind
//!   a bridge of our own: nothing async leaks into the core, and async front
//!   ends already call the store from `spawn_blocking`/`block_in_place`
//!   threads, where a blocking client is what belongs.
//! - **Schema.** Versioned migrations are SQL files compiled in
//!   (`src/migrations/`), each applied once in one transaction and recorded
//!   in `cairn_migrations`; several processes opening at once take turns
//!   on an advisory lock. Each store lives in one schema
//!   ([`PostgresOptions::schema`]), so stores (and tests) can share a
//!   database.
//! - **Tenants, twice.** Every query names its tenant in SQL, and every
//!   transaction names it to PostgreSQL (`SET LOCAL cairn.tenant`), whose
//!   row-level security on `memories`, `versions` and `deletions` hides
//!   other tenants' rows from a query that forgets its condition. Policies
//!   do not hold superusers, roles with `BYPASSRLS`, or (without `FORCE`)
//!   the tables' owner: the tables are `FORCE`d, and when the connected
//!   role bypasses row-level security, every pooled connection acts as
//!   [`APP_ROLE`], a plain role the store makes and grants only what it
//!   needs. The operations over every tenant (expiry, the tenant list) say
//!   so (`cairn.every_tenant`).
//! - **Vectors.** A `vector` column; per model dimension, an HNSW cosine
//!   index over the rows of that dimension (made by
//!   [`cairn_core::store::Writing::set_model`]), searched with pgvector's iterative
//!   scan so that filters do not starve the results.
//! - **Keywords.** A memory's words are the core's terms
//!   (`store::query_terms`) of its content, tags and metadata values,
//!   stemmed by PostgreSQL's Snowball English stemmer with no stop words
//!   into a weighted `tsvector` (A, B, C), and postings per tenant and
//!   stem ordered by impact (`kw_postings`). Scores are
//!   `rank::bm25_term`'s formula over statistics of every memory of every
//!   tenant (`kw_corpus`, `kw_terms`; triggers keep them and the postings
//!   in the same transaction), so PostgreSQL ranks as SQLite's FTS5 and
//!   the in-memory store do. The top k is found by a threshold algorithm
//!   over the postings (`postings.rs`) without scoring every memory that
//!   holds a term, and each returned score is computed exactly in the
//!   database with the core's constants. `tsvector` limits apply: a word's occurrences
//!   beyond 256, and positions past 16,383, are not counted.
//! - **Writes.** Every `WriteBatch` is one transaction (64 inserts or more
//!   go by binary `COPY` through a staging table: `bulk.rs`);
//!   `insert_unless_duplicate` holds an advisory lock per tenant from its
//!   check to its commit, so writers in different processes never both
//!   insert.
//! - **Errors.** An unreachable server, a lost connection, a shutdown or a
//!   lock conflict is `ErrorKind::Unavailable` (HTTP 503); everything else
//!   is a storage error, its cause kept.
//! - **Outages.** Connecting times out after [`CONNECT_TIMEOUT`] (3 s;
//!   the URL's `connect_timeout` wins), and so does waiting for a pooled
//!   connection: while the database is unreachable every call fails as
//!   unavailable within about 3 s. The pool tests a connection before
//!   lending it and replaces broken ones, so it reconnects by itself when
//!   the database is back. [`TCP_USER_TIMEOUT`] (10 s) drops connections
//!   whose sent data goes unacknowledged (a host gone silent). The pool is
//!   made (the schema migrated first) by the first call that reaches the
//!   database, and closed on a thread of its own: the `postgres` client's
//!   connections each hold a runtime, which must not be dropped on an
//!   async runtime's thread.
//! - **URL.** `?schema=NAME` in the URL chooses the schema (Cairn's own
//!   parameter, removed before the URL reaches PostgreSQL); the others are
//!   PostgreSQL's.
//!
//! ## Status
//! Works: the `Store` contract (the conformance suite), row-level
//! security, migrations, `cairn serve --store postgres://…` (REST and MCP),
//! 503s and `/readyz` during an outage with recovery after, and several
//! servers on one schema, bulk writes by binary `COPY` with the vector
//! index built once after a bulk load (`bulk.rs`), and copying whole
//! stores in and out (`Writing::restore`, for `cairn migrate`; tested end to
//! end in `cairn-cli`), and a store opened while the database is down
//! that connects once it is up ([`PostgresOptions::wait_for_database`],
//! which `cairn serve` uses). Not yet: keyword search that keeps up with
//! SQLite's at 100,000 memories (every candidate is scored, in the
//! database).
//!
//! ## Never
//! This crate never interprets user text as SQL or `tsquery` syntax, and
//! never reads or writes outside its schema (the `vector` extension
//! aside).

#![warn(unreachable_pub)]

mod bulk;
mod collections;
mod db;
mod keys;
mod keyword;
mod oauth;
mod options;
mod postings;
mod read;
mod schema;
mod shared;
mod sql;
mod store;
mod vector;
mod write;

pub use options::{
    PostgresOptions, COMMON_TERM_IDF, CONNECT_TIMEOUT, DEFAULT_EF_SEARCH, INDEX_MEMORY_MIB,
    TCP_USER_TIMEOUT,
};
pub use schema::{APP_ROLE, SCHEMA_VERSION};
pub use store::PostgresStore;
