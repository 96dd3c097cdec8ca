/**
 * The MCP server over the registry, built per HTTP request (or once per stdio
 * connection) with the official SDK's low-level `Server` (v2, which serves
 * both the 2026-07-28 and 2025-11-25 protocol eras): tools, the caller's
 * loops and sessions as resources, prompts, completions, server instructions
 * and caching hints. Everything that does not change per request (tool lists
 * per policy rule, JSON Schemas, prompt and template lists) is computed once.
 */
import { type ClientCapabilities, Server } from "@modelcontextprotocol/server";
import type { Caller, ConversationStore } from "../ports.ts";
import type { LoopType, RefinementStore } from "../store/refinement_store_port.ts";
import type { WorkingMemoryStore } from "../store/working_memory_port.ts";
import type { LoopSettings } from "../refinement/policy.ts";
import { createJsonSchemaValidator } from "./json_schema_validator.ts";
import { complete, type CompletionRequest } from "./mcp_completions.ts";
import { getPrompt, PROMPTS } from "./mcp_prompts.ts";
import { listResources, readResource, RESOURCE_TEMPLATES } from "./mcp_resources.ts";
import { callTool, listToolsFor, type McpToolDeps } from "./mcp_tools.ts";
import { verifyRequestState } from "./mcp_approval.ts";
import type { McpSessions } from "./mcp_sessions.ts";
import { SERVER_INFO } from "./server_info.ts";

/** What the MCP server needs. */
export interface McpServerDeps extends McpToolDeps {
  /** The caller's sessions (resources, completions, mode prompts). */
  conversations: ConversationStore;
  /** The caller's refinement loops (resources, completions). */
  loops: RefinementStore;
  /** The caller's working memory (the `mcp-loop://memory` resource). */
  memory?: WorkingMemoryStore;
  /** Threshold and iteration limit per loop type, for the `refine` prompt. */
  refinementSettings?: Readonly<Record<LoopType, LoopSettings>>;
  /**
   * Sessions for 2025-11-25 HTTP clients that declare elicitation, so they can
   * be asked to approve calls (mcp_session_http.ts); without them those clients
   * are refused such calls, as clients that cannot ask are.
   */
  sessions?: McpSessions;
  /**
   * Adds or replaces handlers after the built-in ones (the conformance
   * fixture adds the suite's diagnostic tools this way).
   */
  extend?: (
    server: Server,
    scope: { deps: McpServerDeps; caller: Caller; connection: Connection },
  ) => void;
}

/** What the server is for, sent in `initialize` and `server/discover`. */
export const INSTRUCTIONS =
  `mcp-loop is the tool back end of a chat app: its tools are the ones the app's agent loop plans with, served to you directly. ` +
  `The refinement-loop tools (initialize_refinement_loop, decide_loop_next_action, get_loop_status, list_active_loops) keep a quality score per iteration and say when work is good enough; the "refine" prompt explains the routine. ` +
  `Your loops are resources at mcp-loop://loops/{loop_id} and your chat sessions' messages at mcp-loop://sessions/{session_id}/messages (completion/complete suggests ids). ` +
  `The prompts named after the modes (analyst, candidate, hiring, general) show how the loop's planner sees a message. ` +
  `Invalid tool arguments come back as a tool error naming each bad field: fix them and call again.`;

const validator = createJsonSchemaValidator();

/** Caching hints of the 2026-07-28 list results (per-caller data is private). */
const CACHE_HINTS = {
  "tools/list": { ttlMs: 60_000, cacheScope: "private" },
  "prompts/list": { ttlMs: 300_000, cacheScope: "public" },
  "resources/templates/list": { ttlMs: 300_000, cacheScope: "public" },
  "resources/list": { ttlMs: 0, cacheScope: "private" },
  "resources/read": { ttlMs: 0, cacheScope: "private" },
  "server/discover": { ttlMs: 300_000, cacheScope: "public" },
} as const;

type CacheHints = Partial<Record<string, { ttlMs: number; cacheScope: "private" | "public" }>>;

