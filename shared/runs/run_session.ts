/**
 * One process's hold on a persisted run: it numbers the run's events (and
 * publishes them live), and writes checkpoints with the events since the last
 * one, each write conditional on the version it holds. Losing that race means
 * another process took the run over: the write throws RUN_STATE and this
 * process stops driving it.
 */
import type { LoopEvent } from "../contracts.ts";
import { AppError } from "../errors.ts";
import type { Caller } from "../ports.ts";
import type { RunStatus } from "./run_contract.ts";
import type { RunEventHub } from "./run_events.ts";
import { assertTransition, type RunCheckpoint } from "./run_state.ts";
import type { RunBase, RunRecord, RunStore } from "./run_store.ts";

/** What a session writes besides its checkpoint. */
export interface RunWrite {
  status: RunStatus;
  checkpoint: RunCheckpoint;
  stopReason?: string;
  error?: { code: string; message: string };
  base?: RunBase;
  leaseMs?: number;
}

/** A run this process drives. */
export class RunSession {
  readonly id: string;
  readonly caller: Caller;
  readonly #store: RunStore;
  readonly #hub: RunEventHub;
  #status: RunStatus;
  #version: number;
  #eventSeq: number;
  #unsaved: { type: string; data: unknown }[] = [];
  #cancelRequested: boolean;

  private constructor(store: RunStore, hub: RunEventHub, caller: Caller, record: RunRecord) {
    this.#store = store;
    this.#hub = hub;
    this.caller = caller;
    this.id = record.id;
    this.#status = record.status;
    this.#version = record.version;
    this.#eventSeq = record.eventSeq;
    this.#cancelRequested = record.cancelRequested;
  }

  /** Creates a running run; its first event, `run`, names it. */
  static async start(
    { store, hub, caller, sessionId, request, checkpoint, leaseMs }: {
      store: RunStore;
      hub: RunEventHub;
      caller: Caller;
      sessionId: string;
      request: RunRecord["request"];
      checkpoint: RunCheckpoint;
      leaseMs: number;
    },
  ): Promise<RunSession> {
    const record = await store.create(caller, { sessionId, request, checkpoint, leaseMs });
    return new RunSession(store, hub, caller, record);
  }

  /**
   * Takes over a stored run for a resume: moves it from its status to
   * running, if nobody else did first (else RUN_STATE).
   */
  static async claim(
    { store, hub, record, caller, checkpoint, leaseMs }: {
      store: RunStore;
      hub: RunEventHub;
      record: RunRecord;
      caller: Caller;
      checkpoint: RunCheckpoint;
      leaseMs: number;
    },
  ): Promise<RunSession> {
    const session = new RunSession(store, hub, caller, record);
    await session.save({ status: "running", checkpoint, leaseMs });
    return session;
  }

  /** Whether someone asked this run to stop (as of its last write). */
  get cancelRequested(): boolean {
    return this.#cancelRequested;
  }

  get status(): RunStatus {
    return this.#status;
  }

  /** Numbers the event, publishes it live and keeps it for the next write; its number. */
  record(event: LoopEvent | { type: "result" | "error"; data: unknown }): number {
    const seq = this.#eventSeq + this.#unsaved.length + 1;
    const data = "data" in event && (event.type === "result" || event.type === "error")
      ? event.data
      : event;
    this.#unsaved.push({ type: event.type, data });
    this.#hub.publish(this.id, { seq, type: event.type, data });
    return seq;
  }

  /** Writes the run's state and the events since the last write. */
  async save(write: RunWrite): Promise<void> {
    assertTransition(this.id, this.#status, write.status);
    const events = [...this.#unsaved];
    const saved = await this.#store.save(this.caller, this.id, {
      from: [this.#status],
      version: this.#version,
      ...write,
      events,
    });
    if (!saved) {
      throw new AppError(
        "RUN_STATE",
        `Run "${this.id}" was changed by another request (resumed, approved or cancelled); this one stops`,
      );
    }
    this.#unsaved = this.#unsaved.slice(events.length);
    this.#status = write.status;
    this.#version = saved.version;
    this.#eventSeq = saved.eventSeq;
    this.#cancelRequested = saved.cancelRequested;
  }
}
