/**
 * The checkpoint is a versioned schema: a fixture of every released version
 * (tests/runs/fixtures/, each written by its release's own code) still
 * decodes to the current version, an unknown version is refused, and a run
 * an earlier release left waiting for approval goes on under this one.
 */
import assert from "node:assert/strict";
import { Checkpoint, decodeCheckpoint } from "../../shared/runs/checkpoint.ts";
import { ScriptedPlanner } from "../fakes/scripted_planner.ts";
import { loopRequest } from "../support/loop_fixture.ts";
import { ALICE, countedTools, runsLoop } from "../support/runs_fixture.ts";

/** Every released checkpoint version, by the release that wrote it. */
const RELEASED = { 1: "turn 3", 2: "turn 4" } as const;

function fixture(version: number): unknown {
  return JSON.parse(
    Deno.readTextFileSync(new URL(`./fixtures/checkpoint_v${version}.json`, import.meta.url)),
  );
}

Deno.test("every released checkpoint version decodes to the current one", () => {
  for (const version of Object.keys(RELEASED).map(Number)) {
    const decoded = decodeCheckpoint(`run-v${version}`, fixture(version));
    assert.equal(decoded.v, 2, `v${version}`);
    assert.ok(Checkpoint.safeParse(decoded).success, `v${version} decodes to a valid current one`);
    // Both fixtures: a run that paid (approved) and waits for a person about the delete.
    assert.deepEqual(
      decoded.pendingApprovals.map((p) => p.tool),
      ["delete_invoice"],
      `v${version}`,
    );
    assert.deepEqual(decoded.results.map((r) => r?.tool), [
      "find_invoice",
      "pay",
      "delete_invoice",
      "finalize_summary",
    ]);
  }
});

Deno.test("a checkpoint of an unknown version, or not one at all, is RUN_STATE", () => {
  for (const value of [{ ...(fixture(2) as object), v: 3 }, { v: 2 }, null, "checkpoint"]) {
    assert.throws(
      () => decodeCheckpoint("run-x", value),
      (error: { code?: string }) => error.code === "RUN_STATE",
    );
  }
});

Deno.test("a run the earlier release left waiting for approval is approved and finished under this one", async () => {
  const calls: string[] = [];
  const v1 = fixture(1) as { pendingApprovals: { id: string; expiresAt: string }[] };
  const [deleteApproval] = v1.pendingApprovals.slice(-1);
  const { runner, runStore } = runsLoop({
    planner: new ScriptedPlanner([
      { tool: "find_invoice", args: { number: "7" } },
      { tool: "pay", args: { amount: 500 } },
      { tool: "delete_invoice", args: { id: { $ref: "/steps/0/output/id" } } },
      { tool: "finalize_summary", args: {} },
    ]),
    tools: countedTools(calls),
    // The fixture's approvals lapse a day after it was written: the clock stands before that.
    now: () => Date.parse(deleteApproval.expiresAt) - 60_000,
  });
  // A run of this release, then its checkpoint as the earlier release wrote it.
  const paused = await runner.run(loopRequest("find invoice 7, pay 500 and delete it"), {
    caller: ALICE,
  });
  const stored = runStore.runs.get(paused.data.runId!)!;
  stored.record = { ...stored.record, checkpoint: v1 as never };
  calls.length = 0;
  const done = await runner.resume(paused.data.runId!, {
    caller: ALICE,
    approvals: [{ id: deleteApproval.id, approved: true }],
  });
  assert.equal(done.data.stopReason, "finalized");
  assert.deepEqual(calls, ["delete:inv-7"], "only the waiting call ran, once");
  assert.equal((await runStore.get(ALICE, paused.data.runId!))?.status, "completed");
});
