/** Builds MCP test setups: the app's registry over InMemoryTransport, or the app served on loopback. */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createJsonSchemaValidator } from "../../shared/mcp/json_schema_validator.ts";
import { type App, type AppOverrides, createApp } from "../../shared/app/app.ts";
import { loadConfig } from "../../shared/config/config.ts";
import { createMcpServer } from "../../shared/mcp/mcp_server.ts";
import type { Caller } from "../../shared/ports.ts";
import { ANONYMOUS } from "../../shared/ports.ts";
import { RecordingLogger } from "../fakes/recording_logger.ts";
import { sharedPglite } from "./pglite.ts";
import type { ConfigOptions } from "../../shared/config/config_options.ts";

/** A new SDK client (with the eval-free validator). */
export function newClient(): Client {
  return new Client({ name: "test-client", version: "1.0.0" }, {
    jsonSchemaValidator: createJsonSchemaValidator(),
  });
}

/** The app on the shared PGlite. */
export async function mcpApp(
  env: Record<string, string> = {},
  overrides: AppOverrides = {},
  options: ConfigOptions = {},
): Promise<App> {
  return createApp(loadConfig({ MCP_LOOP_LOG_LEVEL: "silent", ...env }, { options }), {
    sql: await sharedPglite(),
    logger: new RecordingLogger(),
    ...overrides,
  });
}

/** A client connected in process to the app's MCP server for `caller`. */
export async function inMemoryClient(app: App, caller: Caller = ANONYMOUS): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer(app.mcp, caller).connect(serverSide);
  const client = newClient();
  await client.connect(clientSide);
  return client;
}

/** The app served on a loopback port; `url` is its MCP endpoint. */
export function serve(app: App): { url: URL; base: string; close: () => Promise<void> } {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, app.fetch);
  const base = `http://127.0.0.1:${(server.addr as Deno.NetAddr).port}`;
  return { url: new URL(`${base}/mcp-loop/mcp`), base, close: () => server.shutdown() };
}

/** A client connected over HTTP to `url`, with extra request headers. */
export async function httpClient(url: URL, headers: Record<string, string> = {}): Promise<Client> {
  const client = newClient();
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  return client;
}
