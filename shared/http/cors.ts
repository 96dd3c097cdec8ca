/**
 * CORS for the function's paths: a preflight (`OPTIONS`) is answered at once
 * with the allowed methods and headers; every other response gets the allowed
 * origin and the exposed headers set in place (no copy of the response).
 */
import type { OriginAllowance } from "../config/http_config.ts";
import { isLoopbackOrigin } from "./host_origin.ts";

const ALLOW_METHODS = "GET,POST,DELETE,OPTIONS";
const ALLOW_HEADERS = [
  "authorization",
  "content-type",
  "apikey",
  "x-client-info",
  "x-region",
  "x-request-id",
  "accept",
  "mcp-session-id",
  "mcp-protocol-version",
  "mcp-method",
  "mcp-name",
  "last-event-id",
  "x-vercel-ai-ui-message-stream",
].join(",");
const EXPOSE_HEADERS = ["x-request-id", "mcp-session-id", "www-authenticate"].join(",");
const MAX_AGE = "86400";

/** The CORS rules for `origins`: `*` for any origin, pages on this machine, or the exact origins allowed. */
export interface Cors {
  /** The preflight's answer when `req` is one (`OPTIONS`), else undefined. */
  preflight(req: Request): Response | undefined;
  /** Adds the CORS headers for `req` to `headers` (a response's, in place). */
  decorate(req: Request, headers: Headers): void;
}

/** Builds the CORS rules. */
export function createCors(origins: OriginAllowance): Cors {
  const allowed = Array.isArray(origins) ? new Set(origins) : undefined;
  const allowOrigin = (req: Request): string | undefined => {
    if (origins === "*") return "*";
    const origin = req.headers.get("origin");
    if (!origin) return undefined;
    if (allowed) return allowed.has(origin) ? origin : undefined;
    return URL.canParse(origin) && isLoopbackOrigin(new URL(origin)) ? origin : undefined;
  };
  const decorate = (req: Request, headers: Headers) => {
    const origin = allowOrigin(req);
    if (origin) {
      headers.set("access-control-allow-origin", origin);
      headers.set("access-control-expose-headers", EXPOSE_HEADERS);
    }
    if (origins !== "*") headers.append("vary", "Origin");
  };
  return {
    decorate,
    preflight(req) {
      if (req.method !== "OPTIONS") return undefined;
      const headers = new Headers({
        "access-control-max-age": MAX_AGE,
        "access-control-allow-methods": ALLOW_METHODS,
        "access-control-allow-headers": ALLOW_HEADERS,
      });
      decorate(req, headers);
      headers.append("vary", "Access-Control-Request-Headers");
      return new Response(null, { status: 204, headers });
    },
  };
}
