/** Administration: keys, consolidation, providers, and the probes. */

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Forbidden, Unauthenticated } from "../src/index.js";
import { live } from "./fixture.js";

describe("administration", () => {
  const s = live();

  it("makes, lists and revokes keys; a revoked key stops working", async () => {
    const c = s.cairn;
    const made = await c.createKey({ tenant: "t2", role: "write", label: "from the SDK" });
    assert.match(made.key, /^cairn_/);
    assert.equal(made.tenant, "t2");
    const user = s.client({ apiKey: made.key });
    const stored = await user.remember("a memory of tenant t2");
    assert.equal(stored.status, "created");
    await assert.rejects(user.createKey({ tenant: "t2", role: "admin" }), Forbidden);

    const keys = await c.listKeys({ tenant: "t2" });
    assert.deepEqual(
      keys.map((k) => [k.id, k.status, k.label]),
      [[made.id, "active", "from the SDK"]],
    );
    const revoked = await c.revokeKey(made.id);
    assert.equal(revoked.status, "revoked");
    await assert.rejects(user.stats(), Unauthenticated);
  });

  it("consolidates episodes, dry first", async () => {
    const c = s.cairn;
    for (let day = 1; day <= 3; day++) {
      await c.remember(`episode of day ${day}: the team reviewed the incident queue and closed ${day} tickets`, {
        type: "episode",
        project: "ops",
        dedup: false,
      });
    }
    const dry = await c.consolidate({ project: "ops", keep: 0, dry_run: true });
    assert.equal(dry.dry_run, true);
    assert.equal(dry.tenant, "t");
    const before = (await c.stats()).total;
    const done = await c.consolidate({ project: "ops", keep: 0 });
    assert.equal(done.dry_run, false);
    assert.equal(done.episodes, dry.episodes);
    assert.equal(done.groups.length, dry.groups.length);
    if (done.groups.length > 0) assert.ok(done.groups[0]!.summary_id);
    assert.ok((await c.stats()).total >= before);
  });

  it("names the providers and answers the probes", async () => {
    const c = s.cairn;
    const providers = await c.providers();
    assert.match(JSON.stringify(providers), /embed/i);
    assert.equal(await c.health(), true);
    assert.equal(await c.ready(), true);
    assert.match(await c.metrics(), /^# (HELP|TYPE) /m);
    assert.equal(await s.client({ baseUrl: "http://127.0.0.1:9", retries: 0 }).health(), false);
  });
});
