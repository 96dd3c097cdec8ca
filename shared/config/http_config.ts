/** The HTTP surface: body size limit and the origins browsers may call from. */
import type { EnvReader } from "./env_reader.ts";
import { isDeployed } from "./supabase_settings.ts";

/** HTTP settings. */
export interface HttpConfig {
  maxBodyBytes: number;
  corsOrigins: "*" | string[];
  /** Serve `GET /mcp-loop/playground` (`MCP_LOOP_PLAYGROUND`; on locally, off when deployed). */
  playground: boolean;
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
    // Only this machine by default: anonymous access and CORS * are for local use.
    hostname: reader.string("MCP_LOOP_HOSTNAME") ?? reader.string("HOST") ?? "127.0.0.1",
  };
}

/**
 * MCP_LOOP_CORS_ORIGINS: "*" or a comma-separated list of origins. Unset, it
 * is "*" locally (the local Supabase stack included) and empty (no
 * cross-origin browser calls) once deployed Supabase settings are present.
 */
function readOrigins(reader: EnvReader): "*" | string[] {
  const raw = reader.string("MCP_LOOP_CORS_ORIGINS");
  if (raw === undefined) return isDeployed(reader) ? [] : "*";
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
