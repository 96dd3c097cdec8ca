/**
 * Configuration from environment variables: the only module that reads them.
 * Every setting is checked at start-up; a bad value stops start-up with a
 * message naming the variable.
 */
import {
  hasSupabaseSettings,
  readAuth,
  readMcp,
  readModels,
  readStore,
} from "./config_sections.ts";
import { type Env, EnvReader } from "./env_reader.ts";
import { DEFAULT_LOOP_OPTIONS, type LoopOptions } from "./loop/runner.ts";
import type { LoopType } from "./ports.ts";
import { DEFAULT_LOOP_SETTINGS, LOOP_TYPES, type LoopSettings } from "./refinement/policy.ts";
import { DEFAULT_MEMORY_OPTIONS, type MemoryOptions } from "./store/sql_conversation_store.ts";
import { ToolPolicyRules } from "./tools/tool_policy.ts";

/** Where the data lives. */
export type DatabaseConfig =
  | { kind: "pglite"; dataDir: string }
  | { kind: "postgres"; url: string; source: "DATABASE_URL" | "SUPABASE_DB_URL" };

/** The conversation store. */
export type StoreConfig =
  | { kind: "sql" }
  | { kind: "supabase"; url: string; publishableKey: string; secretKey?: string };

/** Log verbosity. */
export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";

/** The whole configuration. */
export interface Config {
  port: number;
  database: DatabaseConfig;
  /** Apply `supabase/migrations/` at start-up. */
  migrate: boolean;
  /** Where conversations go: SQL on `database` (default) or Supabase's API as the caller. */
  store: StoreConfig;
  loop: LoopOptions;
  memory: MemoryOptions;
  http: { maxBodyBytes: number; corsOrigins: "*" | string[] };
  auth: AuthConfig;
  models: ModelConfig;
  /** Quality threshold and iteration limit per refinement loop type. */
  refinement: Record<LoopType, LoopSettings>;
  mcp: McpConfig;
  /** Which tools each request mode and each caller may use (`MCP_LOOP_TOOL_POLICY`). */
  toolPolicy: ToolPolicyRules;
  logLevel: LogLevel;
}

/** The MCP endpoint and the remote MCP servers used as tool sources. */
export interface McpConfig {
  /** Host names requests may be addressed to; "*" turns the DNS-rebinding check off. */
  allowedHosts: "*" | string[];
  /** Origins allowed besides those on an allowed host. */
  allowedOrigins: string[];
  remoteServers: RemoteServerConfig[];
  /** First retry delay for a remote server that is down (doubling up to a minute). */
  remoteRetryMs: number;
}

/** One remote MCP server whose tools are registered as `<name>__<tool>`. */
export interface RemoteServerConfig {
  name: string;
  url: string;
  headers: Record<string, string>;
}

/** Which embedder, planner and chat model to use. */
export interface ModelConfig {
  /** Set when OPENAI_API_KEY or OPENAI_BASE_URL is. */
  openai?: { apiKey?: string; baseUrl?: string; timeoutMs: number; maxRetries: number };
  embedder: "hashing" | "openai" | "gte-small";
  embeddingModel: string;
  /** Ask the embedding model for this many dimensions (text-embedding-3 models support it). */
  embeddingDimensions?: number;
  planner: "heuristic" | "chat";
  chat: {
    model: string;
    temperature: number;
    maxTokens: number;
    responseFormat: "json_schema" | "json_object" | "none";
  };
  /** Token budget of the context in the planner prompt. */
  promptContextTokens: number;
}

/** How callers are authenticated. */
export interface AuthConfig {
  /** Legacy HS256 JWT secret (`SUPABASE_JWT_SECRET`). */
  jwtSecret?: string;
  /** Public keys from `SUPABASE_JWKS` (set automatically on Supabase). */
  jwks?: JsonWebKey[];
  /** The JWKS endpoint (`MCP_LOOP_JWKS_URL`, else derived from `SUPABASE_URL`). */
  jwksUrl?: string;
  /** What a user token's `aud` must contain (`MCP_LOOP_JWT_AUDIENCE`). */
  audience: string;
  /** What a token's `iss` must be, when set (`MCP_LOOP_JWT_ISSUER`). */
  issuer?: string;
  /** The project's secret API keys (`sb_secret_…`), accepted as the service role. */
  projectSecretKeys: string[];
  /** API keys by name, from `MCP_LOOP_API_KEYS`. */
  apiKeys: Map<string, string>;
  /** Refuse requests without a valid credential (default: when API keys or Supabase settings are set). */
  required: boolean;
}

