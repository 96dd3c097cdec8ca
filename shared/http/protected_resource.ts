/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728) for the MCP endpoint: an
 * MCP client that meets a 401 follows `resource_metadata` in the challenge
 * to this document and learns which authorization server to sign in with
 * (Supabase Auth's OAuth 2.1 server by default). The tokens it gets are
 * Supabase access tokens, verified like any other.
 */
import type { OAuthConfig } from "../config/oauth_config.ts";
import { jsonResponse } from "./responses.ts";

/** The metadata document's path under the function's base path. */
export const METADATA_PATH = "/.well-known/oauth-protected-resource";

/** The function's public base URL for `req` (configured, or the request's own). */
export function publicBase(config: OAuthConfig, req: Request): string {
  if (config.publicUrl) return config.publicUrl;
  const url = new URL(req.url);
  const base = /^(.*?\/mcp-loop)(?:\/|$)/.exec(url.pathname)?.[1] ?? "/mcp-loop";
  return `${requestOrigin(url, req)}${base}`;
}

/**
 * The origin the client addressed. `deno task start` serves the app on a Unix
 * socket behind its connection guard (shared/local/serve_local.ts), and Deno names
 * such a request `http+unix://<Host header>/…`, whose origin is the string
 * "null": that request gets `http://` and its Host header (the guard speaks plain
 * HTTP; the Host was already checked against the allowed hosts).
 */
function requestOrigin(url: URL, req: Request): string {
  if (url.protocol === "http:" || url.protocol === "https:") return url.origin;
  const host = req.headers.get("host") ?? url.host;
  return `http://${/^[A-Za-z0-9.:[\]-]+$/.test(host) ? host : "localhost"}`;
}

/** The metadata URL a 401 from the MCP endpoint points at. */
export function resourceMetadataUrl(config: OAuthConfig, req: Request): string {
  return `${publicBase(config, req)}${METADATA_PATH}`;
}

/** Builds the handler of the metadata document. */
export function createProtectedResourceHandler(config: OAuthConfig): (req: Request) => Response {
  return (req) =>
    jsonResponse(
      {
        resource: `${publicBase(config, req)}/mcp`,
        authorization_servers: config.authorizationServers,
        bearer_methods_supported: ["header"],
        ...(config.scopes.length > 0 ? { scopes_supported: config.scopes } : {}),
        resource_name: "mcp-loop",
      },
      200,
      { "cache-control": "public, max-age=300" },
    );
}
