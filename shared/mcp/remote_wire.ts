/**
 * The client's half of one MCP Streamable HTTP exchange, with `fetch`
 * (specification 2025-11-25, basic/transports "Streamable HTTP"; the 2026-07-28
 * draft keeps the same exchange): POST one JSON-RPC message with
 * `Accept: application/json, text/event-stream`; a notification or response is
 * answered 202 with no body; a request is answered either with JSON or with
 * an SSE stream that may carry the server's own requests and notifications
 * before the response. A stream that ends before the response, after an event
 * with an id, is resumed with GET and `Last-Event-ID` ("Resumability and
 * Redelivery"). Everything that is not the response goes to `onMessage`.
 */
import {
  delay,
  failureOf,
  isMessage,
  type JsonRpcMessage,
  RemoteMcpError,
} from "./remote_error.ts";
import { parseMessage, readStream, type StreamState } from "./remote_sse.ts";

/** One POST: where, with which headers (complete but for Accept and Content-Type), and what. */
export interface Exchange {
  url: string;
  headers: Headers;
  message: JsonRpcMessage;
  signal: AbortSignal;
  fetch: typeof fetch;
  /** The server's requests and notifications, and responses that are not this one's. */
  onMessage: (message: JsonRpcMessage) => void;
}

/** Resumptions of one request's stream before giving up (the SDK client's default too). */
const MAX_RESUMPTIONS = 2;
/** The wait before resuming when the server sent no `retry` field (the SDK client's default). */
const DEFAULT_RETRY_MS = 1_000;

/** POSTs the message; resolves with the response to a request, and the HTTP response's headers. */
export async function postMessage(
  exchange: Exchange,
): Promise<{ answer?: JsonRpcMessage; headers: Headers }> {
  const { message, signal } = exchange;
  const response = await post(exchange);
  if (message.id === undefined || message.method === undefined) {
    // A notification or response: "the server MUST return HTTP status code 202 Accepted with no body".
    await response.body?.cancel();
    return { headers: response.headers };
  }
  const type = mediaType(response.headers.get("content-type"));
  if (type === "application/json") {
    return {
      answer: answerIn(await readJson(response, signal), exchange),
      headers: response.headers,
    };
  }
  if (type !== "text/event-stream") {
    await response.body?.cancel();
    const what = response.status === 202 ? "202 Accepted with no answer" : `content type ${type}`;
    throw new RemoteMcpError(
      "protocol",
      `The server answered a ${message.method} request with ${what}`,
    );
  }
  return { answer: await answerOnStream(response, exchange), headers: response.headers };
}

/**
 * POSTs a request whose answer is a stream that stays open (`subscriptions/listen`):
 * the SSE response, or the JSON-RPC error a JSON answer carries.
 */
export async function postForStream(exchange: Exchange): Promise<Response> {
  const response = await post(exchange);
  if (mediaType(response.headers.get("content-type")) === "text/event-stream") return response;
  const answer = answerIn(await readJson(response, exchange.signal), exchange);
  const error = answer.error ?? { code: -32603, message: "a result instead of a stream" };
  throw new RemoteMcpError(
    "rpc",
    `${exchange.message.method}: ${error.message} (JSON-RPC ${error.code})`,
    {
      rpc: error,
    },
  );
}

/** Opens a GET event stream (the session's notification stream, or a resumption); undefined on 405. */
export async function getStream(
  exchange: Omit<Exchange, "message" | "onMessage">,
  lastEventId?: string,
): Promise<Response | undefined> {
  const headers = new Headers(exchange.headers);
  headers.set("accept", "text/event-stream");
  if (lastEventId !== undefined) headers.set("last-event-id", lastEventId);
  try {
    return await send(exchange.fetch, exchange.url, {
      method: "GET",
      headers,
      signal: exchange.signal,
    });
  } catch (error) {
    // "the server MUST either return Content-Type: text/event-stream … or else return HTTP 405".
    if (error instanceof RemoteMcpError && error.httpStatus === 405) return undefined;
    throw error;
  }
}

/** The response to the exchange's request on its SSE stream, resuming a stream that ends early. */
async function answerOnStream(response: Response, exchange: Exchange): Promise<JsonRpcMessage> {
  const { message, signal } = exchange;
  const state: StreamState = {};
  let answer: JsonRpcMessage | undefined;
  const onMessage = (received: JsonRpcMessage) => {
    if (isResponseTo(received, message.id)) answer = received;
    else exchange.onMessage(received);
    return answer !== undefined;
  };
  for (let resumptions = 0;; resumptions++) {
    if (await readStream(response, { signal, state, onMessage })) return answer!;
    if (state.lastEventId === undefined || resumptions === MAX_RESUMPTIONS) break;
    await delay(state.retryMs ?? DEFAULT_RETRY_MS, signal);
    const resumed = await getStream(exchange, state.lastEventId);
    if (!resumed) break;
    response = resumed;
  }
  throw new RemoteMcpError(
    "network",
    `The server closed the event stream before answering the ${message.method} request`,
  );
}

