/**
 * The composition root: the one place that chooses adapters, fills the tool
 * registry and wires the handlers. Nothing here runs at import time.
 */
import { createAuthenticator } from "./auth/authenticator.ts";
import type { Config } from "./config.ts";
import { createConsoleLogger } from "./console_logger.ts";
import { createHealthHandler } from "./http/health_handler.ts";
import { createLoopHandler } from "./http/loop_handler.ts";
import { createRouter } from "./http/router.ts";
import { McpLoopRunner } from "./loop/runner.ts";
import type {
  ConversationStore,
  Embedder,
  Logger,
  Planner,
  RefinementStore,
  Sql,
} from "./ports.ts";
import { createRefinementTools } from "./refinement/refinement_tools.ts";
import { SqlRefinementStore } from "./store/sql_refinement_store.ts";
import { lazySql } from "./store/lazy_sql.ts";
import { applyMigrations } from "./store/migrations.ts";
import { SqlConversationStore } from "./store/sql_conversation_store.ts";
import { createFinalizeSummaryTool } from "./tools/finalize_summary.ts";
import { createModelSummarizer } from "./tools/model_summary.ts";
import { createModels } from "./app_models.ts";
import type { ToolDefinition } from "./tools/tool.ts";
import { ToolRegistry } from "./tools/tool_registry.ts";

/** Replacements for the adapters the configuration would choose (tests, embedding). */
export interface AppOverrides {
  sql?: Sql;
  embedder?: Embedder;
  planner?: Planner;
  store?: ConversationStore;
  refinementStore?: RefinementStore;
  logger?: Logger;
  /** Extra tools, registered after the built-in ones. */
  tools?: ToolDefinition[];
}

/** A built application. */
export interface App {
  /** The HTTP handler (`Deno.serve(app.fetch)`). */
  fetch: (req: Request) => Promise<Response>;
  registry: ToolRegistry;
  runner: McpLoopRunner;
  /** Resolves once the database is open and migrated. */
  ready(): Promise<void>;
  /** Closes the database; the app answers no more requests. */
  close(): Promise<void>;
}

/** Builds the app from the configuration. The database opens in the background. */
export function createApp(config: Config, overrides: AppOverrides = {}): App {
  const logger = overrides.logger ?? createConsoleLogger({ level: config.logLevel });
  const sql = overrides.sql
    ? lazySql(() => Promise.resolve(overrides.sql!))
    : lazySql(() => openDatabase(config, logger));
  const models = createModels(config.models);
  const embedder = overrides.embedder ?? models.embedder;
  const planner = overrides.planner ?? models.planner;
  const store = overrides.store ?? createStore(config, sql);

  const registry = new ToolRegistry();
  registry.register(createFinalizeSummaryTool({
    summarize: models.chatModel ? createModelSummarizer(models.chatModel, { logger }) : undefined,
  }));
  const refinementStore = overrides.refinementStore ?? new SqlRefinementStore(sql);
  for (
    const tool of createRefinementTools({ store: refinementStore, settings: config.refinement })
  ) {
    registry.register(tool);
  }
  for (const tool of overrides.tools ?? []) registry.register(tool);

  const runner = new McpLoopRunner({
    registry,
    planner,
    embedder,
    store,
    logger,
    options: config.loop,
  });
  const authenticate = createAuthenticator({ ...config.auth, logger });
  const router = createRouter({
    loop: createLoopHandler({
      runner,
      authenticate,
      embeddingModel: embedder.model,
      maxBodyBytes: config.http.maxBodyBytes,
      logger,
    }),
    health: createHealthHandler({
      database: () => sql.ready(),
      describe: () => ({
        embedder: embedder.model,
        planner: planner.constructor.name,
        chatModel: models.chatModel?.model ?? null,
        database: config.database.kind,
        tools: registry.list().map((tool) => tool.name),
      }),
    }),
    corsOrigins: config.http.corsOrigins,
    logger,
  });
  if (!overrides.store) sql.ready().catch(() => {}); // start opening now; errors surface per request
  return {
    fetch: (req) => Promise.resolve(router.fetch(req)),
    registry,
    runner,
    ready: async () => {
      await sql.ready();
    },
    close: () => sql.close(),
  };
}

function createStore(config: Config, sql: Sql): ConversationStore {
  const { store: storeConfig, memory } = config;
  if (storeConfig.kind === "sql") return new SqlConversationStore(sql, memory);
  // supabase-js is loaded only by deployments that use it.
  let loading: Promise<ConversationStore> | undefined;
  const load = () =>
    loading ??= import("./adapters/supabase/supabase_conversation_store.ts").then(
      ({ SupabaseConversationStore }) => new SupabaseConversationStore({ ...storeConfig, memory }),
    );
  return {
    loadContext: async (input) => (await load()).loadContext(input),
    saveTurn: async (input) => (await load()).saveTurn(input),
  };
}

async function openDatabase(config: Config, logger: Logger): Promise<Sql> {
  const started = performance.now();
  let sql: Sql;
  if (config.database.kind === "postgres") {
    const { PostgresSql } = await import("./adapters/postgres/postgres_sql.ts");
    sql = new PostgresSql({ url: config.database.url });
  } else {
    const { PgliteSql } = await import("./adapters/pglite/pglite_sql.ts");
    sql = await PgliteSql.open({ dataDir: config.database.dataDir });
  }
  if (config.migrate) {
    const applied = await applyMigrations(sql);
    if (applied.length > 0) logger.info("applied migrations", { versions: applied });
  }
  // PGlite runs no autovacuum; fresh statistics let the planner pick the vector index.
  if (config.database.kind === "pglite") await sql.exec("analyze");
  logger.info("database ready", {
    kind: config.database.kind,
    ms: Math.round(performance.now() - started),
  });
  return sql;
}
