/**
 * `ChatModel` on OpenAI's chat completions API (or any compatible server).
 *
 * What it sends depends on the model and the server (see `openai_models.ts`):
 * OpenAI's own API gets `max_completion_tokens` (`max_tokens` is deprecated
 * and refused by reasoning models), and so does a reasoning model on another
 * server (Azure, gateways); other servers' models (Ollama, vLLM, Groq, …) get
 * `max_tokens`, which they all take. Reasoning models get no temperature,
 * `reasoning_effort` from the settings and a reasoning allowance on top of the
 * answer's budget. When a server still refuses a parameter with a 400 that
 * names it (the error's `param`), the call is made again without it (or with
 * the other token parameter), and that is remembered. A refused strict schema
 * is sent again as a hint, not strict, and that schema is not sent strict
 * again (a warning says so: the planner builds schemas within OpenAI's
 * documented limits, so this is a last resort, not a cost every isolate pays);
 * a refused JSON schema format falls back to JSON mode, then to no format.
 */
import { BoundedSet } from "../../bounded.ts";
import { AppError } from "../../errors.ts";
import {
  type ChatCompletion,
  type ChatCompletionRequest,
  type ChatModel,
  type Logger,
  SILENT_LOGGER,
  type TokenUsage,
} from "../../ports.ts";
import {
  type ChatCompletionParams,
  type CompletionUsage,
  OpenAiApiError,
  type OpenAiClient,
} from "./openai_client.ts";
import { modelError } from "./openai_errors.ts";
import { isOpenAiApi, modelTraits, refusedParameter } from "./openai_models.ts";

/** How JSON output is requested. */
export type ResponseFormat = "json_schema" | "json_object" | "none";

/** `reasoning_effort` values (OpenAI's `ReasoningEffort`); `default` sends none. */
export type ReasoningEffort =
  | "default"
  | "none"
  | "minimal"
  | "low"
  | "medium"
  | "high"
  | "xhigh"
  | "max";

/** Chat model settings (defaults from the MCP loop specification). */
export interface OpenAiChatOptions {
  model?: string;
  temperature?: number;
  /** The answer's budget when a request sets none. */
  maxTokens?: number;
  responseFormat?: ResponseFormat;
  /** Sent to reasoning models only (default `low`). */
  reasoningEffort?: ReasoningEffort;
  /** Tokens a reasoning model may reason with, added to the answer's budget (default 4,000). */
  reasoningTokens?: number;
  /** Whether the server is OpenAI's own API (default: decided by the client's base URL). */
  server?: "openai" | "compatible";
  /** Told when the server refuses a strict schema (default: silent). */
  logger?: Logger;
}

/** Settings the server refused, dropped for later calls too. */
interface Adjustments {
  tokenParameter: "max_completion_tokens" | "max_tokens";
  temperature: boolean;
  reasoningEffort: boolean;
}

/** How many refusals one call may work around (one per parameter, and the format's steps). */
const MAX_ADJUSTMENTS = 6;

/** How many refused strict schemas are remembered (the oldest is forgotten first). */
const MAX_REFUSED_SCHEMAS = 32;

/** Completes chats with `model` (default `gpt-4o`, temperature 0.3, 1000 tokens). */
export class OpenAiChatModel implements ChatModel {
  readonly model: string;
  readonly #client: OpenAiClient;
  readonly #temperature: number;
  readonly #maxTokens: number;
  readonly #reasoning: boolean;
  readonly #reasoningEffort: ReasoningEffort;
  readonly #reasoningTokens: number;
  readonly #send: Adjustments;
  readonly #logger: Logger;
  /** Strict schemas the server refused, by name and text: sent not strict from then on. */
  readonly #refusedStrict = new BoundedSet<string>(MAX_REFUSED_SCHEMAS);
  #responseFormat: ResponseFormat;

