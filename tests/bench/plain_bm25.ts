/**
 * Plain Okapi BM25 (k1 = 1.2, b = 0.75, Lucene's idf) over lower-cased words,
 * no stemming, no stop words, no synonyms: the baseline the retrieval
 * benchmark reports beside the project's own rankings.
 */
import { tokenize } from "../../shared/text/words.ts";

/** A BM25 index over fixed documents. */
export class PlainBm25 {
  readonly #docs: { id: string; tf: Map<string, number>; length: number }[];
  readonly #idf = new Map<string, number>();
  readonly #average: number;

  constructor(docs: readonly { id: string; text: string }[]) {
    const df = new Map<string, number>();
    this.#docs = docs.map(({ id, text }) => {
      const words = tokenize(text);
      const tf = new Map<string, number>();
      for (const word of words) tf.set(word, (tf.get(word) ?? 0) + 1);
      for (const word of tf.keys()) df.set(word, (df.get(word) ?? 0) + 1);
      return { id, tf, length: words.length };
    });
    const n = this.#docs.length;
    for (const [word, count] of df) {
      this.#idf.set(word, Math.log(1 + (n - count + 0.5) / (count + 0.5)));
    }
    this.#average = this.#docs.reduce((sum, d) => sum + d.length, 0) / (n || 1);
  }

  /** The ids of the documents sharing a word with `query`, best first. */
  rank(query: string): string[] {
    const words = [...new Set(tokenize(query))].filter((word) => this.#idf.has(word));
    const scored: { id: string; score: number }[] = [];
    for (const doc of this.#docs) {
      let score = 0;
      for (const word of words) {
        const tf = doc.tf.get(word);
        if (!tf) continue;
        score += this.#idf.get(word)! * tf * 2.2 /
          (tf + 1.2 * (0.25 + 0.75 * doc.length / (this.#average || 1)));
      }
      if (score > 0) scored.push({ id: doc.id, score });
    }
    return scored.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1)).map((d) => d.id);
  }
}
