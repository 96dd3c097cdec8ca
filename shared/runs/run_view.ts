/**
 * What a stored run shows: the view `GET /mcp-loop/runs/{runId}` answers, and
 * its response rebuilt from the run itself — a run's `result` event is stored
 * as a reference ({@link storedResult}), not a second copy of what the run's
 * row already holds.
 */
import type { ActionResult, MCPResponse, RunView } from "../contracts.ts";
import { contextOf, entries } from "../loop/turn_state.ts";
import { FINALIZE_TOOL } from "../tools/finalize_summary.ts";
import type { RunRecord } from "./run_store.ts";

/** The view of a stored run. */
export function toRunView(record: RunRecord): RunView {
  const { checkpoint } = record;
  const results = checkpoint.results.filter((result): result is ActionResult => Boolean(result));
  const summary = summaryIn(results);
  return {
    runId: record.id,
    sessionId: record.sessionId,
    status: record.status,
    ...(record.stopReason ? { stopReason: record.stopReason } : {}),
    pendingApprovals: record.status === "waiting_approval" ? checkpoint.pendingApprovals : [],
    rounds: checkpoint.roundsDone,
    plan: checkpoint.plan,
    intermediateResults: results,
    ...(summary !== undefined ? { summaryMessage: summary } : {}),
    usage: checkpoint.usage,
    ...(checkpoint.loopId ? { refinementLoopId: checkpoint.loopId } : {}),
    lastEventId: record.eventSeq,
    ...(record.error ? { error: record.error } : {}),
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

/**
 * What a run's `result` event keeps in the log: where the run stood then (how
 * far its plan and steps had come) and what its row does not hold; the
 * plan, the steps' entries and the context are the row's.
 */
export interface StoredResult {
  /** Marks the event: its response is rebuilt from the run by {@link responseOf}. */
  fromRun: true;
  stopReason?: MCPResponse["data"]["stopReason"];
  rounds?: number;
  /** How many plan entries and step positions the run had when it answered. */
  planned: number;
  positions: number;
  summaryMessage?: string;
  refinement?: MCPResponse["data"]["refinement"];
  pendingApprovals?: MCPResponse["data"]["pendingApprovals"];
}

/** The stored form of a run's `result` event. */
export function storedResult(response: MCPResponse, positions: number): StoredResult {
  const { stopReason, rounds, summaryMessage, refinement, pendingApprovals, plan } = response.data;
  return {
    fromRun: true,
    ...(stopReason ? { stopReason } : {}),
    ...(rounds !== undefined ? { rounds } : {}),
    planned: plan.length,
    positions,
    ...(summaryMessage !== undefined ? { summaryMessage } : {}),
    ...(refinement ? { refinement } : {}),
    ...(pendingApprovals ? { pendingApprovals } : {}),
  };
}

/** Whether an event's stored data is a {@link StoredResult}. */
export function isStoredResult(data: unknown): data is StoredResult {
  return typeof data === "object" && data !== null && (data as StoredResult).fromRun === true;
}

/** The response a run answered with, rebuilt from its row and its stored `result` event. */
export function responseOf(record: RunRecord, stored: StoredResult): MCPResponse {
  const { checkpoint, base } = record;
  const positions = checkpoint.results.slice(0, stored.positions).map((result) =>
    result ?? undefined
  );
  const results = entries({ results: positions });
  return {
    success: true,
    data: {
      context: base ? contextOf(base, positions) : {},
      intermediateResults: results,
      plan: checkpoint.plan.slice(0, stored.planned),
      semanticMatches: (base?.context.semanticMatches ?? []) as unknown[],
      ...(stored.summaryMessage !== undefined ? { summaryMessage: stored.summaryMessage } : {}),
      ...(stored.rounds !== undefined ? { rounds: stored.rounds } : {}),
      ...(stored.stopReason ? { stopReason: stored.stopReason } : {}),
      usage: checkpoint.usage,
      ...(stored.refinement ? { refinement: stored.refinement } : {}),
      runId: record.id,
      ...(stored.pendingApprovals ? { pendingApprovals: stored.pendingApprovals } : {}),
    },
  };
}

/** The output of the last successful `finalize_summary` step, if it is text. */
function summaryIn(results: readonly ActionResult[]): string | undefined {
  const summary = results.findLast((r) => r.tool === FINALIZE_TOOL && r.success)?.output;
  return typeof summary === "string" ? summary : undefined;
}
