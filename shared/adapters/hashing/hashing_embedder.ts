/**
 * The offline default embedder: feature hashing of normalised words, word
 * pairs and character trigrams into a fixed-size, L2-normalised vector.
 * Deterministic and free, but lexical: texts that share words score high,
 * synonyms do not. Use an embedding model for semantic similarity.
 */
import type { Embedder } from "../../ports.ts";

/** Model name stored with hashing vectors (bump the version if the features change). */
export const HASHING_MODEL = "hashing-v1";

const STOP_WORDS = new Set(
  ("a an and are as at be but by for from has have i in is it its me my of on or our so " +
    "that the their them then there these this to us was we were what when which who will " +
    "with you your do does did can could would should please").split(" "),
);

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

/** The hashing vector of one text. */
export function hashingVector(text: string, dimensions = 1536): number[] {
  const vector = new Float64Array(dimensions);
  const add = (feature: string, weight: number) => {
    const hash = fnv1a(feature);
    vector[hash % dimensions] += (hash & 0x8000_0000) === 0 ? weight : -weight;
  };
  const words = tokenize(text);
  const content = words.filter((word) => !STOP_WORDS.has(word));
  // Texts of stop words only, or of no letters at all, still get features.
  const features = content.length > 0 ? content : words.length > 0 ? words : [text.trim()];
  for (const word of features) add(`w:${stem(word)}`, 1);
  for (let i = 1; i < features.length; i++) {
    add(`b:${stem(features[i - 1])} ${stem(features[i])}`, 0.5);
  }
  for (const word of features) {
    const padded = `#${word}#`;
    for (let i = 0; i + 3 <= padded.length; i++) add(`c:${padded.slice(i, i + 3)}`, 0.25);
  }
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm) || 1;
  return Array.from(vector, (value) => value / norm);
}

/** Lower-cased, accent-free words of letters and digits. */
export function tokenize(text: string): string[] {
  return text.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase().match(/[\p{L}\p{N}]+/gu) ??
    [];
}

/** The stemmed words of `text` that carry meaning (no stop words): what lexical matching compares. */
export function contentWords(text: string): string[] {
  return tokenize(text).filter((word) => !STOP_WORDS.has(word)).map(stem);
}

/** A very light English stemmer: enough for "loops" to meet "loop". */
function stem(word: string): string {
  if (word.length > 4 && word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith("s") && !word.endsWith("ss")) return word.slice(0, -1);
  return word;
}

/** 32-bit FNV-1a over UTF-16 code units. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Cosine similarity of two vectors of equal length. */
export function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
