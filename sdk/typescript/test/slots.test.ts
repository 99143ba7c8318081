/** Slots: made, saved to, read, listed, searched, exported, archived and restored. */

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { NotFound } from "../src/index.js";
import { live } from "./fixture.js";

describe("slots", () => {
  const s = live();

  it("go through their whole life", async () => {
    const c = s.cairn;
    const made = await c.setSlot("design-notes", { description: "decisions of the design review", tags: ["design"], priority: 2 });
    assert.equal(made.name, "design-notes");
    assert.equal(made.priority, 2);

    const saved = await c.saveToSlot("design-notes", "We chose SQLite with a vector index for the embedded store.", {
      author: "ana",
    });
    assert.equal(saved.slot.entries, 1);
    await c.saveToSlot("design-notes", "The REST API answers every error as a JSON object with a code.");

    const read = await c.readSlot("design-notes", { limit: 1 });
    assert.equal(read.total, 2);
    assert.equal(read.entries.length, 1);
    assert.match(JSON.stringify(read.entries[0]), /SQLite/);

    const listed = await c.listSlots({ tags: ["design"] });
    assert.deepEqual(
      listed.map((v) => v.name),
      ["design-notes"],
    );

    const found = await c.searchSlots("We chose SQLite with a vector index for the embedded store.", { slots: ["design-notes"] });
    assert.match(found.results[0]?.content ?? "", /SQLite/);

    const markdown = await c.exportSlot("design-notes");
    assert.match(markdown, /JSON object with a code/);
    const json = JSON.parse(await c.exportSlot("design-notes", "json")) as unknown;
    assert.match(JSON.stringify(json), /SQLite/);

    const archived = await c.archiveSlot("design-notes", "review done");
    assert.ok(archived.archived_at);
    assert.equal(archived.archive_reason, "review done");
    assert.deepEqual(await c.listSlots(), []);
    assert.equal((await c.listSlots({ archived_only: true })).length, 1);
    const restored = await c.restoreSlot("design-notes");
    assert.equal(restored.archived_at ?? null, null);
    assert.equal((await c.listSlots()).length, 1);

    await assert.rejects(c.readSlot("no-such-slot"), NotFound);
  });
});
