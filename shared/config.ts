/**
 * Configuration from environment variables: the only module that reads them.
 * Every setting is checked at start-up; a bad value stops start-up with a
 * message naming the variable.
 */
import { AppError } from "./errors.ts";
import { DEFAULT_LOOP_OPTIONS, type LoopOptions } from "./loop/runner.ts";
import type { LoopType } from "./ports.ts";
import { DEFAULT_LOOP_SETTINGS, LOOP_TYPES, type LoopSettings } from "./refinement/policy.ts";
import { DEFAULT_MEMORY_OPTIONS, type MemoryOptions } from "./store/sql_conversation_store.ts";

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
  /** API keys by name, from `MCP_LOOP_API_KEYS`. */
  apiKeys: Map<string, string>;
  /** Refuse requests without a valid credential. */
  required: boolean;
}

/** Environment variables as a plain object. */
export type Env = Record<string, string | undefined>;

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
      corsOrigins: readOrigins(reader.string("MCP_LOOP_CORS_ORIGINS") ?? "*"),
    },
    auth: readAuth(reader),
    models: readModels(reader),
    refinement: readRefinement(reader),
    mcp: readMcp(reader),
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

function readMcp(reader: EnvReader): McpConfig {
  const list = (name: string) =>
    (reader.string(name) ?? "").split(",").map((entry) => entry.trim()).filter(Boolean);
  const hosts = list("MCP_LOOP_ALLOWED_HOSTS");
  const supabaseHost = hostOf(reader.string("SUPABASE_URL"));
  const allowedHosts = hosts.includes("*") ? "*" as const : [
    ...new Set([
      "localhost",
      "127.0.0.1",
      "::1",
      ...(supabaseHost ? [supabaseHost] : []),
      ...hosts,
    ]),
  ];
  return {
    allowedHosts,
    allowedOrigins: list("MCP_LOOP_ALLOWED_ORIGINS"),
    remoteServers: readRemoteServers(reader),
    remoteRetryMs: reader.int("MCP_LOOP_REMOTE_RETRY_MS", {
      fallback: 1_000,
      min: 10,
      max: 600_000,
    }),
  };
}

function readRemoteServers(reader: EnvReader): RemoteServerConfig[] {
  const raw = reader.string("MCP_LOOP_REMOTE_SERVERS");
  if (!raw) return [];
  const problem = (why: string) => {
    reader.problem(
      `MCP_LOOP_REMOTE_SERVERS ${why}; expected JSON like [{"name":"everything","url":"http://host/mcp","headers":{}}]`,
    );
    return [];
  };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return problem("is not valid JSON");
  }
  if (!Array.isArray(parsed)) return problem("must be a JSON array");
  const servers: RemoteServerConfig[] = [];
  for (const [index, entry] of parsed.entries()) {
    const { name, url, headers = {} } = (entry ?? {}) as Record<string, unknown>;
    if (typeof name !== "string" || !/^[A-Za-z0-9_-]{1,30}$/.test(name)) {
      return problem(`[${index}].name must be 1-30 letters, digits, "_" or "-"`);
    }
    if (typeof url !== "string" || !/^https?:\/\//.test(url) || !URL.canParse(url)) {
      return problem(`[${index}].url must be an http(s) URL`);
    }
    if (
      typeof headers !== "object" || headers === null ||
      Object.values(headers).some((v) => typeof v !== "string")
    ) {
      return problem(`[${index}].headers must be an object of strings`);
    }
    if (servers.some((s) => s.name === name)) return problem(`names server "${name}" twice`);
    servers.push({ name, url, headers: headers as Record<string, string> });
  }
  return servers;
}

