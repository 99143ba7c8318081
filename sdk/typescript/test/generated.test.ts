/**
 * The committed `src/schema.ts` is what openapi-typescript makes of the
 * live server's `/openapi.json`, and every operation of it has a method.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { Cairn, OPERATIONS } from "../src/index.js";
import { live } from "./fixture.js";
import { render, SCHEMA_FILE } from "./generate.js";

describe("the OpenAPI document", () => {
  const s = live();

  async function document(): Promise<{ paths: Record<string, Record<string, { operationId: string }>> }> {
    const response = await fetch(`${s.server.url}/openapi.json`);
    assert.equal(response.status, 200);
    return (await response.json()) as never;
  }

  it("generates the committed types (else: npm run generate -- URL/openapi.json)", async () => {
    const fresh = await render(await document());
    const committed = readFileSync(SCHEMA_FILE, "utf8");
    assert.ok(fresh === committed, "src/schema.ts is out of date: regenerate it with `npm run generate -- <server>/openapi.json`");
  });

  it("has a client method for every operation", async () => {
    const ids = Object.values((await document()).paths).flatMap((ops) => Object.values(ops).map((op) => op.operationId));
    assert.ok(ids.length >= 40, `${ids.length} operations`);
    const missing = ids.filter((id) => !(id in OPERATIONS));
    assert.deepEqual(missing, [], "operations without a method in OPERATIONS");
    const gone = Object.keys(OPERATIONS).filter((id) => !ids.includes(id));
    assert.deepEqual(gone, [], "methods of operations the server no longer has");
    for (const method of Object.values(OPERATIONS)) {
      assert.equal(typeof Cairn.prototype[method], "function", method);
    }
  });
});
