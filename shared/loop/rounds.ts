/**
 * The loop's rounds: plan, execute, and — unless the run is done — plan again
 * with the results, until one of the stop conditions (stop_conditions.ts)
 * holds. Round 1 follows the executor rules exactly (a one-round run is the
 * specification's loop); in later rounds a step that fails its check is
 * recorded as failed, so earlier rounds' work is never thrown away.
 *
 * The rounds work on a {@link TurnState} the caller owns. A durable run saves
 * it through its journal before a write and when a round is over and more
 * follow; to resume, `runRounds` is called again with the state it
 * saved — a round left open (steps held for approval, or not reached before
 * the deadline) goes on where it stopped.
 */
import type { ActionResult, LoopEvent, StopReason } from "../contracts.ts";
import { describeError, errorKind } from "../errors.ts";
import { toOutput as toLoopOutput } from "../refinement/refinement_tools.ts";
import type { CallOrigin } from "../tools/approval_rule.ts";
import { TimeoutReason } from "../abort.ts";
import { type ExecuteInput, executePlan, type StepGate } from "./executor.ts";
import { summaryOf } from "./finalize_stage.ts";
import { type CheckedStep, enforceRules } from "./plan_check.ts";
import { checkPlanned, type PlanOutcome, planStage, type PlanStageInput } from "./plan_stage.ts";
import { type RefinementDeps, scoreRound } from "./refinement_stage.ts";
import { stopOf } from "./stop_conditions.ts";
import type { OpenRound, RunJournal, TurnState } from "./turn_state.ts";
import { isBudgetStop } from "./usage.ts";

/** Milliseconds one round spent planning, executing and scoring. */
export interface RoundTiming {
  round: number;
  plan: number;
  execute: number;
  score?: number;
}

/** What the rounds need: the plan and execute stages' inputs, and the run's limits. */
export interface RoundsInput {
  plan: Omit<
    PlanStageInput,
    "context" | "round" | "maxRounds" | "results" | "feedback" | "vector" | "previous" | "signal"
  >;
  execute: Omit<ExecuteInput, "steps" | "round" | "earlier" | "signal" | "gate" | "beforeWrite">;
  rules: Parameters<typeof enforceRules>[1];
  /** Aborts at the run's deadline (the first plan may use all of it). */
  signal: AbortSignal;
  /** Aborts when steps must stop so the turn can still be stored (a little before the deadline). */
  stepsSignal: AbortSignal;
  refinement?: RefinementDeps;
  emit: (event: LoopEvent) => void;
  /** Filled with each round's timings. */
  timings: RoundTiming[];
  /** A durable run: its journal, the approval gate per round, the budget left for a save. */
  durable?: {
    journal: RunJournal;
    gate?: (origin: CallOrigin) => StepGate;
    budgetMs: () => number;
  };
}

/** How the rounds went (the plan and results are in the state). */
export interface RoundsOutcome {
  rounds: number;
  stopReason: StopReason;
}

/** Runs rounds on `state` until one of the stop conditions holds. */
export async function runRounds(input: RoundsInput, state: TurnState): Promise<RoundsOutcome> {
  const stop = (stopReason: StopReason): RoundsOutcome => ({
    rounds: state.roundsDone,
    stopReason,
  });
  const saves = journalOf(input, state);
  for (;;) {
    const timing: RoundTiming = {
      round: state.open?.round ?? state.roundsDone + 1,
      plan: 0,
      execute: 0,
    };
    input.timings.push(timing);
    // No save once a round is planned: a write saves the run before it runs (a crash before
    // any write leaves nothing a resume could not plan again), and the run's end saves it all.
    const planned = await openRound(input, state, timing);
    if (typeof planned === "string") return stop(planned);

    const started = performance.now();
    const ran = await executeRound(input, state, planned, saves);
    timing.execute = since(started);
    const closed = ran.every((result) =>
      result !== undefined && result.code !== "APPROVAL_PENDING"
    );
    if (closed) {
      state.open = undefined;
      state.roundsDone = timing.round;
      if (!input.stepsSignal.aborted && input.refinement && state.loop) {
        const interrupted = await scoreOpenRound(input, state, ran as ActionResult[], timing);
        if (interrupted) return stop(interrupted);
      }
    }
    const stopped = stopOf({
      state,
      ran,
      signal: input.stepsSignal,
      budgetSpent: input.plan.usage?.budgetExceeded?.() === true,
    });
    // The round before the run stops is saved only for a write's result: the run's final
    // state follows at once (a crash in between re-runs read-only steps only).
    if (closed && (stopped === undefined || saves.wrote)) await saves.save();
    if (stopped) return stop(stopped);
  }
}

/**
 * The round to execute: the one the run left open (its plan checked again
 * against today's tools), or a new one from the planner. A stop reason when
 * planning ends the run.
 */
