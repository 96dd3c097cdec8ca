/**
 * Reads a plan out of a model's text, tolerating what models do despite being
 * told not to: markdown fences, prose around the JSON, and a plan wrapped in an
 * object (`{"plan": [...]}`, `{"steps": [...]}`, a single `{tool, args}`).
 * The result is unchecked; the loop checks its shape and every step.
 */
import { AppError } from "../errors.ts";

const WRAPPER_KEYS = ["plan", "steps", "actions", "tool_calls", "tools", "calls"];

/** The plan found in `text`; throws PLANNER_INVALID_OUTPUT (with the raw text) when there is none. */
export function parsePlanText(text: string): unknown {
  const json = extractJson(text);
  if (json === undefined) {
    throw new AppError("PLANNER_INVALID_OUTPUT", "The planner's reply holds no JSON plan", {
      details: {
        raw: truncateRaw(text),
        issues: [
          "(plan): the reply must be a JSON array of {tool, args} steps, with no other text",
        ],
      },
    });
  }
  return unwrapPlan(json);
}

/** A plan wrapped in an object, unwrapped; anything else as it is. */
export function unwrapPlan(value: unknown): unknown {
  if (Array.isArray(value) || typeof value !== "object" || value === null) return value;
  const record = value as Record<string, unknown>;
  if (typeof record.tool === "string") return [record];
  for (const key of WRAPPER_KEYS) if (Array.isArray(record[key])) return record[key];
  const arrays = Object.values(record).filter(Array.isArray);
  return arrays.length === 1 ? arrays[0] : value;
}

/** The first JSON value in `text` (inside a fence if there is one), or undefined. */
export function extractJson(text: string): unknown {
  const fenced = /```(?:json|JSON)?\s*\n?([\s\S]*?)```/.exec(text);
  const candidates = fenced ? [fenced[1], text] : [text];
  for (const candidate of candidates) {
    const trimmed = candidate.trim();
    try {
      return JSON.parse(trimmed);
    } catch {
      // look for a balanced JSON value inside prose
    }
    for (let start = 0; start < trimmed.length; start++) {
      const c = trimmed[start];
      if (c !== "[" && c !== "{") continue;
      const end = balancedEnd(trimmed, start);
      if (end === -1) continue;
      try {
        return JSON.parse(trimmed.slice(start, end + 1));
      } catch {
        // keep scanning
      }
    }
  }
  return undefined;
}

/** Index of the bracket closing the one at `start`, skipping strings; -1 if unbalanced. */
function balancedEnd(text: string, start: number): number {
  const stack: string[] = [];
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === "[" || c === "{") stack.push(c === "[" ? "]" : "}");
    else if (c === "]" || c === "}") {
      if (stack.pop() !== c) return -1;
      if (stack.length === 0) return i;
    }
  }
  return -1;
}

/** The raw text as kept in error details (at most 2,000 characters). */
export function truncateRaw(text: string, max = 2_000): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text;
}
