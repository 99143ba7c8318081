/**
 * cairnTools against a live server: through generateText and streamText
 * with the AI SDK's mock model issuing the tool calls, and called directly.
 */

import assert from "node:assert/strict";
import { test } from "node:test";
import { generateText, stepCountIs, streamText, type ToolExecutionOptions } from "ai";
import { cairnTools } from "cairn-memory-ai";
import { fresh } from "./live.js";
import { scripted, scriptedStream } from "./model.js";

const opts = (id: string): ToolExecutionOptions => ({ toolCallId: id, messages: [] });

test("generateText: the model remembers, then recalls what it stored", async () => {
  const cairn = fresh();
  const model = scripted(
    [
      [{ tool: "remember", input: { content: "Staging runs on a Hetzner box in Helsinki", type: "fact", tags: ["infra"] } }],
      [{ tool: "recall", input: { query: "where does staging run?" } }],
    ],
    "In Helsinki.",
  );
  const result = await generateText({
    model,
    tools: cairnTools(cairn, { project: "atlas" }),
    stopWhen: stepCountIs(5),
    prompt: "Remember where staging runs, then tell me.",
  });
  assert.equal(result.text, "In Helsinki.");
  assert.equal(result.steps.length, 3);
  const [remembered] = result.steps[0]!.toolResults;
  assert.match(String(remembered!.output), /^Remembered \[.+\] \(created\)\.$/);
  const [recalled] = result.steps[1]!.toolResults;
  assert.match(String(recalled!.output), /^- \[.+\] \(fact\) Staging runs on a Hetzner box in Helsinki/);

  // What the tools did is in Cairn, in the project given.
  const { memories } = await cairn.list({ project: "atlas" });
  assert.deepEqual(
    memories.map((m) => [m.content, m.type, m.project, m.tags]),
    [["Staging runs on a Hetzner box in Helsinki", "fact", "atlas", ["infra"]]],
  );
  // The model's last call was given the recall's answer.
  const lastPrompt = JSON.stringify(model.doGenerateCalls[2]!.prompt);
  assert.match(lastPrompt, /\(fact\) Staging runs on a Hetzner box in Helsinki/);
});

test("streamText: a context call in the stream", async () => {
  const cairn = fresh();
  await cairn.remember("Always run the migrations before a deploy", { type: "rule" });
  const result = streamText({
    model: scriptedStream([[{ tool: "context", input: { topic: "deploying" } }]], "Migrations first."),
    tools: cairnTools(cairn),
    stopWhen: stepCountIs(3),
    prompt: "How do I deploy?",
  });
  assert.equal(await result.text, "Migrations first.");
  const steps = await result.steps;
  const [briefing] = steps[0]!.toolResults;
  assert.equal(briefing!.toolName, "context");
  assert.match(String(briefing!.output), /Always run the migrations before a deploy/);
});

test("the tools called directly: types, empty recall, Cairn's refusals as text", async () => {
  const cairn = fresh();
  const tools = cairnTools(cairn, { recallLimit: 1 });
  await tools.remember.execute!({ content: "Ada prefers tea", type: "preference" }, opts("1"));
  await tools.remember.execute!({ content: "Ada's team deploys on Fridays", type: "decision" }, opts("2"));
  const one = await tools.recall.execute!({ query: "Ada" }, opts("3"));
  assert.equal(String(one).split("\n").length, 1, "recallLimit caps the answer");
  const decisions = await tools.recall.execute!({ query: "Ada", type: "decision" }, opts("4"));
  assert.match(String(decisions), /\(decision\) Ada's team deploys on Fridays/);
  assert.equal(await tools.recall.execute!({ query: "kubernetes", type: "rule" }, opts("5")), "Nothing relevant is remembered.");
  assert.match(String(await tools.remember.execute!({ content: "" }, opts("6"))), /^Cairn refused: /);
  const reader = cairnTools(fresh("read"));
  assert.match(String(await reader.remember.execute!({ content: "x" }, opts("7"))), /^Cairn refused: forbidden/);

  // The input schemas refuse what Cairn would not take.
  const schema = tools.remember.inputSchema as unknown as { safeParse(v: unknown): { success: boolean } };
  assert.equal(schema.safeParse({ content: "x", type: "gossip" }).success, false);
  assert.equal(schema.safeParse({ content: "x", type: "fact", tags: ["a"] }).success, true);
});
