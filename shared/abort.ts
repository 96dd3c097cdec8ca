/**
 * Deadlines and timeouts through `AbortSignal`, on one shared timer that holds
 * the process only while a deadline is pending (nothing outlives the request).
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
  const entry: Pending = {
    at: performance.now() + ms,
    fire: () => controller.abort(new TimeoutReason(kind, ms)),
  };
  schedule(entry);
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
      unschedule(entry);
      for (const detach of detachers) detach();
    },
  };
}

/*
 * Deadlines share one timer, armed for the earliest of them, instead of a
 * timer each: under load most of them are cleared a millisecond after they
 * start, and a timer per deadline was a twentieth of an MCP call's CPU. When
 * the last pending deadline is cleared the timer is not cleared but unref'd
 * (it no longer keeps the process alive, and fires into an empty set), so the
 * next deadline, usually due later, finds it armed and only refs it again:
 * under load no request starts or clears a timer.
 */

interface Pending {
  at: number;
  fire: () => void;
}

const pending = new Set<Pending>();
/** The shared timer; it keeps the process alive only while a deadline is pending. */
let armed: { at: number; timer: ReturnType<typeof setTimeout> } | undefined;

function schedule(entry: Pending): void {
  pending.add(entry);
  if (entry.at < armedAt()) arm(entry.at);
  else if (pending.size === 1) hold(true); // the first pending deadline since the set emptied
}

/** How many deadlines are pending, whether the shared timer is armed and whether it holds the process (diagnostics, tests). */
export function deadlineState(): { pending: number; armed: boolean; holding: boolean } {
  return {
    pending: pending.size,
    armed: armed !== undefined,
    holding: armed !== undefined && pending.size > 0,
  };
}

function armedAt(): number {
  return armed?.at ?? Infinity;
}

function unschedule(entry: Pending): void {
  pending.delete(entry);
  if (pending.size === 0) hold(false);
}

/** Whether the runtime can unref a timer (Deno can; elsewhere the timer is cleared instead). */
const CAN_UNREF = typeof Deno !== "undefined" && typeof Deno.refTimer === "function" &&
  typeof Deno.unrefTimer === "function";

function hold(on: boolean): void {
  if (!armed) return;
  if (!CAN_UNREF) {
    if (!on) {
      clearTimeout(armed.timer);
      armed = undefined;
    }
    return;
  }
  if (on) Deno.refTimer(armed.timer);
  else Deno.unrefTimer(armed.timer);
}

function arm(at: number): void {
  if (armed) clearTimeout(armed.timer);
  // Only armed for a pending deadline, so it starts out holding the process.
  armed = { at, timer: setTimeout(expire, Math.max(0, Math.ceil(at - performance.now()))) };
}

/** Fires the deadlines that are due and arms the timer for the next. */
function expire(): void {
  armed = undefined;
  const now = performance.now();
  for (const entry of pending) {
    if (entry.at <= now) {
      pending.delete(entry);
      entry.fire();
    }
  }
  let next = Infinity;
  for (const entry of pending) next = Math.min(next, entry.at);
  // A deadline started by an abort listener above may have armed the timer already.
  if (next < armedAt()) arm(next);
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
