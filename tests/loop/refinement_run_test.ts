/** Quality-driven refinement: a scorer and the persisted refinement policy drive the rounds. */
import assert from "node:assert/strict";
import { z } from "zod";
import { isAppError } from "../../shared/errors.ts";
import type { LoopEvent } from "../../shared/contracts.ts";
import { ChatPlanner } from "../../shared/planner/chat_planner.ts";
import { HeuristicPlanner } from "../../shared/planner/heuristic_planner.ts";
import type { Caller } from "../../shared/ports.ts";
import { ChatScorer } from "../../shared/refinement/chat_scorer.ts";
import { createRefinementTools } from "../../shared/refinement/refinement_tools.ts";
import { defineTool } from "../../shared/tools/tool.ts";
import { MemoryRefinementStore } from "../fakes/memory_refinement_store.ts";
import { RecordingLogger } from "../fakes/recording_logger.ts";
import { ScriptedChatModel } from "../fakes/scripted_chat_model.ts";
import { ScriptedPlanner } from "../fakes/scripted_planner.ts";
import { ScriptedScorer } from "../fakes/scripted_scorer.ts";
import { buildLoop, loopRequest } from "../support/loop_fixture.ts";

const weather = defineTool({
  name: "get_weather",
  description: "Weather for a city",
  argsSchema: z.object({ city: z.string() }),
  annotations: { readOnlyHint: true },
  run: ({ args }) => ({ city: args.city, sky: "clear" }),
});

const alice: Caller = { userId: null, owner: "key:alice" };
const bob: Caller = { userId: null, owner: "key:bob" };

Deno.test("refinement: 60 then 90 completes the loop, and the second plan prompt carries the feedback", async () => {
  let scored = 0;
  const model: ScriptedChatModel = new ScriptedChatModel((request): string => {
    if (request.jsonSchema?.name === "plan") {
      return JSON.stringify({
        plan: [{ tool: "get_weather", args: { city: "Lisbon" } }, {
          tool: "finalize_summary",
          args: {},
        }],
      });
    }
    scored++;
    return scored === 1
      ? '{"score": 60, "feedback": "Mention the weather in Porto too."}'
      : '{"score": 90, "feedback": "Good."}';
  });
  model.usage = { promptTokens: 100, completionTokens: 20 };
  const store = new MemoryRefinementStore();
  const events: LoopEvent[] = [];
  const { runner } = buildLoop({
    planner: new ChatPlanner(model),
    tools: [weather],
    refinement: { store, scorer: new ChatScorer(model, { logger: new RecordingLogger() }) },
  });
  const { data } = await runner.run(
    loopRequest("weather in Lisbon and Porto", { refinement: { loopType: "spec" } }),
    { onEvent: (e) => events.push(e) },
  );
  assert.equal(data.stopReason, "refinement_completed");
  assert.equal(data.rounds, 2);
  assert.equal(data.refinement?.status, "completed");
  assert.deepEqual(data.refinement?.score_history, [60, 90]);
  assert.equal(data.refinement?.threshold, 85);

  const plans = model.requests.filter((r) => r.jsonSchema?.name === "plan");
  assert.equal(plans.length, 2);
  const second = plans[1].messages.at(-1)!.content;
  assert.match(second, /scored 60\/100; it needs 85/);
  assert.match(
    second,
    /<(untrusted-data-[0-9a-f]{16}) source="reviewer">\nMention the weather in Porto too\.\n<\/\1>/,
  );
  assert.match(second, /Step 0 \(round 1\), get_weather, succeeded/);
  assert.doesNotMatch(plans[0].messages.at(-1)!.content, /Reviewer feedback/);

  // Two plans and two scores, each reporting 100 + 20 tokens (the summary is offline).
  assert.deepEqual(data.usage, { modelCalls: 4, promptTokens: 400, completionTokens: 80 });
  const scores = events.flatMap((e) => e.type === "score" ? [[e.round, e.score, e.decision]] : []);
  assert.deepEqual(scores, [[1, 60, "refine"], [2, 90, "completed"]]);
});

Deno.test("refinement: scores that stagnate end the run with refinement_user_input", async () => {
  const store = new MemoryRefinementStore();
  const { runner } = buildLoop({
    planner: new ScriptedPlanner(() => [{ tool: "finalize_summary", args: {} }]),
    refinement: { store, scorer: new ScriptedScorer(50, 52, 53, 99) },
  });
  const { data } = await runner.run(
    loopRequest("draft a plan", { maxRounds: 5, refinement: { loopType: "plan" } }),
  );
  assert.equal(data.stopReason, "refinement_user_input");
  assert.equal(data.rounds, 3);
  assert.deepEqual(data.refinement?.score_history, [50, 52, 53]);
  assert.equal(data.refinement?.status, "user_input");
});

