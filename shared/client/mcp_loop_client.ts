/**
 * A typed client of `POST /mcp-loop` for web apps, Deno and Node: `run` for
 * the whole response, `stream` for the progress events as they happen. It uses
 * only web-standard APIs (fetch, streams) and the contract's types, with
 * `eventsource-parser` reading the Server-Sent Events. Every failure is a
 * {@link McpLoopError} with the server's code, status, message and details.
 *
 * @example
 * ```ts
 * const client = createMcpLoopClient({
 *   url: "https://<project-ref>.supabase.co/functions/v1/mcp-loop",
 *   accessToken: async () => (await supabase.auth.getSession()).data.session?.access_token,
 * });
 * for await (const event of client.stream({ mode: "general", sessionId, messages })) {
 *   if (event.type === "step_end") console.log(event.result.tool, event.result.success);
 * }
 * ```
 */
import { EventSourceParserStream } from "eventsource-parser/stream";
import type {
  ErrorBody,
  LoopEvent,
  LoopRequest,
  LoopResponse,
  LoopResult,
  StreamEvent,
} from "./types.ts";

export type {
  ActionResult,
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
  PlannedAction,
  RefinementRequest,
  ReportedAction,
  ServerError,
  StopReason,
  StreamEvent,
  ToolMetadata,
  Usage,
} from "./types.ts";

/** A value, or a function giving it (called before each request), maybe asynchronously. */
export type Resolvable<T> = T | (() => T | Promise<T>);

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

/** The client. */
export interface McpLoopClient {
  /** Runs the loop and resolves with the response's `data`. */
  run(request: LoopRequest, options?: CallOptions): Promise<LoopResult>;
  /**
   * Runs the loop and yields its events as they arrive. An `error` event is
   * yielded, and then the iteration throws it as a {@link McpLoopError}.
   */
  stream(request: LoopRequest, options?: CallOptions): AsyncIterable<StreamEvent>;
}

/** Codes the client itself uses, beside the server's. */
export type ClientErrorCode = "NETWORK_ERROR" | "ABORTED" | "BAD_RESPONSE";

/** Every failure of a call: the server's error, or the client's own. */
export class McpLoopError extends Error {
  /** The server's stable code (VALIDATION_FAILED, AUTH_REQUIRED, ...) or a {@link ClientErrorCode}. */
  readonly code: string;
  /** The HTTP status (0 when there was no response). */
  readonly status: number;
  /** The server's details, when it sent some. */
  readonly details?: unknown;

  constructor(
    { code, status, message, details, cause }: {
      code: string;
      status: number;
      message: string;
      details?: unknown;
      cause?: unknown;
    },
  ) {
    super(message, { cause });
    this.name = "McpLoopError";
    this.code = code;
    this.status = status;
    this.details = details;
  }
}

/** Builds a client. */
export function createMcpLoopClient(options: McpLoopClientOptions): McpLoopClient {
  const send = async (request: LoopRequest, accept: string, signal?: AbortSignal) => {
    const token = await resolve(options.accessToken);
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept,
      ...(await resolve(options.headers)),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    };
    let response: Response;
    try {
      response = await (options.fetch ?? fetch)(String(options.url), {
        method: "POST",
        headers,
        body: JSON.stringify(request),
        signal,
      });
    } catch (error) {
      throw transportError(error, signal);
    }
    if (!response.ok) throw await serverError(response);
    return response;
  };

  return {
    async run(request, { signal } = {}) {
      const response = await send(request, "application/json", signal);
      const body = await readJson(response, signal) as Partial<LoopResponse>;
      if (body?.success !== true || typeof body.data !== "object") {
        throw badResponse(response.status, "the response has no data");
      }
      return body.data;
    },
    async *stream(request, { signal } = {}) {
      const response = await send(request, "text/event-stream", signal);
      if (!response.body) throw badResponse(response.status, "the response has no body");
      const events = response.body
        .pipeThrough(new TextDecoderStream())
        .pipeThrough(new EventSourceParserStream())
        .getReader();
      try {
        while (true) {
          let next: ReadableStreamReadResult<{ event?: string; data: string }>;
          try {
            next = await events.read();
          } catch (error) {
            throw transportError(error, signal);
          }
          if (next.done) break;
          const event = toStreamEvent(next.value, response.status);
          yield event;
          if (event.type === "error") {
            throw new McpLoopError({ status: response.status, ...event.error });
          }
          if (event.type === "result") return;
        }
      } finally {
        events.releaseLock();
        await response.body.cancel().catch(() => {});
      }
      throw badResponse(response.status, "the stream ended before its result");
    },
  };
}

/** One parsed SSE message as a typed event. */
function toStreamEvent(message: { event?: string; data: string }, status: number): StreamEvent {
  let data: unknown;
  try {
    data = JSON.parse(message.data);
  } catch {
    throw badResponse(status, `the "${message.event ?? "message"}" event is not JSON`);
  }
  if (message.event === "result") return { type: "result", data: (data as LoopResponse).data };
  if (message.event === "error") return { type: "error", error: (data as ErrorBody).error };
  return data as LoopEvent;
}

async function serverError(response: Response): Promise<McpLoopError> {
  const text = await response.text().catch(() => "");
  let body: Partial<ErrorBody> | undefined;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const error = body?.error;
  if (error && typeof error.code === "string" && typeof error.message === "string") {
    return new McpLoopError({ status: response.status, ...error });
  }
  return new McpLoopError({
    code: `HTTP_${response.status}`,
    status: response.status,
    message: `The server answered ${response.status} ${response.statusText}${
      text ? `: ${text.slice(0, 200)}` : ""
    }`,
  });
}

async function readJson(response: Response, signal?: AbortSignal): Promise<unknown> {
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    throw transportError(error, signal);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw badResponse(response.status, "the response is not JSON");
  }
}

function transportError(error: unknown, signal?: AbortSignal): McpLoopError {
  if (error instanceof McpLoopError) return error;
  if (signal?.aborted) {
    return new McpLoopError({
      code: "ABORTED",
      status: 0,
      message: "The request was aborted",
      cause: error,
    });
  }
  return new McpLoopError({
    code: "NETWORK_ERROR",
    status: 0,
    message: `Could not reach the MCP loop function: ${
      error instanceof Error ? error.message : String(error)
    }`,
    cause: error,
  });
}

function badResponse(status: number, why: string): McpLoopError {
  return new McpLoopError({
    code: "BAD_RESPONSE",
    status,
    message: `The MCP loop function sent a response this client cannot read: ${why}`,
  });
}

async function resolve<T>(value: Resolvable<T> | undefined): Promise<T | undefined> {
  return typeof value === "function" ? await (value as () => T | Promise<T>)() : value;
}