/** Environment variables as a plain object. */
export type { Env } from "./env_reader.ts";

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

/** Reads and checks the configuration; throws CONFIG_INVALID listing every bad variable. */
export function loadConfig(env: Env): Config {
  const reader = new EnvReader(env);
  const database = readDatabase(reader);
  const config: Config = {
    port: reader.int("PORT", { fallback: 8000, min: 0, max: 65_535 }),
    database,
    migrate: reader.bool("MCP_LOOP_MIGRATE", {
      // Supabase applies migrations with `supabase db push`; elsewhere we apply them.
      fallback: !(database.kind === "postgres" && database.source === "SUPABASE_DB_URL"),
    }),
    store: readStore(reader),
    loop: {
      deadlineMs: reader.int("MCP_LOOP_DEADLINE_MS", {
        fallback: DEFAULT_LOOP_OPTIONS.deadlineMs,
        min: 100,
        max: 600_000,
      }),
      stepTimeoutMs: reader.int("MCP_LOOP_STEP_TIMEOUT_MS", {
        fallback: DEFAULT_LOOP_OPTIONS.stepTimeoutMs,
        min: 10,
        max: 600_000,
      }),
      unknownTool: reader.oneOf(
        "MCP_LOOP_UNKNOWN_TOOL",
        ["skip", "fail"],
        DEFAULT_LOOP_OPTIONS.unknownTool,
      ),
      invalidArgs: reader.oneOf(
        "MCP_LOOP_INVALID_ARGS",
        ["fail", "skip"],
        DEFAULT_LOOP_OPTIONS.invalidArgs,
      ),
    },
    memory: {
      recentLimit: reader.int("MCP_LOOP_RECENT_LIMIT", {
        fallback: DEFAULT_MEMORY_OPTIONS.recentLimit,
        min: 0,
        max: 100,
      }),
      matchCount: reader.int("MCP_LOOP_MATCH_COUNT", {
        fallback: DEFAULT_MEMORY_OPTIONS.matchCount,
        min: 0,
        max: 50,
      }),
      matchThreshold: reader.number("MCP_LOOP_MATCH_THRESHOLD", {
        fallback: DEFAULT_MEMORY_OPTIONS.matchThreshold,
        min: -1,
        max: 1,
      }),
      scope: reader.oneOf(
        "MCP_LOOP_MEMORY_SCOPE",
        ["session", "user"],
        DEFAULT_MEMORY_OPTIONS.scope,
      ),
    },
    http: {
      maxBodyBytes: reader.int("MCP_LOOP_MAX_BODY_BYTES", {
        fallback: 1_048_576,
        min: 1_024,
        max: 16_777_216,
      }),
      corsOrigins: readOrigins(reader),
    },
    auth: readAuth(reader),
    models: readModels(reader),
    refinement: readRefinement(reader),
    mcp: readMcp(reader),
    toolPolicy: readToolPolicy(reader),
    logLevel: reader.oneOf(
      "MCP_LOOP_LOG_LEVEL",
      ["debug", "info", "warn", "error", "silent"],
      "info",
    ),
  };
  reader.throwIfInvalid();
  return config;
}

function readDatabase(reader: EnvReader): DatabaseConfig {
  const databaseUrl = reader.string("DATABASE_URL");
  if (databaseUrl) return { kind: "postgres", url: databaseUrl, source: "DATABASE_URL" };
  const supabaseUrl = reader.string("SUPABASE_DB_URL");
  if (supabaseUrl) return { kind: "postgres", url: supabaseUrl, source: "SUPABASE_DB_URL" };
  return { kind: "pglite", dataDir: reader.string("MCP_LOOP_DATA_DIR") ?? "./.data/pglite" };
}

