/** docs/INTEGRATIONS.md's Vercel AI SDK example runs as written (extracted by scripts/extract-docs.mjs). */

import assert from "node:assert/strict";
import { test } from "node:test";
import { newKey } from "./live.js";

test("the docs example runs", async () => {
  process.env.CAIRN_API_KEY = newKey();
  const printed: string[] = [];
  const log = console.log;
  console.log = (...args: unknown[]) => void printed.push(args.join(" "));
  try {
    await import("./docs-example.gen.js");
  } finally {
    console.log = log;
  }
  const out = printed.join("\n");
  assert.match(out, /Remembered \[/);
  assert.match(out, /\(fact\) Staging runs on a Hetzner box in Helsinki/);
  assert.match(out, /In Helsinki/);
});
