/**
 * The composition root: the one place that chooses adapters, fills the tool
 * registry and wires the handlers. Nothing here runs at import time, and what
 * a path does not need (PGlite, the OpenAI SDK, the MCP SDK) is imported on
 * first use.
 */
import type { PlaygroundFiles } from "../http/playground_handler.ts";
import { createAuthenticator } from "../auth/authenticator.ts";
import { type Config, configSecrets } from "../config/config.ts";
import { createRedactor } from "../log/redact.ts";
import { createConsoleLogger } from "../log/console_logger.ts";
import { consoleSink } from "../log/line_writer.ts";
import { LOCAL, type RuntimeInfo } from "./runtime.ts";
import type { MCPResponse } from "../contracts.ts";
import { parseLoopRequest } from "../http/loop_handler.ts";
import { McpLoopRunner, type RunOptions } from "../loop/runner.ts";
import type {
  AuditLog,
  ConversationStore,
  Embedder,
  Logger,
  Planner,
  Scorer,
  Sql,
} from "../ports.ts";
import type { RefinementStore } from "../store/refinement_store_port.ts";
import { ChatScorer } from "../refinement/chat_scorer.ts";
import { HeuristicScorer } from "../refinement/heuristic_scorer.ts";
import { type LazySql, lazySql } from "../store/lazy_sql.ts";
import { SqlAuditLog } from "../store/sql_audit_log.ts";
import { SqlCallerQuota } from "../store/sql_caller_quota.ts";
import { type CallerLimiter, createCallerLimiter } from "../http/caller_limits.ts";
import { approvalRule } from "../tools/approval_rule.ts";
import type { RunStore } from "../runs/run_store.ts";
import type { ApprovalStore } from "../runs/approval_store.ts";
import { SqlRefinementStore } from "../store/sql_refinement_store.ts";
import type { ToolDefinition } from "../tools/tool.ts";
import { ToolPolicy } from "../tools/tool_policy.ts";
import type { ToolRegistry } from "../tools/tool_registry.ts";
import type { CallerDataStore } from "../store/caller_data_port.ts";
import type { WorkingMemoryStore } from "../store/working_memory_port.ts";
import { buildRegistry, connectRemoteServers } from "./build_registry.ts";
import { createMemoryStores } from "./memory_stores.ts";
import { createModels } from "./models.ts";
import { tokenDeps } from "./token_deps.ts";
import { createConversationStore, openDatabase } from "./storage.ts";
import { buildRouter, warnIfNoCors, warnIfOpen, warnIfProcessKey } from "./routes.ts";
import { createToolServices } from "./tool_services.ts";
import type { SupabaseClientFactory } from "../adapters/supabase/caller_client.ts";
import { createRunEngine } from "./runs_deps.ts";
import { createMcpApprovals } from "./mcp_approvals.ts";
import type { McpServerDeps } from "../mcp/mcp_server.ts";
import { createMcpSessions } from "../mcp/mcp_sessions.ts";
import type { McpSessionStore } from "../store/mcp_session_port.ts";
import { SqlMcpSessionStore } from "../store/sql_mcp_session_store.ts";

/** Replacements for the adapters the configuration would choose (tests, embedding). */
export interface AppOverrides {
  sql?: Sql;
  embedder?: Embedder;
  planner?: Planner;
  store?: ConversationStore;
  /** Working memory (default: `store` when it keeps memory, else SQL on the database). */
  memory?: WorkingMemoryStore;
  /** Forgetting and export (default: `store` when it can, else SQL on the database). */
  data?: CallerDataStore;
  refinementStore?: RefinementStore;
  /** Scores refinement rounds (default: the chat model's reviewer, else the offline heuristic). */
  scorer?: Scorer;
  audit?: AuditLog;
  logger?: Logger;
  /** The application's own tools (`functions/mcp-loop/tools.ts`), registered after the built-in ones. */
  tools?: readonly ToolDefinition[];
  /** Where `tools` come from, for error messages (default "functions/mcp-loop/tools.ts"). */
  toolsSource?: string;
  /** Per-caller limits (default: from the configuration). */
  limits?: CallerLimiter;
  /** Where runs are kept (default: SQL on the database). */
  runs?: RunStore;
  /** Where approval records are kept (default: SQL on the database). */
  approvals?: ApprovalStore;
  /** Where 2025-11-25 HTTP clients' MCP sessions are kept (default: SQL on the database). */
  mcpSessions?: McpSessionStore;
  /**
   * Gives tools `supabase`, supabase-js acting as the caller, when the project's
   * API is configured: pass `createCallerClient` (shared/adapters/supabase/caller_client.ts).
   * Absent by default, which keeps supabase-js out of the deployed bundle.
   */
  supabaseClient?: SupabaseClientFactory;
  /** Replaces `fetch` for Supabase's API: the tools' client, the Supabase API stores (tests). */
  fetch?: typeof fetch;
  /**
   * Open the database at start (default) or on first use: a stdio server that
   * only lists tools never needs it, and then closes at once.
   */
  openDatabase?: "at-start" | "on-first-use";
  /** A database the entry already started opening (the app owns and closes it). */
  opening?: Promise<Sql>;
  /** Where the app runs (default: a local process); the entry detects it (runtime.ts). */
  runtime?: RuntimeInfo;
  /**
   * The playground's files (`PLAYGROUND_FILES` of shared/local/playground_files.ts),
   * which the local server passes; without them the playground path serves no page.
   */
  playground?: PlaygroundFiles;
}

