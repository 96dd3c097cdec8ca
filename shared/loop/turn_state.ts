/**
 * Where a turn stands, and the port a durable run is written through. The
 * state is what a checkpoint saves and a resume goes on from: calling the
 * loop again with a saved state is how a run resumes (there is one loop, not
 * a second one for resuming). The loop knows nothing of where a run is kept:
 * it appends its events and saves its state through a {@link RunJournal}.
 */
import type {
  ActionResult,
  LoopEvent,
  PendingApproval,
  PlanEntry,
  PlannedAction,
} from "../contracts.ts";
import type { RoundFeedback } from "../ports.ts";
import type { LoopState } from "../store/refinement_store_port.ts";
import type { UsageTotals } from "./usage.ts";

/** The round a run is inside of: its plan, and which of its steps have a result. */
export interface OpenRound {
  round: number;
  /** The round's plan as the planner gave it (checked again on resume). */
  steps: PlannedAction[];
  /** The run position of its first step. */
  offset: number;
  /** Whether the planner's output was repaired (for the plan event). */
  repaired: boolean;
  /** Whether the prompt this round was planned from held untrusted text (the taint rule). */
  tainted?: boolean;
}

/** A turn's state between its rounds (see the module doc). */
export interface TurnState {
  /** Rounds finished; the open round, if any, is the next one. */
  roundsDone: number;
  maxRounds: number;
  plan: PlanEntry[];
  /** One entry per run position; a step waiting for approval holds an APPROVAL_PENDING entry. */
  results: (ActionResult | undefined)[];
  open?: OpenRound;
  feedback?: RoundFeedback;
  /** The refinement loop this run scores, when it is a refinement run. */
  loop?: LoopState;
  /** The tools the planner was offered (tool search keeps them for the run's later rounds). */
  offered?: string[];
  /** Calls waiting for a person (their records hold the answers). */
  pendingApprovals: PendingApproval[];
  /** Positions of writes started and not finished: never run again on resume. */
  inFlight: number[];
  usage: UsageTotals;
  /** Times the run went on in the background after its deadline (bounded). */
  continuations: number;
}

/** What a turn started from; it never changes once the context is loaded. */
export interface TurnBase {
  /** The context the planner started from (no vector, no step outputs). */
  context: Record<string, unknown>;
  /** The latest message, stored with the turn. */
  message: string;
  embedding: number[];
  embeddingModel: string;
}

/** The state of a turn that has not planned yet. */
export function freshState(
  { maxRounds, usage, loop }: { maxRounds: number; usage: UsageTotals; loop?: LoopState },
): TurnState {
  return {
    roundsDone: 0,
    maxRounds,
    plan: [],
    results: [],
    pendingApprovals: [],
    inFlight: [],
    usage,
    continuations: 0,
    ...(loop ? { loop } : {}),
  };
}

/** Where a durable run is written: its event log and its checkpoints. */
export interface RunJournal {
  /** Appends an event to the run's log (and publishes it); its number in the log. */
  append(event: LoopEvent): number;
  /**
   * Saves the state at a step or round boundary, with the milliseconds of the
   * budget left. Throws when another process took the run over.
   */
  save(state: TurnState, budgetMs: number): Promise<void>;
}

/** The entries that ran (no holes, no held steps' placeholders kept out). */
export function entries(state: Pick<TurnState, "results">): ActionResult[] {
  return state.results.filter((result): result is ActionResult => result !== undefined);
}

/** The loop context as the run's steps left it: what it started with, then each step's output. */
export function contextOf(
  base: Pick<TurnBase, "context" | "embedding">,
  results: readonly (ActionResult | undefined)[],
): Record<string, unknown> {
  const context: Record<string, unknown> = { ...base.context, embeddedMessage: base.embedding };
  for (const result of results) {
    if (result?.success) context[result.tool] = result.output;
  }
  return context;
}
