/**
 * The planner on a chat model: the specification's prompt (see
 * `plan_prompt.ts`), a JSON-schema response format where the server supports
 * it, tolerant parsing, and one repair round with the exact problems.
 */
import type { ChatModel, PlanFeedback, PlanInput, Planner } from "../ports.ts";
import type { PlannedAction } from "../contracts.ts";
import { parsePlanText } from "./plan_parser.ts";
import { buildPlanMessages, buildRepairMessages, planResponseSchema } from "./plan_prompt.ts";

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
    const { text, usage } = await this.#model.complete({
      messages,
      jsonSchema: { name: "plan", schema: planResponseSchema(input.tools) },
      signal: input.signal,
    });
    input.usage?.add(usage);
    // Unchecked on purpose: the loop checks the shape and every step, then asks for a repair.
    return parsePlanText(text) as PlannedAction[];
  }
}
