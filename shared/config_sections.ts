/**
 * The configuration sections of the integrations — models, stores, auth and
 * MCP — read from environment variables (config.ts assembles the whole).
 */
import type {
  AuthConfig,
  McpConfig,
  ModelConfig,
  RemoteServerConfig,
  StoreConfig,
} from "./config.ts";
import type { EnvReader } from "./env_reader.ts";

/**
 * Supabase settings are present (the function is deployed, or configured like
 * it): then anonymous calls and any-origin CORS are off unless turned on.
 */
export function hasSupabaseSettings(reader: EnvReader): boolean {
  return ["SUPABASE_URL", "SUPABASE_DB_URL", "SUPABASE_JWT_SECRET", "SUPABASE_JWKS"]
    .some((name) => Boolean(reader.string(name)));
}

/** The MCP endpoint's allow-lists and the remote MCP servers. */
export function readMcp(reader: EnvReader): McpConfig {
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

/** Which embedder, planner and chat model, and their settings. */
export function readModels(reader: EnvReader): ModelConfig {
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

/** Where conversations are stored. */
export function readStore(reader: EnvReader): StoreConfig {
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

/** Every `sb_secret_…` key of the project (`SUPABASE_SECRET_KEYS`, or a new-style service role key). */
function readProjectSecretKeys(reader: EnvReader): string[] {
  // readKeySet reports a bad value when the store needs it; here it only adds keys.
  const keys = Object.values(parseKeySet(reader.string("SUPABASE_SECRET_KEYS")) ?? {});
  const serviceRole = reader.string("SUPABASE_SERVICE_ROLE_KEY");
  if (serviceRole) keys.push(serviceRole);
  return keys.map(String).filter((key) => key.startsWith("sb_secret_"));
}

/** The "default" key of a Supabase key set (`{"default":"sb_..."}`). */
function readKeySet(reader: EnvReader, name: string): string | undefined {
  const raw = reader.string(name);
  if (!raw) return undefined;
  const keys = parseKeySet(raw);
  if (keys) return keys.default ?? Object.values(keys)[0];
  reader.problem(`${name} must be a JSON object of named keys, like {"default":"sb_..."}`);
  return undefined;
}

/** A Supabase key set (`{"default":"sb_..."}`), or undefined when absent or not one. */
function parseKeySet(raw: string | undefined): Record<string, string> | undefined {
  if (!raw) return undefined;
  try {
    const keys = JSON.parse(raw);
    return typeof keys === "object" && keys !== null && !Array.isArray(keys) ? keys : undefined;
  } catch {
    return undefined;
  }
}

/** API keys and JWT verification. */
export function readAuth(reader: EnvReader): AuthConfig {
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
    jwksUrl: readJwksUrl(reader),
    audience: reader.string("MCP_LOOP_JWT_AUDIENCE") ?? "authenticated",
    issuer: reader.string("MCP_LOOP_JWT_ISSUER"),
    projectSecretKeys: readProjectSecretKeys(reader),
    apiKeys,
    required: reader.bool("MCP_LOOP_REQUIRE_AUTH", {
      fallback: apiKeys.size > 0 || hasSupabaseSettings(reader),
    }),
  };
}

/**
 * The JWKS endpoint: `MCP_LOOP_JWKS_URL`, else the project's own
 * (`<SUPABASE_URL>/auth/v1/.well-known/jwks.json`); fetched only when a token needs it.
 */
function readJwksUrl(reader: EnvReader): string | undefined {
  const explicit = reader.string("MCP_LOOP_JWKS_URL");
  if (explicit) {
    if (isHttpUrl(explicit)) return explicit;
    reader.problem(`MCP_LOOP_JWKS_URL must be an http(s) URL; got "${explicit}"`);
    return undefined;
  }
  const supabaseUrl = reader.string("SUPABASE_URL");
  if (!supabaseUrl) return undefined;
  if (!isHttpUrl(supabaseUrl)) {
    reader.problem(
      `SUPABASE_URL must be an http(s) URL like https://<project-ref>.supabase.co; got "${supabaseUrl}"`,
    );
    return undefined;
  }
  return `${supabaseUrl.replace(/\/+$/, "")}/auth/v1/.well-known/jwks.json`;
}

function isHttpUrl(value: string): boolean {
  return /^https?:\/\//i.test(value) && URL.canParse(value);
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
