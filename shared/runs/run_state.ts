/**
 * A run as data: its statuses and the transitions between them (one table,
 * checked in one function), and its checkpoint — a plain, versioned value
 * holding what a resume needs to go on through the same rounds code.
 */
import type { ActionResult, PlanEntry, PlannedAction, StopReason, Usage } from "../contracts.ts";
import { AppError } from "../errors.ts";
import type { RoundFeedback } from "../ports.ts";
import type { PendingApproval, RunStatus } from "./run_contract.ts";

/** Which status may follow which. A final status has none. */
export const RUN_TRANSITIONS: Readonly<Record<RunStatus, readonly RunStatus[]>> = {
  running: ["running", "waiting_approval", "paused", "completed", "failed", "cancelled"],
  waiting_approval: ["running", "cancelled", "failed"],
  paused: ["running", "cancelled", "failed"],
  completed: [],
  failed: [],
  cancelled: [],
};

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

/** A person's answer to a pending call. */
export interface Decision {
  approved: boolean;
  reason?: string;
}

/** The round a run is inside of: its plan, and which of its steps have a result. */
export interface OpenRound {
  round: number;
  /** The round's plan as the planner gave it (checked again on resume). */
  steps: PlannedAction[];
  /** The run position of its first step. */
  offset: number;
  /** Whether the planner's output was repaired (for the plan event). */
  repaired: boolean;
}

/** The checkpoint of a run, version 1. Everything in it is plain JSON. */
export interface RunCheckpoint {
  v: 1;
  /** Rounds finished (the open round, if any, is the next one). */
  roundsDone: number;
  maxRounds: number;
  plan: PlanEntry[];
  /** One entry per run position; a step waiting for approval holds an APPROVAL_PENDING entry. */
  results: ActionResult[];
  /** The round being executed when the run paused or stopped. */
  open?: OpenRound;
  /** Calls waiting for a person, and the answers given so far. */
  pendingApprovals: PendingApproval[];
  decisions: Record<string, Decision>;
  /** Positions of write steps started and not yet finished (never run again on resume). */
  inFlight: number[];
  /** Positions whose audit rows are written (the rest are written with the turn). */
  audited: number[];
  feedback?: RoundFeedback;
  /** The refinement loop this run scores, when it is a refinement run. */
  loopId?: string;
  usage: Usage;
  /** Milliseconds of the deadline not yet used (a paused run's clock stops). */
  budgetMs: number;
  stopReason?: StopReason;
  /** Times the run went on in the background after its deadline (bounded). */
  continuations: number;
  /** The tools the planner was offered (tool search keeps them for the run's later rounds). */
  offered?: string[];
}

/** The checkpoint of a run that has not planned yet. */
export function initialCheckpoint(
  { maxRounds, budgetMs, loopId }: { maxRounds: number; budgetMs: number; loopId?: string },
): RunCheckpoint {
  return {
    v: 1,
    roundsDone: 0,
    maxRounds,
    plan: [],
    results: [],
    pendingApprovals: [],
    decisions: {},
    inFlight: [],
    audited: [],
    usage: { modelCalls: 0, promptTokens: 0, completionTokens: 0 },
    budgetMs,
    continuations: 0,
    ...(loopId ? { loopId } : {}),
  };
}

/** Reads a stored checkpoint; a version this code does not know is a RUN_STATE error. */
export function decodeCheckpoint(runId: string, value: unknown): RunCheckpoint {
  const checkpoint = value as Partial<RunCheckpoint> | null;
  if (checkpoint?.v !== 1 || !Array.isArray(checkpoint.results)) {
    throw new AppError(
      "RUN_STATE",
      `Run "${runId}" has a checkpoint this version cannot read; it cannot be resumed`,
    );
  }
  return checkpoint as RunCheckpoint;
}