/** Each method's hint alone: a server built for one request gets (and checks) only its own. */
const HINTS_BY_METHOD = new Map<string, CacheHints>(
  Object.entries(CACHE_HINTS).map(([method, hint]) => [method, { [method]: hint }]),
);

function hintsFor(methods: readonly string[]): CacheHints | undefined {
  if (methods.length === 1) return HINTS_BY_METHOD.get(methods[0]);
  const hints: CacheHints = {};
  for (const method of methods) Object.assign(hints, HINTS_BY_METHOD.get(method));
  return Object.keys(hints).length ? hints : undefined;
}

// deno-lint-ignore no-explicit-any
type Handler = (request: any, ctx: any) => unknown;

/** The capabilities of a sessionless 2025-11-25 HTTP client where sessions are offered. */
const NOTHING_DECLARED: ClientCapabilities = Object.freeze({});

/** What a handler may need of its server: what the client declared, if it can be sent requests. */
export type Connection = { legacyClient: () => ClientCapabilities | undefined };

/** Each method's handler, for one caller. */
const HANDLERS: Record<
  string,
  (deps: McpServerDeps, caller: Caller, connection: Connection) => Handler
> = {
  "tools/list": (deps, caller) => () => ({ tools: listToolsFor(deps, caller) }),
  "tools/call": (deps, caller, connection) => (request, ctx) =>
    callTool(deps, caller, request.params, ctx, connection),
  "resources/list": (deps, caller) => () => listResources(deps, caller),
  "resources/templates/list": () => () => ({ resourceTemplates: [...RESOURCE_TEMPLATES] }),
  "resources/read": (deps, caller) => (request) => readResource(deps, caller, request.params.uri),
  "prompts/list": () => () => ({ prompts: [...PROMPTS] }),
  "prompts/get": (deps, caller) => (request) =>
    getPrompt(deps, caller, request.params.name, request.params.arguments),
  "completion/complete": (deps, caller) => (request) =>
    complete(deps, caller, request.params as CompletionRequest),
};

/**
 * Builds a server for `caller`. `listChanged` is advertised only where the
 * server can send the notification (a stdio connection); a stateless HTTP
 * request has no channel to send it on. A server built for one HTTP request
 * gets only the handlers of the methods that request calls (`methods`): the
 * rest would be built and never used. `serverRequests: false` says the server
 * cannot send the client requests on this connection (stateless 2025-11-25
 * HTTP), so a call needing approval is refused there instead of pushing an
 * elicitation nobody would receive; `"sessionless"` says the same of a
 * 2025-11-25 HTTP request without a session where sessions are offered: its
 * client declared no elicitation (one that did would have a session).
 * `inputRoundTimeoutMs` bounds each question the SDK's 2025 compatibility
 * path sends (default: the SDK's 10 minutes).
 */
export function createMcpServer(
  deps: McpServerDeps,
  caller: Caller,
  { listChanged = false, methods, serverRequests = true, inputRoundTimeoutMs }: {
    listChanged?: boolean;
    methods?: readonly string[];
    serverRequests?: boolean | "sessionless";
    inputRoundTimeoutMs?: number;
  } = {},
): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged }, resources: {}, prompts: {}, completions: {} },
    instructions: INSTRUCTIONS,
    jsonSchemaValidator: validator,
    cacheHints: methods ? hintsFor(methods) : CACHE_HINTS,
    ...(deps.approvals ? { requestState: { verify: verifyRequestState(deps.approvals) } } : {}),
    ...(inputRoundTimeoutMs ? { inputRequired: { roundTimeoutMs: inputRoundTimeoutMs } } : {}),
  });
  const connection: Connection = {
    legacyClient: serverRequests === true
      ? () => server.getClientCapabilities()
      : serverRequests === "sessionless"
      ? () => NOTHING_DECLARED
      : () => undefined,
  };
  for (const method of methods ?? Object.keys(HANDLERS)) {
    const handler = HANDLERS[method];
    // deno-lint-ignore no-explicit-any
    if (handler) server.setRequestHandler(method as any, handler(deps, caller, connection) as any);
  }
  deps.extend?.(server, { deps, caller, connection });
  return server;
}
