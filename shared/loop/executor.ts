/**
 * Runs a checked plan. A failing step is a value in the trace, not an
 * exception: later steps still run. Consecutive read-only steps
 * (`readOnlyHint: true`) that do not reference each other run at the same time
 * (at most four, see step_order.ts); `finalize_summary`, which reads every earlier
 * result, and everything else runs in order, and results
 * keep plan order. Every step has a timeout, and once the request's deadline
 * passes the remaining steps are recorded as not run — or, in a persisted
 * run, left for the resume. A step a person must approve first is held: it
 * gets an APPROVAL_PENDING entry, the steps that need it wait too, and the
 * others run; a write is announced (`beforeWrite`) before it runs.
 */
import type { ActionResult, MCPRequest } from "../contracts.ts";
import { describeError, errorKind } from "../errors.ts";
import type { Caller, Logger, UsageMeter } from "../ports.ts";
import { loggableToolName, type ToolServices } from "../tools/tool.ts";
import { raceAbort, startDeadline, TimeoutReason } from "./abort.ts";
import type { LoopEvent } from "../contracts.ts";
import type { RegisteredTool } from "../tools/tool_registry.ts";
import { batches, blockedBy } from "./step_order.ts";
import { type CheckedStep, describeIssues, parseArgs } from "./plan_check.ts";
import { resolveReferences } from "./references.ts";

/** The codes a failed step is recorded with. */
export type StepErrorCode =
  | "UNKNOWN_TOOL"
  | "TOOL_NOT_PERMITTED"
  | "TOOL_ARGS_INVALID"
  | "DEPENDENCY_FAILED"
  | "TOOL_FAILED"
  | "DEADLINE_EXCEEDED"
  | "CANCELLED"
  | "APPROVAL_DENIED"
  | "APPROVAL_PENDING"
  | "INTERRUPTED";

/** What a person decided about a step, as far as the executor is concerned. */
export type GateVerdict =
  | { kind: "run" }
  | { kind: "denied"; reason?: string }
  /** Hold the step for approval; `approvalId` names the request the run shows. */
  | { kind: "pending"; approvalId: string };

/** Decides, for a step about to run with its parsed args, whether it may run now. */
export type StepGate = (step: CheckedStep, args: unknown) => GateVerdict;

/** What {@link executePlan} needs. */
export interface ExecuteInput {
  steps: readonly CheckedStep[];
  /** The round these steps belong to. */
  round: number;
  /**
   * The run's entries so far, by position (references reach them): steps of
   * this round that already have a real entry (a resumed round) are not run again.
   */
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
  /** Approvals: which steps may run now (default: all). */
  gate?: StepGate;
  /** Awaited before a step that is not read-only runs (a persisted run records it as started). */
  beforeWrite?: (position: number) => Promise<void>;
  /** Leave steps the deadline reaches without an entry (a persisted run resumes them). */
  keepUnrun?: boolean;
}

/** This round's new entries by run position; steps without one were left for later. */
export type StepEntries = Map<number, ActionResult>;

/** Is this entry a step held for approval (its own, or one it needs)? */
export function isHeld(result: ActionResult | undefined): boolean {
  return result?.code === "APPROVAL_PENDING";
}

/** Executes the steps and returns their entries by position (see {@link ExecuteInput}). */
export async function executePlan(input: ExecuteInput): Promise<StepEntries> {
  const entries: StepEntries = new Map();
  // Steps that cannot run now: held for approval (they have an entry) or left unrun.
  const waiting = new Map<number, "held" | "unrun">();
  const todo = input.steps.filter((step) => {
    const done = input.earlier[step.position];
    return done === undefined || isHeld(done);
  });
  for (const batch of batches(todo)) {
    const all = withEntries(input.earlier, entries);
    const ready: CheckedStep[] = [];
    for (const step of batch) {
      const blocker = blockedBy(step, waiting);
      if (blocker === undefined) ready.push(step);
      else if (blocker === "unrun") waiting.set(step.position, "unrun");
      else {
        waiting.set(step.position, "held");
        entries.set(step.position, waitsFor(step, input.round, blocker));
      }
    }
    const done = await Promise.all(ready.map((step) => runStep(step, input, all)));
    done.forEach((outcome, i) => {
      const { position } = ready[i];
      if (outcome === "unrun") return void waiting.set(position, "unrun");
      const result = { ...outcome, round: input.round };
      entries.set(position, result);
      if (isHeld(result)) return void waiting.set(position, "held");
      input.onEvent({ type: "step_end", index: position, round: input.round, result });
      if (result.success) input.context[result.tool] = result.output;
    });
  }
  return entries;
}

