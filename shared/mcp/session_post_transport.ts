/**
 * One POST of a 2025-11-25 client's session, as the SDK's `Transport`. The
 * server built for the POST is first initialized with what the client
 * declared (the session's `initialize`, replayed in process), so it knows
 * the client can be asked. Its answer goes back as JSON — unless it sends the
 * client a request first (an approval question, from the SDK's 2025
 * compatibility path for `input_required`): then the answer becomes an SSE
 * stream carrying that request and, last, the answer. The client's response
 * to the request is a POST that may reach any instance; that instance records
 * it in the session store, and this transport takes it from there (polling,
 * or at once when this process's doorbell rings) and hands it to the server.
 *
 * The wait is bounded ({@link McpSessions.waitMs}): past it the question is
 * withdrawn (`notifications/cancelled` on the stream; a late answer is
 * refused) and the server gets a `cancel` marked unanswered
 * ({@link UNANSWERED_META}), which refuses the call, audited, without running. The client's `notifications/cancelled` of the call, the session's
 * end, or the client leaving (the stream closed) end the call without an
 * answer. Events carry no ids: the stream cannot be resumed elsewhere.
 */
import {
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type MessageExtraInfo,
  type Transport,
  type TransportSendOptions,
} from "@modelcontextprotocol/server";
import type { Caller, Logger } from "../ports.ts";
import { describeError } from "../errors.ts";
import type { McpSessionRecord, SessionRequestState } from "../store/mcp_session_port.ts";
import type { McpSessions } from "./mcp_sessions.ts";
import { UNANSWERED_META } from "./approval_texts.ts";

/** The header that carries a 2025-11-25 session over HTTP. */
export const SESSION_HEADER = "mcp-session-id";

type RequestId = string | number;

/** The id of the replayed `initialize` (answered in process, never sent). */
const REPLAYED_INITIALIZE = "mcp-loop/session-initialize";

/** An SSE comment this often keeps proxies from closing a stream that waits. */
const KEEP_ALIVE_MS = 15_000;

