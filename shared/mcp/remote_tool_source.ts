/**
 * A remote MCP server as a tool source: connects with the official SDK's v2
 * client over Streamable HTTP — negotiating the era (2026-07-28 through
 * `server/discover`, else the 2025-11-25 `initialize` handshake, sessions
 * included) — registers each remote tool as
 * `<name>__<tool>` with its JSON Schema (refusing a schema whose property
 * names or enum values are not plain identifiers, `remote_schema_text.ts`),
 * forwards calls and their errors,
 * refreshes the cached list on `notifications/tools/list_changed` and on every
 * reconnect. A server that is down never blocks start-up or the loop: its tools
 * are absent, `status()` says why, and it is retried with backoff.
 */
import {
  type CallToolResult,
  Client,
  StreamableHTTPClientTransport,
  type Tool,
} from "@modelcontextprotocol/client";
import { createJsonSchemaValidator } from "./json_schema_validator.ts";
import { z } from "zod";
import type { RemoteServerConfig } from "../config/mcp_config.ts";
import { describeError } from "../errors.ts";
import type { Logger } from "../ports.ts";
import { redactKeyShapes } from "../log/redact.ts";
import { TOOL_NAME_PATTERN } from "../tools/tool.ts";
import type { ToolRegistry } from "../tools/tool_registry.ts";
import { unplainSchemaText } from "./remote_schema_text.ts";
import { SERVER_INFO } from "./server_info.ts";

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
  #client: Client | undefined;
  #installed: string[] = [];
  #error: string | undefined = "not connected yet";
  #delayMs: number;
  #retryAt = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #connecting: Promise<void> | undefined;
  #lostClients = new WeakSet<Client>();
  #closed = false;

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
    this.#uninstall();
    const client = this.#client;
    this.#client = undefined;
    await client?.close().catch(() => {});
  }

  async #attempt(): Promise<void> {
    clearTimeout(this.#timer);
    const client = new Client(SERVER_INFO, {
      capabilities: {},
      jsonSchemaValidator: createJsonSchemaValidator(),
      versionNegotiation: { mode: "auto" },
      listChanged: {
        tools: { autoRefresh: false, debounceMs: 50, onChanged: () => void this.#refresh(client) },
      },
    });
    try {
      const transport = new StreamableHTTPClientTransport(new URL(this.#config.url), {
        requestInit: { headers: this.#config.headers },
      });
      await client.connect(transport, { timeout: this.#callTimeoutMs });
      client.onclose = () => this.#lost(client, "the connection closed");
      // A network failure on the session's streams means the server is gone: closing the
      // client fails its pending calls now, instead of at their timeout.
      client.onerror = (error: unknown) => {
        if (isConnectionLoss(error)) this.#lost(client, describeError(error));
      };
      this.#client = client;
      await this.#refresh(client);
      this.#error = undefined;
      this.#delayMs = this.#retry.initialMs;
      this.#logger.info("remote MCP server connected", {
        server: this.#config.name,
        tools: this.#installed,
      });
    } catch (error) {
      await client.close().catch(() => {});
      this.#lost(client, describeError(error));
    }
  }

  /** Reads the whole tool list (all pages) and replaces this server's tools in the registry. */
  async #refresh(client: Client): Promise<void> {
    if (client !== this.#client) return;
    try {
      const tools: Tool[] = [];
      let cursor: string | undefined;
      do {
        // Always from the server: a list_changed notification means the cached list is stale.
        const page = await client.listTools(cursor ? { cursor } : undefined, {
          timeout: this.#callTimeoutMs,
          cacheMode: "refresh",
        });
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor);
      this.#install(tools);
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
      result = await client.callTool({ name: tool, arguments: args }, {
        signal,
        timeout: this.#callTimeoutMs,
      }) as CallToolResult;
    } catch (error) {
      if (!signal.aborted) this.#lost(client, describeError(error));
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
  #lost(client: Client, reason: string): void {
    // Closing the client below fires its onclose: the first reason is the one kept.
    if (this.#closed || this.#lostClients.has(client)) return;
    if (this.#client !== undefined && this.#client !== client) return;
    this.#lostClients.add(client);
    const wasConnected = this.#client === client;
    this.#client = undefined;
    this.#uninstall();
    this.#error = redactKeyShapes(reason);
    if (wasConnected) void client.close().catch(() => {});
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

/** Errors of the client's transport that mean the server cannot be reached any more. */
function isConnectionLoss(error: unknown): boolean {
  return error instanceof TypeError ||
    /fetch failed|reconnect|ECONNREFUSED|connection refused/i.test(describeError(error));
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
