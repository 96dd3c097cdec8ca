/**
 * Runs a checked plan in order. A failing step is a value in the trace, not an
 * exception: later steps still run. Every step has a timeout, and once the
 * request's deadline passes the remaining steps are recorded as not run.
 */
import type { ActionResult, MCPRequest } from "../contracts.ts";
import { describeError, errorKind } from "../errors.ts";
import { loggableToolName } from "../tools/tool.ts";
import type { Caller, Logger } from "../ports.ts";
import { raceAbort, startDeadline, TimeoutReason } from "./abort.ts";
import type { LoopEvent } from "./events.ts";
import type { CheckedStep } from "./plan_check.ts";

/** The codes a failed step is recorded with. */
export type StepErrorCode =
  | "UNKNOWN_TOOL"
  | "TOOL_NOT_PERMITTED"
  | "TOOL_ARGS_INVALID"
  | "TOOL_FAILED"
  | "DEADLINE_EXCEEDED";

/** What {@link executePlan} needs. */
export interface ExecuteInput {
  steps: readonly CheckedStep[];
  /** The loop context; each successful step's output is stored under its tool name. */
  context: Record<string, unknown>;
  request: MCPRequest;
  caller: Caller;
  /** Aborts when the request's deadline passes. */
  signal: AbortSignal;
  stepTimeoutMs: number;
  logger: Logger;
  onEvent: (event: LoopEvent) => void;
}

/** Executes the steps and returns the trace, one entry per step. */
export async function executePlan(input: ExecuteInput): Promise<ActionResult[]> {
  const results: ActionResult[] = [];
  for (const step of input.steps) {
    input.onEvent({ type: "step_start", index: step.index, tool: step.action.tool });
    const result = await runStep(step, input, results);
    results.push(result);
    if (result.success) input.context[result.tool] = result.output;
    input.onEvent({ type: "step_end", index: step.index, result });
  }
  return results;
}

async function runStep(
  step: CheckedStep,
  input: ExecuteInput,
  earlier: readonly ActionResult[],
): Promise<ActionResult> {
  const { tool: name, args } = step.action;
  const failed = (code: StepErrorCode, error: string, durationMs = 0): ActionResult => ({
    tool: name,
    input: args,
    output: null,
    success: false,
    error,
    code,
    durationMs,
  });
  if (step.status === "unknown_tool") {
    input.logger.warn("plan names an unknown tool; step skipped", {
      tool: loggableToolName(name),
      index: step.index,
    });
    return failed("UNKNOWN_TOOL", `unknown tool "${name}"`);
  }
  if (step.status === "not_permitted") {
    input.logger.warn("plan names a tool the policy does not permit; step refused", {
      tool: loggableToolName(name),
      index: step.index,
      mode: input.request.mode,
    });
    return failed("TOOL_NOT_PERMITTED", step.reason);
  }
  if (step.status === "invalid_args") {
    const detail = step.issues.map((issue) =>
      `${issue.path.join(".") || "(args)"}: ${issue.message}`
    );
    return failed("TOOL_ARGS_INVALID", `invalid args: ${detail.join("; ")}`);
  }
  if (input.signal.aborted) {
    return failed(
      "DEADLINE_EXCEEDED",
      `not run: ${describeError(input.signal.reason)} before this step started`,
    );
  }
  const timeout = startDeadline(input.stepTimeoutMs, {
    kind: "step_timeout",
    parents: [input.signal],
  });
  const started = performance.now();
  try {
    const output = await raceAbort(
      Promise.resolve().then(() =>
        step.tool.run({
          args: step.args,
          context: input.context,
          results: earlier,
          signal: timeout.signal,
          caller: input.caller,
          request: input.request,
        })
      ),
      timeout.signal,
    );
    return {
      tool: name,
      input: step.args,
      output: output ?? null,
      success: true,
      durationMs: elapsed(started),
    };
  } catch (error) {
    // The message stays in the trace and the audit row: it may quote the user or the tool's data.
    input.logger.warn("tool failed", { tool: name, error: errorKind(error) });
    const code = error instanceof TimeoutReason ? "DEADLINE_EXCEEDED" : "TOOL_FAILED";
    return { ...failed(code, describeError(error), elapsed(started)), input: step.args };
  } finally {
    timeout.clear();
  }
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 1000) / 1000;
}
