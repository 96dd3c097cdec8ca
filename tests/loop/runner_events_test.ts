/** The runner's events, its failures before and after the plan, and the one-call form. */
import assert from "node:assert/strict";
import { isAppError } from "../../shared/errors.ts";
import type { LoopEvent } from "../../shared/contracts.ts";
import { runMcpLoop } from "../../shared/loop/runner.ts";
import { contextEvent } from "../../shared/loop/events.ts";
import { HashingEmbedder } from "../../shared/adapters/hashing/hashing_embedder.ts";
import { MemoryConversationStore } from "../fakes/memory_conversation_store.ts";
import { ScriptedPlanner } from "../fakes/scripted_planner.ts";
import { buildLoop, loopRequest, mockTools } from "../support/loop_fixture.ts";

Deno.test("events arrive in order: context, plan, step_start/step_end per step, summary", async () => {
  const events: LoopEvent[] = [];
  const { runner } = buildLoop({
    planner: new ScriptedPlanner([
      { tool: "mock_tool_a", args: { foo: "bar" } },
      { tool: "finalize_summary", args: {} },
    ]),
    tools: mockTools([]),
  });
  await runner.run(loopRequest(), { onEvent: (e) => events.push(e) });
  assert.deepEqual(events.map((e) => e.type), [
    "context",
    "round_start",
    "plan",
    "step_start",
    "step_end",
    "step_start",
    "step_end",
    "summary",
  ]);
});

Deno.test("a throwing onEvent listener does not break the run", async () => {
  const { runner } = buildLoop({ planner: new ScriptedPlanner([]) });
  const response = await runner.run(loopRequest(), {
    onEvent: () => {
      throw new Error("listener bug");
    },
  });
  assert.equal(response.success, true);
});

Deno.test("an empty latest message is rejected with EMPTY_MESSAGE before anything is stored", async () => {
  const store = new MemoryConversationStore();
  const { runner } = buildLoop({ planner: new ScriptedPlanner([]), store });
  await assert.rejects(
    runner.run(loopRequest("   ")),
    (e) => isAppError(e) && e.code === "EMPTY_MESSAGE",
  );
  assert.equal(store.rows.length, 0);
});

Deno.test("a store that fails to save gives DB_UNAVAILABLE", async () => {
  const store = new MemoryConversationStore();
  store.failNextSave = new Error("connection reset");
  const { runner } = buildLoop({ planner: new ScriptedPlanner([]), store });
  await assert.rejects(runner.run(loopRequest()), (e) => {
    assert.ok(isAppError(e));
    assert.equal(e.code, "DB_UNAVAILABLE");
    assert.match(e.message, /nothing was saved/);
    return true;
  });
  assert.equal(store.rows.length, 0);
});

Deno.test("runMcpLoop validates its request and runs it", async () => {
  const deps = {
    registry: buildLoop({ planner: new ScriptedPlanner([]) }).registry,
    planner: new ScriptedPlanner([{ tool: "finalize_summary", args: {} }]),
    embedder: new HashingEmbedder(),
    store: new MemoryConversationStore(),
  };
  const response = await runMcpLoop(loopRequest("hi there"), deps);
  assert.match(response.data.summaryMessage!, /No tools were needed/);
  await assert.rejects(
    runMcpLoop({ ...loopRequest(), mode: "wizard" as never }, deps),
    (e) => isAppError(e) && e.code === "VALIDATION_FAILED",
  );
});

Deno.test("the context event shows which rankings found each match, and its similarity", () => {
  const match = {
    id: "m1",
    sessionId: "s",
    role: "user" as const,
    content: "order ORD-7731 never arrived",
    createdAt: "2026-11-01T00:00:00.000Z",
    similarity: 0.81234,
    foundBy: ["full_text" as const, "vector" as const],
    score: 0.032,
  };
  const event = contextEvent({ recentMessages: [], semanticMatches: [match] }, "hashing-v1");
  assert.equal(event.type, "context");
  assert.deepEqual(event.type === "context" && event.messages.matches, [{
    id: "m1",
    role: "user",
    preview: "order ORD-7731 never arrived",
    createdAt: "2026-11-01T00:00:00.000Z",
    foundBy: ["full_text", "vector"],
    similarity: 0.812,
  }]);
});
