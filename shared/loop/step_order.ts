/**
 * The order steps run in: which run together (read-only steps that do not
 * need each other) and which must wait for a step that waits.
 */
import { FINALIZE_TOOL } from "../tools/finalize_summary.ts";
import type { CheckedStep } from "./plan_check.ts";
import { findReferences, parsePointer } from "./references.ts";

/** Most steps run at the same time. */
export const MAX_PARALLEL = 4;

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

/**
 * Why a step cannot run yet: it needs a step that waits — held for approval
 * (that step's position), or left unrun ("unrun") — or it is
 * `finalize_summary`, which needs them all.
 */
export function blockedBy(
  step: CheckedStep,
  waiting: ReadonlyMap<number, "held" | "unrun">,
): number | "unrun" | undefined {
  const needs = step.action.tool === FINALIZE_TOOL
    ? [...waiting.keys()]
    : findReferences(step.action.args).flatMap(({ pointer }) => {
      const parsed = parsePointer(pointer);
      return typeof parsed !== "string" && waiting.has(parsed.step) ? [parsed.step] : [];
    });
  if (needs.length === 0) return undefined;
  return needs.find((position) => waiting.get(position) === "held") ?? "unrun";
}
