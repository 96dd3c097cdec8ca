/**
 * Drives a run from where it stands to where it stops, for a new request and
 * for a resumed run alike: the rounds (rounds.ts) under one deadline budget,
 * then what the stop means — a finished run stores its turn; a persisted run
 * waiting for approval, paused at its deadline or cancelled keeps its state
 * (and writes the audit rows of what ran) instead.
 */
import type { ActionResult, LoopEvent, MCPRequest, MCPResponse, StopReason } from "../contracts.ts";
import type { AuditLog, Caller, ConversationStore, Logger, SemanticMatch } from "../ports.ts";
import { toOutput as toLoopOutput } from "../refinement/refinement_tools.ts";
import type { PendingApproval } from "../runs/run_contract.ts";
import { CancelReason, type RunningRuns } from "../runs/run_events.ts";
import type { RunSession } from "../runs/run_session.ts";
import { type Progress, toCheckpoint } from "./checkpoint_codec.ts";
import type { RunBase } from "../runs/run_store.ts";
import { startDeadline } from "./abort.ts";
import { toAuditEvent } from "./audit_event.ts";
import { isHeld } from "./executor.ts";
import { storeTurn, summaryOf } from "./finalize_stage.ts";
import { type RoundHooks, type RoundsInput, type RoundsState, runRounds } from "./rounds.ts";

/** A persisted run's part in a drive. */
export interface RunPart {
  session: RunSession;
  running: RunningRuns;
  audit?: AuditLog;
  /** Builds the approval gate for this drive (it adds to `progress`). */
  hooks: (progress: Progress, state: RoundsState) => Pick<RoundHooks, "gate">;
  /** Continues a run paused at its deadline in the background, when configured. */
  continueLater?: () => void;
  /** What the run started from; written with its first save when `baseUnsaved`. */
  base: RunBase;
  baseUnsaved: boolean;
  /** How long a running run's hold lasts past its budget. */
  leaseMarginMs: number;
}

/** Everything a drive needs. */
export interface DriveInput {
  /** The rounds' inputs; the drive sets their signals, limits and hooks. */
  rounds: Omit<RoundsInput, "stepsSignal" | "hooks" | "maxRounds" | "plan" | "execute"> & {
    plan: Omit<RoundsInput["plan"], "signal">;
    execute: Omit<RoundsInput["execute"], "signal">;
  };
  request: MCPRequest;
  caller: Caller;
  store: ConversationStore;
  logger: Logger;
  state: RoundsState;
  progress: Progress;
  /** Milliseconds this drive may take. */
  budgetMs: number;
  /** Aborts the drive from outside (a caller's own signal). */
  signal?: AbortSignal;
  emit: (event: LoopEvent) => void;
  semanticMatches: SemanticMatch[];
  /** The latest message, stored with the turn. */
  message: { content: string };
  embedding: { vector: number[]; model: string };
  requestId?: string;
  /** Filled with the milliseconds of each stage (plan, execute, score summed over rounds; finalize). */
  stageTimings?: Record<string, number>;
  run?: RunPart;
}

/** Runs the rounds from `input.state` and settles how the run stopped. */
export async function drive(input: DriveInput): Promise<MCPResponse> {
  const { run, budgetMs } = input;
  const controller = new AbortController();
  const forget = run ? run.running.add(run.session.id, controller) : () => {};
  const deadline = startDeadline(budgetMs, { parents: [input.signal, controller.signal] });
  // Steps stop a little before the deadline so the turn can still be stored in time.
  const stepsDeadline = startDeadline(Math.round(budgetMs - Math.min(250, budgetMs / 10)), {
    parents: [deadline.signal],
  });
  // Storing follows the deadline only: once tools have run, the turn must be stored.
  const storeDeadline = startDeadline(budgetMs);
  const started = performance.now();
  try {
    const outcome = await runRounds({
      ...input.rounds,
      plan: { ...input.rounds.plan, signal: deadline.signal },
      execute: { ...input.rounds.execute, signal: stepsDeadline.signal },
      maxRounds: input.progress.maxRounds,
      stepsSignal: stepsDeadline.signal,
      hooks: run ? persistedHooks(input, run, controller, budgetMs) : {},
    }, input.state);
    if (input.stageTimings) addRoundTimings(input.stageTimings, input.rounds.timings);
    const spent = performance.now() - started;
    return await settle(input, outcome, {
      budgetLeftMs: Math.max(0, Math.round(budgetMs - spent)),
      storeSignal: storeDeadline.signal,
    });
  } catch (error) {
    if (run) await failRun(input, run, error);
    throw error;
  } finally {
    storeDeadline.clear();
    stepsDeadline.clear();
    deadline.clear();
    forget();
  }
}

/** The hooks of a persisted run: approvals, write-ahead records, checkpoints and cancels. */
function persistedHooks(
  input: DriveInput,
  run: RunPart,
  controller: AbortController,
  budgetMs: number,
): RoundHooks {
  // Whether a step that is not read-only ran since the last save: its result must be saved.
  let wrote = false;
  const save = async () => {
    wrote = false;
    await run.session.save({
      status: "running",
      checkpoint: toCheckpoint(input, { budgetMs }),
      leaseMs: budgetMs + run.leaseMarginMs,
      ...baseOnce(run),
    });
    if (run.session.cancelRequested) controller.abort(new CancelReason());
  };
  return {
    ...run.hooks(input.progress, input.state),
    keepUnrun: true,
    // The round before the run stops: its final state follows at once, so a checkpoint is
    // needed only for a write's result (a crash in between re-runs read-only steps only).
    checkpoint: ({ last = false } = {}) => last && !wrote ? Promise.resolve() : save(),
    beforeWrite: async (position) => {
      input.progress.inFlight.push(position);
      await save();
      wrote = true;
    },
  };
}

