/** Conversations and messages: logging, transcripts (streamed), listing, stats, a session's window and working memory. */

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { BadRequest, NotFound } from "../src/index.js";
import { live } from "./fixture.js";

describe("conversations", () => {
  const s = live();

  it("log messages, then list and show their conversation", async () => {
    const c = s.cairn;
    const logged = await c.logMessages([
      { conversation: "trip", session: "s1", role: "user", text: "I am planning a trip to Lisbon in May with my sister." },
      { conversation: "trip", session: "s1", role: "assistant", text: "Lisbon in May is warm; book the tram 28 early." },
    ]);
    assert.equal(logged.logged.length, 2);
    assert.ok(logged.logged.every((m) => m.session === "s1"));
    const conversation = logged.logged[0]!.conversation;

    const listed = await c.listConversations();
    const mine = listed.find((v) => v.id === conversation);
    assert.ok(mine, JSON.stringify(listed));
    assert.equal(mine.messages, 2);

    const tree = await c.conversation(conversation);
    assert.match(JSON.stringify(tree), /tram 28/);
    const stats = await c.conversationStats(conversation, { tokenizer: "o200k_base" });
    assert.match(JSON.stringify(stats), /"tokens"|"total/);
    await assert.rejects(c.conversation("no-such-conversation"), NotFound);
  });

  it("assemble a session's window and working memory", async () => {
    const c = s.cairn;
    const window = await c.window("s1", { message: "what should I book in Lisbon?", budget: 800 });
    assert.ok(window.total_tokens <= 800);
    assert.match(window.text, /tram 28/);
    const working = await c.workingMemory("s1");
    assert.match(working.text, /Lisbon/);
    const bad = await c.window("s1", { message: "x", tokenizer: "nonsense" }).catch((e: unknown) => e);
    assert.ok(bad instanceof BadRequest, String(bad));
  });

  it("import a transcript streamed from an async iterable", async () => {
    const c = s.cairn;
    async function* transcript(): AsyncGenerator<string> {
      const lines = [
        { conversation: "standup", session: "mon", speaker: "Ana", text: "The release branch is cut on Thursdays." },
        { conversation: "standup", session: "mon", speaker: "Ben", text: "Then QA signs off on Friday mornings." },
        { conversation: "standup", session: "mon", speaker: "Ana", text: "And we ship on Monday after the standup." },
      ];
      for (const line of lines) yield JSON.stringify(line) + "\n";
    }
    const report = await c.importTranscript(transcript(), { project: "team" });
    assert.match(JSON.stringify(report), /3/);
    const listed = await c.listConversations();
    assert.ok(listed.some((v) => v.messages === 3), JSON.stringify(listed));
    const hits = await c.recall("The release branch is cut on Thursdays.", { project: "team" });
    assert.ok(hits.results.some((h) => h.content.includes("release branch")));
  });
});
