/**
 * The request rules of OpenAI's chat completions endpoint, for the fake
 * server: what the real API refuses, with its status and error shape
 * `{error: {message, type, param, code}}` (the embeddings endpoint's are in
 * `openai_embedding_rules.ts`, strict schemas' in `openai_strict_schema.ts`).
 *
 * Sources:
 * - the OpenAPI spec, github.com/openai/openai-openapi `openapi.yaml` at commit
 *   f85dbe223d40e1a31cba812ab2d755c7e98a92a3 (2026-08-21):
 *   `CreateChatCompletionRequest` (with `CreateModelResponseProperties` and
 *   `ModelResponseProperties`: the parameter list; `max_tokens` "deprecated
 *   ... not compatible with o-series models"; `temperature` 0–2, `top_p` 0–1;
 *   `ReasoningEffort`), `ResponseFormatJsonSchema` (the name's pattern), `Error` and
 *   `CompletionUsage` (`prompt_tokens_details.cached_tokens`,
 *   `completion_tokens_details.reasoning_tokens`);
 * - OpenAI's reasoning guide (https://platform.openai.com/docs/guides/reasoning)
 *   for what reasoning models refuse, and the API's own answers as users
 *   report them (param and code): `unsupported_parameter` for `max_tokens`,
 *   `unsupported_value` for a temperature other than 1.
 *
 * Which models are which, by name as the API decides: reasoning models are
 * `o1*`, `o3*`, `o4-mini*` and the gpt-5 family (`gpt-5`, `gpt-5-mini`,
 * `gpt-5.1`, `gpt-5.4-nano`, …); the gpt-5 `-chat-latest` models refuse the
 * same sampling parameters and `max_tokens` but are not reasoning models (no
 * `reasoning_effort`). `gpt-4o*`, `gpt-4.1*`, `gpt-4*`, `gpt-3.5-turbo*` and
 * `chatgpt-4o-latest` are chat models. Any other name is `model_not_found`.
 */
import * as cl100k from "gpt-tokenizer/encoding/cl100k_base";
import * as o200k from "gpt-tokenizer/encoding/o200k_base";
import { strictSchemaProblem } from "./openai_strict_schema.ts";

/**
 * The API takes a message or an embedding input that spells a special token (`<|endoftext|>`)
 * as ordinary text: it is counted, never refused (the tokenizer's default throws on it, which
 * would make this fake stricter than the service in the wrong way: refusing what it accepts).
 */
export const AS_TEXT = { disallowedSpecial: new Set<string>() };

/** An error answer of the API. */
export interface ApiError {
  status: number;
  error: { message: string; type: string; param: string | null; code: string | null };
}

/** Every parameter of `CreateChatCompletionRequest` in the spec. */
export const CHAT_PARAMETERS = new Set(
  ("metadata top_logprobs temperature top_p user safety_identifier " +
    "prompt_cache_key prompt_cache_retention prompt_cache_options messages model " +
    "service_tier modalities verbosity reasoning_effort max_completion_tokens " +
    "frequency_penalty presence_penalty web_search_options response_format audio " +
    "store moderation stream stop logit_bias logprobs max_tokens n prediction seed " +
    "stream_options tools tool_choice parallel_tool_calls function_call functions").split(" "),
);

/** The `ReasoningEffort` values of the spec. */
const EFFORTS = ["none", "minimal", "low", "medium", "high", "xhigh", "max"];

/** How the API treats a chat model. */
export interface ChatModelKind {
  /** Refuses `max_tokens`, a temperature/top_p other than 1, penalties, logprobs and logit_bias. */
  fixedSampling: boolean;
  /** Takes `reasoning_effort` (from these values) and spends reasoning tokens. */
  efforts?: readonly string[];
  encoding: "o200k_base" | "cl100k_base";
}