/** The run's base for its first write, once. */
function baseOnce(run: RunPart): { base?: RunBase } {
  if (!run.baseUnsaved) return {};
  run.baseUnsaved = false;
  return { base: run.base };
}

/** What a stop means for the run, and the response. */
async function settle(
  input: DriveInput,
  outcome: { rounds: number; stopReason: StopReason },
  { budgetLeftMs, storeSignal }: { budgetLeftMs: number; storeSignal: AbortSignal },
): Promise<MCPResponse> {
  const { run, state, progress } = input;
  const { stopReason } = outcome;
  const waiting = stopReason === "approval_required" || stopReason === "deadline" ||
    stopReason === "cancelled";
  if (run && waiting) {
    await writeAudit(input, run);
    const pendingApprovals = stopReason === "approval_required"
      ? progress.pendingApprovals.filter((pending) => !progress.decisions[pending.id])
      : undefined;
    if (pendingApprovals) input.emit({ type: "approval_required", pendingApprovals });
    const response = respond(input, outcome, { pendingApprovals });
    run.session.record({ type: "result", data: response });
    const status = stopReason === "approval_required"
      ? "waiting_approval"
      : stopReason === "deadline"
      ? "paused"
      : "cancelled";
    await run.session.save({
      status,
      stopReason,
      checkpoint: toCheckpoint(input, { budgetMs: budgetLeftMs, stopReason }),
      ...baseOnce(run),
    });
    if (status === "paused") run.continueLater?.();
    return response;
  }
  const summaryMessage = summaryOf(state.results);
  if (summaryMessage !== undefined) input.emit({ type: "summary", summaryMessage });
  const started = performance.now();
  try {
    await storeTurn({
      store: input.store,
      caller: input.caller,
      request: input.request,
      message: {
        content: input.message.content,
        embedding: input.embedding.vector,
        embeddingModel: input.embedding.model,
      },
      summaryMessage,
      results: state.results.filter((result, position) =>
        result !== undefined && !progress.audited.includes(position)
      ),
      requestId: input.requestId,
      runId: run?.session.id,
    }, storeSignal);
  } finally {
    if (input.stageTimings) {
      input.stageTimings.finalize = Math.round((performance.now() - started) * 10) / 10;
    }
  }
  const response = respond(input, outcome, { summaryMessage });
  if (run) {
    run.session.record({ type: "result", data: response });
    await run.session.save({
      status: "completed",
      stopReason,
      checkpoint: toCheckpoint(input, { budgetMs: budgetLeftMs, stopReason }),
      ...baseOnce(run),
    });
  }
  return response;
}

/** The response body of the run as it stands. */
function respond(
  input: DriveInput,
  outcome: { rounds: number; stopReason: StopReason },
  { summaryMessage, pendingApprovals }: {
    summaryMessage?: string;
    pendingApprovals?: PendingApproval[];
  },
): MCPResponse {
  const { state, run } = input;
  return {
    success: true,
    data: {
      context: input.rounds.execute.context,
      intermediateResults: state.results.filter((result) => result !== undefined),
      plan: state.plan,
      semanticMatches: input.semanticMatches,
      summaryMessage,
      rounds: outcome.rounds,
      stopReason: outcome.stopReason,
      usage: input.progress.usage.total,
      ...(state.loop ? { refinement: toLoopOutput(state.loop) } : {}),
      ...(run ? { runId: run.session.id } : {}),
      ...(pendingApprovals ? { pendingApprovals } : {}),
    },
  };
}

/** Writes the audit rows of the steps that ran and have none yet (a run that waits or stops). */
async function writeAudit(input: DriveInput, run: RunPart): Promise<void> {
  const { state, progress } = input;
  const fresh: [number, ActionResult][] = [];
  state.results.forEach((result, position) => {
    if (result && !isHeld(result) && !progress.audited.includes(position)) {
      fresh.push([position, result]);
    }
  });
  if (fresh.length === 0 || !run.audit) return;
  await run.audit.record(
    input.caller,
    fresh.map(([, result]) =>
      toAuditEvent(result, { sessionId: input.request.sessionId, requestId: input.requestId })
    ),
  );
  progress.audited.push(...fresh.map(([position]) => position));
}

/** Records a failed run (best effort: the error the request reports is the original). */
async function failRun(input: DriveInput, run: RunPart, error: unknown): Promise<void> {
  const { code = "INTERNAL", message = "The run failed" } = error as {
    code?: string;
    message?: string;
  };
  try {
    await writeAudit(input, run);
    run.session.record({ type: "error", data: { success: false, error: { code, message } } });
    await run.session.save({
      status: "failed",
      stopReason: "failed",
      error: { code, message },
      checkpoint: toCheckpoint(input, { budgetMs: 0 }),
      ...baseOnce(run),
    });
  } catch (saveError) {
    input.logger.warn("could not record the run as failed", {
      runId: run.session.id,
      error: (saveError as { code?: string }).code ?? "unknown",
    });
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
