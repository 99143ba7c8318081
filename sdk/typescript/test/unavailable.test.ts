/**
 * 503 answers, from a small HTTP server that is unavailable a given number
 * of times (a busy Cairn answers 503 the same way, but cannot be made busy
 * on demand): retried after `Retry-After`, except streamed bodies.
 */

import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { Cairn, Unavailable } from "../src/index.js";

describe("503", () => {
  let unavailable = 0;
  let requests = 0;
  const bodies: string[] = [];
  let server: Server;
  let url = "";

  before(async () => {
    server = createServer((req, res) => {
      requests++;
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString()));
      req.on("end", () => {
        bodies.push(body);
        if (unavailable > 0) {
          unavailable--;
          res.writeHead(503, { "Content-Type": "application/json", "Retry-After": "0" });
          res.end(JSON.stringify({ error: { code: "unavailable", message: "the store is busy", details: null } }));
        } else {
          res.writeHead(200, { "Content-Type": "application/json" });
          res.end(JSON.stringify({ imported: 1, skipped_existing: 0, embedded: 1, errors: [] }));
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("is retried, sending the same body again", async () => {
    unavailable = 2;
    requests = 0;
    bodies.length = 0;
    const report = await new Cairn({ baseUrl: url }).importJsonl('{"content": "again"}\n');
    assert.equal(report.imported, 1);
    assert.equal(requests, 3);
    assert.deepEqual(bodies, Array(3).fill('{"content": "again"}\n'));
  });

  it("is thrown as Unavailable once the retries are spent", async () => {
    unavailable = 5;
    requests = 0;
    const e = await new Cairn({ baseUrl: url, retries: 1 }).stats().catch((err: unknown) => err);
    assert.ok(e instanceof Unavailable);
    assert.equal(e.code, "unavailable");
    assert.equal(e.retryAfter, 0);
    assert.equal(requests, 2);
  });

  it("is not retried for a streamed body, which can be read once", async () => {
    unavailable = 1;
    requests = 0;
    async function* lines(): AsyncGenerator<string> {
      yield '{"content": "streamed once"}\n';
    }
    await assert.rejects(new Cairn({ baseUrl: url }).importJsonl(lines()), Unavailable);
    assert.equal(requests, 1);
  });
});