/** What the API knows about chat model `model`, or undefined for a model it does not have. */
export function chatModelKind(model: string): ChatModelKind | undefined {
  if (/^(o1|o3|o4-mini)(-|$)/.test(model)) {
    return { fixedSampling: true, efforts: ["low", "medium", "high"], encoding: "o200k_base" };
  }
  if (/^gpt-5(\.\d+)?(-|$)/.test(model)) {
    if (model.includes("-chat")) return { fixedSampling: true, encoding: "o200k_base" };
    const efforts = /^gpt-5(-|$)/.test(model)
      ? ["minimal", "low", "medium", "high"]
      : ["none", "low", "medium", "high", "xhigh"];
    return { fixedSampling: true, efforts, encoding: "o200k_base" };
  }
  if (/^(gpt-4o|gpt-4\.1|chatgpt-4o)/.test(model)) {
    return { fixedSampling: false, encoding: "o200k_base" };
  }
  if (/^(gpt-4|gpt-3\.5-turbo)/.test(model)) {
    return { fixedSampling: false, encoding: "cl100k_base" };
  }
  return undefined;
}

/** Why the API would refuse this chat completion request, or undefined. */
export function chatRequestError(body: Record<string, unknown>): ApiError | undefined {
  const unknown = Object.keys(body).find((key) => !CHAT_PARAMETERS.has(key));
  if (unknown) return invalid(`Unrecognized request argument supplied: ${unknown}`, null, null);
  if (typeof body.model !== "string") {
    return invalid("you must provide a model parameter", null, null);
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    return invalid(
      "Missing required parameter: 'messages'.",
      "messages",
      "missing_required_parameter",
    );
  }
  const kind = chatModelKind(body.model);
  if (!kind) return modelNotFound(body.model);
  return rangeError(body) ?? samplingError(body, kind) ?? effortError(body, kind) ??
    formatError(body);
}

function rangeError(body: Record<string, unknown>): ApiError | undefined {
  for (const [name, min, max] of [["temperature", 0, 2], ["top_p", 0, 1]] as const) {
    const value = body[name];
    if (value === undefined || value === null) continue;
    if (typeof value !== "number" || value < min || value > max) {
      return invalid(
        `Invalid '${name}': expected a number from ${min} to ${max}, but got ${
          JSON.stringify(value)
        } instead.`,
        name,
        typeof value === "number" && value > max ? "decimal_above_max_value" : "invalid_value",
      );
    }
  }
  for (const name of ["max_tokens", "max_completion_tokens"]) {
    const value = body[name];
    if (value === undefined || value === null) continue;
    if (!Number.isInteger(value) || (value as number) < 1) {
      return invalid(
        `Invalid '${name}': integer below minimum value. Expected a value >= 1, but got ${
          JSON.stringify(value)
        } instead.`,
        name,
        "integer_below_min_value",
      );
    }
  }
  return undefined;
}

function samplingError(body: Record<string, unknown>, kind: ChatModelKind): ApiError | undefined {
  if (!kind.fixedSampling) return undefined;
  if (body.max_tokens !== undefined && body.max_tokens !== null) {
    return invalid(
      "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      "max_tokens",
      "unsupported_parameter",
    );
  }
  for (const name of ["temperature", "top_p"]) {
    const value = body[name];
    if (value !== undefined && value !== null && value !== 1) {
      return invalid(
        `Unsupported value: '${name}' does not support ${value} with this model. Only the default (1) value is supported.`,
        name,
        "unsupported_value",
      );
    }
  }
  for (const name of ["presence_penalty", "frequency_penalty", "logprobs", "top_logprobs"]) {
    if (body[name] !== undefined && body[name] !== null) {
      return unsupportedParameter(name);
    }
  }
  if (body.logit_bias !== undefined && body.logit_bias !== null) {
    return unsupportedParameter("logit_bias");
  }
  return undefined;
}

