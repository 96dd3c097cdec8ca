/**
 * A run's statuses and the transitions between them, in one table checked in
 * one function, and the status each way of stopping leaves a run in. A final
 * status is final: no later write changes it (every store write names the
 * statuses it expects).
 */
import type { RunStatus, StopReason } from "../contracts.ts";
import { AppError } from "../errors.ts";

/** Which status may follow which. A final status has none. */
export const RUN_TRANSITIONS: Readonly<Record<RunStatus, readonly RunStatus[]>> = {
  running: ["running", "waiting_approval", "paused", "completed", "failed", "cancelled"],
  waiting_approval: ["running", "cancelled", "failed"],
  paused: ["running", "cancelled", "failed"],
  completed: [],
  failed: [],
  cancelled: [],
};

/** The statuses a run can still leave. */
export const OPEN_STATUSES: readonly RunStatus[] = ["running", "waiting_approval", "paused"];

/** Throws RUN_STATE (409) when `to` may not follow `from`. */
export function assertTransition(runId: string, from: RunStatus, to: RunStatus): void {
  if (RUN_TRANSITIONS[from].includes(to)) return;
  throw new AppError(
    "RUN_STATE",
    RUN_TRANSITIONS[from].length === 0
      ? `Run "${runId}" is ${from}; it cannot change any more`
      : `Run "${runId}" is ${from}, so it cannot become ${to}`,
    { details: { runId, status: from } },
  );
}

/** Is a run in this status over for good? */
export function isFinal(status: RunStatus): boolean {
  return RUN_TRANSITIONS[status].length === 0;
}

/** The status a run stopped for `reason` is left in. */
export function statusAfter(reason: StopReason): RunStatus {
  switch (reason) {
    case "approval_required":
      return "waiting_approval";
    case "deadline":
      return "paused";
    case "cancelled":
      return "cancelled";
    default:
      return "completed";
  }
}
