/**
 * `deno task start`: serves the function on this machine (and under any Deno
 * host that is not Supabase's edge runtime) — on 127.0.0.1 unless `HOST` says
 * otherwise, behind the connection guard (connection_guard.ts), holding the
 * PGlite data folder's lock, printing the URLs it serves, and on SIGINT or
 * SIGTERM stopping once (a Ctrl-C reaches both `deno task` and the server, so
 * two signals are the rule), flushing the audit log and closing the database.
 * Local-only: the edge entry never imports this folder.
 */
import { PLAYGROUND_FILES } from "./playground_files.ts";
import { type Config, configSecrets, loadConfigOrExit } from "../config/config.ts";
import { describeError } from "../errors.ts";
import { createConsoleLogger } from "../log/console_logger.ts";
import { createRedactor } from "../log/redact.ts";
import type { App } from "../app/app.ts";
import type { ServeOptions } from "../app/serve.ts";
import type { RuntimeInfo } from "../app/runtime.ts";
import { acquireDataDirLock, type DataDirLock } from "./data_dir_lock.ts";
import { makeSocketDir, parentOf, SOCKET_NAME, sweepStaleSocketDirs } from "./socket_dir.ts";
import {
  type ConnectionGuard,
  DEFAULT_GUARD_LIMITS,
  freeDescriptorsFor,
  type GuardLimits,
  startConnectionGuard,
} from "./connection_guard.ts";

/** What the server has started so far: what stopping it closes. */
interface Started {
  lock?: DataDirLock;
  app?: App;
  server?: Deno.HttpServer;
  guard?: ConnectionGuard;
  cleanup: () => Promise<void>;
}

/**
 * Serves the function on this machine. The database starts opening before
 * the rest of the app is even loaded (PGlite takes longest).
 */
