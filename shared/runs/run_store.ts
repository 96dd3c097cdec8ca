/**
 * The run store port: runs, their checkpoints and their event logs, each
 * visible only to the caller that started the run. Every write names the
 * version it read and the statuses it expects, and loses (answers undefined)
 * when another writer got there first.
 */
import type { MCPRequest, RunStatus } from "../contracts.ts";
import type { TurnBase } from "../loop/turn_state.ts";
import type { Caller } from "../ports.ts";
import type { Checkpoint } from "./checkpoint.ts";

/** One numbered event of a run (the number is the SSE `id`). */
export interface RunEvent {
  seq: number;
  type: string;
  data: unknown;
}

/**
 * What never changes after a run's context is loaded: what a resume rebuilds
 * the run from. Stored, it names the recalled messages without their text
 * (recalled_messages.ts); a base of an earlier release holds the text.
 */
export type RunBase = TurnBase;

/** A stored run. */
export interface RunRecord {
  id: string;
  sessionId: string;
  status: RunStatus;
  stopReason?: string;
  request: MCPRequest;
  base?: RunBase;
  checkpoint: Checkpoint;
  version: number;
  /** The number of the last event written. */
  eventSeq: number;
  cancelRequested: boolean;
  /** While it is running: until when its process holds it. */
  leaseUntil?: string;
  error?: { code: string; message: string };
  createdAt: string;
  updatedAt: string;
}

/** A change to a run, applied only if it still is at `version` in one of `from`. */
export interface RunChange {
  from: readonly RunStatus[];
  version: number;
  status: RunStatus;
  checkpoint: Checkpoint;
  /** Events to append (numbered after the run's last). */
  events?: readonly { type: string; data: unknown }[];
  /** Set once, when the context is loaded. */
  base?: RunBase;
  stopReason?: string;
  error?: { code: string; message: string };
  /** Renews the process's hold on a running run for this long. */
  leaseMs?: number;
}

/** What a change left: the new version and whether someone asked to cancel. */
export interface RunSaved {
  version: number;
  eventSeq: number;
  cancelRequested: boolean;
}

/** Persists runs. */
export interface RunStore {
  /** A new running run (version 1) with its first events. */
  create(
    caller: Caller,
    run: {
      sessionId: string;
      request: MCPRequest;
      checkpoint: Checkpoint;
      leaseMs: number;
      events?: readonly { type: string; data: unknown }[];
    },
  ): Promise<RunRecord>;
  /** The caller's run, or undefined (another caller's run is not found either). */
  get(caller: Caller, id: string): Promise<RunRecord | undefined>;
  /** Applies `change`; undefined when the run moved on (another writer, another status). */
  save(caller: Caller, id: string, change: RunChange): Promise<RunSaved | undefined>;
  /** The run's events after `afterSeq`, in order (at most `limit`). */
  events(caller: Caller, id: string, afterSeq: number, limit: number): Promise<RunEvent[]>;
  /** Asks a running or waiting run to stop; the run as it was, or undefined when not found. */
  requestCancel(caller: Caller, id: string): Promise<RunRecord | undefined>;
  /**
   * Removes runs (and their events) that ended or were last written before
   * `before`, at most `limit` of them, whoever's they are; how many it removed.
   */
  sweep(before: Date, limit: number): Promise<number>;
}
