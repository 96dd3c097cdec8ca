/**
 * Which requests a browser may send here: the Host header must name this
 * server (DNS-rebinding protection for a server on this machine), and an
 * Origin header must be this server's own origin or one allowed by the
 * settings. Both the loop and the MCP endpoint apply these rules; they differ
 * only in which origins they allow by default (see `createHostOriginCheck`).
 */

import type { OriginAllowance } from "../config/http_config.ts";

/** The rules of {@link createHostOriginCheck}. */
export interface HostOriginRules {
  /** Host names (no port) a request may be addressed to; "*" turns the Host check off. */
  allowedHosts: "*" | ReadonlySet<string>;
  /** Origins allowed besides the request's own. */
  origins: OriginAllowance;
}

/** Why a request is refused, or undefined when its Host and Origin are allowed. */
export type HostOriginCheck = (req: Request) => string | undefined;

/** Builds the check of `rules`. */
export function createHostOriginCheck({ allowedHosts, origins }: HostOriginRules): HostOriginCheck {
  const exact = Array.isArray(origins) ? new Set(origins) : undefined;
  return (req) => {
    const hostHeader = req.headers.get("host") ?? new URL(req.url).host;
    if (allowedHosts !== "*") {
      const host = hostnameOf(hostHeader);
      if (!host || !allowedHosts.has(host)) {
        return `Host "${hostHeader}" is not allowed; add it to MCP_LOOP_ALLOWED_HOSTS`;
      }
    }
    const origin = req.headers.get("origin");
    if (origin === null || origins === "*") return undefined;
    let url: URL | undefined;
    try {
      url = new URL(origin);
    } catch {
      url = undefined;
    }
    // The server's own origin: scheme aside (a proxy may end TLS), the same host and port.
    if (url && url.host === hostHeader.trim().toLowerCase()) return undefined;
    if (exact?.has(origin)) return undefined;
    if (origins === "loopback" && url && isLoopbackOrigin(url)) return undefined;
    return `Origin "${origin}" is not allowed; add it to MCP_LOOP_CORS_ORIGINS`;
  };
}

/** An http(s) origin on this machine (any port). */
export function isLoopbackOrigin(url: URL): boolean {
  return /^https?:$/.test(url.protocol) &&
    LOOPBACK_HOSTS.has(url.hostname.replace(/^\[|\]$/g, ""));
}

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "::1"]);

/** The host name of a Host header, lower-cased, without port or IPv6 brackets. */
export function hostnameOf(hostHeader: string): string | undefined {
  const host = hostHeader.trim().toLowerCase();
  if (host.startsWith("[")) {
    const end = host.indexOf("]");
    return end > 1 ? host.slice(1, end) : undefined;
  }
  const colon = host.lastIndexOf(":");
  const name = colon === -1 ? host : host.slice(0, colon);
  return /^[a-z0-9.-]+$/.test(name) ? name : undefined;
}