  constructor(
    client: OpenAiClient,
    {
      model = "gpt-4o",
      temperature = 0.3,
      maxTokens = 1000,
      responseFormat = "json_schema",
      reasoningEffort = "low",
      reasoningTokens = 4_000,
      server = isOpenAiApi(client.baseURL) ? "openai" : "compatible",
      logger = SILENT_LOGGER,
    }: OpenAiChatOptions = {},
  ) {
    this.#client = client;
    this.#logger = logger;
    this.model = model;
    this.#temperature = temperature;
    this.#maxTokens = maxTokens;
    this.#responseFormat = responseFormat;
    const traits = modelTraits(model);
    this.#reasoning = traits.reasoning;
    this.#reasoningEffort = reasoningEffort;
    this.#reasoningTokens = reasoningTokens;
    this.#send = {
      tokenParameter: server === "openai" || traits.reasoning
        ? "max_completion_tokens"
        : "max_tokens",
      temperature: !traits.defaultTemperatureOnly,
      reasoningEffort: traits.reasoning && reasoningEffort !== "default",
    };
  }

  /** The response format currently used for JSON requests (it degrades when refused). */
  get responseFormat(): ResponseFormat {
    return this.#responseFormat;
  }

  async complete(request: ChatCompletionRequest): Promise<ChatCompletion> {
    let strict = request.jsonSchema?.strict === true &&
      !(this.#refusedStrict.size > 0 && this.#refusedStrict.has(schemaKey(request.jsonSchema)));
    for (let attempt = 0;; attempt++) {
      const format = request.jsonSchema ? this.#responseFormat : "none";
      try {
        return await this.#call(request, format, strict);
      } catch (error) {
        const retry =
          attempt < MAX_ADJUSTMENTS && error instanceof OpenAiApiError && error.status === 400
            ? this.#adjust(error, format, strict)
            : undefined;
        if (retry === "not strict") {
          strict = false;
          this.#rememberRefused(request.jsonSchema!, error as OpenAiApiError);
        }
        if (retry) continue;
        throw modelError(error, {
          what: "get a completion",
          model: this.model,
          baseUrl: this.#client.baseURL,
        });
      }
    }
  }

  /** Remembers a strict schema the server refused, and says so once. */
  #rememberRefused(
    schema: NonNullable<ChatCompletionRequest["jsonSchema"]>,
    error: OpenAiApiError,
  ): void {
    this.#refusedStrict.add(schemaKey(schema));
    const body = error.error as { message?: string } | undefined;
    this.#logger.warn(
      `The model server refused the strict JSON schema "${schema.name}"; it is sent without strict from now on, so the model's output is no longer guaranteed to match it`,
      {
        model: this.model,
        baseUrl: this.#client.baseURL,
        reason: String(body?.message ?? error.message).slice(0, 500),
      },
    );
  }

  /**
   * Works around a 400 that names what the server refused: true (or "not
   * strict") when the call should be made again, undefined when it should fail.
   */
  #adjust(
    error: OpenAiApiError,
    format: ResponseFormat,
    strict: boolean,
  ): true | "not strict" | undefined {
    const body = error.error as { message?: string } | undefined;
    const param = refusedParameter({ param: error.param, message: body?.message });
    const send = this.#send;
    if (param === "max_tokens" && send.tokenParameter === "max_tokens") {
      send.tokenParameter = "max_completion_tokens";
      return true;
    }
    if (param === "max_completion_tokens" && send.tokenParameter === "max_completion_tokens") {
      send.tokenParameter = "max_tokens";
      return true;
    }
    if (param === "temperature" && send.temperature) {
      send.temperature = false;
      return true;
    }
    if (param === "reasoning_effort" && send.reasoningEffort) {
      send.reasoningEffort = false;
      return true;
    }
    if (format === "none" || !refusedFormat(param, body?.message ?? error.message)) return;
    // A strict schema the server will not take still helps as a hint; then JSON mode; then nothing.
    if (format === "json_schema" && strict) return "not strict";
    this.#responseFormat = format === "json_schema" ? "json_object" : "none";
    return true;
  }

  async #call(
    request: ChatCompletionRequest,
    format: ResponseFormat,
    strict: boolean,
  ): Promise<ChatCompletion> {
    const send = this.#send;
    const budget = (request.maxTokens ?? this.#maxTokens) +
      (this.#reasoning ? this.#reasoningTokens : 0);
    const completion = await this.#client.chat.completions.create(
      {
        model: this.model,
        messages: request.messages,
        ...(send.temperature ? { temperature: request.temperature ?? this.#temperature } : {}),
        [send.tokenParameter]: budget,
        ...(send.reasoningEffort ? { reasoning_effort: this.#reasoningEffort } : {}),
        ...responseFormat(request, format, strict),
      },
      { signal: request.signal },
    );
    const choice = completion.choices?.[0];
    const text = choice?.message?.content ?? "";
    const usage = completion.usage
      ? { ...tokenUsage(completion.usage), model: this.model }
      : undefined;
    if (!text && choice?.finish_reason === "length") {
      throw new AppError(
        "MODEL_UNAVAILABLE",
        `Model "${this.model}" used its whole budget of ${budget} tokens (${
          completion.usage?.completion_tokens_details?.reasoning_tokens ?? "unknown"
        } on reasoning) and wrote no answer; raise ${
          this.#reasoning
            ? "the option models.reasoningTokens, or lower models.reasoningEffort"
            : "the option models.chatMaxTokens"
        }`,
        { details: { usage } },
      );
    }
    return usage ? { text, usage } : { text };
  }
}

/** What identifies a schema among refused ones: its name and its text. */
function schemaKey({ name, schema }: NonNullable<ChatCompletionRequest["jsonSchema"]>): string {
  return `${name}\n${JSON.stringify(schema)}`;
}

function responseFormat(
  request: ChatCompletionRequest,
  format: ResponseFormat,
  strict: boolean,
): Pick<ChatCompletionParams, "response_format"> {
  if (format === "json_schema" && request.jsonSchema) {
    const { name, schema } = request.jsonSchema;
    return { response_format: { type: "json_schema", json_schema: { name, schema, strict } } };
  }
  return format === "json_object" ? { response_format: { type: "json_object" } } : {};
}

function tokenUsage(usage: CompletionUsage): TokenUsage {
  const cached = usage.prompt_tokens_details?.cached_tokens;
  return {
    promptTokens: usage.prompt_tokens ?? 0,
    completionTokens: usage.completion_tokens ?? 0,
    ...(typeof cached === "number" ? { cachedTokens: cached } : {}),
  };
}

/**
 * A 400 about the response format: the error's `param` names it; a server
 * that leaves `param` empty is judged by its message naming the format.
 */
function refusedFormat(param: string | undefined, message: string): boolean {
  if (param !== undefined) return param.startsWith("response_format");
  return /response_format|json_schema|json_object|structured/i.test(message);
}
