/**
 * The loop's rounds: plan, execute, and — unless the run is done — plan again
 * with the results. A run stops when `finalize_summary` has run (or, in a
 * refinement run, when the policy says `completed` or `user_input`), when the
 * planner returns an empty plan, at `maxRounds`, when the deadline nears, or
 * when a model call would cross the run's token or cost budget (`budget`:
 * the call is not made; a refused summary or score is written offline first).
 * Round 1 follows the executor rules exactly (a one-round run is the
 * specification's loop); in later rounds a step that fails its check is
 * recorded as failed, so earlier rounds' work is never thrown away.
 *
 * The rounds work on a {@link RoundsState} the caller owns: a persisted run
 * keeps it in its checkpoint and, to resume, calls `runRounds` again with the
 * state it saved — a round left open (steps held for approval, or not reached
 * before the deadline) goes on where it stopped. There is one loop, not a
 * second one for resuming.
 */
import type { ActionResult, PlanEntry, StopReason } from "../contracts.ts";
import { describeError, errorKind } from "../errors.ts";
import type { RoundFeedback } from "../ports.ts";
import type { LoopState } from "../store/refinement_store_port.ts";
import { toOutput as toLoopOutput } from "../refinement/refinement_tools.ts";
import type { OpenRound } from "../runs/run_state.ts";
import { FINALIZE_TOOL } from "../tools/finalize_summary.ts";
import { TimeoutReason } from "./abort.ts";
import { type ExecuteInput, executePlan, isHeld, type StepGate } from "./executor.ts";
import { summaryOf } from "./finalize_stage.ts";
import { type CheckedStep, enforceRules } from "./plan_check.ts";
import { checkPlanned, planStage, type PlanStageInput } from "./plan_stage.ts";
import { type RefinementDeps, scoreRound } from "./refinement_stage.ts";
import { isBudgetStop } from "./usage.ts";

/** Milliseconds one round spent planning, executing and scoring. */
export interface RoundTiming {
  round: number;
  plan: number;
  execute: number;
  score?: number;
}

/** Where the rounds stand; the caller owns it (a persisted run checkpoints it). */
export interface RoundsState {
  /** Rounds finished; the open round, if any, is the next one. */
  roundsDone: number;
  plan: PlanEntry[];
  /** One entry per run position (a held step's entry is APPROVAL_PENDING). */
  results: ActionResult[];
  open?: OpenRound;
  feedback?: RoundFeedback;
  loop?: LoopState;
  /** The tools the run's rounds were offered so far (tool search keeps them for later rounds). */
  offered?: string[];
}

/** What a persisted run adds: approvals, write-ahead records and checkpoints. */
export interface RoundHooks {
  gate?: StepGate;
  beforeWrite?: (position: number) => Promise<void>;
  /**
   * Called once a round is planned and once it is over, with the state consistent; `last` when
   * the rounds stop right after (the run's final state is written next).
   */
  checkpoint?: (when?: { last?: boolean }) => Promise<void>;
  /** Leave steps the deadline reaches for a resume (instead of recording them as not run). */
  keepUnrun?: boolean;
}

/** What the rounds need: the plan and execute stages' inputs, and the run's limits. */
export interface RoundsInput {
  plan: Omit<
    PlanStageInput,
    "context" | "round" | "maxRounds" | "results" | "feedback" | "vector" | "previous"
  >;
  execute: Omit<ExecuteInput, "steps" | "round" | "earlier">;
  rules: Parameters<typeof enforceRules>[1];
  maxRounds: number;
  /** Aborts when steps must stop so the turn can still be stored. */
  stepsSignal: AbortSignal;
  refinement?: { deps: RefinementDeps };
  emit: ExecuteInput["onEvent"];
  /** Filled with each round's timings. */
  timings: RoundTiming[];
  hooks?: RoundHooks;
}

/** How the rounds went (the plan and results are in the state). */
export interface RoundsOutcome {
  rounds: number;
  stopReason: StopReason;
}

