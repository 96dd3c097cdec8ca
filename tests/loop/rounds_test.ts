/** The loop's rounds: references within and across rounds, and every way a run stops. */
import assert from "node:assert/strict";
import { z } from "zod";
import { isAppError } from "../../shared/errors.ts";
import type { PlanInput } from "../../shared/ports.ts";
import { defineTool, type ToolDefinition } from "../../shared/tools/tool.ts";
import { MemoryConversationStore } from "../fakes/memory_conversation_store.ts";
import { ScriptedPlanner, ScriptedRepairingPlanner } from "../fakes/scripted_planner.ts";
import { withFakeDeadlines } from "../support/fake_clock.ts";
import { buildLoop, loopRequest } from "../support/loop_fixture.ts";

/**
 * `create_item` returns `{id}`; `tag_item` needs that id; `hang` waits for its
 * signal (and calls `hanging` once it has started).
 */
function itemTools(calls: string[], hanging?: () => void): ToolDefinition[] {
  return [
    defineTool({
      name: "create_item",
      description: "Create an item",
      argsSchema: z.object({ name: z.string() }),
      outputSchema: z.object({ id: z.string() }),
      run: ({ args }) => {
        calls.push(`create:${args.name}`);
        return { id: `item-${args.name}` };
      },
    }),
    defineTool({
      name: "tag_item",
      description: "Tag an item",
      argsSchema: z.object({ item_id: z.string().startsWith("item-"), tag: z.string() }),
      run: ({ args }) => {
        calls.push(`tag:${args.item_id}:${args.tag}`);
        return { tagged: args.item_id };
      },
    }),
    defineTool({
      name: "broken",
      description: "Always fails",
      argsSchema: z.object({}),
      run: () => {
        throw new Error("broken on purpose");
      },
    }),
    defineTool({
      name: "hang",
      description: "Waits until aborted",
      argsSchema: z.object({}),
      run: ({ signal }) =>
        new Promise((_, reject) => {
          calls.push("hang");
          hanging?.();
          signal.addEventListener("abort", () => reject(signal.reason));
        }),
    }),
  ];
}

const ref = (pointer: string) => ({ $ref: pointer });

Deno.test("a later step of a plan takes an earlier step's output through a reference", async () => {
  const calls: string[] = [];
  const { runner } = buildLoop({
    planner: new ScriptedPlanner([
      { tool: "create_item", args: { name: "a" } },
      { tool: "tag_item", args: { item_id: ref("/steps/0/output/id"), tag: "new" } },
      { tool: "finalize_summary", args: {} },
    ]),
    tools: itemTools(calls),
  });
  const { data } = await runner.run(loopRequest());
  assert.deepEqual(calls, ["create:a", "tag:item-a:new"]);
  // The trace shows the resolved args.
  assert.deepEqual(data.intermediateResults[1].input, { item_id: "item-a", tag: "new" });
  assert.equal(data.stopReason, "finalized");
  assert.equal(data.rounds, 1);
});

Deno.test("a plan without finalize_summary gets a second round that sees the results and references them", async () => {
  const calls: string[] = [];
  const planner = new ScriptedPlanner(
    [{ tool: "create_item", args: { name: "b" } }],
    (input: PlanInput) => {
      assert.equal(input.round, 2);
      assert.equal(input.results?.length, 1);
      // The step's output is in the context too, under its tool's name.
      assert.deepEqual(input.context.create_item, { id: "item-b" });
      return [
        { tool: "tag_item", args: { item_id: ref("/steps/0/output/id"), tag: "seen" } },
        { tool: "finalize_summary", args: {} },
      ];
    },
  );
  const store = new MemoryConversationStore();
  const { runner } = buildLoop({ planner, tools: itemTools(calls), store });
  const { data } = await runner.run(loopRequest());
  assert.deepEqual(calls, ["create:b", "tag:item-b:seen"]);
  assert.equal(planner.calls.length, 2);
  assert.deepEqual(data.plan.map((step) => [step.tool, step.round]), [
    ["create_item", 1],
    ["tag_item", 2],
    ["finalize_summary", 2],
  ]);
  assert.deepEqual(data.intermediateResults.map((r) => r.round), [1, 2, 2]);
  assert.equal(data.rounds, 2);
  assert.equal(data.stopReason, "finalized");
  assert.equal(store.events.length, 3);
});

Deno.test("a reference to the same step goes back to a repairing planner with its path, and the repair runs", async () => {
  const calls: string[] = [];
  const planner = new ScriptedRepairingPlanner(
    [
      { tool: "create_item", args: { name: "c" } },
      { tool: "tag_item", args: { item_id: ref("/steps/1/output/id"), tag: "x" } },
    ],
    [
      { tool: "create_item", args: { name: "c" } },
      { tool: "tag_item", args: { item_id: ref("/steps/0/output/id"), tag: "x" } },
      { tool: "finalize_summary", args: {} },
    ],
  );
  const { runner } = buildLoop({ planner, tools: itemTools(calls) });
  await runner.run(loopRequest());
  assert.deepEqual(planner.repairs[0].feedback.issues, [
    '[1].args.item_id.$ref: step 1 cannot reference step 1 (not an earlier step); reference one of steps 0 to 0 (tool "tag_item")',
  ]);
  assert.deepEqual(calls, ["create:c", "tag:item-c:x"]);
});

Deno.test("a bad pointer left unrepaired stops round 1 with TOOL_ARGS_INVALID before anything runs", async () => {
  const calls: string[] = [];
  const { runner } = buildLoop({
    planner: new ScriptedPlanner([
      { tool: "create_item", args: { name: "d" } },
      { tool: "tag_item", args: { item_id: ref("/steps/0/output/a~2"), tag: "x" } },
    ]),
    tools: itemTools(calls),
  });
  await assert.rejects(runner.run(loopRequest()), (error) => {
    assert.ok(isAppError(error));
    assert.equal(error.code, "TOOL_ARGS_INVALID");
    assert.match(error.message, /bad escape/);
    return true;
  });
  assert.deepEqual(calls, []);
});

