/** Scripted language models (the AI SDK's MockLanguageModelV3) that call tools. */

import { MockLanguageModelV3 } from "ai/test";

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** A tool call the model makes. */
export interface Call {
  tool: string;
  input: Record<string, unknown>;
}

/** A model answering `generateText` step by step: each step's tool calls, then `text`. */
export function scripted(steps: Call[][], text: string): MockLanguageModelV3 {
  let n = 0;
  return new MockLanguageModelV3({
    doGenerate: [
      ...steps.map((calls) => ({
        content: calls.map((c) => ({
          type: "tool-call" as const,
          toolCallId: `call-${++n}`,
          toolName: c.tool,
          input: JSON.stringify(c.input),
        })),
        finishReason: { unified: "tool-calls" as const, raw: undefined },
        usage,
        warnings: [],
      })),
      { content: [{ type: "text" as const, text }], finishReason: { unified: "stop" as const, raw: undefined }, usage, warnings: [] },
    ],
  });
}

/** The same for `streamText`: each step a stream of its tool calls, then the text. */
export function scriptedStream(steps: Call[][], text: string): MockLanguageModelV3 {
  let n = 0;
  const stream = (parts: unknown[]) =>
    new ReadableStream({
      start(controller) {
        for (const p of parts) controller.enqueue(p);
        controller.close();
      },
    });
  const results = [
    ...steps.map((calls) => ({
      stream: stream([
        ...calls.map((c) => ({ type: "tool-call", toolCallId: `call-${++n}`, toolName: c.tool, input: JSON.stringify(c.input) })),
        { type: "finish", finishReason: { unified: "tool-calls", raw: undefined }, usage },
      ]),
    })),
    {
      stream: stream([
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: text },
        { type: "text-end", id: "t" },
        { type: "finish", finishReason: { unified: "stop", raw: undefined }, usage },
      ]),
    },
  ];
  let i = 0;
  return new MockLanguageModelV3({
    doStream: async () => results[i++] as never,
  });
}
