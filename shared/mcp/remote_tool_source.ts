/**
 * A remote MCP server as a tool source: connects with our fetch-based client
 * over Streamable HTTP (remote_client.ts) — negotiating the era (2026-07-28
 * through `server/discover`, else the 2025-11-25 `initialize` handshake,
 * sessions included) — registers each remote tool as
 * `<name>__<tool>` with its JSON Schema (refusing a schema whose property
 * names or enum values are not plain identifiers, `remote_schema_text.ts`),
 * forwards calls and their errors,
 * refreshes the cached list on `notifications/tools/list_changed` and on every
 * reconnect. A server that is down never blocks start-up or the loop: its tools
 * are absent, `status()` says why, and it is retried with backoff.
 */
import { createJsonSchemaValidator } from "./json_schema_validator.ts";
import { RemoteMcpClient } from "./remote_client.ts";
import { RemoteMcpError } from "./remote_error.ts";
import type { CallToolResult, RemoteTool as Tool } from "./remote_results.ts";
import { z } from "zod";
import type { RemoteServerConfig } from "../config/mcp_config.ts";
import { describeError } from "../errors.ts";
import type { Logger } from "../ports.ts";
import { redactKeyShapes } from "../log/redact.ts";
import { TOOL_NAME_PATTERN } from "../tools/tool.ts";
import type { ToolRegistry } from "../tools/tool_registry.ts";
import { unplainSchemaText } from "./remote_schema_text.ts";

/** What `health` shows for a remote server. */
export interface RemoteSourceStatus {
  name: string;
  url: string;
  ok: boolean;
  tools: string[];
  error?: string;
  /** When down: milliseconds until the next attempt. */
  retryInMs?: number;
}

/** Retry timing (exponential backoff between the two bounds). */
export interface RetryOptions {
  initialMs: number;
  maxMs: number;
}

/** One remote server feeding the registry. */
export class RemoteToolSource {
  readonly #config: RemoteServerConfig;
  readonly #registry: ToolRegistry;
  readonly #logger: Logger;
  readonly #retry: RetryOptions;
  readonly #callTimeoutMs: number;
  #client: RemoteMcpClient | undefined;
  #installed: string[] = [];
  #error: string | undefined = "not connected yet";
  #delayMs: number;
  #retryAt = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #connecting: Promise<void> | undefined;
  #lostClients = new WeakSet<RemoteMcpClient>();
  #closed = false;
  #refreshTimer: ReturnType<typeof setTimeout> | undefined;
  readonly #validator = createJsonSchemaValidator();

  constructor(
    {
      config,
      registry,
      logger,
      retry = { initialMs: 1_000, maxMs: 60_000 },
      callTimeoutMs = 10_000,
    }: {
      config: RemoteServerConfig;
      registry: ToolRegistry;
      logger: Logger;
      retry?: RetryOptions;
      callTimeoutMs?: number;
    },
  ) {
    this.#config = config;
    this.#registry = registry;
    this.#logger = logger;
    this.#retry = retry;
    this.#delayMs = retry.initialMs;
    this.#callTimeoutMs = callTimeoutMs;
  }

