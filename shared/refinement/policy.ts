/**
 * The refinement loop decision, as pure functions (refinement-loop
 * specification, seed 000): record the score, then completed when it reaches
 * the threshold, user_input when the iteration limit is reached or the scores
 * stagnate, else refine (and one more iteration). A loop at user_input may go
 * on (a person decided to), one iteration per score, until its limit; then it
 * takes only a score that completes it, so its history cannot grow without end.
 */
import type { LoopState, LoopType } from "../store/refinement_store_port.ts";
import { LoopStateError, LoopValidationError } from "../errors.ts";

/** The loop types, in the specification's order. */
export const LOOP_TYPES: readonly LoopType[] = ["plan", "spec", "build_plan", "build_code"];

/** A loop type's quality threshold and iteration limit. */
export interface LoopSettings {
  threshold: number;
  maxIterations: number;
}

/** The specification's settings: thresholds 85/85/80/95, five iterations each. */
export const DEFAULT_LOOP_SETTINGS: Readonly<Record<LoopType, LoopSettings>> = Object.freeze({
  plan: { threshold: 85, maxIterations: 5 },
  spec: { threshold: 85, maxIterations: 5 },
  build_plan: { threshold: 80, maxIterations: 5 },
  build_code: { threshold: 95, maxIterations: 5 },
});

/** Improvements under this many points count as no progress. */
export const IMPROVEMENT_THRESHOLD = 5;

/** Stagnant: at least 3 scores, and both of the last two improvements under 5 points. */
export function detectStagnation(scores: readonly number[]): boolean {
  if (scores.length < 3) return false;
  const n = scores.length;
  const improvements = [scores[n - 2] - scores[n - 3], scores[n - 1] - scores[n - 2]];
  return improvements.every((improvement) => improvement < IMPROVEMENT_THRESHOLD);
}

/** Checks a loop type; throws LoopValidationError naming the valid ones. */
export function assertLoopType(value: unknown): LoopType {
  if (typeof value === "string" && (LOOP_TYPES as readonly string[]).includes(value)) {
    return value as LoopType;
  }
  throw new LoopValidationError(
    "loop_type",
    `Invalid loop type ${JSON.stringify(value)}; use one of ${LOOP_TYPES.join(", ")}`,
  );
}

/** Checks a score; throws LoopValidationError unless it is an integer from 0 to 100. */
export function assertScore(value: unknown): number {
  if (typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= 100) {
    return value;
  }
  throw new LoopValidationError(
    "current_score",
    `Invalid score ${JSON.stringify(value)}; current_score must be an integer from 0 to 100`,
  );
}

/** The state after recording `score`; the input is not changed. */
export function decide(state: LoopState, score: number, now = new Date().toISOString()): LoopState {
  assertScore(score);
  if (state.status === "completed") {
    throw new LoopStateError(
      state.id,
      `Refinement loop "${state.id}" is already completed (score ${state.currentScore} reached ${state.threshold}); start a new loop to refine further`,
    );
  }
  const atLimit = state.status === "user_input" && state.iteration >= state.maxIterations;
  if (atLimit && score < state.threshold) {
    throw new LoopStateError(
      state.id,
      `Refinement loop "${state.id}" reached its limit of ${state.maxIterations} iterations and waits for a person: only a score of at least ${state.threshold} (completing it) is taken now; start a new loop to refine further`,
    );
  }
  const scoreHistory = [...state.scoreHistory, score];
  const next = { ...state, currentScore: score, scoreHistory, updatedAt: now };
  if (score >= state.threshold) return { ...next, status: "completed" };
  // Going on after user_input (a person chose to) is an iteration too, so the limit still holds.
  const iteration = state.status === "user_input" ? state.iteration + 1 : state.iteration;
  if (iteration >= state.maxIterations) return { ...next, iteration, status: "user_input" };
  if (state.status !== "user_input" && detectStagnation(scoreHistory)) {
    return { ...next, status: "user_input" };
  }
  return { ...next, status: "refine", iteration: iteration + 1 };
}
