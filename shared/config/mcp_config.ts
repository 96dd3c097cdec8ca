/** The MCP endpoint's allow-lists, the remote MCP servers used as tool sources, the approvals' key. */
import type { ConfigOptions } from "./config_options.ts";
import type { EnvReader } from "./env_reader.ts";
import type { ProjectKeys } from "./supabase_settings.ts";

/** The MCP endpoint and the remote MCP servers used as tool sources. */
export interface McpConfig {
  /** Host names requests may be addressed to; "*" turns the DNS-rebinding check off. */
  allowedHosts: "*" | string[];
  /** Origins allowed besides those on an allowed host. */
  allowedOrigins: string[];
  remoteServers: RemoteServerConfig[];
  /** First retry delay for a remote server that is down (doubling up to a minute). */
  remoteRetryMs: number;
  /** How long a 2025-11-25 client's session over HTTP lives unused. */
  sessionTtlMs: number;
  /**
   * How long a call waits for the client's answer to its question: under the
   * 150 s a request may stay idle on Supabase's edge, with room for the tool.
   */
  questionWaitMs: number;
  /**
   * The secret an MCP approval's `requestState` is signed with (through HKDF),
   * and the variable it comes from; undefined: a random key of this process.
   */
  requestStateKey?: { secret: string; from: string };
}

/** One remote MCP server whose tools are registered as `<name>__<tool>`. */
export interface RemoteServerConfig {
  name: string;
  url: string;
  headers: Record<string, string>;
}

/** How long a 2025-11-25 client's session over HTTP lives unused, unless set. */
export const MCP_SESSION_TTL_MS = 24 * 3_600_000;

/** How long a call waits for the client's answer to its question, unless set. */
export const MCP_QUESTION_WAIT_MS = 120_000;

/** The MCP endpoint's allow-lists, the remote MCP servers and the approvals' key. */
export function readMcp(
  reader: EnvReader,
  keys: ProjectKeys,
  options: ConfigOptions["mcp"] = {},
): McpConfig {
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
    allowedOrigins: [...(options.allowedOrigins ?? [])],
    remoteServers: readRemoteServers(reader),
    remoteRetryMs: reader.option("mcp.remoteRetryMs", options.remoteRetryMs, {
      fallback: 1_000,
      min: 10,
      max: 600_000,
      integer: true,
    }),
    sessionTtlMs: reader.option("mcp.sessionTtlMs", options.sessionTtlMs, {
      fallback: MCP_SESSION_TTL_MS,
      min: 60_000,
      max: 7 * 24 * 3_600_000,
      integer: true,
    }),
    questionWaitMs: reader.option("mcp.questionWaitMs", options.questionWaitMs, {
      fallback: MCP_QUESTION_WAIT_MS,
      min: 100,
      max: 140_000,
      integer: true,
    }),
    requestStateKey: readRequestStateKey(reader, keys),
  };
}

/** The shortest secret an approval's state is signed from (the SDK's codec asks as much of its key). */
export const MIN_REQUEST_STATE_KEY_BYTES = 32;

/**
 * `MCP_LOOP_REQUEST_STATE_KEY`, else a secret every instance of the function
 * already shares: the project's secret API key, else the legacy JWT secret.
 * Every instance must sign and verify with the same key: the retry carrying a
 * person's answer may reach another one.
 */
function readRequestStateKey(
  reader: EnvReader,
  keys: ProjectKeys,
): McpConfig["requestStateKey"] {
  const bytes = (value: string) => new TextEncoder().encode(value).length;
  const explicit = reader.string("MCP_LOOP_REQUEST_STATE_KEY");
  if (explicit !== undefined) {
    if (bytes(explicit) < MIN_REQUEST_STATE_KEY_BYTES) {
      reader.problem(
        `MCP_LOOP_REQUEST_STATE_KEY must be at least ${MIN_REQUEST_STATE_KEY_BYTES} bytes; got ${
          bytes(explicit)
        }. Generate one with \`openssl rand -base64 32\``,
      );
      return undefined;
    }
    return { secret: explicit, from: "MCP_LOOP_REQUEST_STATE_KEY" };
  }
  const candidates: [string, string | undefined][] = [
    ["SUPABASE_SECRET_KEYS (or SUPABASE_SERVICE_ROLE_KEY)", keys.secret],
    ["MCP_LOOP_JWT_SECRET", reader.string("MCP_LOOP_JWT_SECRET")],
    ["SUPABASE_JWT_SECRET", reader.string("SUPABASE_JWT_SECRET")],
  ];
  for (const [from, secret] of candidates) {
    if (secret && bytes(secret) >= MIN_REQUEST_STATE_KEY_BYTES) return { secret, from };
  }
  return undefined;
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
