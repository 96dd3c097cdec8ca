/**
 * Runs that stop and go on: one near its deadline pauses at a step boundary
 * with its state saved and a resume finishes it; a write the process was
 * running when it stopped is never run again; cancelling stops a waiting run
 * at once and a running one at its next step boundary.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { defineTool } from "../../shared/tools/tool.ts";
import { ScriptedPlanner } from "../fakes/scripted_planner.ts";
import { loopRequest } from "../support/loop_fixture.ts";
import { ALICE, countedTools, runsLoop } from "../support/runs_fixture.ts";

/** A read-only tool that takes `ms` (and honours its signal). */
function slowRead(calls: string[], ms: number) {
  return defineTool({
    name: "slow_read",
    description: "A read that takes a while",
    argsSchema: z.object({ n: z.int() }),
    annotations: { readOnlyHint: true },
    run: ({ args, signal }) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          calls.push(`read:${args.n}`);
          resolve({ n: args.n });
        }, ms);
        signal.addEventListener("abort", () => {
          clearTimeout(timer);
          reject(signal.reason);
        }, { once: true });
      }),
  });
}

Deno.test("a run near its deadline pauses with its state saved, and a resume finishes the round", async () => {
  const calls: string[] = [];
  const { runner, runStore, store } = runsLoop({
    planner: new ScriptedPlanner([
      { tool: "slow_read", args: { n: 1 } },
      { tool: "finalize_summary", args: {} },
    ]),
    tools: [slowRead(calls, 400)],
    deadlineMs: 200,
  });
  const paused = await runner.run(loopRequest("read slowly"), { caller: ALICE });
  assert.equal(paused.data.stopReason, "deadline");
  const stored = await runStore.get(ALICE, paused.data.runId!);
  assert.equal(stored?.status, "paused");
  assert.ok(stored?.checkpoint.open, "the round stays open");
  assert.equal(store.rows.length, 0, "no turn yet");

  // The resume gets a deadline of its own.
  const done = await runner.resume(paused.data.runId!, { caller: ALICE });
  // The step the deadline cut off failed; the summary, never started, runs now.
  assert.deepEqual(
    done.data.intermediateResults.map((r) => [r.tool, r.code ?? "ok"]),
    [["slow_read", "DEADLINE_EXCEEDED"], ["finalize_summary", "ok"]],
  );
  assert.equal(done.data.stopReason, "finalized");
  assert.equal((await runStore.get(ALICE, paused.data.runId!))?.status, "completed");
  assert.equal(store.rows.length, 2);
});

Deno.test("a write the process was running when it stopped is recorded as interrupted and never run again", async () => {
  const calls: string[] = [];
  const { runner, runStore } = runsLoop({
    planner: new ScriptedPlanner([
      { tool: "pay", args: { amount: 10 } },
      { tool: "finalize_summary", args: {} },
    ]),
    tools: countedTools(calls),
  });
  // The process "dies" inside the write: the checkpoint says it started, no result exists.
  const paused = await runner.run(loopRequest("pay 10"), { caller: ALICE });
  const runId = paused.data.runId!;
  const record = (await runStore.get(ALICE, runId))!;
  const stored = runStore.runs.get(runId)!;
  stored.record = {
    ...record,
    status: "running",
    leaseUntil: new Date(Date.now() - 1).toISOString(),
    checkpoint: {
      ...record.checkpoint,
      roundsDone: 0,
      results: [],
      plan: record.checkpoint.plan,
      open: {
        round: 1,
        steps: [{ tool: "pay", args: { amount: 10 } }, { tool: "finalize_summary", args: {} }],
        offset: 0,
        repaired: false,
      },
      inFlight: [0],
    },
  };
  calls.length = 0;
  const done = await runner.resume(runId, { caller: ALICE });
  assert.deepEqual(calls, [], "the write is not run again");
  assert.deepEqual(done.data.intermediateResults.map((r) => r.code ?? "ok"), [
    "INTERRUPTED",
    "ok",
  ]);
});

