/**
 * A turn of the loop, from its context to its answer: {@link prepareTurn}
 * loads the context (embedding, recall, compaction) and opens a refinement
 * loop when asked; {@link runTurn} runs the rounds from a state — a fresh one
 * or one a durable run saved — under one deadline, and ends the turn: a stop
 * that ends it stores the turn (message, reply) and answers; a stop a durable
 * run holds for (an approval, the deadline, a cancel) answers with the state
 * kept, for its keeper to save.
 */
import { startDeadline } from "../abort.ts";
import type { LoopEvent, MCPRequest, MCPResponse, StopReason } from "../contracts.ts";
import type { AuditEvent, AuditLog, Caller } from "../ports.ts";
import { toOutput as toLoopOutput } from "../refinement/refinement_tools.ts";
import type { CallOrigin } from "../tools/approval_rule.ts";
import { OPEN_POLICY } from "../tools/tool_policy.ts";
import { loadMemory } from "./compaction.ts";
import { contextEvent } from "./events.ts";
import type { StepGate } from "./executor.ts";
import { storeTurn, summaryOf } from "./finalize_stage.ts";
import type { LoopParts } from "./loop_types.ts";
import { openRefinementLoop } from "./refinement_stage.ts";
import { type RoundsInput, type RoundTiming, runRounds } from "./rounds.ts";
import { HOLDING_STOPS } from "./stop_conditions.ts";
import {
  contextOf,
  entries,
  freshState,
  type RunJournal,
  type TurnBase,
  type TurnState,
} from "./turn_state.ts";
import { meterFor } from "./usage.ts";

/** A turn about to plan: what it started from, its state, and the budget the context left. */
export interface PreparedTurn {
  base: TurnBase;
  state: TurnState;
  budgetMs: number;
}

/** Loads the turn's context (see the module doc). */
export async function prepareTurn(
  loop: LoopParts,
  { request, caller, signal, emit, stageTimings }: {
    request: MCPRequest;
    caller: Caller;
    signal?: AbortSignal;
    emit: (event: LoopEvent) => void;
    stageTimings?: Record<string, number>;
  },
): Promise<PreparedTurn> {
  const { deadlineMs } = loop.options;
  const started = performance.now();
  const usage = meterFor(loop.costs, request);
  const deadline = startDeadline(deadlineMs, { parents: [signal] });
  try {
    const loaded = await timed(stageTimings, "context", () =>
      loadMemory({
        request,
        caller,
        embedder: loop.embedder,
        store: loop.store,
        signal: deadline.signal,
        usage,
        compaction: loop.compaction,
        logger: loop.logger,
      }));
    emit(contextEvent(loaded, loop.embedder.model));
    const refinementLoop = await openRefinementLoop({ deps: loop.refinement, caller, request });
    const { embeddedMessage: _vector, ...context } = loaded.context;
    return {
      base: {
        context,
        message: loaded.latest.content,
        embedding: loaded.embedding,
        embeddingModel: loop.embedder.model,
      },
      state: freshState({
        maxRounds: request.maxRounds ?? loop.options.maxRounds,
        usage,
        loop: refinementLoop,
      }),
      budgetMs: Math.max(1, Math.round(deadlineMs - (performance.now() - started))),
    };
  } finally {
    deadline.clear();
  }
}

/** What a turn runs with besides the loop's parts. */
export interface TurnInput {
  request: MCPRequest;
  caller: Caller;
  base: TurnBase;
  state: TurnState;
  /** Milliseconds this turn may take. */
  budgetMs: number;
  /** Aborts the turn from outside (a caller's signal, a cancel). */
  signal?: AbortSignal;
  emit: (event: LoopEvent) => void;
  /** A durable run: where it is written, and which of its calls wait for a person. */
  durable?: { journal: RunJournal; gate?: (origin: CallOrigin) => StepGate };
  /**
   * Where the turn's tool calls are audited: rows kept with the turn and stored
   * with it; a durable run's keeper writes those of a turn that holds or fails.
   */
  audit?: TurnAudit;
  runId?: string;
  requestId?: string;
  stageTimings?: Record<string, number>;
  roundTimings?: RoundTiming[];
}

/** How a turn ended: its answer, why it stopped, and the budget left (for a durable run's save). */
export interface TurnEnd {
  response: MCPResponse;
  stopReason: StopReason;
  budgetLeftMs: number;
}

/** Runs the rounds from `input.state` and ends the turn (see the module doc). */
export async function runTurn(loop: LoopParts, input: TurnInput): Promise<TurnEnd> {
  const { budgetMs } = input;
  const deadline = startDeadline(budgetMs, { parents: [input.signal] });
  // Steps stop a little before the deadline so the turn can still be stored in time.
  const stepsDeadline = startDeadline(Math.round(budgetMs - Math.min(250, budgetMs / 10)), {
    parents: [deadline.signal],
  });
  // Storing follows the deadline only: once tools have run, the turn must be stored.
  const storeDeadline = startDeadline(budgetMs);
  const started = performance.now();
  const budgetLeft = () => Math.max(0, Math.round(budgetMs - (performance.now() - started)));
  const audit = input.audit ?? new TurnAudit();
  const context = contextOf(input.base, input.state.results);
  const roundTimings = input.roundTimings ?? [];
  try {
    const outcome = await runRounds(
      roundsInput(loop, input, {
        context,
        audit,
        signal: deadline.signal,
        stepsSignal: stepsDeadline.signal,
        timings: roundTimings,
        budgetLeft,
      }),
      input.state,
    );
    if (input.stageTimings) addRoundTimings(input.stageTimings, roundTimings);
    const answer = (extra: Partial<MCPResponse["data"]>) => respond(input, context, outcome, extra);
    if (input.durable && HOLDING_STOPS.has(outcome.stopReason)) {
      const pendingApprovals = outcome.stopReason === "approval_required"
        ? input.state.pendingApprovals
        : undefined;
      if (pendingApprovals) input.emit({ type: "approval_required", pendingApprovals });
      return { response: answer({ pendingApprovals }), ...outcome, budgetLeftMs: budgetLeft() };
    }
    const summaryMessage = await finish(loop, input, audit, storeDeadline.signal);
    return { response: answer({ summaryMessage }), ...outcome, budgetLeftMs: budgetLeft() };
  } finally {
    storeDeadline.clear();
    stepsDeadline.clear();
    deadline.clear();
  }
}

