-- Cairn's PostgreSQL schema, version 1. Runs inside the store's schema
-- (search_path), in one transaction, as the schema's owner.

CREATE EXTENSION IF NOT EXISTS vector;

-- The store's settings: the embedding model's name and dimension.
CREATE TABLE meta (
    key   text PRIMARY KEY,
    value text NOT NULL
);

-- Words as the core splits them (`query_terms`), stemmed by Snowball's
-- English stemmer, with no stop words: a memory's length counts every word,
-- as FTS5's does. Queries leave stop words out themselves.
CREATE TEXT SEARCH DICTIONARY cairn_english_stem (TEMPLATE = snowball, LANGUAGE = english);
CREATE TEXT SEARCH CONFIGURATION cairn_english (COPY = english);
ALTER TEXT SEARCH CONFIGURATION cairn_english
    ALTER MAPPING FOR asciiword, word, hword_asciipart, hword_part, asciihword, hword
    WITH cairn_english_stem;

-- One row per memory. `tsv` holds the memory's words by field (weight A:
-- content, B: tags, C: metadata values); `kw_len` its word count.
CREATE TABLE memories (
    id               uuid PRIMARY KEY,
    tenant           text NOT NULL,
    content          text NOT NULL,
    kind             text NOT NULL,
    project          text,
    tags             text[] NOT NULL,
    metadata         text NOT NULL,
    importance       double precision NOT NULL,
    weight           double precision NOT NULL,
    source           text NOT NULL,
    created_at       bigint NOT NULL,
    updated_at       bigint NOT NULL,
    last_accessed_at bigint,
    access_count     bigint NOT NULL,
    expires_at       bigint,
    valid_from       bigint,
    valid_to         bigint,
    supersedes       uuid,
    superseded_by    uuid,
    embedding        vector NOT NULL,
    tsv              tsvector NOT NULL,
    kw_len           integer NOT NULL
);
CREATE UNIQUE INDEX memories_tenant_id ON memories (tenant, id);
CREATE INDEX memories_tenant_created ON memories (tenant, created_at);
CREATE INDEX memories_expires ON memories (expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX memories_tsv ON memories USING gin (tsv);

-- Versions: the memory as each change left it (JSON of the record).
CREATE TABLE versions (
    memory_id uuid NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    number    integer NOT NULL,
    tenant    text NOT NULL,
    kind      text NOT NULL,
    actor     text NOT NULL,
    reason    text,
    at        bigint NOT NULL,
    memory    text NOT NULL,
    PRIMARY KEY (memory_id, number)
);

-- Deletion receipts: never the content.
CREATE TABLE deletions (
    id       uuid PRIMARY KEY,
    tenant   text NOT NULL,
    actor    text NOT NULL,
    reason   text NOT NULL,
    at       bigint NOT NULL,
    versions integer NOT NULL
);
CREATE INDEX deletions_tenant_id ON deletions (tenant, id);

-- API keys (the SHA-256 of the secret only). Looked up by id before the
-- tenant is known, so not behind row-level security.
CREATE TABLE api_keys (
    id           text PRIMARY KEY,
    tenant       text NOT NULL,
    role         text NOT NULL,
    label        text,
    hash         bytea NOT NULL,
    created_at   bigint NOT NULL,
    expires_at   bigint,
    last_used_at bigint,
    revoked_at   bigint
);

-- BM25's corpus statistics over every memory of every tenant (the row
-- count, the total length, the rows holding each stem), kept by the
-- triggers below. A writer locks `kw_corpus`'s one row before any
-- `kw_terms` row, so writers never deadlock on them.
CREATE TABLE kw_corpus (
    one       boolean PRIMARY KEY DEFAULT true CHECK (one),
    rows      bigint NOT NULL,
    total_len bigint NOT NULL
);
INSERT INTO kw_corpus VALUES (true, 0, 0);
CREATE TABLE kw_terms (
    lexeme text PRIMARY KEY,
    rows   bigint NOT NULL
);

