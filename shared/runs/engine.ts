/**
 * The run engine: a run's whole life. Starting, resuming (with a person's
 * decisions, or after a deadline pause) and cancelling are each one call
 * that loads or creates the run, advances it through the loop's one turn
 * (loop/turn.ts, loop/rounds.ts) and stores the transition (transitions.ts).
 * A run paused at its deadline may go on in the background a bounded number
 * of times; runs and their events are swept once they are older than the
 * retention. The loop writes through the run's journal (stored_run.ts) and
 * knows nothing of rows, statuses or approvals' records.
 */
import type {
  ApprovalDecision,
  LoopEvent,
  MCPRequest,
  MCPResponse,
  RunView,
} from "../contracts.ts";
import { AppError, describeError } from "../errors.ts";
import { safeListener } from "../loop/events.ts";
import type { LoopParts, ResumeOptions, RunKeeper, RunOptions } from "../loop/loop_types.ts";
import { asStageError } from "../loop/context_stage.ts";
import { prepareTurn, runTurn, TurnAudit } from "../loop/turn.ts";
import type { TurnBase, TurnState } from "../loop/turn_state.ts";
import { meterFor } from "../loop/usage.ts";
import { ANONYMOUS, type AuditLog, type Caller } from "../ports.ts";
import { type ApprovalRule, approvalRule } from "../tools/approval_rule.ts";
import { type Answer, type ApprovalStore, callDigest } from "./approval_store.ts";
import { approvalGate } from "./approval_gate.ts";
import { type Checkpoint, fromCheckpoint, initialCheckpoint, toCheckpoint } from "./checkpoint.ts";
import { CancelReason, RunEventHub, RunningRuns } from "./run_events.ts";
import type { RunBase, RunRecord, RunStore } from "./run_store.ts";
import { storedResult, toRunView } from "./run_view.ts";
import { recalledByReference, withRecalledText } from "./recalled_messages.ts";
import { StoredRun } from "./stored_run.ts";
import { isFinal, statusAfter } from "./transitions.ts";

/** What the engine keeps runs with. */
export interface RunEngineOptions {
  store: RunStore;
  /** The approval records (one store for the loop and MCP). */
  approvals: ApprovalStore;
  /** Live events within this process. */
  hub?: RunEventHub;
  /** The runs this process executes (a cancel reaches them at once). */
  running?: RunningRuns;
  /** Which calls wait for a person (default: `destructive`, with the taint rule). */
  rule?: ApprovalRule;
  /** How long a pending approval may wait (default 24 h). */
  approvalTtlMs?: number;
  /** Where the tool calls of a run that waits, pauses, is cancelled or fails are audited. */
  audit?: AuditLog;
  /** How often a run paused at its deadline goes on by itself (default 0: never). */
  backgroundContinuations?: number;
  /** Lets work outlive the request (the edge runtime's `EdgeRuntime.waitUntil`). */
  keepAlive?: (work: Promise<unknown>) => void;
  /** How long runs and their events are kept once written last (default 30 days). */
  retentionMs?: number;
  now?: () => number;
}

/** How long a run's process holds it past its budget before another may take it over. */
const LEASE_MARGIN_MS = 30_000;
const DAY_MS = 24 * 60 * 60 * 1000;
/** How often a process sweeps runs past their retention, and how many at a time. */
const SWEEP_EVERY_MS = 10 * 60 * 1000;
const SWEEP_LIMIT = 500;

/** A turn about to be driven: what it runs on and with. */
interface Drive {
  request: MCPRequest;
  base: TurnBase;
  state: TurnState;
  budgetMs: number;
  answers?: ReadonlyMap<string, Answer>;
}

/** The run engine (see the module doc). */
export class RunEngine implements RunKeeper {
  readonly store: RunStore;
  readonly approvals: ApprovalStore;
  readonly hub: RunEventHub;
  readonly running: RunningRuns;
  readonly #options: RunEngineOptions;
  readonly #rule: ApprovalRule;
  readonly #now: () => number;
  #lastSweep = -Infinity;

  constructor(options: RunEngineOptions) {
    this.#options = options;
    this.store = options.store;
    this.approvals = options.approvals;
    this.hub = options.hub ?? new RunEventHub();
    this.running = options.running ?? new RunningRuns();
    this.#rule = options.rule ?? approvalRule("destructive");
    this.#now = options.now ?? Date.now;
  }

  /** Lets work outlive its request (a run whose client left), where the runtime allows it. */
  get keepAlive(): ((work: Promise<unknown>) => void) | undefined {
    return this.#options.keepAlive;
  }

