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
    at: clock.now() + ms,
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

/**
 * The clock and the timer deadlines run on: the runtime's, unless a test swaps
 * in a fake one ({@link useDeadlineClock}) so that a deadline fires when the
 * test moves the clock, not when a busy machine gets round to it.
 */
export interface DeadlineClock {
  /** Milliseconds on a monotonic clock. */
  now(): number;
  /** Calls `fire` once, `ms` from now; returns the timer's handle. */
  setTimer(fire: () => void, ms: number): unknown;
  clearTimer(timer: unknown): void;
  /**
   * Lets the armed timer hold the process or not. Without it, clearing the
   * last pending deadline clears the timer instead.
   */
  holdTimer?(timer: unknown, hold: boolean): void;
}

/** Whether the runtime can unref a timer (Deno can; elsewhere the timer is cleared instead). */
const CAN_UNREF = typeof Deno !== "undefined" && typeof Deno.refTimer === "function" &&
  typeof Deno.unrefTimer === "function";

type Timer = ReturnType<typeof setTimeout>;

const RUNTIME_CLOCK: DeadlineClock = {
  now: () => performance.now(),
  setTimer: (fire, ms) => setTimeout(fire, ms),
  clearTimer: (timer) => clearTimeout(timer as Timer),
  holdTimer: CAN_UNREF
    ? (timer, hold) => hold ? Deno.refTimer(timer as Timer) : Deno.unrefTimer(timer as Timer)
    : undefined,
};

let clock: DeadlineClock = RUNTIME_CLOCK;

/**
 * Runs deadlines on `next` until the returned function restores the runtime's
 * clock (tests). Refused while a deadline is pending, since its time is on the
 * other clock; deadlines still pending on `next` at restore never fire.
 */
export function useDeadlineClock(next: DeadlineClock): () => void {
  swapClock(next);
  return () => {
    pending.clear();
    swapClock(RUNTIME_CLOCK);
  };
}

function swapClock(next: DeadlineClock): void {
  if (pending.size > 0) {
    throw new Error(`Cannot change the deadline clock: ${pending.size} deadline(s) pending`);
  }
  if (armed) clock.clearTimer(armed.timer);
  armed = undefined;
  clock = next;
}

const pending = new Set<Pending>();
/** The shared timer; it keeps the process alive only while a deadline is pending. */
let armed: { at: number; timer: unknown } | undefined;

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

function hold(on: boolean): void {
  if (!armed) return;
  if (!clock.holdTimer) {
    if (!on) {
      clock.clearTimer(armed.timer);
      armed = undefined;
    }
    return;
  }
  clock.holdTimer(armed.timer, on);
}

function arm(at: number): void {
  if (armed) clock.clearTimer(armed.timer);
  // Only armed for a pending deadline, so it starts out holding the process.
  armed = { at, timer: clock.setTimer(expire, Math.max(0, Math.ceil(at - clock.now()))) };
}

/** Fires the deadlines that are due and arms the timer for the next. */
function expire(): void {
  armed = undefined;
  const now = clock.now();
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

/** Waits `ms`; rejects with the signal's reason as soon as `signal` aborts (the timer cleared). */
export function sleepUnlessAborted(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
