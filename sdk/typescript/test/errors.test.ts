/** Typed errors, and retries of 429 after `Retry-After` (bounded), against a real server. */

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  BadRequest,
  Cairn,
  CairnError,
  Forbidden,
  NotFound,
  RateLimited,
  Unauthenticated,
  errorFor,
  retryDelayMs,
} from "../src/index.js";
import { live } from "./fixture.js";

describe("errors", () => {
  const s = live();

  it("carry the server's code, message and details, by status", async () => {
    const missing = await s.cairn.get("00000000").catch((e: unknown) => e);
    assert.ok(missing instanceof NotFound && missing instanceof CairnError);
    assert.equal(missing.status, 404);
    assert.equal(missing.code, "not_found");
    assert.match(missing.message, /00000000/);

    const bad = await s.cairn.recall("x", { limt: 3 } as never).catch((e: unknown) => e);
    assert.ok(bad instanceof BadRequest);
    assert.equal(bad.status, 422);
    assert.equal(bad.code, "invalid_body");
    assert.match(bad.message, /unknown field `limt`/);

    const anonymous = await s.client({ apiKey: "cairn_000000000000_00" }).stats().catch((e: unknown) => e);
    assert.ok(anonymous instanceof Unauthenticated);
    assert.equal(anonymous.status, 401);

    const reader = s.client({ apiKey: s.server.key("t", "read") });
    const refused = await reader.remember("a read key writes").catch((e: unknown) => e);
    assert.ok(refused instanceof Forbidden);
    assert.equal(refused.code, "forbidden");
  });

  it("keep tenants apart", async () => {
    const mine = await s.cairn.remember("tenant t's launch date is the third of March");
    const other = s.client({ apiKey: s.server.key("u", "write") });
    await assert.rejects(other.get(mine.id), NotFound);
    const theirs = await other.recall("tenant t's launch date is the third of March");
    assert.ok(theirs.results.every((hit) => hit.id !== mine.id));
  });

  it("are made from any body", () => {
    const e = errorFor(502, "<html>bad gateway</html>");
    assert.equal(e.code, "http_error");
    assert.equal(e.details, "<html>bad gateway</html>");
    assert.ok(!(e instanceof NotFound));
  });
});

describe("retries", () => {
  // One write a minute: the second write is refused with Retry-After ≈ 60 s.
  const s = live(["--rate-writes", "1"]);

  function counting(client: (fetcher: typeof fetch) => Cairn): { cairn: Cairn; calls: () => number } {
    let calls = 0;
    const fetcher: typeof fetch = (input, init) => {
      calls++;
      return fetch(input, init);
    };
    return { cairn: client(fetcher), calls: () => calls };
  }

  it("throw RateLimited with Retry-After when retries are off", async () => {
    const c = s.client({ apiKey: s.key, retries: 0 });
    await c.remember("the one write of this minute");
    const e = await c.remember("a second write").catch((err: unknown) => err);
    assert.ok(e instanceof RateLimited);
    assert.equal(e.status, 429);
    assert.ok(e.retryAfter !== undefined && e.retryAfter >= 1, `Retry-After ${e.retryAfter}`);
  });

  it("retry a bounded number of times, never waiting longer than allowed", async () => {
    const { cairn, calls } = counting((fetcher) =>
      s.client({ apiKey: s.key, retries: 2, maxRetryDelayMs: 100, fetch: fetcher }),
    );
    const start = Date.now();
    await assert.rejects(cairn.remember("still over the limit"), RateLimited);
    assert.equal(calls(), 3, "the first try and two retries");
    assert.ok(Date.now() - start < 5000, "Retry-After (60 s) was capped at 100 ms");
  });

  it("wait as Retry-After says, then succeed", async () => {
    // 60 writes a minute: a 61st write within the second waits ~1 s.
    const fast = new (await import("./server.js")).Server(["--rate-writes", "60"]);
    const key = fast.key("t", "write");
    await fast.start();
    try {
      let calls = 0;
      const c = new Cairn({
        baseUrl: fast.url,
        apiKey: key,
        fetch: (input, init) => {
          calls++;
          return fetch(input, init);
        },
      });
      // Writes that do little: forgetting ids that are not there.
      for (let i = 0; i < 60; i++) await c.forget(`f${String(i).padStart(7, "0")}`).catch(() => undefined);
      const before = calls;
      const start = Date.now();
      const made = await c.remember("written after waiting for the rate limit");
      assert.equal(made.status, "created");
      assert.ok(calls - before >= 2, "refused once, then retried");
      assert.ok(Date.now() - start >= 500, "waited for Retry-After");
    } finally {
      await fast.stop();
    }
  });

  it("read Retry-After as seconds or a date, capped", () => {
    assert.equal(retryDelayMs("2", 0, 30_000), 2000);
    assert.equal(retryDelayMs("120", 0, 30_000), 30_000);
    assert.equal(retryDelayMs(null, 0, 30_000), 250);
    assert.equal(retryDelayMs(null, 3, 30_000), 2000);
    const soon = new Date(Date.now() + 3000).toUTCString();
    const wait = retryDelayMs(soon, 0, 30_000);
    assert.ok(wait > 1000 && wait <= 3000, `${wait}`);
  });
});
