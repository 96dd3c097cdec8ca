/**
 * A fake clock for deadlines and step timeouts (shared/abort.ts): time stands
 * still until the test moves it, so a deadline fires when the test says so and
 * never because the machine is busy.
 */
import { type DeadlineClock, useDeadlineClock } from "../../shared/abort.ts";

/** A clock that moves only when told to; its timers fire in time order as it passes them. */
export class FakeClock implements DeadlineClock {
  #now = 0;
  #next = 1;
  readonly #timers = new Map<number, { at: number; fire: () => void }>();

  now(): number {
    return this.#now;
  }

  setTimer(fire: () => void, ms: number): number {
    const id = this.#next++;
    this.#timers.set(id, { at: this.#now + Math.max(0, ms), fire });
    return id;
  }

  clearTimer(timer: unknown): void {
    this.#timers.delete(timer as number);
  }

  /** How many timers are set (a pending deadline arms one). */
  get timers(): number {
    return this.#timers.size;
  }

  /**
   * Moves the clock `ms` ahead, firing each timer it passes at its own time,
   * and lets the code that reacts to them run before it returns.
   */
  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    for (;;) {
      let due: [number, { at: number; fire: () => void }] | undefined;
      for (const entry of this.#timers) {
        if (entry[1].at <= target && (!due || entry[1].at < due[1].at)) due = entry;
      }
      if (!due) break;
      this.#timers.delete(due[0]);
      this.#now = due[1].at;
      due[1].fire();
      await settle();
    }
    this.#now = target;
    await settle();
  }
}

/** Lets pending promise reactions and already-due callbacks run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** Runs `fn` with deadlines on a fake clock, restoring the real one after. */
export async function withFakeDeadlines<T>(fn: (clock: FakeClock) => Promise<T>): Promise<T> {
  const clock = new FakeClock();
  const restore = useDeadlineClock(clock);
  try {
    return await fn(clock);
  } finally {
    restore();
  }
}

/** Work that never ends, and a promise that says when it was reached. */
export function hang(): { reached: Promise<void>; never: <T>() => Promise<T> } {
  const reached = Promise.withResolvers<void>();
  return {
    reached: reached.promise,
    never: () => {
      reached.resolve();
      return new Promise(() => {});
    },
  };
}