async function openRound(
  input: RoundsInput,
  state: TurnState,
  timing: RoundTiming,
): Promise<CheckedStep[] | StopReason> {
  const open = state.open;
  if (open) return checkPlanned(open.steps, { ...input.plan, offset: open.offset });
  const round = state.roundsDone + 1;
  input.emit({ type: "round_start", round, maxRounds: state.maxRounds });
  const started = performance.now();
  let planned: PlanOutcome;
  try {
    planned = await planRound(input, state, round);
  } catch (error) {
    return plannerStop(input, error, round);
  } finally {
    timing.plan = since(started);
  }
  state.offered = planned.offered;
  state.plan.push(...planned.plan.map((step) => ({ ...step, round })));
  input.emit({ type: "plan", round, plan: planned.plan, repaired: planned.repaired });
  if (round === 1) enforceRules(planned.steps, input.rules);
  if (planned.plan.length === 0) {
    state.roundsDone = round;
    return "empty_plan";
  }
  state.open = {
    round,
    steps: planned.plan,
    offset: state.results.length,
    repaired: planned.repaired,
    tainted: planned.tainted,
  } satisfies OpenRound;
  return planned.steps;
}

/** Asks the planner for round `round`, with the context as it stands (no vector). */
function planRound(input: RoundsInput, state: TurnState, round: number): Promise<PlanOutcome> {
  const { embeddedMessage, ...context } = input.execute.context;
  return planStage({
    ...input.plan,
    context,
    vector: Array.isArray(embeddedMessage) ? embeddedMessage : undefined,
    previous: state.offered,
    // The first plan may use the whole deadline; later ones must leave time to store the turn.
    signal: round === 1 ? input.signal : input.stepsSignal,
    round,
    maxRounds: state.maxRounds,
    results: state.results.filter((result): result is ActionResult => result !== undefined),
    feedback: state.feedback,
  });
}

/** How a planner's failure ends the run: the first round's is the request's error. */
function plannerStop(input: RoundsInput, error: unknown, round: number): StopReason {
  // The planner's call would have crossed the run's budget: the run ends here, kept.
  if (isBudgetStop(error)) return "budget";
  if (round === 1) throw error;
  const signal = input.stepsSignal;
  if (signal.aborted) return signal.reason instanceof TimeoutReason ? "deadline" : "cancelled";
  input.plan.logger.warn(
    "the planner failed in a later round; the run ends with the results so far",
    {
      round,
      error: errorKind(error),
    },
  );
  return "planner_failed";
}

/** Executes the open round; its entries in plan order (undefined: left for a resume). */
async function executeRound(
  input: RoundsInput,
  state: TurnState,
  steps: CheckedStep[],
  saves: Saves,
): Promise<(ActionResult | undefined)[]> {
  const open = state.open!;
  const durable = input.durable;
  const entries = await executePlan({
    ...input.execute,
    steps,
    round: open.round,
    earlier: state.results,
    signal: input.stepsSignal,
    gate: durable?.gate?.({ tainted: open.tainted === true, message: messageOf(input) }),
    beforeWrite: durable && saves.beforeWrite,
    keepUnrun: durable !== undefined,
  });
  for (const [position, result] of entries) state.results[position] = result;
  return Array.from({ length: open.steps.length }, (_, i) => state.results[open.offset + i]);
}

/** The user's latest message (what a tainted round's writes may take their args from). */
function messageOf(input: RoundsInput): string {
  const messages = input.plan.request.messages;
  return messages[messages.length - 1]?.content ?? "";
}

/** A durable run's saves, and whether a write ran since the last one. */
interface Saves {
  save(): Promise<void>;
  beforeWrite(position: number): Promise<void>;
  readonly wrote: boolean;
}

function journalOf(input: RoundsInput, state: TurnState): Saves {
  const durable = input.durable;
  let wrote = false;
  const save = async () => {
    wrote = false;
    await durable?.journal.save(state, durable.budgetMs());
  };
  return {
    save,
    // A write is recorded as started before it runs: a resume never runs it twice.
    beforeWrite: async (position) => {
      state.inFlight.push(position);
      await save();
      wrote = true;
    },
    get wrote() {
      return wrote;
    },
  };
}

/** Scores the round just run and records the policy's decision; a stop reason if it cannot. */
async function scoreOpenRound(
  input: RoundsInput,
  state: TurnState,
  ran: readonly ActionResult[],
  timing: RoundTiming,
): Promise<StopReason | undefined> {
  const round = state.roundsDone;
  const started = performance.now();
  try {
    const scored = await scoreRound({
      deps: input.refinement!,
      caller: input.execute.caller,
      loop: state.loop!,
      request: input.execute.request,
      round,
      results: ran,
      summaryMessage: summaryOf(ran),
      signal: input.stepsSignal,
      usage: input.execute.usage,
    });
    const loop = state.loop = scored.loop;
    state.feedback = { score: scored.score, threshold: loop.threshold, feedback: scored.feedback };
    input.emit({
      type: "score",
      round,
      score: scored.score,
      feedback: scored.feedback,
      threshold: loop.threshold,
      decision: loop.status,
      loop: toLoopOutput(loop),
    });
    return undefined;
  } catch (error) {
    const signal = input.stepsSignal;
    if (!signal.aborted) throw error;
    input.plan.logger.warn("the run stopped while scoring; it ends unscored", {
      round,
      error: describeError(signal.reason),
    });
    return signal.reason instanceof TimeoutReason ? "deadline" : "cancelled";
  } finally {
    timing.score = since(started);
  }
}

function since(started: number): number {
  return Math.round((performance.now() - started) * 10) / 10;
}
