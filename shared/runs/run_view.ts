/** What `GET /mcp-loop/runs/{runId}` shows of a run. */
import type { ActionResult, PlanEntry, Usage } from "../contracts.ts";
import type { PendingApproval, RunStatus } from "./run_contract.ts";
import type { RunRecord } from "./run_store.ts";

/** A run as its caller sees it. */
export interface RunView {
  runId: string;
  sessionId: string;
  status: RunStatus;
  stopReason?: string;
  /** The calls still waiting for a decision. */
  pendingApprovals: PendingApproval[];
  rounds: number;
  plan: PlanEntry[];
  intermediateResults: ActionResult[];
  summaryMessage?: string;
  usage: Usage;
  /** The refinement loop the run opened or continued, if it is a refinement run (kept if it is cancelled). */
  refinementLoopId?: string;
  /** The number of its last event (`GET …/events` with `Last-Event-ID` goes on from there). */
  lastEventId: number;
  error?: { code: string; message: string };
  createdAt: string;
  updatedAt: string;
}

/** The view of a stored run. */
export function toRunView(record: RunRecord): RunView {
  const { checkpoint } = record;
  const results = checkpoint.results.filter((result): result is ActionResult => Boolean(result));
  const summary = results.findLast((r) => r.tool === "finalize_summary" && r.success)?.output;
  return {
    runId: record.id,
    sessionId: record.sessionId,
    status: record.status,
    ...(record.stopReason ? { stopReason: record.stopReason } : {}),
    pendingApprovals: record.status === "waiting_approval"
      ? checkpoint.pendingApprovals.filter((pending) => !checkpoint.decisions[pending.id])
      : [],
    rounds: checkpoint.roundsDone,
    plan: checkpoint.plan,
    intermediateResults: results,
    ...(typeof summary === "string" ? { summaryMessage: summary } : {}),
    usage: checkpoint.usage,
    ...(checkpoint.loopId ? { refinementLoopId: checkpoint.loopId } : {}),
    lastEventId: record.eventSeq,
    ...(record.error ? { error: record.error } : {}),
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}
