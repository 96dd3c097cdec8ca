/**
 * `/mcp-loop/mcp`: MCP Streamable HTTP with the official SDK (v2) for both
 * protocol eras on one endpoint: 2026-07-28 requests (per-request `_meta`
 * envelope, `server/discover`, `Mcp-Method`/`Mcp-Name` header checks) through
 * the SDK's `createMcpHandler`, and 2025-11-25 requests (`initialize` first)
 * through its streamable HTTP transport with JSON answers — a fresh server per
 * request either way. A 2025-11-25 client that declares elicitation gets a
 * session kept in the database, whose requests are served by
 * mcp_session_http.ts (so it can be asked to approve a call); other clients
 * stay sessionless. Before the SDK sees a request, the Host and Origin headers
 * are checked (DNS-rebinding protection) and the caller is authenticated; the
 * caller's identity then scopes tools, resources, prompts and sessions.
 */
import {
  createMcpHandler,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import type { Authenticate } from "../auth/authenticator.ts";
import { bearerChallenge } from "../auth/bearer_challenge.ts";
import { AppError, JSON_RPC_CODE, toAppError } from "../errors.ts";
import type { HostOriginCheck } from "../http/host_origin.ts";
import { readJsonBody } from "../http/json_body.ts";
import { type CallerLimiter, declaredBytes } from "../http/caller_limits.ts";
import { MAX_JSON_DEPTH, nestedDeeperThan } from "../http/json_depth.ts";
import { type RequestTrace, startTrace } from "../http/request_trace.ts";
import { withLogFields } from "../log/log_fields.ts";
import type { Caller, Logger } from "../ports.ts";
import { TOOL_NAME_PATTERN } from "../tools/tool.ts";
import { createMcpServer, type McpServerDeps } from "./mcp_server.ts";
import { checkParams, claimsModernEra } from "./mcp_params.ts";
import {
  endSession,
  servePost,
  SESSION_HEADER,
  startSession,
  wantsSession,
} from "./mcp_session_http.ts";

/** What the MCP endpoint needs. */
export interface McpHttpDeps extends McpServerDeps {
  authenticate: Authenticate;
  /** The Host and Origin rules (DNS-rebinding protection). */
  hostOrigin: HostOriginCheck;
  maxBodyBytes: number;
  logger: Logger;
  /** Per-caller limits (429 past them). */
  limits: CallerLimiter;
  /** The protected-resource metadata URL for 401 challenges (RFC 9728), when OAuth sign-in is offered. */
  resourceMetadataUrl?: (req: Request) => string;
}

/** One request's server inputs, carried to the SDK's factory in `authInfo.extra`. */
interface RequestScope {
  deps: McpServerDeps;
  caller: Caller;
  /** The methods the request calls: the server gets only their handlers. */
  methods: string[];
}

/** Builds the `/mcp-loop/mcp` handler. */
export function createMcpHttpHandler(
  deps: McpHttpDeps,
): (req: Request, trace?: RequestTrace) => Promise<Response> {
  const modernHandler = createMcpHandler(
    (ctx) => {
      const { deps, caller, methods } = ctx.authInfo?.extra?.scope as RequestScope;
      return createMcpServer(deps, caller, { methods });
    },
    { legacy: "reject" },
  );
  return async (req, trace = startTrace(req)) => {
    const caller = await admit(req, deps, trace);
    if (caller instanceof Response) return caller;
    const requestDeps: McpServerDeps = {
      ...deps,
      logger: withLogFields(deps.logger, { requestId: trace.id, caller: caller.owner }),
      onOutcome: (code: string) => trace.outcome = code,
    };
    const { sessions } = deps;
    const sessionId = sessions ? req.headers.get(SESSION_HEADER) : null;
    if (req.method === "DELETE" && sessions && sessionId !== null) {
      return await endSession(sessionId, { deps: requestDeps, sessions, caller });
    }
    if (req.method !== "POST") {
      return jsonRpcError(
        405,
        -32000,
        "This MCP endpoint offers no GET stream: send JSON-RPC messages with POST (and DELETE to end a session)",
        { allow: "POST, OPTIONS" },
      );
    }
    let body: unknown;
    let modern: boolean;
    try {
      body = await readJsonBody(req, { maxBytes: deps.maxBodyBytes });
      modern = claimsModernEra(req, body);
      checkEnvelope(body, { modern });
    } catch (error) {
      return envelopeError(error);
    }
    describeCall(body, trace);
    const methods = methodsOf(body);
    const authInfo = authInfoOf(requestDeps, caller, methods);
    if (modern) return await modernHandler.fetch(req, { parsedBody: body, authInfo });
    if (sessions && sessionId !== null) {
      const scope = { deps: requestDeps, sessions, caller, trace, authInfo };
      return await servePost(req, body, sessionId, scope);
    }
    const maxBodyBytes = deps.maxBodyBytes;
    return await serveSessionless(req, body, {
      deps: requestDeps,
      caller,
      methods,
      authInfo,
      maxBodyBytes,
    });
  };
}

/** The caller of a request that passed the Host/Origin check, authentication and its limits; else the refusal. */
async function admit(
  req: Request,
  deps: McpHttpDeps,
  trace: RequestTrace,
): Promise<Caller | Response> {
  const refused = deps.hostOrigin(req);
  if (refused) {
    trace.outcome = "FORBIDDEN";
    return jsonRpcError(403, -32000, refused);
  }
  let caller: Caller;
  try {
    caller = await deps.authenticate(req);
    trace.caller = caller.owner;
  } catch (error) {
    return authRefusal(error, req, deps, trace);
  }
  try {
    trace.onEnd(await deps.limits.admit(caller, { bytes: declaredBytes(req) }));
  } catch (error) {
    const { retryAfterSeconds = 1 } = (toAppError(error).details ?? {}) as {
      retryAfterSeconds?: number;
    };
    trace.outcome = "RATE_LIMITED";
    return jsonRpcError(429, -32000, toAppError(error).message, {
      "retry-after": String(retryAfterSeconds),
    });
  }
  return caller;
}

/**
 * A 2025-11-25 request without a session: a fresh server answering JSON; an
 * `initialize` that declares elicitation, where sessions are offered, starts one.
 */
async function serveSessionless(
  req: Request,
  body: unknown,
  { deps, caller, methods, authInfo, maxBodyBytes }: {
    deps: McpServerDeps;
    caller: Caller;
    methods: string[];
    authInfo: ReturnType<typeof authInfoOf>;
    maxBodyBytes: number;
  },
): Promise<Response> {
  const { sessions } = deps;
  // No server-to-client requests here: the answer would come on another POST, to another
  // server. Where sessions are offered, a client without one declared no elicitation.
  const server = createMcpServer(deps, caller, {
    methods,
    serverRequests: sessions ? "sessionless" : false,
  });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: maxBodyBytes,
  });
  await server.connect(transport);
  // No close() afterwards: with JSON responses and no session the transport keeps
  // nothing once it has answered, and closing cost CPU for nothing under load.
  const answer = await transport.handleRequest(req, { parsedBody: body, authInfo });
  if (!sessions || !wantsSession(deps, body)) return answer;
  const initialize = body as { id?: unknown; params: Record<string, unknown> };
  return await startSession(answer, initialize, { deps, sessions, caller });
}

