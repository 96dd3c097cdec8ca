/**
 * A chat request's prompt tokens as OpenAI counts them, with o200k_base (the
 * tokenizer of gpt-4o, gpt-4.1, the o-series and gpt-5; an estimate for
 * other models): the structured-output schema, which OpenAI puts before the
 * messages, then the messages with their chat framing. The tokenizer (2.4 MB
 * of ranks) is loaded on first use: only runs with a budget count before sending.
 */
import type { ChatCompletionRequest, TokenCounter } from "../../ports.ts";

type O200k = typeof import("gpt-tokenizer/encoding/o200k_base");

let tokenizer: Promise<O200k> | undefined;

function o200k(): Promise<O200k> {
  return tokenizer ??= import("gpt-tokenizer/encoding/o200k_base");
}

/** Counts with o200k_base (see the module doc). */
export const O200K_COUNTER: TokenCounter = {
  async countRequest(request: ChatCompletionRequest): Promise<number> {
    const { encodeChat, countTokens } = await o200k();
    const spec = request.jsonSchema;
    // The response_format as the chat adapter sends it.
    const format = spec
      ? countTokens(JSON.stringify({
        type: "json_schema",
        json_schema: { name: spec.name, schema: spec.schema, strict: spec.strict === true },
      }))
      : 0;
    return format + encodeChat(request.messages, "gpt-4o").length;
  },
  async countText(text: string): Promise<number> {
    return (await o200k()).countTokens(text);
  },
};