  /** Starts a request as a stored run and drives it until it stops. */
  async start(loop: LoopParts, request: MCPRequest, options: RunOptions): Promise<MCPResponse> {
    const caller = options.caller ?? ANONYMOUS;
    const { deadlineMs } = loop.options;
    const maxRounds = request.maxRounds ?? loop.options.maxRounds;
    const creating = StoredRun.create(this, {
      caller,
      request,
      checkpoint: initialCheckpoint({ maxRounds, budgetMs: deadlineMs }),
      leaseMs: deadlineMs + LEASE_MARGIN_MS,
    });
    // The context loads while the run's row is written (at once, where the database serves
    // two statements so; back to back on PGlite): its events wait for the run's number.
    const early: LoopEvent[] = [];
    let emit: (event: LoopEvent) => void = (event) => void early.push(event);
    const preparing = prepareTurn(loop, {
      request,
      caller,
      signal: options.signal,
      emit: (event) => emit(event),
      stageTimings: options.stageTimings,
    });
    preparing.catch(() => {}); // awaited below, once the run is there; unless that failed
    let run: StoredRun;
    try {
      run = await creating;
    } catch (error) {
      throw asStageError(
        error,
        new AbortController().signal,
        (cause) => `Could not record the run in the database: ${describeError(cause)}; try again`,
        "DB_UNAVAILABLE",
      );
    }
    this.#sweepNow();
    const live = this.#emitter(loop, options, run);
    live({ type: "run", runId: run.id });
    for (const event of early) live(event);
    emit = live;
    let prepared;
    try {
      prepared = await preparing;
    } catch (error) {
      await this.#fail(loop, run, error, initialCheckpoint({ maxRounds, budgetMs: 0 }));
      throw error;
    }
    // The row names the recalled messages; the turn goes on with their text (recalled_messages.ts).
    run.holdBase(recalledByReference(prepared.base));
    return await this.#drive(loop, run, { request, ...prepared }, options);
  }