/** What the SDK hands the server factory and the handlers (`ctx.http.authInfo`): the caller and the request's scope. */
function authInfoOf(deps: McpServerDeps, caller: Caller, methods: string[]) {
  return {
    token: "",
    clientId: caller.owner,
    scopes: [],
    extra: { scope: { deps, caller, methods } satisfies RequestScope },
  };
}

/** The 401 (or 503 when the signing keys are unreachable) of a refused credential. */
function authRefusal(
  error: unknown,
  req: Request,
  deps: McpHttpDeps,
  trace: RequestTrace,
): Response {
  const refusal = toAppError(error);
  trace.outcome = refusal.code;
  if (refusal.status >= 500) {
    deps.logger.error("authentication failed", { code: refusal.code, message: refusal.message });
  }
  const challenge = refusal.status === 401
    ? {
      "www-authenticate": bearerChallenge(refusal, {
        resourceMetadata: deps.resourceMetadataUrl?.(req),
      }),
    }
    : undefined;
  return jsonRpcError(
    refusal.status,
    JSON_RPC_CODE[refusal.code],
    refusal.message,
    challenge,
    { code: refusal.code },
  );
}

/**
 * Checks the body is a JSON-RPC message or batch (else -32600 Invalid Request),
 * and that each request's params fit its method (else -32602, see mcp_params.ts).
 */
