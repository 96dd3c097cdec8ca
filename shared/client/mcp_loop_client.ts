/**
 * A typed client of `POST /mcp-loop` and its run routes for web apps, Deno and
 * Node: `run` for the whole response, `stream` for the progress events as
 * they happen; `approve`, `resume` and `cancel` to steer a run that waits or
 * paused, `getRun` to see it and `events` to follow it again after a
 * disconnect (from the last event you have). It uses only web-standard APIs
 * (fetch, streams) and the contract's types, with `eventsource-parser`
 * reading the Server-Sent Events. Every failure is a {@link McpLoopError} with
 * the server's code, status, message and details.
 *
 * @example
 * ```ts
 * const client = createMcpLoopClient({
 *   url: "https://<project-ref>.supabase.co/functions/v1/mcp-loop",
 *   accessToken: async () => (await supabase.auth.getSession()).data.session?.access_token,
 * });
 * let data = await client.run({ mode: "general", sessionId, messages });
 * if (data.stopReason === "approval_required") {
 *   const approvals = data.pendingApprovals!.map(({ id }) => ({ id, approved: confirm(id) }));
 *   data = await client.approve(data.runId!, approvals);
 * }
 * ```
 */
import { McpLoopError } from "./client_error.ts";
import {
  badResponse,
  type Connection,
  loopData,
  readEvents,
  readJson,
  send,
  transportError,
} from "./client_http.ts";
import type {
  ApprovalDecision,
  LoopRequest,
  LoopResult,
  Resolvable,
  RunEvent,
  RunView,
  StreamEvent,
} from "./types.ts";

export { McpLoopError } from "./client_error.ts";
export type { ClientErrorCode } from "./client_error.ts";
export type {
  ActionResult,
  ApprovalDecision,
  ChatMessage,
  ChatRole,
  ContextMessage,
  ErrorBody,
  LoopEvent,
  LoopOutput,
  LoopRequest,
  LoopResponse,
  LoopResult,
  LoopTypeName,
  Mode,
  PendingApproval,
  PlannedAction,
  RefinementRequest,
  ReportedAction,
  Resolvable,
  RunEvent,
  RunStatus,
  RunView,
  ServerError,
  StopReason,
  StreamEvent,
  ToolMetadata,
  Usage,
} from "./types.ts";

/** How to reach the function. */
export interface McpLoopClientOptions {
  /** The function's URL, like `http://127.0.0.1:8000/mcp-loop` or `https://<ref>.supabase.co/functions/v1/mcp-loop`. */
  url: string | URL;
  /** Sent as `Authorization: Bearer <token>`: a Supabase access token or an API key. */
  accessToken?: Resolvable<string | null | undefined>;
  /** Extra headers for every request (e.g. Supabase's `apikey`). */
  headers?: Resolvable<Record<string, string>>;
  /** Replaces `fetch` (tests, proxies). */
  fetch?: typeof fetch;
}

/** Per-call options. */
export interface CallOptions {
  /** Aborts the request (a `McpLoopError` with code `ABORTED`). */
  signal?: AbortSignal;
}

/** How to follow a run's events. */
export interface EventsOptions extends CallOptions {
  /** The last event you have (its `id`): only later ones come. Default 0, all of them. */
  lastEventId?: number;
  /** Reconnections after a dropped connection (from the last event received) before it throws; default 3. */
  retries?: number;
  /** Wait before each reconnection, in ms; default 500. */
  retryMs?: number;
}

/** A streamed event, with its number in the run's event log when it has one. */
export type StreamedEvent = StreamEvent & { id?: number };