/** What the turn's rounds run with: the loop's parts, the turn's input, its deadlines and timings. */
function roundsInput(
  loop: LoopParts,
  input: TurnInput,
  { context, audit, signal, stepsSignal, timings, budgetLeft }: {
    context: Record<string, unknown>;
    audit: TurnAudit;
    signal: AbortSignal;
    stepsSignal: AbortSignal;
    timings: RoundTiming[];
    budgetLeft: () => number;
  },
): RoundsInput {
  return {
    plan: {
      planner: loop.planner,
      registry: loop.registry,
      request: input.request,
      logger: loop.logger,
      policy: loop.policy ?? OPEN_POLICY,
      caller: input.caller,
      usage: input.state.usage,
      toolSearch: loop.toolSearch,
    },
    execute: {
      context,
      request: input.request,
      caller: input.caller,
      registry: loop.registry,
      policy: loop.policy,
      audit,
      requestId: input.requestId,
      runId: input.runId,
      stepTimeoutMs: loop.options.stepTimeoutMs,
      logger: loop.logger,
      onEvent: input.emit,
      usage: input.state.usage,
      services: loop.services,
    },
    rules: loop.options,
    signal,
    stepsSignal,
    refinement: input.state.loop ? loop.refinement : undefined,
    emit: input.emit,
    timings,
    durable: input.durable && { ...input.durable, budgetMs: budgetLeft },
  };
}

/** Ends the turn: the summary event, then the message, the reply (and buffered audit rows) stored. */
async function finish(
  loop: LoopParts,
  input: TurnInput,
  audit: TurnAudit,
  signal: AbortSignal,
): Promise<string | undefined> {
  const summaryMessage = summaryOf(entries(input.state));
  if (summaryMessage !== undefined) input.emit({ type: "summary", summaryMessage });
  const events = audit.take();
  try {
    await timed(input.stageTimings, "finalize", () =>
      storeTurn({
        store: loop.store,
        caller: input.caller,
        request: input.request,
        message: {
          content: input.base.message,
          embedding: input.base.embedding,
          embeddingModel: input.base.embeddingModel,
        },
        summaryMessage,
        events,
        requestId: input.requestId,
        runId: input.runId,
      }, signal));
  } catch (error) {
    // Not stored: the calls' rows stay for whoever records the failure.
    audit.record(input.caller, events);
    throw error;
  }
  return summaryMessage;
}

/** The response body of the turn as it stands. */
function respond(
  input: TurnInput,
  context: Record<string, unknown>,
  outcome: { rounds: number; stopReason: StopReason },
  extra: Partial<MCPResponse["data"]>,
): MCPResponse {
  const { state } = input;
  return {
    success: true,
    data: {
      context,
      intermediateResults: entries(state),
      plan: state.plan,
      semanticMatches: (input.base.context.semanticMatches ?? []) as unknown[],
      rounds: outcome.rounds,
      stopReason: outcome.stopReason,
      usage: state.usage.total,
      ...(state.loop ? { refinement: toLoopOutput(state.loop) } : {}),
      ...(input.runId ? { runId: input.runId } : {}),
      ...Object.fromEntries(Object.entries(extra).filter(([, value]) => value !== undefined)),
    },
  };
}

/**
 * The audit rows of a turn's tool calls, kept with the turn: stored with it
 * (the conversation store writes them in the same statement as its messages),
 * or — when a durable run holds or fails — written by the run's keeper.
 */
export class TurnAudit implements AuditLog {
  #events: AuditEvent[] = [];

  record(_caller: Caller, events: AuditEvent[]): Promise<void> {
    this.#events.push(...events);
    return Promise.resolve();
  }

  flush(): Promise<void> {
    return Promise.resolve();
  }

  take(): AuditEvent[] {
    const events = this.#events;
    this.#events = [];
    return events;
  }
}

/** Runs a stage, adding its duration to `timings` (whether it succeeds or throws). */
async function timed<T>(
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
function addRoundTimings(
  timings: Record<string, number>,
  rounds: readonly { plan: number; execute: number; score?: number }[],
): void {
  for (const stage of ["plan", "execute", "score"] as const) {
    const total = rounds.reduce((sum, round) => sum + (round[stage] ?? 0), 0);
    if (stage !== "score" || rounds.some((round) => round.score !== undefined)) {
      timings[stage] = Math.round(total * 10) / 10;
    }
  }
}
