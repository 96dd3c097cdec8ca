/**
 * The session side of `/mcp-loop/mcp` for 2025-11-25 clients (Streamable HTTP
 * sessions, `Mcp-Session-Id`). A client that declares form elicitation at
 * `initialize`, where approvals can ask, gets a session kept in the database
 * (what it declared, bound to the caller), so any instance can serve its next
 * POST and ask it to approve a call (see session_post_transport.ts). Other
 * clients stay sessionless, as before. A POST on a session may carry the
 * client's answer to a question (recorded once, for the instance that asked),
 * its `notifications/cancelled` of a call (passed on the same way), or
 * requests; DELETE ends the session; GET offers no stream (405).
 */
import {
  type AuthInfo,
  type ClientCapabilities,
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/server";
import { toAppError } from "../errors.ts";
import type { RequestTrace } from "../http/request_trace.ts";
import type { Caller, Logger } from "../ports.ts";
import { asksForms } from "./mcp_approval.ts";
import type { McpSessionRecord } from "../store/mcp_session_port.ts";
import { type McpSessions, newSessionId } from "./mcp_sessions.ts";
import { createMcpServer, type McpServerDeps } from "./mcp_server.ts";
import { rpcError, SESSION_HEADER, SessionPostTransport } from "./session_post_transport.ts";

export { SESSION_HEADER };

/** How often a process removes lapsed sessions (when a session starts). */
const SWEEP_EVERY_MS = 10 * 60_000;
const SWEEP_LIMIT = 200;

/** Who asks, and what the server built for the request needs. */
export interface SessionScope {
  deps: McpServerDeps;
  sessions: McpSessions;
  caller: Caller;
  authInfo: AuthInfo;
  trace: RequestTrace;
}

/**
 * Whether `body` is a 2025-11-25 `initialize` that earns a session: the client
 * declares form elicitation and approvals can ask for something.
 */
export function wantsSession(deps: McpServerDeps, body: unknown): boolean {
  if (!deps.sessions || !deps.approvals || deps.approvals.mode === "none") return false;
  const message = body as { method?: unknown; params?: { capabilities?: ClientCapabilities } };
  return message?.method === "initialize" && asksForms(message.params?.capabilities);
}

/**
 * The SDK's answer to an `initialize` that earns a session, with the session
 * started: recorded for the caller, named in `Mcp-Session-Id`.
 */
export async function startSession(
  answer: Response,
  initialize: { id?: unknown; params: Record<string, unknown> },
  { sessions, caller, deps }: Pick<SessionScope, "sessions" | "caller" | "deps">,
): Promise<Response> {
  const logger = deps.logger;
  if (answer.status !== 200) return answer;
  const body = await answer.json() as { result?: { protocolVersion?: unknown } };
  const protocolVersion = body.result?.protocolVersion;
  if (typeof protocolVersion !== "string") return Response.json(body, { status: answer.status });
  const now = sessions.now();
  const session: McpSessionRecord = {
    id: newSessionId(),
    protocolVersion,
    capabilities: objectOr(initialize.params.capabilities),
    clientInfo: objectOr(initialize.params.clientInfo),
    expiresAt: new Date(now + sessions.ttlMs),
  };
  try {
    await deps.untilReady?.();
    await sessions.store.open(caller, session);
  } catch (error) {
    const appError = toAppError(error);
    logger.error("could not start an MCP session", { code: appError.code });
    const id = typeof initialize.id === "string" || typeof initialize.id === "number"
      ? initialize.id
      : null;
    return rpcError(
      appError.status >= 500 ? appError.status : 503,
      -32603,
      `Could not start an MCP session (${appError.message}); try again`,
      id,
    );
  }
  sweepNow(sessions, now, logger);
  return Response.json(body, { headers: { [SESSION_HEADER]: session.id } });
}

/** A 400 for an `MCP-Protocol-Version` a session does not speak. */
function unsupportedVersion(req: Request): Response | undefined {
  const version = req.headers.get("mcp-protocol-version");
  if (version === null || SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return undefined;
  return rpcError(
    400,
    -32000,
    `Bad Request: unsupported MCP-Protocol-Version ${
      JSON.stringify(version)
    } (this session speaks ${SUPPORTED_PROTOCOL_VERSIONS.filter((v) => v < "2026").join(", ")})`,
  );
}

/** One POST on the session `sessionId` (see the module doc). */
export async function servePost(
  req: Request,
  body: unknown,
  sessionId: string,
  scope: SessionScope,
): Promise<Response> {
  const { sessions, caller } = scope;
  const unsupported = unsupportedVersion(req);
  if (unsupported) return unsupported;
  const session = await findSession(sessionId, scope);
  if (session instanceof Response) return session;
  const messages = (Array.isArray(body) ? body : [body]) as JSONRPCMessage[];
  const requests = messages.filter(isJSONRPCRequest);
  if (requests.some((request) => request.method === "initialize")) {
    return rpcError(
      400,
      -32600,
      "Invalid Request: this session is already initialized; to start a new one, send initialize without the Mcp-Session-Id header",
    );
  }
  if (requests.length > 0 && !acceptsBoth(req)) {
    return rpcError(
      406,
      -32000,
      "Not Acceptable: the Accept header must list both application/json and text/event-stream",
    );
  }
  const refused = await deliver(messages, session.id, scope);
  if (refused) return refused;
  if (requests.length === 0) return new Response(null, { status: 202 });
  const methods = requests.map((request) => request.method);
  const server = createMcpServer(scope.deps, caller, {
    methods,
    inputRoundTimeoutMs: sessions.waitMs + 60_000,
  });
  const transport = new SessionPostTransport({
    session,
    caller,
    sessions,
    logger: scope.deps.logger,
  });
  await server.connect(transport);
  req.signal?.addEventListener("abort", () => transport.clientLeft(), { once: true });
  const answer = await transport.serve(requests, { authInfo: scope.authInfo, request: req }, {
    batch: Array.isArray(body),
  });
  if (answer.headers.get("content-type") === "text/event-stream") {
    // The log line (and the caller's slot) last as long as the stream.
    scope.trace.hold();
    void transport.ended.then(() => scope.trace.end(200, { force: true }));
  }
  return answer;
}

/** DELETE of a session: ended (its waiting questions with it), or 404. */
export async function endSession(
  sessionId: string,
  { sessions, caller, deps }: Pick<SessionScope, "sessions" | "caller" | "deps">,
): Promise<Response> {
  await deps.untilReady?.();
  const ended = await sessions.store.end(caller, sessionId);
  sessions.doorbell.ring(sessionId);
  return ended ? new Response(null, { status: 200 }) : notFound();
}

/** The caller's live session, or the 404 that tells the client to start a new one. */
async function findSession(
  id: string,
  { sessions, caller, deps }: Pick<SessionScope, "sessions" | "caller" | "deps">,
): Promise<McpSessionRecord | Response> {
  await deps.untilReady?.();
  const now = sessions.now();
  const session = /^[A-Za-z0-9_-]{16,128}$/.test(id)
    ? await sessions.store.find(caller, id, {
      now: new Date(now),
      renewTo: new Date(now + sessions.ttlMs),
    })
    : undefined;
  return session ?? notFound();
}

/**
 * Passes on what the client sent for calls waiting elsewhere: its answers to
 * the server's questions (each recorded once) and its cancellations. An
 * answer no question waits for is refused (400): answered before, withdrawn,
 * cancelled, lapsed or never asked.
 */
async function deliver(
  messages: readonly JSONRPCMessage[],
  sessionId: string,
  { sessions, caller }: SessionScope,
): Promise<Response | undefined> {
  const now = new Date(sessions.now());
  for (const message of messages) {
    if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) {
      const recorded = message.id !== undefined && message.id !== null &&
        await sessions.store.answer(caller, {
          sessionId,
          requestId: String(message.id),
          response: message as unknown as Record<string, unknown>,
          now,
        });
      sessions.doorbell.ring(sessionId);
      if (!recorded) {
        return rpcError(
          400,
          -32600,
          `No request of this session waits for the answer with id ${
            JSON.stringify(message.id ?? null).slice(0, 100)
          }: it was answered before, cancelled, withdrawn after ${
            Math.round(sessions.waitMs / 1000)
          } s without an answer, or never sent`,
        );
      }
    } else if (isJSONRPCNotification(message) && message.method === "notifications/cancelled") {
      const requestId = (message.params as { requestId?: unknown } | undefined)?.requestId;
      if (typeof requestId !== "string" && typeof requestId !== "number") continue;
      await sessions.store.cancel(caller, { sessionId, relatedId: JSON.stringify(requestId) });
      sessions.doorbell.ring(sessionId);
    }
  }
  return undefined;
}

/** Removes lapsed sessions now and then (in the background). */
function sweepNow(sessions: McpSessions, now: number, logger: Logger): void {
  if (now - sessions.lastSweep < SWEEP_EVERY_MS) return;
  sessions.lastSweep = now;
  sessions.store.sweep(new Date(now), SWEEP_LIMIT).catch((error) =>
    logger.warn("could not remove lapsed MCP sessions", { code: toAppError(error).code })
  );
}

function acceptsBoth(req: Request): boolean {
  const accept = req.headers.get("accept") ?? "";
  return accept.includes("application/json") && accept.includes("text/event-stream");
}

function objectOr(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Record<string, unknown>
    : {};
}

function notFound(): Response {
  return rpcError(
    404,
    -32001,
    "Session not found: it ended or lapsed; send initialize again, without the Mcp-Session-Id header, to start a new one",
  );
}
