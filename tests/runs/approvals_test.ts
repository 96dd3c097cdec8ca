/**
 * Approvals at the runner: a call the policy names waits for a person; the
 * calls that do not need it run; an approved call runs once, a denied one
 * fails with APPROVAL_DENIED for the planner to see; lapsed approvals are 410,
 * a second answer 409, another caller's run 404.
 */
import assert from "node:assert/strict";
import type { PlanInput } from "../../shared/ports.ts";
import { ScriptedPlanner } from "../fakes/scripted_planner.ts";
import { loopRequest } from "../support/loop_fixture.ts";
import { ALICE, BOB, countedTools, runsLoop } from "../support/runs_fixture.ts";

const FIND_THEN_DELETE = [
  { tool: "find_invoice", args: { number: "42" } },
  { tool: "delete_invoice", args: { id: { $ref: "/steps/0/output/id" } } },
  { tool: "find_invoice", args: { number: "43" } },
  { tool: "finalize_summary", args: {} },
];

function codeOf(error: unknown): string | undefined {
  return (error as { code?: string }).code;
}

Deno.test("a destructive call waits for approval: the others run, the reply waits, the run says what it waits for", async () => {
  const calls: string[] = [];
  const { runner, runStore, store } = runsLoop({
    planner: new ScriptedPlanner(FIND_THEN_DELETE),
    tools: countedTools(calls),
  });
  const events: string[] = [];
  const paused = await runner.run(loopRequest("delete invoice 42"), {
    caller: ALICE,
    onEvent: (event) => events.push(event.type),
  });
  const data = paused.data;
  assert.equal(data.stopReason, "approval_required");
  assert.ok(data.runId);
  assert.deepEqual(calls, ["find:42", "find:43"], "the step that does not need it ran");
  assert.equal(data.pendingApprovals?.length, 1);
  const [pending] = data.pendingApprovals!;
  assert.deepEqual(
    [pending.tool, pending.args, pending.round, pending.step],
    ["delete_invoice", { id: "inv-42" }, 1, 1],
    "args resolved",
  );
  assert.deepEqual(
    data.intermediateResults.map((r) => r.code ?? "ok"),
    ["ok", "APPROVAL_PENDING", "ok", "APPROVAL_PENDING"],
  );
  assert.equal(data.summaryMessage, undefined);
  assert.equal(events.at(-1), "approval_required");
  assert.equal(store.rows.length, 0, "no turn is stored while the run waits");
  assert.equal((await runStore.get(ALICE, data.runId!))?.status, "waiting_approval");

  const done = await runner.resume(data.runId!, {
    caller: ALICE,
    approvals: [{ id: pending.id, approved: true }],
  });
  assert.equal(done.data.stopReason, "finalized");
  assert.equal(done.data.runId, data.runId);
  assert.deepEqual(calls, ["find:42", "find:43", "delete:inv-42"]);
  assert.deepEqual(done.data.intermediateResults.map((r) => [r.tool, r.success]), [
    ["find_invoice", true],
    ["delete_invoice", true],
    ["find_invoice", true],
    ["finalize_summary", true],
  ]);
  assert.equal(store.rows.length, 2, "the turn is stored once the run finishes");
  assert.equal((await runStore.get(ALICE, data.runId!))?.status, "completed");

  // The same approval again: the run has moved on.
  await assert.rejects(
    runner.resume(data.runId!, { caller: ALICE, approvals: [{ id: pending.id, approved: true }] }),
    (error) => codeOf(error) === "RUN_STATE",
  );
  assert.equal(calls.filter((c) => c.startsWith("delete")).length, 1, "approved once, run once");
});

Deno.test("two approvals racing: one wins, the other is 409, and the call runs once", async () => {
  const calls: string[] = [];
  const { runner } = runsLoop({
    planner: new ScriptedPlanner([{ tool: "delete_invoice", args: { id: "inv-1" } }]),
    tools: countedTools(calls),
  });
  const paused = await runner.run(loopRequest("delete inv-1"), { caller: ALICE });
  const [pending] = paused.data.pendingApprovals!;
  const approve = () =>
    runner.resume(paused.data.runId!, {
      caller: ALICE,
      approvals: [{ id: pending.id, approved: true }],
    });
  const outcomes = await Promise.allSettled([approve(), approve()]);
  assert.deepEqual(outcomes.map((o) => o.status).sort(), ["fulfilled", "rejected"]);
  const lost = outcomes.find((o) => o.status === "rejected") as PromiseRejectedResult;
  assert.equal(codeOf(lost.reason), "RUN_STATE");
  assert.deepEqual(calls, ["delete:inv-1"]);
});

