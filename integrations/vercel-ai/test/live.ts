/**
 * The live server scripts/integrations-test.sh started: `CAIRN_URL` is its
 * address, `CAIRN_DB` its store, where `cairn keys create` (the `CAIRN_BIN`
 * binary) makes each test a key of a tenant of its own.
 */

import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { Cairn } from "cairn-memory";

export const URL = process.env.CAIRN_URL ?? "";
if (!URL) throw new Error("CAIRN_URL is not set: run scripts/integrations-test.sh");

/** A key of a new tenant. */
export function newKey(role = "write"): string {
  const tenant = `it-${randomUUID().slice(0, 12)}`;
  const out = execFileSync(process.env.CAIRN_BIN ?? "cairn", ["--json", "keys", "create", "--tenant", tenant, "--role", role], {
    encoding: "utf8",
  });
  return (JSON.parse(out) as { key: string }).key;
}

/** A client of a new, empty tenant. */
export function fresh(role = "write"): Cairn {
  return new Cairn({ baseUrl: URL, apiKey: newKey(role) });
}