  /**
   * Goes on with a stored run: with `approvals`, one waiting for them; without,
   * one paused at its deadline or abandoned by its process (its lease lapsed).
   */
  async resume(loop: LoopParts, runId: string, options: ResumeOptions): Promise<MCPResponse> {
    const caller = options.caller ?? ANONYMOUS;
    const record = await this.store.get(caller, runId);
    if (!record) throw runNotFound(runId);
    const { checkpoint } = record;
    if (!record.base) throw stateError(record, "it stopped before its context was loaded");
    if (options.approvals) await this.#checkDecisions(caller, record, options.approvals);
    else assertResumable(record, this.#now());
    const base = await baseOf(loop, record.base, caller);
    // Waiting for a person stops the clock; a run paused at its deadline gets a new one.
    const budgetMs = record.status === "waiting_approval" && checkpoint.budgetMs > 0
      ? checkpoint.budgetMs
      : loop.options.deadlineMs;
    const run = await StoredRun.claim(this, {
      record,
      caller,
      checkpoint,
      leaseMs: budgetMs + LEASE_MARGIN_MS,
    });
    const answers = await this.#answer(caller, record, options.approvals ?? []);
    const state = await this.#stateOf(loop, record, checkpoint, caller);
    return await this.#drive(loop, run, {
      request: record.request,
      base,
      state,
      budgetMs,
      answers,
    }, options);
  }

  /** Stops a run: at once if it waits, is paused or was abandoned, else at its next step boundary. */
  async cancel(runId: string, { caller = ANONYMOUS }: { caller?: Caller }): Promise<RunView> {
    const record = await this.store.requestCancel(caller, runId);
    if (!record) throw runNotFound(runId);
    if (isFinal(record.status)) return toRunView(record);
    if (record.status === "running") {
      // In this process the in-flight tools get the abort now; elsewhere, at the next save.
      if (this.running.cancel(runId, new CancelReason())) return toRunView(record);
      const held = record.leaseUntil !== undefined && Date.parse(record.leaseUntil) > this.#now();
      if (held) return toRunView(record);
    }
    const run = StoredRun.of(this, caller, record);
    run.record({ type: "error", data: cancelledBody(runId) });
    await run.save({ status: "cancelled", stopReason: "cancelled", checkpoint: record.checkpoint });
    return toRunView({ ...record, status: "cancelled", stopReason: "cancelled" });
  }

  /** Runs the turn on a claimed run and stores where it stopped. */
  async #drive(
    loop: LoopParts,
    run: StoredRun,
    drive: Drive,
    options: RunOptions,
  ): Promise<MCPResponse> {
    const controller = new AbortController();
    const forget = this.running.add(run.id, controller);
    const stop = () => controller.abort(options.signal?.reason ?? new CancelReason());
    options.signal?.addEventListener("abort", stop, { once: true });
    const gateInput = {
      rule: this.#rule,
      store: this.approvals,
      caller: run.caller,
      runId: run.id,
      state: drive.state,
      answers: drive.answers ?? new Map(),
      ttlMs: this.#options.approvalTtlMs ?? DAY_MS,
      now: this.#now,
    };
    const audit = new TurnAudit();
    try {
      const end = await runTurn(loop, {
        ...drive,
        audit,
        caller: run.caller,
        signal: controller.signal,
        emit: this.#emitter(loop, options, run),
        durable: {
          journal: run.journal({
            leaseMarginMs: LEASE_MARGIN_MS,
            onCancel: () => controller.abort(new CancelReason()),
          }),
          gate: (origin) => approvalGate(gateInput, origin),
        },
        runId: run.id,
        requestId: options.requestId,
        stageTimings: options.stageTimings,
        roundTimings: options.roundTimings,
      });
      const { stopReason } = end;
      await this.#audit(loop, run, audit);
      run.record(
        { type: "result", data: end.response },
        storedResult(end.response, drive.state.results.length),
      );
      const status = statusAfter(stopReason);
      const checkpoint = toCheckpoint(drive.state, { budgetMs: end.budgetLeftMs, stopReason });
      await run.save({ status, stopReason, checkpoint });
      if (status === "paused") this.#continueLater(loop, run);
      return end.response;
    } catch (error) {
      await this.#audit(loop, run, audit);
      await this.#fail(loop, run, error, toCheckpoint(drive.state, { budgetMs: 0 }));
      throw error;
    } finally {
      options.signal?.removeEventListener("abort", stop);
      forget();
    }
  }

  /**
   * Writes the audit rows of the turn's calls that its end did not store with
   * a turn (it waits, pauses, was cancelled or failed), before the run says
   * so; a failed write is logged, not raised.
   */
  async #audit(loop: LoopParts, run: StoredRun, audit: TurnAudit): Promise<void> {
    const events = audit.take();
    if (events.length === 0 || !this.#options.audit) return;
    await this.#options.audit.record(run.caller, events).catch((error) =>
      loop.logger.error("could not write the audit rows of a run's calls", {
        runId: run.id,
        error: describeError(error),
      })
    );
  }

  /** The decisions must name the run's pending calls, not be answered already, nor have lapsed. */
  async #checkDecisions(
    caller: Caller,
    record: RunRecord,
    decisions: readonly ApprovalDecision[],
  ): Promise<void> {
    if (record.status !== "waiting_approval") {
      throw stateError(record, `it is ${record.status}, not waiting for approval`, DECIDED);
    }
    const pending = record.checkpoint.pendingApprovals;
    for (const decision of decisions) {
      const call = pending.find((p) => p.id === decision.id);
      if (!call) {
        const answered = await this.approvals.answers(caller, [decision.id]);
        if (answered.has(decision.id)) {
          throw stateError(record, `approval "${decision.id}" was already answered`, DECIDED);
        }
        throw new AppError(
          "VALIDATION_FAILED",
          `Run "${record.id}" has no pending approval "${decision.id}"; use an id from pendingApprovals`,
          { details: { pendingApprovals: pending.map((p) => p.id) } },
        );
      }
      if (Date.parse(call.expiresAt) <= this.#now()) {
        throw new AppError(
          "APPROVAL_EXPIRED",
          `Approval "${decision.id}" of run "${record.id}" lapsed at ${call.expiresAt}; start a new request`,
        );
      }
    }
  }

  /** Records the decisions on the run's approval records; every answer its pending calls have. */
  async #answer(
    caller: Caller,
    record: RunRecord,
    decisions: readonly ApprovalDecision[],
  ): Promise<Map<string, Answer>> {
    const store = this.approvals;
    const pending = record.checkpoint.pendingApprovals;
    const now = new Date(this.#now());
    for (const decision of decisions) {
      const call = pending.find((p) => p.id === decision.id)!;
      const answer = { ...decision, tool: call.tool, argsDigest: await callDigest(call.args), now };
      const recorded = await store.answer(caller, call.id, answer);
      if (recorded.kind !== "unknown") continue;
      // A run of an earlier release kept its approvals in its checkpoint: its record is made now.
      await store.create(caller, {
        id: call.id,
        tool: call.tool,
        argsDigest: answer.argsDigest,
        expiresAt: new Date(call.expiresAt),
        runId: record.id,
        step: call.step,
      });
      await store.answer(caller, call.id, answer);
    }
    return await store.answers(caller, pending.map((p) => p.id));
  }

  /** The turn state a stored run goes on from (its refinement loop read again). */
  async #stateOf(
    loop: LoopParts,
    record: RunRecord,
    checkpoint: Checkpoint,
    caller: Caller,
  ): Promise<TurnState> {
    const refinement = checkpoint.loopId && loop.refinement
      ? await loop.refinement.store.get(caller, checkpoint.loopId)
      : undefined;
    const usage = meterFor(loop.costs, record.request, checkpoint.usage);
    return fromCheckpoint(checkpoint, { loop: refinement, usage });
  }

  /** Continues a run paused at its deadline in the background, a bounded number of times. */
  #continueLater(loop: LoopParts, paused: StoredRun): void {
    const { keepAlive, backgroundContinuations = 0 } = this.#options;
    if (!keepAlive || backgroundContinuations <= 0) return;
    keepAlive(
      (async () => {
        const record = await this.store.get(paused.caller, paused.id);
        if (!record?.base || record.status !== "paused") return;
        const { checkpoint } = record;
        if (checkpoint.continuations >= backgroundContinuations) return;
        const base = await baseOf(loop, record.base, paused.caller);
        const next = { ...checkpoint, continuations: checkpoint.continuations + 1 };
        const run = await StoredRun.claim(this, {
          record,
          caller: paused.caller,
          checkpoint: next,
          leaseMs: loop.options.deadlineMs + LEASE_MARGIN_MS,
        });
        const state = await this.#stateOf(loop, record, next, paused.caller);
        await this.#drive(loop, run, {
          request: record.request,
          base,
          state,
          budgetMs: loop.options.deadlineMs,
        }, {});
      })().catch((error) =>
        loop.logger.warn("a paused run could not go on in the background", {
          runId: paused.id,
          error: (error as { code?: string }).code ?? "unknown",
        })
      ),
    );
  }

  /** Removes runs past the retention, at most once per {@link SWEEP_EVERY_MS} in this process. */
  #sweepNow(): void {
    const now = this.#now();
    if (now - this.#lastSweep < SWEEP_EVERY_MS) return;
    this.#lastSweep = now;
    const before = new Date(now - (this.#options.retentionMs ?? 30 * DAY_MS));
    const sweep = this.store.sweep(before, SWEEP_LIMIT).catch(() => 0);
    this.#options.keepAlive?.(sweep);
  }

  /** Events go to the listener and into the run's numbered log. */
  #emitter(loop: LoopParts, options: RunOptions, run: StoredRun) {
    const listener = safeListener(options.onEvent, loop.logger);
    return (event: LoopEvent) => listener(event, run.record(event));
  }

  /** Records a failed run (best effort: the error the request reports is the original). */
  async #fail(loop: LoopParts, run: StoredRun, error: unknown, checkpoint: Checkpoint) {
    const { code = "INTERNAL", message = "The run failed" } = error as {
      code?: string;
      message?: string;
    };
    try {
      run.record({ type: "error", data: { success: false, error: { code, message } } });
      await run.save({
        status: "failed",
        stopReason: "failed",
        error: { code, message },
        checkpoint,
      });
    } catch (saveError) {
      loop.logger.warn("could not record the run as failed", {
        runId: run.id,
        error: (saveError as { code?: string }).code ?? "unknown",
      });
    }
  }
}

