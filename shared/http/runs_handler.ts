/**
 * `/mcp-loop/runs/{runId}`: a persisted run, seen and steered by its own
 * caller only (anyone else's run is 404, like one that does not exist).
 *
 * - `GET  …/{runId}`: where it stands (status, stop reason, pending approvals, trace).
 * - `GET  …/{runId}/events`: its events as SSE, each with its `id:`; with
 *   `Last-Event-ID` only the later ones; then live events until it stops or pauses.
 * - `POST …/{runId}/approvals`: decisions on its pending calls; answers like `POST /mcp-loop`.
 * - `POST …/{runId}/resume`: goes on with a run paused at its deadline; answers likewise.
 * - `POST …/{runId}/cancel`: stops it (at the next step boundary when running).
 */
import { AppError, toAppError } from "../errors.ts";
import type { McpLoopRunner } from "../loop/runner.ts";
import { runNotFound } from "../runs/engine.ts";
import type { Caller, ConversationStore, Logger } from "../ports.ts";
import { ApprovalsBody } from "../contracts.ts";
import type { RunEventHub } from "../runs/run_events.ts";
import type { RunStore } from "../runs/run_store.ts";
import { toRunView } from "../runs/run_view.ts";
import { answerRun, presenter } from "./answer_run.ts";
import { readJsonBody } from "./json_body.ts";
import { issuesOf } from "./loop_handler.ts";
import type { RequestTrace } from "./request_trace.ts";
import { admitCaller, type CallerDoor } from "./admit_caller.ts";
import { errorResponse, jsonResponse } from "./responses.ts";
import { followRunEvents } from "./run_events_stream.ts";

/** What the run routes need. */
export interface RunsHandlerDeps extends CallerDoor {
  runner: Pick<McpLoopRunner, "resume" | "cancel">;
  store: RunStore;
  /** Where a replayed result reads the text of the messages its run recalled. */
  messages: Pick<ConversationStore, "messagesByIds">;
  hub: RunEventHub;
  embeddingModel: string;
  maxBodyBytes: number;
  logger: Logger;
  keepAlive?: (work: Promise<unknown>) => void;
  /** How often a follower looks for new events of a run another process executes. */
  pollMs?: number;
}

/** What a run route does. */
export type RunAction = "view" | "events" | "approvals" | "resume" | "cancel";

/** Builds the handler of the run routes. */
export function createRunsHandler(
  deps: RunsHandlerDeps,
): (req: Request, trace: RequestTrace, runId: string, action: RunAction) => Promise<Response> {
  return async (req, trace, runId, action) => {
    try {
      const caller = await admitCaller(req, trace, deps);
      trace.fields.run = action;
      return await act(req, { deps, trace, runId, action, caller });
    } catch (error) {
      trace.outcome = toAppError(error).code;
      return errorResponse(error, { logger: deps.logger, requestId: trace.id });
    }
  };
}

async function act(
  req: Request,
  { deps, trace, runId, action, caller }: {
    deps: RunsHandlerDeps;
    trace: RequestTrace;
    runId: string;
    action: RunAction;
    caller: Caller;
  },
): Promise<Response> {
  const headers = { "x-request-id": trace.id };
  switch (action) {
    case "view": {
      const record = await deps.store.get(caller, runId);
      if (!record) throw runNotFound(runId);
      return jsonResponse({ success: true, data: toRunView(record) }, 200, headers);
    }
    case "events": {
      const record = await deps.store.get(caller, runId);
      if (!record) throw runNotFound(runId);
      trace.hold();
      return followRunEvents({
        store: deps.store,
        messages: deps.messages,
        hub: deps.hub,
        caller,
        runId,
        after: lastEventId(req),
        pollMs: deps.pollMs ?? 250,
        requestId: trace.id,
        signal: req.signal,
        onEnd: () => trace.end(200, { force: true }),
        present: presenter(new URL(req.url), deps.embeddingModel),
      });
    }
    case "cancel":
      return jsonResponse(
        { success: true, data: await deps.runner.cancel(runId, { caller }) },
        200,
        headers,
      );
    case "approvals":
    case "resume":
      return await goOn(req, { deps, trace, runId, action, caller });
  }
}

/** Answers a run's pending calls, or resumes it paused, answering like `POST /mcp-loop`. */
async function goOn(
  req: Request,
  { deps, trace, runId, action, caller }: {
    deps: RunsHandlerDeps;
    trace: RequestTrace;
    runId: string;
    action: "approvals" | "resume";
    caller: Caller;
  },
): Promise<Response> {
  const approvals = action === "approvals"
    ? parseApprovals(await readJsonBody(req, { maxBytes: deps.maxBodyBytes })).approvals
    : undefined;
  return await answerRun(req, {
    start: (onEvent) =>
      deps.runner.resume(runId, {
        caller,
        approvals,
        requestId: trace.id,
        stageTimings: trace.stages,
        roundTimings: trace.rounds,
        onEvent,
      }),
    trace,
    logger: deps.logger,
    embeddingModel: deps.embeddingModel,
    keepAlive: deps.keepAlive,
  });
}

function parseApprovals(body: unknown): ApprovalsBody {
  const parsed = ApprovalsBody.safeParse(body);
  if (parsed.success) return parsed.data;
  const issues = issuesOf(parsed.error);
  const [first] = issues;
  throw new AppError(
    "VALIDATION_FAILED",
    `The approvals are invalid: ${
      first.path || "(body)"
    }: ${first.message}; send {"approvals":[{"id":"…","approved":true}]}`,
    { details: { issues: issues.slice(0, 20) } },
  );
}

/** `Last-Event-ID` (or `?after=`): the last event the client has; 0 for all. */
function lastEventId(req: Request): number {
  const raw = req.headers.get("last-event-id") ?? new URL(req.url).searchParams.get("after");
  const value = Number(raw);
  return raw !== null && Number.isInteger(value) && value >= 0 ? value : 0;
}
