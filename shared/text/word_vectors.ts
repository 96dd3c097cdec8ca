/**
 * A table of pre-trained word vectors (GloVe and the like) and a text's
 * vector from it: the average of its words' vectors, each weighted by how
 * rare the word is (smooth inverse frequency, Arora et al., ICLR 2017, with
 * a word's frequency estimated from its rank by Zipf's law, so the table's
 * order is all it needs), stop words left out. Words the table lacks add
 * nothing here; the embedder that uses this adds hashed character n-grams
 * for them (`adapters/wordvectors/`).
 */
import { ENGLISH_STOP_WORDS } from "./search_terms.ts";
import { tokenize } from "./words.ts";

/** Word vectors, most frequent word first. */
export interface WordVectors {
  /** Length of each vector. */
  readonly dimensions: number;
  /** How many words the table holds. */
  readonly size: number;
  /** A word's row (0 = the most frequent word), or undefined when the table lacks it. */
  rank(word: string): number | undefined;
  /** All vectors, row after row. */
  readonly data: Float32Array;
}

/** SIF's smoothing constant `a` in a / (a + p(word)) (the paper's range is 1e-4 to 1e-3). */
const SIF_A = 1e-3;

/**
 * Builds a table from words in frequency order and their vectors; `limit`
 * keeps only the most frequent words (a smaller table, the rare words
 * then hashed instead).
 */
export function wordVectorsOf(
  entries: Iterable<[string, ArrayLike<number>]>,
  { dimensions, limit = Infinity }: { dimensions: number; limit?: number },
): WordVectors {
  const rows = new Map<string, number>();
  const chunks: Float32Array[] = [];
  for (const [word, vector] of entries) {
    if (rows.size >= limit) break;
    if (rows.has(word)) continue;
    const row = new Float32Array(dimensions);
    for (let d = 0; d < dimensions; d++) row[d] = vector[d] ?? 0;
    rows.set(word, rows.size);
    chunks.push(row);
  }
  const data = new Float32Array(chunks.length * dimensions);
  chunks.forEach((row, i) => data.set(row, i * dimensions));
  return { dimensions, size: rows.size, rank: (word) => rows.get(word), data };
}

/** The SIF-weighted average of `text`'s known content words, L2-normalised (zeros when none is known). */
export function averageWordVector(table: WordVectors, text: string): Float64Array {
  const { dimensions, data } = table;
  const vector = new Float64Array(dimensions);
  // Zipf: p(rank r) = 1 / (r · H), H the harmonic number of the table's size.
  const harmonic = Math.log(table.size || 1) + 0.5772;
  for (const word of tokenize(text)) {
    if (ENGLISH_STOP_WORDS.has(word)) continue;
    const rank = table.rank(word);
    if (rank === undefined) continue;
    const weight = SIF_A / (SIF_A + 1 / ((rank + 1) * harmonic));
    const offset = rank * dimensions;
    for (let d = 0; d < dimensions; d++) vector[d] += weight * data[offset + d];
  }
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm);
  if (norm > 0) { for (let d = 0; d < dimensions; d++) vector[d] /= norm; }
  return vector;
}
