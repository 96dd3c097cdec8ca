/**
 * Server-Sent Events for the loop: one event per progress step, then a final
 * `result` (the response body) or `error` (the error body) event. The stream
 * plumbing is shared with the AI SDK's UI message stream (ui_message_stream.ts).
 */
import type { ErrorBody } from "../contracts.ts";
import type { Logger } from "../ports.ts";
import { errorBody } from "./responses.ts";

/** What both event streams report when they end. */
export interface StreamEnd {
  logger: Logger;
  requestId: string;
  /** Called once the stream has ended, with the error code if it ended with one. */
  onEnd?: (errorCode?: string) => void;
}

/**
 * A `text/event-stream` response whose body `produce` writes. `produce` runs
 * while the body streams; a failure is handed to `fail` (as the error body a
 * JSON response would carry) to write its last words. Writes after the client
 * went away are dropped.
 */
export function eventStreamResponse(
  produce: (write: (text: string) => void) => Promise<void>,
  { fail, finish, headers, logger, requestId, onEnd }: StreamEnd & {
    fail: (error: ErrorBody, write: (text: string) => void) => void;
    /** Written last, after success or failure (e.g. `data: [DONE]`). */
    finish?: string;
    headers?: Record<string, string>;
  },
): Response {
  const encoder = new TextEncoder();
  let closed = false;
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      const write = (text: string) => {
        if (!closed) controller.enqueue(encoder.encode(text));
      };
      let errorCode: string | undefined;
      try {
        await produce(write);
      } catch (error) {
        const { body } = errorBody(error, { logger, requestId });
        errorCode = body.error.code;
        fail(body, write);
      } finally {
        if (finish) write(finish);
        if (!closed) controller.close();
        closed = true;
        onEnd?.(errorCode);
      }
    },
    cancel() {
      closed = true;
    },
  });
  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      "x-request-id": requestId,
      ...headers,
    },
  });
}

/** One Server-Sent Event: its name, its id when it has one, and its data as JSON. */
export function sseEvent(name: string, data: unknown, id?: number): string {
  return `event: ${name}\n${id === undefined ? "" : `id: ${id}\n`}data: ${
    JSON.stringify(data)
  }\n\n`;
}

/**
 * Streams `run`'s events as named SSE events (with their run event numbers as
 * `id:` when the run is persisted); `run` resolves with the final body.
 */
export function sseResponse(
  run: (emit: (event: string, data: unknown, id?: number) => void) => Promise<unknown>,
  options: StreamEnd,
): Response {
  const event = sseEvent;
  return eventStreamResponse(
    async (write) =>
      write(event("result", await run((name, data, id) => write(event(name, data, id))))),
    {
      ...options,
      fail: (body, write) => write(event("error", body)),
    },
  );
}
