/**
 * Feature hashing of a text's normalised words, word pairs and character
 * trigrams into a fixed-size, L2-normalised vector: the offline embedder's
 * algorithm, also used to rank tools by their words.
 */
import { fnv1a, stem, STOP_WORDS, tokenize } from "./words.ts";

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
