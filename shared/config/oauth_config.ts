/**
 * Sign-in discovery for MCP clients (OAuth 2.1 protected resource, RFC 9728):
 * where the function is publicly reachable and which authorization servers
 * issue tokens for it — Supabase Auth (`<SUPABASE_URL>/auth/v1`) unless set.
 */
import type { ConfigOptions } from "./config_options.ts";
import type { EnvReader } from "./env_reader.ts";
import { isDeployed, isHttpUrl } from "./supabase_settings.ts";

/** The protected-resource metadata settings. */
export interface OAuthConfig {
  /** The function's public base URL (…/functions/v1/mcp-loop); unset: taken from each request. */
  publicUrl?: string;
  /** Issuers of the tokens this function accepts; empty: no sign-in discovery. */
  authorizationServers: string[];
  /** Scopes to advertise (`scopes_supported`), when set. */
  scopes: string[];
}

/** `MCP_LOOP_PUBLIC_URL`, `MCP_LOOP_AUTHORIZATION_SERVERS`, and the option `oauth.scopes`. */
export function readOAuth(reader: EnvReader, options: ConfigOptions["oauth"] = {}): OAuthConfig {
  const supabaseUrl = reader.string("SUPABASE_URL")?.replace(/\/+$/, "");
  const url = (name: string, value: string | undefined) => {
    if (value === undefined || isHttpUrl(value)) return value?.replace(/\/+$/, "");
    reader.problem(`${name} must be an http(s) URL; got "${value}"`);
    return undefined;
  };
  const publicUrl = url("MCP_LOOP_PUBLIC_URL", reader.string("MCP_LOOP_PUBLIC_URL")) ??
    (supabaseUrl && isDeployed(reader) && isHttpUrl(supabaseUrl)
      ? `${supabaseUrl}/functions/v1/mcp-loop`
      : undefined);
  const listed = reader.string("MCP_LOOP_AUTHORIZATION_SERVERS");
  const authorizationServers = listed === undefined
    ? (supabaseUrl && isHttpUrl(supabaseUrl) ? [`${supabaseUrl}/auth/v1`] : [])
    : listed.split(",").map((entry) => entry.trim()).filter(Boolean).flatMap((entry) => {
      const checked = url("MCP_LOOP_AUTHORIZATION_SERVERS", entry);
      return checked ? [checked] : [];
    });
  const scopes = [...(options.scopes ?? [])];
  return { publicUrl, authorizationServers, scopes };
}
