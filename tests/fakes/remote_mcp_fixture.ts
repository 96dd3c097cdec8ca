/**
 * A stateful remote MCP server for tests (sessions, SSE streams, list_changed
 * notifications), built with the SDK's McpServer and served on loopback. It
 * can gain a tool at run time, be stopped (as if it died) and restarted on the
 * same port.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { z } from "zod";
import { createJsonSchemaValidator } from "../../shared/mcp/json_schema_validator.ts";

/** A tool added at run time. */
interface ExtraTool {
  name: string;
  annotated: boolean;
  inputSchema: Record<string, z.ZodType>;
}

/** The running fixture. */
export class RemoteMcpFixture {
  readonly port: number;
  readonly #servers = new Set<McpServer>();
  readonly #transports = new Map<string, WebStandardStreamableHTTPServerTransport>();
  readonly #extraTools: ExtraTool[] = [];
  #http: Deno.HttpServer | undefined;
  /** Calls received, by tool name. */
  readonly calls: string[] = [];
  /** `sleep` calls running now, and the most that ever ran at once. */
  inFlight = 0;
  maxInFlight = 0;
  readonly #callWaiters: { name: string; resolve: () => void }[] = [];
  /** The HTTP status the next `tools/call` is refused with, as a rate limit or a proxy would. */
  refuseNextCall: number | undefined;
  /** Resolved when the `sleep` calls asking to answer together are all in flight. */
  #together = Promise.withResolvers<void>();

  private constructor(port: number) {
    this.port = port;
  }

  /** Starts on `port` (0 picks a free one). */
  static start(port = 0): RemoteMcpFixture {
    const fixture = new RemoteMcpFixture(port);
    return fixture.#listen(port);
  }

  /** Resolves once `name` has been called (at once if it was already). */
  called(name: string): Promise<void> {
    if (this.calls.includes(name)) return Promise.resolve();
    const waiter = Promise.withResolvers<void>();
    this.#callWaiters.push({ name, resolve: waiter.resolve });
    return waiter.promise;
  }

  #record(name: string): void {
    this.calls.push(name);
    for (const waiter of this.#callWaiters.filter((w) => w.name === name)) {
      this.#callWaiters.splice(this.#callWaiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  }

  /** The MCP endpoint. */
  get url(): string {
    return `http://127.0.0.1:${this.port}/mcp`;
  }

  /**
   * Adds a tool to every session; each connected client gets
   * notifications/tools/list_changed. It says it only reads unless
   * `annotated` is false: then it says nothing, as most real servers' tools do.
   */
  addTool(
    name: string,
    { annotated = true, inputSchema = {} }: {
      annotated?: boolean;
      inputSchema?: Record<string, z.ZodType>;
    } = {},
  ): void {
    const tool = { name, annotated, inputSchema };
    this.#extraTools.push(tool);
    for (const server of this.#servers) this.#registerExtra(server, tool);
  }

  /** Stops answering and drops every session (the server "dies"). */
  async stop(): Promise<void> {
    for (const transport of this.#transports.values()) await transport.close().catch(() => {});
    this.#transports.clear();
    for (const server of this.#servers) await server.close().catch(() => {});
    this.#servers.clear();
    await this.#http?.shutdown();
    this.#http = undefined;
  }

  /** Starts again on the same port. */
  restart(): void {
    this.#listen(this.port);
  }

  #listen(port: number): RemoteMcpFixture {
    this.#http = Deno.serve(
      { hostname: "127.0.0.1", port, onListen: () => {} },
      (req) => this.#handle(req),
    );
    (this as { port: number }).port = (this.#http.addr as Deno.NetAddr).port;
    return this;
  }

  async #handle(req: Request): Promise<Response> {
    const refused = this.refuseNextCall;
    if (refused && req.method === "POST" && (await req.clone().text()).includes('"tools/call"')) {
      this.refuseNextCall = undefined;
      return new Response("slow down", { status: refused, headers: { "retry-after": "1" } });
    }
    const sessionId = req.headers.get("mcp-session-id");
    const existing = sessionId ? this.#transports.get(sessionId) : undefined;
    if (existing) return await existing.handleRequest(req);
    if (sessionId) return new Response("unknown session", { status: 404 });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (id: string) => {
        this.#transports.set(id, transport);
      },
    });
    const server = this.#newServer();
    await server.connect(transport);
    return await transport.handleRequest(req);
  }

  #newServer(): McpServer {
    const server = new McpServer(
      { name: "fixture", version: "1.0.0" },
      {
        capabilities: { tools: { listChanged: true } },
        jsonSchemaValidator: createJsonSchemaValidator(),
      },
    );
    server.registerTool(
      "echo",
      {
        description: "Echo the text back",
        inputSchema: { text: z.string() },
        annotations: { readOnlyHint: true },
      },
      ({ text }: { text: string }) => {
        this.#record("echo");
        return { content: [{ type: "text" as const, text: `echo: ${text}` }] };
      },
    );
    server.registerTool(
      "add",
      {
        description: "Add two numbers",
        inputSchema: { a: z.number(), b: z.number() },
        outputSchema: { sum: z.number() },
        annotations: { readOnlyHint: true },
      },
      ({ a, b }: { a: number; b: number }) => {
        this.#record("add");
        return {
          content: [{ type: "text" as const, text: String(a + b) }],
          structuredContent: { sum: a + b },
        };
      },
    );
    server.registerTool("fail", {
      description: "Always fails",
      inputSchema: {},
      annotations: { readOnlyHint: true },
    }, () => {
      this.#record("fail");
      return { isError: true, content: [{ type: "text" as const, text: "intentional failure" }] };
    });
    server.registerTool(
      "sleep",
      {
        description: "Wait, then answer",
        inputSchema: { ms: z.number(), together: z.number().optional() },
        annotations: { readOnlyHint: true },
      },
      async (
        { ms, together }: { ms: number; together?: number },
        { signal }: { signal: AbortSignal },
      ) => {
        this.#record("sleep");
        this.maxInFlight = Math.max(this.maxInFlight, ++this.inFlight);
        // With `together`, the calls answer as soon as that many wait at once (`ms` caps the wait).
        let timer: ReturnType<typeof setTimeout> | undefined;
        const met = together !== undefined && this.inFlight >= together;
        if (met) this.#together.resolve();
        // A cancelled call or a stopped fixture ends the wait too: no timer outlives the test.
        await Promise.race([
          ...(together === undefined ? [] : [this.#together.promise]),
          new Promise((resolve) => timer = setTimeout(resolve, met ? 0 : ms)),
          new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true })),
        ]);
        clearTimeout(timer);
        this.inFlight--;
        return { content: [{ type: "text" as const, text: "awake" }] };
      },
    );
    for (const tool of this.#extraTools) this.#registerExtra(server, tool);
    this.#servers.add(server);
    return server;
  }

  #registerExtra(server: McpServer, { name, annotated, inputSchema }: ExtraTool): void {
    server.registerTool(
      name,
      {
        description: `Added at run time: ${name}`,
        inputSchema,
        ...(annotated ? { annotations: { readOnlyHint: true } } : {}),
      },
      () => {
        this.#record(name);
        return { content: [{ type: "text" as const, text: name }] };
      },
    );
  }
}
