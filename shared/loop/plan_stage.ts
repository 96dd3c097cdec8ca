/**
 * Stage 2 of the loop: ask the planner for a plan and check all of it. A
 * planner that can repair gets one more round with the exact problems.
 */
import type { ActionResult, MCPRequest, PlannedAction } from "../contracts.ts";
import { AppError, isAppError } from "../errors.ts";
import type {
  Caller,
  Logger,
  PlanFeedback,
  PlanInput,
  Planner,
  PlannerTool,
  RoundFeedback,
  UsageMeter,
} from "../ports.ts";
import { truncateRaw } from "../planner/plan_parser.ts";
import { RUN_DRIVEN_TOOLS } from "../refinement/refinement_tools.ts";
import { loggableToolName } from "../tools/tool.ts";
import type { ToolPolicy } from "../tools/tool_policy.ts";
import type { ToolRegistry } from "../tools/tool_registry.ts";
import { asStageError } from "./context_stage.ts";
import { raceAbort } from "../abort.ts";
import {
  type CheckedStep,
  checkSteps,
  describeProblems,
  parsePlanShape,
  type ToolLookup,
} from "./plan_check.ts";
import { selectTools, type ToolSearch } from "./tool_selection.ts";
import { SEARCH_TOOLS } from "../tools/search_tools.ts";

/** The outcome of the plan stage. */
export interface PlanOutcome {
  plan: PlannedAction[];
  steps: CheckedStep[];
  repaired: boolean;
  /** The tools the planner was offered, in prompt order (later rounds keep them). */
  offered: string[];
  /** The prompt held untrusted text: tool outputs, a remote server's tools, other sessions' messages. */
  tainted: boolean;
}

/** Inputs of {@link planStage}. */
export interface PlanStageInput {
  planner: Planner;
  registry: ToolRegistry;
  request: MCPRequest;
  /** The loop context without the raw embedding. */
  context: Record<string, unknown>;
  signal: AbortSignal;
  logger: Logger;
  /** Which tools this mode and caller may use; the planner sees only those. */
  policy: ToolPolicy;
  caller: Caller;
  /** The round being planned (1 for the first) and the most rounds the run may take. */
  round?: number;
  maxRounds?: number;
  /** The steps of earlier rounds: the plan's first step is step `results.length`. */
  results?: readonly ActionResult[];
  /** The previous round's score, in a refinement run. */
  feedback?: RoundFeedback;
  usage?: UsageMeter;
  /** Tool search for large catalogs (see tool_selection.ts); without it every permitted tool is offered. */
  toolSearch?: ToolSearch;
  /** The latest message's vector from the context stage (tool search ranks with it). */
  vector?: readonly number[];
  /** The tools the run's earlier rounds were offered. */
  previous?: readonly string[];
}

/** Runs the plan stage. */
export async function planStage(input: PlanStageInput): Promise<PlanOutcome> {
  const results = input.results ?? [];
  const tools = await selectTools({
    permitted: offeredTools(input),
    catalog: input.registry.getToolMetadataList(),
    search: input.toolSearch,
    message: input.request.messages[input.request.messages.length - 1]?.content ?? "",
    vector: input.vector,
    previous: input.previous,
    results,
    signal: input.signal,
    usage: input.usage,
  });
  const offered = new Set(tools.map((tool) => tool.name));
  const planInput: PlanInput = {
    request: input.request,
    context: input.context,
    tools,
    signal: input.signal,
    round: input.round ?? 1,
    maxRounds: input.maxRounds ?? 1,
    results,
    feedback: input.feedback,
    usage: input.usage,
  };
  const check = (attempt: Attempt) =>
    checkAttempt(attempt, { input, offered, offset: results.length });
  let checked = check(await call(() => input.planner.plan(planInput), input.signal));
  const repair = input.planner.repair?.bind(input.planner);
  const repaired = checked.issues.length > 0 && repair !== undefined;
  if (repaired) {
    input.logger.info("plan failed its check; asking the planner to repair it", {
      issues: checked.issues.length,
    });
    const feedback = { issues: checked.issues, raw: checked.raw };
    checked = check(await call(() => repair(planInput, feedback), input.signal));
  }
  if (!checked.plan || !checked.steps) throw invalidPlan(checked);
  return {
    plan: checked.plan,
    steps: checked.steps,
    repaired,
    offered: [...offered],
    tainted: promptTainted(input, tools),
  };
}

/**
 * Whether the prompt held text nobody on the user's side wrote: this run's
 * tool outputs, a remote server's tool descriptions, messages recalled from
 * the caller's other sessions (what the taint rule of approvals looks at).
 */
