/**
 * The inputs of a drive (drive.ts), from the runner's dependencies and a
 * run's state, for a new request and a resumed run alike.
 */
import type { LoopEvent, MCPRequest } from "../contracts.ts";
import type { Caller, Logger } from "../ports.ts";
import { OPEN_POLICY } from "../tools/tool_policy.ts";
import type { DriveInput, RunPart } from "./drive.ts";
import type { Progress } from "./checkpoint_codec.ts";
import type { RoundsState } from "./rounds.ts";
import type { LoopDeps, LoopOptions, RunOptions } from "./loop_types.ts";

/** What a drive needs, given the runner's dependencies. */
export function driveInput(
  deps: LoopDeps,
  loopOptions: LoopOptions,
  {
    request,
    caller,
    options,
    logger,
    emit,
    state,
    progress,
    budgetMs,
    context,
    semanticMatches,
    base,
    run,
  }: {
    request: MCPRequest;
    caller: Caller;
    options: RunOptions;
    logger: Logger;
    emit: (event: LoopEvent) => void;
    state: RoundsState;
    progress: Progress;
    budgetMs: number;
    context: Record<string, unknown>;
    semanticMatches: DriveInput["semanticMatches"];
    base: { message: string; embedding: number[]; embeddingModel: string };
    run?: RunPart;
  },
): DriveInput {
  const { registry, planner, store } = deps;
  const usage = progress.usage;
  const roundTimings = options.roundTimings ?? [];
  return {
    rounds: {
      plan: {
        planner,
        registry,
        request,
        logger,
        policy: deps.policy ?? OPEN_POLICY,
        caller,
        usage,
        toolSearch: deps.toolSearch,
      },
      execute: {
        context,
        request,
        caller,
        stepTimeoutMs: loopOptions.stepTimeoutMs,
        logger,
        onEvent: emit,
        usage,
        services: deps.services,
      },
      rules: loopOptions,
      refinement: state.loop && deps.refinement ? { deps: deps.refinement } : undefined,
      emit,
      timings: roundTimings,
    },
    request,
    caller,
    store,
    logger,
    state,
    progress,
    budgetMs,
    signal: options.signal,
    emit,
    semanticMatches,
    message: { content: base.message },
    embedding: { vector: base.embedding, model: base.embeddingModel },
    requestId: options.requestId,
    stageTimings: options.stageTimings,
    run,
  };
}

/** Runs a stage, adding its duration to `timings` (whether it succeeds or throws). */
export async function timeStage<T>(
  timings: Record<string, number> | undefined,
  stage: string,
  fn: () => Promise<T>,
): Promise<T> {
  if (!timings) return fn();
  const started = performance.now();
  try {
    return await fn();
  } finally {
    timings[stage] = Math.round((performance.now() - started) * 10) / 10;
  }
}