/** Runs rounds on `state` until one of the stops in the module doc. */
export async function runRounds(input: RoundsInput, state: RoundsState): Promise<RoundsOutcome> {
  const { maxRounds, stepsSignal, emit, hooks = {} } = input;
  const { logger } = input.plan;
  const stop = (stopReason: StopReason, rounds = state.roundsDone): RoundsOutcome => ({
    rounds,
    stopReason,
  });
  for (;;) {
    let open = state.open;
    let steps: CheckedStep[];
    const timing: RoundTiming = { round: open?.round ?? state.roundsDone + 1, plan: 0, execute: 0 };
    input.timings.push(timing);
    let started = performance.now();
    if (open) {
      // A round the run left open: its plan again, checked against today's tools.
      steps = checkPlanned(open.steps, { ...input.plan, offset: open.offset });
    } else {
      const round = state.roundsDone + 1;
      emit({ type: "round_start", round, maxRounds });
      let planned;
      try {
        // The context as it stands now (earlier steps' outputs included), without the vector.
        const { embeddedMessage, ...context } = input.execute.context;
        planned = await planStage({
          ...input.plan,
          context,
          vector: Array.isArray(embeddedMessage) ? embeddedMessage : undefined,
          previous: state.offered,
          // The first plan may use the whole deadline; later ones must leave time to store the turn.
          signal: round === 1 ? input.plan.signal : stepsSignal,
          round,
          maxRounds,
          results: state.results,
          feedback: state.feedback,
        });
      } catch (error) {
        // The planner's call would have crossed the run's budget: the run ends here, kept.
        if (isBudgetStop(error)) return stop("budget");
        if (round === 1) throw error;
        const stopped = stopReasonOf(stepsSignal);
        if (stopped) return stop(stopped);
        logger.warn("the planner failed in a later round; the run ends with the results so far", {
          round,
          error: errorKind(error),
        });
        return stop("planner_failed");
      } finally {
        timing.plan = since(started);
      }
      state.offered = planned.offered;
      state.plan.push(...planned.plan.map((step) => ({ ...step, round })));
      emit({ type: "plan", round, plan: planned.plan, repaired: planned.repaired });
      if (round === 1) enforceRules(planned.steps, input.rules);
      if (planned.plan.length === 0) {
        state.roundsDone = round;
        return stop("empty_plan");
      }
      open = state.open = {
        round,
        steps: planned.plan,
        offset: state.results.length,
        repaired: planned.repaired,
      };
      steps = planned.steps;
      await hooks.checkpoint?.();
    }

    started = performance.now();
    const entries = await executePlan({
      ...input.execute,
      steps,
      round: open.round,
      earlier: state.results,
      gate: hooks.gate,
      beforeWrite: hooks.beforeWrite,
      keepUnrun: hooks.keepUnrun,
    });
    timing.execute = since(started);
    for (const [position, result] of entries) state.results[position] = result;
    const ran = Array.from(
      { length: open.steps.length },
      (_, i) => state.results[open!.offset + i],
    );
    if (ran.some(isHeld)) return stop("approval_required");
    if (ran.some((result) => result === undefined)) {
      // Steps the deadline (or a cancellation) reached stay open for a resume.
      return stop(stopReasonOf(stepsSignal) ?? "deadline");
    }
    state.open = undefined;
    state.roundsDone = open.round;
    const stopped = stopReasonOf(stepsSignal);
    if (stopped) {
      await hooks.checkpoint?.();
      return stop(stopped);
    }

    if (input.refinement && state.loop) {
      const scored = await scoreOpenRound(input, state, ran, timing);
      if (typeof scored === "string") return stop(scored);
      await hooks.checkpoint?.();
      if (budgetSpent(input)) return stop("budget");
      if (state.loop.status === "completed") return stop("refinement_completed");
      if (state.loop.status === "user_input") return stop("refinement_user_input");
    } else {
      const spent = budgetSpent(input);
      const finalized = ran.some(finalizeRan);
      await hooks.checkpoint?.({ last: spent || finalized || state.roundsDone >= maxRounds });
      // A call refused for the budget (a summary written offline instead): the run stops.
      if (spent) return stop("budget");
      if (finalized) return stop("finalized");
    }
    if (state.roundsDone >= maxRounds) return stop("max_rounds");
  }
}

/** Scores the round just run and records the policy's decision; a stop reason if it cannot. */
async function scoreOpenRound(
  input: RoundsInput,
  state: RoundsState,
  ran: readonly ActionResult[],
  timing: RoundTiming,
): Promise<StopReason | undefined> {
  const round = state.roundsDone;
  const started = performance.now();
  try {
    const scored = await scoreRound({
      deps: input.refinement!.deps,
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
    const stopped = stopReasonOf(input.stepsSignal);
    if (!stopped) throw error;
    input.plan.logger.warn("the run stopped while scoring; it ends unscored", {
      round,
      error: describeError(input.stepsSignal.reason),
    });
    return stopped;
  } finally {
    timing.score = since(started);
  }
}

/** Whether the run's meter refused a call for its budget. */
function budgetSpent(input: RoundsInput): boolean {
  return input.plan.usage?.budgetExceeded?.() === true;
}

/** A `finalize_summary` step that was run (whether or not it succeeded). */
function finalizeRan(result: ActionResult): boolean {
  return result.tool === FINALIZE_TOOL &&
    (result.success || result.code === "TOOL_FAILED" || result.code === "DEADLINE_EXCEEDED");
}

/** Why the steps' signal stopped the run: its deadline, or a cancellation (the client went away). */
function stopReasonOf(signal: AbortSignal): "deadline" | "cancelled" | undefined {
  if (!signal.aborted) return undefined;
  return signal.reason instanceof TimeoutReason ? "deadline" : "cancelled";
}

function since(started: number): number {
  return Math.round((performance.now() - started) * 10) / 10;
}