/** A built application. */
export interface App {
  /** The HTTP handler (`Deno.serve(app.fetch)`). */
  fetch: (req: Request) => Promise<Response>;
  registry: ToolRegistry;
  runner: McpLoopRunner;
  /** Validates `request` (as `POST /mcp-loop` does) and runs it; see `McpLoopRunner.run`. */
  run(request: unknown, options?: RunOptions): Promise<MCPResponse>;
  /** What an MCP server over the registry needs (the stdio entry uses it). */
  mcp: McpServerDeps;
  /**
   * Loads what the first MCP request would otherwise load (the SDK, about 80 ms
   * of compiling). `deno task start` calls it 200 ms after `ready()` (the
   * database open, remote servers tried once); on the edge runtime, where an instance may serve a single loop
   * request, nothing calls it.
   */
  preloadMcp(): Promise<void>;
  /** Resolves once the database is open and the remote MCP servers have been tried once. */
  ready(): Promise<void>;
  /** Stops the remote connections, flushes the audit log and closes the database it opened. */
  close(): Promise<void>;
}

/** Builds the app from the configuration. The database and remote servers connect in the background. */
export function createApp(configured: Config, overrides: AppOverrides = {}): App {
  const config = withFetch(configured, overrides.fetch);
  const runtime = overrides.runtime ?? LOCAL;
  const logger = overrides.logger ?? createConsoleLogger({
    level: config.logLevel,
    redact: createRedactor(configSecrets(config)),
    ...(runtime.kind === "edge" ? { write: consoleSink } : {}),
  });
  warnIfOpen(config, logger);
  warnIfNoCors(config, logger);
  warnIfProcessKey(config, logger);
  const sql = appSql(config, overrides, logger);
  const parts = buildParts(config, overrides, { sql, logger, runtime });
  const runner = buildRunner(config, overrides, parts);
  const mcp = mcpDeps(config, parts, overrides);
  // A request's deadline starts once the database has opened (a fresh PGlite folder takes seconds).
  const runWhenOpen = whenOpen(sql, runner);
  const remotes = connectRemoteServers(config, parts.registry, logger);
  const { router, loadMcp } = buildRouter(config, {
    runner: runWhenOpen,
    runs: parts.runs,
    limits: overrides.limits ?? createCallerLimiter(config.http.callerLimits, {
      // Every instance of a function on Postgres counts against the same minute.
      shared: config.database.kind === "postgres" ? new SqlCallerQuota(sql) : undefined,
    }),
    data: parts.memoryStores.data,
    mcp,
    embeddingModel: parts.embedder.model,
    sql,
    remotes,
    authenticate: createAuthenticator({ ...config.auth, logger }),
    describe: () => describeApp(config, parts),
    playground: overrides.playground,
  });
  if (!overrides.sql && overrides.openDatabase !== "on-first-use") {
    sql.ready().catch(() => {}); // start opening now; errors surface per request
  }
  return {
    fetch: (req) => Promise.resolve(router.fetch(req)),
    registry: parts.registry,
    runner,
    run: (request, options) =>
      Promise.resolve().then(() => runWhenOpen.run(parseLoopRequest(request), options)),
    mcp,
    preloadMcp: loadMcp,
    ready: async () => {
      await sql.ready();
      await Promise.all((await remotes).map((source) => source.connect()));
    },
    close: async () => {
      await Promise.all((await remotes).map((source) => source.close()));
      await parts.audit.flush().catch(() => {});
      // A database passed in belongs to the caller; only one the app opened is closed here.
      if (!overrides.sql) await sql.close();
    },
  };
}

/** The configuration with `fetch` given to the Supabase API store (tests). */
function withFetch(config: Config, fetch: typeof globalThis.fetch | undefined): Config {
  if (!fetch || config.store.kind !== "supabase") return config;
  return { ...config, store: { ...config.store, fetch } };
}

/** The app's database: opened in the background (or given), waited for by the requests. */
function appSql(config: Config, overrides: AppOverrides, logger: Logger): LazySql {
  const inMemory = config.database.kind === "pglite" &&
    config.database.dataDir.startsWith("memory://");
  let opening = overrides.opening;
  return lazySql(
    () => {
      if (overrides.sql) return Promise.resolve(overrides.sql);
      const early = opening;
      opening = undefined; // a retry after a failure opens afresh
      return early ?? openDatabase(config, logger);
    },
    // An in-memory database keeps nothing worth waiting for when the process exits.
    { closeWaitMs: inMemory ? 0 : 5_000 },
  );
}