/** The run's entries with this round's new ones in place. */
function withEntries(earlier: readonly ActionResult[], entries: StepEntries): ActionResult[] {
  const all = [...earlier];
  for (const [position, result] of entries) all[position] = result;
  return all;
}

/** The entry of a step that waits for the approval of step `on` (its own, or one it needs). */
function waitsFor(step: CheckedStep, round: number, on: number): ActionResult {
  return {
    tool: step.action.tool,
    input: step.action.args,
    output: null,
    success: false,
    error: `waiting: step ${on} needs a person's approval first`,
    code: "APPROVAL_PENDING",
    durationMs: 0,
    round,
  };
}

type Failed = (code: StepErrorCode, error: string, args?: unknown) => Omit<ActionResult, "round">;

/** The step's tool and parsed args (references resolved), or the entry saying why it cannot run. */
function prepareArgs(
  step: CheckedStep,
  input: ExecuteInput,
  earlier: readonly ActionResult[],
  failed: Failed,
): { tool: RegisteredTool; args: unknown } | { refused: Omit<ActionResult, "round"> } {
  const name = step.action.tool;
  switch (step.status) {
    case "unknown_tool":
      input.logger.warn("plan names an unknown tool; step skipped", {
        tool: loggableToolName(name),
        index: step.position,
      });
      return { refused: failed("UNKNOWN_TOOL", `unknown tool "${name}"`) };
    case "not_permitted":
      input.logger.warn("plan names a tool the policy does not permit; step refused", {
        tool: loggableToolName(name),
        index: step.position,
        mode: input.request.mode,
      });
      return { refused: failed("TOOL_NOT_PERMITTED", step.reason) };
    case "invalid_args":
      return {
        refused: failed("TOOL_ARGS_INVALID", `invalid args: ${describeIssues(step.issues)}`),
      };
    case "ok":
      return { tool: step.tool, args: step.args };
  }
  const resolved = resolveReferences(step.action.args, earlier);
  if (!resolved.ok) return { refused: failed(resolved.code, resolved.error) };
  const parsed = parseArgs(step.tool, resolved.args);
  if (!parsed.ok) {
    return {
      refused: failed(
        "TOOL_ARGS_INVALID",
        `invalid args once references were resolved: ${describeIssues(parsed.issues)}`,
        resolved.args,
      ),
    };
  }
  return { tool: step.tool, args: parsed.args };
}

async function runStep(
  step: CheckedStep,
  input: ExecuteInput,
  earlier: readonly ActionResult[],
): Promise<Omit<ActionResult, "round"> | "unrun"> {
  const { tool: name, args: planned } = step.action;
  const start = () =>
    input.onEvent({
      type: "step_start",
      index: step.position,
      round: input.round,
      tool: name,
      args: planned,
    });
  const failed = (code: StepErrorCode, error: string, args: unknown = planned) => ({
    tool: name,
    input: args,
    output: null,
    success: false,
    error,
    code,
    durationMs: 0,
  });
  const prepared = prepareArgs(step, input, earlier, failed);
  if ("refused" in prepared) {
    start();
    return prepared.refused;
  }
  const { tool, args } = prepared;
  if (input.signal.aborted) {
    if (input.keepUnrun) return "unrun";
    start();
    return failed(
      input.signal.reason instanceof TimeoutReason ? "DEADLINE_EXCEEDED" : "CANCELLED",
      `not run: ${describeError(input.signal.reason)} before this step started`,
      args,
    );
  }
  const verdict = input.gate?.(step, args) ?? { kind: "run" };
  if (verdict.kind === "pending") {
    return failed(
      "APPROVAL_PENDING",
      `waiting for a person's approval (${verdict.approvalId})`,
      args,
    );
  }
  start();
  if (verdict.kind === "denied") {
    const why = verdict.reason ? `: ${verdict.reason}` : "";
    return failed("APPROVAL_DENIED", `a person denied this call${why}`, args);
  }
  if (tool.annotations?.readOnlyHint !== true) await input.beforeWrite?.(step.position);
  const timeout = startDeadline(input.stepTimeoutMs, {
    kind: "step_timeout",
    parents: [input.signal],
  });
  const started = performance.now();
  try {
    const output = await raceAbort(
      (async () =>
        tool.run({
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
