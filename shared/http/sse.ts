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
  { logger, requestId }: { logger: Logger; requestId: string },
): Response {
  const encoder = new TextEncoder();
  let closed = false;
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      const emit = (event: string, data: unknown) => {
        if (closed) return;
        controller.enqueue(encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`));
      };
      try {
        emit("result", await run(emit));
      } catch (error) {
        const response = errorResponse(toAppError(error), { logger, requestId });
        emit("error", await response.json());
      } finally {
        if (!closed) controller.close();
        closed = true;
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
