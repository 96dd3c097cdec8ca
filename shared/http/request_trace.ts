/**
 * One request's trace: its id (the client's `x-request-id` when it is a sane
 * one, else a new UUID), who called, how long each loop stage took and how it
 * ended — written as one JSON log line when the request ends. It never holds
 * message content, tokens or keys: only ids, names, codes and timings.
 */
import type { Logger } from "../ports.ts";

/** What a handler learns about its request and reports back for the log line. */
export interface RequestTrace {
  readonly id: string;
  /** The caller's owner key (`user:<uuid>`, `key:<name>`, `anonymous`), once authenticated. */
  caller?: string;
  /** Milliseconds spent in each loop stage. */
  readonly stages: Record<string, number>;
  /** Milliseconds per round of a loop run (`{round, plan, execute, score?}`). */
  readonly rounds: { round: number; plan: number; execute: number; score?: number }[];
  /** `ok`, or the error code the request ended with. */
  outcome?: string;
  /** Extra ids and names worth logging (the JSON-RPC method, the tool). */
  readonly fields: Record<string, string | number | boolean>;
  /** Keeps the log line open past the response (a stream); `end` writes it. */
  hold(): void;
  /** Writes the log line once (a held trace only when called with `force`). */
  end(status: number, options?: { force?: boolean }): void;
  /** Calls `fn` once the request has ended (a stream: when it ends), whatever the outcome. */
  onEnd(fn: () => void): void;
}

/** A client-sent request id is kept when it looks like one (no spaces, quotes or control characters). */
const SANE_ID = /^[A-Za-z0-9._:@\/+=-]{1,128}$/;

/** Starts the trace of `req`; `logger` gets its line when it ends. */
export function startTrace(
  req: Request,
  { logger, now = () => performance.now(), newId = () => crypto.randomUUID() }: {
    logger?: Logger;
    now?: () => number;
    newId?: () => string;
  } = {},
): RequestTrace {
  const sent = req.headers.get("x-request-id");
  const started = now();
  let held = false;
  let ended = false;
  const finishers: (() => void)[] = [];
  const trace: RequestTrace = {
    id: sent && SANE_ID.test(sent) ? sent : newId(),
    stages: {},
    rounds: [],
    fields: {},
    hold: () => {
      held = true;
    },
    onEnd: (fn) => {
      if (ended) fn();
      else finishers.push(fn);
    },
    end: (status, { force = false } = {}) => {
      if (ended || (held && !force)) return;
      ended = true;
      for (const finish of finishers.splice(0)) finish();
      logger?.info("request", {
        requestId: trace.id,
        method: req.method,
        path: pathOf(req.url),
        status,
        durationMs: Math.round((now() - started) * 10) / 10,
        caller: trace.caller ?? "unauthenticated",
        outcome: trace.outcome ?? (status < 400 ? "ok" : `http_${status}`),
        ...(Object.keys(trace.stages).length > 0 ? { stages: trace.stages } : {}),
        ...(trace.rounds.length > 0 ? { rounds: trace.rounds } : {}),
        ...trace.fields,
      });
    },
  };
  return trace;
}

/** The path only: a query string may carry tokens (`?apikey=`). */
function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  const end = url.search(/[?#]/);
  return url.slice(start, end < 0 ? undefined : end);
}
