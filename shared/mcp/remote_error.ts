/**
 * The remote MCP client's messages and failures: a JSON-RPC 2.0 message, and
 * one error class whose `failure` tells a server that answered (`rpc`) from
 * one that could not be reached or broke the protocol, and our own timeouts
 * and cancellations from both.
 */
import { sleepUnlessAborted } from "../abort.ts";
import { AppError } from "../errors.ts";

/** A JSON-RPC 2.0 message (request, notification or response). */
export interface JsonRpcMessage {
  jsonrpc: "2.0";
  id?: string | number | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/**
 * Why a remote exchange failed: `rpc`, the server answered with a JSON-RPC
 * error; `http`, a status other than 2xx; `network`, no answer (refused,
 * reset, a stream that broke); `protocol`, an answer that breaks the
 * specification; `timeout` and `aborted`, ours.
 */
export type RemoteFailure = "rpc" | "http" | "network" | "protocol" | "timeout" | "aborted";

/** A failed exchange with a remote MCP server. */
export class RemoteMcpError extends AppError {
  readonly failure: RemoteFailure;
  /** The HTTP status, for `http`. */
  readonly httpStatus?: number;
  /** The JSON-RPC error (for `rpc`, and for an `http` failure whose body carried one). */
  readonly rpc?: { code: number; message: string; data?: unknown };

  constructor(
    failure: RemoteFailure,
    message: string,
    { httpStatus, rpc, cause }: {
      httpStatus?: number;
      rpc?: RemoteMcpError["rpc"];
      cause?: unknown;
    } = {},
  ) {
    super("REMOTE_UNAVAILABLE", message, { cause });
    this.name = "RemoteMcpError";
    this.failure = failure;
    this.httpStatus = httpStatus;
    this.rpc = rpc;
  }

  /**
   * Whether the server answered this request and is up: a JSON-RPC error, a
   * result the client refused, or an HTTP 4xx about the request itself (400,
   * 413, 429…; not 404, a session gone, nor 401/403, access lost).
   */
  get serverAnswered(): boolean {
    if (this.failure === "rpc" || this.failure === "protocol") return true;
    const status = this.httpStatus;
    return this.failure === "http" && status !== undefined && status >= 400 && status < 500 &&
      ![401, 403, 404].includes(status);
  }
}

/** A thrown fetch or stream error as a failure: ours (timeout, abort) or the network's. */
export function failureOf(
  error: unknown,
  signal: AbortSignal | undefined,
  what: string,
): RemoteMcpError {
  if (error instanceof RemoteMcpError) return error;
  if (signal?.aborted) {
    const reason = signal.reason;
    return reason instanceof RemoteMcpError
      ? reason
      : new RemoteMcpError("aborted", `The request was cancelled (${String(reason)})`);
  }
  const cause = error instanceof Error ? error.message : String(error);
  return new RemoteMcpError("network", `${what}: ${cause}`, { cause: error });
}

/** Is `value` a JSON-RPC 2.0 message object? */
export function isMessage(value: unknown): value is JsonRpcMessage {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    (value as JsonRpcMessage).jsonrpc === "2.0";
}

/** Waits `ms`, or rejects when `signal` aborts (as the failure it is). */
export async function delay(ms: number, signal: AbortSignal): Promise<void> {
  await sleepUnlessAborted(ms, signal).catch((error) => {
    throw failureOf(error, signal, "Waiting");
  });
}

/** An abort signal for one request: the caller's or the client's, or its timeout. */
export function cancellation(
  signals: (AbortSignal | undefined)[],
  timeoutMs: number,
  method: string,
): { signal: AbortSignal; dispose: () => void } {
  const stop = new AbortController();
  const timer = setTimeout(() => {
    const timedOut = `Request timed out after ${timeoutMs / 1000} s (${method})`;
    stop.abort(new RemoteMcpError("timeout", timedOut));
  }, timeoutMs);
  const sources = signals.filter((s) => s !== undefined);
  const onAbort = () => stop.abort(sources.find((s) => s.aborted)?.reason);
  for (const source of sources) source.addEventListener("abort", onAbort, { once: true });
  if (sources.some((s) => s.aborted)) onAbort();
  return {
    signal: stop.signal,
    dispose: () => {
      clearTimeout(timer);
      for (const source of sources) source.removeEventListener("abort", onAbort);
    },
  };
}

/** Whether a 2025 session the request carried was found gone (basic/transports §Session Management 4). */
export function sessionGone(error: unknown, session: string | undefined): boolean {
  return error instanceof RemoteMcpError && error.httpStatus === 404 && session !== undefined;
}
