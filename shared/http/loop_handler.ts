/**
 * `POST /mcp-loop`: validates the body against `MCPRequest`, runs the loop as
 * the caller and answers with the seed's response — as JSON, or as
 * Server-Sent Events when the client asks for `text/event-stream`.
 */
import { MCPRequest, type MCPResponse } from "../contracts.ts";
import { AppError, toAppError } from "../errors.ts";
import type { Authenticate } from "../auth/authenticator.ts";
import { assertLatestHasContent } from "../loop/context_stage.ts";
import type { LoopEvent } from "../contracts.ts";
import type { McpLoopRunner } from "../loop/runner.ts";
import type { Logger } from "../ports.ts";
import { type RequestTrace, startTrace } from "./request_trace.ts";
import { readJsonBody } from "./json_body.ts";
import { MAX_JSON_DEPTH, nestedDeeperThan } from "./json_depth.ts";
import { errorResponse, jsonResponse } from "./responses.ts";
import { sseResponse } from "./sse.ts";

/** What the loop handler needs. */
export interface LoopHandlerDeps {
  runner: Pick<McpLoopRunner, "run">;
  authenticate: Authenticate;
  /** Name of the embedding model, shown in place of the raw vector. */
  embeddingModel: string;
  maxBodyBytes: number;
  logger: Logger;
}

/** Builds the `POST /mcp-loop` handler. */
export function createLoopHandler(
  deps: LoopHandlerDeps,
): (req: Request, trace?: RequestTrace) => Promise<Response> {
  return async (req, trace = startTrace(req)) => {
    const requestId = trace.id;
    const includeEmbedding = new URL(req.url).searchParams.get("includeEmbedding") === "true";
    const stageTimings = trace.stages;
    try {
      const caller = await deps.authenticate(req);
      trace.caller = caller.owner;
      const request = parseLoopRequest(await readJsonBody(req, { maxBytes: deps.maxBodyBytes }));
      const present = (response: MCPResponse) =>
        includeEmbedding ? response : withoutVector(response, deps.embeddingModel);
      trace.fields.mode = request.mode;
      if (wantsEventStream(req)) {
        // The log line waits for the stream's end, when the stages and the outcome are known.
        trace.hold();
        return sseResponse(
          (emit) =>
            deps.runner.run(request, {
              caller,
              requestId,
              stageTimings,
              roundTimings: trace.rounds,
              signal: req.signal,
              onEvent: (event: LoopEvent) => emit(event.type, event),
            }).then(present),
          {
            logger: deps.logger,
            requestId,
            onEnd: (code) => {
              trace.outcome = code ?? "ok";
              trace.end(200, { force: true });
            },
          },
        );
      }
      const response = await deps.runner.run(request, {
        caller,
        requestId,
        stageTimings,
        roundTimings: trace.rounds,
        signal: req.signal,
      });
      trace.outcome = "ok";
      return jsonResponse(present(response), 200, { "x-request-id": requestId });
    } catch (error) {
      trace.outcome = toAppError(error).code;
      return errorResponse(error, { logger: deps.logger, requestId });
    }
  };
}

/** Validates a parsed body as an `MCPRequest`, with messages that name each problem. */
export function parseLoopRequest(body: unknown): MCPRequest {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new AppError(
      "BAD_REQUEST",
      `The body must be a JSON object with mode, sessionId and messages; got ${
        Array.isArray(body) ? "an array" : body === null ? "null" : typeof body
      }`,
    );
  }
  if (nestedDeeperThan(body, MAX_JSON_DEPTH)) {
    throw new AppError(
      "VALIDATION_FAILED",
      `The body is nested deeper than ${MAX_JSON_DEPTH} levels; flatten the context`,
    );
  }
  const parsed = MCPRequest.safeParse(body);
  if (!parsed.success) {
    const issues = parsed.error.issues.map(({ path, message, code }) => ({
      path: path.map(String).join("."),
      message,
      code,
    }));
    const first = issues[0];
    throw new AppError(
      "VALIDATION_FAILED",
      `The request is invalid: ${first.path || "(body)"}: ${first.message}` +
        (issues.length > 1
          ? ` (and ${issues.length - 1} more issue${issues.length > 2 ? "s" : ""})`
          : ""),
      { details: { issues: issues.slice(0, 20) } },
    );
  }
  assertLatestHasContent(parsed.data);
  return parsed.data;
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

function wantsEventStream(req: Request): boolean {
  return (req.headers.get("accept") ?? "").includes("text/event-stream");
}
