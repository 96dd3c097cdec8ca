/**
 * Configuration from environment variables: the only module that reads them.
 * Every setting is checked at start-up; a bad value stops start-up with a
 * message naming the variable. Each section is read by its own module.
 */
import type { LogLevel } from "../log/console_logger.ts";
import type { LoopOptions } from "../loop/runner.ts";
import type { LoopType } from "../store/refinement_store_port.ts";
import type { LoopSettings } from "../refinement/policy.ts";
import type { MemoryOptions } from "../store/sql_conversation_store.ts";
import type { ToolPolicyRules } from "../tools/tool_policy.ts";
import type { ToolSearchOptions } from "../loop/tool_selection.ts";
import { type AuthConfig, readAuth } from "./auth_config.ts";
import {
  type CompactionConfig,
  type CostConfig,
  readCompaction,
  readCosts,
} from "./token_config.ts";
import { type Env, EnvReader } from "./env_reader.ts";
import { type HttpConfig, readHttp } from "./http_config.ts";
import {
  readLoop,
  readRefinement,
  readRuns,
  readToolPolicy,
  readToolSearch,
  type RunsConfig,
} from "./loop_config.ts";
import { type McpConfig, readMcp } from "./mcp_config.ts";
import { type ModelConfig, readModels } from "./model_config.ts";
import { readMemory, readWorkingMemorySchema } from "./memory_config.ts";
import { type OAuthConfig, readOAuth } from "./oauth_config.ts";
import { type DatabaseConfig, readDatabase, readStore, type StoreConfig } from "./store_config.ts";
import { hasSupabaseSettings, readProjectKeys, readSupabaseApi } from "./supabase_settings.ts";

/** The whole configuration. */
export interface Config {
  port: number;
  database: DatabaseConfig;
  /** Apply `supabase/migrations/` at start-up. */
  migrate: boolean;
  /** Where conversations go: SQL on `database` (default) or Supabase's API as the caller. */
  store: StoreConfig;
  /** The project's API, for tools that act as the caller (`supabase` in a tool's `run`). */
  supabaseApi?: { url: string; publishableKey: string };
  loop: LoopOptions;
  memory: MemoryOptions;
  /** The JSON Schema of working memory (`MCP_LOOP_WORKING_MEMORY_SCHEMA`). */
  workingMemorySchema: Record<string, unknown>;
  http: HttpConfig;
  auth: AuthConfig;
  models: ModelConfig;
  /** Quality threshold and iteration limit per refinement loop type. */
  refinement: Record<LoopType, LoopSettings>;
  mcp: McpConfig;
  /** Sign-in discovery for MCP clients (RFC 9728 protected-resource metadata). */
  oauth: OAuthConfig;
  /** Which tools each request mode and each caller may use (`MCP_LOOP_TOOL_POLICY`). */
  toolPolicy: ToolPolicyRules;
  /** Tool search above a catalog size (`MCP_LOOP_TOOL_SEARCH_THRESHOLD`, `..._TOP_K`). */
  toolSearch: ToolSearchOptions;
  /** Prices and run budgets (`MCP_LOOP_PRICES`, `MCP_LOOP_MAX_TOKENS`, `MCP_LOOP_MAX_COST_USD`). */
  costs: CostConfig;
  /** Summaries of long sessions (`MCP_LOOP_COMPACT_AFTER_TOKENS`, `MCP_LOOP_SUMMARY_TOKENS`). */
  compaction: CompactionConfig;
  /** Approvals and background continuation of persisted runs. */
  runs: RunsConfig;
  logLevel: LogLevel;
}

/**
 * The configuration of this process's environment; prints the problems and
 * exits when it is invalid (for entry points).
 */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig(Deno.env.toObject());
  } catch (error) {
    console.error((error as Error).message);
    Deno.exit(1);
  }
}

/** Facts about where the process runs that the environment variables do not say. */
export interface RuntimeFacts {
  /** Running under Supabase's Edge Runtime (`EdgeRuntime` is defined): no disk, no workers. */
  edgeRuntime?: boolean;
}

/** Reads and checks the configuration; throws CONFIG_INVALID listing every bad variable. */
export function loadConfig(env: Env, { edgeRuntime = false }: RuntimeFacts = {}): Config {
  const reader = new EnvReader(env);
  // On Supabase (its settings present, or its runtime): migrations are `supabase db push`'s
  // job, and every isolate of a scaled-out function holds its own connections.
  const onSupabase = edgeRuntime || hasSupabaseSettings(reader);
  const database = readDatabase(reader, { deployed: onSupabase });
  if (edgeRuntime && database.kind === "pglite") {
    reader.problem(
      "Supabase's edge runtime cannot run PGlite (it needs a worker thread and a disk): set DATABASE_URL, or leave SUPABASE_DB_URL as Supabase sets it",
    );
  }
  const keys = readProjectKeys(reader);
  const config: Config = {
    port: reader.int("PORT", { fallback: 8000, min: 0, max: 65_535 }),
    database,
    migrate: readMigrate(reader, { database, onSupabase, edgeRuntime }),
    store: readStore(reader, keys),
    supabaseApi: readSupabaseApi(reader, keys),
    loop: readLoop(reader),
    memory: readMemory(reader),
    workingMemorySchema: readWorkingMemorySchema(reader),
    http: readHttp(reader),
    auth: readAuth(reader, keys),
    models: readModels(reader),
    refinement: readRefinement(reader),
    mcp: readMcp(reader, keys),
    oauth: readOAuth(reader),
    toolPolicy: readToolPolicy(reader),
    toolSearch: readToolSearch(reader),
    costs: readCosts(reader),
    compaction: readCompaction(reader),
    runs: readRuns(reader),
    logLevel: reader.oneOf(
      "MCP_LOOP_LOG_LEVEL",
      ["debug", "info", "warn", "error", "silent"],
      "info",
    ),
  };
  reader.throwIfInvalid();
  return config;
}

/**
 * `MCP_LOOP_MIGRATE`: apply `supabase/migrations/` at start-up. Off by default for
 * Postgres on Supabase, where `supabase db push` applies them (PGlite is this
 * process's own: always migrated); refused on the edge runtime, whose bundle has
 * no migration files to read.
 */
function readMigrate(
  reader: EnvReader,
  { database, onSupabase, edgeRuntime }: {
    database: DatabaseConfig;
    onSupabase: boolean;
    edgeRuntime: boolean;
  },
): boolean {
  const migrate = reader.bool("MCP_LOOP_MIGRATE", {
    fallback: database.kind === "pglite" || !onSupabase,
  });
  if (migrate && edgeRuntime) {
    reader.problem(
      "MCP_LOOP_MIGRATE=true cannot work on Supabase's edge runtime: the deployed function has no supabase/migrations/ to read. Apply the migrations with `supabase db push` and unset MCP_LOOP_MIGRATE",
    );
  }
  return migrate;
}

/** Every secret value in the configuration, so logs can redact them. */
export function configSecrets(config: Config): string[] {
  const { store, auth, models, mcp } = config;
  return [
    models.openai?.apiKey,
    models.embeddings?.apiKey,
    auth.jwtSecret,
    ...auth.apiKeys.values(),
    ...auth.projectSecretKeys,
    store.kind === "supabase" ? store.secretKey : undefined,
    ...mcp.remoteServers.flatMap((server) => Object.values(server.headers)),
    mcp.bridgeToken,
    mcp.requestStateKey?.secret,
    config.database.kind === "postgres" ? config.database.url : undefined,
  ].filter((secret): secret is string => typeof secret === "string" && secret.length > 0);
}