/** Transport of one POST on a stored session (see the module doc). */
export class SessionPostTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  readonly sessionId: string;

  readonly #session: McpSessionRecord;
  readonly #caller: Caller;
  readonly #sessions: McpSessions;
  readonly #logger: Logger;
  /** Makes this POST's request ids unique in the session (servers count from 0 per instance). */
  readonly #prefix = crypto.randomUUID().slice(0, 8);
  /** The client's requests still to answer, and the answers held for a JSON body. */
  readonly #awaiting = new Set<RequestId>();
  readonly #answers: JSONRPCMessage[] = [];
  /** The requests sent to the client: the id on the wire → the server's own id. */
  readonly #asked = new Map<string, RequestId>();
  readonly #closing = new AbortController();
  #batch = false;
  #initialized?: (message: JSONRPCMessage) => void;
  #respond!: (response: Response) => void;
  readonly #response = new Promise<Response>((resolve) => this.#respond = resolve);
  #stream?: ReadableStreamDefaultController<Uint8Array>;
  #lastWrite = 0;
  #closed = false;
  #left = false;
  #ended!: () => void;
  /** Resolves once the transport has closed (the call answered, cancelled or left). */
  readonly ended = new Promise<void>((resolve) => this.#ended = resolve);

  constructor(
    { session, caller, sessions, logger }: {
      session: McpSessionRecord;
      caller: Caller;
      sessions: McpSessions;
      logger: Logger;
    },
  ) {
    this.#session = session;
    this.sessionId = session.id;
    this.#caller = caller;
    this.#sessions = sessions;
    this.#logger = logger;
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  /**
   * Hands the POST's `requests` to the connected server (after replaying the
   * session's `initialize`); resolves with the HTTP answer: JSON, or an SSE
   * stream once the server asks the client something.
   */
  async serve(
    requests: JSONRPCMessage[],
    extra: MessageExtraInfo,
    { batch = false }: { batch?: boolean } = {},
  ): Promise<Response> {
    this.#batch = batch;
    const init = await new Promise<JSONRPCMessage>((resolve) => {
      this.#initialized = resolve;
      this.onmessage?.({
        jsonrpc: "2.0",
        id: REPLAYED_INITIALIZE,
        method: "initialize",
        params: {
          protocolVersion: this.#session.protocolVersion,
          capabilities: this.#session.capabilities,
          clientInfo: this.#session.clientInfo,
        },
      }, extra);
    });
    if (!isJSONRPCResultResponse(init)) {
      this.#logger.error("an MCP session's initialize could not be replayed", {
        error: JSON.stringify((init as { error?: unknown }).error ?? null).slice(0, 300),
      });
      await this.close();
      return rpcError(500, -32603, "Internal error: the session could not be restored");
    }
    for (const message of requests) {
      if (isJSONRPCRequest(message)) this.#awaiting.add(message.id);
    }
    for (const message of requests) this.onmessage?.(message, extra);
    return await this.#response;
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) {
      if (message.id === REPLAYED_INITIALIZE && this.#initialized) {
        this.#initialized(message);
        this.#initialized = undefined;
        return;
      }
      this.#answered(message);
      return;
    }
    if (this.#closed) return;
    if (isJSONRPCRequest(message)) return await this.#ask(message, options?.relatedRequestId);
    // A notification: on the stream when there is one (a JSON answer carries none).
    this.#write(this.#onWire(message));
  }

  /**
   * The client closed the connection. A call still waiting for its answer ends
   * (nothing ran, and nothing resumes this stream elsewhere); a call already
   * approved runs to its end, its answer dropped: a disconnection is not a
   * cancellation (Streamable HTTP, 2025-11-25).
   */
  clientLeft(): void {
    this.#left = true;
    if (this.#asked.size > 0) void this.close();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#closing.abort();
    // Questions still open are withdrawn, so an answer that comes later is refused.
    await Promise.all(
      [...this.#asked.keys()].map((requestId) =>
        this.#sessions.store.take(this.#caller, {
          sessionId: this.sessionId,
          requestId,
          withdraw: true,
        }).catch(() => {})
      ),
    );
    try {
      this.#stream?.close();
    } catch {
      // Already closed by the client.
    }
    this.#respond(rpcError(503, -32000, "The request ended before it was answered"));
    this.#ended();
    this.onclose?.();
  }

  /** The server's answer to one of the client's requests. */
  #answered(message: JSONRPCMessage & { id?: RequestId }): void {
    if (this.#closed || message.id === undefined || !this.#awaiting.delete(message.id)) return;
    if (this.#stream) {
      this.#write(message);
    } else {
      this.#answers.push(message);
    }
    if (this.#awaiting.size > 0) return;
    if (!this.#stream) {
      const body = this.#batch ? this.#answers : this.#answers[0];
      this.#respond(Response.json(body, { headers: { [SESSION_HEADER]: this.sessionId } }));
    }
    void this.close();
  }

  /** Sends the client a request (on the stream, opened now) and waits for its answer. */
  async #ask(message: JSONRPCRequest, related?: RequestId): Promise<void> {
    const { now, waitMs, store } = this.#sessions;
    const requestId = `${this.#prefix}-${message.id}`;
    await store.ask(this.#caller, {
      sessionId: this.sessionId,
      requestId,
      relatedId: related === undefined ? undefined : JSON.stringify(related),
      expiresAt: new Date(now() + waitMs),
    });
    this.#asked.set(requestId, message.id);
    this.#openStream();
    this.#write({ ...withProgressToken(message, requestId), id: requestId });
    void this.#awaitAnswer(requestId, message.id, message.method).catch((error) => {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      void this.close();
    });
  }

  /** Polls the store for the client's answer to `requestId` until it comes, is cancelled or the wait ends. */
  async #awaitAnswer(requestId: string, ownId: RequestId, method: string): Promise<void> {
    const { now, waitMs, pollMs, store, doorbell } = this.#sessions;
    const deadline = now() + waitMs;
    let pause = pollMs.first;
    while (!this.#closed) {
      const late = now() >= deadline;
      let state: SessionRequestState;
      try {
        state = await store.take(this.#caller, {
          sessionId: this.sessionId,
          requestId,
          withdraw: late,
        });
      } catch (error) {
        if (!late) {
          this.#logger.warn("could not read an MCP client's answer; trying again", {
            error: describeError(error),
          });
          await doorbell.wait(this.sessionId, pollMs.max, this.#closing.signal);
          continue;
        }
        state = { kind: "waiting" };
      }
      if (this.#closed) return;
      if (state.kind === "answered") {
        this.#asked.delete(requestId);
        this.onmessage?.({ ...state.response, jsonrpc: "2.0", id: ownId } as JSONRPCMessage);
        return;
      }
      if (state.kind !== "waiting") {
        // The client cancelled the call, or ended the session: no answer is sent.
        this.#asked.delete(requestId);
        await this.close();
        return;
      }
      if (late) {
        this.#asked.delete(requestId);
        this.#write({
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId, reason: "No answer came in time" },
        });
        this.onmessage?.(
          { jsonrpc: "2.0", id: ownId, ...unanswered(method, waitMs) } as JSONRPCMessage,
        );
        return;
      }
      if (now() - this.#lastWrite >= KEEP_ALIVE_MS) this.#comment("waiting for the answer");
      await doorbell.wait(this.sessionId, Math.min(pause, deadline - now()), this.#closing.signal);
      pause = Math.min(pause * 2, pollMs.max);
    }
  }

  /** Answers the POST with an SSE stream, if it is not answered yet. */
  #openStream(): void {
    if (this.#stream) return;
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#stream = controller;
      },
      cancel: () => this.clientLeft(),
    });
    this.#respond(
      new Response(body, {
        headers: {
          "content-type": "text/event-stream",
          "cache-control": "no-cache, no-transform",
          "x-accel-buffering": "no",
          [SESSION_HEADER]: this.sessionId,
        },
      }),
    );
  }

  /** A server message as the client sees it: the ids of requests sent to it as they went out. */
  #onWire(message: JSONRPCMessage): JSONRPCMessage {
    const { method, params } = message as { method?: string; params?: { requestId?: unknown } };
    if (method !== "notifications/cancelled") return message;
    // The server withdrew a request of its own (its leg timed out or was aborted).
    for (const [requestId, own] of this.#asked) {
      if (own !== params?.requestId) continue;
      this.#asked.delete(requestId);
      void this.#sessions.store.take(this.#caller, {
        sessionId: this.sessionId,
        requestId,
        withdraw: true,
      }).catch(() => {});
      return { ...message, params: { ...params, requestId } } as JSONRPCMessage;
    }
    return message;
  }

  #write(message: JSONRPCMessage): void {
    this.#enqueue(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }

  #comment(text: string): void {
    this.#enqueue(`: ${text}\n\n`);
  }

  #enqueue(text: string): void {
    if (!this.#stream || this.#left) return;
    try {
      this.#stream.enqueue(new TextEncoder().encode(text));
      this.#lastWrite = this.#sessions.now();
    } catch {
      // The client closed the stream; cancel() closes the transport.
    }
  }
}

