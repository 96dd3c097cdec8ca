/**
 * The one way a tool is called, by the loop's executor and by MCP `tools/call`
 * alike: the tool policy, the arguments through the tool's schema, a person's
 * approval when the call needs one, the call itself within its timeout and the
 * caller's abort, and its audit row. A failure is a value ({@link ToolOutcome}),
 * never an exception, so one bad call never tears down a run or a request.
 */
import { describeError, errorKind, isAppError } from "../errors.ts";
import { raceAbort, startDeadline, TimeoutReason } from "../abort.ts";
import type { ActionResult, MCPRequest, Mode } from "../contracts.ts";
import { redactKeyShapes } from "../log/redact.ts";
import type { AuditLog, Caller, Logger, UsageMeter } from "../ports.ts";
import { loggableToolName, type ToolServices } from "./tool.ts";
import { describeIssues, parseArgs } from "./tool_args.ts";
import type { ToolPolicy } from "./tool_policy.ts";
import type { RegisteredTool, ToolRegistry } from "./tool_registry.ts";

/** Why a call did not run, or how it failed. */
export type CallErrorCode =
  | "UNKNOWN_TOOL"
  | "TOOL_NOT_PERMITTED"
  | "TOOL_ARGS_INVALID"
  | "DEPENDENCY_FAILED"
  | "TOOL_FAILED"
  | "DEADLINE_EXCEEDED"
  | "CANCELLED"
  | "APPROVAL_DENIED"
  | "APPROVAL_PENDING"
  | "INTERRUPTED"
  | (string & Record<never, never>);

/** What a person decided about a call about to run, as the caller's approval step sees it. */
export type ApprovalVerdict =
  | { kind: "run" }
  /** A person was asked; `detail` is what the surface shows them (an approval id, an MCP result). */
  | { kind: "pending"; approvalId?: string; detail?: unknown }
  | { kind: "refused"; code: CallErrorCode; error: string };

/** A call's end. */
export type ToolOutcome =
  | { status: "ok"; tool: string; args: unknown; output: unknown; durationMs: number }
  | {
    status: "failed";
    tool: string;
    args: unknown;
    code: CallErrorCode;
    error: string;
    durationMs: number;
  }
  | { status: "pending"; tool: string; args: unknown; approvalId?: string; detail?: unknown };

/** A call to make: a tool by name with raw args, or one the plan check already resolved. */
export type ToolCall =
  | { name: string; args: unknown }
  | { tool: RegisteredTool; args: unknown; parsed: true }
  /** A call the plan check refused (recorded and audited like any refusal). */
  | { name: string; args: unknown; refused: { code: CallErrorCode; error: string } };

/** Where and for whom calls run. */
export interface InvokeContext {
  registry: Pick<ToolRegistry, "get">;
  caller: Caller;
  /** The tool policy and the request's mode (refusing before anything else). */
  policy?: ToolPolicy;
  mode?: Mode;
  /** Asks for approval when the call needs it (none: every call runs). */
  approve?: (tool: RegisteredTool, args: unknown) => Promise<ApprovalVerdict> | ApprovalVerdict;
  /** Awaited before a call of a tool that may write runs (a durable run records it as started). */
  beforeWrite?: () => Promise<void>;
  /** Told when the call starts, or is refused (not when it waits for a person). */
  onStart?: () => void;
  /** The caller's abort (a deadline, a cancel, a client that left). */
  signal: AbortSignal;
  timeoutMs: number;
  audit: AuditLog;
  /** What the audit row says about where the call came from. */
  source: "loop" | "mcp";
  sessionId?: string;
  requestId?: string;
  /** The durable run the call belongs to, if any. */
  runId?: string;
  logger: Logger;
  services?: ToolServices;
  /** What the loop gives a tool besides its args. */
  context?: Record<string, unknown>;
  results?: readonly ActionResult[];
  request?: MCPRequest;
  usage?: UsageMeter;
}

/** Calls a tool (see the module doc). */
export async function invokeTool(call: ToolCall, ctx: InvokeContext): Promise<ToolOutcome> {
  const prepared = prepare(call, ctx);
  if ("refused" in prepared) return refusedCall(prepared.refused, ctx);
  const { tool, args } = prepared;
  if (ctx.signal.aborted) {
    const code = ctx.signal.reason instanceof TimeoutReason ? "DEADLINE_EXCEEDED" : "CANCELLED";
    const error = `not run: ${describeError(ctx.signal.reason)} before this call started`;
    return refusedCall({ tool: tool.name, args, code, error }, ctx);
  }
  const verdict = ctx.approve ? await approval(ctx.approve, tool, args) : RUN;
  if (verdict.kind === "pending") {
    const { approvalId, detail } = verdict;
    return { status: "pending", tool: tool.name, args, approvalId, detail };
  }
  if (verdict.kind === "refused") return refusedCall({ tool: tool.name, args, ...verdict }, ctx);
  ctx.onStart?.();
  if (tool.annotations?.readOnlyHint !== true) await ctx.beforeWrite?.();
  return await runCall(tool, args, ctx);
}

const RUN: ApprovalVerdict = { kind: "run" };

/** The approval step's verdict; a failure to check it refuses the call. */
async function approval(
  approve: NonNullable<InvokeContext["approve"]>,
  tool: RegisteredTool,
  args: unknown,
): Promise<ApprovalVerdict> {
  try {
    return await approve(tool, args);
  } catch (error) {
    return {
      kind: "refused",
      code: isAppError(error) ? error.code : "APPROVAL_FAILED",
      error: `Tool "${tool.name}" did not run: its approval could not be checked (${
        redactKeyShapes(describeError(error))
      }). Try again later.`,
    };
  }
}

