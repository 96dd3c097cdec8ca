/**
 * The HTTP routes of the app: the loop, health, MCP (its SDK loaded on the
 * first MCP request), the playground and the sign-in metadata; and the
 * start-up warnings about settings that leave the function open.
 */
import type { Authenticate } from "../auth/authenticator.ts";
import type { Config } from "../config/config.ts";
import { createHealthHandler } from "../http/health_handler.ts";
import { createHostOriginCheck } from "../http/host_origin.ts";
import { createLoopHandler } from "../http/loop_handler.ts";
import { createPlaygroundHandler, type PlaygroundFiles } from "../http/playground_handler.ts";
import { createProtectedResourceHandler, resourceMetadataUrl } from "../http/protected_resource.ts";
import { lazyHandler } from "../http/lazy_handler.ts";
import { createRunsHandler } from "../http/runs_handler.ts";
import type { CallerLimiter } from "../http/caller_limits.ts";
import { createDataHandler } from "../http/data_handler.ts";
import type { CallerDataStore } from "../store/caller_data_port.ts";
import type { RunEngine } from "../runs/engine.ts";
import { createRouter } from "../http/router.ts";
import type { McpLoopRunner } from "../loop/runner.ts";
import type { McpServerDeps } from "../mcp/mcp_server.ts";
import type { RemoteToolSource } from "../mcp/remote_tool_source.ts";
import type { Logger } from "../ports.ts";
import type { LazySql } from "../store/lazy_sql.ts";

/** What the routes are built from. */
type RouterDeps = {
  runner: Pick<McpLoopRunner, "run" | "resume" | "cancel">;
  runs: RunEngine;
  limits: CallerLimiter;
  /** Forgetting and export (`/sessions/{sessionId}`, `/data`). */
  data: CallerDataStore;
  mcp: McpServerDeps;
  embeddingModel: string;
  sql: LazySql;
  remotes: Promise<RemoteToolSource[]>;
  authenticate: Authenticate;
  describe: () => Record<string, unknown>;
  /** The playground's files, when the local server serves them. */
  playground?: PlaygroundFiles;
};

/**
 * The HTTP routes: the loop, health, and MCP (its SDK loaded on the first MCP
 * request, or before by `loadMcp`).
 */
export function buildRouter(config: Config, deps: RouterDeps) {
  const { mcp: { logger }, authenticate, limits } = deps;
  // Sign-in discovery where sign-in is needed and someone issues the tokens.
  const signIn = config.auth.required && config.oauth.authorizationServers.length > 0;
  const allowedHosts = config.mcp.allowedHosts === "*" ? "*" : new Set(config.mcp.allowedHosts);
  // Deployed, the platform's gateway routes by host; the Host check guards a server on this
  // machine against DNS rebinding.
  const hostOrigin = createHostOriginCheck({
    allowedHosts: config.http.deployed ? "*" : allowedHosts,
    origins: config.http.corsOrigins,
  });
  const mcpHandler = lazyMcpHandler(config, { deps, allowedHosts, signIn });
  const door = {
    runner: deps.runner,
    authenticate,
    embeddingModel: deps.embeddingModel,
    maxBodyBytes: config.http.maxBodyBytes,
    logger,
    hostOrigin,
    keepAlive: deps.runs.keepAlive,
    limits,
  };
  const router = createRouter({
    loop: createLoopHandler(door),
    runs: createRunsHandler({
      ...door,
      store: deps.runs.store,
      messages: deps.mcp.conversations,
      hub: deps.runs.hub,
    }),
    data: createDataHandler({ data: deps.data, authenticate, logger, hostOrigin, limits }),
    health: healthHandler(config, deps),
    mcp: mcpHandler.handle,
    protectedResource: signIn ? createProtectedResourceHandler(config.oauth) : undefined,
    playground: createPlaygroundHandler({
      enabled: config.http.playground,
      deployed: config.http.deployed,
      files: deps.playground,
    }),
    corsOrigins: config.http.corsOrigins,
    logger,
  });
  return { router, loadMcp: mcpHandler.load };
}

/** The MCP endpoint, its SDK imported on its first request (or by `load`). */
function lazyMcpHandler(
  config: Config,
  { deps: { mcp, authenticate, limits }, allowedHosts, signIn }: {
    deps: RouterDeps;
    allowedHosts: "*" | Set<string>;
    signIn: boolean;
  },
) {
  return lazyHandler(async () => {
    const { createMcpHttpHandler } = await import("../mcp/mcp_http_handler.ts");
    return createMcpHttpHandler({
      ...mcp,
      authenticate,
      // Origins listed for browsers may call the MCP endpoint too; "*" and the local
      // default (pages on this machine) do not extend to it: MCP clients are not web pages.
      hostOrigin: createHostOriginCheck({
        allowedHosts,
        origins: [
          ...config.mcp.allowedOrigins,
          ...(Array.isArray(config.http.corsOrigins) ? config.http.corsOrigins : []),
        ],
      }),
      maxBodyBytes: config.http.maxBodyBytes,
      limits,
      resourceMetadataUrl: signIn ? (req) => resourceMetadataUrl(config.oauth, req) : undefined,
    });
  });
}

/** Health: the database, the remote MCP servers, and what `describe` reports. */
function healthHandler(
  config: Config,
  { mcp: { logger }, sql, describe, authenticate, remotes }: RouterDeps,
) {
  return createHealthHandler({
    logger,
    database: sql,
    describe,
    // With authentication required, only a caller with a credential sees the details.
    authenticate: config.auth.required ? authenticate : undefined,
    checks: async () =>
      Object.fromEntries((await remotes).map((source) => {
        const status = source.status();
        return [`remote:${status.name}`, status];
      })),
  });
}

/**
 * Authentication left optional on a shared database or a Supabase project (only
 * MCP_LOOP_REQUIRE_AUTH=false does that there): anyone can call the function.
 */
export function warnIfOpen(config: Config, logger: Logger): void {
  const { required, jwtSecret, jwks, jwksUrl } = config.auth;
  const shared = config.database.kind === "postgres" || Boolean(jwtSecret || jwks || jwksUrl);
  if (shared && !required) {
    logger.warn(
      "authentication is optional: requests without a credential run as the anonymous caller and share its data; set MCP_LOOP_REQUIRE_AUTH=true (or MCP_LOOP_API_KEYS) unless that is intended",
    );
  }
}

/** Deployed with no CORS origins configured, browsers on other origins cannot call the function. */
export function warnIfNoCors(config: Config, logger: Logger): void {
  const origins = config.http.corsOrigins;
  if (Array.isArray(origins) && origins.length === 0) {
    logger.info(
      "no CORS origins are allowed (the default once Supabase settings are present): browser apps on other origins cannot call this function; set MCP_LOOP_CORS_ORIGINS=https://your.app (comma-separated) to allow them",
    );
  }
}

/**
 * MCP approvals signed with a key of this process only, where several
 * processes may share the database: an answer reaching another one is refused.
 */
export function warnIfProcessKey(config: Config, logger: Logger): void {
  if (config.mcp.requestStateKey || config.database.kind !== "postgres") return;
  logger.warn(
    "MCP approvals are signed with a random key of this process: a client's answer that reaches another instance (or this one restarted) is refused; set MCP_LOOP_REQUEST_STATE_KEY (32 bytes or more) to the same value on every instance",
  );
}
