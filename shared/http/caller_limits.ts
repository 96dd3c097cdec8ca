/**
 * Per-caller limits, so one caller cannot slow everyone else down: requests
 * in flight at once, requests per minute and request-body bytes per minute,
 * each per caller (their owner key). A request past a limit gets 429
 * RATE_LIMITED with `Retry-After`. The counts per minute are token buckets
 * kept in this process; with Postgres they are also kept in the database
 * (`take_caller_quota`), so every isolate of a deployed function counts
 * against the same minute. Requests in flight are counted per process.
 */
import { AppError } from "../errors.ts";
import type { CallerLimitSettings } from "../config/http_config.ts";
import type { Caller } from "../ports.ts";
import type { SharedQuota } from "../store/caller_quota_port.ts";

/** Admits a caller's request, or refuses it (429); `admit` resolves with the release. */
export interface CallerLimiter {
  admit(caller: Caller, { bytes }: { bytes: number }): Promise<() => void>;
}

/** A limiter that also says how many callers it keeps counts for. */
export interface CountingCallerLimiter extends CallerLimiter {
  tracked(): number;
}

/** A caller's counts are dropped once idle this long: by then they are full again. */
const IDLE_MS = 60_000;

interface Bucket {
  inFlight: number;
  requests: number;
  bytes: number;
  at: number;
}

/** The limiter of `settings`, counting per minute in this process and in `shared`, if any. */
export function createCallerLimiter(
  settings: CallerLimitSettings,
  { shared, now = () => performance.now() }: { shared?: SharedQuota; now?: () => number } = {},
): CountingCallerLimiter {
  const buckets = new CallerBuckets(settings, now);
  const { requestsPerMinute, bytesPerMinute } = settings;
  return {
    tracked: () => buckets.size,
    async admit(caller, { bytes }) {
      const release = buckets.take(caller.owner, bytes);
      if (shared && (requestsPerMinute > 0 || bytesPerMinute > 0)) {
        try {
          const wait = await shared.take(caller, { bytes }, {
            requests: requestsPerMinute,
            bytes: bytesPerMinute,
          });
          if (wait > 0) throw limited(wait, "over the limits shared by every instance");
        } catch (error) {
          release();
          // The shared count is a second line: if the database cannot count, this process does.
          if (error instanceof AppError) throw error;
        }
      }
      return release;
    },
  };
}

/** Each caller's counts in this process: requests in flight, and token buckets per minute. */
class CallerBuckets {
  readonly #buckets = new Map<string, Bucket>();
  readonly #settings: CallerLimitSettings;
  readonly #now: () => number;
  #swept: number;

  constructor(settings: CallerLimitSettings, now: () => number) {
    this.#settings = { ...settings };
    this.#now = now;
    this.#swept = now();
  }

  /** How many callers have counts. */
  get size(): number {
    return this.#buckets.size;
  }

  /** Takes one request of `bytes` from `key`'s counts, or throws RATE_LIMITED; returns the release. */
  take(key: string, bytes: number): () => void {
    const { concurrency, requestsPerMinute, bytesPerMinute } = this.#settings;
    this.#sweep();
    const bucket = this.#bucketOf(key);
    if (concurrency > 0 && bucket.inFlight >= concurrency) {
      throw limited(1, `more than ${concurrency} requests at once`);
    }
    if (requestsPerMinute > 0 && bucket.requests < 1) {
      throw limited(
        waitFor(1 - bucket.requests, requestsPerMinute),
        `more than ${requestsPerMinute} requests a minute`,
      );
    }
    const size = Math.min(bytes, bytesPerMinute);
    if (bytesPerMinute > 0 && bucket.bytes < size) {
      throw limited(
        waitFor(size - bucket.bytes, bytesPerMinute),
        `more than ${bytesPerMinute} bytes a minute`,
      );
    }
    bucket.requests -= 1;
    bucket.bytes -= size;
    bucket.inFlight++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      bucket.inFlight--;
    };
  }

  /**
   * Counts of callers with nothing in flight for a minute are full again, the
   * same as none: dropped, so one-off callers do not pile up.
   */
  #sweep(): void {
    const now = this.#now;
    if (now() - this.#swept < IDLE_MS) return;
    this.#swept = now();
    for (const [key, bucket] of this.#buckets) {
      if (bucket.inFlight === 0 && this.#swept - bucket.at >= IDLE_MS) this.#buckets.delete(key);
    }
  }

  /** `key`'s bucket refilled for the time since it was last used; a new caller's is full. */
  #bucketOf(key: string): Bucket {
    const { requestsPerMinute, bytesPerMinute } = this.#settings;
    const now = this.#now;
    const bucket = this.#buckets.get(key);
    if (!bucket) {
      const fresh = { inFlight: 0, requests: requestsPerMinute, bytes: bytesPerMinute, at: now() };
      this.#buckets.set(key, fresh);
      return fresh;
    }
    const minutes = (now() - bucket.at) / 60_000;
    bucket.at = now();
    bucket.requests = Math.min(requestsPerMinute, bucket.requests + minutes * requestsPerMinute);
    bucket.bytes = Math.min(bytesPerMinute, bucket.bytes + minutes * bytesPerMinute);
    return bucket;
  }
}

/** Seconds until `missing` units refill at `perMinute`. */
function waitFor(missing: number, perMinute: number): number {
  return Math.max(1, Math.ceil((missing / perMinute) * 60));
}

function limited(retryAfterSeconds: number, what: string): AppError {
  return new AppError(
    "RATE_LIMITED",
    `Too many requests from this caller (${what}); retry after ${retryAfterSeconds} s`,
    { details: { retryAfterSeconds } },
  );
}

/** No limits (tests, embedding). */
export const NO_CALLER_LIMITS: CallerLimiter = { admit: () => Promise.resolve(() => {}) };

/** The body size a request declares (its Content-Length), 0 when it declares none. */
export function declaredBytes(req: Request): number {
  const length = Number(req.headers.get("content-length"));
  return Number.isFinite(length) && length > 0 ? length : 0;
}
