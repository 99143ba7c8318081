// Writes the TypeScript example of docs/INTEGRATIONS.md ("## Vercel AI SDK")
// to test/docs-example.gen.ts, so the test build type-checks it and
// test/docs.test.ts runs it against the live server.
import { readFileSync, writeFileSync } from "node:fs";

const doc = readFileSync(new URL("../../../docs/INTEGRATIONS.md", import.meta.url), "utf8");
const section = doc.split(/^## /m).find((s) => s.startsWith("Vercel AI SDK"));
const block = section && /```ts\n([\s\S]*?)```/.exec(section);
if (!block) throw new Error("docs/INTEGRATIONS.md has no ```ts block under ## Vercel AI SDK");
const code = block[1].replaceAll('"http://127.0.0.1:7878"', "process.env.CAIRN_URL");
writeFileSync(new URL("../test/docs-example.gen.ts", import.meta.url), `// Generated from docs/INTEGRATIONS.md by scripts/extract-docs.mjs.\n${code}\nexport {};\n`);
