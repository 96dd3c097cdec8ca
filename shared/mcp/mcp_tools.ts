/**
 * The registry's tools over MCP: `tools/list` (per caller, cached until the
 * registry changes) and `tools/call` with the loop's argument parsing. Args
 * that fail a tool's schema are a tool result with `isError: true` naming
 * every bad field (SEP-1303: the model can correct itself); an unknown tool is
 * JSON-RPC -32602 and a tool the caller may not use -32003. Every call, refused
 * or not, is audited.
 */
import {
  type CallToolResult,
  type ClientCapabilities,
  type InputRequiredResult,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
  type Tool,
} from "@modelcontextprotocol/server";
import { JSON_RPC_CODE } from "../errors.ts";
import type { AuditLog, Caller, Logger } from "../ports.ts";
import { invokeTool } from "../tools/invoke_tool.ts";
import type { ToolServices } from "../tools/tool.ts";
import { OPEN_POLICY, type ToolPolicy } from "../tools/tool_policy.ts";
import type { RegisteredTool, ToolRegistry } from "../tools/tool_registry.ts";
import { mcpApproval, type McpApprovals } from "./mcp_approval.ts";

/** What the tools need. */
export interface McpToolDeps {
  registry: ToolRegistry;
  audit: AuditLog;
  logger: Logger;
  /** Longest a tool call may run (the loop's deadline by default). */
  callTimeoutMs: number;
  /** Which tools each caller may list and call (default: all). */
  policy?: ToolPolicy;
  /** Told how a call that did not succeed ended (for the request's log line). */
  onOutcome?: (code: string) => void;
  /** The caller-bound clients a tool gets (supabase-js, the database). */
  services?: ToolServices;
  /** Asks a person before the calls that need approval (none asked without it). */
  approvals?: McpApprovals;
  /** Resolves once the database is open: a call's clock starts after it (a first start takes seconds). */
  untilReady?: () => Promise<void>;
}

/** The tools `caller` may use, as MCP lists them (cached per policy rule until the registry changes). */
export function listToolsFor(deps: McpToolDeps, caller: Caller): Tool[] {
  const policy = deps.policy ?? OPEN_POLICY;
  const all = deps.registry.cached("mcp-tools", (tools) => plainJson(tools.map(toMcpTool)));
  const rule = policy.callerRule(caller);
  if (rule === undefined) return all;
  return deps.registry.cached(`mcp-tools:${rule}`, () => policy.filter(all, { caller }));
}

/**
 * Runs one `tools/call` through the one way a tool is called (invoke_tool.ts):
 * policy, arguments, a person's approval when the call needs it, the call
 * within its timeout, the audit row; then shapes the result. `legacyClient`
 * gives what a 2025-11-25 client declared on this connection (undefined where
 * the server cannot send it requests: stateless HTTP).
 */
export async function callTool(
  deps: McpToolDeps,
  caller: Caller,
  params: { name: string; arguments?: Record<string, unknown> },
  ctx: ServerContext,
  { legacyClient = () => undefined }: {
    legacyClient?: () => ClientCapabilities | undefined;
  } = {},
): Promise<CallToolResult | InputRequiredResult> {
  await deps.untilReady?.();
  const outcome = await invokeTool({ name: params.name, args: params.arguments ?? {} }, {
    registry: deps.registry,
    caller,
    policy: deps.policy ?? OPEN_POLICY,
    approve: deps.approvals &&
      ((tool, args) =>
        mcpApproval({ approvals: deps.approvals!, caller, tool, args, ctx, legacyClient })),
    signal: ctx.mcpReq.signal,
    timeoutMs: deps.callTimeoutMs,
    audit: deps.audit,
    source: "mcp",
    logger: deps.logger,
    services: deps.services,
  });
  if (outcome.status === "ok") {
    return toCallResult(deps.registry.get(outcome.tool)!, outcome.output);
  }
  if (outcome.status === "pending") {
    deps.onOutcome?.("APPROVAL_REQUESTED");
    return outcome.detail as InputRequiredResult;
  }
  deps.onOutcome?.(outcome.code);
  return failedResult(outcome.tool, outcome.code, outcome.error);
}

/** A call that did not succeed, as MCP reports it: a protocol error, or a tool error result. */
function failedResult(tool: string, code: string, error: string): CallToolResult {
  switch (code) {
    case "UNKNOWN_TOOL":
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, error);
    case "TOOL_NOT_PERMITTED":
      throw new ProtocolError(JSON_RPC_CODE.FORBIDDEN, error, { code, tool });
    case "TOOL_FAILED":
    case "DEADLINE_EXCEEDED":
    case "CANCELLED":
      return errorResult(`Tool "${tool}" failed: ${error}`);
    default:
      return errorResult(error);
  }
}

function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text }] };
}

/** A tool's output as a `tools/call` result: structured when it declares an output schema. */
export function toCallResult(tool: RegisteredTool, output: unknown): CallToolResult {
  const text = typeof output === "string" ? output : JSON.stringify(output ?? null);
  const structured = tool.outputJsonSchema && isRecord(output);
  return {
    content: [{ type: "text", text }],
    ...(structured ? { structuredContent: output as Record<string, unknown> } : {}),
  };
}

function toMcpTool(tool: RegisteredTool): Tool {
  return {
    name: tool.name,
    ...(tool.annotations?.title ? { title: tool.annotations.title } : {}),
    description: tool.description,
    inputSchema: tool.inputSchema as Tool["inputSchema"],
    ...(tool.outputJsonSchema
      ? { outputSchema: tool.outputJsonSchema as Tool["outputSchema"] }
      : {}),
    ...(tool.annotations ? { annotations: { ...tool.annotations } } : {}),
  };
}

/**
 * A deep copy through JSON text, made once per cached list: it also keeps the
 * registry's schemas out of reach of whatever handles the list. V8 serialises
 * the objects `JSON.parse` builds about three times faster than the ones the
 * list was assembled from (the default list: 9.5 µs instead of 30 µs), and the
 * list is serialised on every `tools/list`.
 */
function plainJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
