/**
 * Ending a run outside a drive. Cancelling: a run this process executes stops
 * at once (its in-flight tool calls get the abort); one executing elsewhere
 * stops at its next checkpoint; one that waits or is paused becomes cancelled
 * now. And a run that failed before it could start.
 */
import type { Caller, Logger } from "../ports.ts";
import { initialCheckpoint } from "../runs/run_state.ts";
import { CancelReason } from "../runs/run_events.ts";
import { RunSession } from "../runs/run_session.ts";
import type { RunRecord } from "../runs/run_store.ts";
import { runNotFound } from "./resume.ts";
import type { RunsDeps } from "./run_part.ts";

/** Stops a run: at once if it waits or is paused, else at its next step boundary. */
export async function cancelRun(
  runs: Pick<RunsDeps, "store" | "hub" | "running">,
  runId: string,
  caller: Caller,
): Promise<RunRecord> {
  const record = await runs.store.requestCancel(caller, runId);
  if (!record) throw runNotFound(runId);
  if (record.status === "running") {
    runs.running.cancel(runId, new CancelReason());
    return record;
  }
  if (record.status !== "waiting_approval" && record.status !== "paused") return record;
  const session = await RunSession.claim({
    store: runs.store,
    hub: runs.hub,
    record,
    caller,
    checkpoint: record.checkpoint,
    leaseMs: 0,
  });
  session.record({ type: "error", data: cancelledBody(runId) });
  await session.save({
    status: "cancelled",
    stopReason: "cancelled",
    checkpoint: record.checkpoint,
  });
  return { ...record, status: "cancelled", stopReason: "cancelled" };
}

/** What a cancelled run's event log ends with. */
function cancelledBody(runId: string) {
  return {
    success: false,
    error: { code: "CANCELLED", message: `Run "${runId}" was cancelled` },
  };
}

/** Records a run that failed before its context was loaded (best effort). */
export async function recordEarlyFailure(
  session: RunSession,
  error: unknown,
  logger: Logger,
): Promise<void> {
  const { code = "INTERNAL", message = "The run failed" } = error as {
    code?: string;
    message?: string;
  };
  try {
    session.record({ type: "error", data: { success: false, error: { code, message } } });
    await session.save({
      status: "failed",
      stopReason: "failed",
      error: { code, message },
      checkpoint: initialCheckpoint({ maxRounds: 1, budgetMs: 0 }),
    });
  } catch {
    logger.warn("could not record the run as failed", { runId: session.id });
  }
}
