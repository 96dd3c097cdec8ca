/**
 * What the OpenAI API accepts from a model, decided by its name as the API
 * does, and whether a base URL is OpenAI's own API.
 *
 * Reasoning models (`o1`, `o3`, `o4-mini` and the gpt-5 family: `gpt-5`,
 * `gpt-5-mini`, `gpt-5.1`, …) take `reasoning_effort`, spend reasoning tokens
 * out of `max_completion_tokens`, refuse `max_tokens` and take only the default
 * temperature. The gpt-5 `-chat-latest` models take only the default
 * temperature too, but are not reasoning models. A provider prefix
 * (`openai/gpt-5` on a gateway) is ignored.
 */

/** How a model is called. */
export interface ModelTraits {
  /** Takes `reasoning_effort` and needs room for reasoning tokens. */
  reasoning: boolean;
  /** Takes only the default temperature (1): none is sent. */
  defaultTemperatureOnly: boolean;
}

/** The traits of `model`. */
export function modelTraits(model: string): ModelTraits {
  const name = model.slice(model.lastIndexOf("/") + 1).toLowerCase();
  const oSeries = /^o[134](-|$)/.test(name);
  const gpt5 = /^gpt-5(\.\d+)?(-|$)/.test(name);
  const chatLatest = gpt5 && name.includes("-chat");
  return { reasoning: oSeries || (gpt5 && !chatLatest), defaultTemperatureOnly: oSeries || gpt5 };
}

/** Is `baseUrl` OpenAI's own API (the SDK's default when none is set)? */
export function isOpenAiApi(baseUrl: string | undefined): boolean {
  if (baseUrl === undefined) return true;
  try {
    return new URL(baseUrl).hostname === "api.openai.com";
  } catch {
    return false;
  }
}

/** OpenAI's embedding models, whose inputs are counted with cl100k_base, at most 8,192 tokens each. */
export function isOpenAiEmbeddingModel(model: string): boolean {
  return /^text-embedding-(3-small|3-large|ada-002)$/.test(model);
}

/**
 * The parameter a 400 refused, by the error's `param` (OpenAI's
 * `unsupported_parameter`/`unsupported_value` answers), or by the exact
 * "Unrecognized request argument supplied: <name>" of servers that leave
 * `param` empty; undefined when the error names none.
 */
export function refusedParameter(error: { param?: unknown; message?: string }): string | undefined {
  if (typeof error.param === "string" && error.param) return error.param;
  const unrecognized = /^Unrecognized request argument supplied: ([A-Za-z_.]+)$/.exec(
    error.message ?? "",
  );
  return unrecognized?.[1];
}