Deno.test("refinement: the round limit ends a run the policy would refine further", async () => {
  const { runner } = buildLoop({
    planner: new ScriptedPlanner(() => [{ tool: "finalize_summary", args: {} }]),
    refinement: { store: new MemoryRefinementStore(), scorer: new ScriptedScorer(10, 30) },
  });
  const { data } = await runner.run(
    loopRequest("x", { maxRounds: 2, refinement: { loopType: "build_code" } }),
  );
  assert.equal(data.stopReason, "max_rounds");
  assert.equal(data.refinement?.status, "refine");
  assert.deepEqual(data.refinement?.score_history, [10, 30]);
});

Deno.test("refinement: a run continues the caller's loop by id; another caller's id is not found", async () => {
  const store = new MemoryRefinementStore();
  const loop = await store.create(alice, { loopType: "spec", threshold: 85, maxIterations: 5 });
  const scorer = new ScriptedScorer(70, 88);
  const calls: string[] = [];
  const planner = new ScriptedPlanner((input) => {
    calls.push(`round ${input.round}`);
    return [{ tool: "finalize_summary", args: {} }];
  });
  const { runner } = buildLoop({ planner, refinement: { store, scorer } });
  const request = loopRequest("refine it", { refinement: { loopType: "spec", loopId: loop.id } });
  const { data } = await runner.run(request, { caller: alice });
  assert.equal(data.refinement?.id, loop.id);
  assert.deepEqual(data.refinement?.score_history, [70, 88]);

  calls.length = 0;
  await assert.rejects(runner.run(request, { caller: bob }), (error) => {
    assert.ok(isAppError(error));
    assert.equal(error.code, "LOOP_NOT_FOUND");
    return true;
  });
  assert.deepEqual(calls, [], "nothing is planned for a loop the caller does not have");
});

Deno.test("refinement: a completed loop, or a loop of another type, is refused before anything runs", async () => {
  const store = new MemoryRefinementStore();
  const loop = await store.create(alice, { loopType: "plan", threshold: 80, maxIterations: 5 });
  const { runner } = buildLoop({
    planner: new ScriptedPlanner([{ tool: "finalize_summary", args: {} }]),
    refinement: { store, scorer: new ScriptedScorer(95) },
  });
  await assert.rejects(
    runner.run(loopRequest("x", { refinement: { loopType: "spec", loopId: loop.id } }), {
      caller: alice,
    }),
    (error) =>
      isAppError(error) && error.code === "LOOP_VALIDATION" && /is a plan loop/.test(error.message),
  );
  await runner.run(loopRequest("x", { refinement: { loopType: "plan", loopId: loop.id } }), {
    caller: alice,
  });
  await assert.rejects(
    runner.run(loopRequest("x", { refinement: { loopType: "plan", loopId: loop.id } }), {
      caller: alice,
    }),
    (error) => isAppError(error) && error.code === "LOOP_STATE",
  );
});

Deno.test("a refinement request to a runner without a refinement store is a configuration error", async () => {
  const { runner } = buildLoop({ planner: new ScriptedPlanner([]) });
  await assert.rejects(
    runner.run(loopRequest("x", { refinement: { loopType: "plan" } })),
    (error) => isAppError(error) && error.code === "CONFIG_INVALID",
  );
});

Deno.test("refinement: the planner is not offered the tools that start or score a loop; the run's loop is the only one", async () => {
  const store = new MemoryRefinementStore();
  const { runner } = buildLoop({
    planner: new HeuristicPlanner(),
    tools: createRefinementTools({ store }),
    refinement: { store, scorer: new ScriptedScorer(95) },
  });
  const message = "Start a spec refinement loop and record a score of 72";
  const { data } = await runner.run(
    loopRequest(message, { refinement: { loopType: "spec" } }),
    { caller: alice },
  );
  const planned = data.plan.map((step) => step.tool);
  assert.ok(!planned.includes("initialize_refinement_loop"), planned.join(", "));
  assert.ok(!planned.includes("decide_loop_next_action"), planned.join(", "));
  const loops = await store.listRecent(alice, 10);
  assert.deepEqual(loops.map((loop) => loop.id), [data.refinement?.id]);
  assert.deepEqual(data.refinement?.score_history, [95]);
  // Without `refinement`, the same message plans both tools.
  const plain = await runner.run(loopRequest(message), { caller: bob });
  assert.deepEqual(plain.data.plan.map((step) => step.tool), [
    "initialize_refinement_loop",
    "decide_loop_next_action",
    "finalize_summary",
  ]);
});
