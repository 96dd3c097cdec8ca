/**
 * A run's checkpoint: its turn state as plain JSON, a Zod schema with a
 * version. A run written by an earlier release still decodes (each version has
 * its schema and an upgrade to the next; tests keep a fixture of every
 * released version), and a version this code does not know is a RUN_STATE
 * error, never a guess.
 *
 * - v1 (turn 3): the answers to pending approvals were kept in the checkpoint
 *   (`decisions`), and which steps' audit rows were written (`audited`).
 * - v2 (turn 4): approvals are records of their own (the approval store, one
 *   for the loop and MCP); a tool call's audit row is written when it runs; the
 *   open round says whether it was planned from untrusted text (`tainted`).
 */
import { z } from "zod";
import {
  ActionResult,
  PendingApproval,
  PlanEntry,
  PlannedAction,
  StopReason,
  Usage,
} from "../contracts.ts";
import { AppError } from "../errors.ts";
import { freshState, type TurnState } from "../loop/turn_state.ts";
import { UsageTotals } from "../loop/usage.ts";
import type { LoopState } from "../store/refinement_store_port.ts";

const OpenRound = z.object({
  round: z.int().min(1),
  steps: z.array(PlannedAction),
  offset: z.int().min(0),
  repaired: z.boolean(),
  tainted: z.boolean().optional(),
});

const Feedback = z.object({ score: z.number(), threshold: z.number(), feedback: z.string() });

const common = {
  roundsDone: z.int().min(0),
  maxRounds: z.int().min(1),
  plan: z.array(PlanEntry),
  /** One entry per run position; null where a step has none yet (JSON keeps no holes). */
  results: z.array(ActionResult.nullable()),
  open: OpenRound.optional(),
  pendingApprovals: z.array(PendingApproval),
  inFlight: z.array(z.int().min(0)),
  feedback: Feedback.optional(),
  /** The refinement loop this run scores. */
  loopId: z.string().optional(),
  usage: Usage,
  /** Milliseconds of the deadline not yet used (a paused run's clock stops). */
  budgetMs: z.number().min(0),
  stopReason: StopReason.optional(),
  continuations: z.int().min(0),
  offered: z.array(z.string()).optional(),
};

/** The checkpoint of turn 3. */
export const CheckpointV1 = z.object({
  v: z.literal(1),
  ...common,
  decisions: z.record(
    z.string(),
    z.object({ approved: z.boolean(), reason: z.string().optional() }),
  ),
  audited: z.array(z.int().min(0)),
});

/** The checkpoint this release writes. */
export const Checkpoint = z.object({ v: z.literal(2), ...common });
/** A run's checkpoint. */
export type Checkpoint = z.infer<typeof Checkpoint>;

/** The versions this release reads, each upgraded to the current one. */
const VERSIONS = z.discriminatedUnion("v", [CheckpointV1, Checkpoint]);

/**
 * Reads a stored checkpoint of any released version. A v1 run's pending
 * approvals get their records when it is resumed (engine.ts); the calls it
 * had answers for were run (or refused) by the resume that brought them.
 */
export function decodeCheckpoint(runId: string, value: unknown): Checkpoint {
  const parsed = VERSIONS.safeParse(value);
  if (!parsed.success) {
    throw new AppError(
      "RUN_STATE",
      `Run "${runId}" has a checkpoint this version cannot read; it cannot be resumed`,
      { details: { runId } },
    );
  }
  if (parsed.data.v === 2) return parsed.data;
  const { decisions, audited: _audited, pendingApprovals, ...rest } = parsed.data;
  // A v1 run used an answer in the resume that gave it: what is answered is no longer pending.
  return { ...rest, v: 2, pendingApprovals: pendingApprovals.filter((p) => !decisions[p.id]) };
}

/** The checkpoint of a turn's state, with the budget it has left. */
export function toCheckpoint(
  state: TurnState,
  { budgetMs, stopReason }: { budgetMs: number; stopReason?: StopReason },
): Checkpoint {
  return {
    v: 2,
    roundsDone: state.roundsDone,
    maxRounds: state.maxRounds,
    plan: state.plan,
    results: state.results.map((result) => result ?? null),
    ...(state.open ? { open: state.open } : {}),
    pendingApprovals: state.pendingApprovals,
    // A write started and not finished must never run again.
    inFlight: state.inFlight.filter((position) => state.results[position] === undefined),
    ...(state.feedback ? { feedback: state.feedback } : {}),
    ...(state.loop ? { loopId: state.loop.id } : {}),
    ...(state.offered ? { offered: state.offered } : {}),
    usage: state.usage.total,
    budgetMs: Math.max(0, budgetMs),
    continuations: state.continuations,
    ...(stopReason ? { stopReason } : {}),
  };
}

/**
 * The turn state a checkpoint holds. A write that was started and never
 * finished (the process stopped under it) is recorded as interrupted, never
 * run again.
 */
export function fromCheckpoint(
  checkpoint: Checkpoint,
  { loop, usage }: { loop?: LoopState; usage: UsageTotals },
): TurnState {
  const results = checkpoint.results.map((result) => result ?? undefined);
  for (const position of checkpoint.inFlight) {
    if (results[position] !== undefined) continue;
    results[position] = interrupted(checkpoint, position);
  }
  return {
    roundsDone: checkpoint.roundsDone,
    maxRounds: checkpoint.maxRounds,
    plan: checkpoint.plan,
    results,
    ...(checkpoint.open ? { open: checkpoint.open } : {}),
    ...(checkpoint.feedback ? { feedback: checkpoint.feedback } : {}),
    ...(loop ? { loop } : {}),
    ...(checkpoint.offered ? { offered: checkpoint.offered } : {}),
    pendingApprovals: checkpoint.pendingApprovals,
    inFlight: [],
    usage,
    continuations: checkpoint.continuations,
  };
}

/** The checkpoint of a run that has not planned yet. */
export function initialCheckpoint({ maxRounds, budgetMs }: {
  maxRounds: number;
  budgetMs: number;
}): Checkpoint {
  return toCheckpoint(freshState({ maxRounds, usage: new UsageTotals() }), { budgetMs });
}

function interrupted(checkpoint: Checkpoint, position: number): ActionResult {
  const step = checkpoint.open?.steps[position - checkpoint.open.offset];
  return {
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