function hostOf(url: string | undefined): string | undefined {
  if (!url || !URL.canParse(url)) return undefined;
  return new URL(url).hostname;
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

function readModels(reader: EnvReader): ModelConfig {
  const apiKey = reader.string("OPENAI_API_KEY");
  const baseUrl = reader.string("OPENAI_BASE_URL");
  const openai = apiKey || baseUrl
    ? {
      apiKey,
      baseUrl,
      timeoutMs: reader.int("MCP_LOOP_MODEL_TIMEOUT_MS", {
        fallback: 30_000,
        min: 100,
        max: 600_000,
      }),
      maxRetries: reader.int("MCP_LOOP_MODEL_MAX_RETRIES", { fallback: 2, min: 0, max: 10 }),
    }
    : undefined;
  const embedderChoice = reader.oneOf("MCP_LOOP_EMBEDDER", [
    "auto",
    "openai",
    "hashing",
    "gte-small",
  ], "auto");
  const plannerChoice = reader.oneOf("MCP_LOOP_PLANNER", ["auto", "chat", "heuristic"], "auto");
  const embedder = embedderChoice === "auto" ? (openai ? "openai" : "hashing") : embedderChoice;
  const planner = plannerChoice === "auto" ? (openai ? "chat" : "heuristic") : plannerChoice;
  if (!openai && (embedder === "openai" || planner === "chat")) {
    reader.problem(
      `${
        embedder === "openai" ? "MCP_LOOP_EMBEDDER=openai" : "MCP_LOOP_PLANNER=chat"
      } needs OPENAI_API_KEY (or OPENAI_BASE_URL for a local server)`,
    );
  }
  const dimensions = reader.string("MCP_LOOP_EMBEDDING_DIMENSIONS") === undefined
    ? undefined
    : reader.int("MCP_LOOP_EMBEDDING_DIMENSIONS", { fallback: 1536, min: 1, max: 1536 });
  return {
    openai,
    embedder,
    embeddingModel: reader.string("MCP_LOOP_EMBEDDING_MODEL") ?? "text-embedding-3-small",
    embeddingDimensions: dimensions,
    planner,
    chat: {
      model: reader.string("MCP_LOOP_CHAT_MODEL") ?? "gpt-4o",
      temperature: reader.number("MCP_LOOP_CHAT_TEMPERATURE", { fallback: 0.3, min: 0, max: 2 }),
      maxTokens: reader.int("MCP_LOOP_CHAT_MAX_TOKENS", { fallback: 1_000, min: 16, max: 32_000 }),
      responseFormat: reader.oneOf(
        "MCP_LOOP_RESPONSE_FORMAT",
        ["json_schema", "json_object", "none"],
        "json_schema",
      ),
    },
    promptContextTokens: reader.int("MCP_LOOP_PROMPT_CONTEXT_TOKENS", {
      fallback: 2_000,
      min: 100,
      max: 100_000,
    }),
  };
}

function readStore(reader: EnvReader): StoreConfig {
  const kind = reader.oneOf("MCP_LOOP_STORE", ["sql", "supabase"], "sql");
  if (kind === "sql") return { kind };
  const url = reader.string("SUPABASE_URL");
  const publishableKey = reader.string("SUPABASE_ANON_KEY") ??
    readKeySet(reader, "SUPABASE_PUBLISHABLE_KEYS");
  const secretKey = reader.string("SUPABASE_SERVICE_ROLE_KEY") ??
    readKeySet(reader, "SUPABASE_SECRET_KEYS");
  if (!url || !publishableKey) {
    reader.problem(
      "MCP_LOOP_STORE=supabase needs SUPABASE_URL and SUPABASE_ANON_KEY (or SUPABASE_PUBLISHABLE_KEYS)",
    );
    return { kind: "sql" };
  }
  return { kind, url, publishableKey, secretKey };
}

/** The "default" key of a Supabase key set (`{"default":"sb_..."}`). */
function readKeySet(reader: EnvReader, name: string): string | undefined {
  const raw = reader.string(name);
  if (!raw) return undefined;
  try {
    const keys = JSON.parse(raw) as Record<string, string>;
    return keys.default ?? Object.values(keys)[0];
  } catch {
    reader.problem(`${name} must be a JSON object of named keys, like {"default":"sb_..."}`);
    return undefined;
  }
}

function readAuth(reader: EnvReader): AuthConfig {
  const apiKeys = new Map<string, string>();
  const entries = (reader.string("MCP_LOOP_API_KEYS") ?? "").split(",").map((e) => e.trim()).filter(
    Boolean,
  );
  entries.forEach((entry, index) => {
    const separator = entry.indexOf("=");
    const [name, key] = separator > 0
      ? [entry.slice(0, separator), entry.slice(separator + 1)]
      : [`key${index + 1}`, entry];
    if (key.length < 16) {
      reader.problem(`MCP_LOOP_API_KEYS: the key named "${name}" is shorter than 16 characters`);
    }
    apiKeys.set(name, key);
  });
  return {
    jwtSecret: reader.string("MCP_LOOP_JWT_SECRET") ?? reader.string("SUPABASE_JWT_SECRET"),
    jwks: readJwks(reader),
    apiKeys,
    required: reader.bool("MCP_LOOP_REQUIRE_AUTH", { fallback: apiKeys.size > 0 }),
  };
}

function readJwks(reader: EnvReader): JsonWebKey[] | undefined {
  const raw = reader.string("SUPABASE_JWKS");
  if (!raw) return undefined;
  try {
    const parsed = JSON.parse(raw);
    const keys = Array.isArray(parsed) ? parsed : parsed?.keys;
    if (Array.isArray(keys)) return keys as JsonWebKey[];
  } catch {
    // reported below
  }
  reader.problem('SUPABASE_JWKS must be a JSON Web Key Set: {"keys":[...]} or [...]');
  return undefined;
}

function readOrigins(value: string): "*" | string[] {
  const origins = value.split(",").map((origin) => origin.trim()).filter(Boolean);
  return origins.length === 0 || origins.includes("*") ? "*" : origins;
}

/** Reads typed values and collects every problem before failing. */
export class EnvReader {
  readonly #env: Env;
  readonly #problems: string[] = [];

  constructor(env: Env) {
    this.#env = env;
  }

  /** The trimmed value, or undefined when unset or blank. */
  string(name: string): string | undefined {
    const value = this.#env[name]?.trim();
    return value ? value : undefined;
  }

  int(
    name: string,
    { fallback, min, max }: { fallback: number; min: number; max: number },
  ): number {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!/^-?\d+$/.test(raw) || value < min || value > max) {
      this.#problems.push(`${name} must be an integer from ${min} to ${max}; got "${raw}"`);
      return fallback;
    }
    return value;
  }

  number(
    name: string,
    { fallback, min, max }: { fallback: number; min: number; max: number },
  ): number {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < min || value > max) {
      this.#problems.push(`${name} must be a number from ${min} to ${max}; got "${raw}"`);
      return fallback;
    }
    return value;
  }

  bool(name: string, { fallback }: { fallback: boolean }): boolean {
    const raw = this.string(name)?.toLowerCase();
    if (raw === undefined) return fallback;
    if (["1", "true", "yes", "on"].includes(raw)) return true;
    if (["0", "false", "no", "off"].includes(raw)) return false;
    this.#problems.push(`${name} must be true or false; got "${raw}"`);
    return fallback;
  }

  oneOf<T extends string>(name: string, values: readonly T[], fallback: T): T {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    if ((values as readonly string[]).includes(raw)) return raw as T;
    this.#problems.push(`${name} must be one of ${values.join(", ")}; got "${raw}"`);
    return fallback;
  }

  /** Records a problem found by a caller's own check. */
  problem(message: string): void {
    this.#problems.push(message);
  }

  /** Throws CONFIG_INVALID listing every problem, if there were any. */
  throwIfInvalid(): void {
    if (this.#problems.length === 0) return;
    throw new AppError(
      "CONFIG_INVALID",
      `Invalid configuration:\n- ${this.#problems.join("\n- ")}`,
      { details: { problems: [...this.#problems] } },
    );
  }
}
