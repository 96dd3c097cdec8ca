/** The port of the per-caller counts every instance shares (`take_caller_quota`). */
import type { Caller } from "../ports.ts";

/** Counts shared by every process (the database), per caller and minute. */
export interface SharedQuota {
  /** Adds a request of `bytes` to the caller's current minute; the seconds to wait when it is over. */
  take(
    caller: Caller,
    use: { bytes: number },
    limits: { requests: number; bytes: number },
  ): Promise<number>;
}
