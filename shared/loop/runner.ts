/**
 * The MCP loop: context → rounds of plan → execute (→ score) → finalize, with
 * the executor rules of DESIGN.md. `McpLoopRunner` holds the dependencies;
 * `runMcpLoop` is the one-call form. With a run store every request is a run:
 * a row with its checkpoint and events, which can wait for a person's
 * approval, pause at its deadline, be resumed (drive.ts goes on from the
 * checkpoint through the same rounds) and be cancelled.
 */
import {
  type LoopEvent,
  type MCPRequest,
  MCPRequest as MCPRequestSchema,
  type MCPResponse,
} from "../contracts.ts";
import { AppError, describeError } from "../errors.ts";
import { withLogFields } from "../log/log_fields.ts";
import { ANONYMOUS, type Caller, type Logger, SILENT_LOGGER } from "../ports.ts";
import { loadMemory } from "./compaction.ts";
import type { ApprovalDecision } from "../runs/run_contract.ts";
import { initialCheckpoint, type RunCheckpoint } from "../runs/run_state.ts";
import { RunSession } from "../runs/run_session.ts";
import type { RunRecord } from "../runs/run_store.ts";
import { startDeadline } from "./abort.ts";
import { asStageError, type LoadedContext } from "./context_stage.ts";
import { drive, type DriveInput } from "./drive.ts";
import { contextEvent, safeListener } from "./events.ts";
import { openRefinementLoop } from "./refinement_stage.ts";
import { checkpointToResume, rebuildContext, resumedResults, runNotFound } from "./resume.ts";
import type { RoundsState } from "./rounds.ts";
import { runPart, type RunsDeps } from "./run_part.ts";
import { meterFor } from "./usage.ts";
import {
  DEFAULT_LOOP_OPTIONS,
  type LoopDeps,
  type LoopOptions,
  type RunOptions,
} from "./loop_types.ts";
import { cancelRun, recordEarlyFailure } from "./run_cancel.ts";
import { driveInput, timeStage } from "./drive_input.ts";
import { freshProgress, fromCheckpoint } from "./checkpoint_codec.ts";

