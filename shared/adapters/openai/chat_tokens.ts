/**
 * A chat request's prompt tokens, counted before it is sent (for a run's
 * budget): its structured-output schema, which OpenAI puts before the
 * messages, then the messages with their chat framing. OpenAI bills gpt-4o,
 * gpt-4.1, the o-series and gpt-5 by o200k_base, whose 2.4 MB of ranks the
 * deployed bundle does not carry; the count is {@link cl100kBound}'s, never
 * below cl100k_base's, times {@link SAFETY}: cl100k_base counts the
 * planner's prompts 2–3 % lower than o200k_base, and text of common tokens
 * (identifiers among prose) keeps no margin from the bound. On the prompts
 * measured it is 9–16 % above the billed count, never below
 * (tests/loop/usage_test.ts); no tokenizer but o200k_base's can promise that
 * for every text. The tokenizer is loaded on first use: only runs with a
 * budget count before sending.
 */
import type { ChatCompletionRequest, TokenCounter } from "../../ports.ts";
import { AS_TEXT, cl100kBound } from "./cl100k_bound.ts";

/** The bound's count times this is at or above o200k_base's on the planner's prompts. */
export const SAFETY = 1.05;

/** Counts as the module doc says. */
export const PROMPT_COUNTER: TokenCounter = {
  async countRequest(request: ChatCompletionRequest): Promise<number> {
    const { encodeChat, countTokens } = await cl100kBound();
    const spec = request.jsonSchema;
    // The response_format as the chat adapter sends it.
    const format = spec
      ? countTokens(
        JSON.stringify({
          type: "json_schema",
          json_schema: { name: spec.name, schema: spec.schema, strict: spec.strict === true },
        }),
        AS_TEXT,
      )
      : 0;
    return Math.ceil((format + encodeChat(request.messages, "gpt-4", AS_TEXT).length) * SAFETY);
  },
  async countText(text: string): Promise<number> {
    return Math.ceil((await cl100kBound()).countTokens(text, AS_TEXT) * SAFETY);
  },
};
