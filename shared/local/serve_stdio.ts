/**
 * `deno task mcp:stdio`: serves the registry over stdio as the local user —
 * or, when the HTTP server already holds the PGlite data folder, bridges to
 * its MCP endpoint — and exits with code 0 once the client closes stdin or on
 * SIGINT/SIGTERM, after flushing the audit log and closing the database.
 */
import { configSecrets, loadConfigOrExit } from "../config/config.ts";
import { createConsoleLogger, WRITE_TO_STDERR } from "../log/console_logger.ts";
import { createRedactor } from "../log/redact.ts";
import type { StdioServing } from "../mcp/stdio.ts";
import { createApp } from "../app/app.ts";
import type { ServeOptions } from "../app/serve.ts";
import { acquireDataDirLock, type DataDirLock, lockHolder } from "./data_dir_lock.ts";

/** Serves stdio until the client goes away, then exits the process. */
export async function serveStdioFunction(
  { tools, options, supabaseClient }: Omit<ServeOptions, "runtime">,
): Promise<never> {
  const config = loadConfigOrExit({ options });
  const logger = createConsoleLogger({
    level: config.logLevel,
    write: WRITE_TO_STDERR,
    redact: createRedactor(configSecrets(config)),
  });
  const { database } = config;
  const dataDir = database.kind === "pglite" && !database.dataDir.startsWith("memory://")
    ? database.dataDir
    : undefined;
  const holder = dataDir ? lockHolder(dataDir) : undefined;
  if (holder?.role === "http" && holder.mcpUrl) {
    logger.info("the data folder is the HTTP server's: bridging stdio to its MCP endpoint", {
      pid: holder.pid,
      url: holder.mcpUrl,
    });
    const { bridgeStdio } = await import("./stdio_bridge.ts");
    // The server reads the same settings: with keys required, the first one lets the bridge in.
    const token = config.auth.apiKeys.values().next().value;
    const bridge = bridgeStdio({ url: holder.mcpUrl, token, logger });
    await untilDone(bridge);
    Deno.exit(0);
  }
  let lock: DataDirLock | undefined;
  try {
    lock = dataDir ? acquireDataDirLock(dataDir, { role: "stdio" }) : undefined;
    const app = createApp(config, {
      logger,
      tools,
      supabaseClient,
      openDatabase: "on-first-use",
    });
    const { serveStdio } = await import("../mcp/stdio.ts");
    await untilDone(serveStdio(app));
    await app.close();
  } catch (error) {
    console.error((error as Error).message);
    lock?.release();
    Deno.exit(1);
  }
  lock?.release();
  Deno.exit(0);
}

/** Waits for the client to go away (stdin closed) or a signal to stop. */
async function untilDone(serving: StdioServing): Promise<void> {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    Deno.addSignalListener(signal, () => void serving.stop());
  }
  await serving.closed;
}