Deno.test("a denied call fails with APPROVAL_DENIED and its reason, which the planner sees next round", async () => {
  const calls: string[] = [];
  const seen: PlanInput[] = [];
  const planner = new ScriptedPlanner((input: PlanInput) => {
    seen.push(input);
    return input.round === 1
      ? [{ tool: "pay", args: { amount: 500 } }]
      : [{ tool: "finalize_summary", args: {} }];
  });
  const { runner } = runsLoop({ planner, tools: countedTools(calls) });
  const paused = await runner.run(loopRequest("pay 500"), { caller: ALICE });
  assert.equal(paused.data.stopReason, "approval_required");
  const [pending] = paused.data.pendingApprovals!;
  const done = await runner.resume(paused.data.runId!, {
    caller: ALICE,
    approvals: [{ id: pending.id, approved: false, reason: "too much this month" }],
  });
  assert.deepEqual(calls, []);
  const [denied] = done.data.intermediateResults;
  assert.deepEqual([denied.code, denied.success], ["APPROVAL_DENIED", false]);
  assert.match(denied.error ?? "", /too much this month/);
  const round2 = seen.find((input) => input.round === 2);
  assert.equal(round2?.results?.[0]?.code, "APPROVAL_DENIED");
  assert.equal(done.data.stopReason, "finalized");
});

Deno.test("needsApproval can look at the args: a small payment runs at once", async () => {
  const calls: string[] = [];
  const { runner } = runsLoop({
    planner: new ScriptedPlanner([{ tool: "pay", args: { amount: 20 } }]),
    tools: countedTools(calls),
  });
  const done = await runner.run(loopRequest("pay 20"), { caller: ALICE });
  assert.notEqual(done.data.stopReason, "approval_required");
  assert.deepEqual(calls, ["pay:20"]);
});

Deno.test("MCP_LOOP_APPROVAL: none asks for nothing; writes asks for every tool not marked read-only", async () => {
  const plan = [{ tool: "pay", args: { amount: 5 } }, {
    tool: "find_invoice",
    args: { number: "1" },
  }];
  const none = runsLoop({
    planner: new ScriptedPlanner(plan),
    tools: countedTools([]),
    approval: "none",
  });
  assert.notEqual(
    (await none.runner.run(loopRequest("x"), { caller: ALICE })).data.stopReason,
    "approval_required",
  );
  const writes = runsLoop({
    planner: new ScriptedPlanner(plan),
    tools: countedTools([]),
    approval: "writes",
  });
  const paused = await writes.runner.run(loopRequest("x"), { caller: ALICE });
  assert.deepEqual(paused.data.pendingApprovals?.map((p) => p.tool), ["pay"]);
});

Deno.test("another caller's run is not found, and a lapsed approval is 410", async () => {
  const { runner } = runsLoop({
    planner: new ScriptedPlanner([{ tool: "delete_invoice", args: { id: "x" } }]),
    tools: countedTools([]),
    ttlMs: 1,
  });
  const paused = await runner.run(loopRequest("delete x"), { caller: ALICE });
  const [pending] = paused.data.pendingApprovals!;
  const approvals = [{ id: pending.id, approved: true }];
  await assert.rejects(
    runner.resume(paused.data.runId!, { caller: BOB, approvals }),
    (error) => codeOf(error) === "RUN_NOT_FOUND",
  );
  await assert.rejects(
    runner.cancel(paused.data.runId!, { caller: BOB }),
    (error) => codeOf(error) === "RUN_NOT_FOUND",
  );
  await new Promise((resolve) => setTimeout(resolve, 5));
  await assert.rejects(
    runner.resume(paused.data.runId!, { caller: ALICE, approvals }),
    (error) => codeOf(error) === "APPROVAL_EXPIRED",
  );
  await assert.rejects(
    runner.resume(paused.data.runId!, {
      caller: ALICE,
      approvals: [{ id: "not-a-pending-id", approved: true }],
    }),
    (error) => codeOf(error) === "VALIDATION_FAILED",
  );
});

Deno.test("the built-in refinement tools run as before under the default policy", async () => {
  const { runner } = runsLoop({
    planner: new ScriptedPlanner([{ tool: "finalize_summary", args: {} }]),
    tools: countedTools([]),
  });
  const done = await runner.run(loopRequest("hi"), { caller: ALICE });
  assert.equal(done.data.stopReason, "finalized");
  assert.equal(done.data.pendingApprovals, undefined);
});
