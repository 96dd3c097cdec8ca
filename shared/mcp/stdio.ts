/**
 * The registry over MCP's stdio transport, for desktop clients (Claude Desktop,
 * Cursor, ...): the SDK's `serveStdio` pins the connection to the era its
 * first message speaks (2026-07-28 or 2025-11-25) and serves it from one
 * server instance. Logs go to stderr; stdout carries only the protocol. The
 * returned promise settles when the client closes stdin (or `stop` is called),
 * so the entry can flush, close the database and exit.
 */
import {
  serveStdio as serveSdkStdio,
  StdioServerTransport,
} from "@modelcontextprotocol/server/stdio";
import type { JSONRPCMessage, Server } from "@modelcontextprotocol/server";
import { ANONYMOUS, type Caller } from "../ports.ts";
import type { ToolRegistry } from "../tools/tool_registry.ts";
import { checkParams } from "./mcp_params.ts";
import { createMcpServer, type McpServerDeps } from "./mcp_server.ts";

/** A running stdio server. */
export interface StdioServing {
  /** Settles once the connection has ended (stdin closed, or `stop`). */
  closed: Promise<void>;
  /** Ends the connection. */
  stop(): Promise<void>;
}

/** Serves the registry on stdin/stdout as `caller` (the local user: anonymous by default). */
export function serveStdio(
  { mcp, registry }: { mcp: McpServerDeps; registry: ToolRegistry },
  { caller = ANONYMOUS, transport = new StdioServerTransport() }: {
    caller?: Caller;
    transport?: StdioServerTransport;
  } = {},
): StdioServing {
  let ended!: () => void;
  const closed = new Promise<void>((resolve) => ended = resolve);
  watchClose(transport, () => ended());
  const servers = new Set<Server>();
  // A long-lived connection can be told when tools come and go (remote servers).
  const unsubscribe = registry.subscribe(() => {
    for (const server of servers) void server.sendToolListChanged().catch(() => {});
  });
  const handle = serveSdkStdio(() => {
    const server = createMcpServer(mcp, caller, { listChanged: true });
    servers.add(server);
    server.onclose = () => servers.delete(server);
    return server;
  }, { transport, onerror: (error) => mcp.logger.warn("stdio: " + error.message) });
  checkParamsFirst(transport);
  closed.then(unsubscribe);
  return {
    closed,
    stop: async () => {
      await handle.close();
      ended();
    },
  };
}

/**
 * Answers a request whose params do not fit its method with one readable
 * -32602 sentence before the SDK sees it (the same rule as over HTTP).
 */
function checkParamsFirst(transport: StdioServerTransport): void {
  const sdkHandler = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage) => {
    const request = message as {
      id?: string | number;
      params?: { _meta?: Record<string, unknown> };
    };
    if (request.id !== undefined) {
      const version = request.params?._meta?.["io.modelcontextprotocol/protocolVersion"];
      const modern = typeof version === "string" && version >= "2026-07-28";
      const problem = checkParams(message as Record<string, unknown>, { modern });
      if (problem) {
        void transport.send({
          jsonrpc: "2.0",
          id: request.id,
          error: { code: -32602, message: problem },
        }).catch(() => {});
        return;
      }
    }
    sdkHandler?.(message);
  };
}

/** Calls `onClose` when the transport closes, keeping the SDK's own close handler working. */
export function watchClose(transport: StdioServerTransport, onClose: () => void): void {
  let sdkHandler: (() => void) | undefined;
  Object.defineProperty(transport, "onclose", {
    configurable: true,
    get: () => () => {
      sdkHandler?.();
      onClose();
    },
    set: (handler: (() => void) | undefined) => sdkHandler = handler,
  });
}