/** A request as sent: its progress token (the server's own id, when it asks for progress) made unique in the session. */
function withProgressToken(message: JSONRPCMessage, requestId: string): JSONRPCMessage {
  const params = (message as { params?: { _meta?: { progressToken?: unknown } } }).params;
  if (params?._meta?.progressToken === undefined) return message;
  return {
    ...message,
    params: { ...params, _meta: { ...params._meta, progressToken: requestId } },
  } as JSONRPCMessage;
}

/**
 * What the server gets for a request of its own nobody answered in time. An
 * approval question (an elicitation) gets a `cancel` marked unanswered: the
 * server calls the tool's handler again with it, which refuses the call
 * (mcp_approval.ts), so the refusal is audited like any other. Any other
 * request gets the SDK's timeout error.
 */
function unanswered(method: string, waitMs: number): Record<string, unknown> {
  if (method === "elicitation/create") {
    return { result: { action: "cancel", _meta: { [UNANSWERED_META]: { waitMs } } } };
  }
  return { error: { code: TIMED_OUT, message: `No answer came within ${waitMs} ms` } };
}

/** JSON-RPC code of the error an unanswered request gets (the SDK's RequestTimeout). */
const TIMED_OUT = -32001;

/** A JSON-RPC error as an HTTP response. */
export function rpcError(
  status: number,
  code: number,
  message: string,
  id: string | number | null = null,
): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id }, { status });
}
