/**
 * `ChatModel` on OpenAI's chat completions API (or any compatible server).
 * Asks for JSON matching a schema where the server supports it, and falls back
 * to plain JSON mode, then to no response format, when a server refuses it.
 */
import OpenAI from "openai";
import type { ChatCompletion, ChatCompletionRequest, ChatModel } from "../../ports.ts";
import { modelError } from "./openai_errors.ts";

/** How JSON output is requested. */
export type ResponseFormat = "json_schema" | "json_object" | "none";

/** Chat model settings (defaults from the MCP loop specification). */
export interface OpenAiChatOptions {
  model?: string;
  temperature?: number;
  maxTokens?: number;
  responseFormat?: ResponseFormat;
}

/** Completes chats with `model` (default `gpt-4o`, temperature 0.3, 1000 tokens). */
export class OpenAiChatModel implements ChatModel {
  readonly model: string;
  readonly #client: OpenAI;
  readonly #temperature: number;
  readonly #maxTokens: number;
  #responseFormat: ResponseFormat;

  constructor(
    client: OpenAI,
    { model = "gpt-4o", temperature = 0.3, maxTokens = 1000, responseFormat = "json_schema" }:
      OpenAiChatOptions = {},
  ) {
    this.#client = client;
    this.model = model;
    this.#temperature = temperature;
    this.#maxTokens = maxTokens;
    this.#responseFormat = responseFormat;
  }

  /** The response format currently used for JSON requests (it degrades when refused). */
  get responseFormat(): ResponseFormat {
    return this.#responseFormat;
  }

  async complete(request: ChatCompletionRequest): Promise<ChatCompletion> {
    while (true) {
      const format = request.jsonSchema ? this.#responseFormat : "none";
      try {
        return await this.#call(request, format);
      } catch (error) {
        if (format !== "none" && refusedFormat(error)) {
          this.#responseFormat = format === "json_schema" ? "json_object" : "none";
          continue;
        }
        throw modelError(error, {
          what: "get a completion",
          model: this.model,
          baseUrl: this.#client.baseURL,
        });
      }
    }
  }

  async #call(request: ChatCompletionRequest, format: ResponseFormat): Promise<ChatCompletion> {
    const completion = await this.#client.chat.completions.create(
      {
        model: this.model,
        messages: request.messages,
        temperature: request.temperature ?? this.#temperature,
        max_tokens: request.maxTokens ?? this.#maxTokens,
        ...(format === "json_schema" && request.jsonSchema
          ? {
            response_format: {
              type: "json_schema",
              json_schema: {
                name: request.jsonSchema.name,
                schema: request.jsonSchema.schema,
                strict: false,
              },
            },
          }
          : format === "json_object"
          ? { response_format: { type: "json_object" } }
          : {}),
      },
      { signal: request.signal },
    );
    const text = completion.choices?.[0]?.message?.content ?? "";
    const usage = completion.usage;
    return usage
      ? {
        text,
        usage: {
          promptTokens: usage.prompt_tokens ?? 0,
          completionTokens: usage.completion_tokens ?? 0,
        },
      }
      : { text };
  }
}

/** A 400 that names the response format: the server does not support it. */
function refusedFormat(error: unknown): boolean {
  return error instanceof OpenAI.BadRequestError &&
    /response_format|json_schema|json_object|structured/i.test(error.message);
}
