/**
 * Words of a text as the lexical parts of the project compare them: tokens
 * (lower-cased, accent-free letters and digits), stop words, a light English
 * stemmer, a string hash and cosine similarity. Shared by the hashing
 * embedder, the heuristic planner and scorer, tool search and recall.
 */

/** Words too common to say what a text is about. */
export const STOP_WORDS = new Set(
  ("a an and are as at be but by for from has have i in is it its me my of on or our so " +
    "that the their them then there these this to us was we were what when which who will " +
    "with you your do does did can could would should please").split(" "),
);

/** Lower-cased, accent-free words of letters and digits. */
export function tokenize(text: string): string[] {
  return text.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase().match(/[\p{L}\p{N}]+/gu) ??
    [];
}

/** The stemmed words of `text` that carry meaning (no stop words): what lexical matching compares. */
export function contentWords(text: string): string[] {
  return tokenize(text).filter((word) => !STOP_WORDS.has(word)).map(stem);
}

/** `text` as a regular expression that matches it literally. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A very light English stemmer: enough for "loops" to meet "loop". */
export function stem(word: string): string {
  if (word.length > 4 && word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith("s") && !word.endsWith("ss")) return word.slice(0, -1);
  return word;
}

/** 32-bit FNV-1a over UTF-16 code units. */
export function fnv1a(text: string): number {
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
