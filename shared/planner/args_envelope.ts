/**
 * The args envelope: in the strict plan schema, a tool whose args schema
 * strict mode cannot take (too deep, too large, or a shape it cannot express:
 * maps, tuples, any-values) is offered with its args as JSON text, one
 * string, instead of dropping strict mode for the whole plan. The rest of the
 * plan stays strict. The planner opens the envelope before the plan is
 * checked, so the tool's own Zod schema checks the args and reports the same
 * issue paths (`[0].args.memory.facts`) as for a tool offered strictly.
 */
import { AppError } from "../errors.ts";
import { truncateRaw } from "./plan_parser.ts";

/** What the model reads about an enveloped tool's args. */
export const ENVELOPE_DESCRIPTION =
  "This tool's args as JSON text: one JSON object matching the tool's args schema in the tool list";

/** The strict plan step of a tool whose args travel as JSON text. */
export function envelopeStep(tool: string): Record<string, unknown> {
  return {
    type: "object",
    properties: {
      tool: { type: "string", enum: [tool] },
      args: { type: "string", description: ENVELOPE_DESCRIPTION },
    },
    required: ["tool", "args"],
    additionalProperties: false,
  };
}

/**
 * `plan` with the args of `enveloped` tools parsed from their JSON text.
 * Throws PLANNER_INVALID_OUTPUT (with an issue per step, for the repair round)
 * when such a text is not one JSON object. Other steps, and args that are not
 * text, are left as they are: the loop checks them.
 */
export function openEnvelopes(
  plan: unknown,
  { enveloped, raw }: { enveloped: ReadonlySet<string>; raw: string },
): unknown {
  if (!Array.isArray(plan) || enveloped.size === 0) return plan;
  const issues: string[] = [];
  const opened = plan.map((step, index) => {
    const { tool, args } = (step ?? {}) as { tool?: unknown; args?: unknown };
    if (typeof tool !== "string" || !enveloped.has(tool) || typeof args !== "string") return step;
    const parsed = parseObject(args);
    if (typeof parsed === "string") {
      issues.push(
        `[${index}].args: tool "${tool}" takes its args as JSON text of one object; ${parsed}`,
      );
      return step;
    }
    return { ...step, args: parsed };
  });
  if (issues.length > 0) {
    throw new AppError(
      "PLANNER_INVALID_OUTPUT",
      `The planner's args text is not a JSON object: ${issues[0]}`,
      { details: { raw: truncateRaw(raw), issues } },
    );
  }
  return opened;
}

/** The object in `text`, or why there is none. */
function parseObject(text: string): Record<string, unknown> | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `that text is not JSON (${(error as Error).message})`;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return `that text is ${
      value === null ? "null" : Array.isArray(value) ? "an array" : typeof value
    }`;
  }
  return value as Record<string, unknown>;
}
