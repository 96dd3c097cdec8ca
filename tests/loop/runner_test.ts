import assert from "node:assert/strict";
import { z } from "zod";
import { isAppError } from "../../shared/errors.ts";
import { MemoryConversationStore } from "../fakes/memory_conversation_store.ts";
import { ScriptedPlanner } from "../fakes/scripted_planner.ts";
import { buildLoop, loopRequest, mockTools } from "../support/loop_fixture.ts";

Deno.test("a valid plan runs both tools in order and puts their outputs in context", async () => {
  const calls: string[] = [];
  const { runner } = buildLoop({
    planner: new ScriptedPlanner([
      { tool: "mock_tool_a", args: { foo: "bar" } },
      { tool: "mock_tool_b", args: { x: 1 } },
    ]),
    tools: mockTools(calls),
  });
  const response = await runner.run(loopRequest());
  assert.deepEqual(calls, ["a:bar", "b:1"]);
  assert.equal(response.success, true);
  const { context, intermediateResults, plan } = response.data;
  assert.equal(context.mock_tool_a, "ran A with bar");
  assert.deepEqual(context.mock_tool_b, { doubled: 2, sawA: "ran A with bar" });
  assert.deepEqual(intermediateResults.map((r) => [r.tool, r.success]), [
    ["mock_tool_a", true],
    ["mock_tool_b", true],
  ]);
  assert.deepEqual(intermediateResults[0].input, { foo: "bar" });
  assert.ok(
    intermediateResults.every((r) => typeof r.durationMs === "number" && r.durationMs >= 0),
  );
  assert.equal(plan.length, 2);
});

Deno.test("a plan with an unknown tool runs the known step, skips the unknown one and logs a warning", async () => {
  const calls: string[] = [];
  const { runner, logger } = buildLoop({
    planner: new ScriptedPlanner([
      { tool: "mock_tool_a", args: { foo: "x" } },
      { tool: "unknown_tool", args: {} },
    ]),
    tools: mockTools(calls),
  });
  const { data } = await runner.run(loopRequest());
  assert.deepEqual(calls, ["a:x"]);
  assert.deepEqual(data.intermediateResults[1], {
    tool: "unknown_tool",
    input: {},
    output: null,
    success: false,
    error: 'unknown tool "unknown_tool"',
    code: "UNKNOWN_TOOL",
    durationMs: 0,
    round: 1,
  });
  assert.ok(logger.entries.some((e) => e.level === "warn" && e.fields?.tool === "unknown_tool"));
});

Deno.test("unknownTool: fail turns an unknown tool into UNKNOWN_TOOL before anything runs", async () => {
  const calls: string[] = [];
  const { runner } = buildLoop({
    planner: new ScriptedPlanner([
      { tool: "mock_tool_a", args: { foo: "x" } },
      { tool: "unknown_tool", args: {} },
    ]),
    tools: mockTools(calls),
    options: { unknownTool: "fail" },
  });
  await assert.rejects(
    runner.run(loopRequest()),
    (e) => isAppError(e) && e.code === "UNKNOWN_TOOL",
  );
  assert.deepEqual(calls, []);
});

Deno.test("args that fail validation stop the loop with TOOL_ARGS_INVALID and nothing executed", async () => {
  const calls: string[] = [];
  const store = new MemoryConversationStore();
  const { runner } = buildLoop({
    planner: new ScriptedPlanner([
      { tool: "mock_tool_b", args: { x: 2 } },
      { tool: "mock_tool_a", args: { invalidKey: 123 } },
    ]),
    tools: mockTools(calls),
    store,
  });
  await assert.rejects(runner.run(loopRequest()), (error) => {
    assert.ok(isAppError(error));
    assert.equal(error.code, "TOOL_ARGS_INVALID");
    assert.equal(error.status, 422);
    const steps =
      (error.details as { steps: { index: number; issues: { path: unknown[] }[] }[] }).steps;
    assert.equal(steps[0].index, 1);
    assert.deepEqual(steps[0].issues[0].path, ["foo"]);
    return true;
  });
  assert.deepEqual(calls, [], "the valid step 0 must not run either");
  assert.equal(store.rows.length, 0, "nothing is stored for a failed request");
});

Deno.test("invalidArgs: skip records the invalid step and runs the rest", async () => {
  const calls: string[] = [];
  const { runner } = buildLoop({
    planner: new ScriptedPlanner([
      { tool: "mock_tool_a", args: { invalidKey: 123 } },
      { tool: "mock_tool_b", args: { x: 3 } },
    ]),
    tools: mockTools(calls),
    options: { invalidArgs: "skip" },
  });
  const { data } = await runner.run(loopRequest());
  assert.deepEqual(calls, ["b:3"]);
  assert.equal(data.intermediateResults[0].success, false);
  assert.match(data.intermediateResults[0].error!, /invalid args: foo/);
});

