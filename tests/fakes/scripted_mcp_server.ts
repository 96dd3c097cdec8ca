/**
 * A remote MCP server for the client's wire tests, in process: a `fetch` that
 * records every request and answers from a script. Without a script it acts
 * as a 2025-11-25 server with sessions does (basic/transports "Streamable
 * HTTP"), but answers a request of a scripted method with the script: a POST must accept both `application/json` and `text/event-stream`
 * and send JSON (else 406 / 415); `server/discover` is refused 400 as a 2025
 * SDK server refuses a request before `initialize`; `initialize` (without a
 * session id) starts a session; any other request needs the session (400
 * without, 404 once it has ended) and `MCP-Protocol-Version` (400 without);
 * notifications and responses are answered 202; GET is 405 unless scripted (`on("GET", …)`); DELETE ends the
 * session. With `modern`, `server/discover` offers 2026-07-28 and there are
 * no sessions. The fetch honours its abort signal, on the response's body too.
 */
import type { JsonRpcMessage } from "../../shared/mcp/remote_error.ts";

/** One request as the server saw it. */
export interface SeenRequest {
  method: string;
  headers: Headers;
  body?: JsonRpcMessage;
}

/** A scripted answer to a request. */
export type Reply = (message: JsonRpcMessage) => Response | Promise<Response>;

/** A JSON answer. */
export function json(body: unknown, status = 200, headers: HeadersInit = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/**
 * An SSE answer carrying `messages` as events with ids `<prefix>0`, `<prefix>1`…, after a
 * `retry` field when given (a stream that stays open when `open`).
 */
export function sse(
  messages: unknown[],
  { open = false, retryMs, prefix = "e" }: { open?: boolean; retryMs?: number; prefix?: string } =
    {},
): Response {
  const retry = retryMs === undefined ? "" : `retry: ${retryMs}\n\n`;
  const text = retry +
    messages.map((m, i) => `id: ${prefix}${i}\nevent: message\ndata: ${JSON.stringify(m)}\n\n`)
      .join("");
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(`: comment\n\n${text}`));
      if (!open) controller.close();
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}

/** The result response to a request. */
export const result = (id: JsonRpcMessage["id"], value: unknown) => ({
  jsonrpc: "2.0",
  id,
  result: value,
});

/** The error response to a request. */
export const rpcError = (id: JsonRpcMessage["id"], code: number, message: string) => ({
  jsonrpc: "2.0",
  id,
  error: { code, message },
});

/** The fake. */
export class ScriptedMcpServer {
  readonly seen: SeenRequest[] = [];
  readonly #replies = new Map<string, Reply[]>();
  readonly #modern: boolean;
  #sessions = 0;
  #session: string | undefined;
  readonly #arrivals: (() => void)[] = [];

  constructor({ modern = false }: { modern?: boolean } = {}) {
    this.#modern = modern;
  }

  /** Queues the answer to the next request of `method`. */
  on(method: string, reply: Reply): this {
    this.#replies.set(method, [...this.#replies.get(method) ?? [], reply]);
    return this;
  }

  /** Ends the session: its requests get 404 from now on. */
  expireSession(): void {
    this.#session = undefined;
  }

  /** The JSON-RPC messages POSTed, those of `method` (or responses, for "response"). */
  posted(method: string): JsonRpcMessage[] {
    return this.seen.flatMap((r) =>
      r.body && (r.body.method ?? "response") === method ? [r.body] : []
    );
  }

  /** Resolves once `check` holds for what was seen. */
  async until(check: () => boolean): Promise<void> {
    while (!check()) await new Promise<void>((resolve) => this.#arrivals.push(resolve));
  }

  /** The `fetch` to hand the client. */
  readonly fetch: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const text = await request.text();
    const seen = {
      method: request.method,
      headers: request.headers,
      body: text ? JSON.parse(text) : undefined,
    };
    this.seen.push(seen);
    for (const arrived of this.#arrivals.splice(0)) arrived();
    const signal = init?.signal ?? undefined;
    const answer = await this.#answer(seen);
    signal?.throwIfAborted();
    return abortable(answer, signal);
  };

  async #answer({ method, headers, body }: SeenRequest): Promise<Response> {
    if (method === "GET") {
      const scripted = this.#replies.get("GET")?.shift();
      return scripted ? await scripted({ jsonrpc: "2.0" }) : new Response(null, { status: 405 });
    }
    if (method === "DELETE") {
      this.#session = undefined;
      return new Response(null, { status: 200 });
    }
    const accept = headers.get("accept") ?? "";
    if (!accept.includes("application/json") || !accept.includes("text/event-stream")) {
      return json(rpcError(null, -32000, "Not Acceptable"), 406);
    }
    if (headers.get("content-type") !== "application/json") {
      return json(rpcError(null, -32000, "Unsupported Media Type"), 415);
    }
    const message = body!;
    const scripted = () => this.#replies.get(String(message.method))?.shift();
    if (message.method === "server/discover") {
      return await (scripted() ?? this.#discover(message))(message);
    }
    if (message.method === "initialize") return this.#initialize(message);
    const refused = this.#modern ? undefined : this.#checkSession(headers);
    if (refused) return refused;
    if (message.id === undefined || message.method === undefined) {
      return new Response(null, { status: 202 });
    }
    const reply = scripted() ??
      (() => json(rpcError(message.id, -32601, `No reply scripted for ${message.method}`)));
    return await reply(message);
  }

  #initialize(message: JsonRpcMessage): Response {
    this.#session = `session-${++this.#sessions}`;
    const initialized = {
      protocolVersion: "2025-11-25",
      capabilities: { tools: { listChanged: true } },
      serverInfo: { name: "scripted", version: "1" },
    };
    return json(result(message.id, initialized), 200, { "mcp-session-id": this.#session });
  }

  #checkSession(headers: Headers): Response | undefined {
    const session = headers.get("mcp-session-id");
    if (session === null) {
      return json(rpcError(null, -32000, "Bad Request: No valid session ID"), 400);
    }
    if (session !== this.#session) return json(rpcError(null, -32001, "Session not found"), 404);
    if (headers.get("mcp-protocol-version") !== "2025-11-25") {
      return json(rpcError(null, -32000, "Bad Request: Unsupported protocol version"), 400);
    }
    return undefined;
  }

  /** A 2025 SDK server refuses a request before `initialize`; a modern one offers 2026-07-28. */
  #discover(message: JsonRpcMessage): Reply {
    if (!this.#modern) {
      return () => json(rpcError(null, -32000, "Bad Request: Server not initialized"), 400);
    }
    const discovered = {
      supportedVersions: ["2026-07-28"],
      capabilities: { tools: {} },
      resultType: "complete",
    };
    return () => json(result(message.id, discovered));
  }
}

/** The response, its body erroring as a network stream does when `signal` aborts. */
function abortable(response: Response, signal: AbortSignal | undefined): Response {
  if (!signal || !response.body) return response;
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      signal.addEventListener("abort", () => {
        controller.error(signal.reason);
        void reader.cancel().catch(() => {});
      }, { once: true });
    },
    async pull(controller) {
      const next = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel: () => reader.cancel(),
  });
  return new Response(body, { status: response.status, headers: response.headers });
}