/** The client. */
export interface McpLoopClient {
  /** Runs the loop and resolves with the response's `data` (see `pendingApprovals` when it waits). */
  run(request: LoopRequest, options?: CallOptions): Promise<LoopResult>;
  /**
   * Runs the loop and yields its events as they arrive. An `error` event is
   * yielded, and then the iteration throws it as a {@link McpLoopError}.
   */
  stream(request: LoopRequest, options?: CallOptions): AsyncIterable<StreamedEvent>;
  /** Answers the calls a run waits for; the run goes on, and this resolves like {@link run}. */
  approve(
    runId: string,
    approvals: ApprovalDecision[],
    options?: CallOptions,
  ): Promise<LoopResult>;
  /** {@link approve}, yielding the events of the run as it goes on, like {@link stream}. */
  approveStream(
    runId: string,
    approvals: ApprovalDecision[],
    options?: CallOptions,
  ): AsyncIterable<StreamedEvent>;
  /** Goes on with a run paused at its deadline; resolves like {@link run}. */
  resume(runId: string, options?: CallOptions): Promise<LoopResult>;
  /** {@link resume}, yielding the events like {@link stream}. */
  resumeStream(runId: string, options?: CallOptions): AsyncIterable<StreamedEvent>;
  /** Stops a run (at once when it waits or paused, else at its next step); resolves with its view. */
  cancel(runId: string, options?: CallOptions): Promise<RunView>;
  /** Where a run stands. */
  getRun(runId: string, options?: CallOptions): Promise<RunView>;
  /**
   * A run's events, each with its `id`: the stored ones after `lastEventId`,
   * then live ones until it stops or pauses. A dropped connection is
   * reconnected from the last event received. A run's `error` event is
   * yielded as history, not thrown.
   */
  events(runId: string, options?: EventsOptions): AsyncIterable<RunEvent>;
}

/** Builds a client. */
export function createMcpLoopClient(options: McpLoopClientOptions): McpLoopClient {
  const connection: Connection = options;
  const runPath = (runId: string, action = "") =>
    `/runs/${encodeURIComponent(runId)}${action ? `/${action}` : ""}`;
  const result = async (path: string, body: unknown, signal?: AbortSignal) => {
    const response = await send(connection, { path, body, accept: "application/json", signal });
    return await readJson(response, signal, loopData);
  };
  const view = async (method: "GET" | "POST", path: string, signal?: AbortSignal) => {
    const response = await send(connection, { method, path, accept: "application/json", signal });
    return await readJson(
      response,
      signal,
      // {success, data}; the bare view that earlier servers sent is still read.
      (body) => runView(body.success === true ? body.data : body),
    );
  };
  async function* streamed(path: string, body: unknown, signal?: AbortSignal) {
    const response = await send(connection, { path, body, accept: "text/event-stream", signal });
    for await (const event of readEvents(response, signal)) {
      yield event;
      if (event.type === "error") {
        throw new McpLoopError({ status: response.status, ...event.error });
      }
      if (event.type === "result") return;
    }
    throw badResponse(response.status, "the stream ended before its result");
  }

  return {
    run: (request, { signal } = {}) => result("", request, signal),
    stream: (request, { signal } = {}) => streamed("", request, signal),
    approve: (runId, approvals, { signal } = {}) =>
      result(runPath(runId, "approvals"), { approvals }, signal),
    approveStream: (runId, approvals, { signal } = {}) =>
      streamed(runPath(runId, "approvals"), { approvals }, signal),
    resume: (runId, { signal } = {}) => result(runPath(runId, "resume"), {}, signal),
    resumeStream: (runId, { signal } = {}) => streamed(runPath(runId, "resume"), {}, signal),
    cancel: (runId, { signal } = {}) => view("POST", runPath(runId, "cancel"), signal),
    getRun: (runId, { signal } = {}) => view("GET", runPath(runId), signal),
    events: (runId, eventsOptions = {}) =>
      follow(connection, runPath(runId, "events"), eventsOptions),
  };
}

function runView(body: unknown): RunView | undefined {
  const view = body as Partial<RunView> | null;
  return typeof view?.runId === "string" ? view as RunView : undefined;
}

/** The events route, reconnected from the last event after a dropped connection. */
async function* follow(
  connection: Connection,
  path: string,
  { lastEventId = 0, retries = 3, retryMs = 500, signal }: EventsOptions,
): AsyncGenerator<RunEvent> {
  let last = lastEventId;
  for (let failures = 0;;) {
    try {
      const response = await send(connection, {
        method: "GET",
        path,
        accept: "text/event-stream",
        signal,
        headers: last > 0 ? { "last-event-id": String(last) } : {},
      });
      for await (const event of readEvents(response, signal)) {
        if (event.id === undefined) continue;
        last = event.id;
        failures = 0;
        yield event as RunEvent;
      }
      return;
    } catch (error) {
      const failure = transportError(error, signal);
      const transient = failure.code === "NETWORK_ERROR" || failure.status >= 500;
      if (!transient || ++failures > retries) throw failure;
      await new Promise((resolve) => setTimeout(resolve, retryMs));
    }
  }
}