Deno.test("an empty plan runs nothing and succeeds", async () => {
  const calls: string[] = [];
  const { runner } = buildLoop({ planner: new ScriptedPlanner([]), tools: mockTools(calls) });
  const response = await runner.run(loopRequest());
  assert.equal(response.success, true);
  assert.deepEqual(response.data.plan, []);
  assert.deepEqual(response.data.intermediateResults, []);
  assert.equal(response.data.summaryMessage, undefined);
  assert.deepEqual(calls, []);
});

Deno.test("a throwing tool is recorded as failed and later steps still run", async () => {
  const calls: string[] = [];
  const tools = mockTools(calls);
  tools.push({
    name: "explodes",
    description: "always throws",
    argsSchema: z.object({}),
    run: () => {
      throw new Error("boom");
    },
  });
  const { runner } = buildLoop({
    planner: new ScriptedPlanner([
      { tool: "explodes", args: {} },
      { tool: "mock_tool_a", args: { foo: "after" } },
    ]),
    tools,
  });
  const { data } = await runner.run(loopRequest());
  assert.equal(data.intermediateResults[0].success, false);
  assert.equal(data.intermediateResults[0].error, "boom");
  assert.equal(data.context.explodes, undefined);
  assert.deepEqual(calls, ["a:after"]);
});

Deno.test("finalize_summary's output becomes summaryMessage and is stored as the assistant reply", async () => {
  const calls: string[] = [];
  const store = new MemoryConversationStore();
  const { runner } = buildLoop({
    planner: new ScriptedPlanner([
      { tool: "mock_tool_a", args: { foo: "bar" } },
      { tool: "finalize_summary", args: {} },
    ]),
    tools: mockTools(calls),
    store,
  });
  const request = loopRequest("do the thing");
  const { data } = await runner.run(request);
  assert.match(data.summaryMessage!, /mock_tool_a: ran A with bar/);
  assert.deepEqual(store.rows.map((r) => [r.role, r.content.slice(0, 12)]), [
    ["user", "do the thing"],
    ["assistant", data.summaryMessage!.slice(0, 12)],
  ]);
  assert.deepEqual(store.events.map((e) => [e.tool, e.success, e.sessionId]), [
    ["mock_tool_a", true, request.sessionId],
    ["finalize_summary", true, request.sessionId],
  ]);
});

Deno.test("the context holds the embedding, memory, sessionId, mode and the request's own context", async () => {
  const { runner } = buildLoop({ planner: new ScriptedPlanner([]) });
  const request = loopRequest("hello", { mode: "analyst", context: { profileId: "p-1" } });
  const { data } = await runner.run(request);
  assert.equal(data.context.sessionId, request.sessionId);
  assert.equal(data.context.mode, "analyst");
  assert.equal(data.context.profileId, "p-1");
  assert.equal((data.context.embeddedMessage as number[]).length, 1536);
  assert.deepEqual(data.context.recentMessages, []);
  assert.deepEqual(data.semanticMatches, []);
});

Deno.test("the planner sees the context without the raw embedding, and the registered tools", async () => {
  const planner = new ScriptedPlanner([]);
  const { runner } = buildLoop({ planner, tools: mockTools([]) });
  await runner.run(loopRequest());
  const [input] = planner.calls;
  assert.equal("embeddedMessage" in input.context, false);
  assert.deepEqual(input.tools.map((t) => t.name), [
    "finalize_summary",
    "mock_tool_a",
    "mock_tool_b",
  ]);
  assert.deepEqual(input.tools[1].argsSchema?.required, ["foo"]);
});

Deno.test("availableTools restricts the offered tools, and a plan using another tool is skipped", async () => {
  const calls: string[] = [];
  const planner = new ScriptedPlanner([
    { tool: "mock_tool_a", args: { foo: "a" } },
    { tool: "mock_tool_b", args: { x: 1 } },
  ]);
  const { runner } = buildLoop({ planner, tools: mockTools(calls) });
  const { data } = await runner.run(
    loopRequest("hi", { availableTools: [{ name: "mock_tool_b", description: "" }] }),
  );
  assert.deepEqual(planner.calls[0].tools.map((t) => t.name), ["mock_tool_b"]);
  assert.deepEqual(calls, ["b:1"]);
  assert.equal(data.intermediateResults[0].error, 'unknown tool "mock_tool_a"');
});

Deno.test("a plan of more than 5 steps is a planner error and nothing runs", async () => {
  const calls: string[] = [];
  const step = { tool: "mock_tool_a", args: { foo: "x" } };
  const { runner } = buildLoop({
    planner: new ScriptedPlanner(Array.from({ length: 6 }, () => step)),
    tools: mockTools(calls),
  });
  await assert.rejects(
    runner.run(loopRequest()),
    (e) => isAppError(e) && e.code === "PLANNER_INVALID_OUTPUT" && e.status === 502,
  );
  assert.deepEqual(calls, []);
});

Deno.test("a plan that is not an array of {tool, args} is a planner error", async () => {
  const { runner } = buildLoop({
    planner: new ScriptedPlanner(() => ({ steps: "nope" }) as unknown),
  });
  await assert.rejects(runner.run(loopRequest()), (e) => {
    assert.ok(isAppError(e));
    assert.equal(e.code, "PLANNER_INVALID_OUTPUT");
    return true;
  });
});
