/** Memories: remember, list, get, update, tag, history, revert, chain, similar, activity, forget; recall, context, prompt, ingest, stats. */

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { NotFound } from "../src/index.js";
import { live } from "./fixture.js";

describe("memories", () => {
  const s = live();

  it("are remembered, deduplicated, read, changed, reverted and forgotten", async () => {
    const c = s.cairn;
    const made = await c.remember("atlas staging runs on a Hetzner box in Falkenstein", {
      type: "fact",
      project: "atlas",
      tags: ["infra"],
    });
    assert.equal(made.status, "created");
    assert.equal(made.project, "atlas");
    const again = await c.remember("atlas staging runs on a Hetzner box in Falkenstein", { type: "fact", project: "atlas" });
    assert.equal(again.status, "deduplicated");
    assert.equal(again.id, made.id);

    const got = await c.get(made.short_id);
    assert.equal(got.id, made.id);
    assert.deepEqual(got.tags, ["infra"]);

    const updated = await c.update(made.id, { add_tags: ["hetzner"], importance: 0.9 });
    assert.ok(updated.memory.tags?.includes("hetzner"));
    assert.equal(updated.memory.importance, 0.9);

    const history = await c.history(made.id);
    assert.deepEqual(
      history.versions.map((v) => v.change),
      ["created", "deduplicated", "updated"],
    );
    const reverted = await c.revert(made.id, 1);
    assert.deepEqual(reverted.memory.tags, ["infra"]);
    assert.equal(reverted.restored, 1);
    assert.equal((await c.history(made.short_id)).versions.at(-1)?.change, "reverted");

    const activity = await c.activity({ limit: 10 });
    assert.equal(activity.entries[0]?.id, made.id);
    assert.equal(activity.entries[0]?.change, "reverted");

    const dry = await c.forgetMatching({ project: "atlas" });
    assert.equal(dry.would_forget, 1);
    assert.equal(dry.forgotten, 0);
    assert.equal((await c.forget(made.id)).forgotten, 1);
    await assert.rejects(c.get(made.id), NotFound);
    assert.equal((await c.history(made.id)).deleted?.reason, "forgotten");
  });

  it("are listed page by page and tagged in bulk", async () => {
    const c = s.cairn;
    const ids = new Set<string>();
    for (let i = 0; i < 12; i++) {
      ids.add((await c.remember(`listing note number ${i} about topic ${i * 7}`, { type: "note", project: "pages", dedup: false })).id);
    }
    const page = await c.list({ project: "pages", limit: 5, sort: "id" });
    assert.equal(page.memories.length, 5);
    assert.ok(page.next_cursor);
    const all: string[] = [];
    for await (const m of c.listAll({ project: "pages", types: ["note"] }, 5)) all.push(m.id ?? "");
    assert.deepEqual(new Set(all), ids);
    assert.equal(all.length, 12, "no memory twice across pages");

    const tagged = await c.tag({ ids: [...ids].slice(0, 3), add_tags: ["bulk"] });
    assert.equal(tagged.tagged, 3);
    const bulk = await c.list({ tags: ["bulk"], all_projects: true });
    assert.equal(bulk.memories.length, 3);
    const dropped = await c.forgetMatching({ project: "pages", confirm: true });
    assert.equal(dropped.forgotten, 12);
  });

  it("are recalled, assembled into context and prompt blocks", async () => {
    const c = s.cairn;
    const made = await c.remember("the billing service deploys every Tuesday at 14:00 UTC", {
      type: "fact",
      project: "billing",
    });
    const hits = await c.recall("the billing service deploys every Tuesday at 14:00 UTC", {
      project: "billing",
      budget: 500,
    });
    assert.equal(hits.results[0]?.id, made.id);
    assert.ok(hits.results[0]!.score > 0);
    assert.ok(hits.tokens <= 500);

    const ctx = await c.context("the billing service deploys every Tuesday", { project: "billing", budget: 400 });
    assert.match(ctx.markdown, /Tuesday/);
    assert.ok(ctx.tokens <= 400);

    const block = await c.prompt("when does the billing service deploy every Tuesday?", { project: "billing", budget: 300 });
    assert.match(block.text, /Tuesday at 14:00/);
    assert.ok(block.total_tokens <= 300);
  });

  it("have neighbours and chains", async () => {
    const c = s.cairn;
    const old = await c.remember("the analytics database runs PostgreSQL 14 on db-3", { type: "fact", project: "ana" });
    const near = await c.remember("the analytics database runs PostgreSQL 16 on db-4", {
      type: "fact",
      project: "ana",
      dedup: false,
    });
    const similar = await c.similar(old.id, { limit: 5 });
    assert.equal(similar.id, old.id);
    assert.ok(similar.similar.some((n) => n.id === near.id));

    const newer = await c.remember("the analytics database moved to PostgreSQL 17", {
      type: "fact",
      project: "ana",
      supersedes: old.id,
    });
    const chain = await c.chain(newer.id);
    const ids = JSON.stringify(chain);
    assert.ok(ids.includes(old.id) && ids.includes(newer.id), ids);
  });

  it("are ingested from raw text, with a dry run first", async () => {
    const c = s.cairn;
    const text =
      "# Runbook\n\nThe payments queue is drained by the worker on host q-7 every five minutes.\n\n" +
      "When the queue backs up, restart the worker with systemctl restart payments-worker.";
    const dry = await c.ingest(text, { project: "runbook", dry_run: true });
    assert.equal(dry.dry_run, true);
    assert.ok(dry.chunks.length >= 1);
    assert.equal((await c.list({ project: "runbook" })).memories.length, 0);
    const done = await c.ingest(text, { project: "runbook" });
    assert.ok(done.stored >= 1);
    const stored = await c.list({ project: "runbook" });
    assert.equal(stored.memories.length, done.stored);
    assert.ok((await c.stats()).total >= done.stored);
  });
});