Deno.test("a resume of a run that is still running (its hold not lapsed) is 409", async () => {
  const { runner, runStore } = runsLoop({
    planner: new ScriptedPlanner([{ tool: "finalize_summary", args: {} }]),
    tools: [],
  });
  const done = await runner.run(loopRequest("hi"), { caller: ALICE });
  await assert.rejects(
    runner.resume(done.data.runId!, { caller: ALICE }),
    (error) => (error as { code?: string }).code === "RUN_STATE",
  );
  assert.equal((await runStore.get(ALICE, done.data.runId!))?.status, "completed");
});

Deno.test("cancelling a waiting run makes it cancelled at once; cancelling a running one stops it at the next step", async () => {
  const calls: string[] = [];
  const waiting = runsLoop({
    planner: new ScriptedPlanner([{ tool: "delete_invoice", args: { id: "x" } }]),
    tools: countedTools(calls),
  });
  const paused = await waiting.runner.run(loopRequest("delete x"), { caller: ALICE });
  const cancelled = await waiting.runner.cancel(paused.data.runId!, { caller: ALICE });
  assert.equal(cancelled.status, "cancelled");
  assert.equal((await waiting.runStore.get(ALICE, paused.data.runId!))?.status, "cancelled");
  await assert.rejects(
    waiting.runner.resume(paused.data.runId!, {
      caller: ALICE,
      approvals: [{ id: paused.data.pendingApprovals![0].id, approved: true }],
    }),
    (error) => (error as { code?: string }).code === "RUN_STATE",
  );
  assert.deepEqual(calls, []);

  const reads: string[] = [];
  const running = runsLoop({
    planner: new ScriptedPlanner([
      { tool: "slow_read", args: { n: 1 } },
      { tool: "slow_read", args: { n: 2 } },
      { tool: "finalize_summary", args: {} },
    ]),
    tools: [slowRead(reads, 300)],
  });
  let runId = "";
  const run = running.runner.run(loopRequest("read twice"), {
    caller: ALICE,
    onEvent: (event) => {
      if (event.type === "run") runId = event.runId;
      if (event.type === "step_start") {
        queueMicrotask(() => running.runner.cancel(runId, { caller: ALICE }));
      }
    },
  });
  const outcome = await run;
  assert.equal(outcome.data.stopReason, "cancelled");
  assert.deepEqual(reads, [], "the in-flight reads got the abort; nothing after them ran");
  assert.deepEqual(outcome.data.intermediateResults.map((r) => r.code), ["CANCELLED", "CANCELLED"]);
  assert.equal((await running.runStore.get(ALICE, runId))?.status, "cancelled");
  assert.equal(running.store.rows.length, 0, "a cancelled run stores no turn");
  // The two reads ran side by side (read-only, independent); both got the abort, both are on record.
  assert.deepEqual(
    running.audit.rows.map((row) => row.tool),
    ["slow_read", "slow_read"],
    "what ran is audited",
  );
});

Deno.test("a run is saved before a write and after a round that wrote; reads alone save only the final state", async () => {
  const saves = async (plan: { tool: string; args: Record<string, unknown> }[]) => {
    const { runner, runStore } = runsLoop({
      planner: new ScriptedPlanner(plan),
      tools: countedTools([]),
      approval: "none",
    });
    const done = await runner.run(loopRequest("invoices"), { caller: ALICE });
    assert.equal(done.data.stopReason, "finalized");
    const stored = await runStore.get(ALICE, done.data.runId!);
    assert.equal(stored?.status, "completed");
    return stored!.version - 1; // each save adds one to the version the run was created with
  };
  const finalize = { tool: "finalize_summary", args: {} };
  // Reads: the final state only. A crash before it re-runs reads only.
  assert.equal(await saves([{ tool: "find_invoice", args: { number: "7" } }, finalize]), 1);
  // A write: its write-ahead record (with the plan), the round with its result, the final state.
  assert.equal(await saves([{ tool: "pay", args: { amount: 5 } }, finalize]), 3);
});
