/**
 * The HTTP surface: body size limit, the origins browsers may call from, the
 * playground, per-caller limits, and the interface `deno task start` listens on.
 */
import type { ConfigOptions } from "./config_options.ts";
import type { EnvReader } from "./env_reader.ts";
import { isDeployed } from "./supabase_settings.ts";

/** Which browser origins may call, besides the server's own. */
export type OriginAllowance =
  /** Any origin (`MCP_LOOP_CORS_ORIGINS=*`). */
  | "*"
  /** Pages on this machine: http(s) on localhost, 127.0.0.1 or [::1], any port (the local default). */
  | "loopback"
  /** Exactly these origins. */
  | readonly string[];

/** Per-caller limits (0 turns one off). */
export interface CallerLimitSettings {
  /** Requests of one caller in flight at once (default 8). */
  concurrency: number;
  /** Requests of one caller per minute (default 600). */
  requestsPerMinute: number;
  /** Request-body bytes of one caller per minute (default 32 MiB). */
  bytesPerMinute: number;
}

/** The defaults of {@link CallerLimitSettings}. */
export const DEFAULT_CALLER_LIMITS: Readonly<CallerLimitSettings> = Object.freeze({
  concurrency: 8,
  requestsPerMinute: 600,
  bytesPerMinute: 32 * 1024 * 1024,
});

/** HTTP settings. */
export interface HttpConfig {
  maxBodyBytes: number;
  /** Browser origins allowed to call (`MCP_LOOP_CORS_ORIGINS`); see `OriginAllowance`. */
  corsOrigins: OriginAllowance;
  /** Serve `GET /mcp-loop/playground` (`MCP_LOOP_PLAYGROUND`; on locally, off when deployed). */
  playground: boolean;
  /** Deployed: Supabase settings of a hosted project are present, or the edge runtime runs it. */
  deployed: boolean;
  /** Per-caller limits: requests at once, requests and body bytes per minute (0 turns one off). */
  callerLimits: CallerLimitSettings;
  /** The interface `deno task start` listens on (`HOST`; default 127.0.0.1). */
  hostname: string;
}

/** `MCP_LOOP_MAX_BODY_BYTES`, `MCP_LOOP_CORS_ORIGINS`, the playground and the caller limits. */
export function readHttp(
  reader: EnvReader,
  { options = {}, edge }: { options?: ConfigOptions["http"]; edge: boolean },
): HttpConfig {
  const deployed = edge || isDeployed(reader);
  return {
    maxBodyBytes: reader.int("MCP_LOOP_MAX_BODY_BYTES", {
      fallback: 1_048_576,
      min: 1_024,
      max: 16_777_216,
    }),
    corsOrigins: readOrigins(reader, deployed),
    playground: reader.bool("MCP_LOOP_PLAYGROUND", { fallback: !deployed }),
    deployed,
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
      bytesPerMinute: reader.option("http.callerBytesPerMinute", options.callerBytesPerMinute, {
        fallback: DEFAULT_CALLER_LIMITS.bytesPerMinute,
        min: 0,
        max: 1_000_000_000_000,
        integer: true,
      }),
    },
    // Only this machine by default: anonymous access and CORS * are for local use.
    hostname: reader.string("HOST") ?? "127.0.0.1",
  };
}

/**
 * MCP_LOOP_CORS_ORIGINS: "*" or a comma-separated list of origins. Unset, it
 * is pages on this machine (any port of localhost, 127.0.0.1, [::1]) locally,
 * the local Supabase stack included, and empty (no cross-origin browser
 * calls) once deployed Supabase settings are present.
 */
function readOrigins(reader: EnvReader, deployed: boolean): OriginAllowance {
  const raw = reader.string("MCP_LOOP_CORS_ORIGINS");
  if (raw === undefined) return deployed ? [] : "loopback";
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
