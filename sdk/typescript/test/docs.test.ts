/** docs/SDK.md's TypeScript example runs as written, against a live server. */

import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { live } from "./fixture.js";

describe("docs/SDK.md", () => {
  const s = live();

  it("has a TypeScript example that runs", async () => {
    const doc = readFileSync(new URL("../../../../docs/SDK.md", import.meta.url), "utf8");
    const block = /```ts\n([\s\S]*?)```/.exec(doc)?.[1];
    assert.ok(block, "a ```ts block");
    const index = fileURLToPath(new URL("../../dist/index.js", import.meta.url));
    const code =
      `const KEY = ${JSON.stringify(s.key)};\n` +
      block
        .replace(`from "cairn-memory"`, `from ${JSON.stringify(index)}`)
        .replace("http://127.0.0.1:7878", s.server.url);
    const file = fileURLToPath(new URL("./docs-example.mjs", import.meta.url));
    writeFileSync(file, code);
    const log = console.log;
    const printed: unknown[][] = [];
    console.log = (...args: unknown[]) => void printed.push(args);
    try {
      await import(file);
    } finally {
      console.log = log;
    }
    assert.ok(printed.some((args) => String(args[0]).includes("Hetzner")), JSON.stringify(printed));
    assert.ok(printed.some((args) => args[0] === "not_found"), "the error example ran");
  });
});
