/**
 * The configuration: environment variables for what differs between
 * deployments (secrets, URLs, models, the limits an operator tunes — this is
 * the only module that reads them), typed options for the rest
 * (config_options.ts), and the runtime the entry detected. Every setting is
 * checked at start-up; a bad value stops start-up with a message naming the
 * variable or option. Each section is read by its own module.
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
import type { ConfigOptions } from "./config_options.ts";
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
  /** The JSON Schema of working memory (option `workingMemorySchema`). */
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
  /** Tool search above a catalog size (options `toolSearch.*`). */
  toolSearch: ToolSearchOptions;
  /** Prices and run budgets (`MCP_LOOP_MAX_COST_USD`, options `costs.*`). */
  costs: CostConfig;
  /** Summaries of long sessions (options `compaction.*`). */
  compaction: CompactionConfig;
  /** Approvals and background continuation of persisted runs. */
  runs: RunsConfig;
  logLevel: LogLevel;
}

/**
 * The configuration of this process's environment; prints the problems and
 * exits when it is invalid (for entry points).
 */
export function loadConfigOrExit(facts: ConfigFacts = {}): Config {
  try {
    return loadConfig(Deno.env.toObject(), facts);
  } catch (error) {
    console.error((error as Error).message);
    Deno.exit(1);
  }
}

/**
 * Where the function runs, detected once by its entry and passed down:
 * `edge` is Supabase's Edge Runtime (no disk, no workers; background work is
 * kept alive with `EdgeRuntime.waitUntil`), `local` anything else.
 */
export type Runtime = "edge" | "local";

/** What the environment variables do not say: the runtime, and the options given in code. */
export interface ConfigFacts {
  runtime?: Runtime;
  options?: ConfigOptions;
}

/** Reads and checks the configuration; throws CONFIG_INVALID listing every problem. */
export function loadConfig(
  env: Env,
  { runtime = "local", options = {} }: ConfigFacts = {},
): Config {
  const reader = new EnvReader(env);
  const edge = runtime === "edge";
  // On Supabase (its settings present, or its runtime): migrations are `supabase db push`'s
  // job, and every isolate of a scaled-out function holds its own connections.
  const onSupabase = edge || hasSupabaseSettings(reader);
  const database = readDatabase(reader, { deployed: onSupabase });
  if (edge && database.kind === "pglite") {
    reader.problem(
      "Supabase's edge runtime cannot run PGlite (it needs a worker thread and a disk): set DATABASE_URL, or leave SUPABASE_DB_URL as Supabase sets it",
    );
  }
  const keys = readProjectKeys(reader);
  const config: Config = {
    port: reader.int("PORT", { fallback: 8000, min: 0, max: 65_535 }),
    database,
    migrate: readMigrate(reader, { database, onSupabase, edge, migrate: options.migrate }),
    store: readStore(reader, keys),
    supabaseApi: readSupabaseApi(reader, keys),
    loop: readLoop(reader, options.loop),
    memory: readMemory(reader, options.memory),
    workingMemorySchema: readWorkingMemorySchema(reader, options.workingMemorySchema),
    http: readHttp(reader, { options: options.http, edge }),
    auth: readAuth(reader, keys, options.auth),
    models: readModels(reader, { options: options.models, edge }),
    refinement: readRefinement(reader),
    mcp: readMcp(reader, keys, options.mcp),
    oauth: readOAuth(reader, options.oauth),
    toolPolicy: readToolPolicy(reader),
    toolSearch: readToolSearch(reader, options.toolSearch),
    costs: readCosts(reader, options.costs),
    compaction: readCompaction(reader, options.compaction),
    runs: readRuns(reader, { options: options.runs, edge }),
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
 * Option `migrate`: apply `supabase/migrations/` at start-up. Off by default
 * for Postgres on Supabase, where `supabase db push` applies them (PGlite is
 * this process's own: always migrated); refused on the edge runtime, whose
 * bundle has no migration files to read.
 */
function readMigrate(
  reader: EnvReader,
  { database, onSupabase, edge, migrate }: {
    database: DatabaseConfig;
    onSupabase: boolean;
    edge: boolean;
    migrate?: boolean;
  },
): boolean {
  const apply = migrate ?? (database.kind === "pglite" || !onSupabase);
  if (apply && edge) {
    reader.problem(
      "option migrate cannot work on Supabase's edge runtime: the deployed function has no supabase/migrations/ to read. Apply the migrations with `supabase db push`",
    );
  }
  return apply;
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
    mcp.requestStateKey?.secret,
    config.database.kind === "postgres" ? config.database.url : undefined,
  ].filter((secret): secret is string => typeof secret === "string" && secret.length > 0);
}
