/**
 * A chat request's prompt tokens, counted before it is sent (for a run's
 * budget): its structured-output schema, which OpenAI puts before the
 * messages, then the messages with their chat framing. OpenAI bills gpt-4o,
 * gpt-4.1, the o-series and gpt-5 by o200k_base, whose 2.4 MB of ranks the
 * deployed bundle does not carry; cl100k_base is already in it (vendored, for
 * embeddings), and it counts the planner's prompts 2–3 % lower than
 * o200k_base, so its count is scaled by {@link SAFETY}: an estimate 2–8 %
 * above the billed count (tests/loop/usage_test.ts measures it), never below
 * on the prompts measured. The tokenizer is loaded on first use: only runs
 * with a budget count before sending.
 */
import type { ChatCompletionRequest, TokenCounter } from "../../ports.ts";
import { AS_TEXT } from "./embedding_tokens.ts";

// Types only: the npm package is not bundled (a type import is not followed).
type Cl100k = typeof import("gpt-tokenizer/encoding/cl100k_base");

/** cl100k_base's count times this is at or above o200k_base's on the planner's prompts. */
export const SAFETY = 1.05;

let tokenizer: Promise<Cl100k> | undefined;

// The vendored files (shared/vendor/gpt-tokenizer): a literal specifier, so the bundler takes them.
const loadVendored = (): Promise<unknown> =>
  import("../../vendor/gpt-tokenizer/encoding/cl100k_base.js");

function cl100k(): Promise<Cl100k> {
  return tokenizer ??= loadVendored() as Promise<Cl100k>;
}

/** Counts as the module doc says. */
export const PROMPT_COUNTER: TokenCounter = {
  async countRequest(request: ChatCompletionRequest): Promise<number> {
    const { encodeChat, countTokens } = await cl100k();
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
    return Math.ceil((await cl100k()).countTokens(text, AS_TEXT) * SAFETY);
  },
};
