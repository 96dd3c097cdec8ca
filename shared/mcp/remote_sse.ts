/**
 * Reading an MCP server's Server-Sent Events stream (2025-11-25
 * basic/transports "Sending Messages to the Server" 5, "Listening for Messages
 * from the Server"): each event of type `message` (or untyped) carries one
 * JSON-RPC message; an event without data primes the stream or keeps it
 * alive; `id` and `retry` are kept for resuming it ("Resumability and
 * Redelivery").
 */
import { EventSourceParserStream } from "eventsource-parser/stream";
import { delay, failureOf, isMessage, type JsonRpcMessage } from "./remote_error.ts";

/** What reading a stream saw: the last event id and the server's retry hint. */
export interface StreamState {
  lastEventId?: string;
  retryMs?: number;
  /** The session the stream was opened in, whose event ids `lastEventId` is one of. */
  session?: string;
}

/**
 * Reads an event stream to its end, handing each JSON-RPC message to `onMessage`
 * (which returns true to stop reading). Resolves true when it was stopped.
 */
export async function readStream(
  response: Response,
  { signal, state, onMessage }: {
    signal: AbortSignal;
    state: StreamState;
    onMessage: (message: JsonRpcMessage) => boolean | void;
  },
): Promise<boolean> {
  if (!response.body) return false;
  const events = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(
    new EventSourceParserStream({ onRetry: (ms) => state.retryMs = ms }),
  ).getReader();
  // Cancelling the reader ends a read that waits, whatever the body does on abort.
  const onAbort = () => void events.cancel(signal.reason).catch(() => {});
  signal.addEventListener("abort", onAbort, { once: true });
  if (signal.aborted) onAbort();
  try {
    while (true) {
      const next = await events.read().catch((error) => {
        throw failureOf(error, signal, "The server's event stream broke");
      });
      if (signal.aborted) throw failureOf(signal.reason, signal, "Reading");
      if (next.done) return false;
      if (next.value.id) state.lastEventId = next.value.id;
      // Priming and keep-alive events carry no data; other event types are not MCP's.
      if (!next.value.data || (next.value.event && next.value.event !== "message")) continue;
      const message = parseMessage(next.value.data);
      if (message && onMessage(message)) return true;
    }
  } finally {
    signal.removeEventListener("abort", onAbort);
    await events.cancel().catch(() => {});
  }
}

/** The JSON-RPC message in a text, if it is one. */
export function parseMessage(data: string): JsonRpcMessage | undefined {
  try {
    const value: unknown = JSON.parse(data);
    return isMessage(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The wait before opening a stream again when the server sent no `retry` (the SDK client's first delay). */
const REOPEN_MS = 1_000;

/** The longest pause before a notification stream is opened again. */
const MAX_REOPEN_MS = 30_000;

/**
 * Keeps a notification stream open until `signal` aborts: `open` gives the
 * stream (undefined: none is offered); when it ends or breaks it is opened
 * again after the server's `retry`, resuming from `state.lastEventId` (which
 * `open` clears when the stream is another session's). A failure to reopen it, or an unreachable server at the first
 * opening, is `onLost`.
 */
export async function followStream(
  { open, signal, onMessage, onLost }: {
    open: (state: StreamState) => Promise<Response | undefined>;
    signal: AbortSignal;
    onMessage: (message: JsonRpcMessage) => void;
    onLost: (reason: string) => void;
  },
): Promise<void> {
  const state: StreamState = {};
  let pause = REOPEN_MS;
  for (let reopening = false; !signal.aborted; reopening = true) {
    try {
      if (reopening) await delay(state.retryMs ?? pause, signal);
      const stream = await open(state);
      if (!stream) return;
      let heard = false;
      await readStream(stream, {
        signal,
        state,
        onMessage: (message) => {
          heard = true;
          onMessage(message);
        },
      });
      // A stream that ends with nothing said is opened again later each time, as the SDK client
      // backs off (×1.5, at most 30 s): a server that closes it at once is not asked every second.
      pause = heard ? REOPEN_MS : Math.min(pause * 1.5, MAX_REOPEN_MS);
    } catch (error) {
      const failure = failureOf(error, signal, "The notification stream failed");
      // At first only an unreachable server counts (the SDK client ignores a refused GET).
      if (!signal.aborted && (reopening || failure.failure === "network")) onLost(failure.message);
      return;
    }
  }
}
