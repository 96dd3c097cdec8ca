/**
 * Server-Sent Events for the loop: one event per progress step, then a final
 * `result` (the response body) or `error` (the error body) event.
 */
import { toAppError } from "../errors.ts";
import type { Logger } from "../ports.ts";
import { errorResponse } from "./responses.ts";

/** Streams `run`'s events; `run` resolves with the final body. */
export function sseResponse(
  run: (emit: (event: string, data: unknown) => void) => Promise<unknown>,
  { logger, requestId, onEnd }: {
    logger: Logger;
    requestId: string;
    /** Called once the stream has ended, with the error code if it ended with one. */
    onEnd?: (errorCode?: string) => void;
  },
): Response {
  const encoder = new TextEncoder();
  let closed = false;
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      const emit = (event: string, data: unknown) => {
        if (closed) return;
        controller.enqueue(encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`));
      };
      let errorCode: string | undefined;
      try {
        emit("result", await run(emit));
      } catch (error) {
        const appError = toAppError(error);
        errorCode = appError.code;
        const response = errorResponse(appError, { logger, requestId });
        emit("error", await response.json());
      } finally {
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
    },
  });
}
