/**
 * The process tests/adapters/sentence_embedder_test.ts runs (with `--no-lock`
 * and `--allow-read` only, so the model's packages stay out of deno.lock and
 * the permissions the error message names are enough): the sentence embedder
 * the configuration chooses, on the real model, and one sharing its encoder
 * in batches of two. Prints one JSON line: model, dimensions, cosines of a
 * paraphrase and of an unrelated text, and how far the batched vectors are
 * from the whole batch's.
 */
import { createModels } from "../../shared/app/models.ts";
import { loadConfig } from "../../shared/config/config.ts";
import {
  loadUniversalSentenceEncoder,
  SentenceEmbedder,
} from "../../shared/adapters/sentence/sentence_embedder.ts";
import { cosine } from "../../shared/text/words.ts";

const { embedder } = createModels(loadConfig({ MCP_LOOP_EMBEDDER: "sentence" }).models);
const texts = [
  "How can I find an apartment to rent?",
  "Looking for a flat to lease",
  "What was the final score of the football match?",
];
const [question, paraphrase, unrelated] = await embedder.embed(texts);
const encoder = loadUniversalSentenceEncoder();
const batched = await new SentenceEmbedder({ load: () => encoder, batchSize: 2 }).embed(texts);
const [again] = await embedder.embed([texts[0]]);
console.log(JSON.stringify({
  model: embedder.model,
  dimensions: embedder.dimensions,
  lengths: [question.length, paraphrase.length, unrelated.length],
  paraphrase: cosine(question, paraphrase),
  unrelated: cosine(question, unrelated),
  batchedDrift: Math.max(
    ...batched.map((v, i) => 1 - cosine(v, [question, paraphrase, unrelated][i])),
  ),
  againDrift: 1 - cosine(question, again),
}));
