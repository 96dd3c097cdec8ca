import assert from "node:assert/strict";
import { averageWordVector, wordVectorsOf } from "../../shared/text/word_vectors.ts";
import { cosine } from "../../shared/text/words.ts";

/** Words in frequency order, each along its own axis unless given. */
function table(words: [string, number[]][], limit?: number) {
  return wordVectorsOf(words, { dimensions: 3, limit });
}

Deno.test("a text's word vector weighs a rare word above a frequent one", () => {
  const vectors = table([["time", [1, 0, 0]], ["people", [0, 0, 1]], ["harpsichord", [0, 1, 0]]]);
  const v = [...averageWordVector(vectors, "time harpsichord")];
  // The rarer word (the later row) pulls the average towards its axis.
  assert.ok(v[1] > v[0], JSON.stringify(v));
  assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-9);
});

Deno.test("stop words and words the table lacks add nothing; none known gives zeros", () => {
  const vectors = table([["the", [0, 0, 1]], ["piano", [1, 0, 0]]]);
  assert.deepEqual([...averageWordVector(vectors, "the piano of the Zorblax")], [1, 0, 0]);
  assert.deepEqual([...averageWordVector(vectors, "the Zorblax")], [0, 0, 0]);
});

Deno.test("a limited table keeps the most frequent words, once each", () => {
  const vectors = table([["car", [1, 0, 0]], ["car", [0, 1, 0]], ["auto", [0.9, 0.1, 0]], [
    "zebra",
    [0, 0, 1],
  ]], 2);
  assert.equal(vectors.size, 2);
  assert.equal(vectors.rank("auto"), 1);
  assert.equal(vectors.rank("zebra"), undefined);
  assert.ok(
    cosine([...averageWordVector(vectors, "car")], [...averageWordVector(vectors, "auto")]) > 0.9,
  );
});
