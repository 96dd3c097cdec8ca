/**
 * Step references: an arg value that is exactly `{"$ref": "/steps/<n>/output/..."}`
 * takes its value from step `n` of the run (counting `intermediateResults`
 * across rounds), by a JSON Pointer (RFC 6901, `~0`/`~1` escapes) into that
 * step's output. So a plan can use a result it has not seen yet:
 * `{"tool": "decide_loop_next_action", "args": {"loop_id": {"$ref": "/steps/0/output/id"}}}`.
 */
import type { ActionResult } from "../contracts.ts";

/** A reference found in a step's args. */
export interface StepReference {
  /** Where in the args it sits (`["loop_id"]`, `["items", 0]`). */
  at: (string | number)[];
  /** The pointer as written. */
  pointer: string;
}

/** A parsed pointer: the step it reads and the path into that step's output. */
export interface ParsedPointer {
  step: number;
  path: string[];
}

const POINTER = /^\/steps\/(0|[1-9]\d{0,3})\/output((?:\/[^/]*)*)$/;

/** Is `value` a reference object: exactly one key, `$ref`, whose value is a string? */
export function isReference(value: unknown): value is { $ref: string } {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === "$ref" &&
    typeof (value as { $ref: unknown }).$ref === "string" &&
    (value as { $ref: string }).$ref.startsWith("/steps/");
}

/**
 * Every step reference in `args`, at any depth. Only `$ref`s that point into
 * `/steps/` count: a tool's own data may hold other `$ref`s (JSON Schemas do).
 */
export function findReferences(args: unknown): StepReference[] {
  const found: StepReference[] = [];
  const walk = (value: unknown, at: (string | number)[], depth: number) => {
    if (depth > 32 || typeof value !== "object" || value === null) return;
    if (isReference(value)) {
      found.push({ at, pointer: value.$ref });
      return;
    }
    const entries = Array.isArray(value)
      ? value.map((v, i) => [i, v] as const)
      : Object.entries(value);
    for (const [key, child] of entries) walk(child, [...at, key], depth + 1);
  };
  walk(args, [], 0);
  return found;
}

/** Parses a pointer; a string saying what is wrong with it when it is not one we accept. */
export function parsePointer(pointer: string): ParsedPointer | string {
  const match = POINTER.exec(pointer);
  if (!match) {
    return `"${
      pointer.slice(0, 100)
    }" is not a step reference; write "/steps/<n>/output" followed by the path into that output, like "/steps/0/output/id"`;
  }
  const path: string[] = [];
  for (const raw of match[2].split("/").slice(1)) {
    if (/~(?![01])/.test(raw)) {
      return `"${
        pointer.slice(0, 100)
      }" has a bad escape in "${raw}": in a JSON Pointer "~" is written "~0" and "/" is written "~1"`;
    }
    path.push(raw.replaceAll("~1", "/").replaceAll("~0", "~"));
  }
  return { step: Number(match[1]), path };
}

/**
 * What is wrong with the references of the step at run position `position`
 * (each pointer well formed, and to an earlier step), as `[at, problem]` pairs.
 */
export function referenceProblems(
  references: readonly StepReference[],
  position: number,
): [(string | number)[], string][] {
  return references.flatMap(({ at, pointer }) => {
    const parsed = parsePointer(pointer);
    if (typeof parsed === "string") return [[at, parsed]];
    if (parsed.step >= position) {
      const earlier = position === 0
        ? "the first step has no earlier step to reference"
        : `reference one of steps 0 to ${position - 1}`;
      return [[
        at,
        `step ${position} cannot reference step ${parsed.step} (not an earlier step); ${earlier}`,
      ]];
    }
    return [];
  });
}

/** The outcome of resolving a step's references. */
export type Resolution =
  | { ok: true; args: unknown }
  | { ok: false; code: "DEPENDENCY_FAILED" | "TOOL_ARGS_INVALID"; error: string };

/** `args` with every reference replaced by the value it points at in `results`. */
export function resolveReferences(args: unknown, results: readonly ActionResult[]): Resolution {
  const references = findReferences(args);
  let resolved: unknown = structuredClone(args);
  for (const { at, pointer } of references) {
    const parsed = parsePointer(pointer);
    if (typeof parsed === "string") return { ok: false, code: "TOOL_ARGS_INVALID", error: parsed };
    const source = results[parsed.step];
    if (!source || !source.success) {
      return {
        ok: false,
        code: "DEPENDENCY_FAILED",
        error: `not run: it takes ${pointer} from step ${parsed.step}${
          source
            ? ` (${source.tool}), which ${
              source.code === "DEPENDENCY_FAILED" ? "was not run" : "failed"
            }`
            : ", which did not run"
        }`,
      };
    }
    const value = lookUp(source.output, parsed.path);
    if (value === undefined) {
      return {
        ok: false,
        code: "TOOL_ARGS_INVALID",
        error:
          `invalid args: ${pointer} points at nothing in step ${parsed.step}'s output (${source.tool})`,
      };
    }
    resolved = at.length === 0 ? value : setAt(resolved, at, value);
  }
  return { ok: true, args: resolved };
}

function lookUp(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const key of path) {
    if (Array.isArray(current)) {
      if (!/^(0|[1-9]\d*)$/.test(key)) return undefined;
      current = current[Number(key)];
    } else if (typeof current === "object" && current !== null && Object.hasOwn(current, key)) {
      current = (current as Record<string, unknown>)[key];
    } else {
      return undefined;
    }
  }
  return current;
}

function setAt(root: unknown, at: readonly (string | number)[], value: unknown): unknown {
  let parent = root as Record<string | number, unknown>;
  for (const key of at.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  parent[at[at.length - 1]] = value;
  return root;
}
