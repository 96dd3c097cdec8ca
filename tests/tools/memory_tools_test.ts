import assert from "node:assert/strict";
import { memoryShape } from "../../shared/memory/working_memory.ts";
import { ANONYMOUS, type Caller } from "../../shared/ports.ts";
import { createMemoryTools } from "../../shared/tools/memory_tools.ts";
import type { ToolDefinition } from "../../shared/tools/tool.ts";
import { MemoryConversationStore } from "../fakes/memory_conversation_store.ts";

function tools(shape = memoryShape()) {
  const store = new MemoryConversationStore();
  const byName = new Map(
    createMemoryTools({ memory: store, data: store, shape }).map((t) => [t.name, t]),
  );
  const run = async (name: string, args: unknown, caller: Caller = ANONYMOUS, context = {}) => {
    const tool = byName.get(name) as ToolDefinition;
    return await tool.run({
      args: tool.argsSchema.parse(args),
      caller,
      context,
      results: [],
      signal: new AbortController().signal,
    }) as Record<string, unknown>;
  };
  return { store, run, byName };
}

Deno.test("remember adds a fact and merges fields; forget removes by words or keys", async () => {
  const { store, run } = tools();
  const first = await run("remember", { fact: "my favourite colour is teal" });
  assert.deepEqual(first.memory, { facts: ["my favourite colour is teal"] });
  const merged = await run("remember", {
    fact: "I live in Lisbon",
    memory: { preferences: ["answers in Portuguese"] },
  });
  assert.deepEqual(merged.memory, {
    facts: ["my favourite colour is teal", "I live in Lisbon"],
    preferences: ["answers in Portuguese"],
  });
  assert.equal((await run("remember", { fact: "I LIVE IN LISBON" })).changed, false);
  const forgot = await run("forget", { what: "favourite colour" });
  assert.deepEqual(forgot.forgotten, ["my favourite colour is teal"]);
  assert.deepEqual((await run("forget", { keys: ["preferences"] })).forgotten, ["preferences"]);
  assert.deepEqual((await store.getMemory(ANONYMOUS)).document, { facts: ["I live in Lisbon"] });
});

Deno.test("forget with everything clears the whole memory, and says what it was; another caller's stays", async () => {
  const { store, run } = tools();
  const other: Caller = { userId: null, owner: "key:other" };
  await run("remember", { fact: "I cycle to work", memory: { preferences: ["short answers"] } });
  await run("remember", { fact: "my sister lives in Faro" }, other);
  const cleared = await run("forget", { everything: true });
  assert.equal(cleared.everything, true);
  assert.deepEqual((cleared.forgotten as string[]).toSorted(), [
    "I cycle to work",
    "short answers",
  ]);
  assert.deepEqual((await store.getMemory(ANONYMOUS)).document, {});
  assert.deepEqual((await store.getMemory(other)).document, { facts: ["my sister lives in Faro"] });
  assert.deepEqual((await run("forget", { everything: true })).forgotten, [], "nothing left");
});

Deno.test("memory tools refuse nothing to do, a full memory, and a fact the schema has no place for", async () => {
  const { run } = tools();
  await assert.rejects(run("remember", {}), /Nothing to remember/);
  await assert.rejects(run("forget", {}), /Nothing to forget/);
  await run("remember", { memory: { facts: Array.from({ length: 50 }, (_, i) => `f${i}`) } });
  await assert.rejects(run("remember", { fact: "one too many" }), /would not fit its schema/);
  const custom = tools(memoryShape({
    type: "object",
    properties: { name: { type: "string" } },
    additionalProperties: false,
  }));
  await assert.rejects(custom.run("remember", { fact: "x" }), /has no facts list/);
  assert.deepEqual((await custom.run("remember", { memory: { name: "Sam" } })).memory, {
    name: "Sam",
  });
  assert.throws(() => custom.byName.get("remember")!.argsSchema.parse({ memory: { age: 3 } }));
});

Deno.test("forget_session deletes this conversation by default, and only the caller's", async () => {
  const { store, run, byName } = tools();
  const other: Caller = { userId: null, owner: "key:other" };
  for (const caller of [ANONYMOUS, other]) {
    await store.saveTurn({
      caller,
      sessionId: "s1",
      userMessage: { content: "secret", embedding: [1], embeddingModel: "m" },
      events: [],
    });
  }
  const out = await run("forget_session", {}, ANONYMOUS, { sessionId: "s1" });
  assert.deepEqual([out.sessionId, (out.deleted as { messages: number }).messages], ["s1", 1]);
  assert.deepEqual(store.rows.map((row) => row.owner), ["key:other"]);
  await assert.rejects(run("forget_session", {}), /No session to forget/);
  await assert.rejects(
    run("forget_session", { session_id: "never-was" }, ANONYMOUS, { sessionId: "s1" }),
    /no session "never-was" to delete/,
  );
  await assert.rejects(run("forget_session", { session_id: "s1" }, ANONYMOUS), /no session "s1"/);
  const empty = await run("forget_session", {}, ANONYMOUS, { sessionId: "brand-new" });
  assert.equal((empty.deleted as { messages: number }).messages, 0);
  assert.equal(byName.get("forget_session")!.annotations?.destructiveHint, true);
  assert.equal(byName.get("forget")!.annotations?.destructiveHint, false);
});
