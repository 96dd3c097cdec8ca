/**
 * The planner on a chat model: the specification's prompt (see
 * `plan_prompt.ts`), a JSON-schema response format where the server supports
 * it (strict, one choice per tool with its own args schema, or its args as
 * JSON text where they do not fit strict mode: see `strict_plan_schema.ts`
 * and `args_envelope.ts`), tolerant parsing, and one repair round with the
 * exact problems.
 */
import type { ChatModel, PlanFeedback, PlanInput, Planner } from "../ports.ts";
import type { PlannedAction } from "../contracts.ts";
import { parsePlanText } from "./plan_parser.ts";
import { buildPlanMessages, buildRepairMessages, planResponseSchema } from "./plan_prompt.ts";
import { openEnvelopes } from "./args_envelope.ts";
import { withoutOptionalNulls } from "./strict_args_schema.ts";
import { strictPlan } from "./strict_plan_schema.ts";

/** Tunables of the chat planner. */
export interface ChatPlannerOptions {
  /** Token budget for the context in the prompt (default 2,000). */
  contextTokens?: number;
}

/** Plans with a chat model. */
export class ChatPlanner implements Planner {
  readonly #model: ChatModel;
  readonly #contextTokens: number;

  constructor(model: ChatModel, { contextTokens = 2_000 }: ChatPlannerOptions = {}) {
    this.#model = model;
    this.#contextTokens = contextTokens;
  }

  plan(input: PlanInput): Promise<PlannedAction[]> {
    // Nothing to choose from: no model call (and no schema with an empty tool enum).
    if (input.tools.length === 0) return Promise.resolve([]);
    return this.#ask(input, buildPlanMessages(input, { contextTokens: this.#contextTokens }));
  }

  repair(input: PlanInput, feedback: PlanFeedback): Promise<PlannedAction[]> {
    return this.#ask(
      input,
      buildRepairMessages(input, feedback, { contextTokens: this.#contextTokens }),
    );
  }

  async #ask(
    input: PlanInput,
    messages: ReturnType<typeof buildPlanMessages>,
  ): Promise<PlannedAction[]> {
    const strict = strictPlan(input.tools);
    const request = {
      messages,
      jsonSchema: strict
        ? { name: "plan", schema: strict.schema, strict: true }
        : { name: "plan", schema: planResponseSchema(input.tools) },
      signal: input.signal,
    };
    // A call that would take the run past its budget is not made (BUDGET_EXCEEDED).
    await input.usage?.admit?.({ model: this.#model.model, request });
    const { text, usage } = await this.#model.complete(request);
    input.usage?.add(usage);
    // Unchecked on purpose: the loop checks the shape and every step, then asks for a repair.
    const plan = parsePlanText(text);
    if (!strict) return plan as PlannedAction[];
    const opened = openEnvelopes(plan, { enveloped: strict.enveloped, raw: text });
    return withoutNulls(opened, input.tools) as PlannedAction[];
  }
}

/** The plan with the nulls the strict schema asked for in place of omitted optional args removed. */
function withoutNulls(plan: unknown, tools: PlanInput["tools"]): unknown {
  if (!Array.isArray(plan)) return plan;
  return plan.map((step) => {
    const tool = tools.find((t) => t.name === (step as { tool?: unknown })?.tool);
    const args = (step as { args?: unknown })?.args;
    return tool && typeof args === "object" && args !== null
      ? { ...step, args: withoutOptionalNulls(args, tool.argsSchema) }
      : step;
  });
}