export function promptTainted(
  input: Pick<PlanStageInput, "results" | "context" | "request">,
  tools: readonly PlannerTool[],
): boolean {
  // A tool's own text: its output, or the message of its failure.
  const toolText = (result: ActionResult) => result.success || result.code === "TOOL_FAILED";
  if ((input.results ?? []).some(toolText)) return true;
  if (tools.some((tool) => tool.remote !== undefined)) return true;
  const matches = input.context.semanticMatches;
  return Array.isArray(matches) &&
    matches.some((match) =>
      (match as { sessionId?: string }).sessionId !== input.request.sessionId
    );
}

interface Checked {
  plan?: PlannedAction[];
  steps?: CheckedStep[];
  issues: string[];
  raw?: string;
}

/** The planner's answer checked whole: its shape, then each step against the tools offered. */
function checkAttempt(
  attempt: Attempt,
  { input, offered, offset }: {
    input: PlanStageInput;
    offered: ReadonlySet<string>;
    offset: number;
  },
): Checked {
  if ("feedback" in attempt) return { ...attempt.feedback };
  const raw = JSON.stringify(attempt.plan);
  const shape = parsePlanShape(attempt.plan);
  if (!shape.ok) return { issues: shape.issues, raw };
  const steps = checkSteps(shape.plan, {
    registry: toolsOf(input),
    offered,
    refusal: refusalOf(input),
    offset,
  });
  return { plan: shape.plan, steps, issues: describeProblems(steps), raw };
}

/** The error for a plan that failed its check (after the repair, if any). */
function invalidPlan(checked: Checked): AppError {
  return new AppError(
    "PLANNER_INVALID_OUTPUT",
    "The planner did not return a valid plan (an array of at most 5 {tool, args} steps); try again or rephrase the request",
    {
      details: {
        issues: checked.issues,
        raw: checked.raw === undefined ? undefined : truncateRaw(checked.raw),
      },
    },
  );
}

/**
 * Checks a plan made earlier (a resumed run's open round) against the tools
 * offered now, as {@link planStage} checks a new one.
 */
export function checkPlanned(
  plan: readonly PlannedAction[],
  input: Omit<PlanStageInput, "context" | "signal"> & { offset: number },
): CheckedStep[] {
  const offered = new Set(offeredTools(input).map((tool) => tool.name));
  if (input.toolSearch) offered.add(SEARCH_TOOLS);
  return checkSteps(plan, {
    registry: toolsOf(input),
    offered,
    refusal: refusalOf(input),
    offset: input.offset,
  });
}

/** Where a plan's tools are looked up: the registry, and `search_tools` with tool search. */
function toolsOf(input: Pick<PlanStageInput, "registry" | "toolSearch">): ToolLookup {
  const search = input.toolSearch?.tool;
  if (!search) return input.registry;
  return { get: (name) => (name === SEARCH_TOOLS ? search : input.registry.get(name)) };
}

/** The tool policy's refusal; `search_tools` only finds tools the policy permits, so it is never refused. */
function refusalOf(
  input: Pick<PlanStageInput, "policy" | "caller" | "request">,
): (tool: string) => string | undefined {
  return (tool) =>
    tool === SEARCH_TOOLS
      ? undefined
      : input.policy.refusal(tool, { caller: input.caller, mode: input.request.mode });
}

/**
 * The registry's tools that the policy permits to this mode and caller,
 * restricted to `availableTools` when the request names some; in a refinement
 * run, without the tools that start and score a loop (the runner does that).
 */
function offeredTools(
  { registry, request, logger, policy, caller }: Pick<
    PlanStageInput,
    "registry" | "request" | "logger" | "policy" | "caller"
  >,
): PlannerTool[] {
  const permitted = policy.filter(registry.getToolMetadataList(), { caller, mode: request.mode });
  const all = request.refinement
    ? permitted.filter((tool) => !RUN_DRIVEN_TOOLS.includes(tool.name))
    : permitted;
  if (!request.availableTools) return all;
  const wanted = new Set(request.availableTools.map((tool) => tool.name));
  const offered = all.filter((tool) => wanted.has(tool.name));
  if (offered.length < wanted.size) {
    const known = new Set(offered.map((tool) => tool.name));
    logger.warn("availableTools names tools that are not registered or not permitted here", {
      missing: [...wanted].filter((name) => !known.has(name)).map(loggableToolName),
    });
  }
  return offered;
}

type Attempt = { plan: unknown } | { feedback: PlanFeedback };

async function call(fn: () => Promise<PlannedAction[]>, signal: AbortSignal): Promise<Attempt> {
  try {
    return { plan: await raceAbort(Promise.resolve().then(fn), signal) };
  } catch (error) {
    if (isAppError(error) && error.code === "PLANNER_INVALID_OUTPUT") {
      const details = (error.details ?? {}) as Partial<PlanFeedback>;
      return { feedback: { raw: details.raw, issues: details.issues ?? [error.message] } };
    }
    throw asStageError(
      error,
      signal,
      () => "The planner failed unexpectedly; try again",
      "INTERNAL",
    );
  }
}
