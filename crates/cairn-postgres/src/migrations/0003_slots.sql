-- Slots (memcord's named memory collections): each memory's slot (null:
-- in no slot). Versions keep the memory as JSON, slot included.
ALTER TABLE memories ADD COLUMN slot text;
CREATE INDEX memories_slot ON memories (tenant, slot) WHERE slot IS NOT NULL;