// The loop's options and dependencies live in loop_types.ts; they are part of this entry point.
export { DEFAULT_LOOP_OPTIONS } from "./loop_types.ts";
export type { LoopCosts, LoopDeps, LoopOptions, RunOptions } from "./loop_types.ts";

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
    const caller = options.caller ?? ANONYMOUS;
    const logger = this.#logFor(caller, options);
    const { deadlineMs } = this.#options;
    const maxRounds = request.maxRounds ?? this.#options.maxRounds;
    const runs = this.#deps.runs;
    const session = runs
      ? await RunSession.start({
        store: runs.store,
        hub: runs.hub,
        caller,
        sessionId: request.sessionId,
        request,
        checkpoint: initialCheckpoint({ maxRounds, budgetMs: deadlineMs }),
        leaseMs: deadlineMs + LEASE_MARGIN_MS,
      }).catch((error) => {
        throw asStageError(
          error,
          NEVER_ABORTED,
          (cause) => `Could not record the run in the database: ${describeError(cause)}; try again`,
          "DB_UNAVAILABLE",
        );
      })
      : undefined;
    const emit = this.#emitter(options, logger, session);
    if (session) emit({ type: "run", runId: session.id });
    const started = performance.now();
    let loaded: LoadedContext;
    let state: RoundsState;
    const usage = meterFor(this.#deps.costs, request);
    const deadline = startDeadline(deadlineMs, { parents: [options.signal] });
    try {
      const { embedder, store, compaction } = this.#deps;
      const signal = deadline.signal;
      loaded = await timeStage(
        options.stageTimings,
        "context",
        () => loadMemory({ request, caller, embedder, store, signal, usage, compaction, logger }),
      );
      emit(contextEvent(loaded, embedder.model));
      const loop = await openRefinementLoop({ deps: this.#deps.refinement, caller, request });
      state = { roundsDone: 0, plan: [], results: [], loop };
    } catch (error) {
      if (session) await recordEarlyFailure(session, error, logger);
      throw error;
    } finally {
      deadline.clear();
    }
    const progress = freshProgress(maxRounds, usage);
    const { embeddedMessage: _vector, ...baseContext } = loaded.context;
    const base = {
      context: baseContext,
      message: loaded.latest.content,
      embedding: loaded.embedding,
      embeddingModel: this.#deps.embedder.model,
    };
    const budgetMs = Math.max(1, Math.round(deadlineMs - (performance.now() - started)));
    return await drive(driveInput(this.#deps, this.#options, {
      request,
      caller,
      options,
      logger,
      emit,
      state,
      progress,
      budgetMs,
      context: loaded.context,
      semanticMatches: loaded.semanticMatches,
      base,
      run: session && runs
        ? runPart(runs, session, base, () => this.#later(session), { baseUnsaved: true })
        : undefined,
    }));
  }

  /**
   * Goes on with a stored run: with `approvals`, one waiting for them (each
   * call approved runs once, each denied one fails with APPROVAL_DENIED);
   * without, one paused at its deadline (a fresh deadline) or abandoned by
   * its process. Answers like {@link run}.
   */
  async resume(
    runId: string,
    options: RunOptions & { approvals?: readonly ApprovalDecision[] } = {},
  ): Promise<MCPResponse> {
    const runs = this.#requireRuns();
    const caller = options.caller ?? ANONYMOUS;
    const record = await runs.store.get(caller, runId);
    if (!record) throw runNotFound(runId);
    const checkpoint = checkpointToResume(record, { approvals: options.approvals });
    const logger = this.#logFor(caller, options);
    const session = await RunSession.claim({
      store: runs.store,
      hub: runs.hub,
      record,
      caller,
      checkpoint,
      leaseMs: this.#options.deadlineMs + LEASE_MARGIN_MS,
    });
    return await this.#continue(record, checkpoint, session, options, logger);
  }

  /** Stops a run: at once if it waits or is paused, else at its next step boundary. */
  cancel(runId: string, { caller = ANONYMOUS }: { caller?: Caller } = {}): Promise<RunRecord> {
    return cancelRun(this.#requireRuns(), runId, caller);
  }

  async #continue(
    record: RunRecord,
    checkpoint: RunCheckpoint,
    session: RunSession,
    options: RunOptions,
    logger: Logger,
  ): Promise<MCPResponse> {
    const runs = this.#requireRuns();
    const caller = session.caller;
    const base = record.base!;
    const results = resumedResults(checkpoint);
    const loop = checkpoint.loopId && this.#deps.refinement
      ? await this.#deps.refinement.store.get(caller, checkpoint.loopId)
      : undefined;
    const { state, progress } = fromCheckpoint(checkpoint, {
      results,
      loop,
      usage: meterFor(this.#deps.costs, record.request, checkpoint.usage),
    });
    // Waiting for a person stops the clock; a run paused at its deadline gets a new one.
    const budgetMs = record.status === "waiting_approval" && checkpoint.budgetMs > 0
      ? checkpoint.budgetMs
      : this.#options.deadlineMs;
    return await drive(driveInput(this.#deps, this.#options, {
      request: record.request,
      caller,
      options,
      logger,
      emit: this.#emitter(options, logger, session),
      state,
      progress,
      budgetMs,
      context: rebuildContext(base, results),
      semanticMatches: (base.context.semanticMatches ?? []) as DriveInput["semanticMatches"],
      base,
      run: runPart(runs, session, base, () => this.#later(session), { baseUnsaved: false }),
    }));
  }

  /** Continues a run paused at its deadline in the background, a bounded number of times. */
  #later(session: RunSession): void {
    const runs = this.#deps.runs;
    if (!runs?.keepAlive || !runs.backgroundContinuations) return;
    runs.keepAlive(
      (async () => {
        const record = await runs.store.get(session.caller, session.id);
        if (!record || record.checkpoint.continuations >= runs.backgroundContinuations!) return;
        const checkpoint = {
          ...record.checkpoint,
          continuations: record.checkpoint.continuations + 1,
        };
        const claimed = await RunSession.claim({
          store: runs.store,
          hub: runs.hub,
          record,
          caller: session.caller,
          checkpoint,
          leaseMs: this.#options.deadlineMs + LEASE_MARGIN_MS,
        });
        await this.#continue(record, checkpoint, claimed, {}, this.#logger);
      })().catch((error) =>
        this.#logger.warn("a paused run could not go on in the background", {
          runId: session.id,
          error: (error as { code?: string }).code ?? "unknown",
        })
      ),
    );
  }

  /** Events go to the listener and, for a persisted run, into its numbered log. */
  #emitter(
    options: RunOptions,
    logger: Logger,
    session: RunSession | undefined,
  ): (event: LoopEvent) => void {
    const listener = safeListener(options.onEvent, logger);
    return (event) => listener(event, session?.record(event));
  }

  #logFor(caller: Caller, options: RunOptions): Logger {
    // Every entry of this run names its request and caller (ids only, never content).
    return options.requestId === undefined
      ? this.#logger
      : withLogFields(this.#logger, { requestId: options.requestId, caller: caller.owner });
  }

  #requireRuns(): RunsDeps {
    if (this.#deps.runs) return this.#deps.runs;
    throw new AppError(
      "CONFIG_INVALID",
      "This loop keeps no runs: give the runner a run store (`runs`) to resume, approve or cancel them",
    );
  }
}

/** A signal that never aborts (a stage with no deadline of its own). */
const NEVER_ABORTED = new AbortController().signal;

/** How long a run's process holds it past its deadline before another may take it over. */
const LEASE_MARGIN_MS = 30_000;

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
