/**
 * A real `cairn serve` on a loopback port, on a store of its own, with API
 * keys made by `cairn keys create`. `CAIRN_BIN` names the binary.
 */

import { spawn, execFileSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

export const CAIRN = process.env.CAIRN_BIN ?? "cairn";

export class Server {
  readonly dir = mkdtempSync(join(tmpdir(), "cairn-sdk-ts-"));
  readonly env: NodeJS.ProcessEnv = { ...process.env, CAIRN_DB: join(this.dir, "cairn.db") };
  url = "";
  private proc: ChildProcessWithoutNullStreams | undefined;

  constructor(readonly flags: string[] = []) {}

  /** A new key of `tenant` with `role`, made by the CLI. */
  key(tenant: string, role: string): string {
    const out = execFileSync(CAIRN, ["--json", "keys", "create", "--tenant", tenant, "--role", role], {
      env: this.env,
      encoding: "utf8",
    });
    return (JSON.parse(out) as { key: string }).key;
  }

  async start(): Promise<this> {
    const proc = spawn(CAIRN, ["serve", "--listen", "127.0.0.1:0", ...this.flags], { env: this.env });
    this.proc = proc;
    proc.stderr.resume();
    const lines = createInterface({ input: proc.stdout });
    const first = await new Promise<string>((resolve, reject) => {
      lines.once("line", resolve);
      proc.once("exit", (code) => reject(new Error(`cairn serve exited (${code}) before it listened`)));
    });
    lines.on("line", () => undefined);
    const found = /(http:\/\/[0-9.:]+)\/mcp/.exec(first);
    if (!found) {
      proc.kill();
      throw new Error(`cairn serve printed ${JSON.stringify(first)}`);
    }
    this.url = found[1]!;
    return this;
  }

  async stop(): Promise<void> {
    const proc = this.proc;
    if (proc && proc.exitCode === null) {
      const exited = new Promise((resolve) => proc.once("exit", resolve));
      proc.kill("SIGTERM");
      await exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
