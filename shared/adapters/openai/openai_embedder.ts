/** `Embedder` on OpenAI's embeddings API (or any compatible server). */
import type OpenAI from "openai";
import { AppError } from "../../errors.ts";
import type { Embedder } from "../../ports.ts";
import { STORED_DIMENSIONS } from "../../store/sql_values.ts";
import { modelError } from "./openai_errors.ts";

/** Embeds with `model` (default `text-embedding-3-small`, 1536 dimensions). */
export class OpenAiEmbedder implements Embedder {
  readonly model: string;
  readonly dimensions: number;
  readonly #client: OpenAI;
  readonly #requestDimensions?: number;

  constructor(
    client: OpenAI,
    { model = "text-embedding-3-small", dimensions }: { model?: string; dimensions?: number } = {},
  ) {
    this.#client = client;
    this.model = model;
    this.dimensions = dimensions ?? STORED_DIMENSIONS;
    this.#requestDimensions = dimensions;
  }

  async embed(texts: string[], { signal }: { signal?: AbortSignal } = {}): Promise<number[][]> {
    let response: OpenAI.Embeddings.CreateEmbeddingResponse;
    try {
      response = await this.#client.embeddings.create(
        {
          model: this.model,
          input: texts,
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
      });
    }
    const vectors = [...(response.data ?? [])].sort((a, b) => a.index - b.index).map((d) =>
      d.embedding
    );
    if (
      vectors.length !== texts.length || vectors.some((v) => !Array.isArray(v) || v.length === 0)
    ) {
      throw new AppError(
        "MODEL_UNAVAILABLE",
        `Embedding model "${this.model}" returned ${vectors.length} vectors for ${texts.length} texts`,
      );
    }
    const tooLong = vectors.find((v) => v.length > STORED_DIMENSIONS);
    if (tooLong) {
      throw new AppError(
        "MODEL_UNAVAILABLE",
        `Embedding model "${this.model}" returned ${tooLong.length} dimensions; at most ${STORED_DIMENSIONS} can be stored. Set MCP_LOOP_EMBEDDING_DIMENSIONS=${STORED_DIMENSIONS} if the model supports it, or choose another model`,
      );
    }
    return vectors;
  }
}
