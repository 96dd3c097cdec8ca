/**
 * How a request that runs the loop is answered — `POST /mcp-loop` and the
 * run routes that continue a run alike: as JSON, as the loop's Server-Sent
 * Events (`Accept: text/event-stream`, each with its run event number as
 * `id:`), or as the AI SDK's UI message stream (`?stream=ui`).
 */
import type { LoopEvent, MCPResponse } from "../contracts.ts";
import type { Logger } from "../ports.ts";
import type { RequestTrace } from "./request_trace.ts";
import { jsonResponse } from "./responses.ts";
import { sseResponse } from "./sse.ts";
import { type UiContinuation, uiMessageStreamResponse } from "./ui_message_stream.ts";

/** Runs the loop (or goes on with a run), passing its events on. */
export type StartRun = (onEvent?: (event: LoopEvent, id?: number) => void) => Promise<MCPResponse>;

/** The answer to `req`, whose run `start` begins. */
export async function answerRun(
  req: Request,
  { start, trace, logger, embeddingModel, keepAlive, continuation }: {
    start: StartRun;
    trace: RequestTrace;
    logger: Logger;
    /** Shown in place of the raw vector, unless `?includeEmbedding=true`. */
    embeddingModel: string;
    /** Lets the run outlive a client that leaves (a persisted run goes on). */
    keepAlive?: (work: Promise<unknown>) => void;
    /** The UI message a `useChat` approval response continues (see ui_message_stream.ts). */
    continuation?: UiContinuation;
  },
): Promise<Response> {
  const url = new URL(req.url);
  const present = presenter(url, embeddingModel);
  const run: StartRun = (onEvent) => {
    const running = start(onEvent);
    keepAlive?.(running);
    return running;
  };
  const requestId = trace.id;
  const stream = streamKind(req, url);
  if (stream) {
    // The log line waits for the stream's end, when the stages and the outcome are known.
    trace.hold();
    const options = {
      logger,
      requestId,
      onEnd: (code?: string) => {
        trace.outcome = code ?? "ok";
        trace.end(200, { force: true });
      },
    };
    return stream === "ui"
      ? uiMessageStreamResponse(run, { ...options, continuation })
      : sseResponse(
        (emit) => run((event, id) => emit(event.type, event, id)).then(present),
        options,
      );
  }
  const response = await run();
  trace.outcome = response.data.stopReason === "cancelled" ? "CANCELLED" : "ok";
  return jsonResponse(present(response), 200, { "x-request-id": requestId });
}

/**
 * How a response is shown for a request at `url`: the raw embedding replaced
 * by its model and size, unless `?includeEmbedding=true` (live and replayed alike).
 */
export function presenter(url: URL, model: string): (response: MCPResponse) => MCPResponse {
  return url.searchParams.get("includeEmbedding") === "true"
    ? (response) => response
    : (response) => withoutVector(response, model);
}

/** The response with the raw embedding replaced by its model and size. */
function withoutVector(response: MCPResponse, model: string): MCPResponse {
  const vector = response.data.context.embeddedMessage;
  if (!Array.isArray(vector)) return response;
  return {
    ...response,
    data: {
      ...response.data,
      context: { ...response.data.context, embeddedMessage: { model, dimensions: vector.length } },
    },
  };
}

/**
 * Which stream the client asked for: the AI SDK's UI message stream
 * (`?stream=ui`, or the `x-vercel-ai-ui-message-stream: v1` request header),
 * the loop's own events (`Accept: text/event-stream`), or none (JSON).
 */
function streamKind(req: Request, url: URL): "ui" | "events" | undefined {
  if (url.searchParams.get("stream") === "ui") return "ui";
  if (req.headers.get("x-vercel-ai-ui-message-stream") === "v1") return "ui";
  return (req.headers.get("accept") ?? "").includes("text/event-stream") ? "events" : undefined;
}