type Refusal = { tool: string; args: unknown; code: CallErrorCode; error: string };

/** The tool and its parsed args, or why the call cannot run. */
function prepare(
  call: ToolCall,
  ctx: InvokeContext,
): { tool: RegisteredTool; args: unknown } | { refused: Refusal } {
  if ("parsed" in call) return { tool: call.tool, args: call.args };
  if ("refused" in call) return { refused: { tool: call.name, args: call.args, ...call.refused } };
  const refuse = (code: CallErrorCode, error: string) => ({
    refused: { tool: call.name, args: call.args, code, error },
  });
  const tool = ctx.registry.get(call.name);
  if (!tool) {
    return refuse(
      "UNKNOWN_TOOL",
      `Tool "${call.name}" not found; tools/list shows the available tools`,
    );
  }
  const refusal = ctx.policy?.refusal(tool.name, { caller: ctx.caller, mode: ctx.mode });
  if (refusal !== undefined) return refuse("TOOL_NOT_PERMITTED", refusal);
  const parsed = parseArgs(tool, call.args ?? {});
  if (!parsed.ok) {
    return refuse(
      "TOOL_ARGS_INVALID",
      `Invalid arguments for tool "${tool.name}": ${
        describeIssues(parsed.issues)
      }. Fix them and call again; the tool's inputSchema says what each field expects.`,
    );
  }
  return { tool, args: parsed.args };
}

/** Records a call that did not run, and says why. */
function refusedCall(refusal: Refusal, ctx: InvokeContext): ToolOutcome {
  ctx.onStart?.();
  const outcome = { status: "failed" as const, ...refusal, durationMs: 0 };
  audit(outcome, ctx);
  return outcome;
}

/** Runs the tool within its timeout and the caller's abort, and audits it. */
async function runCall(
  tool: RegisteredTool,
  args: unknown,
  ctx: InvokeContext,
): Promise<ToolOutcome> {
  const timeout = startDeadline(ctx.timeoutMs, { kind: "step_timeout", parents: [ctx.signal] });
  const started = performance.now();
  let outcome: ToolOutcome;
  try {
    const output = await raceAbort(
      (async () =>
        tool.run({
          ...(await ctx.services?.(ctx.caller)),
          args,
          context: ctx.context ?? {},
          results: ctx.results ?? [],
          signal: timeout.signal,
          caller: ctx.caller,
          request: ctx.request,
          usage: ctx.usage,
        }))(),
      timeout.signal,
    );
    outcome = {
      status: "ok",
      tool: tool.name,
      args,
      output: output ?? null,
      durationMs: since(started),
    };
  } catch (error) {
    const code = error instanceof TimeoutReason
      ? "DEADLINE_EXCEEDED"
      : timeout.signal.aborted
      ? "CANCELLED"
      : "TOOL_FAILED";
    // Log lines hold no content: an error's text may quote the user or the tool's data.
    ctx.logger.warn("tool failed", {
      tool: tool.name,
      code,
      error: errorKind(error),
      errorText: "in the response trace and the mcp_events row of this request id",
    });
    const error_ = redactKeyShapes(describeError(error));
    outcome = {
      status: "failed",
      tool: tool.name,
      args,
      code,
      error: error_,
      durationMs: since(started),
    };
  } finally {
    timeout.clear();
  }
  audit(outcome, ctx);
  return outcome;
}

/**
 * Queues the call's audit row. The call does not wait for the write (rows are
 * batched; `AuditLog.flush` and shutdown wait for them); a failed write is logged.
 */
function audit(outcome: ToolOutcome, ctx: InvokeContext): void {
  if (outcome.status === "pending") return;
  // The failure handler holds only the logger and the tool's name, not the call's context.
  const { logger } = ctx;
  const tool = loggableToolName(outcome.tool);
  ctx.audit.record(ctx.caller, [{
    source: ctx.source,
    tool: outcome.tool.slice(0, 200),
    input: outcome.args,
    output: outcome.status === "ok" ? outcome.output : undefined,
    success: outcome.status === "ok",
    error: outcome.status === "failed" ? outcome.error : undefined,
    durationMs: outcome.durationMs,
    sessionId: ctx.sessionId,
    requestId: ctx.requestId,
    ...(ctx.runId ? { runId: ctx.runId } : {}),
  }]).catch((error) => {
    logger.error("could not write the audit row of a tool call", {
      tool,
      error: describeError(error),
    });
  });
}

/** A call's outcome as a trace entry (`intermediateResults`). */
export function toActionResult(outcome: ToolOutcome, round?: number): ActionResult {
  const base = { tool: outcome.tool, input: outcome.args, round };
  switch (outcome.status) {
    case "ok":
      return { ...base, output: outcome.output, success: true, durationMs: outcome.durationMs };
    case "failed":
      return {
        ...base,
        output: null,
        success: false,
        error: outcome.error,
        code: outcome.code,
        durationMs: outcome.durationMs,
      };
    case "pending":
      return {
        ...base,
        output: null,
        success: false,
        error: `waiting for a person's approval${
          outcome.approvalId ? ` (${outcome.approvalId})` : ""
        }`,
        code: "APPROVAL_PENDING",
        durationMs: 0,
      };
  }
}

function since(started: number): number {
  return Math.round((performance.now() - started) * 1000) / 1000;
}
