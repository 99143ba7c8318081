/**
 * `src/schema.ts` from the server's OpenAPI document, with openapi-typescript.
 *
 *     npm run generate -- http://127.0.0.1:7878/openapi.json
 *
 * (or a file path). `generated.test.ts` runs the same function on a live
 * server's document and fails when the committed file differs.
 */

import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import openapiTS, { astToString } from "openapi-typescript";

export const SCHEMA_FILE = fileURLToPath(new URL("../../src/schema.ts", import.meta.url));

const HEADER =
  "// Generated from cairn serve's /openapi.json by openapi-typescript: do not edit.\n" +
  "// Regenerate: npm run generate -- http://HOST:PORT/openapi.json\n\n";

/** The TypeScript of `document`, as committed in `src/schema.ts`. */
export async function render(document: object): Promise<string> {
  const ast = await openapiTS(document as Parameters<typeof openapiTS>[0], {
    alphabetize: true,
    // A field with a default may be left out of an input (serde fills it in).
    defaultNonNullable: false,
  });
  return HEADER + astToString(ast);
}

async function main(source: string): Promise<void> {
  const text = /^https?:/.test(source) ? await (await fetch(source)).text() : readFileSync(source, "utf8");
  writeFileSync(SCHEMA_FILE, await render(JSON.parse(text) as object));
  console.log(`wrote ${SCHEMA_FILE}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const source = process.argv[2];
  if (!source) {
    console.error("usage: npm run generate -- <URL or file of openapi.json>");
    process.exit(2);
  }
  await main(source);
}
