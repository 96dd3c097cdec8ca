/**
 * The plan schema for strict structured output: each step is one choice per
 * tool (`{tool: "<name>", args: <that tool's args schema>}`), so a provider
 * that enforces it can only return args that validate. Each args schema is
 * rewritten for OpenAI's strict mode (`strict_args_schema.ts`), and the whole
 * schema keeps within the limits OpenAI documents for it
 * (`strict_schema_limits.ts`).
 *
 * A tool whose args have no strict rewrite (maps and open objects, tuples,
 * `$ref`s of their own, an any-value), nest too deep where the plan puts them,
 * or hold an enum past the limits is offered with its args as JSON text
 * (`args_envelope.ts`); so is the largest strict tool, then the next, while
 * the plan's totals are past the limits. The other tools stay strict. Only a
 * tool set too large even then (about a thousand tools: each name is an enum
 * value) gives no strict schema: the planner then sends the loose one.
 */
import type { PlannerTool } from "../ports.ts";
import { envelopeStep } from "./args_envelope.ts";
import { STEP_REF, strictArgsSchema } from "./strict_args_schema.ts";
import {
  exceededTotal,
  measureSchema,
  type SchemaSize,
  STRICT_SCHEMA_LIMITS,
  TOTAL_LIMITS,
} from "./strict_schema_limits.ts";

type Schema = Record<string, unknown>;

const DEFS = { step_ref: STEP_REF };

/** A strict plan schema, and the tools it offers with their args as JSON text. */
export interface StrictPlan {
  schema: Record<string, unknown>;
  /** Tools whose args are one JSON string in this schema (see `args_envelope.ts`). */
  enveloped: ReadonlySet<string>;
}

/** The strict plan schema for `tools`, or undefined when there is none (see {@link strictPlan}). */
export function strictPlanSchema(
  tools: readonly PlannerTool[],
): Record<string, unknown> | undefined {
  return strictPlan(tools)?.schema;
}

/**
 * The strict plan schema for `tools` with the tools it envelopes, or
 * undefined when there are no tools or even enveloped they are past the limits.
 */
export function strictPlan(tools: readonly PlannerTool[]): StrictPlan | undefined {
  if (tools.length === 0) return undefined;
  // The root is level 1, `plan` 2, its items 3 and, with several tools, each tool's branch 4.
  const stepLevel = tools.length === 1 ? 3 : 4;
  const steps = tools.map((tool): Step => {
    const step = strictStep(tool);
    const fits = step !== undefined && !step.size.largeEnum &&
      stepLevel + step.size.levels - 1 <= STRICT_SCHEMA_LIMITS.nesting;
    return fits ? step : envelope(tool.name);
  });
  if (!envelopeLargestPastTotals(steps)) return undefined;
  return {
    schema: planSchema(steps.map((step) => step.schema)),
    enveloped: new Set(steps.filter((step) => step.enveloped).map((step) => step.name)),
  };
}

/** One tool's choice in the plan schema, and its size. */
interface Step {
  name: string;
  schema: Schema;
  size: SchemaSize;
  enveloped: boolean;
}

function envelope(name: string): Step {
  const schema = envelopeStep(name);
  return { name, schema, size: measureSchema(schema), enveloped: true };
}

function planSchema(steps: Schema[]): Schema {
  return {
    type: "object",
    properties: {
      plan: { type: "array", maxItems: 5, items: steps.length === 1 ? steps[0] : { anyOf: steps } },
    },
    required: ["plan"],
    additionalProperties: false,
    $defs: DEFS,
  };
}

/**
 * While the plan's totals (properties, names and values, enum values) are past
 * their limits, envelopes the strict tool that adds most to the one past it.
 * False when they stay past them with every tool that could shrink enveloped.
 */
function envelopeLargestPastTotals(steps: Step[]): boolean {
  const base = measureSchema(planSchema([]), { defs: DEFS });
  for (;;) {
    const total = { ...base };
    for (const step of steps) for (const key of TOTAL_LIMITS) total[key] += step.size[key];
    const over = exceededTotal(total);
    if (!over) return true;
    let largest = -1;
    steps.forEach((step, i) => {
      if (step.enveloped || step.size[over] <= envelope(step.name).size[over]) return;
      if (largest === -1 || step.size[over] > steps[largest].size[over]) largest = i;
    });
    if (largest === -1) return false;
    steps[largest] = envelope(steps[largest].name);
  }
}

/** A rewrite of args and its size. */
interface Rewrite {
  args: Schema;
  size: SchemaSize;
}

/**
 * Each args schema's rewrite (null: none), per schema object and whether
 * descriptions are dropped: a registry hands out the same object until the tool
 * changes, so a plan request does not rewrite every offered tool again.
 */
const REWRITES = new WeakMap<object, Map<boolean, Rewrite | null>>();

/** A tool's strict step, or undefined when its args cannot be written strictly. */
function strictStep(tool: PlannerTool): Step | undefined {
  // A remote server's descriptions are its text: the prompt shows them marked as untrusted
  // data, so they stay out of the schema, which the model reads unmarked.
  const drop = tool.remote !== undefined;
  const key = tool.argsSchema ?? {};
  let rewrites = REWRITES.get(key);
  if (!rewrites) REWRITES.set(key, rewrites = new Map());
  if (!rewrites.has(drop)) rewrites.set(drop, rewrite(tool.argsSchema, drop));
  const found = rewrites.get(drop);
  if (!found) return undefined;
  const shell = {
    type: "object",
    properties: { tool: { type: "string", enum: [tool.name] }, args: {} },
    required: ["tool", "args"],
    additionalProperties: false,
  };
  // The step is its shell with the args one level down.
  const size = measureSchema(shell);
  for (const key of TOTAL_LIMITS) size[key] += found.size[key];
  size.levels = Math.max(size.levels, 1 + found.size.levels);
  size.largeEnum = found.size.largeEnum;
  const schema = { ...shell, properties: { ...shell.properties, args: found.args } };
  return { name: tool.name, schema, size, enveloped: false };
}

function rewrite(schema: PlannerTool["argsSchema"], dropDescriptions: boolean): Rewrite | null {
  const args = strictArgsSchema(schema, { dropDescriptions });
  return args ? { args: deepFreeze(args), size: measureSchema(args, { defs: DEFS }) } : null;
}

/** `value`, frozen all the way down: a cached rewrite is shared by every plan schema. */
function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
