-- Deletion receipts keyed by tenant and id: a memory id freed by a
-- deletion may be taken by another tenant, whose own deletion must leave a
-- receipt of its own beside the first tenant's.
ALTER TABLE deletions DROP CONSTRAINT deletions_pkey;
ALTER TABLE deletions ADD PRIMARY KEY (tenant, id);
DROP INDEX IF EXISTS deletions_tenant_id;
