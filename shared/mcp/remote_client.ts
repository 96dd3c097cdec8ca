/**
 * A small MCP client over Streamable HTTP with `fetch`, for remote tool sources: what the
 * official SDK's v2 client sends, in both eras, and no more (tools only; no client capability).
 *
 * - Era: `server/discover` first (2026-07-28 draft, basic/lifecycle), else the 2025-11-25
 *   `initialize` handshake (remote_discover.ts).
 * - 2026-07-28: stateless; each request carries the `_meta` envelope and the standard headers
 *   (remote_headers.ts); each result says `resultType` (remote_results.ts); closing a request's
 *   stream cancels it; list_changed comes on a `subscriptions/listen` stream when offered.
 * - 2025-11-25: the session of the `initialize` response; a 404 means it is gone: `initialize`
 *   again, once for all that found it gone, then the request or the GET stream again
 *   (basic/transports §Session Management 4); `notifications/cancelled` for a cancelled request
 *   (basic/utilities/cancellation); the server's requests on a stream answered (`ping` `{}`, else
 *   -32601, as the SDK client answers); DELETE ends the session on close (§5).
 *
 * A notification stream that ends is opened again; if that fails, or the server is unreachable
 * when it is first opened, `onLost` says so.
 */
import type { JsonSchemaValidatorProvider } from "./json_schema_validator.ts";
import {
  type Capabilities,
  discoverOutcome,
  INITIALIZE_PARAMS,
  initialized,
  listenRequest,
  MODERN_VERSION,
  withEnvelope,
} from "./remote_discover.ts";
import { cancellation, type JsonRpcMessage, RemoteMcpError, sessionGone } from "./remote_error.ts";
import {
  callableTools,
  paramDeclarations,
  paramHeaders,
  requestHeaders,
} from "./remote_headers.ts";
import {
  allTools,
  callResultOf,
  type CallToolResult,
  checkStructuredContent,
  compileOutputSchema,
  type RemoteTool,
  resultOf,
  retryState,
} from "./remote_results.ts";
import { followStream, type StreamState } from "./remote_sse.ts";
import { answerTo, deleteSession, getStream, postForStream, postMessage } from "./remote_wire.ts";

/** What the client needs. */
export interface RemoteClientOptions {
  url: string;
  headers?: Record<string, string>;
  /** The bound of a request nobody aborts. */
  timeoutMs: number;
  /** Compiles tools' output schemas (json_schema_validator.ts). */
  validator: JsonSchemaValidatorProvider;
  fetch?: typeof fetch;
  /** A notification from the server (on any stream). */
  onNotification?: (method: string, params: unknown) => void;
  /** The server went away while connected. */
  onLost?: (reason: string) => void;
}

/** Most times a call is sent again when the server asks for nothing but a retry. */
const MAX_RETRIES = 3;

/** A request's options: an abort signal, and the `Mcp-Param-*` headers of a call. */
interface RequestOptions {
  signal?: AbortSignal;
  params?: Record<string, string>;
}

/** A connection to one remote MCP server: `connect()`, `listTools()`, `callTool()`, `close()`. */
export class RemoteMcpClient {
  readonly #options: RemoteClientOptions;
  readonly #closing = new AbortController();
  #version: string | undefined;
  #sessionId: string | undefined;
  #capabilities: Capabilities = {};
  #nextId = 0;
  #probes = 0;
  #tools = new Map<string, RemoteTool>();
  #renewing: Promise<void> | undefined;

  constructor(options: RemoteClientOptions) {
    this.#options = options;
  }

  /** The negotiated protocol version (2026-07-28, or the 2025-era one `initialize` agreed). */
  get protocolVersion(): string | undefined {
    return this.#version;
  }

  /** Does the server say its tool list changes (and so notifies)? */
  get toolsChange(): boolean {
    return this.#capabilities.tools?.listChanged === true;
  }

  /** Negotiates the era, then opens the notification stream. Rejects when the server cannot be used. */
  async connect(): Promise<void> {
    const discovered = await discoverOutcome((params) =>
      this.#request("server/discover", params).then((answer) => answer.result)
    );
    if (discovered) {
      this.#version = MODERN_VERSION;
      this.#capabilities = discovered.capabilities as Capabilities;
    } else {
      await this.#initialize();
    }
    void followStream({
      open: (state) => this.#openStream(state),
      signal: this.#closing.signal,
      onMessage: (message) => this.#received(message),
      onLost: (reason) => this.#options.onLost?.(reason),
    });
  }

