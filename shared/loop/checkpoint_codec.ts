/**
 * A run's checkpoint to and from the drive's state: the rounds' state (plan,
 * entries, open round, feedback, loop) and the run's progress (approvals,
 * write-ahead records, audit marks, usage, budget).
 */
import type { StopReason } from "../contracts.ts";
import type { LoopState } from "../store/refinement_store_port.ts";
import type { RunCheckpoint } from "../runs/run_state.ts";
import type { ActionResult } from "../contracts.ts";
import type { Decision } from "../runs/run_state.ts";
import type { PendingApproval } from "../runs/run_contract.ts";
import type { RoundsState } from "./rounds.ts";
import { UsageTotals } from "./usage.ts";

/** What a run carries besides its rounds (the rest of its checkpoint). */
export interface Progress {
  maxRounds: number;
  pendingApprovals: PendingApproval[];
  decisions: Record<string, Decision>;
  inFlight: number[];
  audited: number[];
  usage: UsageTotals;
  continuations: number;
}

/** The progress of a run that has not planned yet. */
export function freshProgress(maxRounds: number, usage: UsageTotals): Progress {
  return {
    maxRounds,
    pendingApprovals: [],
    decisions: {},
    inFlight: [],
    audited: [],
    usage,
    continuations: 0,
  };
}

/** The rounds' state and the run's progress as a checkpoint left them. */
export function fromCheckpoint(
  checkpoint: RunCheckpoint,
  { results, loop, usage }: { results: ActionResult[]; loop?: LoopState; usage?: UsageTotals },
): { state: RoundsState; progress: Progress } {
  return {
    state: {
      roundsDone: checkpoint.roundsDone,
      plan: checkpoint.plan,
      results,
      open: checkpoint.open,
      feedback: checkpoint.feedback,
      loop,
      ...(checkpoint.offered ? { offered: checkpoint.offered } : {}),
    },
    progress: {
      maxRounds: checkpoint.maxRounds,
      pendingApprovals: checkpoint.pendingApprovals,
      decisions: checkpoint.decisions,
      inFlight: [],
      audited: checkpoint.audited,
      usage: usage ?? new UsageTotals(checkpoint.usage),
      continuations: checkpoint.continuations,
    },
  };
}

/** The run's checkpoint as the drive stands. */
export function toCheckpoint(
  input: { state: RoundsState; progress: Progress },
  { budgetMs, stopReason }: { budgetMs: number; stopReason?: StopReason },
): RunCheckpoint {
  const { state, progress } = input;
  return {
    v: 1,
    roundsDone: state.roundsDone,
    maxRounds: progress.maxRounds,
    plan: state.plan,
    results: state.results,
    ...(state.open ? { open: state.open } : {}),
    pendingApprovals: progress.pendingApprovals,
    decisions: progress.decisions,
    // A write started and not finished must never run again.
    inFlight: progress.inFlight.filter((position) => state.results[position] === undefined),
    audited: progress.audited,
    ...(state.feedback ? { feedback: state.feedback } : {}),
    ...(state.loop ? { loopId: state.loop.id } : {}),
    ...(state.offered ? { offered: state.offered } : {}),
    usage: progress.usage.total,
    budgetMs,
    continuations: progress.continuations,
    ...(stopReason ? { stopReason } : {}),
  };
}
