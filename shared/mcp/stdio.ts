/**
 * The registry over MCP's stdio transport, for desktop clients (Claude Desktop,
 * Cursor, ...): one long-lived server for the one client on stdin/stdout. Logs
 * go to stderr; stdout carries only the protocol.
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { App } from "../app/app.ts";
import { ANONYMOUS } from "../ports.ts";
import { createMcpServer } from "./mcp_server.ts";

/** Serves `app`'s registry on stdin/stdout until the client disconnects. */
export async function serveStdio(app: App): Promise<void> {
  const server = createMcpServer(app.mcp, ANONYMOUS);
  const unsubscribe = app.registry.subscribe(() => {
    void server.sendToolListChanged().catch(() => {});
  });
  const closed = new Promise<void>((resolve) => server.onclose = resolve);
  await server.connect(new StdioServerTransport());
  await closed;
  unsubscribe();
}
