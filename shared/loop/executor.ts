/**
 * Runs a checked plan, each step through the one way a tool is called
 * (tools/invoke_tool.ts). A failing step is a value in the trace, not an
 * exception: later steps still run. Consecutive read-only steps
 * (`readOnlyHint: true`) that do not reference each other run at the same
 * time (at most four, see step_order.ts); `finalize_summary`, which reads every
 * earlier result, and everything else run in order, and results keep plan
 * order. Once the run's signal aborts (its deadline, a cancel), the remaining
 * steps are recorded as not run — or, in a durable run, left for the resume.
 * A step a person must approve first is held: it gets an APPROVAL_PENDING
 * entry, the steps that need it wait too, and the others run.
 */
import type { ActionResult, LoopEvent, MCPRequest } from "../contracts.ts";
import type { AuditLog, Caller, Logger, UsageMeter } from "../ports.ts";
import {
  type ApprovalVerdict,
  type CallErrorCode,
  invokeTool,
  toActionResult,
  type ToolCall,
} from "../tools/invoke_tool.ts";
import { loggableToolName, type ToolServices } from "../tools/tool.ts";
import { describeIssues, parseArgs } from "../tools/tool_args.ts";
import type { ToolPolicy } from "../tools/tool_policy.ts";
import type { RegisteredTool, ToolRegistry } from "../tools/tool_registry.ts";
import type { CheckedStep } from "./plan_check.ts";
import { resolveReferences } from "./references.ts";
import { batches, blockedBy } from "./step_order.ts";

/** Decides whether the step at `position` may run now with its parsed args. */
export type StepGate = (
  position: number,
  tool: RegisteredTool,
  args: unknown,
) => Promise<ApprovalVerdict>;

/** What {@link executePlan} needs. */
export interface ExecuteInput {
  steps: readonly CheckedStep[];
  /** The round these steps belong to. */
  round: number;
  /**
   * The run's entries so far, by position (references reach them): steps of
   * this round that already have a real entry (a resumed round) are not run again.
   */
  earlier: readonly (ActionResult | undefined)[];
  /** The loop context; each successful step's output is stored under its tool name. */
  context: Record<string, unknown>;
  request: MCPRequest;
  caller: Caller;
  registry: Pick<ToolRegistry, "get">;
  policy?: ToolPolicy;
  audit: AuditLog;
  requestId?: string;
  /** The durable run these steps belong to, if any. */
  runId?: string;
  /** Aborts when the steps must stop (the deadline nears, a cancel). */
  signal: AbortSignal;
  stepTimeoutMs: number;
  logger: Logger;
  onEvent: (event: LoopEvent) => void;
  usage?: UsageMeter;
  services?: ToolServices;
  /** Approvals: which steps may run now (default: all). */
  gate?: StepGate;
  /** Awaited before a step that may write runs (a durable run records it as started). */
  beforeWrite?: (position: number) => Promise<void>;
  /** Leave steps the signal stops without an entry (a durable run resumes them). */
  keepUnrun?: boolean;
}

/**
 * This round's entries by run position: a new entry, or undefined for a step
 * that was held and is now left unrun. Steps without one were left for later.
 */
export type StepEntries = Map<number, ActionResult | undefined>;

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
      else if (blocker === "unrun") leaveUnrun(step, input, entries, waiting);
      else {
        waiting.set(step.position, "held");
        entries.set(step.position, waitsFor(step, input.round, blocker));
      }
    }
    const done = await Promise.all(ready.map((step) => runStep(step, input, all)));
    done.forEach((result, i) => {
      const step = ready[i];
      if (result === "unrun") return leaveUnrun(step, input, entries, waiting);
      entries.set(step.position, result);
      if (isHeld(result)) return void waiting.set(step.position, "held");
      input.onEvent({ type: "step_end", index: step.position, round: input.round, result });
      if (result.success) input.context[result.tool] = result.output;
    });
  }
  return entries;
}

/** A step left for a resume: no entry (a held entry it had from before is dropped). */
function leaveUnrun(
  step: CheckedStep,
  input: ExecuteInput,
  entries: StepEntries,
  waiting: Map<number, "held" | "unrun">,
): void {
  waiting.set(step.position, "unrun");
  if (input.earlier[step.position] !== undefined) entries.set(step.position, undefined);
}

/** The run's entries with this round's new ones in place. */
function withEntries(
  earlier: readonly (ActionResult | undefined)[],
  entries: StepEntries,
): (ActionResult | undefined)[] {
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

/** Runs one step through `invokeTool`; "unrun" when the signal stopped it first in a durable run. */
async function runStep(
  step: CheckedStep,
  input: ExecuteInput,
  earlier: readonly (ActionResult | undefined)[],
): Promise<ActionResult | "unrun"> {
  const call = toCall(step, input, earlier);
  if (input.signal.aborted && input.keepUnrun && !("refused" in call)) return "unrun";
  const outcome = await invokeTool(call, {
    registry: input.registry,
    caller: input.caller,
    policy: input.policy,
    mode: input.request.mode,
    approve: input.gate && ((tool, args) => input.gate!(step.position, tool, args)),
    beforeWrite: input.beforeWrite && (() => input.beforeWrite!(step.position)),
    onStart: () =>
      input.onEvent({
        type: "step_start",
        index: step.position,
        round: input.round,
        tool: step.action.tool,
        args: step.action.args,
      }),
    signal: input.signal,
    timeoutMs: input.stepTimeoutMs,
    audit: input.audit,
    source: "loop",
    sessionId: input.request.sessionId,
    requestId: input.requestId,
    runId: input.runId,
    logger: input.logger,
    services: input.services,
    context: input.context,
    results: earlier.filter((result): result is ActionResult => result !== undefined),
    request: input.request,
    usage: input.usage,
  });
  return toActionResult(outcome, input.round);
}

/** The call a checked step makes: its resolved and parsed args, or why it cannot be made. */
function toCall(
  step: CheckedStep,
  input: ExecuteInput,
  earlier: readonly (ActionResult | undefined)[],
): ToolCall {
  const { tool: name, args } = step.action;
  const refused = (code: CallErrorCode, error: string, withArgs: unknown = args) => ({
    name,
    args: withArgs,
    refused: { code, error },
  });
  switch (step.status) {
    case "unknown_tool":
      input.logger.warn("plan names an unknown tool; step skipped", {
        tool: loggableToolName(name),
        index: step.position,
      });
      return refused("UNKNOWN_TOOL", `unknown tool "${name}"`);
    case "not_permitted":
      input.logger.warn("plan names a tool the policy does not permit; step refused", {
        tool: loggableToolName(name),
        index: step.position,
        mode: input.request.mode,
      });
      return refused("TOOL_NOT_PERMITTED", step.reason);
    case "invalid_args":
      return refused("TOOL_ARGS_INVALID", `invalid args: ${describeIssues(step.issues)}`);
    case "ok":
      return { tool: step.tool, args: step.args, parsed: true };
  }
  const resolved = resolveReferences(step.action.args, earlier as ActionResult[]);
  if (!resolved.ok) return refused(resolved.code, resolved.error);
  const parsed = parseArgs(step.tool, resolved.args);
  if (!parsed.ok) {
    return refused(
      "TOOL_ARGS_INVALID",
      `invalid args once references were resolved: ${describeIssues(parsed.issues)}`,
      resolved.args,
    );
  }
  return { tool: step.tool, args: parsed.args, parsed: true };
}
