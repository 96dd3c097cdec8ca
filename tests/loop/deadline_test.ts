/** Deadlines share one timer: each still fires on time, and once all are cleared it holds nothing. */
import assert from "node:assert/strict";
import { deadlineState, startDeadline, TimeoutReason } from "../../shared/abort.ts";
import { withFakeDeadlines } from "../support/fake_clock.ts";
import { evalOutput } from "../support/process.ts";

Deno.test("deadlines fire in time order, an earlier one started later included, with their reasons", () =>
  withFakeDeadlines(async (clock) => {
    const fired: string[] = [];
    const late = startDeadline(80);
    const early = startDeadline(20, { kind: "step_timeout" });
    const cleared = startDeadline(40);
    cleared.clear();
    late.signal.addEventListener("abort", () => fired.push(`late at ${clock.now()}`));
    early.signal.addEventListener("abort", () => fired.push(`early at ${clock.now()}`));
    await clock.advance(19);
    assert.deepEqual(fired, []);
    await clock.advance(61);
    assert.deepEqual(fired, ["early at 20", "late at 80"]);
    assert.equal(cleared.signal.aborted, false);
    assert.ok(early.signal.reason instanceof TimeoutReason);
    assert.equal((early.signal.reason as TimeoutReason).kind, "step_timeout");
    assert.equal((late.signal.reason as TimeoutReason).kind, "deadline");
    late.clear();
    early.clear();
    // Every deadline is settled: the clock holds no timer.
    assert.equal(clock.timers, 0);
  }));

Deno.test("a parent's abort passes down, and clearing every deadline leaves the timer holding nothing", () => {
  const parent = new AbortController();
  const child = startDeadline(60_000, { parents: [parent.signal] });
  const other = startDeadline(30_000);
  parent.abort(new Error("client went away"));
  assert.equal((child.signal.reason as Error).message, "client went away");
  child.clear();
  assert.deepEqual(deadlineState(), { pending: 1, armed: true, holding: true });
  other.clear();
  // The timer stays armed for the next deadline but no longer holds the process
  // (the test's own sanitizer would fail on a timer that did).
  assert.deepEqual(deadlineState(), { pending: 0, armed: true, holding: false });
  const next = startDeadline(45_000);
  assert.deepEqual(deadlineState(), { pending: 1, armed: true, holding: true });
  next.clear();
  assert.equal(deadlineState().holding, false);
});

/** Runs a script importing abort.ts (after `setup`) and returns its output. */
async function runScript(body: string, setup = ""): Promise<string> {
  const url = new URL("../../shared/abort.ts", import.meta.url).href;
  return await evalOutput(
    `${setup}\nconst { startDeadline, deadlineState } = await import("${url}");\n${body}`,
  );
}

Deno.test("a pending deadline keeps the process alive until it fires; a cleared one does not", async () => {
  const pending = await runScript(
    `const d = startDeadline(150); d.signal.addEventListener("abort", () => console.log("fired"));`,
  );
  assert.equal(pending, "fired");
  const cleared = await runScript(
    `const d = startDeadline(60_000); d.signal.addEventListener("abort", () => console.log("fired")); d.clear(); console.log("cleared");`,
  );
  assert.equal(cleared, "cleared");
});

Deno.test("where timers cannot be unref'd, the last cleared deadline clears the timer", async () => {
  const output = await runScript(
    `const a = startDeadline(60_000); a.clear();
     const before = JSON.stringify(deadlineState());
     const b = startDeadline(100); b.signal.addEventListener("abort", () => console.log(before, "fired"));`,
    "Deno.refTimer = undefined; Deno.unrefTimer = undefined;",
  );
  assert.equal(output, '{"pending":0,"armed":false,"holding":false} fired');
});