/** FSDD_LOOP_<TYPE>_THRESHOLD (1–100) and FSDD_LOOP_<TYPE>_MAX_ITERATIONS (1–20), as in the specification. */
function readRefinement(reader: EnvReader): Record<LoopType, LoopSettings> {
  const entries = LOOP_TYPES.map((type) => {
    const prefix = `FSDD_LOOP_${type.toUpperCase()}`;
    const defaults = DEFAULT_LOOP_SETTINGS[type];
    return [type, {
      threshold: reader.int(`${prefix}_THRESHOLD`, {
        fallback: defaults.threshold,
        min: 1,
        max: 100,
      }),
      maxIterations: reader.int(`${prefix}_MAX_ITERATIONS`, {
        fallback: defaults.maxIterations,
        min: 1,
        max: 20,
      }),
    }] as const;
  });
  return Object.fromEntries(entries) as Record<LoopType, LoopSettings>;
}

/** MCP_LOOP_TOOL_POLICY: `{"modes":{"<mode>":["tool", "prefix*"]},"callers":{"key:<name>":[...]}}`. */
function readToolPolicy(reader: EnvReader): ToolPolicyRules {
  const raw = reader.string("MCP_LOOP_TOOL_POLICY");
  if (!raw) return { modes: {}, callers: {} };
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    reader.problem(
      'MCP_LOOP_TOOL_POLICY must be JSON like {"modes":{"candidate":["finalize_summary"]},"callers":{"anonymous":["finalize_summary"]}}',
    );
    return { modes: {}, callers: {} };
  }
  const parsed = ToolPolicyRules.safeParse(json);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues.slice(0, 5)) {
    // A bad record key carries its reason one level down.
    const message = issue.code === "invalid_key" ? issue.issues[0]?.message : issue.message;
    reader.problem(
      `MCP_LOOP_TOOL_POLICY: ${issue.path.join(".") || "(root)"}: ${message ?? issue.message}`,
    );
  }
  return { modes: {}, callers: {} };
}

/**
 * MCP_LOOP_CORS_ORIGINS: "*" or a comma-separated list of origins. Unset, it
 * is "*" locally (the local Supabase stack included) and empty (no
 * cross-origin browser calls) once deployed Supabase settings are present.
 */
function readOrigins(reader: EnvReader): "*" | string[] {
  const raw = reader.string("MCP_LOOP_CORS_ORIGINS");
  // `supabase functions serve` sets SUPABASE_URL to the local stack: still local.
  const local = /^https?:\/\/(kong|localhost|127\.0\.0\.1|host\.docker\.internal)(:\d+)?\/?$/
    .test(reader.string("SUPABASE_URL") ?? "");
  if (raw === undefined) return hasSupabaseSettings(reader) && !local ? [] : "*";
  const entries = raw.split(",").map((origin) => origin.trim()).filter(Boolean);
  if (entries.includes("*")) return "*";
  return entries.flatMap((entry) => {
    try {
      const url = new URL(entry);
      if (/^https?:$/.test(url.protocol) && url.pathname === "/" && !url.search) {
        return [url.origin];
      }
    } catch {
      // reported below
    }
    reader.problem(
      `MCP_LOOP_CORS_ORIGINS: "${entry}" is not an origin; use scheme://host[:port], like https://app.example.com`,
    );
    return [];
  });
}

/** Every secret value in the configuration, so logs can redact them. */
export function configSecrets(config: Config): string[] {
  const { store, auth, models, mcp } = config;
  return [
    models.openai?.apiKey,
    auth.jwtSecret,
    ...auth.apiKeys.values(),
    ...auth.projectSecretKeys,
    store.kind === "supabase" ? store.secretKey : undefined,
    ...mcp.remoteServers.flatMap((server) => Object.values(server.headers)),
    config.database.kind === "postgres" ? config.database.url : undefined,
  ].filter((secret): secret is string => typeof secret === "string" && secret.length > 0);
}
