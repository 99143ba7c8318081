/**
 * `cairn mcp` over stdio with the official TypeScript MCP SDK as the client:
 * tools/list, remember and recall, with every warning the SDK prints (its
 * schema validator reports formats JSON Schema does not know, say) caught.
 * None is allowed.
 */

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CAIRN } from "./server.js";

describe("the TypeScript MCP SDK", () => {
  it("lists, remembers and recalls over stdio without a warning", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cairn-mcp-sdk-"));
    const printed: string[] = [];
    const saved = { warn: console.warn, error: console.error, log: console.log };
    for (const name of ["warn", "error"] as const) {
      console[name] = (...args: unknown[]) => {
        printed.push(`console.${name}: ${args.map(String).join(" ")}`);
      };
    }
    const onWarning = (w: Error) => printed.push(`process warning: ${w.message}`);
    process.on("warning", onWarning);
    const transport = new StdioClientTransport({
      command: CAIRN,
      args: ["mcp", "--no-detect"],
      env: { ...(process.env as Record<string, string>), CAIRN_DB: join(dir, "cairn.db") },
      stderr: "ignore",
    });
    const client = new Client({ name: "cairn-sdk-test", version: "1.0.0" });
    try {
      await client.connect(transport);
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === "remember"), tools.map((t) => t.name).join(", "));
      const stored = await client.callTool({
        name: "remember",
        arguments: { content: "the staging database moved to db2.internal" },
      });
      assert.ok(!stored.isError, JSON.stringify(stored.content));
      assert.equal((stored.structuredContent as { status: string }).status, "created");
      const found = await client.callTool({
        name: "recall",
        arguments: { query: "where is the staging database?" },
      });
      assert.ok(!found.isError, JSON.stringify(found.content));
      const results = (found.structuredContent as { results: { content: string }[] }).results;
      assert.match(results[0]?.content ?? "", /db2\.internal/);
    } finally {
      await client.close();
      Object.assign(console, saved);
      process.off("warning", onWarning);
      rmSync(dir, { recursive: true, force: true });
    }
    assert.deepEqual(printed, [], `the SDK printed:\n${printed.slice(0, 5).join("\n")}`);
  });
});
