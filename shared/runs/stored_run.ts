/**
 * One process's hold on a stored run: it numbers the run's events (and
 * publishes them live), and writes checkpoints with the events since the last
 * one, each write conditional on the version it holds. Losing that race means
 * another process took the run over (or a final status was written, a
 * deletion removed it): the write throws RUN_STATE and this process stops
 * driving it. It is the loop's {@link RunJournal} for the run.
 */
import type { LoopEvent, RunStatus, StopReason } from "../contracts.ts";
import { AppError } from "../errors.ts";
import type { RunJournal, TurnState } from "../loop/turn_state.ts";
import type { Caller } from "../ports.ts";
import { type Checkpoint, toCheckpoint } from "./checkpoint.ts";
import type { RunEventHub } from "./run_events.ts";
import type { RunBase, RunRecord, RunStore } from "./run_store.ts";
import { assertTransition } from "./transitions.ts";

/** What a write sets besides the checkpoint. */
export interface RunWrite {
  status: RunStatus;
  checkpoint: Checkpoint;
  stopReason?: string;
  error?: { code: string; message: string };
  base?: RunBase;
  leaseMs?: number;
}

/** Where a stored run is kept and published. */
export interface RunHome {
  store: RunStore;
  hub: RunEventHub;
}

/** A run this process drives. */
export class StoredRun {
  readonly id: string;
  readonly caller: Caller;
  readonly #home: RunHome;
  #status: RunStatus;
  #version: number;
  #eventSeq: number;
  #unsaved: { type: string; data: unknown }[] = [];
  #cancelRequested: boolean;
  /** The base, until the write that stores it. */
  #base: RunBase | undefined;

  private constructor(home: RunHome, caller: Caller, record: RunRecord) {
    this.#home = home;
    this.caller = caller;
    this.id = record.id;
    this.#status = record.status;
    this.#version = record.version;
    this.#eventSeq = record.eventSeq;
    this.#cancelRequested = record.cancelRequested;
  }

  /** Creates a running run. */
  static async create(
    home: RunHome,
    { caller, request, checkpoint, leaseMs }: {
      caller: Caller;
      request: RunRecord["request"];
      checkpoint: Checkpoint;
      leaseMs: number;
    },
  ): Promise<StoredRun> {
    const record = await home.store.create(caller, {
      sessionId: request.sessionId,
      request,
      checkpoint,
      leaseMs,
    });
    return new StoredRun(home, caller, record);
  }

  /** A stored run as it was read, to write its next status from there. */
  static of(home: RunHome, caller: Caller, record: RunRecord): StoredRun {
    return new StoredRun(home, caller, record);
  }

  /**
   * Takes over a stored run to drive it on: moves it from its status to
   * running, if nobody else did first (else RUN_STATE).
   */
  static async claim(
    home: RunHome,
    { record, caller, checkpoint, leaseMs }: {
      record: RunRecord;
      caller: Caller;
      checkpoint: Checkpoint;
      leaseMs: number;
    },
  ): Promise<StoredRun> {
    const run = new StoredRun(home, caller, record);
    await run.save({ status: "running", checkpoint, leaseMs });
    return run;
  }

  /** Whether someone asked this run to stop (as of its last write). */
  get cancelRequested(): boolean {
    return this.#cancelRequested;
  }

  /** Keeps the run's base for its next write (a new run's, once its context is loaded). */
  holdBase(base: RunBase): void {
    this.#base = base;
  }

  /**
   * Numbers the event, publishes it live and keeps it for the next write (as
   * `stored` when the log keeps less than listeners hear); its number.
   */
  record(event: { type: string; data?: unknown } | LoopEvent, stored?: unknown): number {
    const seq = this.#eventSeq + this.#unsaved.length + 1;
    const data = "data" in event && (event.type === "result" || event.type === "error")
      ? event.data
      : event;
    this.#unsaved.push({ type: event.type, data: stored ?? data });
    this.#home.hub.publish(this.id, { seq, type: event.type, data });
    return seq;
  }

  /** Writes the run's state and the events since the last write. */
  async save(write: RunWrite): Promise<void> {
    assertTransition(this.id, this.#status, write.status);
    const events = [...this.#unsaved];
    const base = write.base ?? this.#base;
    const saved = await this.#home.store.save(this.caller, this.id, {
      from: [this.#status],
      version: this.#version,
      ...write,
      ...(base ? { base } : {}),
      events,
    });
    if (!saved) {
      throw new AppError(
        "RUN_STATE",
        `Run "${this.id}" was changed by another request (resumed, approved, cancelled or deleted); this one stops`,
      );
    }
    this.#base = undefined;
    this.#unsaved = this.#unsaved.slice(events.length);
    this.#status = write.status;
    this.#version = saved.version;
    this.#eventSeq = saved.eventSeq;
    this.#cancelRequested = saved.cancelRequested;
  }

  /**
   * The loop's journal for this run: events numbered here, checkpoints saved
   * as running with the lease renewed; a cancel asked for elsewhere stops the
   * run at the save that learns of it (`onCancel`).
   */
  journal(
    { leaseMarginMs, onCancel, stopReason }: {
      leaseMarginMs: number;
      onCancel: () => void;
      stopReason?: StopReason;
    },
  ): RunJournal {
    return {
      append: (event) => this.record(event),
      save: async (state: TurnState, budgetMs: number) => {
        await this.save({
          status: "running",
          checkpoint: toCheckpoint(state, { budgetMs, stopReason }),
          leaseMs: budgetMs + leaseMarginMs,
        });
        if (this.#cancelRequested) onCancel();
      },
    };
  }
}