function effortError(body: Record<string, unknown>, kind: ChatModelKind): ApiError | undefined {
  const effort = body.reasoning_effort;
  if (effort === undefined || effort === null) return undefined;
  if (!kind.efforts) return unsupportedParameter("reasoning_effort");
  if (typeof effort !== "string" || !EFFORTS.includes(effort)) {
    return invalid(
      `Invalid value: '${String(effort)}'. Supported values are: ${
        EFFORTS.map((e) => `'${e}'`).join(", ")
      }.`,
      "reasoning_effort",
      "invalid_value",
    );
  }
  if (!kind.efforts.includes(effort)) {
    return invalid(
      `Unsupported value: 'reasoning_effort' does not support '${effort}' with this model. Supported values are: ${
        kind.efforts.map((e) => `'${e}'`).join(", ")
      }.`,
      "reasoning_effort",
      "unsupported_value",
    );
  }
  return undefined;
}

function formatError(body: Record<string, unknown>): ApiError | undefined {
  const format = body.response_format as Record<string, unknown> | undefined;
  if (format === undefined || format === null) return undefined;
  if (!["text", "json_object", "json_schema"].includes(format.type as string)) {
    return invalid(
      `Invalid value: '${
        String(format.type)
      }'. Supported values are: 'text', 'json_object', and 'json_schema'.`,
      "response_format.type",
      "invalid_value",
    );
  }
  if (format.type === "json_object") {
    const text = JSON.stringify(body.messages).toLowerCase();
    if (!text.includes("json")) {
      return invalid(
        "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.",
        "messages",
        null,
      );
    }
  }
  if (format.type !== "json_schema") return undefined;
  const spec = format.json_schema as Record<string, unknown> | undefined;
  if (typeof spec?.name !== "string" || !/^[a-zA-Z0-9_-]{1,64}$/.test(spec.name)) {
    return invalid(
      "Invalid 'response_format.json_schema.name': must be a-z, A-Z, 0-9, underscores and dashes, at most 64 characters.",
      "response_format.json_schema.name",
      "invalid_value",
    );
  }
  if (spec.strict !== true) return undefined;
  const problem = strictSchemaProblem(spec.schema);
  return problem
    ? invalid(
      `Invalid schema for response_format '${spec.name}': ${problem}`,
      "response_format",
      null,
    )
    : undefined;
}

/** Tokens of a chat prompt as the model's tokenizer counts them (messages, then the schema). */
export function promptTokens(
  encoding: ChatModelKind["encoding"],
  body: Record<string, unknown>,
): number[] {
  const tokenizer = encoding === "o200k_base" ? o200k : cl100k;
  const messages = (body.messages as { role: string; content: unknown }[]).map((m) => ({
    role: m.role as "system" | "user" | "assistant",
    content: typeof m.content === "string" ? m.content : JSON.stringify(m.content),
  }));
  // Structured output schemas are part of the prompt (and of its cacheable prefix): first.
  const format = body.response_format
    ? tokenizer.encode(JSON.stringify(body.response_format), AS_TEXT)
    : [];
  return [...format, ...tokenizer.encodeChat(messages, "gpt-4o", AS_TEXT)];
}

/** Tokens of `text` in `encoding`. */
export function countTokens(encoding: ChatModelKind["encoding"], text: string): number {
  return (encoding === "o200k_base" ? o200k : cl100k).countTokens(text, AS_TEXT);
}

/** The first `count` tokens of `text`. */
export function firstTokens(
  encoding: ChatModelKind["encoding"],
  text: string,
  count: number,
): string {
  const tokenizer = encoding === "o200k_base" ? o200k : cl100k;
  return tokenizer.decode(tokenizer.encode(text, AS_TEXT).slice(0, count));
}

export function invalid(message: string, param: string | null, code: string | null): ApiError {
  return { status: 400, error: { message, type: "invalid_request_error", param, code } };
}

function unsupportedParameter(name: string): ApiError {
  return invalid(
    `Unsupported parameter: '${name}' is not supported with this model.`,
    name,
    "unsupported_parameter",
  );
}

export function modelNotFound(model: string): ApiError {
  return {
    status: 404,
    error: {
      message: `The model \`${model}\` does not exist or you do not have access to it.`,
      type: "invalid_request_error",
      param: null,
      code: "model_not_found",
    },
  };
}
