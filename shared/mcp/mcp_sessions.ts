/**
 * Sessions for 2025-11-25 clients over HTTP that declare elicitation, so the
 * server can ask them to approve a call: the store every instance shares, how
 * long a session and a question last, and how the instance that asked waits
 * for the answer. The answer is a POST that may reach any instance; it is
 * recorded in the store, and the asking instance reads the store — at once
 * when the answer landed in this process (a doorbell rings), else on its next
 * poll (50 ms, doubling to 1 s). Postgres LISTEN/NOTIFY would spare the polls,
 * but the `Sql` port has no listener and Supabase's pooled connections
 * (transaction mode) do not deliver notifications.
 */
import { MCP_QUESTION_WAIT_MS, MCP_SESSION_TTL_MS } from "../config/mcp_config.ts";
import type { McpSessionStore } from "../store/mcp_session_port.ts";

/** Settings of MCP sessions; every one has a default. */
export interface McpSessionOptions {
  /** How long a session lives unused; it is renewed as it is used (default 24 h). */
  ttlMs?: number;
  /**
   * How long a call waits on its open SSE stream for the client's answer
   * (default 120 s): within the 150 s a Supabase Edge Function worker lives on
   * the free plan and the 150 s request idle timeout, with room for the tool.
   */
  waitMs?: number;
  /** The first and the longest pause between two reads of a waiting answer (default 50 ms, 1 s). */
  pollMs?: { first: number; max: number };
  now?: () => number;
}

/** MCP sessions of one process (its doorbell is this process's). */
export interface McpSessions {
  store: McpSessionStore;
  ttlMs: number;
  waitMs: number;
  pollMs: { first: number; max: number };
  now: () => number;
  /** Wakes this process's waiters of a session when an answer or a cancel lands here. */
  readonly doorbell: Doorbell;
  /** When this process last swept lapsed sessions (ms since the epoch). */
  lastSweep: number;
}

/** Defaults of {@link McpSessionOptions}. */
export const SESSION_DEFAULTS = {
  ttlMs: MCP_SESSION_TTL_MS,
  waitMs: MCP_QUESTION_WAIT_MS,
  pollMs: { first: 50, max: 1_000 },
} as const;

/** MCP sessions kept in `store`. */
export function createMcpSessions(
  store: McpSessionStore,
  {
    ttlMs = SESSION_DEFAULTS.ttlMs,
    waitMs = SESSION_DEFAULTS.waitMs,
    pollMs = SESSION_DEFAULTS.pollMs,
    now = Date.now,
  }: McpSessionOptions = {},
): McpSessions {
  return { store, ttlMs, waitMs, pollMs, now, doorbell: new Doorbell(), lastSweep: 0 };
}

/** A new `Mcp-Session-Id`: 32 random bytes, base64url (visible ASCII, as the spec asks). */
export function newSessionId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_")
    .replace(/=+$/, "");
}

/** Wakes the waiters of a session in this process. */
class Doorbell {
  readonly #waiters = new Map<string, Set<() => void>>();

  /** Resolves when `session` rings, after `ms`, or when `signal` aborts, whichever is first. */
  wait(session: string, ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        const waiters = this.#waiters.get(session);
        waiters?.delete(done);
        if (waiters?.size === 0) this.#waiters.delete(session);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      if (signal.aborted) return done();
      signal.addEventListener("abort", done, { once: true });
      let waiters = this.#waiters.get(session);
      if (!waiters) this.#waiters.set(session, waiters = new Set());
      waiters.add(done);
    });
  }

  /** Wakes every waiter of `session`. */
  ring(session: string): void {
    for (const wake of [...this.#waiters.get(session) ?? []]) wake();
  }
}
