import assert from "node:assert/strict";
import { AppError, isAppError } from "../../shared/errors.ts";
import { ScriptedPlanner, ScriptedRepairingPlanner } from "../fakes/scripted_planner.ts";
import { buildLoop, loopRequest, mockTools } from "../support/loop_fixture.ts";

Deno.test("a planner that can repair gets the unknown tool name back and its repaired plan runs", async () => {
  const calls: string[] = [];
  const planner = new ScriptedRepairingPlanner(
    [{ tool: "mock_tool_z", args: {} }],
    [{ tool: "mock_tool_a", args: { foo: "fixed" } }],
  );
  const { runner } = buildLoop({ planner, tools: mockTools(calls) });
  const events: string[] = [];
  const { data } = await runner.run(loopRequest(), {
    onEvent: (e) => e.type === "plan" && events.push(`round ${e.round}: repaired=${e.repaired}`),
  });
  assert.deepEqual(calls, ["a:fixed"]);
  assert.deepEqual(planner.repairs[0].feedback.issues, [
    '[0].tool: unknown tool "mock_tool_z"; use one of the listed tool ids',
  ]);
  assert.deepEqual(data.plan, [{ tool: "mock_tool_a", args: { foo: "fixed" }, round: 1 }]);
  // Without finalize_summary the plan asks to see its results; the script then has no more steps.
  assert.deepEqual(events, ["round 1: repaired=true", "round 2: repaired=false"]);
  assert.equal(data.stopReason, "empty_plan");
});

Deno.test("a planner that can repair gets the exact Zod issue paths of invalid args", async () => {
  const calls: string[] = [];
  const planner = new ScriptedRepairingPlanner(
    [{ tool: "mock_tool_b", args: { x: "one" } }],
    [{ tool: "mock_tool_b", args: { x: 1 } }],
  );
  const { runner } = buildLoop({ planner, tools: mockTools(calls) });
  await runner.run(loopRequest());
  assert.deepEqual(calls, ["b:1"]);
  const [issue] = planner.repairs[0].feedback.issues;
  assert.match(
    issue,
    /^\[0\]\.args\.x: Invalid input: expected number, received string \(tool "mock_tool_b"\)$/,
  );
  assert.equal(
    planner.repairs[0].feedback.raw,
    JSON.stringify([{ tool: "mock_tool_b", args: { x: "one" } }]),
  );
});

Deno.test("args still invalid after the repair round stop the loop with TOOL_ARGS_INVALID", async () => {
  const calls: string[] = [];
  const bad = [{ tool: "mock_tool_b", args: { x: "one" } }];
  const planner = new ScriptedRepairingPlanner(bad, bad);
  const { runner } = buildLoop({ planner, tools: mockTools(calls) });
  await assert.rejects(
    runner.run(loopRequest()),
    (e) => isAppError(e) && e.code === "TOOL_ARGS_INVALID",
  );
  assert.equal(planner.repairs.length, 1, "exactly one repair round");
  assert.deepEqual(calls, []);
});

Deno.test("a planner output error is repaired once, then reported with the raw text", async () => {
  const garbage = () => {
    throw new AppError("PLANNER_INVALID_OUTPUT", "not JSON", {
      details: { raw: "I think you should...", issues: ["(plan): not JSON"] },
    });
  };
  const planner = new ScriptedRepairingPlanner(garbage, garbage);
  const { runner } = buildLoop({ planner });
  await assert.rejects(runner.run(loopRequest()), (e) => {
    assert.ok(isAppError(e));
    assert.equal(e.code, "PLANNER_INVALID_OUTPUT");
    assert.deepEqual(e.details, { issues: ["(plan): not JSON"], raw: "I think you should..." });
    return true;
  });
  assert.equal(planner.repairs[0].feedback.raw, "I think you should...");
});

Deno.test("a valid plan is not sent for repair", async () => {
  const planner = new ScriptedRepairingPlanner([{ tool: "mock_tool_a", args: { foo: "ok" } }]);
  const { runner } = buildLoop({ planner, tools: mockTools([]) });
  await runner.run(loopRequest());
  assert.equal(planner.repairs.length, 0);
});

Deno.test("a planner without repair keeps the executor rules: unknown tools are skipped", async () => {
  const calls: string[] = [];
  const { runner } = buildLoop({
    planner: new ScriptedPlanner([{ tool: "nope", args: {} }, {
      tool: "mock_tool_a",
      args: { foo: "y" },
    }]),
    tools: mockTools(calls),
  });
  const { data } = await runner.run(loopRequest());
  assert.deepEqual(calls, ["a:y"]);
  assert.equal(data.intermediateResults[0].success, false);
});

Deno.test("a planner that throws something unexpected gives INTERNAL without its message", async () => {
  const { runner } = buildLoop({ planner: new ScriptedPlanner(new TypeError("secret internals")) });
  await assert.rejects(runner.run(loopRequest()), (e) => {
    assert.ok(isAppError(e));
    assert.equal(e.code, "INTERNAL");
    assert.doesNotMatch(e.message, /secret internals/);
    return true;
  });
});
