/**
 * Cairn for the Vercel AI SDK: `remember`, `recall` and `context` tools,
 * ready for `generateText`, `streamText` and agents.
 *
 *     import { generateText, stepCountIs } from "ai";
 *     import { Cairn } from "cairn-memory";
 *     import { cairnTools } from "cairn-memory-ai";
 *     const tools = cairnTools(new Cairn({ baseUrl, apiKey }), { project: "atlas" });
 *     await generateText({ model, tools, stopWhen: stepCountIs(5), prompt });
 *
 * Each tool calls one Cairn REST route through the TypeScript SDK and
 * answers short text for the model. A Cairn error (bad input, a read-only
 * key...) is answered as text too, so the model can correct itself; other
 * failures (the server unreachable) are thrown, and the AI SDK reports them
 * as the tool's error.
 */

import { tool } from "ai";
import { z } from "zod";
import { CairnError, type Cairn } from "cairn-memory";

/** Cairn's memory types. */
export const MEMORY_TYPES = [
  "fact",
  "preference",
  "rule",
  "decision",
  "feedback",
  "context",
  "episode",
  "summary",
  "procedure",
  "note",
] as const;

/** One of {@link MEMORY_TYPES}. */
export type MemoryType = (typeof MEMORY_TYPES)[number];

/** Where the tools read and write. */
export interface CairnToolsOptions {
  /** The project (default: the key's default project, or global memories). */
  project?: string;
  /** At most this many memories per recall (default 8). */
  recallLimit?: number;
}

async function answered(run: () => Promise<string>): Promise<string> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof CairnError) return `Cairn refused: ${error.code}: ${error.message}`;
    throw error;
  }
}

const memoryType = z.enum(MEMORY_TYPES);

/** The three tools on `cairn` (whose key chooses the tenant). */
export function cairnTools(cairn: Cairn, options: CairnToolsOptions = {}) {
  const { project } = options;
  const limit = options.recallLimit ?? 8;
  return {
    remember: tool({
      description:
        "Store something worth knowing later: a fact, a decision, a preference, a rule... as one self-contained statement.",
      inputSchema: z.object({
        content: z.string().describe("The memory, as one self-contained statement."),
        type: memoryType.optional().describe("Its kind (default note)."),
        tags: z.array(z.string()).optional().describe("Labels to find it by."),
      }),
      execute: ({ content, type, tags }) =>
        answered(async () => {
          const r = await cairn.remember(content, { type, tags, project });
          let said = `Remembered [${r.short_id}] (${r.status}).`;
          if (r.similar.length > 0) {
            said += ` It may contradict: ${r.similar.map((s) => `[${s.short_id}] ${s.content}`).join("; ")}`;
          }
          return said;
        }),
    }),
    recall: tool({
      description: "Search long-term memory for what is known about a question, best first.",
      inputSchema: z.object({
        query: z.string().describe("What to look for, in words."),
        type: memoryType.optional().describe("Only memories of this kind."),
      }),
      execute: ({ query, type }) =>
        answered(async () => {
          const { results } = await cairn.recall(query, { project, types: type ? [type] : undefined, limit });
          if (results.length === 0) return "Nothing relevant is remembered.";
          return results.map((h) => `- [${h.short_id}] (${h.type}) ${h.content}`).join("\n");
        }),
    }),
    context: tool({
      description: "The briefing to start work with: rules, preferences and what matters about a topic.",
      inputSchema: z.object({
        topic: z.string().optional().describe("What the work is about."),
      }),
      execute: ({ topic }) => answered(async () => (await cairn.context(topic, { project })).markdown),
    }),
  };
}
