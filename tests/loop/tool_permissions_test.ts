import assert from "node:assert/strict";
import type { Caller } from "../../shared/ports.ts";
import { ToolPolicy } from "../../shared/tools/tool_policy.ts";
import { ScriptedPlanner, ScriptedRepairingPlanner } from "../fakes/scripted_planner.ts";
import { buildLoop, loopRequest, mockTools } from "../support/loop_fixture.ts";

const policy = new ToolPolicy({
  modes: { candidate: ["finalize_summary", "mock_tool_a"] },
  callers: { "key:reporter": ["finalize_summary"] },
});

Deno.test("the planner is shown only the tools the request's mode may use", async () => {
  const planner = new ScriptedPlanner([]);
  const { runner } = buildLoop({ planner, tools: mockTools([]), policy });
  await runner.run(loopRequest("hi", { mode: "candidate" }));
  await runner.run(loopRequest("hi", { mode: "analyst" }));
  assert.deepEqual(planner.calls[0].tools.map((t) => t.name), ["finalize_summary", "mock_tool_a"]);
  assert.deepEqual(planner.calls[1].tools.map((t) => t.name), [
    "finalize_summary",
    "mock_tool_a",
    "mock_tool_b",
  ]);
});

Deno.test("a tool the mode may not use is refused as TOOL_NOT_PERMITTED even when the planner names it; later steps run", async () => {
  const calls: string[] = [];
  const { runner, logger } = buildLoop({
    planner: new ScriptedPlanner([
      { tool: "mock_tool_b", args: { x: 2 } },
      { tool: "mock_tool_a", args: { foo: "y" } },
    ]),
    tools: mockTools(calls),
    policy,
  });
  const { data } = await runner.run(loopRequest("hi", { mode: "candidate" }));
  assert.deepEqual(calls, ["a:y"], "mock_tool_b never ran");
  const [refused, ran] = data.intermediateResults;
  assert.equal(refused.success, false);
  assert.equal(refused.code, "TOOL_NOT_PERMITTED");
  assert.match(refused.error ?? "", /"mock_tool_b" is not permitted in mode "candidate"/);
  assert.equal(ran.success, true);
  assert.equal(data.context.mock_tool_b, undefined);
  assert.ok(logger.entries.some((e) => e.level === "warn" && e.fields?.tool === "mock_tool_b"));
});

Deno.test("a caller's rule applies in every mode, so picking another mode does not widen it", async () => {
  const calls: string[] = [];
  const reporter: Caller = { userId: null, owner: "key:reporter" };
  const planner = new ScriptedPlanner([{ tool: "mock_tool_a", args: { foo: "z" } }]);
  const { runner } = buildLoop({ planner, tools: mockTools(calls), policy });
  const { data } = await runner.run(loopRequest("hi", { mode: "analyst" }), { caller: reporter });
  assert.deepEqual(planner.calls[0].tools.map((t) => t.name), ["finalize_summary"]);
  assert.deepEqual(calls, []);
  assert.equal(data.intermediateResults[0].code, "TOOL_NOT_PERMITTED");
  assert.match(data.intermediateResults[0].error ?? "", /for caller "key:reporter"/);
});

Deno.test("a planner that can repair is told the tool is not permitted and gets one more round", async () => {
  const calls: string[] = [];
  const planner = new ScriptedRepairingPlanner(
    [{ tool: "mock_tool_b", args: { x: 1 } }],
    [{ tool: "mock_tool_a", args: { foo: "fixed" } }],
  );
  const { runner } = buildLoop({ planner, tools: mockTools(calls), policy });
  const { data } = await runner.run(loopRequest("hi", { mode: "candidate" }));
  assert.match(planner.repairs[0].feedback.issues[0], /"mock_tool_b" is not permitted/);
  assert.deepEqual(calls, ["a:fixed"]);
  assert.deepEqual(data.plan, [{ tool: "mock_tool_a", args: { foo: "fixed" }, round: 1 }]);
});
