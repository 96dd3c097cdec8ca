/**
 * Cancelling a run from every state that is not final: during a fresh run's
 * step, during the step that follows an approval, while it waits for
 * approval, and while it is paused at its deadline. Each ends `cancelled`,
 * the tool in flight gets the abort, nothing runs after it, and the final
 * status stays final.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { defineTool } from "../../shared/tools/tool.ts";
import { ScriptedPlanner } from "../fakes/scripted_planner.ts";
import { withFakeDeadlines } from "../support/fake_clock.ts";
import { loopRequest } from "../support/loop_fixture.ts";
import { ALICE, runsLoop } from "../support/runs_fixture.ts";

/**
 * Tools that record what they did: `hold` starts, then waits until its signal
 * aborts (telling the test it started through `started`); `confirm` needs a
 * person's approval; `note` records that it ran.
 */
function tools(calls: string[]) {
  let started = Promise.withResolvers<void>();
  const hold = defineTool({
    name: "hold",
    description: "Holds until it is stopped",
    argsSchema: z.object({ after: z.unknown().optional() }),
    annotations: { readOnlyHint: true },
    run: ({ signal }) =>
      new Promise((_resolve, reject) => {
        calls.push("hold:started");
        started.resolve();
        signal.addEventListener("abort", () => {
          calls.push("hold:aborted");
          reject(signal.reason);
        }, { once: true });
      }),
  });
  const confirm = defineTool({
    name: "confirm",
    description: "Needs a yes first",
    argsSchema: z.object({}),
    needsApproval: true,
    run: () => {
      calls.push("confirm");
      return { confirmed: true };
    },
  });
  const note = defineTool({
    name: "note",
    description: "Notes that it ran",
    argsSchema: z.object({}),
    annotations: { readOnlyHint: false, destructiveHint: false },
    run: () => {
      calls.push("note");
      return { noted: true };
    },
  });
  return {
    list: [hold, confirm, note],
    /** Resolves once `hold` has started; then arms for its next start. */
    holdStarted: async () => {
      await started.promise;
      started = Promise.withResolvers<void>();
    },
  };
}

Deno.test("cancel during a fresh run's step: the step gets the abort, nothing after it runs, the run is cancelled", async () => {
  const calls: string[] = [];
  const { list, holdStarted } = tools(calls);
  const { runner, runStore } = runsLoop({
    planner: new ScriptedPlanner([{ tool: "hold", args: {} }, { tool: "note", args: {} }]),
    tools: list,
  });
  const events: string[] = [];
  let runId = "";
  const running = runner.run(loopRequest("hold then note"), {
    caller: ALICE,
    onEvent: (event) => {
      events.push(event.type);
      if (event.type === "run") runId = event.runId;
    },
  });
  await holdStarted();
  const view = await runner.cancel(runId, { caller: ALICE });
  assert.equal(view.runId, runId);
  const done = await running;
  assert.equal(done.data.stopReason, "cancelled");
  assert.deepEqual(calls, ["hold:started", "hold:aborted"], "note never ran");
  const stored = await runStore.get(ALICE, runId);
  assert.equal(stored?.status, "cancelled");
  await assert.rejects(runner.resume(runId, { caller: ALICE }), /cannot be resumed/);
});

Deno.test("cancel during the step after an approval: the run ends cancelled, not waiting again", async () => {
  const calls: string[] = [];
  const { list, holdStarted } = tools(calls);
  const { runner, runStore } = runsLoop({
    planner: new ScriptedPlanner([
      { tool: "confirm", args: {} },
      { tool: "hold", args: { after: { $ref: "/steps/0/output" } } },
      { tool: "finalize_summary", args: {} },
    ]),
    tools: list,
  });
  const paused = await runner.run(loopRequest("confirm, hold, then sum up"), { caller: ALICE });
  assert.equal(paused.data.stopReason, "approval_required");
  const runId = paused.data.runId!;
  const [pending] = paused.data.pendingApprovals!;
  const resumed = runner.resume(runId, {
    caller: ALICE,
    approvals: [{ id: pending.id, approved: true }],
  });
  await holdStarted();
  await runner.cancel(runId, { caller: ALICE });
  const done = await resumed;
  assert.equal(done.data.stopReason, "cancelled");
  assert.deepEqual(calls, ["confirm", "hold:started", "hold:aborted"]);
  assert.ok(
    done.data.intermediateResults.every((result) => result.code !== "APPROVAL_PENDING"),
    "no step is left waiting for a person",
  );
  assert.equal((await runStore.get(ALICE, runId))?.status, "cancelled");
});

Deno.test("cancel while a run waits for approval: cancelled at once, and the call never runs", async () => {
  const calls: string[] = [];
  const { list } = tools(calls);
  const { runner, runStore } = runsLoop({
    planner: new ScriptedPlanner([{ tool: "confirm", args: {} }, { tool: "note", args: {} }]),
    tools: list,
  });
  const paused = await runner.run(loopRequest("confirm, then note"), { caller: ALICE });
  const runId = paused.data.runId!;
  assert.deepEqual(calls, ["note"], "the step that needs no approval ran");
  const view = await runner.cancel(runId, { caller: ALICE });
  assert.equal(view.status, "cancelled");
  const [pending] = paused.data.pendingApprovals!;
  await assert.rejects(
    runner.resume(runId, { caller: ALICE, approvals: [{ id: pending.id, approved: true }] }),
    /cancelled, not waiting for approval/,
  );
  assert.deepEqual(calls, ["note"], "confirm never ran");
  assert.equal((await runStore.get(ALICE, runId))?.status, "cancelled");
});

Deno.test("cancel a run paused at its deadline: cancelled, and its remaining steps never run", () =>
  withFakeDeadlines(async (clock) => {
    const calls: string[] = [];
    const { list, holdStarted } = tools(calls);
    const { runner, runStore } = runsLoop({
      planner: new ScriptedPlanner([{ tool: "hold", args: {} }, { tool: "note", args: {} }]),
      tools: list,
      deadlineMs: 50,
    });
    // `hold` only ends when the deadline aborts it: the run pauses with `note` not reached.
    const pausing = runner.run(loopRequest("hold then note"), { caller: ALICE });
    await holdStarted();
    await clock.advance(50);
    const paused = await pausing;
    assert.equal(paused.data.stopReason, "deadline");
    const runId = paused.data.runId!;
    assert.equal((await runStore.get(ALICE, runId))?.status, "paused");
    const view = await runner.cancel(runId, { caller: ALICE });
    assert.equal(view.status, "cancelled");
    await assert.rejects(runner.resume(runId, { caller: ALICE }), /it is cancelled/);
    assert.deepEqual(calls, ["hold:started", "hold:aborted"], "note never ran");
  }));

Deno.test("a final status is final: cancelling a finished run changes nothing", async () => {
  const calls: string[] = [];
  const { list } = tools(calls);
  const { runner, runStore } = runsLoop({
    planner: new ScriptedPlanner([{ tool: "note", args: {} }, {
      tool: "finalize_summary",
      args: {},
    }]),
    tools: list,
  });
  const done = await runner.run(loopRequest("note it"), { caller: ALICE });
  const runId = done.data.runId!;
  const before = await runStore.get(ALICE, runId);
  const view = await runner.cancel(runId, { caller: ALICE });
  assert.equal(view.status, "completed");
  const after = await runStore.get(ALICE, runId);
  assert.equal(after?.status, "completed");
  assert.equal(after?.cancelRequested, false);
  assert.equal(after?.version, before?.version);
});
