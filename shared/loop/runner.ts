/**
 * The MCP loop: context → rounds of plan → execute (→ score) → finalize, with
 * the executor rules of DESIGN.md. `McpLoopRunner` holds the dependencies;
 * `runMcpLoop` is the one-call form.
 */
import { type MCPRequest, MCPRequest as MCPRequestSchema, type MCPResponse } from "../contracts.ts";
import { AppError } from "../errors.ts";
import { withLogFields } from "../log/log_fields.ts";
import {
  ANONYMOUS,
  type Caller,
  type ConversationStore,
  type Embedder,
  type Logger,
  type Planner,
  SILENT_LOGGER,
} from "../ports.ts";
import { toOutput as toLoopOutput } from "../refinement/refinement_tools.ts";
import { OPEN_POLICY, type ToolPolicy } from "../tools/tool_policy.ts";
import type { ToolServices } from "../tools/tool.ts";
import type { ToolRegistry } from "../tools/tool_registry.ts";
import { startDeadline } from "./abort.ts";
import { loadLoopContext } from "./context_stage.ts";
import { storeTurn, summaryOf } from "./finalize_stage.ts";
import { contextEvent, type LoopEventListener, safeListener } from "./events.ts";
import { openRefinementLoop, type RefinementDeps } from "./refinement_stage.ts";
import { type RoundTiming, runRounds } from "./rounds.ts";
import { UsageTotals } from "./usage.ts";

/** Tunables of the loop. */
export interface LoopOptions {
  /** Whole-request deadline in ms (default 10 000, the source's "within 10 s"). */
  deadlineMs: number;
  /** Per-step timeout in ms (default 8 000; a step never outlives the deadline). */
  stepTimeoutMs: number;
  /** What an unknown tool in a plan does: skip and record (default) or fail the request. */
  unknownTool: "skip" | "fail";
  /** What invalid args do: fail the request before anything runs (default) or skip the step. */
  invalidArgs: "fail" | "skip";
  /** Most rounds per request unless the request says (default 3; 1 is a one-shot plan). */
  maxRounds: number;
}

/** The defaults of {@link LoopOptions}. */
export const DEFAULT_LOOP_OPTIONS: Readonly<LoopOptions> = Object.freeze({
  deadlineMs: 10_000,
  stepTimeoutMs: 8_000,
  unknownTool: "skip",
  invalidArgs: "fail",
  maxRounds: 3,
});

/** What the loop depends on. */
export interface LoopDeps {
  registry: ToolRegistry;
  planner: Planner;
  embedder: Embedder;
  store: ConversationStore;
  logger?: Logger;
  options?: Partial<LoopOptions>;
  /** Which tools each mode and caller may use (default: every tool for everyone). */
  policy?: ToolPolicy;
  /** Refinement loops and their scorer, for requests with `refinement` (see refinement_stage.ts). */
  refinement?: RefinementDeps;
  /** The caller-bound clients tools get (supabase-js, the database). */
  services?: ToolServices;
}

/** Per-run options. */
export interface RunOptions {
  /** Who is calling (default: anonymous). */
  caller?: Caller;
  /** Progress events; a throwing listener is ignored. */
  onEvent?: LoopEventListener;
  /** Aborts the run (e.g. the client went away). */
  signal?: AbortSignal;
  /** Correlates audit rows with logs. */
  requestId?: string;
  /** Filled with the milliseconds each stage took (context, plan, execute, score, finalize). */
  stageTimings?: Record<string, number>;
  /** Filled with each round's timings (plan, execute, score). */
  roundTimings?: RoundTiming[];
}

/** Runs MCP loop requests against one set of dependencies. */
export class McpLoopRunner {
  readonly #deps: LoopDeps;
  readonly #options: LoopOptions;
  readonly #logger: Logger;

  constructor(deps: LoopDeps) {
    this.#deps = deps;
    this.#options = { ...DEFAULT_LOOP_OPTIONS, ...deps.options };
    this.#logger = deps.logger ?? SILENT_LOGGER;
  }