export async function serveLocal(
  { tools, options, supabaseClient, runtime, connections = {} }: ServeOptions & {
    runtime: RuntimeInfo;
    /** The connection guard's limits (default DEFAULT_GUARD_LIMITS). */
    connections?: Partial<GuardLimits>;
  },
): Promise<void> {
  const config = loadConfigOrExit({ runtime: runtime.kind, options });
  const limits = { ...DEFAULT_GUARD_LIMITS, ...connections };
  // Before the database's worker starts: counting takes every free descriptor for a moment.
  const free = freeDescriptorsFor(limits);
  const started: Started = { cleanup: () => Promise.resolve() };
  // Listening for signals from the start: a Ctrl-C while the database opens stops cleanly too.
  const stop = stopOnce(async () => {
    await started.guard?.close();
    await started.server?.shutdown();
    await started.app?.close();
    await started.cleanup();
    started.lock?.release();
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    Deno.addSignalListener(signal, () => void stop().then((code) => Deno.exit(code)));
  }
  let app: App;
  try {
    app = await startApp(config, { tools, supabaseClient, runtime, started });
  } catch (error) {
    started.lock?.release();
    console.error((error as Error).message);
    Deno.exit(1);
  }
  try {
    await listen(config, { app, guard: { limits, free }, started });
  } catch (error) {
    console.error(await cannotListenMessage(error, config.http.hostname, config.port));
    // The database may be half-way through its first start: let it finish before exiting.
    await stop();
    Deno.exit(1);
  }
}

/** Takes the data folder's lock, starts opening the database, and builds the app. */
async function startApp(
  config: Config,
  { tools, supabaseClient, runtime, started }: Pick<ServeOptions, "tools" | "supabaseClient"> & {
    runtime: RuntimeInfo;
    started: Started;
  },
): Promise<App> {
  const { database } = config;
  if (database.kind === "pglite" && !database.dataDir.startsWith("memory://")) {
    started.lock = acquireDataDirLock(database.dataDir, { role: "http" });
  }
  const logger = createConsoleLogger({
    level: config.logLevel,
    redact: createRedactor(configSecrets(config)),
  });
  const { openDatabase } = await import("../app/storage.ts");
  const opening = openDatabase(config, logger);
  opening.catch(() => {}); // failures surface through the app, per request
  const { createApp } = await import("../app/app.ts");
  return started.app = createApp(config, {
    tools,
    supabaseClient,
    logger,
    opening,
    runtime,
    playground: PLAYGROUND_FILES,
  });
}

/**
 * Serves `app` on a Unix socket behind the connection guard, which owns the
 * public port (connection_guard.ts), and prints where.
 */
async function listen(
  config: Config,
  { app, guard, started }: {
    app: App;
    guard: { limits: GuardLimits; free: number };
    started: Started;
  },
): Promise<void> {
  const socketDir = await makeSocketDir();
  started.cleanup = () => Deno.remove(socketDir, { recursive: true }).catch(() => {});
  const upstream = `${socketDir}/${SOCKET_NAME}`;
  started.server = Deno.serve({ transport: "unix", path: upstream, onListen: () => {} }, app.fetch);
  started.guard = startConnectionGuard({
    hostname: config.http.hostname,
    port: config.port,
    upstream,
    ...guard,
    logger: createConsoleLogger({ level: config.logLevel }),
  });
  const { hostname, port } = started.guard.addr;
  const shown = hostname === "0.0.0.0" || hostname === "::" ? "localhost" : hostname;
  const base = `http://${shown.includes(":") ? `[${shown}]` : shown}:${port}/mcp-loop`;
  started.lock?.setMcpUrl(`${base}/mcp`);
  console.log(listeningMessage(base, { playground: config.http.playground, hostname }));
  // The MCP endpoint gets ready for its first request once the app is ready (the database
  // open, remote servers tried once) and the requests that waited for it have had their turn:
  // loading the SDK earlier slowed the database's start (the two compete for the cores).
  // Then the folders of servers that were killed before they could remove theirs.
  void app.ready().catch(() => {}).then(() => {
    setTimeout(() => {
      app.preloadMcp().catch(() => {}).then(() => sweepStaleSocketDirs(parentOf(socketDir)));
    }, PRELOAD_DELAY_MS);
  });
}

/**
 * `stop` wrapped so that it runs once however often it is called (each signal
 * calls it): every call gets the same exit code, 0 when it finished, 1 (with a
 * one-line message) when it failed.
 */
export function stopOnce(stop: () => Promise<void>): () => Promise<number> {
  let stopping: Promise<number> | undefined;
  return () =>
    stopping ??= stop().then(() => 0, (error) => {
      console.error(`mcp-loop could not stop cleanly: ${describeError(error)}`);
      return 1;
    });
}

/**
 * One line saying why the server cannot listen: for a port in use, whether
 * another mcp-loop holds it (its health path answers) and what to do.
 */
export async function cannotListenMessage(
  error: unknown,
  hostname: string,
  port: number,
): Promise<string> {
  if (!(error instanceof Deno.errors.AddrInUse)) {
    return `mcp-loop cannot listen on ${hostname}:${port}: ${describeError(error)}`;
  }
  const host = hostname === "0.0.0.0" || hostname === "::" ? "127.0.0.1" : hostname;
  const base = `http://${host.includes(":") ? `[${host}]` : host}:${port}/mcp-loop`;
  let holder = "another program";
  try {
    const res = await fetch(`${base}/health`, { signal: AbortSignal.timeout(1_000) });
    const body = await res.json().catch(() => undefined);
    if (body && typeof body === "object" && "checks" in body) {
      holder = `another mcp-loop server (MCP at ${base}/mcp)`;
    }
  } catch {
    // not an HTTP server we know
  }
  return `Port ${port} on ${hostname} is already in use by ${holder}: stop it, or set PORT to a free port (PORT=${
    port === 65_535 ? 8001 : port + 1
  } deno task start).`;
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
