-- Conversation messages: each memory's session, conversation and topic
-- (all three or none).
ALTER TABLE memories ADD COLUMN session text;
ALTER TABLE memories ADD COLUMN conversation text;
ALTER TABLE memories ADD COLUMN topic text;
-- Text keyword search reads besides the content (a message's neighbours).
ALTER TABLE memories ADD COLUMN search_context text;
CREATE INDEX memories_conversation ON memories (tenant, conversation)
    WHERE conversation IS NOT NULL;

-- Sessions, conversations and topics: one row per record.
CREATE TABLE collections (
    tenant     text NOT NULL,
    kind       text NOT NULL,
    id         text NOT NULL,
    parent     text,
    body       text NOT NULL,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    PRIMARY KEY (tenant, kind, id)
);
CREATE INDEX collections_created ON collections (tenant, kind, created_at);
CREATE POLICY tenant_only ON collections
    USING (tenant = current_setting('cairn.tenant', true)
           OR current_setting('cairn.every_tenant', true) = 'on');
ALTER TABLE collections ENABLE ROW LEVEL SECURITY;
ALTER TABLE collections FORCE ROW LEVEL SECURITY;
