/**
 * When a run's rounds stop, as small named conditions in one list, checked in
 * order after every round: the first that holds names the stop. A stop a
 * durable run keeps its state for — a person's approval, its deadline, a
 * cancel — is one of {@link HOLDING_STOPS}; every other stop ends the turn
 * (its reply and messages are stored). The planning stage can stop a run
 * too, before a round runs: an empty plan, a planner failing in a later
 * round, a model call that would cross the run's budget.
 */
import type { ActionResult, StopReason } from "../contracts.ts";
import { TimeoutReason } from "../abort.ts";
import { FINALIZE_TOOL } from "../tools/finalize_summary.ts";
import { isHeld } from "./executor.ts";
import type { TurnState } from "./turn_state.ts";

/** A round as it ended: the state, the round's entries and the steps' signal. */
export interface RoundEnd {
  state: TurnState;
  /** The round's entries (undefined: a step left unrun for a resume). */
  ran: readonly (ActionResult | undefined)[];
  /** Aborted when steps had to stop: the deadline, or a cancel. */
  signal: AbortSignal;
  /** Whether the run's meter refused a call for its budget. */
  budgetSpent: boolean;
}

/** A named stop condition. */
export interface StopCondition {
  reason: StopReason;
  holds: (end: RoundEnd) => boolean;
}

/** Someone cancelled the run (its signal aborted, not by the deadline). */
export const cancelled: StopCondition = {
  reason: "cancelled",
  holds: ({ signal }) => signal.aborted && !(signal.reason instanceof TimeoutReason),
};

/** A step waits for a person's approval. */
export const awaitingApproval: StopCondition = {
  reason: "approval_required",
  holds: ({ ran }) => ran.some(isHeld),
};

/** The deadline came (steps were left unrun, or the round ended as it passed). */
export const deadlineReached: StopCondition = {
  reason: "deadline",
  holds: ({ ran, signal }) => signal.aborted || ran.some((result) => result === undefined),
};

/** A model call was refused for the run's token or cost budget. */
export const budgetSpent: StopCondition = {
  reason: "budget",
  holds: ({ budgetSpent }) => budgetSpent,
};

/** The refinement policy says the result is good enough. */
export const refinementCompleted: StopCondition = {
  reason: "refinement_completed",
  holds: ({ state }) => state.loop?.status === "completed",
};

/** The refinement policy wants the user (the iteration limit, or stagnation). */
export const refinementNeedsUser: StopCondition = {
  reason: "refinement_user_input",
  holds: ({ state }) => state.loop?.status === "user_input",
};

/** `finalize_summary` ran in a run that is not a refinement run (which the scores end). */
export const finalized: StopCondition = {
  reason: "finalized",
  holds: ({ state, ran }) => !state.loop && ran.some(finalizeRan),
};

/** The run has had its rounds. */
export const roundLimit: StopCondition = {
  reason: "max_rounds",
  holds: ({ state }) => state.roundsDone >= state.maxRounds,
};

/** The stop conditions, in the order they are checked (a cancel wins over everything). */
export const STOP_CONDITIONS: readonly StopCondition[] = [
  cancelled,
  awaitingApproval,
  deadlineReached,
  budgetSpent,
  refinementCompleted,
  refinementNeedsUser,
  finalized,
  roundLimit,
];

/** The first condition that holds, if any. */
export function stopOf(
  end: RoundEnd,
  conditions: readonly StopCondition[] = STOP_CONDITIONS,
): StopReason | undefined {
  return conditions.find((condition) => condition.holds(end))?.reason;
}

/** The stops after which a durable run keeps its state instead of ending its turn. */
export const HOLDING_STOPS: ReadonlySet<StopReason> = new Set([
  "approval_required",
  "deadline",
  "cancelled",
]);

/** A `finalize_summary` step that was run (whether or not it succeeded). */
function finalizeRan(result: ActionResult | undefined): boolean {
  return result?.tool === FINALIZE_TOOL &&
    (result.success || result.code === "TOOL_FAILED" || result.code === "DEADLINE_EXCEEDED");
}
