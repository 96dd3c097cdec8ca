/**
 * `deno task start`: serves the function locally (and under any Deno host) —
 * on 127.0.0.1 unless `MCP_LOOP_HOSTNAME`/`HOST` says otherwise, holding the
 * PGlite data folder's lock, printing the URLs it serves, and on SIGINT or
 * SIGTERM stopping, flushing the audit log and closing the database. Under
 * Supabase's edge runtime it only builds the app and hands it to `Deno.serve`.
 */
import "./zod_tuning.ts";
import { configSecrets, loadConfigOrExit } from "../config/config.ts";
import { createConsoleLogger } from "../log/console_logger.ts";
import { createRedactor } from "../log/redact.ts";
import type { ToolDefinition } from "../tools/tool.ts";
import type { App } from "./app.ts";
import { acquireDataDirLock, type DataDirLock } from "./data_dir_lock.ts";

/**
 * Serves the function with the application's `tools`. The database starts
 * opening before the rest of the app is even loaded (PGlite takes longest).
 */
export async function serveFunction(
  { tools }: { tools: readonly ToolDefinition[] },
): Promise<void> {
  const config = loadConfigOrExit();
  if ("EdgeRuntime" in globalThis) {
    // Supabase's runtime owns the socket and the process.
    const { createApp } = await import("./app.ts");
    Deno.serve(createApp(config, { tools }).fetch);
    return;
  }
  let lock: DataDirLock | undefined;
  let app: App;
  try {
    const { database } = config;
    if (database.kind === "pglite" && !database.dataDir.startsWith("memory://")) {
      lock = acquireDataDirLock(database.dataDir, { role: "http" });
    }
    const logger = createConsoleLogger({
      level: config.logLevel,
      redact: createRedactor(configSecrets(config)),
    });
    const { openDatabase } = await import("./storage.ts");
    const opening = openDatabase(config, logger);
    opening.catch(() => {}); // failures surface through the app, per request
    const { createApp } = await import("./app.ts");
    app = createApp(config, { tools, logger, opening });
  } catch (error) {
    lock?.release();
    console.error((error as Error).message);
    Deno.exit(1);
  }
  const server = Deno.serve({
    hostname: config.http.hostname,
    port: config.port,
    onListen: ({ hostname, port }) => {
      const shown = hostname === "0.0.0.0" || hostname === "::" ? "localhost" : hostname;
      const base = `http://${shown.includes(":") ? `[${shown}]` : shown}:${port}/mcp-loop`;
      lock?.setMcpUrl(`${base}/mcp`);
      console.log(listeningMessage(base, { playground: config.http.playground, hostname }));
      // The MCP endpoint gets ready for its first request once the app is ready (the database
      // open, remote servers tried once) and the requests that waited for it have had their turn: loading the SDK earlier slowed the
      // database's start (the two compete for the cores) and the requests waiting on it.
      void app.ready().catch(() => {}).then(() => {
        setTimeout(() => app.preloadMcp().catch(() => {}), PRELOAD_DELAY_MS);
      });
    },
  }, app.fetch);
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    Deno.addSignalListener(signal, async () => {
      await server.shutdown();
      await app.close();
      lock?.release();
      Deno.exit(0);
    });
  }
}

/** How long after the app is ready the MCP SDK is loaded (see `preloadMcp`). */
const PRELOAD_DELAY_MS = 200;

/** What start-up prints: where each path is served. */
export function listeningMessage(
  base: string,
  { playground, hostname }: { playground: boolean; hostname: string },
): string {
  return [
    `mcp-loop is listening on ${hostname}:${new URL(base).port}${
      hostname === "127.0.0.1" || hostname === "localhost" ? " (this machine only)" : ""
    }`,
    `  loop        POST ${base}`,
    `  MCP         ${base}/mcp`,
    `  health      GET  ${base}/health`,
    ...(playground ? [`  playground  ${base}/playground`] : []),
  ].join("\n");
}
