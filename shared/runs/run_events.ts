/**
 * Live run events within one process: the process running a run publishes
 * each numbered event as it happens, and `GET /runs/{runId}/events` in the
 * same process hears it at once (another process reads the stored log).
 */
import type { RunEvent } from "./run_store.ts";

/** Receives a run's events as they happen. */
export type RunEventListener = (event: RunEvent) => void;

/** Publishes run events to the listeners of that run in this process. */
export class RunEventHub {
  readonly #listeners = new Map<string, Set<RunEventListener>>();

  /** Calls `listener` with every later event of `runId`; returns the function that stops it. */
  subscribe(runId: string, listener: RunEventListener): () => void {
    let listeners = this.#listeners.get(runId);
    if (!listeners) this.#listeners.set(runId, listeners = new Set());
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0) this.#listeners.delete(runId);
    };
  }

  publish(runId: string, event: RunEvent): void {
    for (const listener of this.#listeners.get(runId) ?? []) {
      try {
        listener(event);
      } catch {
        // A listener's failure is its own (a closed stream); the run goes on.
      }
    }
  }
}

/**
 * The runs this process is executing, each with the controller that stops it:
 * a cancel reaches a run here at once, and elsewhere at its next checkpoint.
 */
export class RunningRuns {
  readonly #controllers = new Map<string, AbortController>();

  /** Registers a run; the returned function forgets it. */
  add(runId: string, controller: AbortController): () => void {
    this.#controllers.set(runId, controller);
    return () => {
      if (this.#controllers.get(runId) === controller) this.#controllers.delete(runId);
    };
  }

  /** Whether this process is executing the run now. */
  has(runId: string): boolean {
    return this.#controllers.has(runId);
  }

  /** Stops the run if this process executes it; whether it did. */
  cancel(runId: string, reason: Error): boolean {
    const controller = this.#controllers.get(runId);
    controller?.abort(reason);
    return controller !== undefined;
  }
}

/** Why a run was stopped by `POST /runs/{runId}/cancel`. */
export class CancelReason extends Error {
  constructor() {
    super("the run was cancelled");
    this.name = "CancelReason";
  }
}
