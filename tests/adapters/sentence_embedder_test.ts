import assert from "node:assert/strict";
import { lazySentenceEmbedder } from "../../shared/app/models.ts";
import { pathToFileURL } from "node:url";
import {
  loadUniversalSentenceEncoder,
  SENTENCE_ENCODER_DIMENSIONS,
  SENTENCE_HASHING_MODEL,
  SentenceEmbedder,
  type SentenceEncoder,
} from "../../shared/adapters/sentence/sentence_embedder.ts";
import { isAppError } from "../../shared/errors.ts";
import { cosine } from "../../shared/text/words.ts";
import { lastJsonOfChild, ROOT } from "../support/process.ts";

/** An encoder that gives each text a fixed direction and records the batches it was sent. */
function recordingEncoder(directions: Record<string, number>, batches: string[][] = []) {
  const encode: SentenceEncoder = (texts) => {
    batches.push(texts);
    return Promise.resolve(texts.map((text) => {
      const v = new Array(SENTENCE_ENCODER_DIMENSIONS).fill(0);
      v[directions[text] ?? 0] = 3; // not of length 1: the embedder scales it
      return v;
    }));
  };
  return { encode, batches };
}

Deno.test("the real sentence encoder places a paraphrase nearer than an unrelated text", async () => {
  // In a process of its own with --no-lock: the model's packages stay out of deno.lock, and
  // TensorFlow.js's process-wide backend out of this one.
  const seen = await lastJsonOfChild([
    "run",
    "--no-lock",
    "--allow-read",
    "tests/support/sentence_embedder_child.ts",
  ]) as {
    model: string;
    dimensions: number;
    lengths: number[];
    paraphrase: number;
    unrelated: number;
    batchedDrift: number;
    againDrift: number;
  };
  assert.equal(seen.model, SENTENCE_HASHING_MODEL);
  assert.equal(seen.dimensions, 1536);
  assert.deepEqual(seen.lengths, [1536, 1536, 1536]);
  // "find an apartment to rent" / "a flat to lease" share no word; a football score is unrelated.
  assert.ok(seen.paraphrase > seen.unrelated + 0.2, JSON.stringify(seen));
  assert.ok(seen.batchedDrift < 1e-6, "batches of two give the whole batch's vectors");
  assert.ok(seen.againDrift < 1e-6, "the same text gives the same vector");
  // Loaded only where asked for: the lock names the packages (import_map.json) but holds none.
  assert.doesNotMatch(await Deno.readTextFile(`${ROOT}deno.lock`), /"@energetic-ai\/[^"]+": \{/);
});

Deno.test("the encoder's share of the cosine is half, and it is sent batches of at most batchSize", async () => {
  const { encode, batches } = recordingEncoder({ car: 1, automobile: 1, banana: 2 });
  const embedder = new SentenceEmbedder({ load: () => Promise.resolve(encode), batchSize: 2 });
  const [car, automobile, banana] = await embedder.embed(["car", "automobile", "banana"]);
  assert.deepEqual(batches, [["car", "automobile"], ["banana"]]);
  assert.equal(car.length, 1536);
  // The same sentence vector, no hashed feature in common: only the encoder's half is similar.
  assert.ok(Math.abs(cosine(car, automobile) - 0.5) < 0.05, String(cosine(car, automobile)));
  assert.ok(Math.abs(cosine(car, banana)) < 0.05);
});

Deno.test("a blank text is not sent to the encoder and gets only hashed features", async () => {
  const { encode, batches } = recordingEncoder({});
  const embedder = new SentenceEmbedder({ load: () => Promise.resolve(encode) });
  const [blank, word] = await embedder.embed(["  ", "word"]);
  assert.deepEqual(batches, [["word"]]);
  assert.ok(blank.slice(0, SENTENCE_ENCODER_DIMENSIONS).every((x) => x === 0));
  assert.equal(word.length, 1536);
  assert.deepEqual(await embedder.embed([]), []);
});

Deno.test("a cancelled request stops before the next batch", async () => {
  const controller = new AbortController();
  const batches: string[][] = [];
  const { encode } = recordingEncoder({}, batches);
  const embedder = new SentenceEmbedder({
    load: () => Promise.resolve((texts) => (controller.abort(), encode(texts))),
    batchSize: 1,
  });
  await assert.rejects(embedder.embed(["a", "b"], { signal: controller.signal }), /abort/i);
  assert.deepEqual(batches, [["a"]]);
});

Deno.test("the model is loaded once, on first use, and a failed load is tried again", async () => {
  let calls = 0;
  const { encode } = recordingEncoder({});
  const embedder = new SentenceEmbedder({
    load: () => {
      calls++;
      return calls === 1 ? Promise.reject(new Error("not installed")) : Promise.resolve(encode);
    },
  });
  assert.equal(calls, 0);
  await assert.rejects(embedder.embed(["a"]), /not installed/);
  await embedder.embed(["a"]);
  await embedder.embed(["b"]);
  assert.equal(calls, 2);
});

Deno.test("packages that cannot be loaded give an error saying what to install and allow", async () => {
  // Every specifier a missing file: a real package loaded here would land in deno.lock.
  const missing = pathToFileURL(`${ROOT}tests/support/no_such_package.js`).href;
  const error = await loadUniversalSentenceEncoder({
    core: missing,
    embeddings: missing,
    model: missing,
  }).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(isAppError(error) && error.code === "MODEL_UNAVAILABLE", String(error));
  assert.match(error.message, /Cannot load the sentence encoder from ".*no_such_package\.js"/);
  assert.match(error.message, /npm packages pinned in import_map\.json/);
  assert.match(error.message, /--allow-read/);
  assert.match(error.message, /MCP_LOOP_EMBEDDER=hashing/);
});

Deno.test("an encoder vector of the wrong size is refused, and too few dimensions at the start", async () => {
  const embedder = new SentenceEmbedder({
    load: () => Promise.resolve(() => Promise.resolve([[1, 2, 3]])),
  });
  await assert.rejects(
    embedder.embed(["hello"]),
    /returned 3 dimensions for text 0 of the call, expected 512/,
  );
  assert.throws(() => new SentenceEmbedder({ dimensions: 512 }), /more than 512 dimensions/);
});

Deno.test("vectors of another share or length are stored under another model name", () => {
  const load = () => Promise.reject(new Error("not loaded in this test"));
  assert.equal(new SentenceEmbedder({ load }).model, SENTENCE_HASHING_MODEL);
  assert.equal(
    new SentenceEmbedder({ load, semanticShare: 0.7 }).model,
    `${SENTENCE_HASHING_MODEL}-s0.7-d1536`,
  );
  assert.equal(
    new SentenceEmbedder({ load, dimensions: 1024 }).model,
    `${SENTENCE_HASHING_MODEL}-s0.5-d1024`,
  );
});

Deno.test("the configured sentence embedder, loaded on first use, is named and sized as the class's default", () => {
  const lazy = lazySentenceEmbedder();
  const eager = new SentenceEmbedder({ load: () => Promise.reject(new Error("not loaded")) });
  assert.equal(lazy.model, eager.model);
  assert.equal(lazy.dimensions, eager.dimensions);
});