/** The response to the request among the messages of a JSON body (one, or a batch). */
function answerIn(body: unknown, exchange: Exchange): JsonRpcMessage {
  let answer: JsonRpcMessage | undefined;
  for (const item of Array.isArray(body) ? body : [body]) {
    const message = isMessage(item) ? item : undefined;
    if (!message) continue;
    if (isResponseTo(message, exchange.message.id)) answer = message;
    else exchange.onMessage(message);
  }
  if (answer) return answer;
  throw new RemoteMcpError(
    "protocol",
    `The server's JSON answer to the ${exchange.message.method} request is not a JSON-RPC response to it`,
  );
}

/** POSTs the message, accepting both answers (2025-11-25 §Sending Messages to the Server 2). */
function post(exchange: Exchange): Promise<Response> {
  const headers = new Headers(exchange.headers);
  headers.set("content-type", "application/json");
  headers.set("accept", "application/json, text/event-stream");
  return send(exchange.fetch, exchange.url, {
    method: "POST",
    headers,
    body: JSON.stringify(exchange.message),
    signal: exchange.signal,
  });
}

async function send(fetcher: typeof fetch, url: string, init: RequestInit): Promise<Response> {
  let response: Response;
  try {
    response = await fetcher(url, init);
  } catch (error) {
    throw failureOf(error, init.signal ?? undefined, `Could not reach ${init.method} ${url}`);
  }
  if (response.ok) return response;
  const text = await response.text().catch(() => "");
  const rpc = rpcErrorIn(text);
  const said = rpc ? `${rpc.message} (JSON-RPC ${rpc.code})` : text.slice(0, 200);
  throw new RemoteMcpError(
    "http",
    `The server answered ${init.method} with HTTP ${response.status}${said ? `: ${said}` : ""}`,
    { httpStatus: response.status, rpc },
  );
}

async function readJson(response: Response, signal: AbortSignal): Promise<unknown> {
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    throw failureOf(error, signal, "The server's answer broke off");
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new RemoteMcpError(
      "protocol",
      `The server's JSON answer is not JSON: ${text.slice(0, 80)}`,
    );
  }
}

function isResponseTo(message: JsonRpcMessage, id: JsonRpcMessage["id"]): boolean {
  return message.method === undefined && message.id === id &&
    ("result" in message || "error" in message);
}

/** The JSON-RPC error in an HTTP error's body, when it is one. */
function rpcErrorIn(text: string): RemoteMcpError["rpc"] {
  const body = parseMessage(text);
  const error = body?.error;
  if (typeof error?.code !== "number") return undefined;
  return { code: error.code, message: String(error.message ?? ""), data: error.data };
}

/** The media type without parameters, lower case (`text/event-stream; charset=utf-8` → `text/event-stream`). */
function mediaType(contentType: string | null): string {
  return (contentType ?? "").split(";")[0].trim().toLowerCase();
}

/**
 * Ends a 2025 session: "Clients that no longer need a particular session … SHOULD send
 * an HTTP DELETE"; "The server MAY respond … with HTTP 405" (§Session Management 5).
 * Either way, and unreachable or slow, the client is done with it.
 */
export async function deleteSession(
  { url, headers, fetch: fetcher, timeoutMs }: {
    url: string;
    headers: Headers;
    fetch: typeof fetch;
    timeoutMs: number;
  },
): Promise<void> {
  try {
    const signal = AbortSignal.timeout(timeoutMs);
    const response = await fetcher(url, { method: "DELETE", headers, signal });
    await response.body?.cancel();
  } catch {
    // The server ends the session itself in time.
  }
}

/**
 * The answer of a client that declared no capability to a server's request: `ping` is
 * answered `{}` (basic/utilities/ping: "The receiver MUST respond promptly with an empty
 * response"), anything else -32601 Method not found, as the SDK client answers.
 */
export function answerTo(request: JsonRpcMessage): JsonRpcMessage {
  return request.method === "ping"
    ? { jsonrpc: "2.0", id: request.id, result: {} }
    : { jsonrpc: "2.0", id: request.id, error: { code: -32601, message: "Method not found" } };
}
