/**
 * `Embedder` on OpenAI's embeddings API (or any compatible server). Each input
 * is cut to the model's token limit (8,192 cl100k_base tokens for OpenAI's
 * models, or the configured limit), inputs are sent in requests the API takes
 * (at most 2,048 inputs and 300,000 tokens each), and the tokens the server
 * reports are counted in the run's usage.
 */
import { AppError } from "../../errors.ts";
import type { Embedder, EmbedOptions } from "../../ports.ts";
import { STORED_DIMENSIONS } from "../../store/sql_values.ts";
import type { EmbeddingResponse, OpenAiClient } from "./openai_client.ts";
import { batches, type EmbeddingInput, fitToTokens } from "./embedding_tokens.ts";
import { EMBEDDING_SETTINGS, modelError } from "./openai_errors.ts";
import { isOpenAiEmbeddingModel } from "./openai_models.ts";

/** OpenAI's per-input token limit ("8192 tokens for all embedding models"). */
export const OPENAI_EMBEDDING_MAX_TOKENS = 8_192;
/** OpenAI's limits per embeddings request. */
const REQUEST_LIMITS = { maxInputs: 2_048, maxTokens: 300_000 };

/** Embedder settings. */
export interface OpenAiEmbedderOptions {
  model?: string;
  /** Ask the model for this many dimensions (text-embedding-3 models). */
  dimensions?: number;
  /** Cut each input to this many tokens (default 8,192 for OpenAI's models, none for others). */
  maxInputTokens?: number;
}

/** Embeds with `model` (default `text-embedding-3-small`, 1536 dimensions). */
export class OpenAiEmbedder implements Embedder {
  readonly model: string;
  readonly dimensions: number;
  readonly #client: OpenAiClient;
  readonly #requestDimensions?: number;
  readonly #maxInputTokens?: number;

  constructor(
    client: OpenAiClient,
    { model = "text-embedding-3-small", dimensions, maxInputTokens }: OpenAiEmbedderOptions = {},
  ) {
    this.#client = client;
    this.model = model;
    this.dimensions = dimensions ?? STORED_DIMENSIONS;
    this.#requestDimensions = dimensions;
    this.#maxInputTokens = maxInputTokens ??
      (isOpenAiEmbeddingModel(model) ? OPENAI_EMBEDDING_MAX_TOKENS : undefined);
  }

  async embed(texts: string[], { signal, usage }: EmbedOptions = {}): Promise<number[][]> {
    const limit = this.#maxInputTokens;
    const inputs: EmbeddingInput[] = limit === undefined
      ? texts.map((text) => ({ text, bytes: text.length * 3, truncated: false }))
      : await Promise.all(texts.map((text) => fitToTokens(text, limit)));
    const vectors: number[][] = [];
    for (const batch of batches(inputs, REQUEST_LIMITS)) {
      const response = await this.#request(batch.map((input) => input.text), signal);
      const tokens = response.usage?.prompt_tokens;
      if (typeof tokens === "number") usage?.addEmbedding(tokens, this.model);
      vectors.push(
        ...[...(response.data ?? [])].sort((a, b) => a.index - b.index).map((d) => d.embedding),
      );
      if (response.data?.length !== batch.length) break;
    }
    return this.#checked(vectors, texts.length);
  }

  async #request(
    input: string[],
    signal?: AbortSignal,
  ): Promise<EmbeddingResponse> {
    try {
      return await this.#client.embeddings.create(
        {
          model: this.model,
          input,
          encoding_format: "float",
          ...(this.#requestDimensions ? { dimensions: this.#requestDimensions } : {}),
        },
        { signal },
      );
    } catch (error) {
      throw modelError(error, {
        what: "embed the message",
        model: this.model,
        baseUrl: this.#client.baseURL,
        settings: EMBEDDING_SETTINGS,
      });
    }
  }

  #checked(vectors: number[][], expected: number): number[][] {
    if (vectors.length !== expected || vectors.some((v) => !Array.isArray(v) || v.length === 0)) {
      throw new AppError(
        "MODEL_UNAVAILABLE",
        `Embedding model "${this.model}" returned ${vectors.length} vectors for ${expected} texts`,
      );
    }
    const tooLong = vectors.find((v) => v.length > STORED_DIMENSIONS);
    if (tooLong) {
      throw new AppError(
        "MODEL_UNAVAILABLE",
        `Embedding model "${this.model}" returned ${tooLong.length} dimensions; at most ${STORED_DIMENSIONS} can be stored. Set the option models.embeddingDimensions to ${STORED_DIMENSIONS} if the model supports it, or choose another model`,
      );
    }
    return vectors;
  }
}
