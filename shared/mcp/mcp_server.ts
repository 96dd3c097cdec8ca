/**
 * Serves the tool registry over MCP with the SDK's low-level `Server`:
 * `tools/list` from the registry (input JSON Schemas from Zod, annotations,
 * output schemas) and `tools/call` with the same argument parsing as the loop.
 * A tool's failure is an `isError` result; bad params are JSON-RPC -32602.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { z } from "zod";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { createJsonSchemaValidator } from "./json_schema_validator.ts";
import { describeError, isAppError, JSON_RPC_CODE } from "../errors.ts";
import { raceAbort, startDeadline } from "../loop/abort.ts";
import type { AuditLog, Caller, Logger } from "../ports.ts";
import { redactKeyShapes } from "../log/redact.ts";
import { loggableToolName, type ToolServices } from "../tools/tool.ts";
import { OPEN_POLICY, type ToolPolicy } from "../tools/tool_policy.ts";
import type { RegisteredTool, ToolRegistry } from "../tools/tool_registry.ts";

/** What the MCP server needs. */
export interface McpServerDeps {
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
}

/** The server's name and version in `initialize`. */
export const SERVER_INFO = { name: "mcp-loop", version: "1.0.0" };

/** The registry's tools as MCP `Tool` objects (cached until the registry changes). */
export function mcpToolList(registry: ToolRegistry): Tool[] {
  return registry.cached("mcp-tools", (tools) => tools.map(toMcpTool));
}

/**
 * The SDK's server, except that a request whose params do not match its method's
 * schema is answered -32602 (Invalid params). The SDK parses params in its protocol
 * layer first, where a mismatch becomes -32603 (Internal error); here each handler
 * is registered with a schema that only checks the method, and the real schema is
 * applied inside the handler.
 */
/**
 * Method-only request schemas, built once per method: a server is built per
 * request, and building (and compiling) a Zod schema each time cost a quarter
 * of the CPU under load.
 */
const lenientSchemas = new Map<string, z.ZodType>();

function lenientSchema(method: string): z.ZodType {
  let schema = lenientSchemas.get(method);
  if (!schema) {
    schema = z.looseObject({ method: z.literal(method) });
    lenientSchemas.set(method, schema);
  }
  return schema;
}

class ParamsCheckingServer extends (Server as unknown as new (
  info: typeof SERVER_INFO,
  options: Record<string, unknown>,
) => { setRequestHandler(schema: unknown, handler: unknown): void }) {
  // deno-lint-ignore no-explicit-any
  override setRequestHandler(schema: any, handler: any): void {
    const method = schema.shape.method.value as string;
    const lenient = lenientSchema(method);
    // The SDK's server checks tools/call params itself (answering -32602) once the
    // protocol layer lets the request through; checking them here too would parse twice.
    if (method === "tools/call") return super.setRequestHandler(lenient, handler);
    super.setRequestHandler(
      lenient,
      // deno-lint-ignore no-explicit-any
      (request: unknown, extra: any) => {
        const parsed = schema.safeParse(request);
        if (!parsed.success) {
          const issues = parsed.error.issues.map((i: z.core.$ZodIssue) =>
            `${i.path.join(".") || "(params)"}: ${i.message}`
          );
          throw new McpError(
            ErrorCode.InvalidParams,
            `Invalid params for ${method}: ${issues.join("; ")}`,
          );
        }
        return handler(parsed.data, extra);
      },
    );
  }
}

/** Builds an MCP server over the registry for `caller` (one per HTTP request, or per stdio session). */
export function createMcpServer(deps: McpServerDeps, caller: Caller): Server {
  const server: Server = new ParamsCheckingServer(SERVER_INFO, {
    capabilities: { tools: { listChanged: true } },
    // Validates without code generation (no eval), so it runs on edge runtimes.
    jsonSchemaValidator: createJsonSchemaValidator(),
  });
  const policy = deps.policy ?? OPEN_POLICY;
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: policy.filter(mcpToolList(deps.registry), { caller }),
  }));
  server.setRequestHandler(
    CallToolRequestSchema,
    (
      request: { params: { name: string; arguments?: Record<string, unknown> } },
      extra: { signal: AbortSignal },
    ) => callTool(deps, caller, request.params, extra.signal),
  );
  return server;
}

/** Runs one `tools/call`: parse the args, run within the timeout, audit, shape the result. */
export async function callTool(
  deps: McpServerDeps,
  caller: Caller,
  params: { name: string; arguments?: Record<string, unknown> },
  signal: AbortSignal,
): Promise<CallToolResult> {
  const started = performance.now();
  const refuse = (
    tool: string,
    message: string,
    code: number = ErrorCode.InvalidParams,
    data?: Record<string, unknown>,
    outcome = "VALIDATION_FAILED",
  ): never => {
    deps.onOutcome?.(outcome);
    audit(deps, caller, {
      tool: tool.slice(0, 200),
      input: params.arguments,
      success: false,
      error: message,
      started,
    });
    throw new McpError(code, message, data);
  };
  const tool = deps.registry.get(params.name);
  if (!tool) {
    return refuse(
      params.name,
      `Tool "${params.name}" not found; tools/list shows the available tools`,
      ErrorCode.InvalidParams,
      undefined,
      "UNKNOWN_TOOL",
    );
  }
  const policy = deps.policy ?? OPEN_POLICY;
  const refusal = policy.refusal(tool.name, { caller });
  if (refusal !== undefined) {
    return refuse(tool.name, refusal, JSON_RPC_CODE.FORBIDDEN, {
      code: "TOOL_NOT_PERMITTED",
      tool: tool.name,
    }, "TOOL_NOT_PERMITTED");
  }
  const parsed = tool.argsSchema.safeParse(params.arguments ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) =>
      `${i.path.join(".") || "(arguments)"}: ${i.message}`
    );
    return refuse(tool.name, `Invalid arguments for tool "${tool.name}": ${issues.join("; ")}`);
  }
  const timeout = startDeadline(deps.callTimeoutMs, { kind: "step_timeout", parents: [signal] });
  try {
    const output = await raceAbort(
      (async () =>
        tool.run({
          ...(await deps.services?.(caller)),
          args: parsed.data,
          context: {},
          results: [],
          caller,
          signal: timeout.signal,
        }))(),
      timeout.signal,
    );
    audit(deps, caller, {
      tool: tool.name,
      input: parsed.data,
      output,
      success: true,
      started,
    });
    return toCallResult(tool, output);
  } catch (error) {
    const message = redactKeyShapes(describeError(error));
    deps.onOutcome?.(isAppError(error) ? error.code : "TOOL_FAILED");
    audit(deps, caller, {
      tool: tool.name,
      input: parsed.data,
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
  deps: McpServerDeps,
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
  deps.audit.record(caller, [{
    source: "mcp",
    tool: event.tool,
    input: event.input,
    output: event.output,
    success: event.success,
    error: event.error,
    durationMs: Math.round((performance.now() - event.started) * 1000) / 1000,
  }]).catch((error) => {
    deps.logger.error("could not write the audit row of an MCP tool call", {
      tool: loggableToolName(event.tool),
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
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
