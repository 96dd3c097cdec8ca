/**
 * Runs a checked plan. A failing step is a value in the trace, not an
 * exception: later steps still run. Consecutive read-only steps
 * (`readOnlyHint: true`) that do not reference each other run at the same time
 * (at most {@link MAX_PARALLEL}); `finalize_summary`, which reads every earlier
 * result, and everything else runs in order, and results
 * keep plan order. Every step has a timeout, and once the request's deadline
 * passes the remaining steps are recorded as not run.
 */
import type { ActionResult, MCPRequest } from "../contracts.ts";
import { describeError, errorKind } from "../errors.ts";
import type { Caller, Logger, UsageMeter } from "../ports.ts";
import { FINALIZE_TOOL } from "../tools/finalize_summary.ts";
import { loggableToolName, type ToolServices } from "../tools/tool.ts";
import { raceAbort, startDeadline, TimeoutReason } from "./abort.ts";
import type { LoopEvent } from "../contracts.ts";
import { type CheckedStep, describeIssues, parseArgs } from "./plan_check.ts";
import { findReferences, parsePointer, resolveReferences } from "./references.ts";

/** Most steps run at the same time. */
export const MAX_PARALLEL = 4;

/** The codes a failed step is recorded with. */
export type StepErrorCode =
  | "UNKNOWN_TOOL"
  | "TOOL_NOT_PERMITTED"
  | "TOOL_ARGS_INVALID"
  | "DEPENDENCY_FAILED"
  | "TOOL_FAILED"
  | "DEADLINE_EXCEEDED"
  | "CANCELLED";

/** What {@link executePlan} needs. */
export interface ExecuteInput {
  steps: readonly CheckedStep[];
  /** The round these steps belong to. */
  round: number;
  /** The steps of earlier rounds (references reach them by position). */
  earlier: readonly ActionResult[];
  /** The loop context; each successful step's output is stored under its tool name. */
  context: Record<string, unknown>;
  request: MCPRequest;
  caller: Caller;
  /** Aborts when the request's deadline passes. */
  signal: AbortSignal;
  stepTimeoutMs: number;
  logger: Logger;
  onEvent: (event: LoopEvent) => void;
  usage?: UsageMeter;
  /** The caller-bound clients a tool gets (supabase-js, the database). */
  services?: ToolServices;
}

/** Executes the steps and returns their trace entries, in plan order. */
export async function executePlan(input: ExecuteInput): Promise<ActionResult[]> {
  const results: ActionResult[] = [];
  for (const batch of batches(input.steps)) {
    const all = [...input.earlier, ...results];
    for (const step of batch) {
      input.onEvent({
        type: "step_start",
        index: step.position,
        round: input.round,
        tool: step.action.tool,
        args: step.action.args,
      });
    }
    const done = await Promise.all(batch.map(async (step) => {
      const result = { ...(await runStep(step, input, all)), round: input.round };
      input.onEvent({ type: "step_end", index: step.position, round: input.round, result });
      return result;
    }));
    for (const result of done) {
      results.push(result);
      if (result.success) input.context[result.tool] = result.output;
    }
  }
  return results;
}

/**
 * The steps in groups that run together: a group is one step, or consecutive
 * read-only steps (at most {@link MAX_PARALLEL}) none of which references another.
 */
export function batches(steps: readonly CheckedStep[]): CheckedStep[][] {
  const groups: CheckedStep[][] = [];
  let current: CheckedStep[] = [];
  for (const step of steps) {
    // finalize_summary reads every earlier result, so it never joins a group.
    const parallel = isReadOnly(step) && step.action.tool !== FINALIZE_TOOL &&
      current.length < MAX_PARALLEL && current.every(isReadOnly) && !referencesAny(step, current);
    if (!parallel && current.length > 0) {
      groups.push(current);
      current = [];
    }
    current.push(step);
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

function isReadOnly(step: CheckedStep): boolean {
  return (step.status === "ok" || step.status === "deferred") &&
    step.tool.annotations?.readOnlyHint === true;
}

function referencesAny(step: CheckedStep, group: readonly CheckedStep[]): boolean {
  const positions = new Set(group.map((s) => s.position));
  return findReferences(step.action.args).some(({ pointer }) => {
    const parsed = parsePointer(pointer);
    return typeof parsed !== "string" && positions.has(parsed.step);
  });
}

async function runStep(
  step: CheckedStep,
  input: ExecuteInput,
  earlier: readonly ActionResult[],
): Promise<Omit<ActionResult, "round">> {
  const { tool: name, args: planned } = step.action;
  const failed = (code: StepErrorCode, error: string, args: unknown = planned) => ({
    tool: name,
    input: args,
    output: null,
    success: false,
    error,
    code,
    durationMs: 0,
  });
  switch (step.status) {
    case "unknown_tool":
      input.logger.warn("plan names an unknown tool; step skipped", {
        tool: loggableToolName(name),
        index: step.position,
      });
      return failed("UNKNOWN_TOOL", `unknown tool "${name}"`);
    case "not_permitted":
      input.logger.warn("plan names a tool the policy does not permit; step refused", {
        tool: loggableToolName(name),
        index: step.position,
        mode: input.request.mode,
      });
      return failed("TOOL_NOT_PERMITTED", step.reason);
    case "invalid_args":
      return failed("TOOL_ARGS_INVALID", `invalid args: ${describeIssues(step.issues)}`);
  }
  let args = step.status === "ok" ? step.args : undefined;
  if (step.status === "deferred") {
    const resolved = resolveReferences(planned, earlier);
    if (!resolved.ok) return failed(resolved.code, resolved.error);
    const parsed = parseArgs(step.tool, resolved.args);
    if (!parsed.ok) {
      return failed(
        "TOOL_ARGS_INVALID",
        `invalid args once references were resolved: ${describeIssues(parsed.issues)}`,
        resolved.args,
      );
    }
    args = parsed.args;
  }
  if (input.signal.aborted) {
    return failed(
      input.signal.reason instanceof TimeoutReason ? "DEADLINE_EXCEEDED" : "CANCELLED",
      `not run: ${describeError(input.signal.reason)} before this step started`,
      args,
    );
  }
  const timeout = startDeadline(input.stepTimeoutMs, {
    kind: "step_timeout",
    parents: [input.signal],
  });
  const started = performance.now();
  try {
    const output = await raceAbort(
      (async () =>
        step.tool.run({
          ...(await input.services?.(input.caller)),
          args,
          context: input.context,
          results: earlier,
          signal: timeout.signal,
          caller: input.caller,
          request: input.request,
          usage: input.usage,
        }))(),
      timeout.signal,
    );
    return {
      tool: name,
      input: args,
      output: output ?? null,
      success: true,
      durationMs: elapsed(started),
    };
  } catch (error) {
    const code = error instanceof TimeoutReason
      ? "DEADLINE_EXCEEDED"
      : timeout.signal.aborted
      ? "CANCELLED"
      : "TOOL_FAILED";
    // Log lines hold no content, and an error's text may quote the user or the tool's data:
    // the line says where the text is instead (the trace, and the audit row of this request id).
    input.logger.warn("tool failed", {
      tool: name,
      code,
      error: errorKind(error),
      errorText: "in the response trace and the mcp_events row of this request id",
    });
    return { ...failed(code, describeError(error), args), durationMs: elapsed(started) };
  } finally {
    timeout.clear();
  }
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 1000) / 1000;
}
