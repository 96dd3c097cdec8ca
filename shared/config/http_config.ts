/** The HTTP surface: body size limit and the origins browsers may call from. */
import { DEFAULT_GUARD_LIMITS, type GuardLimits } from "../app/connection_guard.ts";
import type { OriginAllowance } from "../http/host_origin.ts";
import { type CallerLimitSettings, DEFAULT_CALLER_LIMITS } from "../http/caller_limits.ts";
import type { EnvReader } from "./env_reader.ts";
import { isDeployed } from "./supabase_settings.ts";

/** HTTP settings. */
export interface HttpConfig {
  maxBodyBytes: number;
  /** Browser origins allowed to call (`MCP_LOOP_CORS_ORIGINS`); see `OriginAllowance`. */
  corsOrigins: OriginAllowance;
  /** Serve `GET /mcp-loop/playground` (`MCP_LOOP_PLAYGROUND`; on locally, off when deployed). */
  playground: boolean;
  /** Supabase settings of a hosted project are present (see `isDeployed`). */
  deployed: boolean;
  /** Per-caller limits: requests at once, requests and body bytes per minute (0 turns one off). */
  callerLimits: CallerLimitSettings;
  /** Limits of the connections `deno task start` accepts (see connection_guard.ts). */
  connections: GuardLimits;
  /** The interface `deno task start` listens on (`MCP_LOOP_HOSTNAME` or `HOST`; default 127.0.0.1). */
  hostname: string;
}

/** `MCP_LOOP_MAX_BODY_BYTES` and `MCP_LOOP_CORS_ORIGINS`. */
export function readHttp(reader: EnvReader): HttpConfig {
  return {
    maxBodyBytes: reader.int("MCP_LOOP_MAX_BODY_BYTES", {
      fallback: 1_048_576,
      min: 1_024,
      max: 16_777_216,
    }),
    corsOrigins: readOrigins(reader),
    playground: reader.bool("MCP_LOOP_PLAYGROUND", { fallback: !isDeployed(reader) }),
    deployed: isDeployed(reader),
    callerLimits: {
      concurrency: reader.int("MCP_LOOP_CALLER_CONCURRENCY", {
        fallback: DEFAULT_CALLER_LIMITS.concurrency,
        min: 0,
        max: 10_000,
      }),
      requestsPerMinute: reader.int("MCP_LOOP_CALLER_REQUESTS_PER_MINUTE", {
        fallback: DEFAULT_CALLER_LIMITS.requestsPerMinute,
        min: 0,
        max: 10_000_000,
      }),
      bytesPerMinute: reader.int("MCP_LOOP_CALLER_BYTES_PER_MINUTE", {
        fallback: DEFAULT_CALLER_LIMITS.bytesPerMinute,
        min: 0,
        max: 1_000_000_000_000,
      }),
    },
    connections: {
      headerTimeoutMs: reader.int("MCP_LOOP_HEADER_TIMEOUT_MS", {
        fallback: DEFAULT_GUARD_LIMITS.headerTimeoutMs,
        min: 100,
        max: 600_000,
      }),
      idleTimeoutMs: reader.int("MCP_LOOP_IDLE_TIMEOUT_MS", {
        fallback: DEFAULT_GUARD_LIMITS.idleTimeoutMs,
        min: 1_000,
        max: 3_600_000,
      }),
      maxConnections: reader.int("MCP_LOOP_MAX_CONNECTIONS", {
        fallback: DEFAULT_GUARD_LIMITS.maxConnections,
        min: 1,
        max: 100_000,
      }),
    },
    // Only this machine by default: anonymous access and CORS * are for local use.
    hostname: reader.string("MCP_LOOP_HOSTNAME") ?? reader.string("HOST") ?? "127.0.0.1",
  };
}

/**
 * MCP_LOOP_CORS_ORIGINS: "*" or a comma-separated list of origins. Unset, it
 * is pages on this machine (any port of localhost, 127.0.0.1, [::1]) locally,
 * the local Supabase stack included, and empty (no cross-origin browser
 * calls) once deployed Supabase settings are present.
 */
function readOrigins(reader: EnvReader): OriginAllowance {
  const raw = reader.string("MCP_LOOP_CORS_ORIGINS");
  if (raw === undefined) return isDeployed(reader) ? [] : "loopback";
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
