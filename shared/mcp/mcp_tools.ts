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
import { describeError, isAppError, JSON_RPC_CODE } from "../errors.ts";
import { raceAbort, startDeadline } from "../loop/abort.ts";
import { describeIssues, parseArgs } from "../loop/plan_check.ts";
import { redactKeyShapes } from "../log/redact.ts";
import type { AuditLog, Caller, Logger } from "../ports.ts";
import { loggableToolName, type ToolServices } from "../tools/tool.ts";
import { OPEN_POLICY, type ToolPolicy } from "../tools/tool_policy.ts";
import type { RegisteredTool, ToolRegistry } from "../tools/tool_registry.ts";
import { approvalVerdict, type McpApprovals } from "./mcp_approval.ts";

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
 * Runs one `tools/call`: check, ask for approval when the call needs it, run
 * within the timeout, audit, shape the result. `legacyClient` gives what a
 * 2025-11-25 client declared on this connection (undefined where the server
 * cannot send it requests: stateless HTTP).
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
  const started = performance.now();
  const refused = (
    tool: string,
    error: string,
    outcome: string,
    input: unknown = params.arguments,
  ) => {
    deps.onOutcome?.(outcome);
    audit(deps, caller, { tool: tool.slice(0, 200), input, success: false, error, started });
  };
  const tool = deps.registry.get(params.name);
  if (!tool) {
    const message = `Tool "${params.name}" not found; tools/list shows the available tools`;
    refused(params.name, message, "UNKNOWN_TOOL");
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, message);
  }
  const refusal = (deps.policy ?? OPEN_POLICY).refusal(tool.name, { caller });
  if (refusal !== undefined) {
    refused(tool.name, refusal, "TOOL_NOT_PERMITTED");
    throw new ProtocolError(JSON_RPC_CODE.FORBIDDEN, refusal, {
      code: "TOOL_NOT_PERMITTED",
      tool: tool.name,
    });
  }
  const parsed = parseArgs(tool, params.arguments ?? {});
  if (!parsed.ok) {
    const message = `Invalid arguments for tool "${tool.name}": ${
      describeIssues(parsed.issues)
    }. Fix them and call again; the tool's inputSchema in tools/list says what each field expects.`;
    refused(tool.name, message, "TOOL_ARGS_INVALID");
    return { isError: true, content: [{ type: "text", text: message }] };
  }
  if (deps.approvals) {
    let verdict;
    try {
      verdict = await approvalVerdict({
        approvals: deps.approvals,
        caller,
        tool,
        args: parsed.args,
        ctx,
        legacyClient,
      });
    } catch (error) {
      const message = `Tool "${tool.name}" did not run: its approval could not be checked (${
        redactKeyShapes(describeError(error))
      }). Try again later.`;
      refused(tool.name, message, isAppError(error) ? error.code : "APPROVAL_FAILED", parsed.args);
      return { isError: true, content: [{ type: "text", text: message }] };
    }
    if (verdict.kind === "ask") {
      deps.onOutcome?.("APPROVAL_REQUESTED");
      return verdict.result;
    }
    if (verdict.kind === "refuse") {
      refused(tool.name, verdict.message, verdict.code, parsed.args);
      return { isError: true, content: [{ type: "text", text: verdict.message }] };
    }
  }
  const timeout = startDeadline(deps.callTimeoutMs, {
    kind: "step_timeout",
    parents: [ctx.mcpReq.signal],
  });
  try {
    const output = await raceAbort(
      (async () =>
        tool.run({
          ...(await deps.services?.(caller)),
          args: parsed.args,
          context: {},
          results: [],
          caller,
          signal: timeout.signal,
        }))(),
      timeout.signal,
    );
    audit(deps, caller, { tool: tool.name, input: parsed.args, output, success: true, started });
    return toCallResult(tool, output);
  } catch (error) {
    const message = redactKeyShapes(describeError(error));
    deps.onOutcome?.(isAppError(error) ? error.code : "TOOL_FAILED");
    audit(deps, caller, {
      tool: tool.name,
      input: parsed.args,
      success: false,
      error: message,
      started,
    });
    return {
      isError: true,
      content: [{ type: "text", text: `Tool "${tool.name}" failed: ${message}` }],
    };
  } finally {
    timeout.clear();
  }
}

/**
 * Queues the call's audit row. The answer does not wait for the write (rows are
 * batched; `AuditLog.flush` and shutdown wait for them); a failed write is logged.
 */
function audit(
  deps: McpToolDeps,
  caller: Caller,
  event: {
    tool: string;
    input: unknown;
    output?: unknown;
    success: boolean;
    error?: string;
    started: number;
  },
): void {
  // The failure handler holds only the logger and the tool's name: a closure over `deps`
  // would keep the whole request (its trace, body and server) alive until the row is
  // written, which under load made every request outlive two young-generation GCs.
  const { logger } = deps;
  const tool = loggableToolName(event.tool);
  deps.audit.record(caller, [{
    source: "mcp",
    tool: event.tool,
    input: event.input,
    output: event.output,
    success: event.success,
    error: event.error,
    durationMs: Math.round((performance.now() - event.started) * 1000) / 1000,
  }]).catch((error) => {
    logger.error("could not write the audit row of an MCP tool call", {
      tool,
      error: describeError(error),
    });
  });
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
