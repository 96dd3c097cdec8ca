/**
 * Callers of recently verified bearer tokens. A browser or agent sends the
 * same token on every request for up to an hour; verifying it once (0.3–0.6 ms
 * of WebCrypto for a JWT, a SHA-256 for an API key) instead of per request
 * keeps authentication off the hot path. Only successes are kept, never past
 * the token's own `exp`, and for at most `ttlMs`.
 */
import { forgetOldest } from "../bounded.ts";
import type { Caller } from "../ports.ts";

/** A bounded map of token → caller with expiry (oldest entries go first). */
export class VerifiedTokens {
  readonly #entries = new Map<string, { caller: Caller; until: number }>();
  readonly #max: number;
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(
    { max = 1_000, ttlMs = 300_000, now = () => Date.now() }: {
      max?: number;
      ttlMs?: number;
      now?: () => number;
    } = {},
  ) {
    this.#max = max;
    this.#ttlMs = ttlMs;
    this.#now = now;
  }

  /** The caller of `token`, if it was verified and has not expired since. */
  get(token: string): Caller | undefined {
    const entry = this.#entries.get(token);
    if (!entry) return undefined;
    if (entry.until > this.#now()) return entry.caller;
    this.#entries.delete(token);
    return undefined;
  }

  /** Remembers a verified token's caller, until its `exp` (when it has one) or the TTL. */
  set(token: string, caller: Caller): void {
    if (this.#ttlMs <= 0) return;
    const exp = caller.claims?.exp;
    const until = Math.min(
      this.#now() + this.#ttlMs,
      typeof exp === "number" ? exp * 1000 : Infinity,
    );
    this.#entries.delete(token);
    forgetOldest(this.#entries, this.#max - 1);
    this.#entries.set(token, { caller, until });
  }
}
