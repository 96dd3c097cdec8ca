/** How callers are authenticated: API keys, JWT verification keys, and whether a credential is required. */
import type { ConfigOptions } from "./config_options.ts";
import type { EnvReader } from "./env_reader.ts";
import { hasSupabaseSettings, isHttpUrl, type ProjectKeys } from "./supabase_settings.ts";

/** How callers are authenticated. */
export interface AuthConfig {
  /** Legacy HS256 JWT secret (`SUPABASE_JWT_SECRET`). */
  jwtSecret?: string;
  /** Public keys from `SUPABASE_JWKS` (set automatically on Supabase). */
  jwks?: JsonWebKey[];
  /** The JWKS endpoint (`MCP_LOOP_JWKS_URL`, else derived from `SUPABASE_URL`). */
  jwksUrl?: string;
  /** What a user token's `aud` must contain (option `auth.jwtAudience`). */
  audience: string;
  /** What a token's `iss` must be, when set (option `auth.jwtIssuer`). */
  issuer?: string;
  /** The project's secret API keys (`sb_secret_…`), accepted as the service role. */
  projectSecretKeys: string[];
  /** API keys by name, from `MCP_LOOP_API_KEYS`. */
  apiKeys: Map<string, string>;
  /** Refuse requests without a valid credential (default: when API keys or Supabase settings are set). */
  required: boolean;
}

/** API keys and JWT verification; `keys` are the project's (see `readProjectKeys`). */
export function readAuth(
  reader: EnvReader,
  keys: ProjectKeys,
  options: ConfigOptions["auth"] = {},
): AuthConfig {
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
    audience: options.jwtAudience ?? "authenticated",
    issuer: options.jwtIssuer,
    projectSecretKeys: keys.secretKeys,
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
