/**
 * A run's event log refers to what the run holds instead of copying it: the
 * `context` event names the recalled messages (ids, a short preview), and the
 * `result` event is a reference the log's readers rebuild from the run. A
 * turn in a session of large messages stores a few KiB of events.
 */
import assert from "node:assert/strict";
import { CONTEXT_PREVIEW_CHARS } from "../../shared/contracts.ts";
import { isStoredResult, responseOf } from "../../shared/runs/run_view.ts";
import { ScriptedPlanner } from "../fakes/scripted_planner.ts";
import { loopRequest } from "../support/loop_fixture.ts";
import { ALICE, countedTools, runsLoop } from "../support/runs_fixture.ts";

Deno.test("a turn among five 30 KB messages stores its events in under its own text plus 8 KiB", async () => {
  const { runner, runStore, store } = runsLoop({
    planner: new ScriptedPlanner([
      { tool: "find_invoice", args: { number: "42" } },
      { tool: "finalize_summary", args: {} },
    ]),
    tools: countedTools([]),
  });
  const request = loopRequest("Find invoice 42 and tell me about it");
  for (let i = 0; i < 5; i++) {
    await store.saveTurn({
      caller: ALICE,
      sessionId: request.sessionId,
      userMessage: {
        content: `Note ${i}: ${"invoices and payments ".repeat(1_400)}`,
        embedding: [1],
        embeddingModel: "none",
      },
      events: [],
    });
  }
  const response = await runner.run(request, { caller: ALICE });
  const events = await runStore.events(ALICE, response.data.runId!, 0, 1_000);
  const bytes = events.reduce((sum, event) => sum + JSON.stringify(event.data).length, 0);
  const own = JSON.stringify([
    request.messages[0].content,
    response.data.summaryMessage,
    response.data.intermediateResults.map((r) => [r.input, r.output]),
  ]).length;
  assert.ok(bytes <= own + 8 * 1024, `${bytes} bytes of events for ${own} bytes of the turn`);

  const context = events.find((event) => event.type === "context")!.data as {
    messages: { recent: { id: string; preview: string }[] };
  };
  assert.equal(context.messages.recent.length, 5);
  for (const message of context.messages.recent) {
    assert.ok(message.id.length > 0);
    assert.ok(message.preview.length <= CONTEXT_PREVIEW_CHARS);
  }
  const result = events.find((event) => event.type === "result")!;
  assert.ok(isStoredResult(result.data), "the result is a reference");
  const record = (await runStore.get(ALICE, response.data.runId!))!;
  const rebuilt = responseOf(record, result.data);
  assert.deepEqual(rebuilt.data.intermediateResults, response.data.intermediateResults);
  assert.deepEqual(rebuilt.data.plan, response.data.plan);
  assert.equal(rebuilt.data.summaryMessage, response.data.summaryMessage);
  assert.equal(rebuilt.data.stopReason, response.data.stopReason);
});
