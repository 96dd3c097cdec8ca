/**
 * Which era a remote MCP server speaks, from the connect-time `server/discover`
 * probe (2026-07-28 draft, basic/lifecycle "Version Negotiation"), sorted as
 * the SDK v2 client's probe classifier sorts it (client
 * `probeClassifier.ts`): a DiscoverResult offering 2026-07-28 is modern; a
 * `-32022` (unsupported version) naming 2026-07-28 is re-sent once; any other
 * JSON-RPC error, a 4xx other than 401/403, or an unrecognised result is a
 * 2025-era server (then `initialize`); 401, 403, 5xx, no answer, a timeout or
 * an unreadable 2xx are failures, never an era.
 */
import { RemoteMcpError } from "./remote_error.ts";
import { SERVER_INFO } from "./server_info.ts";

/** The one 2026-era revision this client speaks. */
export const MODERN_VERSION = "2026-07-28";

/** The `-32022` UnsupportedProtocolVersion error code. */
const UNSUPPORTED_VERSION = -32022;

/** A DiscoverResult's fields read here. */
export interface Discovered {
  supportedVersions: string[];
  capabilities: Record<string, unknown>;
}

/**
 * Probes with `send` (which posts `server/discover` with the 2026 envelope).
 * Resolves with the DiscoverResult of a modern server, undefined for a 2025-era one.
 */
export async function discoverOutcome(
  send: (params: Record<string, unknown>) => Promise<Record<string, unknown>>,
): Promise<Discovered | undefined> {
  for (let corrected = false;; corrected = true) {
    let result: Record<string, unknown>;
    try {
      result = await send({});
    } catch (error) {
      const verdict = probeFailure(error);
      if (verdict === "legacy") return undefined;
      if (verdict === "retry" && !corrected) continue;
      throw error;
    }
    const discovered = asDiscovered(result);
    return discovered?.supportedVersions.includes(MODERN_VERSION) ? discovered : undefined;
  }
}

/** The 2026-07-28 `_meta` envelope every modern request carries (user keys win, as in the SDK). */
export function withEnvelope(params: Record<string, unknown>): Record<string, unknown> {
  return {
    ...params,
    _meta: {
      "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
      "io.modelcontextprotocol/clientInfo": SERVER_INFO,
      "io.modelcontextprotocol/clientCapabilities": {},
      ...(params._meta as Record<string, unknown> | undefined),
    },
  };
}

/** What a failed probe says: a 2025-era server, a version to ask for again, or a failure. */
function probeFailure(error: unknown): "legacy" | "retry" | "fail" {
  if (!(error instanceof RemoteMcpError)) return "fail";
  if (error.failure === "rpc") return rpcVerdict(error.rpc);
  if (error.failure !== "http" || error.httpStatus === undefined) return "fail";
  // Auth walls and server faults are never era evidence; other 4xx are how a 2025 server refuses.
  const status = error.httpStatus;
  if (status === 401 || status === 403 || status >= 500) return "fail";
  return error.rpc ? rpcVerdict(error.rpc) : "legacy";
}

function rpcVerdict(rpc: RemoteMcpError["rpc"]): "legacy" | "retry" | "fail" {
  if (rpc?.code !== UNSUPPORTED_VERSION) return "legacy";
  const supported = (rpc.data as { supported?: unknown } | undefined)?.supported;
  if (!Array.isArray(supported) || !supported.every((v) => typeof v === "string")) {
    return "legacy";
  }
  if (supported.includes(MODERN_VERSION)) return "retry";
  // A list of other modern revisions only: no mutual version, and no fallback to guess.
  return supported.some((version) => version >= MODERN_VERSION) ? "fail" : "legacy";
}

function asDiscovered(result: Record<string, unknown>): Discovered | undefined {
  const { supportedVersions, capabilities } = result;
  const versions = Array.isArray(supportedVersions) &&
    supportedVersions.every((v) => typeof v === "string");
  const isObject = typeof capabilities === "object" && capabilities !== null &&
    !Array.isArray(capabilities);
  return versions && isObject ? result as unknown as Discovered : undefined;
}

/** The 2025-era versions `initialize` accepts, the first offered (the SDK client's list). */
const LEGACY_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"];

/** What a 2025-era client sends with `initialize` (no capability: tools only). */
export const INITIALIZE_PARAMS: Readonly<Record<string, unknown>> = Object.freeze({
  protocolVersion: LEGACY_VERSIONS[0],
  capabilities: {},
  clientInfo: SERVER_INFO,
});

/** The version and the session an `initialize` answer agreed, checked. */
export function initialized(
  result: Record<string, unknown>,
  headers: Headers,
): { version: string; sessionId?: string } {
  const version = String(result.protocolVersion);
  if (!LEGACY_VERSIONS.includes(version)) {
    throw new RemoteMcpError("protocol", `Server's protocol version is not supported: ${version}`);
  }
  const sessionId = headers.get("mcp-session-id") ?? undefined;
  // §Session Management 1: "The session ID … MUST only contain visible ASCII characters (0x21 to 0x7E)".
  if (sessionId !== undefined && !/^[\x21-\x7e]+$/.test(sessionId)) {
    throw new RemoteMcpError("protocol", "The server's Mcp-Session-Id is not visible ASCII");
  }
  return { version, sessionId };
}

/** The 2026-07-28 request for a stream of tool-list changes. */
export function listenRequest(id: string) {
  return {
    jsonrpc: "2.0" as const,
    id,
    method: "subscriptions/listen",
    params: withEnvelope({ notifications: { toolsListChanged: true } }),
  };
}

/** A server's capabilities, as far as the client reads them. */
export type Capabilities = Record<string, { listChanged?: boolean } | undefined>;
