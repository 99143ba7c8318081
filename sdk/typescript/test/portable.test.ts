/**
 * The library is ESM with declarations and uses no Node-only API, so it
 * runs on Deno, Bun and in browsers too. (`tsconfig.json` compiles it
 * without Node's types, so using one fails the build; this checks the
 * output.)
 */

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const DIST = fileURLToPath(new URL("../../dist/", import.meta.url));

describe("the built package", () => {
  const files = readdirSync(DIST);

  it("has a declaration beside every module", () => {
    const modules = files.filter((f) => f.endsWith(".js"));
    assert.ok(modules.includes("index.js"));
    for (const m of modules) assert.ok(files.includes(m.replace(/\.js$/, ".d.ts")), m);
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
      type: string;
      exports: { ".": { types: string; import: string } };
    };
    assert.equal(pkg.type, "module");
    assert.equal(pkg.exports["."].import, "./dist/index.js");
    assert.equal(pkg.exports["."].types, "./dist/index.d.ts");
  });

  it("imports nothing of Node and touches none of its globals", () => {
    for (const f of files.filter((name) => name.endsWith(".js"))) {
      const code = readFileSync(DIST + f, "utf8");
      assert.doesNotMatch(code, /from\s+["'](node:|fs|path|http|https|stream|buffer|url)["']/, f);
      assert.doesNotMatch(code, /\b(process|Buffer|require|__dirname)\b[.(]/, f);
    }
  });

  it("loads as an ES module", async () => {
    const sdk = (await import(DIST + "index.js")) as Record<string, unknown>;
    for (const name of ["Cairn", "CairnError", "NotFound", "RateLimited", "OPERATIONS"]) {
      assert.ok(name in sdk, name);
    }
  });
});
