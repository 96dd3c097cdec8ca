/**
 * What a resume may do to a stored run, decided before anything runs: the
 * approvals a person sends must name the run's pending calls, not be answered
 * already and not have lapsed; a plain resume needs a run paused at its
 * deadline or one whose process stopped holding it. Then the run's context is
 * rebuilt from what it started with and what its steps returned.
 */
import type { ActionResult } from "../contracts.ts";
import { AppError } from "../errors.ts";
import type { ApprovalDecision } from "../runs/run_contract.ts";
import type { RunCheckpoint } from "../runs/run_state.ts";
import type { RunBase, RunRecord } from "../runs/run_store.ts";

/** Another caller's run, or none: the same answer, so a run's existence is not revealed. */
export function runNotFound(runId: string): AppError {
  return new AppError(
    "RUN_NOT_FOUND",
    `Run "${runId}" does not exist; use the runId a loop response gave you`,
  );
}

/**
 * The checkpoint to resume `record` from, with `approvals` recorded; throws
 * RUN_STATE (409), APPROVAL_EXPIRED (410) or VALIDATION_FAILED (422).
 */
export function checkpointToResume(
  record: RunRecord,
  { approvals, now = Date.now() }: { approvals?: readonly ApprovalDecision[]; now?: number },
): RunCheckpoint {
  const checkpoint = record.checkpoint;
  if (!record.base) throw stateError(record, "it stopped before its context was loaded");
  if (approvals) {
    if (record.status !== "waiting_approval") {
      throw stateError(record, `it is ${record.status}, not waiting for approval`);
    }
    const decisions = { ...checkpoint.decisions };
    for (const approval of approvals) {
      const pending = checkpoint.pendingApprovals.find((p) => p.id === approval.id);
      if (!pending) {
        throw new AppError(
          "VALIDATION_FAILED",
          `Run "${record.id}" has no pending approval "${approval.id}"; use an id from pendingApprovals`,
          { details: { pendingApprovals: checkpoint.pendingApprovals.map((p) => p.id) } },
        );
      }
      if (decisions[approval.id]) {
        throw stateError(record, `approval "${approval.id}" was already answered`);
      }
      if (Date.parse(pending.expiresAt) <= now) {
        throw new AppError(
          "APPROVAL_EXPIRED",
          `Approval "${approval.id}" of run "${record.id}" lapsed at ${pending.expiresAt}; start a new request`,
        );
      }
      decisions[approval.id] = { approved: approval.approved, reason: approval.reason };
    }
    return { ...checkpoint, decisions };
  }
  const lapsed = record.status === "running" &&
    (record.leaseUntil === undefined || Date.parse(record.leaseUntil) <= now);
  if (record.status !== "paused" && !lapsed) {
    throw stateError(
      record,
      record.status === "waiting_approval"
        ? "it waits for approval: send the decisions to /approvals"
        : record.status === "running"
        ? "it is still running"
        : `it is ${record.status}`,
    );
  }
  return checkpoint;
}

function stateError(record: RunRecord, why: string): AppError {
  return new AppError("RUN_STATE", `Run "${record.id}" cannot be resumed: ${why}`, {
    details: { runId: record.id, status: record.status },
  });
}

/**
 * The run's entries as a resume starts: a write that was started and never
 * finished (the process stopped under it) is recorded as interrupted, never
 * run again.
 */
export function resumedResults(checkpoint: RunCheckpoint): ActionResult[] {
  // JSON keeps no holes: a step that never ran comes back as null.
  const results = checkpoint.results.map((result) => result ?? undefined) as ActionResult[];
  for (const position of checkpoint.inFlight) {
    if (results[position] !== undefined) continue;
    const step = checkpoint.open && checkpoint.open.steps[position - checkpoint.open.offset];
    results[position] = {
      tool: step?.tool ?? "unknown",
      input: step?.args ?? {},
      output: null,
      success: false,
      error:
        "interrupted: the server stopped while this call ran; it may or may not have completed, and it is not run again",
      code: "INTERRUPTED",
      durationMs: 0,
      round: checkpoint.open?.round,
    };
  }
  return results;
}

/** The loop context as the run's steps left it: what it started with, then each step's output. */
export function rebuildContext(
  base: RunBase,
  results: readonly (ActionResult | undefined)[],
): Record<string, unknown> {
  const context: Record<string, unknown> = { ...base.context, embeddedMessage: base.embedding };
  for (const result of results) {
    if (result?.success) context[result.tool] = result.output;
  }
  return context;
}