  /**
   * Runs one request: context, then rounds of plan and execute (see
   * rounds.ts), then the turn is stored. Returns the full trace.
   */
  async run(request: MCPRequest, options: RunOptions = {}): Promise<MCPResponse> {
    const { deadlineMs } = this.#options;
    const deadline = startDeadline(deadlineMs, { parents: [options.signal] });
    // Steps stop a little before the deadline so the turn can still be stored in time.
    const stepsDeadline = startDeadline(deadlineMs - Math.min(250, deadlineMs / 10), {
      parents: [deadline.signal],
    });
    // Storing the turn follows the deadline only: once tools have run, a client going away
    // must not leave the turn half-reported ("nothing was saved") while the statement commits.
    const storeDeadline = startDeadline(deadlineMs);
    try {
      return await this.#run(request, options, {
        signal: deadline.signal,
        stepsSignal: stepsDeadline.signal,
        storeSignal: storeDeadline.signal,
      });
    } finally {
      storeDeadline.clear();
      stepsDeadline.clear();
      deadline.clear();
    }
  }

  async #run(
    request: MCPRequest,
    options: RunOptions,
    { signal, stepsSignal, storeSignal }: {
      signal: AbortSignal;
      stepsSignal: AbortSignal;
      storeSignal: AbortSignal;
    },
  ): Promise<MCPResponse> {
    const { registry, planner, embedder, store } = this.#deps;
    const caller = options.caller ?? ANONYMOUS;
    // Every entry of this run names its request and caller (ids only, never content).
    const logger = options.requestId === undefined
      ? this.#logger
      : withLogFields(this.#logger, { requestId: options.requestId, caller: caller.owner });
    const emit = safeListener(options.onEvent, logger);
    const timings = options.stageTimings;
    const usage = new UsageTotals();
    const loaded = await timeStage(
      timings,
      "context",
      () => loadLoopContext({ request, caller, embedder, store, signal, usage }),
    );
    const { context } = loaded;
    emit(contextEvent(loaded, embedder.model));
    const loop = await openRefinementLoop({ deps: this.#deps.refinement, caller, request });

    const roundTimings = options.roundTimings ?? [];
    const outcome = await runRounds({
      plan: {
        planner,
        registry,
        request,
        signal,
        logger,
        policy: this.#deps.policy ?? OPEN_POLICY,
        caller,
        usage,
      },
      execute: {
        context,
        request,
        caller,
        signal: stepsSignal,
        stepTimeoutMs: this.#options.stepTimeoutMs,
        logger,
        onEvent: emit,
        usage,
        services: this.#deps.services,
      },
      rules: this.#options,
      maxRounds: request.maxRounds ?? this.#options.maxRounds,
      stepsSignal,
      refinement: loop && this.#deps.refinement ? { deps: this.#deps.refinement, loop } : undefined,
      emit,
      timings: roundTimings,
    });
    if (timings) addRoundTimings(timings, roundTimings);
    const { plan, results: intermediateResults } = outcome;

    const summaryMessage = summaryOf(intermediateResults);
    if (summaryMessage !== undefined) emit({ type: "summary", summaryMessage });

    await timeStage(timings, "finalize", () =>
      storeTurn({
        store,
        caller,
        request,
        message: {
          content: loaded.latest.content,
          embedding: loaded.embedding,
          embeddingModel: embedder.model,
        },
        summaryMessage,
        results: intermediateResults,
        requestId: options.requestId,
      }, storeSignal));

    return {
      success: true,
      data: {
        context,
        intermediateResults,
        plan,
        semanticMatches: loaded.semanticMatches,
        summaryMessage,
        rounds: outcome.rounds,
        stopReason: outcome.stopReason,
        usage: usage.total,
        ...(outcome.loop ? { refinement: toLoopOutput(outcome.loop) } : {}),
      },
    };
  }
}

/**
 * Runs one request through the loop.
 *
 * @example
 * ```ts
 * const response = await runMcpLoop(
 *   { mode: "general", sessionId: "s1", messages: [{ role: "user", content: "hi" }] },
 *   { registry, planner, embedder, store },
 * );
 * console.log(response.data.plan, response.data.summaryMessage);
 * ```
 */
export function runMcpLoop(
  request: MCPRequest,
  deps: LoopDeps,
  options?: RunOptions,
): Promise<MCPResponse> {
  const parsed = MCPRequestSchema.safeParse(request);
  if (!parsed.success) {
    return Promise.reject(
      new AppError("VALIDATION_FAILED", "The request does not match MCPRequest", {
        details: { issues: parsed.error.issues },
      }),
    );
  }
  return new McpLoopRunner(deps).run(parsed.data, options);
}

/** Runs a stage, adding its duration to `timings` (whether it succeeds or throws). */
async function timeStage<T>(
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

/** The rounds' plan, execute and score times, summed into the stage timings. */
function addRoundTimings(timings: Record<string, number>, rounds: readonly RoundTiming[]): void {
  for (const stage of ["plan", "execute", "score"] as const) {
    const total = rounds.reduce((sum, round) => sum + (round[stage] ?? 0), 0);
    if (stage !== "score" || rounds.some((round) => round.score !== undefined)) {
      timings[stage] = Math.round(total * 10) / 10;
    }
  }
}