  /** Every tool, all pages. */
  async listTools(): Promise<{ tools: RemoteTool[]; excluded: { name: string; why: string }[] }> {
    const tools = await allTools((cursor) =>
      this.request("tools/list", cursor === undefined ? {} : { cursor })
    );
    const callable = this.#version === MODERN_VERSION
      ? callableTools(tools)
      : { tools, excluded: [] };
    this.#tools = new Map(callable.tools.map((tool) => [tool.name, tool]));
    return callable;
  }

  /**
   * Calls a listed tool. The result of a tool with an output schema must carry
   * `structuredContent` that the schema accepts, unless it is an error, as the
   * SDK client checks it (2025-11-25 server/tools §Output Schema).
   */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    { signal }: { signal?: AbortSignal } = {},
  ): Promise<CallToolResult> {
    const tool = this.#tools.get(name);
    // Compiled before the call: a schema that cannot be read fails without a round trip.
    const validate = tool?.outputSchema && compileOutputSchema(this.#options.validator, tool);
    const declared = tool && this.#version === MODERN_VERSION
      ? paramDeclarations(tool.inputSchema)
      : [];
    const params = Array.isArray(declared) ? paramHeaders(declared, args) : {};
    let raw = await this.request("tools/call", { name, arguments: args }, { signal, params });
    // Asked to call again with the server's state (2026-07-28 basic/patterns/mrtr), each time a
    // new request; a server that keeps asking is refused after MAX_RETRIES. 2025-11-25 has none.
    const stateOf = (result: Record<string, unknown>) =>
      this.#version === MODERN_VERSION ? retryState(result) : undefined;
    for (let retries = 0, state = stateOf(raw); state !== undefined; state = stateOf(raw)) {
      if (++retries > MAX_RETRIES) {
        throw new RemoteMcpError(
          "protocol",
          `The server answered tools/call input_required ${MAX_RETRIES + 1} times in a row`,
        );
      }
      const again = { name, arguments: args, requestState: state };
      raw = await this.request("tools/call", again, { signal, params });
    }
    const result = callResultOf(raw);
    if (validate) checkStructuredContent(result, validate, name);
    return result;
  }

  /** Sends a request and resolves with its result; a 2025 session found gone is started again, once. */
  async request(
    method: string,
    params: Record<string, unknown>,
    options: RequestOptions = {},
  ): Promise<Record<string, unknown>> {
    // A request never goes out while the session is being started again: it would carry none.
    if (this.#renewing) await this.#renewing;
    const session = this.#sessionId;
    try {
      return (await this.#request(method, params, options)).result;
    } catch (error) {
      if (!sessionGone(error, session)) throw error;
      await this.#renewAfter(session!);
      return (await this.#request(method, params, options)).result;
    }
  }

  /** Starts the 2025 session again, once for everything that found `session` gone. */
  async #renewAfter(session: string): Promise<void> {
    if (this.#renewing) await this.#renewing;
    else if (this.#sessionId === session) {
      await (this.#renewing ??= this.#initialize().finally(() => this.#renewing = undefined));
    }
  }

  /** Stops every stream and request; ends a 2025 session with DELETE unless `endSession` is false. */
  async close({ endSession = true }: { endSession?: boolean } = {}): Promise<void> {
    if (this.#closing.signal.aborted) return;
    this.#closing.abort(new RemoteMcpError("aborted", "The client was closed"));
    if (!endSession || this.#sessionId === undefined) return;
    const { url, timeoutMs, fetch: fetcher = fetch } = this.#options;
    await deleteSession({ url, headers: this.#headers(), fetch: fetcher, timeoutMs });
  }

  /** The 2025-11-25 handshake: `initialize`, its session and version, then `notifications/initialized`. */
  async #initialize(): Promise<void> {
    this.#version = undefined;
    this.#sessionId = undefined;
    const { result, headers } = await this.#request("initialize", INITIALIZE_PARAMS);
    const { sessionId, version } = initialized(result, headers);
    this.#sessionId = sessionId;
    this.#version = version;
    this.#capabilities = (result.capabilities ?? {}) as Capabilities;
    await this.#post({ jsonrpc: "2.0", method: "notifications/initialized" });
  }

  /** One request: its result and the HTTP response's headers; a timeout or an abort cancels it. */
  async #request(
    method: string,
    params: Record<string, unknown>,
    { signal, params: paramHeaders }: RequestOptions = {},
  ): Promise<{ result: Record<string, unknown>; headers: Headers }> {
    const modern = method === "server/discover" || this.#version === MODERN_VERSION;
    // The probe's ids are its own, so a fallback `initialize` is the one a 2025 client sends.
    const id = method === "server/discover"
      ? `server-discover-probe-${++this.#probes}`
      : this.#nextId++;
    const message: JsonRpcMessage = {
      jsonrpc: "2.0",
      id,
      method,
      params: modern ? withEnvelope(params) : params,
    };
    const stop = cancellation([signal, this.#closing.signal], this.#options.timeoutMs, method);
    try {
      const sent = await postMessage({
        ...this.#exchange(stop.signal),
        headers: this.#headers(message, paramHeaders),
        message,
      });
      return { result: resultOf(sent.answer!, { method, modern }), headers: sent.headers };
    } catch (error) {
      // A cancelled 2025 request is told to the server (never `initialize`); in 2026-07-28 closing
      // its stream is the signal (basic/patterns/cancellation).
      if (stop.signal.aborted && !modern && method !== "initialize") {
        const reason = String(stop.signal.reason?.message ?? stop.signal.reason);
        void this.#post({
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId: id, reason },
        }).catch(() => {});
      }
      throw error;
    } finally {
      stop.dispose();
    }
  }

  /** POSTs a notification or a response (answered 202), within the request timeout. */
  async #post(message: JsonRpcMessage): Promise<unknown> {
    const stop = cancellation(
      [this.#closing.signal],
      this.#options.timeoutMs,
      message.method ?? "response",
    );
    try {
      return await postMessage({
        ...this.#exchange(stop.signal),
        headers: this.#headers(message),
        message,
      });
    } finally {
      stop.dispose();
    }
  }

  #exchange(signal: AbortSignal) {
    return {
      url: this.#options.url,
      signal,
      fetch: this.#options.fetch ?? fetch,
      onMessage: (received: JsonRpcMessage) => this.#received(received),
    };
  }

  #headers(message?: JsonRpcMessage, params?: Record<string, string>): Headers {
    const [base, sessionId, version] = [this.#options.headers, this.#sessionId, this.#version];
    return requestHeaders({ base, sessionId, version, message, params });
  }

  /** A server's message that is not the answer awaited: a request gets an answer, a notification is passed on. */
  #received(message: JsonRpcMessage): void {
    if (message.method === undefined) return;
    if (message.id === undefined) {
      this.#options.onNotification?.(message.method, message.params);
      return;
    }
    // 2026-07-28 has no server-to-client requests: the SDK client drops them unanswered.
    if (this.#version === MODERN_VERSION) return;
    void this.#post(answerTo(message)).catch(() => {});
  }

  /** GET in 2025-11-25 (405: none offered); `subscriptions/listen` in 2026-07-28 when tools change. */
  async #openStream(state: StreamState): Promise<Response | undefined> {
    const exchange = this.#exchange(this.#closing.signal);
    if (this.#version !== MODERN_VERSION) {
      const session = this.#sessionId;
      // Event ids are a session's own: another session's stream (the client renewed it, for this
      // stream or for a request) is read from its start.
      if (state.session !== session) state.lastEventId = undefined;
      try {
        const stream = await getStream(
          { ...exchange, headers: this.#headers() },
          state.lastEventId,
        );
        state.session = session;
        return stream;
      } catch (error) {
        if (!sessionGone(error, session)) throw error;
        await this.#renewAfter(session!);
        state.lastEventId = undefined;
        state.session = this.#sessionId;
        return await getStream({ ...exchange, headers: this.#headers() });
      }
    }
    if (!this.toolsChange) return undefined;
    const message = listenRequest(`listen:${this.#nextId++}`);
    return await postForStream({ ...exchange, headers: this.#headers(message), message });
  }
}