function checkEnvelope(body: unknown, { modern }: { modern: boolean }): void {
  const messages = Array.isArray(body) ? body : [body];
  if (messages.length === 0) {
    throw new AppError("BAD_REQUEST", "Invalid Request: an empty batch");
  }
  if (nestedDeeperThan(body, MAX_JSON_DEPTH)) {
    throw new AppError(
      "BAD_REQUEST",
      `Invalid Request: nested deeper than ${MAX_JSON_DEPTH} levels`,
    );
  }
  for (const message of messages) {
    const m = message as Record<string, unknown> | null;
    const valid = typeof m === "object" && m !== null && !Array.isArray(m) && m.jsonrpc === "2.0" &&
      (typeof m.method === "string" || "result" in m || "error" in m);
    if (!valid) {
      throw new AppError(
        "BAD_REQUEST",
        'Invalid Request: each message must be a JSON-RPC 2.0 object with "jsonrpc": "2.0" and a "method"',
      );
    }
    const problem = checkParams(m, { modern });
    if (problem) throw new AppError("VALIDATION_FAILED", problem, { details: { id: m.id } });
  }
}

/** The JSON-RPC error for a body that could not be read or is not JSON-RPC. */
function envelopeError(error: unknown): Response {
  const appError = toAppError(error);
  switch (appError.code) {
    case "INVALID_JSON":
    case "INVALID_ENCODING":
      return jsonRpcError(400, -32700, `Parse error: ${appError.message}`);
    case "PAYLOAD_TOO_LARGE":
      return jsonRpcError(413, -32600, appError.message);
    case "VALIDATION_FAILED":
      return jsonRpcError(400, -32602, appError.message, {}, undefined, idOf(appError.details));
    case "UNSUPPORTED_MEDIA_TYPE":
      return jsonRpcError(415, -32000, appError.message);
    default:
      return jsonRpcError(400, -32600, appError.message);
  }
}

/** The methods a message or batch calls. */
function methodsOf(body: unknown): string[] {
  const methods: string[] = [];
  for (const m of Array.isArray(body) ? body : [body]) {
    if (typeof m?.method === "string") methods.push(m.method);
  }
  return methods;
}

/** The request id in an error's details, when it is a valid JSON-RPC id. */
function idOf(details: unknown): string | number | null {
  const id = (details as { id?: unknown } | undefined)?.id;
  return typeof id === "string" || typeof id === "number" ? id : null;
}

/** A JSON-RPC error body for refusals made before the SDK sees the request. */
function jsonRpcError(
  status: number,
  code: number,
  message: string,
  headers: HeadersInit = {},
  data?: unknown,
  id: string | number | null = null,
): Response {
  const error = data === undefined ? { code, message } : { code, message, data };
  return new Response(JSON.stringify({ jsonrpc: "2.0", error, id }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** Puts the JSON-RPC method (and the tool of a `tools/call`) on the request's log line. */
function describeCall(body: unknown, trace: RequestTrace): void {
  if (Array.isArray(body)) {
    trace.fields.rpcBatch = body.length;
    return;
  }
  const { method, params } = body as { method?: unknown; params?: { name?: unknown } };
  if (typeof method === "string") {
    trace.fields.rpcMethod = /^[\w/.$-]{1,64}$/.test(method) ? method : "(unrecognised)";
  }
  const tool = params?.name;
  // Only a name that could be a tool's: anything else could be arbitrary client text.
  if (typeof tool === "string" && TOOL_NAME_PATTERN.test(tool)) trace.fields.tool = tool;
}
