-- Impact-ordered postings for keyword search (`keyword.rs`): one row per
-- memory and stem, with the stem's occurrences in each field (A content,
-- B tags, C metadata) and the memory's length. Within one (tenant, stem,
-- counts) group, rows in ascending length are in descending BM25 order
-- whatever the corpus's average length, so a search reads the best rows
-- of each group first and stops once nothing unread can enter its top k.
-- The primary key is the only index: the lists are read in its order,
-- and a memory's rows are found by their whole key (its words and length
-- are on the memory's row). Byte order (`C`) keeps key comparisons cheap.
CREATE TABLE kw_postings (
    tenant    text COLLATE "C" NOT NULL,
    lexeme    text COLLATE "C" NOT NULL,
    fa        smallint NOT NULL,
    fb        smallint NOT NULL,
    fc        smallint NOT NULL,
    len       integer NOT NULL,
    memory_id uuid NOT NULL,
    PRIMARY KEY (tenant, lexeme, fa, fb, fc, len, memory_id)
);

-- The postings replace the GIN index as the way to a term's memories.
DROP INDEX memories_tsv;

CREATE FUNCTION kw_postings_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO kw_postings (tenant, lexeme, fa, fb, fc, len, memory_id)
        SELECT n.tenant, u.lexeme,
               cardinality(array_positions(u.weights, 'A')),
               cardinality(array_positions(u.weights, 'B')),
               cardinality(array_positions(u.weights, 'C')),
               n.kw_len, n.id
        FROM new_rows n, unnest(n.tsv) AS u(lexeme, positions, weights);
    RETURN NULL;
END $$;

CREATE FUNCTION kw_postings_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM kw_postings p USING (
        SELECT o.tenant, u.lexeme,
               cardinality(array_positions(u.weights, 'A')) AS fa,
               cardinality(array_positions(u.weights, 'B')) AS fb,
               cardinality(array_positions(u.weights, 'C')) AS fc,
               o.kw_len AS len, o.id
        FROM old_rows o, unnest(o.tsv) AS u(lexeme, positions, weights)) d
    WHERE p.tenant = d.tenant AND p.lexeme = d.lexeme AND p.fa = d.fa AND p.fb = d.fb
      AND p.fc = d.fc AND p.len = d.len AND p.memory_id = d.id;
    RETURN NULL;
END $$;

-- Updates that leave the words as they were (accesses) change nothing;
-- the others replace their rows' postings.
CREATE FUNCTION kw_postings_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF to_regclass('pg_temp.kw_changed') IS NULL THEN
        CREATE TEMP TABLE kw_changed (id uuid PRIMARY KEY) ON COMMIT DELETE ROWS;
    END IF;
    INSERT INTO kw_changed
        SELECT n.id FROM new_rows n JOIN old_rows o USING (id)
        WHERE n.tsv <> o.tsv OR n.kw_len <> o.kw_len OR n.tenant <> o.tenant;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    DELETE FROM kw_postings p USING (
        SELECT o.tenant, u.lexeme,
               cardinality(array_positions(u.weights, 'A')) AS fa,
               cardinality(array_positions(u.weights, 'B')) AS fb,
               cardinality(array_positions(u.weights, 'C')) AS fc,
               o.kw_len AS len, o.id
        FROM old_rows o JOIN kw_changed c USING (id), unnest(o.tsv) AS u(lexeme, positions, weights)) d
    WHERE p.tenant = d.tenant AND p.lexeme = d.lexeme AND p.fa = d.fa AND p.fb = d.fb
      AND p.fc = d.fc AND p.len = d.len AND p.memory_id = d.id;
    INSERT INTO kw_postings (tenant, lexeme, fa, fb, fc, len, memory_id)
        SELECT n.tenant, u.lexeme,
               cardinality(array_positions(u.weights, 'A')),
               cardinality(array_positions(u.weights, 'B')),
               cardinality(array_positions(u.weights, 'C')),
               n.kw_len, n.id
        FROM new_rows n JOIN kw_changed c USING (id), unnest(n.tsv) AS u(lexeme, positions, weights);
    DELETE FROM kw_changed;
    RETURN NULL;
END $$;

CREATE TRIGGER memories_postings_insert AFTER INSERT ON memories
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION kw_postings_insert();
CREATE TRIGGER memories_postings_delete AFTER DELETE ON memories
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION kw_postings_delete();
CREATE TRIGGER memories_postings_update AFTER UPDATE ON memories
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION kw_postings_update();

CREATE POLICY tenant_only ON kw_postings
    USING (tenant = current_setting('cairn.tenant', true)
           OR current_setting('cairn.every_tenant', true) = 'on');
ALTER TABLE kw_postings ENABLE ROW LEVEL SECURITY;
ALTER TABLE kw_postings FORCE ROW LEVEL SECURITY;

-- The memories stored before this version.
SET LOCAL cairn.every_tenant = 'on';
INSERT INTO kw_postings (tenant, lexeme, fa, fb, fc, len, memory_id)
    SELECT m.tenant, u.lexeme,
           cardinality(array_positions(u.weights, 'A')),
           cardinality(array_positions(u.weights, 'B')),
           cardinality(array_positions(u.weights, 'C')),
           m.kw_len, m.id
    FROM memories m, unnest(m.tsv) AS u(lexeme, positions, weights);
SET LOCAL cairn.every_tenant = 'off';
