import assert from "node:assert/strict";
import { HashingEmbedder } from "../../shared/adapters/hashing/hashing_embedder.ts";
import { hashingVector } from "../../shared/text/hashing_vector.ts";
import { cosine } from "../../shared/text/words.ts";

Deno.test("hashing vectors have 1536 dimensions, unit length, and are deterministic", async () => {
  const embedder = new HashingEmbedder();
  const [a, b] = await embedder.embed(["The quick brown fox", "The quick brown fox"]);
  assert.equal(a.length, 1536);
  assert.ok(Math.abs(Math.hypot(...a) - 1) < 1e-9);
  assert.deepEqual(a, b);
  assert.equal(embedder.model, "hashing-v1");
});

Deno.test("similar texts score higher than unrelated ones", () => {
  const query = hashingVector("How do I reset my account password?");
  const similar = hashingVector("Steps to reset the password of an account");
  const unrelated = hashingVector("Quarterly revenue grew in the Lisbon office");
  assert.ok(cosine(query, similar) > 0.3, `similar: ${cosine(query, similar)}`);
  assert.ok(cosine(query, unrelated) < 0.1, `unrelated: ${cosine(query, unrelated)}`);
});

Deno.test("case, accents, punctuation and plurals do not change the words matched", () => {
  const a = hashingVector("Café LOOPS!");
  const b = hashingVector("cafe loop");
  assert.ok(cosine(a, b) > 0.8, String(cosine(a, b)));
});

Deno.test("texts of stop words or symbols only still get a non-zero vector", () => {
  for (const text of ["what is it", "🙂🙂", "???"]) {
    const v = hashingVector(text);
    assert.ok(v.some((x) => x !== 0), text);
  }
});
