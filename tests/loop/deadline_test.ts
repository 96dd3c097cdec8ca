/** Deadlines share one timer: each still fires on time, and none is left once all are cleared. */
import assert from "node:assert/strict";
import { deadlineState, startDeadline, TimeoutReason } from "../../shared/loop/abort.ts";

const firedAt = (signal: AbortSignal, started: number) =>
  new Promise<number>((resolve) =>
    signal.addEventListener("abort", () => resolve(performance.now() - started), { once: true })
  );

Deno.test("deadlines fire in time order, an earlier one started later included, with their reasons", async () => {
  const started = performance.now();
  const late = startDeadline(80);
  const early = startDeadline(20, { kind: "step_timeout" });
  const cleared = startDeadline(40);
  cleared.clear();
  const [lateMs, earlyMs] = await Promise.all([
    firedAt(late.signal, started),
    firedAt(early.signal, started),
  ]);
  assert.ok(earlyMs >= 19 && earlyMs < lateMs, `early ${earlyMs} ms, late ${lateMs} ms`);
  assert.ok(lateMs >= 79, `late ${lateMs} ms`);
  assert.equal(cleared.signal.aborted, false);
  assert.ok(early.signal.reason instanceof TimeoutReason);
  assert.equal((early.signal.reason as TimeoutReason).kind, "step_timeout");
  assert.equal((late.signal.reason as TimeoutReason).kind, "deadline");
  late.clear();
  early.clear();
});

Deno.test("a parent's abort passes down, and clearing every deadline leaves no timer running", () => {
  const parent = new AbortController();
  const child = startDeadline(60_000, { parents: [parent.signal] });
  const other = startDeadline(30_000);
  parent.abort(new Error("client went away"));
  assert.equal((child.signal.reason as Error).message, "client went away");
  child.clear();
  assert.deepEqual(deadlineState(), { pending: 1, armed: true });
  other.clear();
  assert.deepEqual(deadlineState(), { pending: 0, armed: false });
});