  /** Connects unless connected; resolves either way — a failure schedules a retry. */
  connect(): Promise<void> {
    if (this.#closed || this.#client) return Promise.resolve();
    this.#connecting ??= this.#attempt().finally(() => this.#connecting = undefined);
    return this.#connecting;
  }

  /** Where the server stands, for `health`. */
  status(): RemoteSourceStatus {
    const { name } = this.#config;
    const ok = this.#client !== undefined;
    return {
      name,
      url: publicUrl(this.#config.url),
      ok,
      tools: [...this.#installed],
      ...(ok ? {} : { error: this.#error, retryInMs: Math.max(0, this.#retryAt - Date.now()) }),
    };
  }

  /** Disconnects, removes the tools and stops retrying. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    clearTimeout(this.#refreshTimer);
    this.#uninstall();
    const client = this.#client;
    this.#client = undefined;
    await client?.close().catch(() => {});
  }

  async #attempt(): Promise<void> {
    clearTimeout(this.#timer);
    const client: RemoteMcpClient = new RemoteMcpClient({
      url: this.#config.url,
      headers: this.#config.headers,
      timeoutMs: this.#callTimeoutMs,
      validator: this.#validator,
      // Changes come in bursts: one refresh 50 ms after the last.
      onNotification: (method) => {
        if (method !== "notifications/tools/list_changed" || !client.toolsChange) return;
        clearTimeout(this.#refreshTimer);
        this.#refreshTimer = setTimeout(() => void this.#refresh(client), 50);
      },
      // A notification stream that broke and could not be reopened: the server is gone, and
      // closing the client fails its pending calls now, instead of at their timeout.
      onLost: (reason) => this.#lost(client, reason),
    });
    try {
      await client.connect();
      // Closed while connecting: this client must not come back.
      if (this.#closed) return void await client.close().catch(() => {});
      this.#client = client;
      await this.#refresh(client);
      this.#error = undefined;
      this.#delayMs = this.#retry.initialMs;
      this.#logger.info("remote MCP server connected", {
        server: this.#config.name,
        tools: this.#installed,
      });
    } catch (error) {
      await client.close({ endSession: false });
      this.#lost(client, describeError(error));
    }
  }

  /** Reads the whole tool list (all pages) and replaces this server's tools in the registry. */
  async #refresh(client: RemoteMcpClient): Promise<void> {
    if (client !== this.#client) return;
    try {
      // Always from the server: a list_changed notification means the list held is stale.
      const { tools, excluded } = await client.listTools();
      for (const { name, why } of excluded) {
        this.#logger.warn("skipping a remote tool whose x-mcp-header declarations are invalid", {
          tool: `${this.#config.name}__${name}`,
          why,
        });
      }
      if (client === this.#client) this.#install(tools);
    } catch (error) {
      this.#logger.warn("could not refresh a remote MCP server's tools", {
        server: this.#config.name,
        error: describeError(error),
      });
    }
  }

  #install(tools: Tool[]): void {
    this.#uninstall();
    for (const tool of tools) {
      const name = `${this.#config.name}__${tool.name}`;
      if (!TOOL_NAME_PATTERN.test(name) || this.#registry.has(name)) {
        this.#logger.warn("skipping a remote tool whose name is invalid or taken", { tool: name });
        continue;
      }
      // Property names and enum values reach the strict plan schema unfenced: plain ones only.
      const unplain = unplainSchemaText(tool.inputSchema);
      if (unplain !== undefined) {
        this.#logger.warn(
          "skipping a remote tool whose args schema has a property name or enum value that is not a plain identifier",
          { tool: name, value: unplain.slice(0, 80) },
        );
        continue;
      }
      this.#registry.register({
        name,
        description: `[${this.#config.name}] ${tool.description ?? tool.name}`,
        argsSchema: argsSchemaOf(tool),
        inputJsonSchema: tool.inputSchema as Record<string, unknown>,
        outputJsonSchema: tool.outputSchema as Record<string, unknown> | undefined,
        annotations: tool.annotations,
        remote: this.#config.name,
        run: ({ args, signal }) => this.#call(tool.name, args as Record<string, unknown>, signal),
      }, { source: `remote MCP server "${this.#config.name}"` });
      this.#installed.push(name);
    }
  }

  #uninstall(): void {
    for (const name of this.#installed) this.#registry.unregister(name);
    this.#installed = [];
  }

  async #call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
    const client = this.#client;
    if (!client) {
      throw new Error(`remote MCP server "${this.#config.name}" is not connected (${this.#error})`);
    }
    let result: CallToolResult;
    try {
      result = await client.callTool(tool, args, { signal });
    } catch (error) {
      // A server that answered is up; one that could not be reached, lost the session past its
      // renewal, answered a 5xx or let the call time out is not.
      const answered = error instanceof RemoteMcpError && error.serverAnswered;
      if (!signal.aborted && !answered) this.#lost(client, describeError(error));
      throw new Error(
        `remote MCP server "${this.#config.name}" failed: ${redactKeyShapes(describeError(error))}`,
      );
    }
    if (result.isError) {
      throw new Error(textOf(result) || `remote tool "${tool}" reported an error`);
    }
    const content = result.content as ContentBlock[];
    return result.structuredContent ??
      (content.every((c) => c.type === "text") ? textOf(result) : content);
  }

  /** Marks the server down (once per client), removes its tools and schedules a retry. */
  #lost(client: RemoteMcpClient, reason: string): void {
    // Closing the client below fires its onclose: the first reason is the one kept.
    if (this.#closed || this.#lostClients.has(client)) return;
    if (this.#client !== undefined && this.#client !== client) return;
    this.#lostClients.add(client);
    const wasConnected = this.#client === client;
    this.#client = undefined;
    this.#uninstall();
    this.#error = redactKeyShapes(reason);
    clearTimeout(this.#refreshTimer);
    if (wasConnected) void client.close({ endSession: false });
    clearTimeout(this.#timer);
    const delay = this.#delayMs;
    this.#delayMs = Math.min(this.#delayMs * 2, this.#retry.maxMs);
    this.#retryAt = Date.now() + delay;
    this.#timer = setTimeout(() => void this.connect(), delay);
    this.#logger.warn("remote MCP server unavailable; will retry", {
      server: this.#config.name,
      error: this.#error,
      retryInMs: delay,
    });
  }
}

/** A URL without credentials or query string (it may carry a token). */
function publicUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
}

/** The remote tool's args schema as Zod (validation is also done by the remote server). */
function argsSchemaOf(tool: Tool): z.ZodType {
  try {
    return z.fromJSONSchema(tool.inputSchema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch {
    return z.record(z.string(), z.unknown());
  }
}

/** The part of an MCP content block read here. */
type ContentBlock = { type: string; text?: string };

function textOf(result: CallToolResult): string {
  return (result.content as ContentBlock[]).flatMap((c) => c.type === "text" ? [c.text ?? ""] : [])
    .join("\n");
}