/** Another caller's run, or none: the same answer, so a run's existence is not revealed. */
export function runNotFound(runId: string): AppError {
  return new AppError(
    "RUN_NOT_FOUND",
    `Run "${runId}" does not exist; use the runId a loop response gave you`,
  );
}

/**
 * The base a stored run goes on from: its recalled messages' text read again
 * for its caller, before the run is claimed (a failed read leaves it as it was).
 */
async function baseOf(loop: LoopParts, base: RunBase, caller: Caller): Promise<TurnBase> {
  try {
    return await withRecalledText(base, { store: loop.store, caller });
  } catch (error) {
    throw asStageError(
      error,
      new AbortController().signal,
      (cause) =>
        `Could not read the run's recalled messages from the database: ${
          describeError(cause)
        }; try again`,
      "DB_UNAVAILABLE",
    );
  }
}

/** A plain resume needs a run paused at its deadline, or one whose process stopped holding it. */
function assertResumable(record: RunRecord, now: number): void {
  const lapsed = record.status === "running" &&
    (record.leaseUntil === undefined || Date.parse(record.leaseUntil) <= now);
  if (record.status === "paused" || lapsed) return;
  throw stateError(
    record,
    record.status === "waiting_approval"
      ? "it waits for approval: send the decisions to /approvals"
      : record.status === "running"
      ? "it is still running"
      : `it is ${record.status}`,
  );
}

/** What a run's state refuses: going on ("be resumed"), or decisions on its calls. */
const DECIDED = "take approvals or denials";

function stateError(record: RunRecord, why: string, what = "be resumed"): AppError {
  return new AppError("RUN_STATE", `Run "${record.id}" cannot ${what}: ${why}`, {
    details: { runId: record.id, status: record.status },
  });
}

/** What a cancelled run's event log ends with. */
function cancelledBody(runId: string) {
  return {
    success: false,
    error: { code: "CANCELLED", message: `Run "${runId}" was cancelled` },
  };
}
