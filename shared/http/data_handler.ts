/**
 * A caller's rights over their data, each for that caller only (anyone
 * else's session reads like one that does not exist):
 *
 * - `DELETE …/sessions/{sessionId}`: deletes one session — its messages and
 *   their vectors, its runs, its summary; its audit rows keep no content.
 * - `GET …/data`: exports everything of the caller as one JSON document
 *   (messages, working memory, refinement loops, runs, tool calls), written
 *   page by page as the client reads it (export_body.ts).
 * - `DELETE …/data?confirm=true`: deletes everything of the caller.
 *
 * They go through the same authentication, Host/Origin checks and per-caller
 * limits as the loop.
 */
import { LIMITS } from "../contracts.ts";
import { AppError, toAppError } from "../errors.ts";
import type { Caller, Logger } from "../ports.ts";
import { type CallerDataStore, deletedNothing } from "../store/caller_data_port.ts";
import type { RequestTrace } from "./request_trace.ts";
import { admitCaller, type CallerDoor } from "./admit_caller.ts";
import { exportText, pulledBody } from "./export_body.ts";
import { errorResponse, jsonResponse } from "./responses.ts";

/** What the data routes need. */
export interface DataHandlerDeps extends CallerDoor {
  data: CallerDataStore;
  logger: Logger;
}

/** What a data route does. */
export type DataAction = "delete_session" | "export" | "delete_all";

/** Builds the handler of the data routes (`sessionId` for `delete_session`). */
export function createDataHandler(
  deps: DataHandlerDeps,
): (
  req: Request,
  trace: RequestTrace,
  action: DataAction,
  sessionId?: string,
) => Promise<Response> {
  return async (req, trace, action, sessionId) => {
    try {
      const caller = await admitCaller(req, trace, deps);
      trace.fields.data = action;
      return await act(req, { deps, caller, action, sessionId, requestId: trace.id });
    } catch (error) {
      trace.outcome = toAppError(error).code;
      return errorResponse(error, { logger: deps.logger, requestId: trace.id });
    }
  };
}

async function act(
  req: Request,
  { deps, caller, action, sessionId, requestId }: {
    deps: DataHandlerDeps;
    caller: Caller;
    action: DataAction;
    sessionId?: string;
    requestId: string;
  },
): Promise<Response> {
  const headers = { "x-request-id": requestId, "cache-control": "no-store" };
  switch (action) {
    case "delete_session": {
      const id = checkedSessionId(sessionId);
      const deleted = await deps.data.deleteSession(caller, id);
      if (deletedNothing(deleted)) {
        throw new AppError("NOT_FOUND", `You have no session "${id}" to delete`);
      }
      deps.logger.info("session deleted", { caller: caller.owner, ...deleted });
      return jsonResponse({ success: true, data: { sessionId: id, deleted } }, 200, headers);
    }
    case "export": {
      // Read before the status is sent: a database that cannot answer is still a 503.
      const head = await deps.data.exportHead(caller);
      const parts = exportText({ store: deps.data, caller, head });
      return new Response(pulledBody(parts, { logger: deps.logger, requestId }), {
        headers: {
          ...headers,
          "content-type": "application/json",
          "content-disposition": 'attachment; filename="mcp-loop-export.json"',
        },
      });
    }
    case "delete_all": {
      if (new URL(req.url).searchParams.get("confirm") !== "true") {
        throw new AppError(
          "BAD_REQUEST",
          "Deleting all of your data cannot be undone: send DELETE /mcp-loop/data?confirm=true to go ahead (GET /mcp-loop/data exports it first)",
        );
      }
      const deleted = await deps.data.deleteEverything(caller);
      deps.logger.info("caller's data deleted", { caller: caller.owner, ...deleted });
      return jsonResponse({ success: true, data: { deleted } }, 200, headers);
    }
  }
}

function checkedSessionId(sessionId: string | undefined): string {
  if (!sessionId || sessionId.length > LIMITS.maxSessionIdChars) {
    throw new AppError(
      "VALIDATION_FAILED",
      `A session id is 1 to ${LIMITS.maxSessionIdChars} characters, percent-encoded in the path`,
    );
  }
  return sessionId;
}
