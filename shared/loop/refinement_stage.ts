/**
 * Quality-driven refinement of a run (seed 000 driving seed 001): the run
 * opens the caller's refinement loop (or continues one), and after each round
 * a {@link Scorer} scores the round and the persisted refinement policy
 * decides — `refine` (another round, with the feedback), `completed` or
 * `user_input` (the run stops). The decision goes through the same store
 * update (row lock, score history, thresholds, stagnation) as the
 * `decide_loop_next_action` tool.
 */
import type { ActionResult, MCPRequest } from "../contracts.ts";
import { AppError, LoopStateError, LoopValidationError } from "../errors.ts";
import type { Caller, RoundScore, Scorer, UsageMeter } from "../ports.ts";
import type { LoopState, LoopType, RefinementStore } from "../store/refinement_store_port.ts";
import { decide, DEFAULT_LOOP_SETTINGS, type LoopSettings } from "../refinement/policy.ts";
import { raceAbort } from "../abort.ts";

/** What a refinement run needs. */
export interface RefinementDeps {
  store: RefinementStore;
  scorer: Scorer;
  /** Threshold and iteration limit per loop type (default: the specification's). */
  settings?: Readonly<Record<LoopType, LoopSettings>>;
}

/** The caller's loop for this run: a new one, or `refinement.loopId` when it may go on. */
export async function openRefinementLoop(
  { deps, caller, request }: {
    deps: RefinementDeps | undefined;
    caller: Caller;
    request: MCPRequest;
  },
): Promise<LoopState | undefined> {
  const wanted = request.refinement;
  if (!wanted) return undefined;
  if (!deps) {
    throw new AppError(
      "CONFIG_INVALID",
      "This loop was built without a refinement store, so it cannot run a refinement request; pass `refinement: {store, scorer}` to the runner",
    );
  }
  if (wanted.loopId === undefined) {
    const { threshold, maxIterations } = (deps.settings ?? DEFAULT_LOOP_SETTINGS)[wanted.loopType];
    return await deps.store.create(caller, { loopType: wanted.loopType, threshold, maxIterations });
  }
  const loop = await deps.store.get(caller, wanted.loopId);
  if (loop.loopType !== wanted.loopType) {
    throw new LoopValidationError(
      "refinement.loopType",
      `Refinement loop "${loop.id}" is a ${loop.loopType} loop, not ${wanted.loopType}; send loopType "${loop.loopType}" or leave out loopId to start a new loop`,
    );
  }
  if (loop.status === "user_input" && loop.iteration >= loop.maxIterations) {
    throw new LoopStateError(
      loop.id,
      `Refinement loop "${loop.id}" reached its limit of ${loop.maxIterations} iterations; leave out loopId to start a new loop`,
    );
  }
  if (loop.status === "completed") {
    throw new LoopStateError(
      loop.id,
      `Refinement loop "${loop.id}" is already completed (score ${loop.currentScore} reached ${loop.threshold}); leave out loopId to start a new loop`,
    );
  }
  return loop;
}

/** A scored round: the score, and the loop after the policy's decision. */
export interface ScoredRound extends RoundScore {
  loop: LoopState;
}

/** Scores one round and records the decision on the caller's loop. */
export async function scoreRound(
  input: {
    deps: RefinementDeps;
    caller: Caller;
    loop: LoopState;
    request: MCPRequest;
    round: number;
    results: readonly ActionResult[];
    summaryMessage?: string;
    signal: AbortSignal;
    usage?: UsageMeter;
  },
): Promise<ScoredRound> {
  const { deps, caller, loop, signal } = input;
  const scored = await raceAbort(
    Promise.resolve().then(() =>
      deps.scorer.score({
        request: input.request,
        round: input.round,
        results: input.results,
        summaryMessage: input.summaryMessage,
        threshold: loop.threshold,
        signal,
        usage: input.usage,
      })
    ),
    signal,
  );
  const score = Math.min(100, Math.max(0, Math.round(scored.score)));
  const next = await deps.store.update(caller, loop.id, (state) => decide(state, score));
  return { score, feedback: scored.feedback, loop: next };
}
