/** Consecutive independent read-only steps run at the same time; results keep plan order. */
import assert from "node:assert/strict";
import { z } from "zod";
import { batches, MAX_PARALLEL } from "../../shared/loop/step_order.ts";
import type { CheckedStep } from "../../shared/loop/plan_check.ts";
import { defineTool } from "../../shared/tools/tool.ts";
import type { RegisteredTool } from "../../shared/tools/tool_registry.ts";
import { RemoteMcpFixture } from "../fakes/remote_mcp_fixture.ts";
import { ScriptedPlanner } from "../fakes/scripted_planner.ts";
import { buildLoop, loopRequest } from "../support/loop_fixture.ts";
import { mcpApp } from "../support/mcp_fixture.ts";
import { post, validBody } from "../support/test_app.ts";

function step(
  position: number,
  readOnly: boolean,
  args: Record<string, unknown> = {},
  name = `t${position}`,
): CheckedStep {
  const tool = { name, annotations: { readOnlyHint: readOnly } } as RegisteredTool;
  return { index: position, position, action: { tool: tool.name, args }, status: "ok", tool, args };
}

Deno.test("batches group consecutive read-only steps, at most four, split by a reference or a writer", () => {
  const shape = (steps: CheckedStep[]) =>
    batches(steps).map((group) => group.map((s) => s.position));
  assert.equal(MAX_PARALLEL, 4);
  assert.deepEqual(shape([0, 1, 2, 3, 4].map((i) => step(i, true))), [[0, 1, 2, 3], [4]]);
  assert.deepEqual(shape([step(0, true), step(1, false), step(2, true), step(3, true)]), [
    [0],
    [1],
    [2, 3],
  ]);
  const reading = step(2, true, { x: { $ref: "/steps/1/output" } });
  assert.deepEqual(shape([step(0, true), step(1, true), reading]), [[0, 1], [2]]);
  // A reference to a step before the group does not split it.
  const earlier = step(2, true, { x: { $ref: "/steps/0/output" } });
  assert.deepEqual(shape([step(0, false), step(1, true), earlier]), [[0], [1, 2]]);
  // finalize_summary reads every earlier result: it waits for them, read-only or not.
  const finalize = step(2, true, {}, "finalize_summary");
  assert.deepEqual(shape([step(0, true), step(1, true), finalize]), [[0, 1], [2]]);
});

Deno.test("three independent read-only steps run together; results and context keep plan order", async () => {
  let inFlight = 0;
  let maxInFlight = 0;
  const order: string[] = [];
  // Each call waits for the test to release it; the test releases them once all three are in
  // flight, in the reverse of plan order, so they finish in an order the plan does not have.
  const releases = new Map<string, () => void>();
  const allStarted = Promise.withResolvers<void>();
  const lookup = defineTool({
    name: "lookup",
    description: "Look something up",
    argsSchema: z.object({ key: z.string() }),
    annotations: { readOnlyHint: true },
    run: async ({ args }) => {
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      const released = Promise.withResolvers<void>();
      releases.set(args.key, released.resolve);
      if (releases.size === 3) allStarted.resolve();
      await released.promise;
      inFlight--;
      order.push(args.key);
      return args.key;
    },
  });
  const { runner } = buildLoop({
    planner: new ScriptedPlanner([
      { tool: "lookup", args: { key: "slow" } },
      { tool: "lookup", args: { key: "medium" } },
      { tool: "lookup", args: { key: "fast" } },
      { tool: "finalize_summary", args: {} },
    ]),
    tools: [lookup],
  });
  const running = runner.run(loopRequest());
  await allStarted.promise;
  for (const key of ["fast", "medium", "slow"]) {
    releases.get(key)!();
    await Promise.resolve();
  }
  const { data } = await running;
  assert.equal(maxInFlight, 3);
  assert.deepEqual(order, ["fast", "medium", "slow"]);
  assert.deepEqual(data.intermediateResults.map((r) => r.output).slice(0, 3), [
    "slow",
    "medium",
    "fast",
  ]);
  // The summary ran after them and reports all three.
  assert.equal(data.summaryMessage, "lookup: slow\nlookup: medium\nlookup: fast");
});

Deno.test("three read-only remote calls are in flight at the same time", async () => {
  const fixture = RemoteMcpFixture.start();
  // Each call answers once all three wait at once: calls made one by one would wait a minute.
  const sleep = { tool: "fixture__sleep", args: { ms: 60_000, together: 3 } };
  const app = await mcpApp(
    {
      MCP_LOOP_REMOTE_SERVERS: JSON.stringify([{ name: "fixture", url: fixture.url }]),
    },
    { planner: new ScriptedPlanner([sleep, sleep, sleep, { tool: "finalize_summary", args: {} }]) },
  );
  try {
    await app.ready();
    const res = await app.fetch(post(validBody("sleep three times")));
    const json = await res.json();
    assert.equal(res.status, 200, JSON.stringify(json));
    assert.deepEqual(json.data.intermediateResults.map((r: { success: boolean }) => r.success), [
      true,
      true,
      true,
      true,
    ]);
    // The remote server saw all three at once (the wall time is measured by `deno task bench`).
    assert.equal(fixture.maxInFlight, 3);
  } finally {
    await app.close();
    await fixture.stop();
  }
});
