import assert from "node:assert/strict";
import { z } from "zod";
import { HashingEmbedder } from "../../shared/adapters/hashing/hashing_embedder.ts";
import { isAppError } from "../../shared/errors.ts";
import { MemoryConversationStore } from "../fakes/memory_conversation_store.ts";
import { defineTool } from "../../shared/tools/tool.ts";
import { ScriptedPlanner } from "../fakes/scripted_planner.ts";
import { hang, withFakeDeadlines } from "../support/fake_clock.ts";
import { buildLoop, loopRequest, mockTools } from "../support/loop_fixture.ts";

const never = <T>() => new Promise<T>(() => {});

function hangingTool(
  seen: { aborted?: boolean; reason?: unknown },
  { never: hangs = never }: { never?: <T>() => Promise<T> } = {},
) {
  return defineTool({
    name: "hangs",
    description: "never returns",
    argsSchema: z.object({}),
    run: ({ signal }) => {
      signal.addEventListener("abort", () => {
        seen.aborted = true;
        seen.reason = signal.reason;
      });
      return hangs<string>();
    },
  });
}

Deno.test("a tool that never returns is recorded as timed out, its signal aborts, and later steps run", () =>
  withFakeDeadlines(async (clock) => {
    const calls: string[] = [];
    const seen: { aborted?: boolean } = {};
    const stuck = hang();
    const { runner } = buildLoop({
      planner: new ScriptedPlanner([
        { tool: "hangs", args: {} },
        { tool: "mock_tool_a", args: { foo: "next" } },
      ]),
      tools: [...mockTools(calls), hangingTool(seen, stuck)],
      options: { stepTimeoutMs: 20 },
    });
    const running = runner.run(loopRequest());
    await stuck.reached;
    await clock.advance(20);
    const { data } = await running;
    assert.equal(data.intermediateResults[0].success, false);
    assert.equal(data.intermediateResults[0].error, "the step timed out after 20 ms");
    assert.equal(seen.aborted, true);
    assert.deepEqual(calls, ["a:next"]);
  }));

Deno.test("when the request deadline passes, the running step aborts and the rest are recorded as not run", () =>
  withFakeDeadlines(async (clock) => {
    const calls: string[] = [];
    const stuck = hang();
    const { runner } = buildLoop({
      planner: new ScriptedPlanner([
        { tool: "hangs", args: {} },
        { tool: "mock_tool_a", args: { foo: "late" } },
      ]),
      tools: [...mockTools(calls), hangingTool({}, stuck)],
      options: { deadlineMs: 100, stepTimeoutMs: 60_000 },
    });
    const running = runner.run(loopRequest());
    await stuck.reached;
    await clock.advance(100);
    const { data } = await running;
    assert.match(data.intermediateResults[0].error!, /request deadline of \d+ ms passed/);
    assert.match(data.intermediateResults[1].error!, /^not run: the request deadline/);
    assert.deepEqual(calls, []);
  }));

Deno.test("a planner that hangs past the deadline gives DEADLINE_EXCEEDED (504)", () =>
  withFakeDeadlines(async (clock) => {
    const stuck = hang();
    const { runner } = buildLoop({
      planner: new ScriptedPlanner(() => stuck.never()),
      options: { deadlineMs: 50 },
    });
    const rejected = assert.rejects(runner.run(loopRequest()), (e) => {
      assert.ok(isAppError(e));
      assert.equal(e.code, "DEADLINE_EXCEEDED");
      assert.equal(e.status, 504);
      return true;
    });
    await stuck.reached;
    await clock.advance(50);
    await rejected;
  }));

Deno.test("an embedder that hangs past the deadline gives DEADLINE_EXCEEDED", () =>
  withFakeDeadlines(async (clock) => {
    const stuck = hang();
    const embedder = Object.assign(new HashingEmbedder(), {
      embed: () => stuck.never<number[][]>(),
    });
    const { runner } = buildLoop({
      planner: new ScriptedPlanner([]),
      embedder,
      options: { deadlineMs: 50 },
    });
    const rejected = assert.rejects(
      runner.run(loopRequest()),
      (e) => isAppError(e) && e.code === "DEADLINE_EXCEEDED",
    );
    await stuck.reached;
    await clock.advance(50);
    await rejected;
  }));

Deno.test("an embedder that throws gives MODEL_UNAVAILABLE naming the model", async () => {
  const embedder = Object.assign(new HashingEmbedder(), {
    embed: () => Promise.reject(new Error("connection refused")),
  });
  const { runner } = buildLoop({ planner: new ScriptedPlanner([]), embedder });
  await assert.rejects(runner.run(loopRequest()), (e) => {
    assert.ok(isAppError(e));
    assert.equal(e.code, "MODEL_UNAVAILABLE");
    assert.match(e.message, /hashing-v1.*connection refused/);
    return true;
  });
});

Deno.test("aborting the caller's signal stops a hanging planner", async () => {
  const controller = new AbortController();
  const { runner } = buildLoop({ planner: new ScriptedPlanner(() => never()) });
  const run = runner.run(loopRequest(), { signal: controller.signal });
  controller.abort(new Error("client went away"));
  await assert.rejects(run, /client went away|failed/);
});

Deno.test("each step gets the parsed args with defaults applied, and the earlier results", async () => {
  let received: unknown;
  let earlier: unknown;
  const tool = defineTool({
    name: "with_defaults",
    description: "has a default",
    argsSchema: z.object({
      limit: z.number().default(3),
      name: z.string().transform((s) => s.toUpperCase()),
    }),
    run: ({ args, results }) => {
      received = args;
      earlier = results.map((r) => r.tool);
      return "ok";
    },
  });
  const { runner } = buildLoop({
    planner: new ScriptedPlanner([
      { tool: "mock_tool_a", args: { foo: "1" } },
      { tool: "with_defaults", args: { name: "ada" } },
    ]),
    tools: [...mockTools([]), tool],
  });
  const { data } = await runner.run(loopRequest());
  assert.deepEqual(received, { limit: 3, name: "ADA" });
  assert.deepEqual(earlier, ["mock_tool_a"]);
  assert.deepEqual(data.intermediateResults[1].input, { limit: 3, name: "ADA" });
});

Deno.test("a store that hangs while saving the turn ends the request at the deadline, saying the outcome is unknown", () =>
  withFakeDeadlines(async (clock) => {
    const stuck = hang();
    const store = new MemoryConversationStore();
    store.saveTurn = () => stuck.never<void>();
    const { runner } = buildLoop({
      planner: new ScriptedPlanner([]),
      store,
      options: { deadlineMs: 100 },
    });
    const rejected = assert.rejects(runner.run(loopRequest()), (e) => {
      assert.ok(isAppError(e));
      assert.equal(e.code, "DEADLINE_EXCEEDED");
      assert.deepEqual(e.details, { stored: "unknown" });
      return true;
    });
    await stuck.reached;
    await clock.advance(100);
    await rejected;
  }));
