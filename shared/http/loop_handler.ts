/**
 * `POST /mcp-loop`: validates the body against `MCPRequest` (or reads the body
 * `useChat` sends), runs the loop as the caller and answers with the seed's
 * response — as JSON, as the loop's Server-Sent Events when the client asks
 * for `text/event-stream`, or as the AI SDK's UI message stream. A `useChat`
 * body that answers a run's approval requests goes on with that run instead
 * (like `POST /mcp-loop/runs/{runId}/approvals`), in the same UI message.
 */
import type { z } from "zod";
import { MCPRequest } from "../contracts.ts";
import { AppError, toAppError } from "../errors.ts";
import { assertLatestHasContent } from "../loop/context_stage.ts";
import type { McpLoopRunner } from "../loop/runner.ts";
import type { Logger } from "../ports.ts";
import { type RequestTrace, startTrace } from "./request_trace.ts";
import { readJsonBody } from "./json_body.ts";
import { MAX_JSON_DEPTH, nestedDeeperThan } from "./json_depth.ts";
import { admitCaller, type CallerDoor } from "./admit_caller.ts";
import { errorResponse } from "./responses.ts";
import { answerRun } from "./answer_run.ts";
import { approvalResponseOf, fromUseChatBody } from "./use_chat_body.ts";

/** What the loop handler needs. */
export interface LoopHandlerDeps extends CallerDoor {
  runner: Pick<McpLoopRunner, "run" | "resume">;
  /** Name of the embedding model, shown in place of the raw vector. */
  embeddingModel: string;
  maxBodyBytes: number;
  logger: Logger;
  /**
   * Set when runs are persisted: a run then outlives a client that leaves
   * (here, and on the edge through `EdgeRuntime.waitUntil`).
   */
  keepAlive?: (work: Promise<unknown>) => void;
}

/** Builds the `POST /mcp-loop` handler. */
export function createLoopHandler(
  deps: LoopHandlerDeps,
): (req: Request, trace?: RequestTrace) => Promise<Response> {
  return async (req, trace = startTrace(req)) => {
    const requestId = trace.id;
    try {
      const caller = await admitCaller(req, trace, deps);
      const body = await readJsonBody(req, { maxBytes: deps.maxBodyBytes });
      const timings = { stageTimings: trace.stages, roundTimings: trace.rounds };
      const answer = approvalResponseOf(body);
      if (answer) {
        trace.fields.run = "approvals";
        return await answerRun(req, {
          start: (onEvent) =>
            deps.runner.resume(answer.runId, {
              caller,
              approvals: answer.approvals,
              requestId,
              ...timings,
              onEvent,
            }),
          trace,
          logger: deps.logger,
          embeddingModel: deps.embeddingModel,
          keepAlive: deps.keepAlive,
          continuation: { messageId: answer.messageId, toolCallIds: answer.toolCallIds },
        });
      }
      const request = parseLoopRequest(fromUseChatBody(body));
      trace.fields.mode = request.mode;
      return await answerRun(req, {
        start: (onEvent) =>
          deps.runner.run(request, {
            caller,
            requestId,
            ...timings,
            // A persisted run goes on when its client leaves (it can come back for it).
            signal: deps.keepAlive ? undefined : req.signal,
            onEvent,
          }),
        trace,
        logger: deps.logger,
        embeddingModel: deps.embeddingModel,
        keepAlive: deps.keepAlive,
      });
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
    const issues = issuesOf(parsed.error);
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

/** A Zod error's issues as the API shows them: a dotted path, the message and Zod's code. */
export function issuesOf(error: z.ZodError): { path: string; message: string; code: string }[] {
  return error.issues.map(({ path, message, code }) => ({
    path: path.map(String).join("."),
    message,
    code,
  }));
}
