/** A client that goes away mid-run: a cancellation, logged as one, with its executed steps stored. */
import assert from "node:assert/strict";
import { z } from "zod";
import { defineTool } from "../../shared/tools/tool.ts";
import { MemoryConversationStore } from "../fakes/memory_conversation_store.ts";
import { ScriptedPlanner } from "../fakes/scripted_planner.ts";
import { buildLoop, loopRequest } from "../support/loop_fixture.ts";

Deno.test("a client leaving during a step cancels the run: no error log, the step's audit row stored, stopReason cancelled", async () => {
  let started!: () => void;
  const stepStarted = new Promise<void>((resolve) => started = resolve);
  const slow = defineTool({
    name: "slow_write",
    description: "A write that takes a while",
    argsSchema: z.object({}),
    run: ({ signal }) =>
      new Promise((_, reject) => {
        started();
        signal.addEventListener("abort", () => reject(signal.reason), { once: true });
      }),
  });
  const store = new MemoryConversationStore();
  const { runner, logger } = buildLoop({
    store,
    planner: new ScriptedPlanner([{ tool: "slow_write", args: {} }, {
      tool: "finalize_summary",
      args: {},
    }]),
    tools: [slow],
  });
  const client = new AbortController();
  const request = loopRequest("do the slow thing");
  const running = runner.run(request, { signal: client.signal });
  await stepStarted;
  client.abort(new DOMException("the client went away", "AbortError"));
  const response = await running;

  assert.equal(response.data.stopReason, "cancelled");
  assert.deepEqual(
    response.data.intermediateResults.map(({ tool, code }) => ({ tool, code })),
    [{ tool: "slow_write", code: "CANCELLED" }, { tool: "finalize_summary", code: "CANCELLED" }],
  );
  assert.deepEqual(logger.entries.filter((entry) => entry.level === "error"), []);
  // What ran is on record: the executed call's audit row is stored with the turn.
  assert.deepEqual(store.events.map((event) => event.tool), ["slow_write", "finalize_summary"]);
});

Deno.test("a client leaving before anything ran stores nothing and rejects with CANCELLED", async () => {
  const store = new MemoryConversationStore();
  const { runner } = buildLoop({ store, planner: new ScriptedPlanner([]) });
  const client = new AbortController();
  client.abort(new DOMException("the client went away", "AbortError"));
  await assert.rejects(
    runner.run(loopRequest("hello"), { signal: client.signal }),
    (error: { code?: string }) => error.code === "CANCELLED",
  );
  assert.equal(store.rows.length, 0);
});
