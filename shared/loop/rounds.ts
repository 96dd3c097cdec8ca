/**
 * The loop's rounds: plan, execute, and — unless the run is done — plan again
 * with the results. A run stops when `finalize_summary` has run (or, in a
 * refinement run, when the policy says `completed` or `user_input`), when the
 * planner returns an empty plan, at `maxRounds`, or when the deadline nears.
 * Round 1 follows the executor rules exactly (a one-round run is the
 * specification's loop); in later rounds a step that fails its check is
 * recorded as failed, so earlier rounds' work is never thrown away.
 */
import type { ActionResult, PlanEntry, StopReason } from "../contracts.ts";
import { describeError, errorKind } from "../errors.ts";
import type { RoundFeedback } from "../ports.ts";
import type { LoopState } from "../store/refinement_store_port.ts";
import { toOutput as toLoopOutput } from "../refinement/refinement_tools.ts";
import { FINALIZE_TOOL } from "../tools/finalize_summary.ts";
import { TimeoutReason } from "./abort.ts";
import { type ExecuteInput, executePlan } from "./executor.ts";
import { summaryOf } from "./finalize_stage.ts";
import { enforceRules } from "./plan_check.ts";
import { planStage, type PlanStageInput } from "./plan_stage.ts";
import { type RefinementDeps, scoreRound } from "./refinement_stage.ts";

/** Milliseconds one round spent planning, executing and scoring. */
export interface RoundTiming {
  round: number;
  plan: number;
  execute: number;
  score?: number;
}

/** What the rounds need: the plan and execute stages' inputs, and the run's limits. */
export interface RoundsInput {
  plan: Omit<PlanStageInput, "context" | "round" | "maxRounds" | "results" | "feedback">;
  execute: Omit<ExecuteInput, "steps" | "round" | "earlier">;
  rules: Parameters<typeof enforceRules>[1];
  maxRounds: number;
  /** Aborts when steps must stop so the turn can still be stored. */
  stepsSignal: AbortSignal;
  refinement?: { deps: RefinementDeps; loop: LoopState };
  emit: ExecuteInput["onEvent"];
  /** Filled with each round's timings. */
  timings: RoundTiming[];
}

/** How the rounds went. */
export interface RoundsOutcome {
  plan: PlanEntry[];
  results: ActionResult[];
  rounds: number;
  stopReason: StopReason;
  loop?: LoopState;
}

/** Runs rounds until one of the stops in the module doc. */
export async function runRounds(input: RoundsInput): Promise<RoundsOutcome> {
  const { maxRounds, stepsSignal, emit } = input;
  const { logger } = input.plan;
  const plan: PlanEntry[] = [];
  const results: ActionResult[] = [];
  let loop = input.refinement?.loop;
  let feedback: RoundFeedback | undefined;
  const outcome = (rounds: number, stopReason: StopReason): RoundsOutcome => ({
    plan,
    results,
    rounds,
    stopReason,
    loop,
  });
  for (let round = 1;; round++) {
    const timing: RoundTiming = { round, plan: 0, execute: 0 };
    input.timings.push(timing);
    emit({ type: "round_start", round, maxRounds });
    let planned;
    let started = performance.now();
    try {
      // The context as it stands now (earlier steps' outputs included), without the vector.
      const { embeddedMessage: _vector, ...context } = input.execute.context;
      planned = await planStage({
        ...input.plan,
        context,
        // The first plan may use the whole deadline; later ones must leave time to store the turn.
        signal: round === 1 ? input.plan.signal : stepsSignal,
        round,
        maxRounds,
        results,
        feedback,
      });
    } catch (error) {
      if (round === 1) throw error;
      const stopped = stopReasonOf(stepsSignal);
      if (stopped) return outcome(round - 1, stopped);
      logger.warn("the planner failed in a later round; the run ends with the results so far", {
        round,
        error: errorKind(error),
      });
      return outcome(round - 1, "planner_failed");
    } finally {
      timing.plan = since(started);
    }
    plan.push(...planned.plan.map((step) => ({ ...step, round })));
    emit({ type: "plan", round, plan: planned.plan, repaired: planned.repaired });
    if (round === 1) enforceRules(planned.steps, input.rules);
    if (planned.plan.length === 0) return outcome(round, "empty_plan");

    started = performance.now();
    const ran = await executePlan({
      ...input.execute,
      steps: planned.steps,
      round,
      earlier: results,
    });
    timing.execute = since(started);
    results.push(...ran);
    const stopped = stopReasonOf(stepsSignal);
    if (stopped) return outcome(round, stopped);

    if (input.refinement && loop) {
      started = performance.now();
      try {
        const scored = await scoreRound({
          deps: input.refinement.deps,
          caller: input.execute.caller,
          loop,
          request: input.execute.request,
          round,
          results: ran,
          summaryMessage: summaryOf(ran),
          signal: stepsSignal,
          usage: input.execute.usage,
        });
        loop = scored.loop;
        feedback = { score: scored.score, threshold: loop.threshold, feedback: scored.feedback };
        emit({
          type: "score",
          round,
          score: scored.score,
          feedback: scored.feedback,
          threshold: loop.threshold,
          decision: loop.status,
          loop: toLoopOutput(loop),
        });
      } catch (error) {
        const stopped = stopReasonOf(stepsSignal);
        if (!stopped) throw error;
        logger.warn("the run stopped while scoring; it ends unscored", {
          round,
          error: describeError(stepsSignal.reason),
        });
        return outcome(round, stopped);
      } finally {
        timing.score = since(started);
      }
      if (loop.status === "completed") return outcome(round, "refinement_completed");
      if (loop.status === "user_input") return outcome(round, "refinement_user_input");
    } else if (ran.some(finalizeRan)) {
      return outcome(round, "finalized");
    }
    if (round >= maxRounds) return outcome(round, "max_rounds");
  }
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
