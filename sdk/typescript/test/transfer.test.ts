/** Import (streamed request bodies) and export (an async iterator over lines). */

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { BadRequest } from "../src/index.js";
import { live } from "./fixture.js";

describe("import and export", () => {
  const s = live();

  it("imports JSON Lines from an async iterable, sent as it is produced", async () => {
    let produced = 0;
    async function* lines(): AsyncGenerator<string> {
      for (let i = 0; i < 50; i++) {
        produced++;
        yield JSON.stringify({ content: `streamed line ${i} about subject ${i * 13}`, project: "io" }) + "\n";
      }
      yield "{not json\n";
    }
    const report = await s.cairn.importJsonl(lines());
    assert.equal(produced, 50);
    assert.equal(report.imported, 50);
    assert.equal(report.errors.length, 1);
    assert.equal(report.errors[0]![0], 51, "the bad line's number");
  });

  it("imports from a ReadableStream of bytes, with progress lines", async () => {
    const text = Array.from({ length: 20 }, (_, i) => JSON.stringify({ content: `from a stream ${i}` })).join("\n");
    const bytes = new TextEncoder().encode(text);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        // In two pieces, cut inside a line.
        controller.enqueue(bytes.slice(0, 37));
        controller.enqueue(bytes.slice(37));
        controller.close();
      },
    });
    const seen: Record<string, unknown>[] = [];
    const report = await s.cairn.importJsonl(stream, { onProgress: (p) => seen.push(p) });
    assert.equal(report.imported, 20);
    assert.deepEqual(report.errors, []);
    assert.ok(seen.length >= 1, "at least one progress line");
    assert.equal(typeof seen[0]!.imported, "number");
  });

  it("refuses a bad line in strict mode, writing nothing", async () => {
    const before = (await s.cairn.stats()).total;
    const e = await s.cairn
      .importJsonl('{"content": "strictly good"}\n[1, 2]\n', { strict: true })
      .catch((err: unknown) => err);
    assert.ok(e instanceof BadRequest, String(e));
    assert.equal((await s.cairn.stats()).total, before);
  });

  it("exports every memory, a line at a time", async () => {
    const seen = new Set<string>();
    let count = 0;
    for await (const line of s.cairn.exportJsonl()) {
      const record = JSON.parse(line) as { content?: string };
      if (record.content) seen.add(record.content);
      count++;
    }
    assert.ok(seen.has("streamed line 49 about subject 637"));
    assert.ok(seen.has("from a stream 19"));
    assert.ok(!seen.has("strictly good"));
    assert.equal(count, (await s.cairn.stats()).total);
  });

  it("stops reading when the loop breaks", async () => {
    let n = 0;
    for await (const _ of s.cairn.exportJsonl()) {
      if (++n === 3) break;
    }
    assert.equal(n, 3);
    assert.ok((await s.cairn.stats()).total > 3);
  });
});
