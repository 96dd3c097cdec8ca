/**
 * The offline default embedder: feature hashing of normalised words, word
 * pairs and character trigrams into a fixed-size, L2-normalised vector.
 * Deterministic and free, but lexical: texts that share words score high,
 * synonyms do not. Use an embedding model for semantic similarity.
 */
import type { Embedder } from "../../ports.ts";
import { hashingVector } from "../../text/hashing_vector.ts";

/** Model name stored with hashing vectors (bump the version if the features change). */
export const HASHING_MODEL = "hashing-v1";

/** Feature-hashing embedder (see the module doc). */
export class HashingEmbedder implements Embedder {
  readonly model = HASHING_MODEL;
  readonly dimensions: number;

  constructor({ dimensions = 1536 }: { dimensions?: number } = {}) {
    this.dimensions = dimensions;
  }

  embed(texts: string[]): Promise<number[][]> {
    return Promise.resolve(texts.map((text) => hashingVector(text, this.dimensions)));
  }
}
