/**
 * The MCP loop: context → rounds of plan → execute (→ score) → finalize, with
 * the executor rules of DESIGN.md. `McpLoopRunner` holds the dependencies;
 * `runMcpLoop` is the one-call form. Given a run keeper (`runs`, a
 * `RunEngine` from shared/runs/) every request is a durable run: a stored row
 * with its checkpoint and events, which can wait for a person's approval,
 * pause at its deadline, be resumed and be cancelled. Without one a run lives
 * in its request.
 */
import {
  type MCPRequest,
  MCPRequest as MCPRequestSchema,
  type MCPResponse,
  type RunView,
} from "../contracts.ts";
import { AppError } from "../errors.ts";
import { withLogFields } from "../log/log_fields.ts";
import { ANONYMOUS, type Caller, SILENT_LOGGER } from "../ports.ts";
import { safeListener } from "./events.ts";
import {
  DEFAULT_LOOP_OPTIONS,
  type LoopDeps,
  type LoopParts,
  type ResumeOptions,
  type RunKeeper,
  type RunOptions,
} from "./loop_types.ts";
import { prepareTurn, runTurn } from "./turn.ts";

// The loop's options and dependencies live in loop_types.ts; they are part of this entry point.
export { DEFAULT_LOOP_OPTIONS } from "./loop_types.ts";
export type {
  LoopCosts,
  LoopDeps,
  LoopOptions,
  LoopParts,
  ResumeOptions,
  RunKeeper,
  RunOptions,
} from "./loop_types.ts";

/** Runs MCP loop requests against one set of dependencies. */
export class McpLoopRunner {
  readonly #parts: LoopParts;
  readonly #runs: RunKeeper | undefined;

  constructor({ runs, options, logger, ...deps }: LoopDeps) {
    this.#parts = {
      ...deps,
      options: { ...DEFAULT_LOOP_OPTIONS, ...options },
      logger: logger ?? SILENT_LOGGER,
    };
    this.#runs = runs;
  }

  /**
   * Runs one request: context, then rounds of plan and execute (see
   * rounds.ts), then the turn is stored. Returns the full trace.
   */
  run(request: MCPRequest, options: RunOptions = {}): Promise<MCPResponse> {
    const loop = this.#withLogFields(options);
    if (this.#runs) return this.#runs.start(loop, request, options);
    return runInRequest(loop, request, options);
  }

  /**
   * Goes on with a stored run: with `approvals`, one waiting for them (each
   * call approved runs once, each denied one fails with APPROVAL_DENIED);
   * without, one paused at its deadline or abandoned by its process. Answers
   * like {@link run}.
   */
  async resume(runId: string, options: ResumeOptions = {}): Promise<MCPResponse> {
    return await this.#requireRuns().resume(this.#withLogFields(options), runId, options);
  }

  /** Stops a run: at once if it waits or is paused, else at its next step boundary. */
  async cancel(runId: string, options: { caller?: Caller } = {}): Promise<RunView> {
    return await this.#requireRuns().cancel(runId, options);
  }

  /** The parts, whose log lines name this run's request and caller (ids only, never content). */
  #withLogFields(options: RunOptions): LoopParts {
    if (options.requestId === undefined) return this.#parts;
    const caller = options.caller ?? ANONYMOUS;
    const fields = { requestId: options.requestId, caller: caller.owner };
    return { ...this.#parts, logger: withLogFields(this.#parts.logger, fields) };
  }

  #requireRuns(): RunKeeper {
    if (this.#runs) return this.#runs;
    throw new AppError(
      "CONFIG_INVALID",
      "This loop keeps no runs: give the runner a run keeper (`runs`, a RunEngine) to resume, approve or cancel them",
    );
  }
}

/** A run that lives in its request: context, rounds, the turn stored. */
async function runInRequest(
  loop: LoopParts,
  request: MCPRequest,
  options: RunOptions,
): Promise<MCPResponse> {
  const caller = options.caller ?? ANONYMOUS;
  const emit = safeListener(options.onEvent, loop.logger);
  const prepared = await prepareTurn(loop, {
    request,
    caller,
    signal: options.signal,
    emit,
    stageTimings: options.stageTimings,
  });
  const { response } = await runTurn(loop, {
    request,
    caller,
    ...prepared,
    signal: options.signal,
    emit,
    requestId: options.requestId,
    stageTimings: options.stageTimings,
    roundTimings: options.roundTimings,
  });
  return response;
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