-- Adds the changes of one statement to the statistics: `delta` holds
-- (row change, length change, stems) per row, +1 for a row added, -1 for
-- one removed.
CREATE FUNCTION kw_apply(rows_delta bigint, len_delta bigint, lexemes text[], counts bigint[])
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    UPDATE kw_corpus SET rows = rows + rows_delta, total_len = total_len + len_delta;
    INSERT INTO kw_terms AS t (lexeme, rows)
        SELECT l, c FROM unnest(lexemes, counts) AS d(l, c) ORDER BY l
        ON CONFLICT (lexeme) DO UPDATE SET rows = t.rows + excluded.rows;
    DELETE FROM kw_terms WHERE lexeme = ANY (lexemes) AND rows <= 0;
END $$;

CREATE FUNCTION kw_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM kw_apply(
        (SELECT count(*) FROM new_rows),
        (SELECT coalesce(sum(kw_len), 0) FROM new_rows),
        coalesce(d.lexemes, '{}'), coalesce(d.counts, '{}'))
    FROM (SELECT array_agg(l ORDER BY l) AS lexemes, array_agg(c ORDER BY l) AS counts
          FROM (SELECT l, count(*) AS c FROM new_rows, unnest(tsvector_to_array(tsv)) AS l
                GROUP BY l) g) d;
    RETURN NULL;
END $$;

CREATE FUNCTION kw_after_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM kw_apply(
        -(SELECT count(*) FROM old_rows),
        -(SELECT coalesce(sum(kw_len), 0) FROM old_rows),
        coalesce(d.lexemes, '{}'), coalesce(d.counts, '{}'))
    FROM (SELECT array_agg(l ORDER BY l) AS lexemes, array_agg(c ORDER BY l) AS counts
          FROM (SELECT l, -count(*) AS c FROM old_rows, unnest(tsvector_to_array(tsv)) AS l
                GROUP BY l) g) d;
    RETURN NULL;
END $$;

-- Updates that leave the words as they were (accesses) change nothing.
CREATE FUNCTION kw_after_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM new_rows n JOIN old_rows o USING (id)
                   WHERE n.tsv <> o.tsv OR n.kw_len <> o.kw_len) THEN
        RETURN NULL;
    END IF;
    PERFORM kw_apply(
        0,
        (SELECT coalesce(sum(kw_len), 0) FROM new_rows) - (SELECT coalesce(sum(kw_len), 0) FROM old_rows),
        coalesce(d.lexemes, '{}'), coalesce(d.counts, '{}'))
    FROM (SELECT array_agg(l ORDER BY l) AS lexemes, array_agg(c ORDER BY l) AS counts
          FROM (SELECT l, sum(c)::bigint AS c FROM (
                    SELECT l, 1 AS c FROM new_rows, unnest(tsvector_to_array(tsv)) AS l
                    UNION ALL
                    SELECT l, -1 AS c FROM old_rows, unnest(tsvector_to_array(tsv)) AS l) u
                GROUP BY l HAVING sum(c) <> 0) g) d;
    RETURN NULL;
END $$;

CREATE TRIGGER memories_kw_insert AFTER INSERT ON memories
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION kw_after_insert();
CREATE TRIGGER memories_kw_delete AFTER DELETE ON memories
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION kw_after_delete();
CREATE TRIGGER memories_kw_update AFTER UPDATE ON memories
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION kw_after_update();

-- The second wall: a connection sees only the tenant its transaction
-- names (`SET LOCAL cairn.tenant`), whatever its SQL says; the few
-- operations over every tenant (expiry, the tenant list) say so with
-- `cairn.every_tenant`. FORCE: the tables' owner is held to it too.
CREATE POLICY tenant_only ON memories
    USING (tenant = current_setting('cairn.tenant', true)
           OR current_setting('cairn.every_tenant', true) = 'on');
CREATE POLICY tenant_only ON versions
    USING (tenant = current_setting('cairn.tenant', true)
           OR current_setting('cairn.every_tenant', true) = 'on');
CREATE POLICY tenant_only ON deletions
    USING (tenant = current_setting('cairn.tenant', true)
           OR current_setting('cairn.every_tenant', true) = 'on');
ALTER TABLE memories ENABLE ROW LEVEL SECURITY;
ALTER TABLE memories FORCE ROW LEVEL SECURITY;
ALTER TABLE versions ENABLE ROW LEVEL SECURITY;
ALTER TABLE versions FORCE ROW LEVEL SECURITY;
ALTER TABLE deletions ENABLE ROW LEVEL SECURITY;
ALTER TABLE deletions FORCE ROW LEVEL SECURITY;
