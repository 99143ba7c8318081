//! Versioned migrations, applied in order inside one transaction each;
//! `PRAGMA user_version` records how many have run.

/// A store migrated across this migration gets its keyword index filled
/// again from the memories after the last migration, in the same
/// transaction (by Rust code: its columns are computed as every write
/// computes them).
pub const KEYWORDS_REFILLED_BY: usize = 5;

/// Every migration, oldest first. Never edit one that has shipped: add a new
/// one.
pub const MIGRATIONS: &[&str] = &[
    // 1: memories, embeddings, the vector-index table, FTS5 and tombstones.
    r#"
    CREATE TABLE meta (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    INSERT INTO meta (key, value) VALUES ('rev', '0'), ('docs', '0');

    CREATE TABLE memories (
        rowid            INTEGER PRIMARY KEY AUTOINCREMENT,
        id               TEXT NOT NULL UNIQUE,
        tenant           TEXT NOT NULL,
        content          TEXT NOT NULL,
        kind             TEXT NOT NULL,
        project          TEXT,
        tags             TEXT NOT NULL,
        metadata         TEXT NOT NULL,
        importance       REAL NOT NULL,
        weight           REAL NOT NULL,
        source           TEXT NOT NULL,
        created_at       INTEGER NOT NULL,
        updated_at       INTEGER NOT NULL,
        last_accessed_at INTEGER,
        access_count     INTEGER NOT NULL,
        expires_at       INTEGER,
        valid_from       INTEGER,
        valid_to         INTEGER,
        supersedes       TEXT,
        superseded_by    TEXT
    );
    CREATE INDEX memories_tenant_created ON memories (tenant, created_at);
    CREATE INDEX memories_tenant_updated ON memories (tenant, updated_at);
    CREATE INDEX memories_expires ON memories (expires_at) WHERE expires_at IS NOT NULL;

    -- The exact embedding (little-endian f32), read for dedup and export.
    CREATE TABLE vectors (
        rowid  INTEGER PRIMARY KEY,
        vector BLOB NOT NULL
    );

    -- What the in-process vector index loads: filter attributes and the
    -- int8 code (f32 scale + dim bytes), kept compact so that a fresh
    -- process reads little. `rev` is the write revision of the row.
    CREATE TABLE vindex (
        rowid      INTEGER PRIMARY KEY,
        rev        INTEGER NOT NULL,
        id         TEXT NOT NULL,
        tenant     TEXT NOT NULL,
        project    TEXT,
        kind       TEXT NOT NULL,
        tags       TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        valid_from INTEGER,
        valid_to   INTEGER,
        expires_at INTEGER,
        superseded INTEGER NOT NULL,
        code       BLOB NOT NULL
    );
    CREATE INDEX vindex_rev ON vindex (rev);

    -- Deleted rows, so that other processes' indexes drop them.
    CREATE TABLE tombstones (
        rowid INTEGER PRIMARY KEY,
        rev   INTEGER NOT NULL
    );
    CREATE INDEX tombstones_rev ON tombstones (rev);

    CREATE VIRTUAL TABLE memories_fts USING fts5 (
        content, tags, metadata,
        content = '',
        contentless_delete = 1,
        tokenize = 'porter unicode61 remove_diacritics 2'
    );
    "#,
    // 2: ranking factors in the index table, so that recall ranks its
    // candidates from the in-process index without reading them; accesses
    // are logged by an access revision, so that other processes' indexes
    // catch up with them (content changes keep using `rev`).
    r#"
    ALTER TABLE vindex ADD COLUMN weight REAL NOT NULL DEFAULT 1.0;
    ALTER TABLE vindex ADD COLUMN access_count INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE vindex ADD COLUMN last_accessed_at INTEGER;
    UPDATE vindex SET (weight, access_count, last_accessed_at) =
        (SELECT weight, access_count, last_accessed_at FROM memories m WHERE m.rowid = vindex.rowid);

    INSERT INTO meta (key, value) VALUES ('arev', '0');
    -- The access revision at which each row was last accessed.
    CREATE TABLE accessed (
        rowid INTEGER PRIMARY KEY,
        arev  INTEGER NOT NULL
    );
    CREATE INDEX accessed_arev ON accessed (arev);
    "#,
    // 3: a packed copy of the vector index (`vindex::snapshot`), so that a
    // new process reads a few blobs instead of decoding every `vindex` row.
    // Only a cache: part 0 records the revisions it reflects.
    r#"
    CREATE TABLE vsnap (
        part INTEGER PRIMARY KEY,
        data BLOB NOT NULL
    );
    "#,
    // 4: API keys: the SHA-256 of each secret, never the secret.
    r#"
    CREATE TABLE api_keys (
        id           TEXT PRIMARY KEY,
        tenant       TEXT NOT NULL,
        role         TEXT NOT NULL,
        label        TEXT,
        hash         BLOB NOT NULL,
        created_at   INTEGER NOT NULL,
        expires_at   INTEGER,
        last_used_at INTEGER,
        revoked_at   INTEGER
    );
    CREATE INDEX api_keys_tenant ON api_keys (tenant, created_at);
    "#,
    // 5: versions and deletion receipts. A version records a change and
    // the memory's row as the change left it (kept once a later change
    // overwrites the row); the memories stored before this schema get
    // their first version now. The keyword index becomes a plain contentless table with FTS5's
    // secure-delete, whose `delete` command (given the text indexed) takes
    // a row's terms out of the index itself; `contentless_delete` only hid
    // them behind a tombstone until segments merged. It is filled again
    // after this migration (see `KEYWORDS_REFILLED_BY`).
    r#"
    CREATE TABLE versions (
        rowid            INTEGER PRIMARY KEY,
        memory           INTEGER NOT NULL, -- the memory's rowid
        number           INTEGER NOT NULL,
        change           TEXT NOT NULL,
        actor            TEXT NOT NULL,
        reason           TEXT,
        at               INTEGER NOT NULL,
        -- The memory as the change left it: NULL (all of it) while this is
        -- the memory's latest version, whose state is the memory's row;
        -- copied from the row when the next change overwrites it.
        content          TEXT,
        kind             TEXT,
        project          TEXT,
        tags             TEXT,
        metadata         TEXT,
        importance       REAL,
        weight           REAL,
        source           TEXT,
        created_at       INTEGER,
        updated_at       INTEGER,
        last_accessed_at INTEGER,
        access_count     INTEGER,
        expires_at       INTEGER,
        valid_from       INTEGER,
        valid_to         INTEGER,
        supersedes       TEXT,
        superseded_by    TEXT
    );
    CREATE UNIQUE INDEX versions_memory ON versions (memory, number);
    INSERT INTO versions (memory, number, change, actor, reason, at)
    SELECT rowid, 1, CASE WHEN updated_at = created_at THEN 'created' ELSE 'updated' END,
        'local', 'recorded when history began', updated_at
    FROM memories;

    CREATE TABLE deletions (
        id         TEXT PRIMARY KEY,
        tenant     TEXT NOT NULL,
        actor      TEXT NOT NULL,
        reason     TEXT NOT NULL,
        deleted_at INTEGER NOT NULL,
        versions   INTEGER NOT NULL
    );
    CREATE INDEX deletions_tenant ON deletions (tenant, id);

    DROP TABLE memories_fts;
    CREATE VIRTUAL TABLE memories_fts USING fts5 (
        content, tags, metadata,
        content = '',
        tokenize = 'porter unicode61 remove_diacritics 2'
    );
    INSERT INTO memories_fts (memories_fts, rank) VALUES ('secure-delete', 1);
    "#,
    // 6: conversation messages: each memory's session, conversation and
    // topic (all three or none), in the row, its versions and the index
    // table; the search context (text the keyword index reads besides the
    // content); the table of sessions, conversations and topics.
    r#"
    ALTER TABLE memories ADD COLUMN session TEXT;
    ALTER TABLE memories ADD COLUMN conversation TEXT;
    ALTER TABLE memories ADD COLUMN topic TEXT;
    ALTER TABLE memories ADD COLUMN search_context TEXT;
    CREATE INDEX memories_conversation ON memories (tenant, conversation) WHERE conversation IS NOT NULL;
    ALTER TABLE versions ADD COLUMN session TEXT;
    ALTER TABLE versions ADD COLUMN conversation TEXT;
    ALTER TABLE versions ADD COLUMN topic TEXT;
    ALTER TABLE versions ADD COLUMN search_context TEXT;
    ALTER TABLE vindex ADD COLUMN session TEXT;
    ALTER TABLE vindex ADD COLUMN conversation TEXT;
    ALTER TABLE vindex ADD COLUMN topic TEXT;

    -- Sessions, conversations and topics: one row per record.
    CREATE TABLE collections (
        tenant     TEXT NOT NULL,
        kind       TEXT NOT NULL,
        id         TEXT NOT NULL,
        parent     TEXT,
        body       TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (tenant, kind, id)
    );
    CREATE INDEX collections_created ON collections (tenant, kind, created_at);
    "#,
    // 7: slots (memcord's named memory collections): each memory's slot
    // (NULL: in no slot), in the row, its versions and the index table
    // (a vector-index snapshot saved before has no slots: its format
    // version changed with them, so it is not loaded but rebuilt).
    r#"
    ALTER TABLE memories ADD COLUMN slot TEXT;
    CREATE INDEX memories_slot ON memories (tenant, slot) WHERE slot IS NOT NULL;
    ALTER TABLE versions ADD COLUMN slot TEXT;
    ALTER TABLE vindex ADD COLUMN slot TEXT;
    "#,
    // 8: each memory's source in the index table, which the vector index
    // filters by (its snapshot format changed with it).
    r#"
    ALTER TABLE vindex ADD COLUMN source TEXT;
    UPDATE vindex SET source = (SELECT source FROM memories m WHERE m.rowid = vindex.rowid);
    "#,
    // 9: the memories a default listing shows (not superseded), in its
    // order, with the expiry it tests: the newest page is read from this
    // index and its total counted on it without reading a row (the
    // superseded column, NULL in every entry, is there so that the count
    // is covered).
    r#"
    CREATE INDEX memories_live ON memories (tenant, created_at, id, expires_at, superseded_by)
        WHERE superseded_by IS NULL;
    "#,
    // 10: deletion receipts keyed by tenant and id: a memory id freed by a
    // deletion may be taken by another tenant, whose own deletion must
    // leave a receipt of its own beside the first tenant's.
    r#"
    CREATE TABLE deletions_by_tenant (
        tenant     TEXT NOT NULL,
        id         TEXT NOT NULL,
        actor      TEXT NOT NULL,
        reason     TEXT NOT NULL,
        deleted_at INTEGER NOT NULL,
        versions   INTEGER NOT NULL,
        PRIMARY KEY (tenant, id)
    );
    INSERT INTO deletions_by_tenant (tenant, id, actor, reason, deleted_at, versions)
        SELECT tenant, id, actor, reason, deleted_at, versions FROM deletions;
    DROP TABLE deletions;
    ALTER TABLE deletions_by_tenant RENAME TO deletions;
    "#,
    // 11: UI sessions, rate buckets and job leases (`cairn_core::shared`).
    include_str!("migrations/0011_shared_state.sql"),
    // 12: OAuth clients, grants and tokens (`crate::oauth`).
    crate::oauth::MIGRATION,
    // 13: access counts in `accessed` alone, one narrow row per accessed
    // memory: recording a batch of accesses rewrites those rows, not the
    // memories' wide rows and index rows as well.
    r#"
    ALTER TABLE accessed ADD COLUMN count INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE accessed ADD COLUMN last_at INTEGER;
    INSERT INTO accessed (rowid, arev, count, last_at)
        SELECT rowid, 0, access_count, last_accessed_at FROM memories
        WHERE access_count > 0 OR last_accessed_at IS NOT NULL
        ON CONFLICT (rowid) DO UPDATE SET count = excluded.count, last_at = excluded.last_at;
    DELETE FROM accessed WHERE rowid NOT IN (SELECT rowid FROM memories);
    ALTER TABLE memories DROP COLUMN access_count;
    ALTER TABLE memories DROP COLUMN last_accessed_at;
    ALTER TABLE vindex DROP COLUMN access_count;
    ALTER TABLE vindex DROP COLUMN last_accessed_at;
    "#,
    // 14: ids with their tenant, in id order: finding a memory's row by id
    // and tenant (an access, a get) and its neighbours in id order (short
    // ids) reads this index alone, not the memories' wide rows.
    r#"
    CREATE UNIQUE INDEX memories_id_tenant ON memories (id, tenant);
    "#,
];