Deno.test("a step referencing a failed step is DEPENDENCY_FAILED, and later steps go on", async () => {
  const calls: string[] = [];
  const { runner } = buildLoop({
    planner: new ScriptedPlanner([
      { tool: "broken", args: {} },
      { tool: "tag_item", args: { item_id: ref("/steps/0/output/id"), tag: "x" } },
      { tool: "create_item", args: { name: "e" } },
      { tool: "finalize_summary", args: {} },
    ]),
    tools: itemTools(calls),
  });
  const { data } = await runner.run(loopRequest());
  const [broken, tag, create] = data.intermediateResults;
  assert.equal(broken.code, "TOOL_FAILED");
  assert.equal(tag.code, "DEPENDENCY_FAILED");
  assert.match(tag.error!, /step 0 \(broken\), which failed/);
  assert.equal(create.success, true);
  assert.deepEqual(calls, ["create:e"]);
});

Deno.test("a resolved value that fails the tool's schema is TOOL_ARGS_INVALID, with the resolved input", async () => {
  const calls: string[] = [];
  const { runner } = buildLoop({
    planner: new ScriptedPlanner([
      { tool: "create_item", args: { name: "f" } },
      { tool: "tag_item", args: { item_id: ref("/steps/0/output"), tag: "x" } },
      { tool: "finalize_summary", args: {} },
    ]),
    tools: itemTools(calls),
  });
  const { data } = await runner.run(loopRequest());
  const tag = data.intermediateResults[1];
  assert.equal(tag.code, "TOOL_ARGS_INVALID");
  assert.match(tag.error!, /once references were resolved: item_id/);
  assert.deepEqual(tag.input, { item_id: { id: "item-f" }, tag: "x" });
});

Deno.test("the round limit ends the run without an error: stopReason max_rounds", async () => {
  const calls: string[] = [];
  const planner = new ScriptedPlanner((input: PlanInput) => [
    { tool: "create_item", args: { name: `r${input.round}` } },
  ]);
  const { runner } = buildLoop({ planner, tools: itemTools(calls), options: { maxRounds: 4 } });
  const { data } = await runner.run(loopRequest("go", { maxRounds: 2 }));
  assert.deepEqual(calls, ["create:r1", "create:r2"]);
  assert.equal(data.rounds, 2);
  assert.equal(data.stopReason, "max_rounds");
  assert.equal(data.summaryMessage, undefined);
});

Deno.test("maxRounds: 1 is the one-shot loop: one plan, run once", async () => {
  const calls: string[] = [];
  const planner = new ScriptedPlanner([{ tool: "create_item", args: { name: "once" } }]);
  const { runner } = buildLoop({ planner, tools: itemTools(calls) });
  const { data } = await runner.run(loopRequest("go", { maxRounds: 1 }));
  assert.equal(planner.calls.length, 1);
  assert.equal(planner.calls[0].maxRounds, 1);
  assert.deepEqual(calls, ["create:once"]);
  assert.equal(data.stopReason, "max_rounds");
});

Deno.test("an empty first plan stops with empty_plan", async () => {
  const { runner } = buildLoop({ planner: new ScriptedPlanner([]) });
  const { data } = await runner.run(loopRequest());
  assert.equal(data.rounds, 1);
  assert.equal(data.stopReason, "empty_plan");
  assert.deepEqual(data.usage, { modelCalls: 0, promptTokens: 0, completionTokens: 0 });
});

Deno.test("the deadline cuts a multi-round run: steps stop, the turn is stored, stopReason deadline", () =>
  withFakeDeadlines(async (clock) => {
    const calls: string[] = [];
    const hanging = Promise.withResolvers<void>();
    const store = new MemoryConversationStore();
    const { runner } = buildLoop({
      planner: new ScriptedPlanner(
        [{ tool: "create_item", args: { name: "g" } }],
        [{ tool: "hang", args: {} }, { tool: "finalize_summary", args: {} }],
      ),
      tools: itemTools(calls, hanging.resolve),
      options: { deadlineMs: 300 },
      store,
    });
    const running = runner.run(loopRequest());
    await hanging.promise;
    await clock.advance(300);
    const { data } = await running;
    assert.equal(data.stopReason, "deadline");
    assert.equal(data.rounds, 2);
    assert.deepEqual(data.intermediateResults.map((r) => [r.tool, r.code ?? "ok"]), [
      ["create_item", "ok"],
      ["hang", "DEADLINE_EXCEEDED"],
      ["finalize_summary", "DEADLINE_EXCEEDED"],
    ]);
    // The user's message and all three audit rows were stored.
    assert.equal(store.rows.filter((row) => row.role === "user").length, 1);
    assert.equal(store.events.length, 3);
  }));

Deno.test("a planner failing in a later round ends the run with planner_failed, keeping what ran", async () => {
  const calls: string[] = [];
  const store = new MemoryConversationStore();
  const { runner, logger } = buildLoop({
    planner: new ScriptedPlanner(
      [{ tool: "create_item", args: { name: "h" } }],
      new Error("model went away"),
    ),
    tools: itemTools(calls),
    store,
  });
  const { data } = await runner.run(loopRequest());
  assert.equal(data.stopReason, "planner_failed");
  assert.equal(data.rounds, 1);
  assert.deepEqual(calls, ["create:h"]);
  assert.equal(store.events.length, 1);
  assert.ok(logger.entries.some((e) => e.level === "warn" && e.fields?.round === 2));
});