/** The app's parts: models, stores, the registry and its policies, the run engine. */
function buildParts(
  config: Config,
  overrides: AppOverrides,
  { sql, logger, runtime }: { sql: LazySql; logger: Logger; runtime: RuntimeInfo },
) {
  const models = createModels(config.models);
  const audit = overrides.audit ?? new SqlAuditLog(sql, { keepAlive: runtime.keepAlive });
  const refinementStore = overrides.refinementStore ?? new SqlRefinementStore(sql);
  const services = createToolServices({
    supabaseApi: config.supabaseApi && { ...config.supabaseApi, fetch: overrides.fetch },
    supabaseClient: overrides.supabaseClient,
    sql,
  });
  const memoryStores = createMemoryStores(config, sql, overrides);
  const registry = buildRegistry(config, models, overrides, {
    refinementStore,
    logger,
    memoryStores,
  });
  const rule = approvalRule(config.runs.approval, config.runs.tainted);
  const runs = createRunEngine(config, {
    sql,
    audit,
    rule,
    store: overrides.runs,
    approvals: overrides.approvals,
    keepAlive: runtime.keepAlive,
  });
  return {
    sql,
    logger,
    models,
    audit,
    refinementStore,
    services,
    memoryStores,
    registry,
    rule,
    runs,
    policy: new ToolPolicy(config.toolPolicy),
    conversations: overrides.store ?? createConversationStore(config, sql),
    embedder: overrides.embedder ?? models.embedder,
    planner: overrides.planner ?? models.planner,
  };
}

type Parts = ReturnType<typeof buildParts>;

/** The loop over the app's parts, keeping its runs in the run engine. */
function buildRunner(config: Config, overrides: AppOverrides, parts: Parts): McpLoopRunner {
  const { registry, embedder, policy, sql, models, logger } = parts;
  return new McpLoopRunner({
    registry,
    planner: parts.planner,
    embedder,
    store: parts.conversations,
    logger,
    options: config.loop,
    policy,
    refinement: {
      store: parts.refinementStore,
      settings: config.refinement,
      scorer: overrides.scorer ??
        (models.chatModel ? new ChatScorer(models.chatModel, { logger }) : new HeuristicScorer()),
    },
    services: parts.services,
    runs: parts.runs,
    ...tokenDeps(config, { registry, embedder, policy, sql, models, logger, overrides }),
  });
}

/** What the MCP surfaces need of the app. */
function mcpDeps(config: Config, parts: Parts, overrides: AppOverrides): McpServerDeps {
  return {
    registry: parts.registry,
    audit: parts.audit,
    logger: parts.logger,
    callTimeoutMs: config.loop.deadlineMs,
    policy: parts.policy,
    services: parts.services,
    conversations: parts.conversations,
    loops: parts.refinementStore,
    memory: parts.memoryStores.memory,
    refinementSettings: config.refinement,
    approvals: createMcpApprovals(config, { rule: parts.rule, store: parts.runs.approvals }),
    sessions: createMcpSessions(overrides.mcpSessions ?? new SqlMcpSessionStore(parts.sql), {
      ttlMs: config.mcp.sessionTtlMs,
      waitMs: config.mcp.questionWaitMs,
    }),
    untilReady: () => untilOpen(parts.sql),
  };
}

/** The runner, whose calls wait for a database that is still opening first. */
function whenOpen(
  sql: LazySql,
  runner: McpLoopRunner,
): Pick<McpLoopRunner, "run" | "resume" | "cancel"> {
  return {
    run: async (request, options) => {
      await untilOpen(sql);
      return await runner.run(request, options);
    },
    resume: async (runId, options) => {
      await untilOpen(sql);
      return await runner.resume(runId, options);
    },
    cancel: async (runId, options) => {
      await untilOpen(sql);
      return await runner.cancel(runId, options);
    },
  };
}

/** What health shows of the app (to callers allowed to see details). */
function describeApp(config: Config, parts: Parts): Record<string, unknown> {
  return {
    embedder: parts.embedder.model,
    planner: parts.planner.constructor.name,
    chatModel: parts.models.chatModel?.model ?? null,
    database: config.database.kind,
    tools: parts.registry.list().map((tool) => tool.name),
  };
}

/** Longest a request waits for a database still opening before its own deadline starts. */
const OPEN_WAIT_MS = 30_000;

/**
 * Waits for a database that is still opening — or, opened on first use, not
 * yet opened — at most {@link OPEN_WAIT_MS}, so its start-up is not charged to
 * the first requests' deadlines. A failed open is left for the request's own
 * queries to report.
 */
async function untilOpen(sql: LazySql): Promise<void> {
  const state = sql.state();
  if (state !== "opening" && state !== "closed") return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    sql.ready().catch(() => {}),
    new Promise((resolve) => timer = setTimeout(resolve, OPEN_WAIT_MS)),
  ]);
  clearTimeout(timer);
}
