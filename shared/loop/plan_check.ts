/**
 * Checks a whole plan before any step runs: its shape, every tool id and every
 * step's args. The result says, per step, what the executor should do.
 */
import { z } from "zod";
import { LIMITS, PlannedAction } from "../contracts.ts";
import { AppError } from "../errors.ts";
import type { RegisteredTool, ToolRegistry } from "../tools/tool_registry.ts";
import { findReferences, referenceProblems } from "./references.ts";
import { type ArgIssue, describeIssues, parseArgs } from "../tools/tool_args.ts";

/**
 * A step after the check. `index` is its place in this plan, `position` its
 * place in the run (the `n` of `/steps/<n>`). A step whose args hold step
 * references is "deferred": its args are checked once they are resolved.
 */
export type CheckedStep =
  & { index: number; position: number; action: PlannedAction }
  & (
    | { status: "ok"; tool: RegisteredTool; args: unknown }
    | { status: "deferred"; tool: RegisteredTool }
    | { status: "unknown_tool" }
    | { status: "not_permitted"; reason: string }
    | { status: "invalid_args"; issues: ArgIssue[] }
  );

/** Where a plan's tools are found by name (the registry, or a view of it). */
export type ToolLookup = Pick<ToolRegistry, "get">;

const PlanShape = z.array(PlannedAction).max(LIMITS.maxPlanSteps, {
  error: `a plan has at most ${LIMITS.maxPlanSteps} steps`,
});

/** Parses a planner's output as `PlannedAction[]`; lists the problems when it is not one. */
export function parsePlanShape(
  raw: unknown,
): { ok: true; plan: PlannedAction[] } | { ok: false; issues: string[] } {
  const parsed = PlanShape.safeParse(raw);
  if (parsed.success) return { ok: true, plan: parsed.data };
  return { ok: false, issues: parsed.error.issues.map(formatIssue) };
}

/**
 * Checks each step's tool id (registered, permitted by the tool policy, and
 * offered to this request), its step references (well formed, to an earlier
 * step) and, for a step without references, parses its args with the tool's
 * schema. `offset` is the run position of the plan's first step.
 */
export function checkSteps(
  plan: readonly PlannedAction[],
  { registry, offered, refusal = () => undefined, offset = 0 }: {
    registry: ToolLookup;
    offered: ReadonlySet<string>;
    /** Why the policy refuses a registered tool; undefined when it permits it. */
    refusal?: (tool: string) => string | undefined;
    offset?: number;
  },
): CheckedStep[] {
  return plan.map((action, index) => {
    const at = { index, position: offset + index, action };
    const reason = registry.get(action.tool) ? refusal(action.tool) : undefined;
    if (reason !== undefined) return { ...at, status: "not_permitted", reason };
    const tool = offered.has(action.tool) ? registry.get(action.tool) : undefined;
    if (!tool) return { ...at, status: "unknown_tool" };
    const references = findReferences(action.args);
    if (references.length > 0) {
      const problems = referenceProblems(references, at.position);
      if (problems.length === 0) return { ...at, status: "deferred", tool };
      const issues = problems.map(([path, message]) => ({
        path: [...path, "$ref"],
        message,
        code: "invalid_reference",
      }));
      return { ...at, status: "invalid_args", issues };
    }
    const parsed = parseArgs(tool, action.args);
    return parsed.ok
      ? { ...at, status: "ok", tool, args: parsed.args }
      : { ...at, status: "invalid_args", issues: parsed.issues };
  });
}

/** Problems of a checked plan as lines a model can act on; empty when all is well. */
export function describeProblems(steps: readonly CheckedStep[]): string[] {
  const lines: string[] = [];
  for (const step of steps) {
    if (step.status === "unknown_tool") {
      lines.push(
        `[${step.index}].tool: unknown tool "${step.action.tool}"; use one of the listed tool ids`,
      );
    } else if (step.status === "not_permitted") {
      lines.push(
        `[${step.index}].tool: tool "${step.action.tool}" is not permitted here; use one of the listed tool ids`,
      );
    } else if (step.status === "invalid_args") {
      for (const issue of step.issues) {
        lines.push(
          `[${step.index}].args${
            formatPath(issue.path)
          }: ${issue.message} (tool "${step.action.tool}")`,
        );
      }
    }
  }
  return lines;
}

function formatIssue(issue: z.core.$ZodIssue): string {
  return `${formatPath(issue.path) || "(plan)"}: ${issue.message}`;
}

function formatPath(path: readonly PropertyKey[]): string {
  return path.map((key) => typeof key === "number" ? `[${key}]` : `.${String(key)}`).join("");
}

/**
 * The executor rules that stop a request before anything runs: unknown tools
 * when `unknownTool` is "fail", invalid args when `invalidArgs` is "fail".
 */
export function enforceRules(
  steps: readonly CheckedStep[],
  { unknownTool, invalidArgs }: { unknownTool: "skip" | "fail"; invalidArgs: "fail" | "skip" },
): void {
  const unknown = steps.filter((step) => step.status === "unknown_tool");
  if (unknownTool === "fail" && unknown.length > 0) {
    throw new AppError(
      "UNKNOWN_TOOL",
      `The plan names tools that are not available: ${
        unknown.map((s) => `"${s.action.tool}"`).join(", ")
      }; nothing was executed`,
      { details: { steps: unknown.map((s) => ({ index: s.index, tool: s.action.tool })) } },
    );
  }
  const invalid = steps.flatMap((step) => step.status === "invalid_args" ? [step] : []);
  if (invalidArgs === "fail" && invalid.length > 0) {
    const [first] = invalid;
    throw new AppError(
      "TOOL_ARGS_INVALID",
      `Args for tool "${first.action.tool}" (step ${first.index}) do not match its schema: ${
        describeIssues(first.issues)
      }; nothing was executed`,
      {
        details: {
          steps: invalid.map((s) => ({ index: s.index, tool: s.action.tool, issues: s.issues })),
        },
      },
    );
  }
}
