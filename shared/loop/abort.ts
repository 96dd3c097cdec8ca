/**
 * Deadlines and timeouts through `AbortSignal`, with timers that are always
 * cleared (no timer outlives the request).
 */

/** Why a {@link Deadline} fired. */
export class TimeoutReason extends Error {
  constructor(readonly kind: "deadline" | "step_timeout", readonly ms: number) {
    super(
      kind === "deadline"
        ? `the request deadline of ${ms} ms passed`
        : `the step timed out after ${ms} ms`,
    );
    this.name = "TimeoutReason";
  }
}

/** An `AbortSignal` that aborts after `ms` or when any parent aborts. */
export interface Deadline {
  readonly signal: AbortSignal;
  /** Stops the timer and detaches from the parents; call it when done. */
  clear(): void;
}

/** Starts a deadline of `ms` milliseconds, also following `parents`. */
export function startDeadline(
  ms: number,
  { kind = "deadline", parents = [] }: {
    kind?: TimeoutReason["kind"];
    parents?: (AbortSignal | undefined)[];
  } = {},
): Deadline {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new TimeoutReason(kind, ms)), ms);
  const detachers: (() => void)[] = [];
  for (const parent of parents) {
    if (!parent) continue;
    if (parent.aborted) {
      controller.abort(parent.reason);
      break;
    }
    const onAbort = () => controller.abort(parent.reason);
    parent.addEventListener("abort", onAbort, { once: true });
    detachers.push(() => parent.removeEventListener("abort", onAbort));
  }
  return {
    signal: controller.signal,
    clear() {
      clearTimeout(timer);
      for (const detach of detachers) detach();
    },
  };
}

/**
 * Settles with `promise`, or rejects with the signal's reason as soon as
 * `signal` aborts — so work that ignores its signal cannot hold the request.
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => {});
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
