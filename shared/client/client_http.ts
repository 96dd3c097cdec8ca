/**
 * The typed client's plumbing (not part of its API): requests with the
 * caller's token and headers, JSON and Server-Sent Event bodies read into
 * typed values, and every failure turned into a {@link McpLoopError}.
 */
import { EventSourceParserStream } from "eventsource-parser/stream";
import { McpLoopError } from "./client_error.ts";
import type { ErrorBody, LoopEvent, LoopResponse, Resolvable, StreamEvent } from "./types.ts";

/** What every request needs: where, who, how. */
export interface Connection {
  url: string | URL;
  accessToken?: Resolvable<string | null | undefined>;
  headers?: Resolvable<Record<string, string>>;
  fetch?: typeof fetch;
}

/** One request to the function (`path` is added to its URL); throws the server's error when not ok. */
export async function send(
  connection: Connection,
  { method = "POST", path = "", body, accept, signal, headers = {} }: {
    method?: "GET" | "POST";
    path?: string;
    body?: unknown;
    accept: string;
    signal?: AbortSignal;
    headers?: Record<string, string>;
  },
): Promise<Response> {
  const token = await resolve(connection.accessToken);
  const url = new URL(String(connection.url));
  url.pathname = url.pathname.replace(/\/$/, "") + path;
  let response: Response;
  try {
    response = await (connection.fetch ?? fetch)(String(url), {
      method,
      headers: {
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        accept,
        ...(await resolve(connection.headers)),
        ...headers,
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
  } catch (error) {
    throw transportError(error, signal);
  }
  if (!response.ok) throw await serverError(response);
  return response;
}

/** The JSON body of a successful response; `pick` says what must be in it. */
export async function readJson<T>(
  response: Response,
  signal: AbortSignal | undefined,
  pick: (body: Record<string, unknown>) => T | undefined,
): Promise<T> {
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    throw transportError(error, signal);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw badResponse(response.status, "the response is not JSON");
  }
  const picked = typeof body === "object" && body !== null
    ? pick(body as Record<string, unknown>)
    : undefined;
  if (picked === undefined) throw badResponse(response.status, "the response has no data");
  return picked;
}

/** The `data` of a loop response. */
export function loopData(body: Record<string, unknown>): LoopResponse["data"] | undefined {
  return body.success === true && typeof body.data === "object" && body.data !== null
    ? body.data as LoopResponse["data"]
    : undefined;
}

/**
 * A Server-Sent Events body as typed events, each with its `id:` when it has
 * one, until the body ends. A broken connection is NETWORK_ERROR (ABORTED
 * when `signal` aborted).
 */
export async function* readEvents(
  response: Response,
  signal?: AbortSignal,
): AsyncGenerator<StreamEvent & { id?: number }> {
  if (!response.body) throw badResponse(response.status, "the response has no body");
  const events = response.body
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream())
    .getReader();
  try {
    while (true) {
      let next: ReadableStreamReadResult<{ event?: string; data: string; id?: string }>;
      try {
        next = await events.read();
      } catch (error) {
        throw transportError(error, signal);
      }
      if (next.done) return;
      const event = toStreamEvent(next.value, response.status);
      const id = Number(next.value.id);
      yield next.value.id && Number.isInteger(id) ? { ...event, id } : event;
    }
  } finally {
    events.releaseLock();
    await response.body.cancel().catch(() => {});
  }
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

/** A failure without a server's answer: ABORTED when `signal` aborted, else NETWORK_ERROR. */
export function transportError(error: unknown, signal?: AbortSignal): McpLoopError {
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

/** A response this client cannot read. */
export function badResponse(status: number, why: string): McpLoopError {
  return new McpLoopError({
    code: "BAD_RESPONSE",
    status,
    message: `The MCP loop function sent a response this client cannot read: ${why}`,
  });
}

async function resolve<T>(value: Resolvable<T> | undefined): Promise<T | undefined> {
  return typeof value === "function" ? await (value as () => T | Promise<T>)() : value;
}
